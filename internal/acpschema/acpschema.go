// Package acpschema validates messages against the official ACP schema, for tests.
//
// It compiles subschemas of the ACP v1 JSON Schema (schema.json, draft 2020-12) and
// validates single payloads by $defs name, or whole JSON-RPC messages by method. The
// method → definition map is derived from the schema's own x-method / x-side
// annotations. The schema and the recorded transcripts of real agents (Transcripts)
// are vendored in testdata and embedded: the tests need nothing beside the module.
// testdata/SOURCE names where they come from, their versions and licences.
package acpschema

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is the official ACP v1 schema.json (see testdata/SOURCE).
//
//go:embed testdata/schema.json
var schemaJSON []byte

//go:embed testdata/transcripts/*.jsonl
var transcripts embed.FS

// schemaURL is the name the schema is compiled under; it is never fetched.
const schemaURL = "file:///acpschema/schema.json"

// SchemaJSON returns the text of the vendored schema.json.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// Transcripts returns the recorded wire logs of real agents (see testdata/SOURCE):
// *.jsonl files at the root of the file system, one JSON object per line with dir
// ("c2a", "a2c" or "note") and msg.
func Transcripts() fs.FS {
	sub, err := fs.Sub(transcripts, "testdata/transcripts")
	if err != nil {
		panic(err) // the embedded directory is always there
	}
	return sub
}

