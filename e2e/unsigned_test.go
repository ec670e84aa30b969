package e2e_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// TestNegativeUnsignedFields: the integers the ACP schema bounds at
// minimum 0 are checked as token counts are. A tool call location's
// negative line (optional) takes its default, with a protocol violation
// naming the field, in a tool_call, a tool_call_update and a permission
// request's toolCall; a request's negative line or outputByteLimit is
// refused naming the field. The mock agent sends each line raw.
func TestNegativeUnsignedFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const session = `"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"mock-session-1","update":`
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - garbage: '{` + session + `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Read /x","kind":"read","locations":[{"path":"/x","line":-5}]}}}'
      - garbage: '{` + session + `{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","locations":[{"path":"/y","line":-1}]}}}'
      - garbage: '{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"mock-session-1","toolCall":{"toolCallId":"t2","title":"edit","kind":"edit","locations":[{"path":"/z","line":-7}]},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}'
      - garbage: '{"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":{"sessionId":"mock-session-1","path":"/z/notes.txt","line":-2}}'
      - garbage: '{"jsonrpc":"2.0","id":"c","method":"terminal/create","params":{"sessionId":"mock-session-1","command":"true","outputByteLimit":-3}}'
      - text: done
`,
		"s.yaml": `name: unsigned
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
client: {fs: true, terminal: true}
permissions: {default: allow}
turns:
  - prompt: go
    expect: {text: {contains: done}}
`})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	violations := []string{
		`session/update tool_call: locations[0].line: want a non-negative integer, got number -5; the field took its default`,
		`session/update tool_call_update: locations[0].line: want a non-negative integer, got number -1; the field took its default`,
		`session/request_permission t2: toolCall.locations[0].line: want a non-negative integer, got number -7; the field took its default`,
	}
	if diff := cmp.Diff(violations, sc.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	for _, v := range violations {
		if !strings.Contains(res.stderr, "warning: protocol violation: "+v) {
			t.Errorf("stderr does not warn %q:\n%s", v, res.stderr)
		}
	}
	want := []report.ClientRequest{
		{Method: "fs/read_text_file", Path: "/z/notes.txt", Refused: "invalid params: line: want a non-negative integer, got number -2"},
		{Method: "terminal/create", Command: "true", Refused: "invalid params: outputByteLimit: want a non-negative integer, got number -3"},
	}
	if diff := cmp.Diff(want, sc.Turns[0].ClientRequests); diff != "" {
		t.Errorf("client requests (-want +got):\n%s", diff)
	}
	if sc.Status != report.StatusPassed || len(sc.Turns[0].ToolCalls) != 2 {
		t.Errorf("status %s, tool calls %+v; want passed (a malformed optional field is a warning) with both calls", sc.Status, sc.Turns[0].ToolCalls)
	}
}
