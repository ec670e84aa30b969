package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

// The goldens of what a person reads on stderr when it is not a terminal:
// the lines as scenarios end (and, with -v, as they happen), the summary
// and the totals, for one run of each kind. Each run's stderr, its volatile
// parts normalised (goldenShape), must equal testdata/stderr/NAME.txt byte
// for byte; `go test ./e2e/ -run TestGoldenStderr -update` rewrites them,
// for a change to be reviewed in the diff.

// goldenPid matches a process id where acprun prints one.
var goldenPid = regexp.MustCompile(`\bpid [0-9]+\b`)

// goldenShape is stderr with what changes from run to run replaced:
// durations by DUR, the run's directory by $DIR, the temporary directory
// by $TMPDIR and process ids by PID.
func goldenShape(stderr, dir string) string {
	s := strings.ReplaceAll(stderr, dir, "$DIR")
	s = strings.ReplaceAll(s, os.TempDir(), "$TMPDIR")
	s = goldenPid.ReplaceAllString(s, "pid PID")
	return linesDuration.ReplaceAllString(s, "DUR")
}

// goldenAgent answers "hi" with "all done" and says it works on "wait"
// until cancelled.
const goldenAgent = `turns:
  - match: wait
    steps: [{text: working}, {waitForCancel: true}]
default:
  steps: [{text: all done}]
`

// goldenScenario is a scenario named name that prompts prompt, on the
// mock agent agent.mock.yaml, with extra lines (YAML) added.
func goldenScenario(name, prompt, extra string) string {
	return "name: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
		extra + "turns:\n  - prompt: " + prompt + "\n"
}

// goldenPermissionAgent reads a file with the client's leave, then asks to
// run rm -rf build.
const goldenPermissionAgent = `turns:
  - steps:
      - text: "Reading the notes. "
      - tool_call: {toolCallId: t1, title: Read notes.txt, kind: read, status: pending}
      - permission: {toolCallId: t1, title: Read notes.txt, kind: read}
        allowed:
          - tool_call_update: {toolCallId: t1, status: completed}
          - text: "They say hello."
        rejected:
          - text: "I could not read them."
  - steps:
      - tool_call: {toolCallId: t2, title: rm -rf build, kind: execute, status: pending}
      - permission: {toolCallId: t2, title: rm -rf build, kind: execute}
        allowed:
          - text: "Removed."
        rejected:
          - text: "I was not allowed."
`

// goldenDaemonAgent starts a daemon (setsid, out of its process group),
// waits until it runs, and ends the turn: acprun kills the daemon and
// warns. The daemon stays a shell blocked on a FIFO nobody writes, so its
// command line, which the warning shows, is always the same.
var goldenDaemonAgent = shHandshake + `read -r line
(setsid sh -c 'echo ready > daemon.fifo; read x < hold.fifo' </dev/null >/dev/null 2>&1 &)
read x < daemon.fifo
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'
while read -r line; do :; done
`

// TestGoldenStderr runs a passing, a failing, an erroring, an interrupted
// run, one with warnings and one that leaves scenarios not run, and
// compares each one's stderr with its golden.
func TestGoldenStderr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		fifos []string // named pipes to make in the directory
		args  []string // after run s.yaml -o out.json
		code  int
		// interrupt, when not empty, names the scenario whose transcript
		// is followed until a line holding all of waitFor, when acprun is
		// sent SIGINT.
		interrupt string
		waitFor   []string
	}{
		{
			name: "pass",
			files: map[string]string{
				"agent.mock.yaml": goldenAgent,
				"perm.mock.yaml":  goldenPermissionAgent,
				"s.yaml": `name: reads-notes
agent: {command: [acprun, mock-agent, perm.mock.yaml]}
permissions:
  default: deny
  allow: [{kind: read}]
turns:
  - prompt: read the notes
    expect: {text: {contains: hello}}
  - prompt: clean up
    expect: {text: {contains: not allowed}}
---
` + goldenScenario("greets", "hi", ""),
			},
			args: []string{"-j", "1", "-v"},
			code: exitOK,
		},
		{
			name:  "fail",
			files: map[string]string{"agent.mock.yaml": linesScript, "s.yaml": linesScenarios},
			args:  []string{"-j", "1", "--run", "^(passes|wants-banana)$"},
			code:  exitFailed,
		},
		{
			name:  "error",
			files: map[string]string{"agent.mock.yaml": linesScript, "s.yaml": linesScenarios},
			args:  []string{"-j", "1", "--run", "^crashes$"},
			code:  exitFailed,
		},
		{
			name: "warnings",
			files: map[string]string{
				"agent.mock.yaml": goldenAgent,
				"daemon.sh":       goldenDaemonAgent,
				"s.yaml": "name: leaves-a-daemon\nagent: {command: [sh, daemon.sh]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n---\n" +
					"name: no-permissions\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns: [{prompt: hi}]\n",
			},
			fifos: []string{"daemon.fifo", "hold.fifo"},
			args:  []string{"-j", "1"},
			code:  exitOK,
		},
		{
			name: "not-run",
			files: map[string]string{
				"agent.mock.yaml": goldenAgent,
				"s.yaml": goldenScenario("wants-banana", "hi", "") + "    expect: {text: {contains: banana}}\n---\n" +
					goldenScenario("later", "hi", "") + "---\n" + goldenScenario("last", "hi", ""),
			},
			args: []string{"-j", "1", "--fail-fast"},
			code: exitFailed,
		},
		{
			name: "interrupted",
			files: map[string]string{
				"agent.mock.yaml": goldenAgent,
				"s.yaml": goldenScenario("first", "hi", "") + "---\n" + goldenScenario("second", "wait", "") + "---\n" +
					goldenScenario("third", "hi", ""),
			},
			args:      []string{"-j", "1"},
			code:      exitInterrupted,
			interrupt: "second",
			waitFor:   []string{`"dir":"a2c"`, `"text":"working"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			writeFiles(t, dir, tt.files)
			for _, name := range tt.fifos {
				if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var stderr string
			if tt.interrupt == "" {
				res := acprun(t, dir, append([]string{"run", "s.yaml", "-o", "out.json"}, tt.args...)...)
				if res.code != tt.code {
					t.Errorf("exit %d, want %d\n%s", res.code, tt.code, res.stderr)
				}
				stderr = res.stderr
			} else {
				run := runFollowingTranscript(t, t.Context(), dir, tt.interrupt, tt.args...)
				run.waitFor("the scenario "+tt.interrupt+" is under way", tt.waitFor...)
				run.interrupt()
				run.waitInterrupted() // exit 130
				stderr = run.stderr.String()
			}
			testkit.Golden(t, filepath.Join("testdata", "stderr", tt.name+".txt"), []byte(goldenShape(stderr, dir)))
		})
	}
}
