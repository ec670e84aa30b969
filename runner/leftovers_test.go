package runner

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// TestTerminalKeepsTheScenarioMark: an agent that sets the mark's
// variable in terminal/create's env does not unmark the terminal: it gets
// a mark inside the scenario's, which the scenario's end kills.
func TestTerminalKeepsTheScenarioMark(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	m := reap.New()
	c := newTestClient(t, ClientConfig{
		Terminal: true, Cwd: root, Roots: []string{root}, Policy: approve.AllowAll(),
		Env: m.Set(os.Environ()),
	})
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{
		Command: `echo "$` + reap.Var + `"`,
		Env:     []acp.EnvVariable{{Name: reap.Var, Value: "forged"}},
	})
	if _, _, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id)); err != nil {
		t.Fatal(err)
	}
	res, _, err := clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := res["output"].(string); !strings.HasPrefix(out, string(m)+".") {
		t.Errorf("the terminal's %s = %q, want a mark inside %q", reap.Var, out, m)
	}
}

// leftoverCheck is a verify command's script for a process the agent left
// appending to log.txt without end, its pid in the file PIDFILE: it copies
// log.txt to copy.txt, then exits 1 as soon as log.txt grows past the copy
// (the process still runs during verify), 0 once the process is gone or a
// zombie. Either comes, however fast the machine.
const leftoverCheck = `cp log.txt copy.txt
pid=$(cat PIDFILE)
while :; do
  case "$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)" in ''|Z|X) exit 0 ;; esac
  cmp -s log.txt copy.txt || { echo "log.txt grew during verify"; exit 1; }
done
`

// TestLeftoversKilledBeforeVerify: what the agent left running, a
// process outside its process group or a terminal, is killed once the
// agent is stopped, before its changes are listed and verify runs: the
// change set, verify and the workspace kept all see the same files,
// however long verify takes.
func TestLeftoversKilledBeforeVerify(t *testing.T) {
	const appends = "echo $$ > $PIDFILE; echo x >> log.txt; echo > $READY; while :; do echo x >> log.txt; done"
	tests := []struct {
		name, steps string
		warned      bool // the warning that acprun killed what the agent left
	}{
		{"outside its process group", `      - spawn: "(setsid sh -c '` + appends + `' </dev/null >/dev/null 2>&1 &); read x < $READY"` + "\n", true},
		{"a terminal", `      - terminal: {command: "` + appends + `"}` + "\n      - waitFor: $READY\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			ready, pidFile, check := filepath.Join(tmp, "ready"), filepath.Join(tmp, "pid"), filepath.Join(tmp, "check.sh")
			if err := syscall.Mkfifo(ready, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(check, []byte(strings.ReplaceAll(leftoverCheck, "PIDFILE", pidFile)), 0o644); err != nil {
				t.Fatal(err)
			}
			steps := strings.NewReplacer("$READY", ready, "$PIDFILE", pidFile).Replace(tt.steps)
			rep, _ := runTree(t, map[string]string{
				"fixture/a.txt": "hi\n",
				"a.mock.yaml":   "turns:\n  - steps:\n" + steps + "      - text: done\n",
				"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\n" +
					"workspace: {from: fixture}\nverify: [sh " + check + "]\nturns:\n  - prompt: hi\n",
			}, Options{KeepWorkspaces: true})
			r := rep.Scenarios[0]
			if r.Status != report.StatusPassed {
				t.Errorf("status %s (error %q, failures %q), want passed", r.Status, r.Error, r.Failures)
			}
			if diff := cmp.Diff([]string{"log.txt"}, r.Workspace.Created); diff != "" {
				t.Errorf("created (-want +got):\n%s", diff)
			}
			var warned []string
			for _, w := range r.Warnings {
				if strings.Contains(w, "running outside its process group") {
					warned = append(warned, w)
				}
			}
			if tt.warned && (len(warned) != 1 || !strings.Contains(warned[0], "acprun killed them")) || !tt.warned && len(warned) != 0 {
				t.Errorf("warnings %q; want one that acprun killed what the agent left running: %v", r.Warnings, tt.warned)
			}
			log, err := os.ReadFile(filepath.Join(r.Workspace.Path, "log.txt"))
			if err != nil {
				t.Fatal(err)
			}
			copied, err := os.ReadFile(filepath.Join(r.Workspace.Path, "copy.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if len(log) != len(copied) {
				t.Errorf("log.txt has %d bytes, verify's copy %d: what the agent left wrote on after it was stopped", len(log), len(copied))
			}
		})
	}
}

// TestShortCommand: a command line is cut at 80 bytes, at a character
// boundary, and redacted knowing the whole line: a secret the cut goes
// through shows no start.
func TestShortCommand(t *testing.T) {
	t.Parallel()
	const secret = "sk_live_LeftoverSecret0123"
	long := strings.Repeat("a", 79) + "éé"
	red := redact.New(secret)
	for _, tt := range []struct{ in, want string }{
		{"", "(no command line)"},
		{"sleep 1000", "sleep 1000"},
		{long, strings.Repeat("a", 79) + "…"},
		{"curl -H " + secret, "curl -H [REDACTED]"},
		{strings.Repeat("a", 70) + " " + secret, strings.Repeat("a", 70) + " [REDACTED]…"},
	} {
		if got := shortCommand(red, tt.in); got != tt.want {
			t.Errorf("shortCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRunMarkInsideTheOneItInherits: an acprun that runs as another
// acprun's agent (its environment marked) marks what it starts inside
// that mark, so that the outer run's end kills them too.
func TestRunMarkInsideTheOneItInherits(t *testing.T) {
	t.Parallel()
	opts := Options{Environ: append(os.Environ(), reap.Var+"=outer1234")}
	rep := runScenarios(t, opts, `name: nested
agent: {command: [acprun, mock-agent, hi.mock.yaml]}
permissions: {default: deny}
verify:
  - run: 'echo "$`+reap.Var+`"'
    expect: {stdout: {matches: '\Aouter1234\.'}}
turns: [{prompt: hi}]
`, map[string]string{"hi.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"})
	if r := rep.Scenarios[0]; r.Status != report.StatusPassed {
		t.Errorf("status %s, failures %q; want the verify command's mark inside outer1234", r.Status, r.Failures)
	}
}
