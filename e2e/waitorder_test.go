package e2e_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWaitForExitAfterReleaseEveryRun: an agent that sends
// terminal/release, then terminal/wait_for_exit for the same terminal,
// without waiting for the answers, gets "unknown terminal" for the wait
// every attempt: wait_for_exit finds its terminal in its place in the
// line, after the release, even while a large read before them is served
// (runner's TestWaitForExitServedInItsPlace forces the order that got it
// the killed command instead).
func TestWaitForExitAfterReleaseEveryRun(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"x.txt":   "x\n",
		"big.txt": strings.Repeat("0123456789abcdef\n", 1<<18), // 4.5 MiB: its answer holds the line a while
		"agent.mock.yaml": strings.ReplaceAll(`turns:
  - steps:
      - terminal: {command: "sleep 30"}
      - garbage: '{"jsonrpc":"2.0","id":"b","method":"fs/read_text_file","params":{"sessionId":"mock-session-1","path":"BIG"}}'
      - garbage: '{"jsonrpc":"2.0","id":"r","method":"terminal/release","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - garbage: '{"jsonrpc":"2.0","id":"w","method":"terminal/wait_for_exit","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - read: {path: x.txt}
`, "BIG", filepath.Join(dir, "big.txt")),
		"s.yaml": "name: rw\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {fs: true, terminal: true}\npermissions: {default: allow}\nturns:\n  - prompt: one\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--repeat", "5")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for i, sc := range out.Scenarios {
		var got []string
		for _, r := range sc.Turns[0].ClientRequests {
			got = append(got, r.Method+": "+r.Error+r.Signal)
		}
		want := `terminal/create:  | fs/read_text_file:  | terminal/release: SIGKILL | terminal/wait_for_exit: Resource not found: unknown terminal "term-1" | fs/read_text_file: `
		if g := strings.Join(got, " | "); g != want {
			t.Errorf("attempt %d: client requests %s\nwant %s", i+1, g, want)
		}
	}
}

