package acp_test

import (
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/acpschema"
)

// TestResumeSessionSchema checks session/resume's params and result
// against the official schema, and that a null result decodes.
func TestResumeSessionSchema(t *testing.T) {
	v := acpschema.Load(t)
	for _, c := range []schemaCase{
		{"session/resume minimal", "ResumeSessionRequest", acp.ResumeSessionRequest{SessionID: "s1", Cwd: "/p"}},
		{"session/resume servers", "ResumeSessionRequest", acp.ResumeSessionRequest{SessionID: "s1", Cwd: "/p",
			McpServers: []acp.McpServer{{Name: "fs", Command: "/usr/local/bin/mcp-fs"}}}},
		{"session/resume result", "ResumeSessionResponse", acp.ResumeSessionResponse{}},
		{"session/resume result modes", "ResumeSessionResponse", acp.ResumeSessionResponse{
			Modes: &acp.SessionModeState{CurrentModeID: "code", AvailableModes: []acp.SessionMode{{ID: "code", Name: "Code"}}}}},
	} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := v.Validate(c.def, b); err != nil {
			t.Errorf("%s: %s does not fit %s: %v", c.name, b, c.def, err)
		}
	}
	if def := v.ParamsDef(acp.MethodSessionResume); def != "ResumeSessionRequest" {
		t.Errorf("the schema's params of %s: %q, want ResumeSessionRequest", acp.MethodSessionResume, def)
	}
	var r acp.ResumeSessionResponse
	if err := json.Unmarshal([]byte("null"), &r); err != nil {
		t.Errorf("null result: %v", err)
	}
}
