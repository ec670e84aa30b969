package acp

import (
	"errors"
	"fmt"
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// Error codes of JSON-RPC 2.0 and ACP.
const (
	CodeParseError       = -32700 // invalid JSON
	CodeInvalidRequest   = -32600 // not a valid request object
	CodeMethodNotFound   = -32601 // the receiver does not implement the method
	CodeInvalidParams    = -32602 // the params do not fit the method
	CodeInternalError    = -32603 // the handler failed
	CodeAuthRequired     = -32000 // ACP: authentication is required first
	CodeResourceNotFound = -32002 // ACP: e.g. an unknown session or file
	CodeRequestCancelled = -32800 // the request was cancelled
)

// ErrClosed is wrapped by the errors that end calls because the connection
// was closed or the peer's stream ended. Test for it with errors.Is.
var ErrClosed = errors.New("acp: connection closed")

// InvalidAnswerError is the error of a call whose answer acprun could not
// take: not a well-formed JSON-RPC response, or a result not of the
// method's shape. Problem says why in the schema's words ("stopReason:
// want a string, got a number"), without Go's.
type InvalidAnswerError struct {
	Method  string
	Problem string
	Err     error // the decoding's error (ErrNoProtocolVersion, a json error)
}

func (e *InvalidAnswerError) Error() string {
	return "acp: " + e.Method + ": invalid answer: " + e.Problem
}

func (e *InvalidAnswerError) Unwrap() error { return e.Err }

// Error is a JSON-RPC error object. A Handler returns it to answer a request
// with that error; Call.Await returns it when the peer answered with one.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the code and message.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Summary is the error as a result records it: its message and its code,
// "no message" in the message's place when the agent sent none (or only
// blanks), e.g. `no message (code -32603)`.
func (e *Error) Summary() string {
	msg := e.Message
	if strings.TrimSpace(msg) == "" {
		msg = "no message"
	}
	return fmt.Sprintf("%s (code %d)", msg, e.Code)
}

// NewError returns an Error with the code and a message formatted like
// fmt.Sprintf.
func NewError(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// MethodNotFound returns the -32601 error for a method the receiver does not
// implement.
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "Method not found: " + method}
}

// closedError says why the connection ended. It wraps ErrClosed and the
// underlying cause (io.EOF or the read error).
type closedError struct {
	reason string
	cause  error
}

func (e *closedError) Error() string { return ErrClosed.Error() + ": " + e.reason }

func (e *closedError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrClosed}
	}
	return []error{ErrClosed, e.cause}
}
