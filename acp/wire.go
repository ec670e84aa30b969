package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

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
		return fmt.Errorf("acp: invalid id %.40q: want a number, a string or null", data)
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

// Request is an incoming request or notification.
type Request struct {
	ID     *ID // nil for a notification
	Method string
	Params json.RawMessage // nil when absent
}

// IsNotification reports whether the request expects no answer.
func (r *Request) IsNotification() bool { return r.ID == nil }

// message is one decoded JSON-RPC message. A request has a method and an id,
// a notification a method and no id, a response an id and no method.
type message struct {
	id     json.RawMessage // JSON text; nil for a notification
	method string          // "" for a response
	params json.RawMessage // request/notification; nil when absent
	result json.RawMessage // success response
	err    *Error          // error response
}

// jsonrpcVersion records whether the "jsonrpc" member is exactly "2.0",
// without allocating a string for it.
type jsonrpcVersion bool

func (v *jsonrpcVersion) UnmarshalJSON(data []byte) error {
	*v = string(data) == `"2.0"`
	return nil
}

// methodName decodes the "method" member, reusing the string of a method
// seen before: a stream repeats a handful of method names.
type methodName struct {
	s    string
	seen map[string]string
}

func (m *methodName) UnmarshalJSON(data []byte) error {
	if len(data) < 2 || data[0] != '"' {
		return errors.New(`"method" is not a string`)
	}
	inner := data[1 : len(data)-1]
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf { // escapes or UTF-8 to check: no reuse
			return json.Unmarshal(data, &m.s)
		}
	}
	if s, ok := m.seen[string(inner)]; ok {
		m.s = s
		return nil
	}
	m.s = string(inner)
	if m.seen != nil && len(m.seen) < 64 {
		m.seen[m.s] = m.s
	}
	return nil
}

// wireMsg is every member of a JSON-RPC message, decoded in one pass. The
// error object stays raw so a malformed one does not hide the id.
type wireMsg struct {
	JSONRPC jsonrpcVersion  `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  methodName      `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decoder decodes the lines of one stream.
type decoder struct {
	w       wireMsg // scratch, reused
	methods map[string]string
	stack   []byte // scratch for scan
}

func newDecoder() *decoder { return &decoder{methods: make(map[string]string)} }

// decode decodes one line. On error the message may still carry the id of a
// malformed response, so the call it answers can be failed.
// errInvalidRequest is decode's error for a request that is not valid
// JSON-RPC but has a method and an id: it is answered with -32600.
var errInvalidRequest = errors.New(`invalid request: missing "jsonrpc":"2.0"`)

func (d *decoder) decode(line []byte) (message, error) {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	switch {
	case i == len(line):
		return message{}, errors.New("empty line")
	case line[i] == '[':
		return message{}, errors.New("JSON-RPC batches are not supported")
	case line[i] != '{':
		return message{}, errors.New("not a JSON object")
	}
	d.w = wireMsg{Method: methodName{seen: d.methods}}
	w := &d.w
	if !d.scan(line, w) {
		// Anything unusual (invalid JSON, an odd member name, a method
		// that is not a string) goes through encoding/json, for its errors.
		d.w = wireMsg{Method: methodName{seen: d.methods}}
		if err := json.Unmarshal(line, w); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return message{}, fmt.Errorf("%q is a JSON %s", te.Field, te.Value)
			}
			return message{}, fmt.Errorf("invalid JSON: %w", err)
		}
	}
	if !w.JSONRPC {
		if w.Method.s != "" && w.ID != nil && validID(w.ID) {
			// A request we can still answer, with an error.
			return message{id: w.ID, method: w.Method.s}, errInvalidRequest
		}
		return message{}, errors.New(`missing "jsonrpc":"2.0"`)
	}
	if w.ID != nil && !validID(w.ID) {
		return message{}, errors.New("id is not a number, a string or null")
	}
	if w.Method.s != "" {
		return message{id: w.ID, method: w.Method.s, params: w.Params}, nil
	}
	if w.ID == nil {
		return message{}, errors.New("neither method nor id")
	}
	m := message{id: w.ID}
	hasErr := len(w.Error) > 0 && !isNull(w.Error)
	hasResult := len(w.Result) > 0
	switch {
	case hasErr && hasResult && !isNull(w.Result):
		return m, errors.New("response has both result and error")
	case hasErr:
		var e Error
		if err := json.Unmarshal(w.Error, &e); err != nil {
			return m, fmt.Errorf("invalid error object: %w", err)
		}
		m.err = &e
	case hasResult:
		m.result = w.Result
	default:
		return m, errors.New("response has neither result nor error")
	}
	return m, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isNull(raw []byte) bool { return string(raw) == "null" }

// isBlank reports whether a line holds only JSON whitespace.
func isBlank(line []byte) bool {
	for _, c := range line {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// appendMessage appends m as one compact JSON object without a newline. Raw
// members must be compact JSON (as json.Marshal produces); a nil result is
// sent as null.
func appendMessage(buf []byte, m *message) []byte {
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	if m.id != nil {
		buf = append(buf, `,"id":`...)
		buf = append(buf, m.id...)
	}
	switch {
	case m.method != "":
		buf = append(buf, `,"method":`...)
		buf = appendString(buf, m.method)
		if m.params != nil {
			buf = append(buf, `,"params":`...)
			buf = append(buf, m.params...)
		}
	case m.err != nil:
		buf = append(buf, `,"error":`...)
		buf = appendError(buf, m.err)
	default:
		buf = append(buf, `,"result":`...)
		if m.result == nil {
			buf = append(buf, "null"...)
		} else {
			buf = append(buf, m.result...)
		}
	}
	return append(buf, '}')
}

// appendError appends e as a JSON error object. Data that is not valid JSON
// is left out.
func appendError(buf []byte, e *Error) []byte {
	buf = append(buf, `{"code":`...)
	buf = strconv.AppendInt(buf, int64(e.Code), 10)
	buf = append(buf, `,"message":`...)
	buf = appendString(buf, e.Message)
	if len(e.Data) > 0 {
		var data bytes.Buffer
		if json.Compact(&data, e.Data) == nil {
			buf = append(buf, `,"data":`...)
			buf = append(buf, data.Bytes()...)
		}
	}
	return append(buf, '}')
}

// appendString appends s as a JSON string.
func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			quoted, _ := json.Marshal(s) // a string always marshals
			return append(buf, quoted...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// marshalValue returns v as compact JSON without HTML escaping, or nil when v
// is nil or marshals to null.
func marshalValue(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if a, ok := v.(jsonAppender); ok {
		if raw, ok := a.appendJSON(nil); ok {
			return raw, nil
		}
	}
	return encodeValue(v)
}

// jsonAppender is a value that can append its JSON itself, as
// encodeValue would give it, without reflection; ok false leaves it to
// encodeValue.
type jsonAppender interface {
	appendJSON(buf []byte) (out []byte, ok bool)
}

// encodeValue is marshalValue through encoding/json.
func encodeValue(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	raw := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if isNull(raw) {
		return nil, nil
	}
	return raw, nil
}