// Validator validates JSON against definitions of one ACP schema. It is safe for
// concurrent use.
type Validator struct {
	compiler *jsonschema.Compiler
	// params and results map a method to the $defs name of its params / result,
	// sides maps a method to the side that handles it ("agent", "client", "protocol").
	params, results, sides map[string]string
	// notifications holds the methods whose params definition is a notification.
	notifications map[string]bool

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

// Load returns the validator of the vendored schema, made once per process. It
// fails the test when the schema does not compile.
func Load(t testing.TB) *Validator {
	t.Helper()
	v, err := loadDefault()
	if err != nil {
		t.Fatalf("acp schema: %v", err)
	}
	return v
}

var loadDefault = sync.OnceValues(func() (*Validator, error) { return New(schemaJSON) })

// Validate validates msg against the schema definition defName (e.g.
// "InitializeRequest") of the vendored schema.
func Validate(defName string, msg []byte) error {
	v, err := loadDefault()
	if err != nil {
		return err
	}
	return v.Validate(defName, msg)
}

// New prepares the schema whose text is data (an ACP schema.json).
func New(data []byte) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("add schema: %w", err)
	}
	v := &Validator{
		compiler:      c,
		params:        map[string]string{},
		results:       map[string]string{},
		sides:         map[string]string{},
		notifications: map[string]bool{},
		compiled:      map[string]*jsonschema.Schema{},
	}
	var meta struct {
		Defs map[string]struct {
			Method string `json:"x-method"`
			Side   string `json:"x-side"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	for name, d := range meta.Defs {
		if d.Method == "" {
			continue
		}
		switch notification := strings.HasSuffix(name, "Notification"); {
		case notification || strings.HasSuffix(name, "Request"):
			v.params[d.Method] = name
			v.sides[d.Method] = d.Side
			v.notifications[d.Method] = notification
		case strings.HasSuffix(name, "Response"):
			v.results[d.Method] = name
		}
	}
	if len(v.params) == 0 {
		return nil, errors.New("schema: no x-method annotations")
	}
	return v, nil
}

// ParamsDef returns the $defs name of method's params, or "" for an unknown method.
func (v *Validator) ParamsDef(method string) string { return v.params[method] }

// ResultDef returns the $defs name of method's result, or "" for an unknown method or
// a notification.
func (v *Validator) ResultDef(method string) string { return v.results[method] }

func (v *Validator) schema(defName string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.compiled[defName]; ok {
		return s, nil
	}
	s, err := v.compiler.Compile(schemaURL + "#/$defs/" + defName)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", defName, err)
	}
	v.compiled[defName] = s
	return s, nil
}

// Validate validates msg (one JSON value) against the definition defName.
func (v *Validator) Validate(defName string, msg []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		return fmt.Errorf("%s: invalid JSON: %w", defName, err)
	}
	return v.validateValue(defName, inst)
}

func (v *Validator) validateValue(defName string, inst any) error {
	s, err := v.schema(defName)
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%s: %w", defName, err)
	}
	return nil
}

// envelope is a decoded JSON-RPC message; a nil field was absent.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

func decodeEnvelope(msg []byte) (envelope, error) {
	var e envelope
	if err := json.Unmarshal(msg, &e); err != nil {
		return e, fmt.Errorf("json-rpc message: %w", err)
	}
	if e.JSONRPC == nil || *e.JSONRPC != "2.0" {
		return e, errors.New(`json-rpc message: "jsonrpc" must be "2.0"`)
	}
	if e.ID != nil {
		if err := checkID(e.ID); err != nil {
			return e, err
		}
	}
	return e, nil
}

// checkID checks that a present id is null, an integer or a string (schema RequestId).
func checkID(raw json.RawMessage) error {
	var id any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&id); err != nil {
		return fmt.Errorf("json-rpc id: %w", err)
	}
	switch id := id.(type) {
	case nil, string:
		return nil
	case json.Number:
		if _, err := id.Int64(); err == nil {
			return nil
		}
	}
	return fmt.Errorf("json-rpc id %s: must be null, an integer or a string", raw)
}

// ValidateClientMessage validates a whole JSON-RPC message sent by the client: a
// request (with id) or notification (without) of a method the agent handles, whose
// params must match the method's definition. Extension methods ("_…") only get the
// envelope checked. A response (no method) is checked against the schema's generic
// ClientResponse; use ValidateClientResponse when the answered method is known.
func (v *Validator) ValidateClientMessage(msg []byte) error {
	return v.validateMessage("agent", "ClientResponse", msg)
}

// ValidateAgentMessage is ValidateClientMessage for messages sent by the agent.
func (v *Validator) ValidateAgentMessage(msg []byte) error {
	return v.validateMessage("client", "AgentResponse", msg)
}

// ValidateClientResponse validates a JSON-RPC response sent by the client to an agent
// request of the given method: the envelope, then the result against the method's
// result definition (e.g. session/request_permission → RequestPermissionResponse), or
// the error against the schema's Error definition.
func (v *Validator) ValidateClientResponse(method string, msg []byte) error {
	return v.validateResponse("client", method, msg)
}

// ValidateAgentResponse is ValidateClientResponse for responses sent by the agent to a
// client request of the given method.
func (v *Validator) ValidateAgentResponse(method string, msg []byte) error {
	return v.validateResponse("agent", method, msg)
}

// validateMessage validates a message handled by receiver.
func (v *Validator) validateMessage(receiver, genericResponse string, msg []byte) error {
	e, err := decodeEnvelope(msg)
	if err != nil {
		return err
	}
	if e.Method == nil {
		if err := checkResponseShape(e); err != nil {
			return err
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
		if err != nil {
			return fmt.Errorf("json-rpc response: %w", err)
		}
		return v.validateValue(genericResponse, inst)
	}
	method := *e.Method
	if e.Result != nil || e.Error != nil {
		return fmt.Errorf("%s: a request or notification has no result or error", method)
	}
	if strings.HasPrefix(method, "_") {
		return nil
	}
	def, ok := v.params[method]
	if !ok {
		return fmt.Errorf("%s: unknown method", method)
	}
	if side := v.sides[method]; side != receiver && side != "protocol" {
		return fmt.Errorf("%s: handled by the %s, cannot be sent to it by the %s", method, side, otherSide(side))
	}
	switch {
	case v.notifications[method] && e.ID != nil:
		return fmt.Errorf("%s: a notification must not have an id", method)
	case !v.notifications[method] && e.ID == nil:
		return fmt.Errorf("%s: a request must have an id", method)
	}
	params := e.Params
	if params == nil || bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
		params = json.RawMessage("{}")
	}
	if err := v.Validate(def, params); err != nil {
		return fmt.Errorf("%s params: %w", method, err)
	}
	return nil
}

func otherSide(side string) string {
	if side == "agent" {
		return "client"
	}
	return "agent"
}

func checkResponseShape(e envelope) error {
	if e.ID == nil {
		return errors.New("json-rpc response: missing id (or method)")
	}
	if (e.Result == nil) == (e.Error == nil) {
		return errors.New("json-rpc response: needs exactly one of result and error")
	}
	return nil
}

// validateResponse validates a response sent by sender to a request of method.
func (v *Validator) validateResponse(sender, method string, msg []byte) error {
	e, err := decodeEnvelope(msg)
	if err != nil {
		return err
	}
	if e.Method != nil {
		return fmt.Errorf("%s response: has a method (%q)", method, *e.Method)
	}
	if err := checkResponseShape(e); err != nil {
		return fmt.Errorf("%s response: %w", method, err)
	}
	if e.Error != nil {
		if err := v.Validate("Error", e.Error); err != nil {
			return fmt.Errorf("%s error response: %w", method, err)
		}
		return nil
	}
	if strings.HasPrefix(method, "_") {
		return nil
	}
	def, ok := v.results[method]
	if !ok {
		return fmt.Errorf("%s: unknown method or a notification (no response)", method)
	}
	// The request's handler is the side that responds.
	if side := v.sides[method]; side != sender {
		return fmt.Errorf("%s: requests are handled by the %s, not the %s", method, side, sender)
	}
	if err := v.Validate(def, e.Result); err != nil {
		return fmt.Errorf("%s result: %w", method, err)
	}
	return nil
}
