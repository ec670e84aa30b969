package acp_test

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/acpschema"
)

// TestClientRequestsNeedRequiredMembers checks, for each request the
// client serves, that a member the schema requires fails the decode when
// it is missing or null, naming it, and that an optional one does not: a
// write without content must not decode as one that empties the file.
func TestClientRequestsNeedRequiredMembers(t *testing.T) {
	var schema struct {
		Defs map[string]struct {
			Required []string `json:"required"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(acpschema.SchemaJSON(), &schema); err != nil {
		t.Fatal(err)
	}
	terminal := `{"sessionId":"s1","terminalId":"t1","_meta":{}}`
	for _, c := range []struct {
		def  string
		full string
		new  func() any
	}{
		{"ReadTextFileRequest", `{"sessionId":"s1","path":"/p/a","line":1,"limit":2,"_meta":{}}`, func() any { return new(acp.ReadTextFileRequest) }},
		{"WriteTextFileRequest", `{"sessionId":"s1","path":"/p/a","content":"x","_meta":{}}`, func() any { return new(acp.WriteTextFileRequest) }},
		{"CreateTerminalRequest", `{"sessionId":"s1","command":"ls","args":[],"env":[],"cwd":"/p","outputByteLimit":1,"_meta":{}}`, func() any { return new(acp.CreateTerminalRequest) }},
		{"TerminalOutputRequest", terminal, func() any { return new(acp.TerminalOutputRequest) }},
		{"WaitForTerminalExitRequest", terminal, func() any { return new(acp.WaitForTerminalExitRequest) }},
		{"KillTerminalRequest", terminal, func() any { return new(acp.KillTerminalRequest) }},
		{"ReleaseTerminalRequest", terminal, func() any { return new(acp.ReleaseTerminalRequest) }},
		{"EnvVariable", `{"name":"A","value":"1","_meta":{}}`, func() any { return new(acp.EnvVariable) }},
	} {
		def, ok := schema.Defs[c.def]
		if !ok {
			t.Fatalf("the schema has no %s", c.def)
		}
		if err := json.Unmarshal([]byte(c.full), c.new()); err != nil {
			t.Fatalf("%s: %v", c.def, err)
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal([]byte(c.full), &members); err != nil {
			t.Fatal(err)
		}
		for name := range members {
			required := strings.Contains(" "+strings.Join(def.Required, " ")+" ", " "+name+" ")
			without := map[string]json.RawMessage{}
			for k, v := range members {
				if k != name {
					without[k] = v
				}
			}
			missing, _ := json.Marshal(without)
			without[name] = json.RawMessage("null")
			null, _ := json.Marshal(without)
			for _, data := range [][]byte{missing, null} {
				err := json.Unmarshal(data, c.new())
				switch {
				case required && (err == nil || !strings.Contains(err.Error(), name+" is required")):
					t.Errorf("%s %s: err %v, want %q is required", c.def, data, err, name)
				case !required && err != nil:
					t.Errorf("%s %s: %v, want it decoded (%s is optional)", c.def, data, err, name)
				}
			}
		}
	}
	var p acp.CreateTerminalRequest
	err := json.Unmarshal([]byte(`{"sessionId":"s1","command":"env","env":[{"name":"A"}]}`), &p)
	if err == nil || err.Error() != "env: value is required" {
		t.Errorf("terminal/create with an env variable without value: err %v, want env: value is required", err)
	}
}
