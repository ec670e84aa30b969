package e2e_test

import (
	"path/filepath"
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