// TestTerminalExitAnswersInRequestOrder: an agent that sends
// terminal/wait_for_exit and then terminal/release (or kill) of the same
// terminal without waiting for the answers finds them in its transcript
// in the order it sent them, every run: the wait's answer first, although
// the release's end of the command wakes both; and two waits of one
// command in their order. Each command (sleep 1000) ends only by the kill
// or release. The mock agent sends the requests raw (garbage:), which it
// does not wait for.
func TestTerminalExitAnswersInRequestOrder(t *testing.T) {
	underRace(t)
	t.Parallel()
	const n = 10
	var script strings.Builder
	script.WriteString("turns:\n  - steps:\n")
	want := make([][]string, n) // each terminal's answers, in the order they are due
	for i := range n {
		script.WriteString(`      - terminal: {command: "sleep 1000"}` + "\n")
		steps := []string{"wait_for_exit", "wait_for_exit", "release"}
		if i%2 == 1 {
			steps = []string{"wait_for_exit", "kill", "wait_for_exit", "release"}
		}
		for j, step := range steps {
			id := fmt.Sprintf("%s%d_%d", step, j, i)
			fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":%q,"method":"terminal/%s","params":{"sessionId":"mock-session-1","terminalId":"term-%d"}}'`+"\n", id, step, i+1)
			want[i] = append(want[i], id)
		}
	}
	script.WriteString("      - text: done\n")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": script.String(),
		"s.yaml":          "name: exits\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturns: [{prompt: go}]\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	if res.code != 0 || len(out.Scenarios) != 1 {
		t.Fatalf("exit %d with %d results, want 0 with 1\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	at := map[string]int{} // where each answer is in the transcript
	for i, l := range readTranscript(t, filepath.Join(dir, out.Scenarios[0].Transcript)).lines {
		if l.Dir == "c2a" && l.Method == "" {
			at[strings.Trim(l.ID, `"`)] = i
		}
	}
	for i, ids := range want {
		for _, id := range ids {
			if _, ok := at[id]; !ok {
				t.Fatalf("no answer to %s in the transcript", id)
			}
		}
		got := slices.Clone(ids)
		slices.SortFunc(got, func(a, b string) int { return at[a] - at[b] })
		if !slices.Equal(got, ids) {
			t.Errorf("term-%d: answers written in the order %v; want the order the requests came, %v", i+1, got, ids)
		}
	}
}

// TestTerminalOutputAfterWaitInTranscript: an agent that sends
// terminal/wait_for_exit and then terminal/output of the same terminal
// without waiting for the answers, the output once the command (true) has
// ended, finds the output's answer, which says the command ended, after
// the wait's in its transcript. A large read between them holds the line
// (see TestWaitForExitAfterReleaseEveryRun) while the command ends; an
// output served before the end says nothing of it and may come first.
// (runner's TestTerminalOutputAfterWaitAnswer holds each output until the
// end.)
func TestTerminalOutputAfterWaitInTranscript(t *testing.T) {
	underRace(t)
	t.Parallel()
	const n = 10
	dir := t.TempDir()
	var script strings.Builder
	script.WriteString("turns:\n  - steps:\n")
	for i := range n {
		script.WriteString(`      - terminal: {command: "true"}` + "\n")
		fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"w%d","method":"terminal/wait_for_exit","params":{"sessionId":"mock-session-1","terminalId":"term-%d"}}'`+"\n", i, i+1)
		fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"b%d","method":"fs/read_text_file","params":{"sessionId":"mock-session-1","path":%q}}'`+"\n", i, filepath.Join(dir, "big.txt"))
		fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"o%d","method":"terminal/output","params":{"sessionId":"mock-session-1","terminalId":"term-%d"}}'`+"\n", i, i+1)
	}
	script.WriteString("      - text: done\n")
	writeFiles(t, dir, map[string]string{
		"big.txt":         strings.Repeat("0123456789abcdef\n", 1<<16), // 1 MiB: its answer holds the line a while
		"agent.mock.yaml": script.String(),
		"s.yaml":          "name: outputs\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {fs: true, terminal: true}\npermissions: {default: allow}\nturns: [{prompt: go}]\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	if res.code != 0 || len(out.Scenarios) != 1 {
		t.Fatalf("exit %d with %d results, want 0 with 1\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	lines := readTranscript(t, filepath.Join(dir, out.Scenarios[0].Transcript)).lines
	at := map[string]int{} // where each answer is in the transcript
	for i, l := range lines {
		if l.Dir == "c2a" && l.Method == "" {
			at[strings.Trim(l.ID, `"`)] = i
		}
	}
	ended := 0
	for i := range n {
		wait, okW := at[fmt.Sprint("w", i)]
		output, okO := at[fmt.Sprint("o", i)]
		if !okW || !okO {
			t.Fatalf("term-%d: no answer to wait_for_exit or output in the transcript", i+1)
		}
		if !strings.Contains(string(lines[output].Result), `"exitStatus"`) {
			continue // served before the end
		}
		ended++
		if output < wait {
			t.Errorf("term-%d: output's answer, which says the command ended, written before wait_for_exit's", i+1)
		}
	}
	t.Logf("%d of %d outputs said the command ended", ended, n)
}

// TestCancelledWaitsInRequestOrder: an agent waiting for the exit of
// several commands at once (terminal/wait_for_exit of each, sent without
// waiting for the answers) when the turn is cancelled (its budget, passed
// by a usage_update sent after the waits) gets the answers, the commands
// killed, in the order it sent the waits, every run: the cancel's kill
// ends them all at once. It then releases the terminals.
func TestCancelledWaitsInRequestOrder(t *testing.T) {
	underRace(t)
	t.Parallel()
	const n = 10
	var script strings.Builder
	script.WriteString("onCancel: ignore\nturns:\n  - steps:\n")
	for range n {
		script.WriteString(`      - terminal: {command: "sleep 1000"}` + "\n")
	}
	for _, method := range []string{"wait_for_exit", "release"} {
		for i := range n {
			fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"%s%d","method":"terminal/%s","params":{"sessionId":"mock-session-1","terminalId":"term-%d"}}'`+"\n", method[:1], i, method, i+1)
		}
		if method == "wait_for_exit" {
			script.WriteString("      - usage_update: {used: 1, size: 10, cost: {amount: 5, currency: USD}}\n      - waitForCancel: true\n")
		}
	}
	script.WriteString("      - text: done\n")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": script.String(),
		"s.yaml":          "name: cancelled\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturns: [{prompt: go, budget: {maxCost: 1}}]\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	if res.code != exitFailed || len(out.Scenarios) != 1 || out.Scenarios[0].Turns[0].CancelCause != "budget" {
		t.Fatalf("exit %d with %d results, want %d with 1, the turn cancelled for its budget\n%s", res.code, len(out.Scenarios), exitFailed, res.stderr)
	}
	var got, want []string
	for i := range n {
		want = append(want, fmt.Sprint("w", i))
	}
	for _, l := range readTranscript(t, filepath.Join(dir, out.Scenarios[0].Transcript)).lines {
		if id := strings.Trim(l.ID, `"`); l.Dir == "c2a" && l.Method == "" && strings.HasPrefix(id, "w") {
			got = append(got, id)
			if !strings.Contains(string(l.Result), `"signal":"SIGKILL"`) {
				t.Errorf("%s answered %s; want the command killed", id, l.Result)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("waits answered in the order %v; want the order they were sent, %v", got, want)
	}
}
