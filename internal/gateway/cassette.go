package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/srcerr"
)

// cassette is what a record attempt keeps, one JSON file per scenario
// attempt:
//
//	{"version": 1, "exchanges": [{
//	  "request": {"method": "POST", "path": "/v1/messages", "query": "beta=true",
//	              "api": "anthropic-messages", "model": "claude-…", "body": {…}},
//	  "response": {"status": 200, "contentType": "text/event-stream",
//	               "events": [{"ms": 412, "data": "event: message_start\ndata: {…}\n\n"}, …]}}]}
//
// The exchanges are in the order the requests came. A request's path is
// the part after the route's prefix; its query leaves out secret-looking
// parameters (key=…); its body is normalised (see normaliseBody). An
// answer streamed as server-sent events has one entry per event, any
// other answer one entry with its whole body; an entry's ms is the time
// since the previous entry (the first: since the request was sent
// upstream), and its bytes are "data" when they are UTF-8, else "base64".
// "truncated" marks an answer that broke off (the upstream, or the
// recording's end, cut it: Close, or the agent's turn cancelled because
// the run was stopped): replay breaks it off too. "abandoned" marks one
// the agent went away from first while the run went on (its turn
// cancelled, say by its timeout, while the upstream stalled), or a
// request whose answer had not started when the recording ended, kept as
// far as it went, with status 0 and no events when no headers had come:
// replay holds it open there until the agent goes away again. No header
// is kept but the content type; everything kept went through the
// attempt's redactor and the request's own credentials, and has the
// attempt's paths replaced by their names.
type cassette struct {
	Version   int        `json:"version"`
	Exchanges []exchange `json:"exchanges"`
}

// cassetteVersion is the version of the cassette format Attempt writes and
// reads; a cassette of another version is refused.
const cassetteVersion = 1

// exchange is one request and its answer.
type exchange struct {
	Request  request  `json:"request"`
	Response response `json:"response"`
}

