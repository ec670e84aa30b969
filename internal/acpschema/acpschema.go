// Package acpschema validates messages against the official ACP schema, for tests.
//
// It compiles subschemas of the ACP v1 JSON Schema (schema.json, draft 2020-12) and
// validates single payloads by $defs name, or whole JSON-RPC messages by method. The
// method → definition map is derived from the schema's own x-method / x-side
// annotations. The schema file is found by walking up from the working directory to a
// directory that contains shared/acp/schema.json (in CI the shared folder sits beside
// the module checkout), or taken from the ACPRUN_ACP_SCHEMA environment variable.
package acpschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// EnvSchema names the environment variable that overrides the schema file location.
const EnvSchema = "ACPRUN_ACP_SCHEMA"

// ErrNotFound is returned by Find when no schema file can be located.
var ErrNotFound = errors.New("acp schema.json not found")

// Find returns the path of the ACP schema.json: $ACPRUN_ACP_SCHEMA if set, else the
// first shared/acp/schema.json found in the working directory or one of its parents.
func Find() (string, error) {
	if p := os.Getenv(EnvSchema); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", EnvSchema, err)
		}
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find schema: %w", err)
	}
	for {
		p := filepath.Join(dir, "shared", "acp", "schema.json")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNotFound
		}
		dir = parent
	}
}

// Validator validates JSON against definitions of one ACP schema file. It is safe for
// concurrent use.
type Validator struct {
	path     string
	compiler *jsonschema.Compiler
	// params and results map a method to the $defs name of its params / result,
	// sides maps a method to the side that handles it ("agent", "client", "protocol").
	params, results, sides map[string]string
	// notifications holds the methods whose params definition is a notification.
	notifications map[string]bool

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

var (
	defaultOnce sync.Once
	defaultV    *Validator
	defaultErr  error
)

// Load returns the validator for the located schema (see Find), loading it once per
// process. It fails the test when the schema cannot be found or read.
func Load(t testing.TB) *Validator {
	t.Helper()
	v, err := loadDefault()
	if errors.Is(err, ErrNotFound) {
		// CI has ../shared beside the checkout: a missing schema must fail, not pass quietly.
		t.Fatalf("acp schema: %v (set %s or put shared/acp beside the module)", err, EnvSchema)
	}
	if err != nil {
		t.Fatalf("acp schema: %v", err)
	}
	return v
}

func loadDefault() (*Validator, error) {
	defaultOnce.Do(func() {
		var p string
		if p, defaultErr = Find(); defaultErr == nil {
			defaultV, defaultErr = New(p)
		}
	})
	return defaultV, defaultErr
}

// Validate validates msg against the schema definition defName (e.g.
// "InitializeRequest") of the located schema (see Find).
func Validate(defName string, msg []byte) error {
	v, err := loadDefault()
	if err != nil {
		return err
	}
	return v.Validate(defName, msg)
}

// New reads and prepares the schema at path.
func New(path string) (*Validator, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse schema %s: %w", abs, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(abs, doc); err != nil {
		return nil, fmt.Errorf("add schema %s: %w", abs, err)
	}
	v := &Validator{
		path:          abs,
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
		return nil, fmt.Errorf("parse schema %s: %w", abs, err)
	}
	for name, d := range meta.Defs {
		if d.Method == "" {
			continue
		}
		switch {
		case strings.HasSuffix(name, "Request"):
			v.params[d.Method] = name
			v.sides[d.Method] = d.Side
		case strings.HasSuffix(name, "Notification"):
			v.params[d.Method] = name
			v.sides[d.Method] = d.Side
			v.notifications[d.Method] = true
		case strings.HasSuffix(name, "Response"):
			v.results[d.Method] = name
		}
	}
	if len(v.params) == 0 {
		return nil, fmt.Errorf("schema %s: no x-method annotations", abs)
	}
	return v, nil
}

// Path returns the absolute path of the schema file.
func (v *Validator) Path() string { return v.path }

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
	s, err := v.compiler.Compile(v.path + "#/$defs/" + defName)
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
