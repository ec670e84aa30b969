package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
)

// TestReapDaemonsAndEscapedTerminals: an agent that double-forks and
// setsids a daemon, and a terminal command that leaves its process group
// with setsid, leave nothing running once acprun has exited: no process
// carries the agent.env marker of the test, and the two escapees are
// gone; the agent's daemon is named in a warning.
func TestReapDaemonsAndEscapedTerminals(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	dir := realTempDir(t)
	marker := "E2E_REAP=" + t.Name() + "-" + strconv.Itoa(os.Getpid())
	path := func(name string) string { return filepath.Join(dir, name) }
	for _, f := range []string{"daemon.fifo", "terminal.fifo"} {
		if err := syscall.Mkfifo(path(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The escapees tell their pid through a FIFO once they are in their
	// own session: the agent and the terminal's leader wait for it, then
	// write it down for the test.
	escapee := func(fifo string) string {
		return fmt.Sprintf("setsid sh -c 'echo $$ > %s; exec sleep 1000' </dev/null >/dev/null 2>&1", path(fifo))
	}
	create, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 100, "method": "terminal/create", "params": map[string]any{
		"sessionId": "s1",
		"command":   escapee("terminal.fifo") + " & read pid < " + path("terminal.fifo") + "; echo $pid > " + path("terminal.pid"),
	}})
	wait, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 101, "method": "terminal/wait_for_exit", "params": map[string]any{"sessionId": "s1", "terminalId": "term-1"}})
	writeFiles(t, dir, map[string]string{
		"create.json": string(create) + "\n",
		"wait.json":   string(wait) + "\n",
		"agent.sh": shHandshake + `read -r line
(` + escapee("daemon.fifo") + ` &)
read pid < ` + path("daemon.fifo") + `; echo $pid > ` + path("daemon.pid") + `
cat ` + path("create.json") + `; read -r line
cat ` + path("wait.json") + `; read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'
while read -r line; do :; done
`,
		"s.yaml": `name: escapes
agent:
  command: [sh, agent.sh]
  env: {E2E_REAP: "` + strings.TrimPrefix(marker, "E2E_REAP=") + `"}
client: {terminal: true}
permissions: {default: allow}
turnTimeout: 1m
turns:
  - prompt: go
    expect: {stopReason: end_turn}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if live := testkit.Leftovers(t, testkit.WithEnv(marker)); len(live) > 0 {
		t.Errorf("left running after acprun exited: %v", live)
	}
	for _, f := range []string{"daemon.pid", "terminal.pid"} {
		data, err := os.ReadFile(path(f))
		if err != nil {
			t.Fatalf("%s: %v (the escapee did not start)", f, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !testkit.Dying(pid) {
			t.Errorf("%s: process %d (%s) still runs", f, pid, testkit.Cmdline(pid))
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	sc := out.Scenarios[0]
	want := "the agent left 1 process running outside its process group"
	if !strings.Contains(strings.Join(sc.Warnings, "\n"), want) {
		t.Errorf("warnings = %q, want one saying %q", sc.Warnings, want)
	}
}
