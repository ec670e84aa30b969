package e2e_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMockAgentYAMLSyntaxError: `acprun mock-agent SCRIPT` reports a YAML
// syntax error of the script at the offending token, line and column, under
// the name the user gave, as validate does for scenario files; it exits 2
// and plays nothing. Under the error, its source line with a caret under
// the column.
func TestMockAgentYAMLSyntaxError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bad.mock.yaml": "agentInfo: {name: fake}\nturns:\n  - steps:\n      - text: hi\n    stopReason: end_turn\n" +
			"  - steps: [{text: \"bye}]\n",
	})
	res := acprun(t, dir, "mock-agent", "bad.mock.yaml")
	if res.code != 2 {
		t.Errorf("exit %d, want 2", res.code)
	}
	want := "bad.mock.yaml:6:20: YAML syntax: found unexpected end of stream while scanning a quoted scalar; " +
		"the quoted string that starts here is never closed\n" +
		"    6 |   - steps: [{text: \"bye}]\n" +
		"      |                    ^\n"
	if res.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, want)
	}
	if strings.TrimSpace(res.stdout) != "" {
		t.Errorf("stdout: %q, want nothing", res.stdout)
	}
}

// TestMockAgentWrongValueIsNotMissing: a required key given with a wrong
// value is reported once, at the value, and not also as missing, by
// mock-agent, and by run and validate --strict before the agent starts.
func TestMockAgentWrongValueIsNotMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.mock.yaml": "turns:\n  - steps:\n      - terminal: {command: 5}\n      - flood: {count: -1}\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, b.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n",
	})
	for _, args := range [][]string{{"mock-agent", "b.mock.yaml"}, {"run", "s.yaml", "-o", "r.json"}, {"validate", "--strict", "s.yaml"}} {
		res := acprun(t, dir, args...)
		want := exitUsage // run refuses the script before the agent starts, as validate does
		if res.code != want || strings.Contains(res.stderr, "is required") ||
			!strings.Contains(res.stderr, "b.mock.yaml:3:29: terminal.command: want a string, got an integer") ||
			!strings.Contains(res.stderr, "b.mock.yaml:4:24: flood.count: -1 out of range [1, 10000000]") {
			t.Errorf("acprun %s: exit %d, want %d and each value's error alone:\n%s", args[0], res.code, want, res.stderr)
		}
	}
}

// TestMockAgentParamsErrorsInTheSchemasWords: the mock agent driven by hand
// over stdin answers params of the wrong shape -32602 in the protocol's
// words ("prompt: want an array, got a string"), not Go's ("cannot
// unmarshal string into Go struct field PromptRequest.prompt of type
// acp.List[…]").
func TestMockAgentParamsErrorsInTheSchemasWords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"})
	cmd := exec.Command(acprunFor(t), "mock-agent", "m.mock.yaml")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":"bad"}
{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/x","mcpServers":[]}}
{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"mock-session-1","prompt":"hi"}}
`)
	r, _ := runCommand(t, cmd)
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"initialize: want an object, got string \"bad\""}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"session/prompt: prompt: want an array, got a string"}}`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the mock agent's answers lack %s:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "Go ") || strings.Contains(r.stdout, "unmarshal") {
		t.Errorf("the mock agent's answers speak Go:\n%s", r.stdout)
	}
}

// TestMockAgentAnswersMalformedLines: the mock agent driven by hand over
// stdin answers a line that is not JSON -32700 and a batch (ACP has none)
// -32600, each once with id null, as a JSON-RPC server does, and goes on
// answering the requests after them.
func TestMockAgentAnswersMalformedLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"})
	cmd := exec.Command(acprunFor(t), "mock-agent", "m.mock.yaml")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(`this is not json
[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}},{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}]
{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}}
`)
	r, _ := runCommand(t, cmd)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported"}}`,
	}
	if r.code != 0 || len(lines) != 3 || !cmp.Equal(want, lines[:2]) || !strings.HasPrefix(lines[2], `{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":1,`) {
		t.Errorf("exit %d, answers:\n%s\nwant exit 0 and\n%s\nthen the answer to id 3\n%s", r.code, r.stdout, strings.Join(want, "\n"), r.stderr)
	}
}

// TestMockAgentSessionsDirNotWritable: a mock agent whose sessions:
// directory cannot be made stops before it answers anything, with the
// error at the script's sessions: (exit 2); a scenario on it errors with
// that error in its agent's stderr, not with a session/load that later
// finds nothing.
func TestMockAgentSessionsDirNotWritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"file":        "a regular file\n",
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\nsessions: file/state\n",
		"s.yaml":      "name: keep\nagent: {name: mock, args: [m.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n",
	})
	want := "m.mock.yaml:2:11: sessions: mkdir " + filepath.Join(dir, "file") + ": not a directory: the agent could not keep its sessions there; give a directory it can write\n"
	cmd := exec.Command(acprunFor(t), "mock-agent", "m.mock.yaml")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	r, _ := runCommand(t, cmd)
	if r.code != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("mock-agent: exit %d, stdout %q, stderr:\n%s\nwant exit %d, no answer and\n%s", r.code, r.stdout, r.stderr, exitUsage, want)
	}
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitAgent || len(out.Scenarios) != 1 || !strings.Contains(out.Scenarios[0].StderrTail, want) {
		t.Errorf("run: exit %d, results %+v; want exit %d and the error in the agent's stderr\n%s", res.code, out.Scenarios, exitAgent, res.stderr)
	}
}
