package acp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	json "github.com/go-json-experiment/json/v1"
)

// This file holds the JSON shapes of JSON-RPC 2.0: what one line decodes to
// and what Conn encodes. It knows no method names and no framing.

// ID is a JSON-RPC request id. It keeps the id's JSON text verbatim (a
// number, a string or null), so an answer echoes it exactly as received.
// The zero ID is null.
type ID struct {
	raw json.RawMessage
}

// String returns the id as JSON text, e.g. `1` or `"abc"`.
func (id ID) String() string {
	if len(id.raw) == 0 {
		return "null"
	}
	return string(id.raw)
}

// MarshalJSON returns the id's JSON text.
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id.raw) == 0 {
		return []byte("null"), nil
	}
	return bytes.Clone(id.raw), nil
}

// UnmarshalJSON keeps a number, string or null verbatim and rejects other
// JSON values.
func (id *ID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if !validID(data) || !json.Valid(data) {
		return fmt.Errorf("acp: invalid id: want a number, a string or null, got %s", describe(data))
	}
	id.raw = bytes.Clone(data)
	return nil
}

// intID returns the ID of one of our outgoing requests.
func intID(n int64) ID { return ID{raw: strconv.AppendInt(nil, n, 10)} }

// validID reports whether raw JSON text starts like an id: a string, a
// number or null.
func validID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// parseOurID returns the integer of an id we could have sent: a plain
// positive decimal integer.
func parseOurID(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 18 || raw[0] == '0' {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Key is the key the id is matched by, as the Conn matches an answer to
// its request: a string by its value, a number by its JSON text. ok is
// false for null, which answers nothing.
func (id ID) Key() (key string, ok bool) { return idKey(id.raw) }

// idKey is the key an id is matched by: a string by its value, a number
// by its JSON text. ok is false for no id and for null, which answers
// nothing.
func idKey(raw json.RawMessage) (key string, ok bool) {
	switch {
	case len(raw) == 0 || isNull(raw):
		return "", false
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	}
	return "n" + string(raw), true
}

// Request is an incoming request or notification.
type Request struct {
	ID     *ID             // nil for a notification
	Method string          // never "" in a request; a notification's may be
	Params json.RawMessage // nil when absent
}

// IsNotification reports whether the request expects no answer.
func (r *Request) IsNotification() bool { return r.ID == nil }

// DecodeParams decodes the params into v as json.Unmarshal does, with the
// JSON decoding of every message (see the package doc). Its error says
// what is wrong in the schema's words, not Go's ("prompt: want an array,
// got a string"), and wraps the decoding's own.
func (r *Request) DecodeParams(v any) error {
	err := json.Unmarshal(r.Params, v)
	if me := (*memberError)(nil); err == nil || errors.As(err, &me) {
		return err // none, or said in the schema's words by v's own decoding
	}
	return &memberError{msg: problem(err, r.Params), err: err}
}

// message is one JSON-RPC message: a request (Method and ID), a
// notification (Method, no ID; decode takes an empty one) or a response
// (ID, and Result or Error). A line decodes into it in one pass, its
// members left raw for the handler to decode by their type, and Conn
// encodes it as one line. Raw members Conn encodes are compact JSON (see
// marshalValue).
type message struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
	// stray names the member only a response has ("result", "error")
	// that a request or a notification came with, which decode dropped:
	// a protocol violation. Never encoded.
	stray string
}

// jsonrpc2 is the "jsonrpc" member of every message.
var jsonrpc2 = json.RawMessage(`"2.0"`)

// outgoing is a message as Conn writes it: a request's params are JSON
// already (a call marshals them when it is made), an answer's result is
// still the handler's value, encoded with the line.
type outgoing struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"` // json.RawMessage("null") for a nil result
	Error   *Error          `json:"error,omitempty"`
}

// errInvalidRequest is wrapped by decode's error for a request (a message
// with a method and an id) that is not valid JSON-RPC: it is answered with
// -32600, with its id, or null when its id is not valid.
var errInvalidRequest = errors.New("invalid request")

// nullID is the id of the answer to a request whose id is not valid.
var nullID = json.RawMessage("null")

// decode decodes one line. On error the message may still carry the id of a
// malformed response, so the call it answers can be failed, or the id and
// method of a request that is answered with -32600 (errInvalidRequest).
func decode(line []byte) (message, error) {
	switch first := bytes.TrimLeft(line, " \t\r\n"); {
	case len(first) == 0:
		return message{}, errors.New("empty line")
	case first[0] == '[':
		return message{}, errors.New("JSON-RPC batches are not supported")
	case first[0] != '{':
		return message{}, errors.New("not a JSON object")
	}
	// The method is read raw, so that one that is null, "" or not a
	// string is told from none: a message with a method is a request or a
	// notification, never a response.
	var m struct {
		message
		Method json.RawMessage `json:"method"`
	}
	badError := false
	if err := json.Unmarshal(line, &m); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case !errors.As(err, &te):
			return message{}, fmt.Errorf("invalid JSON: %w", err)
		case m.Method == nil:
			// Only the error object can be of the wrong type: the id
			// still says which call it answers.
			return message{ID: m.ID}, fmt.Errorf("invalid error object: %q is a JSON %s", te.Field, te.Value)
		}
		// A request has no error member: one of the wrong type is left
		// out, as any other member a request does not use.
		badError = true
	}
	if m.Method != nil {
		req, err := decodeRequest(m.message, m.Method)
		switch {
		case err != nil: // reported as invalid already
		case m.Result != nil:
			req.stray = "result"
		case m.Error != nil || badError:
			req.stray = "error"
		}
		return req, err
	}
	// The id is read before the version: a response with a bad one
	// still says which call it answers, and fails it.
	switch {
	case m.ID == nil && !bytes.Equal(m.JSONRPC, jsonrpc2):
		return message{}, errors.New(versionProblem(m.JSONRPC))
	case m.ID == nil:
		return message{}, errors.New("neither method nor id")
	case !validID(m.ID):
		return message{}, errors.New("id: " + wrongType("a number, a string or null", m.ID))
	case !bytes.Equal(m.JSONRPC, jsonrpc2):
		return message{ID: m.ID}, errors.New(versionProblem(m.JSONRPC))
	}
	switch {
	case m.Error != nil && m.Result != nil && !isNull(m.Result):
		return message{ID: m.ID}, errors.New("response has both result and error")
	case m.Error != nil:
		return message{ID: m.ID, Error: m.Error}, nil
	case m.Result != nil:
		return message{ID: m.ID, Result: m.Result}, nil
	}
	return message{ID: m.ID}, errors.New("response has neither result nor error")
}

