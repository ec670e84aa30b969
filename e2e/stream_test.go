package e2e_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acprun/acprun/report"
)

const chunkLine = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}` + "\n"

// TestBacklogIsNotLost: an agent that writes a backlog of 300,001 updates
// and exits has every one recorded, as the turn's own (they came before the
// end of its output), with nothing reported dropped. Dispatching them takes
// seconds, far past the 200 ms acprun waits for the end of the agent's
// output, which is all it used to wait before dropping the rest. It runs
// acprun built without the race detector, which would take ten times as
// long (the acp package's own test runs its backlog under it).
func TestBacklogIsNotLost(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	const n = 300_000
	backlog := bytes.Repeat([]byte(chunkLine), n)
	backlog = append(backlog, strings.Replace(chunkLine, `"text":"x"`, `"text":"END"`, 1)...)
	writeFiles(t, dir, map[string]string{
		"backlog.jsonl": string(backlog),
		"agent.sh":      shHandshake + "read -r line; cat backlog.jsonl; exit 0\n",
		"s.yaml": `name: backlog
agent: {command: [sh, agent.sh]}
turns:
  - prompt: go
    expect: {stopReason: agent_exited}
`,
	})
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	res, _ := runBinary(t, bin, dir, nil, "run", "s.yaml", "-o", "out.json")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	tr := out.Scenarios[0].Turns[0]
	if got := tr.Updates["agent_message_chunk"]; got != n+1 || tr.LateUpdates != 0 {
		t.Errorf("recorded %d updates (%d late), want all %d, none late", got, tr.LateUpdates, n+1)
	}
	if len(tr.Text) != n+3 || !strings.HasSuffix(tr.Text, "END") || tr.LateText != "" {
		t.Errorf("text of %d bytes (late %d), want the whole backlog as the turn's text", len(tr.Text), len(tr.LateText))
	}
	if w := strings.Join(out.Scenarios[0].Warnings, "\n"); strings.Contains(w, "dropped") || strings.Contains(w, "not processed") {
		t.Errorf("warnings = %q, want nothing dropped", w)
	}
}

// TestInvalidUTF8IsReplaced: raw invalid bytes inside the agent's JSON
// strings, in its raw input and on its stderr never reach acprun's files or
// stderr; they are replaced and counted as a protocol warning.
func TestInvalidUTF8IsReplaced(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	agent := shHandshake + `read -r line
printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"bad \377\376 text"}}}}\n'
printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"t","rawInput":{"cmd":"\377\376"}}}}\n'
printf 'stderr \377\376 bytes\n' >&2
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'
read -r line
`
	writeFiles(t, dir, map[string]string{
		"agent.sh": agent,
		"s.yaml": `name: bytes
agent: {command: [sh, agent.sh]}
turns:
  - prompt: go
    expect: {text: {contains: never}}
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr", "--events", "ev.jsonl", "--junit", "j.xml", "-v")
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (the expectation fails)\n%s", res.code, res.stderr)
	}
	if !utf8.ValidString(res.stderr) {
		t.Errorf("stderr is not valid UTF-8:\n%q", res.stderr)
	}
	if !strings.Contains(res.stderr, "| bad \uFFFD text") {
		t.Errorf("stderr summary lacks the excerpt of the agent's text with U+FFFD:\n%s", res.stderr)
	}
	if junit, _ := os.ReadFile(filepath.Join(dir, "j.xml")); !strings.Contains(string(junit), "stderr \uFFFD bytes") {
		t.Errorf("JUnit lacks the agent's stderr with U+FFFD:\n%s", junit)
	}
	for _, name := range []string{"out.json", "tr/bytes.jsonl", "ev.jsonl", "j.xml"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(data) {
			t.Errorf("%s is not valid UTF-8", name)
		}
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if tr := out.Scenarios[0].Turns[0]; tr.Text != "bad \uFFFD text" {
		t.Errorf("text = %q, want the bytes replaced", tr.Text)
	}
	if w := strings.Join(out.Scenarios[0].Warnings, "\n"); !strings.Contains(w, "UTF-8") {
		t.Errorf("warnings = %q, want the invalid UTF-8 counted", w)
	}
}

