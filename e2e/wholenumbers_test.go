package e2e_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWholeNumbersInRequests: a request's line, limit and outputByteLimit
// written as whole floats (as Python agents send them: 32768.0) are
// served as the integers they are, and an outputByteLimit up to the
// largest uint64 (the schema's type) as the most acprun keeps; a fraction
// is still refused. The agent waits for each answer, so that the terminal
// has exited before its output is asked for.
func TestWholeNumbersInRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	request := func(id, method, params string) string {
		return `printf '%s\n' '{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"sessionId":"s1",` + params + `}}'` + "\nread -r line\n"
	}
	writeFiles(t, dir, map[string]string{
		"notes.txt": "one\ntwo\nthree\n",
		"agent.sh": shHandshake + "read -r line\n" +
			request("10", "terminal/create", `"command":"printf","args":["abcdef"],"outputByteLimit":3.0`) +
			request("11", "terminal/wait_for_exit", `"terminalId":"term-1"`) +
			request("12", "terminal/output", `"terminalId":"term-1"`) +
			request("13", "terminal/create", `"command":"printf","args":["abcdef"],"outputByteLimit":18446744073709551615`) +
			request("14", "fs/read_text_file", `"path":"`+dir+`/notes.txt","line":2.0,"limit":1e0`) +
			request("15", "fs/read_text_file", `"path":"`+dir+`/notes.txt","line":1.5`) +
			chunk("done") +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" +
			"while read -r line; do :; done\n",
		"s.yaml": `name: whole
agent: {command: [sh, agent.sh]}
client: {fs: true, terminal: true}
permissions: {default: allow}
turns:
  - prompt: one
`})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	type served struct {
		Method, TerminalID, Refused string
		Bytes                       int
		Truncated                   bool
	}
	var got []served
	for _, r := range out.Scenarios[0].Turns[0].ClientRequests {
		got = append(got, served{r.Method, r.TerminalID, r.Refused, r.Bytes, r.Truncated})
	}
	want := []served{
		{Method: "terminal/create", TerminalID: "term-1"},
		{Method: "terminal/wait_for_exit", TerminalID: "term-1"},
		{Method: "terminal/output", TerminalID: "term-1", Bytes: 3, Truncated: true},
		{Method: "terminal/create", TerminalID: "term-2"},
		{Method: "fs/read_text_file", Bytes: len("two\n")},
		{Method: "fs/read_text_file", Refused: "invalid params: line: want an integer, got number 1.5"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("client requests (-want +got):\n%s", diff)
	}
}