// head is what decodeHead reads of a line too long to decode: who sent it
// and whether it is to be answered.
type head struct {
	id     json.RawMessage // the id member, raw; nil when none was read
	method json.RawMessage // the method member, raw; nil when none was read
	answer bool            // a result or an error member was read
}

// maxHeadToken bounds what decodeHead holds at a time: the token it reads
// (a string, a number) or the value it reads whole (an id, a method).
const maxHeadToken = 64 << 10

// decodeHead reads the members of line, a JSON object too long to
// decode, that say what it is, in their order: its id, and its method (a
// request) or its result or error (a response), whichever comes first. It
// stops once it has them; other values are skipped token by token. ok is
// false when that cannot be told: the line is no JSON object, as far as
// it was read, it ends first (a notification), or a token or the id or
// method is longer than maxHeadToken, which is not read whole.
func decodeHead(line io.Reader) (h head, ok bool) {
	lim := &tokenLimit{r: line}
	dec := jsontext.NewDecoder(lim, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	lim.dec = dec
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return head{}, false
	}
	for h.id == nil || h.method == nil && !h.answer {
		name, err := dec.ReadToken()
		if err != nil || name.Kind() != '"' {
			return head{}, false
		}
		switch name.String() {
		case "id":
			h.id, err = readClone(dec)
		case "method":
			h.method, err = readClone(dec)
		case "result", "error":
			if h.answer = true; h.id == nil {
				err = dec.SkipValue()
			}
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return head{}, false
		}
	}
	return h, true
}

// readClone reads the next value of dec, a copy.
func readClone(dec *jsontext.Decoder) (json.RawMessage, error) {
	v, err := dec.ReadValue()
	return json.RawMessage(v.Clone()), err
}

// tokenLimit reads r for dec, up to maxHeadToken bytes past the end of the
// last token dec read: dec's buffer holds no longer token.
type tokenLimit struct {
	r    io.Reader
	dec  *jsontext.Decoder
	read int64 // the bytes read from r
}

// errLongToken is tokenLimit's error when dec would read more.
var errLongToken = fmt.Errorf("a token longer than %d bytes", maxHeadToken)

func (l *tokenLimit) Read(p []byte) (int, error) {
	room := l.dec.InputOffset() + maxHeadToken - l.read
	if room <= 0 {
		return 0, errLongToken
	}
	n, err := l.r.Read(p[:min(int64(len(p)), room)])
	l.read += int64(n)
	return n, err
}

// decodeRequest returns the request or notification of a message whose
// method member is method, raw. A request it cannot take is returned with
// an error wrapping errInvalidRequest, with its method when a string and
// its id (null when not valid), to be answered; a notification it cannot
// take, with a plain error. A notification's method may be "": it names
// no method the receiver knows.
func decodeRequest(m message, method json.RawMessage) (message, error) {
	var name string
	isString := method[0] == '"' && json.Unmarshal(method, &name) == nil
	var problem string
	switch {
	case !bytes.Equal(m.JSONRPC, jsonrpc2):
		problem = versionProblem(m.JSONRPC)
	case m.ID != nil && !validID(m.ID):
		problem = "id: " + wrongType("a number, a string or null", m.ID)
	case !isString:
		problem = "method: " + wrongType("a string", method)
	case name == "" && m.ID != nil:
		problem = "method: empty"
	default:
		return message{ID: m.ID, Method: name, Params: m.Params}, nil
	}
	if m.ID == nil {
		return message{}, errors.New(problem)
	}
	id := m.ID
	if !validID(id) {
		id = nullID
	}
	return message{ID: id, Method: name}, fmt.Errorf("%w: %s", errInvalidRequest, problem)
}

// versionProblem says what is wrong with raw, a message's "jsonrpc" member
// that is not "2.0": missing (or null), or another value.
func versionProblem(raw json.RawMessage) string {
	if raw == nil || isNull(raw) {
		return `missing "jsonrpc":"2.0"`
	}
	return `jsonrpc: want "2.0", got ` + describe(raw)
}

// isRequest reports whether m, decoded without error, is a request or a
// notification: a response has a result or an error.
func (m *message) isRequest() bool { return m.Result == nil && m.Error == nil }

func isNull(raw []byte) bool { return string(raw) == "null" }

// marshalValue returns v as compact JSON without HTML escaping, or nil when v
// is nil or marshals to null.
func marshalValue(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := unescaped(v)
	if err != nil || isNull(raw) {
		return nil, err
	}
	return raw, nil
}

// unescaped returns v as compact JSON without HTML escaping.
func unescaped(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
