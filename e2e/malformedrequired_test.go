package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// End-to-end tests of what an agent sends malformed where the schema
// requires it: a token count below 0 or missing, a permission request or an
// update whose required field is malformed, params that are no object.

// TestNegativeTokens: a prompt's answer whose totalTokens is negative is a
// protocol violation, its usage ignored, as one that is not an integer is:
// the turn's expect.usage fails for want of tokens, and the budget counts
// only what was well reported, so a negative count cannot offset another
// turn's.
func TestNegativeTokens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	answer := func(id, usage string) string {
		return "read -r line\n" + chunk("hello") + `printf '%s\n' '{"jsonrpc":"2.0","id":` + id + `,"result":{"stopReason":"end_turn","usage":` + usage + `}}'` + "\n"
	}
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake +
			answer("3", `{"inputTokens":5000,"outputTokens":0,"totalTokens":-5000}`) +
			answer("4", `{"inputTokens":5000,"outputTokens":0,"totalTokens":5000}`) +
			"while read -r line; do :; done\n",
		"s.yaml": `name: negtokens
agent: {command: [sh, agent.sh]}
permissions: {default: allow}
budget: {maxTotalTokens: 100}
turns:
  - prompt: one
    expect: {usage: {maxTotalTokens: 100}}
  - prompt: two
`})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", res.code, exitFailed, res.stderr)
	}
	sc := out.Scenarios[0]
	if sc.Turns[0].Usage != nil {
		t.Errorf("turn 1: usage %+v; want it ignored", sc.Turns[0].Usage)
	}
	if want := []string{`session/prompt: usage.totalTokens: want a non-negative integer, got number -5000 (usage ignored)`}; !cmp.Equal(want, sc.Violations) {
		t.Errorf("violations %q; want %q", sc.Violations, want)
	}
	want := []string{
		"turn 1: s.yaml:7:38: usage.maxTotalTokens: the agent reported no token usage; a gateway (gateway: meter) counts the tokens of its model requests",
		"turn 2: s.yaml:4:26: budget.maxTotalTokens: the turns so far used 5000 tokens, over the scenario's budget of 100; acprun stopped the scenario there",
	}
	var got []string
	for _, f := range sc.Failures {
		got = append(got, strings.ReplaceAll(f, dir+"/", ""))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// TestMissingTotalTokens: a usage without its required totalTokens is a
// protocol violation saying so, the usage ignored.
func TestMissingTotalTokens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + "read -r line\n" + chunk("hello") +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":{"inputTokens":1000,"outputTokens":1000}}}'` + "\n" +
			"while read -r line; do :; done\n",
		"s.yaml": `name: nototal
agent: {command: [sh, agent.sh]}
permissions: {default: allow}
turns:
  - prompt: one
`})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if want := []string{`session/prompt: usage.totalTokens: missing, and it is required (usage ignored)`}; !cmp.Equal(want, sc.Violations) || sc.Turns[0].Usage != nil {
		t.Errorf("violations %q, usage %+v; want %q and none", sc.Violations, sc.Turns[0].Usage, want)
	}
}

// TestMalformedRequiredFieldFails: a permission request whose toolCallId
// is a number, or whose params are an array, is answered -32602 and is a
// protocol violation that fails the scenario, as a usage_update whose used
// is negative is; an fs/read_text_file whose params are a string is
// refused in the schema's words.
func TestMalformedRequiredFieldFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	send := func(msg string) string { return `printf '%s\n' '` + msg + `'` + "\n" }
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + "read -r line\n" +
			send(`{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":7,"title":"rm"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`) +
			"read -r line\n" +
			send(`{"jsonrpc":"2.0","id":"p2","method":"session/request_permission","params":["s1"]}`) +
			"read -r line\n" +
			send(`{"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":"x"}`) +
			"read -r line\n" +
			send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"usage_update","used":-1,"size":10}}}`) +
			chunk("hello") +
			send(`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`) +
			"while read -r line; do :; done\n",
		"s.yaml": `name: malformed
agent: {command: [sh, agent.sh]}
client: {fs: true}
permissions: {default: allow}
turns:
  - prompt: one
    expect: {text: {contains: hello}}
`})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", res.code, exitFailed, res.stderr)
	}
	sc := out.Scenarios[0]
	violations := []string{
		`session/request_permission: toolCall.toolCallId: want a string, got number 7; refused`,
		`session/request_permission: want an object, got an array; refused`,
		`session/update: update.used: want a non-negative integer, got number -1 (sessionUpdate "usage_update")`,
	}
	if diff := cmp.Diff(violations, sc.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	var failures []string
	for _, v := range violations {
		failures = append(failures, "protocol violation: "+v)
	}
	if diff := cmp.Diff(failures, sc.Failures); diff != "" || sc.Status != report.StatusFailed {
		t.Errorf("status %s; failures (-want +got):\n%s", sc.Status, diff)
	}
	tr := sc.Turns[0]
	if len(tr.Permissions) != 0 {
		t.Errorf("permissions %+v; want none", tr.Permissions)
	}
	if len(tr.ClientRequests) != 1 || tr.ClientRequests[0].Refused != `invalid params: want an object, got string "x"` {
		t.Errorf("client requests %+v; want fs/read_text_file refused: invalid params: want an object, got string \"x\"", tr.ClientRequests)
	}
	data, err := os.ReadFile(filepath.Join(dir, "tr", "malformed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	transcript := string(data)
	for _, want := range []string{
		`"message":"session/request_permission: permission request: toolCall.toolCallId: want a string, got number 7"`,
		`"message":"session/request_permission: permission request: want an object, got an array"`,
		`"message":"invalid params: want an object, got string \"x\""`,
	} {
		if !strings.Contains(transcript, want) {
			t.Errorf("transcript:\n%s\nwant an answer with %s", transcript, want)
		}
	}
}