// request is a request as kept and matched.
type request struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Query  string          `json:"query,omitempty"`
	API    provider.API    `json:"api,omitempty"`
	Model  string          `json:"model,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
}

// response is an answer as kept and replayed.
type response struct {
	Status      int     `json:"status"`
	ContentType string  `json:"contentType,omitempty"`
	Events      []event `json:"events"`
	Truncated   bool    `json:"truncated,omitempty"`
	// Abandoned marks an answer the agent went away from before it ended
	// while the run went on (its turn cancelled while the upstream
	// stalled), or one whose headers had not come when the recording
	// ended: Status is 0 when there were no headers.
	Abandoned bool `json:"abandoned,omitempty"`
}

// event is one piece of an answer.
type event struct {
	MS     int64  `json:"ms"`
	Data   string `json:"data,omitempty"`
	Base64 string `json:"base64,omitempty"`
}

// newEvent is an event of the bytes p, ms after the previous one.
func newEvent(ms int64, p []byte) event {
	if utf8.Valid(p) {
		return event{MS: ms, Data: string(p)}
	}
	return event{MS: ms, Base64: base64.StdEncoding.EncodeToString(p)}
}

// bytes is the event's bytes.
func (e event) bytes() []byte {
	if e.Base64 != "" {
		b, _ := base64.StdEncoding.DecodeString(e.Base64) // checked by readCassette
		return b
	}
	return []byte(e.Data)
}

// recordAgain is what to do about a cassette that cannot be replayed.
const recordAgain = "record it again with --gateway record"

// maxCassetteBytes is the most of a cassette replay reads: far above
// what an attempt records, low enough that a cassette cannot take all of
// acprun's memory.
const maxCassetteBytes = 1 << 30

// CheckCassette reads the cassette at path as Open reads it in replay,
// and returns Open's error for it: nil when replay would play it. It is
// for checks made before a run (validate --strict); a run's attempt reads
// its cassette in Open.
func CheckCassette(path string) error {
	_, err := readCassette(nil, path)
	return err
}

// readCassette reads the cassette at path, a regular file of at most
// maxCassetteBytes (inputfile: never waiting on a FIFO, never reading
// without end), through pin when set: path pinned before others could
// write where it is, so that a symbolic link put at its place since is
// refused, not followed. Every error names path.
func readCassette(pin *inputfile.Pinned, path string) (*cassette, error) {
	var data []byte
	var err error
	if pin != nil {
		data, err = pin.Read(maxCassetteBytes)
	} else {
		data, err = inputfile.Read(path, maxCassetteBytes)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("cassette %s does not exist: record it with --gateway record", path)
	case err != nil:
		return nil, fmt.Errorf("cassette %s: %w", path, inputfile.Bare(err))
	}
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(path, data, err)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("cassette %s has no version: it is not an acprun cassette; %s", path, recordAgain)
	}
	if *head.Version != cassetteVersion {
		return nil, fmt.Errorf("cassette %s is version %d; this acprun reads version %d: %s", path, *head.Version, cassetteVersion, recordAgain)
	}
	var c cassette
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, jsonError(path, data, err)
	}
	for i, ex := range c.Exchanges {
		if msg := ex.check(); msg != "" {
			return nil, fmt.Errorf("cassette %s: exchange %d: %s; %s", path, i+1, msg, recordAgain)
		}
	}
	return &c, nil
}

// check returns what is wrong with a recorded exchange, "" for nothing.
func (ex *exchange) check() string {
	switch {
	case ex.Request.Method == "":
		return "the request has no method"
	case len(ex.Request.Path) == 0 || ex.Request.Path[0] != '/':
		return fmt.Sprintf("the request's path %q does not start with /", ex.Request.Path)
	case ex.Response.Status == 0 && ex.Response.Abandoned && len(ex.Response.Events) == 0:
		// abandoned before the answer started: no status
	case ex.Response.Status < 100 || ex.Response.Status > 599:
		return fmt.Sprintf("the response's status %d is not an HTTP status", ex.Response.Status)
	}
	for j, e := range ex.Response.Events {
		if e.Data != "" && e.Base64 != "" {
			return fmt.Sprintf("event %d has both data and base64", j+1)
		}
		if _, err := base64.StdEncoding.DecodeString(e.Base64); err != nil {
			return fmt.Sprintf("event %d: base64: %v", j+1, err)
		}
		if e.MS < 0 {
			return fmt.Sprintf("event %d: ms %d is negative", j+1, e.MS)
		}
	}
	return ""
}

// jsonError is err, from decoding the cassette data at path, saying where:
// at the character json stopped at, the one before its Offset.
func jsonError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	at := func(off int64, msg string) error {
		return srcerr.AtOffset(path, data, int(off)-1, "not a valid cassette: "+msg+"; "+recordAgain)
	}
	switch {
	case errors.As(err, &syn):
		return at(syn.Offset, err.Error())
	case errors.As(err, &typ):
		return at(typ.Offset, fmt.Sprintf("%s is %s, not %s", fieldName(typ.Field), jsonKind(typ.Value), wantedKind(typ.Type)))
	}
	return &srcerr.Error{File: path, Msg: "not a valid cassette: " + err.Error() + "; " + recordAgain}
}

// fieldName names a field of the cassette, as json names it
// ("exchanges.0.response.status"), as a divergence does
// ("exchanges[0].response.status"); "it" for the whole document.
func fieldName(field string) string {
	if field == "" {
		return "it"
	}
	var b strings.Builder
	for i, part := range strings.Split(field, ".") {
		switch _, err := strconv.Atoi(part); {
		case err == nil:
			b.WriteString("[" + part + "]")
		case i > 0:
			b.WriteString("." + part)
		default:
			b.WriteString(part)
		}
	}
	return b.String()
}

// jsonKind is a JSON value's kind as json names it ("array"), in words.
func jsonKind(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "bool":
		return "true or false"
	case "":
		return "a value"
	}
	return "a " + kind
}

// wantedKind is the JSON value a Go type takes, in words.
func wantedKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	}
	return "another value"
}

// writeCassette writes c to path atomically (outfile.Write: a temporary
// file beside it, renamed), creating the directory; in dir, when set, the
// directory path is in (outfile.WriteIn), with ctx's outfile.WithTemps
// hook. Errors name path, never the temporary file.
func writeCassette(ctx context.Context, dir *os.Root, path string, c *cassette) error {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(c); err != nil {
		return fmt.Errorf("write cassette %s: %w", path, err)
	}
	var err error
	if dir != nil {
		err = outfile.WriteIn(ctx, dir, path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err })
	} else {
		err = outfile.Write(ctx, path, buf.Bytes())
	}
	if err != nil {
		return fmt.Errorf("write cassette %s: %w", path, innerErr(err, path))
	}
	return nil
}

// innerErr is err without the path of an *fs.PathError when that is
// path, which the caller names already.
func innerErr(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return pe.Err
	}
	return err
}