// TestMalformedOptionalFieldKeepsUpdate: one bad optional field does not
// drop the update; it is a protocol warning. A list item left out (one
// with a malformed required member) is one warning naming the item and why
// it was skipped; the replacements made inside it (its malformed line) are
// not warned about, for nothing of it was kept.
func TestMalformedOptionalFieldKeepsUpdate(t *testing.T) {
	underRace(t)
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - steps:
      - update: {sessionUpdate: tool_call, toolCallId: c1, title: read it, kind: read, status: completed, locations: [{path: 5, line: "4"}, {path: /tmp/a.txt, line: "3"}]}
      - text: done
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns: [{prompt: go}]
`)
	if res.code != 0 {
		t.Errorf("exit %d\n%s", res.code, res.stderr)
	}
	tr := out.Scenarios[0].Turns[0]
	if len(tr.ToolCalls) != 1 || tr.ToolCalls[0].ID != "c1" || tr.ToolCalls[0].Status != "completed" {
		t.Errorf("tool calls = %+v, want c1 kept", tr.ToolCalls)
	}
	w := strings.Join(out.Scenarios[0].Warnings, "\n")
	for _, want := range []string{
		`session/update tool_call: locations[0].path: want a string, got number 5 (item skipped)`,
		`session/update tool_call: locations[1].line: want a non-negative integer, got string "3"; the field took its default`,
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings = %q, want %q", w, want)
		}
	}
	if strings.Contains(w, "locations[0].line") {
		t.Errorf("warnings = %q, want none about the skipped item's line", w)
	}
	if strings.Contains(w, "(item skipped); the field took its default") {
		t.Errorf("warnings = %q: a skipped item took no default", w)
	}
}

// TestUpdatesRecordedWhileThePromptIsStuck: an agent that stops reading
// while acprun writes a large prompt still has what it sends handled at
// once, as the turn's own: the stuck write holds up no handler. The test
// waits until acprun has handled the tool call the agent announces after
// its permission request (-v prints it; the request, answered after a
// delay, holds up nothing behind it), which the session lock held across
// the write used to block, then interrupts the run; nothing in it depends
// on the machine's speed. The request's answer never reached the agent:
// it is recorded as one the connection closed on.
func TestUpdatesRecordedWhileThePromptIsStuck(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	// It takes embedded files, so the prompt carries the whole large file.
	agent := shHandshakeEmbedded + `head -c 1000 >/dev/null
printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"during"}}}}'
printf '%s\n' '{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"rm -rf build","kind":"delete"},"options":[{"optionId":"no","name":"Reject","kind":"reject_once"}]}}'
printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c2","title":"next","kind":"read"}}}'
exec sleep 120
`
	writeFiles(t, dir, map[string]string{
		"agent.sh": agent,
		"big.txt":  strings.Repeat("a line of a large prompt file\n", 100_000), // 3 MB: far more than a pipe holds, less than a prompt may attach
		"s.yaml": `name: stuck
agent: {command: [sh, agent.sh]}
permissions: {default: deny, answerDelay: 1ms}
turnTimeout: 30s
cancelGrace: 1s
killGrace: 1s
turns:
  - prompt: [{text: read this}, {file: big.txt}]
`,
	})
	cmd := exec.CommandContext(t.Context(), acprunFor(t), "run", "s.yaml", "-v", "-o", "out.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		seen.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), `tool call "next"`) {
			break
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		seen.WriteString(lines.Text() + "\n")
	}
	_ = cmd.Wait()
	out := readResults(t, filepath.Join(dir, "out.json"))
	tr := out.Scenarios[0].Turns[0]
	unsent := report.Permission{ToolCallID: "c1", Title: "rm -rf build", Kind: "delete", Decision: "cancelled", Outcome: "cancelled", Reason: "the connection closed before the answer"}
	if tr.Text != "during" || tr.LateText != "" || len(tr.Permissions) != 1 || !reflect.DeepEqual(tr.Permissions[0], unsent) || len(tr.ToolCalls) != 2 {
		t.Errorf("turn = text %q, late %q, permissions %+v, %d tool calls; want the update, the request (its answer never written) and both calls as the turn's own\n%s",
			tr.Text, tr.LateText, tr.Permissions, len(tr.ToolCalls), seen.String())
	}
	assertNoProcessesIn(t, dir)
}
