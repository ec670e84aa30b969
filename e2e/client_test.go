package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
	"github.com/google/go-cmp/cmp"
)

// clientScenarios run the mock agent of testdata/fs-terminal.mock.yaml
// with the client fully on (two roots), read-only, and off.
const clientScenarios = `
name: fs-terminal
agent:
  command: [acprun, mock-agent, %[1]q]
  cwd: ./repo
client: {fs: true, terminal: true, readOnly: false, roots: [./repo, ./scratch]}
permissions:
  default: deny
  allow:
    - kind: execute
  deny:
    - command: "rm *"
turns:
  - prompt: fs and terminal
---
name: fs-read-only
agent: {command: [acprun, mock-agent, %[1]q], cwd: ./repo}
client: {readOnly: true}
permissions: {default: deny}
turns:
  - prompt: read-only
---
name: no-client
agent: {command: [acprun, mock-agent, %[1]q], cwd: ./repo}
client: {fs: false, terminal: false}
permissions: {default: deny}
turns:
  - prompt: no client
`

func TestClientRequestsEndToEnd(t *testing.T) {
	t.Parallel()
	mock, err := filepath.Abs("testdata/fs-terminal.mock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := realTempDir(t)
	repo, scratch := filepath.Join(dir, "repo"), filepath.Join(dir, "scratch")
	const hello = "line one\nline two\nline three\n"
	writeFiles(t, dir, map[string]string{
		"scenarios.yaml": fmt.Sprintf(clientScenarios, mock),
		"repo/hello.txt": hello,
		"outside.txt":    "outside\n",
		"scratch/.keep":  "",
	})
	if err := os.Symlink("..", filepath.Join(repo, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(scratch, "ready.fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killStraySleeps(t, scratch) })

	res, out := runResults(t, dir, "scenarios.yaml", "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if len(out.Scenarios) != 3 {
		t.Fatalf("%d scenarios; want 3", len(out.Scenarios))
	}
	turns := make([]report.TurnResult, 3)
	for i, sc := range out.Scenarios {
		if sc.Status != "passed" || len(sc.Turns) != 1 {
			t.Fatalf("scenario %s: status %s, %d turns, failures %v; want passed, 1 turn", sc.Name, sc.Status, len(sc.Turns), sc.Failures)
		}
		turns[i] = sc.Turns[0]
	}

	t.Run("fs-terminal", func(t *testing.T) {
		got := turns[0].ClientRequests
		roots := repo + ", " + scratch
		outside := func(path string) string {
			return path + " is outside the allowed roots (" + roots + ")"
		}
		const (
			read, write                = "fs/read_text_file", "fs/write_text_file"
			create, output, wait, kill = "terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill"
			release                    = "terminal/release"
		)
		code := func(n int) *int { return &n }
		denyRule := ""
		if n := len(got); n > 0 {
			denyRule = got[n-1].Rule
		}
		if !strings.HasPrefix(denyRule, "scenarios.yaml:") && !strings.Contains(denyRule, "/scenarios.yaml:") {
			t.Errorf("deny rule = %q; want the rule's position in scenarios.yaml", denyRule)
		}
		allowRule := strings.TrimSuffix(denyRule, ":12") + ":10"
		// allowed is the record of a terminal/create the policy allowed.
		allowed := func(r report.ClientRequest) report.ClientRequest {
			r.Decision, r.Rule, r.Reason = "allow", allowRule, "allow rule "+allowRule+" matched"
			return r
		}
		want := []report.ClientRequest{
			{Method: read, Path: repo + "/hello.txt", Bytes: len("line two\n")},
			{Method: read, Path: repo + "/missing.txt", Error: "Resource not found: " + repo + "/missing.txt: file not found"},
			{Method: read, Path: dir + "/outside.txt", Refused: outside(dir + "/outside.txt")},
			{Method: read, Path: repo + "/link/outside.txt", Refused: outside(repo + "/link/outside.txt")},
			{Method: write, Path: repo + "/new/dir/created.txt", Bytes: len("créé\n")},
			{Method: write, Path: scratch + "/s.txt", Bytes: len("scratch\n")},
			{Method: write, Path: dir + "/outside.txt", Bytes: len("pwned\n"), Refused: outside(dir + "/outside.txt")},
			{Method: write, Path: repo + "/link/outside.txt", Bytes: len("pwned\n"), Refused: outside(repo + "/link/outside.txt")},

			allowed(report.ClientRequest{Method: create, Command: "echo done >&2; printf 'ééé'; exit 3", TerminalID: "term-1"}),
			{Method: wait, TerminalID: "term-1", ExitCode: code(3)},
			{Method: output, TerminalID: "term-1", Bytes: len("éé"), Truncated: true, ExitCode: code(3)},
			{Method: release, TerminalID: "term-1", ExitCode: code(3)},

			allowed(report.ClientRequest{Method: create, Command: `GREETING=hi echo "$GREETING from $(pwd)"`, TerminalID: "term-2"}),
			{Method: wait, TerminalID: "term-2", ExitCode: code(0)},
			{Method: output, TerminalID: "term-2", Bytes: len("hi from " + scratch + "\n"), ExitCode: code(0)},
			{Method: release, TerminalID: "term-2", ExitCode: code(0)},

			allowed(report.ClientRequest{Method: create, Command: "sleep 1000 & echo $! > ../scratch/bg.pid", TerminalID: "term-3"}),
			{Method: wait, TerminalID: "term-3", ExitCode: code(0)},
			{Method: release, TerminalID: "term-3", ExitCode: code(0)},

			allowed(report.ClientRequest{Method: create, Command: "sleep 1000", TerminalID: "term-4"}),
			{Method: kill, TerminalID: "term-4"},
			{Method: release, TerminalID: "term-4", Signal: "SIGKILL"},

			allowed(report.ClientRequest{Method: create, Command: "sleep 1000 & echo $! > ../scratch/orphan.pid; echo ready > ../scratch/ready.fifo; wait", TerminalID: "term-5"}),
			allowed(report.ClientRequest{Method: create, Command: "cat ../scratch/ready.fifo", TerminalID: "term-6"}),
			{Method: wait, TerminalID: "term-6", ExitCode: code(0)},
			{Method: output, TerminalID: "term-6", Bytes: len("ready\n"), ExitCode: code(0)},
			{Method: release, TerminalID: "term-6", ExitCode: code(0)},

			{Method: create, Command: "rm -rf ../scratch", Decision: "deny", Rule: denyRule, Reason: "deny rule " + denyRule + " matched",
				Refused: "command denied by rule " + denyRule + ": rm -rf ../scratch"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("clientRequests (-want +got):\n%s", diff)
		}

		// What the agent was told, in order.
		text := turns[0].Text
		for _, s := range []string{
			"read: line two\n",
			"error: fs/read_text_file: Resource not found: " + repo + "/missing.txt: file not found (-32002)",
			"error: fs/write_text_file: " + outside(dir+"/outside.txt") + " (-32602)",
			"output (truncated), exit 3: éé",
			"output, exit 0: hi from " + scratch + "\n",
			"kill: ok",
			"output, exit 0: ready\n",
			"error: terminal/create: command denied by rule " + denyRule + ": rm -rf ../scratch (-32602)",
			"all done",
		} {
			if !strings.Contains(text, s) {
				t.Errorf("turn text lacks %q; text:\n%s", s, text)
			}
		}

		// The files on disk.
		for p, want := range map[string]string{
			filepath.Join(repo, "new", "dir", "created.txt"): "créé\n",
			filepath.Join(scratch, "s.txt"):                  "scratch\n",
			filepath.Join(dir, "outside.txt"):                "outside\n",
			filepath.Join(repo, "hello.txt"):                 hello,
		} {
			if got, err := os.ReadFile(p); err != nil || string(got) != want {
				t.Errorf("%s = %q, %v; want %q", p, got, err, want)
			}
		}

		// The background children: of a leader that exited (then
		// released), and of a terminal never released.
		for _, name := range []string{"bg.pid", "orphan.pid"} {
			pid := readPid(t, filepath.Join(scratch, name))
			if pid != 0 && !testkit.Dying(pid) {
				t.Errorf("the background child of %s (pid %d) outlived the scenario", name, pid)
			}
		}
	})

	t.Run("read-only", func(t *testing.T) {
		want := []report.ClientRequest{
			{Method: "fs/read_text_file", Path: repo + "/hello.txt", Bytes: len(hello)},
			{Method: "fs/write_text_file", Path: repo + "/hello.txt", Bytes: len("changed\n"), Refused: repo + "/hello.txt: the client is read-only"},
		}
		if diff := cmp.Diff(want, turns[1].ClientRequests); diff != "" {
			t.Errorf("clientRequests (-want +got):\n%s", diff)
		}
	})

	t.Run("no client", func(t *testing.T) {
		want := []report.ClientRequest{
			{Method: "fs/read_text_file", Refused: "Method not found: fs/read_text_file (the client does not offer fs)"},
			{Method: "fs/write_text_file", Refused: "Method not found: fs/write_text_file (the client does not offer fs)"},
			{Method: "terminal/create", Refused: "Method not found: terminal/create (the client does not offer terminals)"},
		}
		if diff := cmp.Diff(want, turns[2].ClientRequests); diff != "" {
			t.Errorf("clientRequests (-want +got):\n%s", diff)
		}
		if _, err := os.Stat(filepath.Join(repo, "x.txt")); err == nil {
			t.Errorf("x.txt was written with fs off")
		}
	})

	t.Run("capabilities", func(t *testing.T) {
		session := map[string]any{"configOptions": map[string]any{"boolean": map[string]any{}}, "notices": map[string]any{}, "compaction": map[string]any{}}
		want := []map[string]any{
			{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true, "session": session},
			{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true, "session": session},
			{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false, "session": session},
		}
		for i, sc := range out.Scenarios {
			got := initializeCapabilities(t, filepath.Join(dir, sc.Transcript))
			if diff := cmp.Diff(want[i], got); diff != "" {
				t.Errorf("%s: clientCapabilities (-want +got):\n%s", sc.Name, diff)
			}
		}
	})
}

// initializeCapabilities returns the clientCapabilities acprun sent in
// initialize, from a transcript.
func initializeCapabilities(t *testing.T, path string) map[string]any {
	t.Helper()
	var line struct {
		Msg struct {
			Params struct {
				ClientCapabilities map[string]any `json:"clientCapabilities"`
			} `json:"params"`
		} `json:"msg"`
	}
	raw := findTranscriptLine(t, path, `"method":"initialize"`, "c2a")
	if err := json.Unmarshal([]byte(raw), &line); err != nil {
		t.Fatalf("%s: no initialize request (%v)", path, err)
	}
	return line.Msg.Params.ClientCapabilities
}

// readPid reads a pid file written by a terminal command; 0 when missing.
func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v", filepath.Base(path), err)
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Errorf("%s: %v", filepath.Base(path), err)
		return 0
	}
	return pid
}

// killStraySleeps kills what a failed run may have left behind: the
// "sleep 1000" processes whose pids the terminals wrote.
func killStraySleeps(t *testing.T, dir string) {
	for _, name := range []string{"bg.pid", "orphan.pid"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || pid <= 0 {
			continue
		}
		if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && string(cmdline) == "sleep\x001000\x00" {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestRefusedCommandCountsInNeither: a terminal/create the rules allow but
// acprun refuses, its cwd being outside the roots, counts in neither
// allowed nor denied, in the results and on the scenario's line, with a
// read-only client too; its record keeps the rules' decision.
func TestRefusedCommandCountsInNeither(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	script := "turns:\n  - steps:\n" +
		"      - terminal: {command: ls, cwd: " + outside + ", waitForExit: true}\n" +
		"      - terminal: {command: ls, waitForExit: true}\n"
	for _, client := range []string{"", "client: {readOnly: true}\n"} {
		res, out, _ := runOne(t, script, "name: rf\nagent: {name: mock, args: [agent.mock.yaml]}\n"+client+
			"permissions: {allow: [{kind: execute, command: ls}]}\nturns: [{prompt: hi}]\n")
		if res.code != 0 {
			t.Fatalf("%sexit %d, want 0\nstderr:\n%s", client, res.code, res.stderr)
		}
		sc := out.Scenarios[0]
		if sc.Allowed != 1 || sc.Denied != 0 {
			t.Errorf("%sallowed/denied = %d/%d, want 1/0", client, sc.Allowed, sc.Denied)
		}
		if !strings.Contains(res.stdout+res.stderr, "1 allowed, 0 denied") {
			t.Errorf("%soutput lacks 1 allowed, 0 denied:\n%s%s", client, res.stdout, res.stderr)
		}
		if r := sc.Turns[0].ClientRequests[0]; !strings.Contains(r.Refused, "is outside the allowed roots") || r.Decision != "allow" {
			t.Errorf("%sfirst request = %+v, want refused outside the roots, the rules' allow kept", client, r)
		}
	}
}

// TestClientReadTooLarge: an fs/read_text_file whose answer would exceed
// 8 MiB is refused, saying why and what to do, and counted as a refusal
// (in neither allowed nor denied); the agent goes on, reads a slice of the
// same file, and no transcript line holds the file: a 60 MiB file of NUL
// bytes (one line: it cannot be read this way) and a 9 MiB text file.
func TestClientReadTooLarge(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	line := strings.Repeat("x", 1023) + "\n"
	writeFiles(t, dir, map[string]string{
		"big.txt": strings.Repeat(line, 9<<10),
		"agent.mock.yaml": `turns:
  - steps:
      - read: {path: big.bin}
      - text: "\n"
      - read: {path: big.txt}
      - text: "\n"
      - read: {path: big.txt, line: 9000, limit: 1}
      - text: done
`,
		"s.yaml": "name: big reads\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: read}]\n",
	})
	f, err := os.Create(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(60 << 20); err != nil { // truncate -s 60M: zero bytes
		t.Fatal(err)
	}
	f.Close()
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	const cap = "the answer would be larger than 8 MiB, the most acprun sends at once (counted as JSON, where a NUL or other control byte takes 6 bytes): "
	wantText := "error: fs/read_text_file: " + dir + "/big.bin: " + cap +
		"line 1 alone is larger, fs/read_text_file cannot read it; it holds NUL bytes: is it a text file? (-32602)\n" +
		"error: fs/read_text_file: " + dir + "/big.txt: " + cap +
		"read the file in parts with line and limit (lines 1 to 8184 fit) (-32602)\n" +
		"read: " + line + "done"
	if diff := cmp.Diff(wantText, sc.Turns[0].Text); diff != "" {
		t.Errorf("the agent was told (-want +got):\n%s", diff)
	}
	reqs := sc.Turns[0].ClientRequests
	if len(reqs) != 3 || !strings.Contains(reqs[0].Refused, "line 1 alone") || !strings.Contains(reqs[1].Refused, "in parts") ||
		reqs[2].Refused != "" || reqs[2].Bytes != len(line) {
		t.Errorf("client requests %+v; want the first two refused, the third served", reqs)
	}
	if sc.Allowed != 0 || sc.Denied != 0 {
		t.Errorf("allowed/denied %d/%d, want 0/0: a refused read is no decision of the policy", sc.Allowed, sc.Denied)
	}
	b, err := os.ReadFile(filepath.Join(dir, sc.Transcript))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if len(l) > 64<<10 {
			t.Errorf("transcript line %d holds %d bytes, want the files kept out", i+1, len(l))
		}
	}
}

// TestTerminalOutputLimitZero: a terminal created with outputByteLimit 0
// keeps none of its output, as the agent asked: terminal/output answers
// "" and truncated, and the request's record says so.
func TestTerminalOutputLimitZero(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - steps:
      - terminal: {command: printf, args: ["%s", abcdef], outputByteLimit: 0, waitForExit: true, output: true, release: true}
`, `name: zero
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {allow: [{kind: execute, command: "printf *"}]}
turns:
  - prompt: hi
    expect: {text: {notContains: abcdef}}
`)
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	tr := out.Scenarios[0].Turns[0]
	if !strings.Contains(tr.Text, "output (truncated), exit 0: ") {
		t.Errorf("text %q, want the agent to have seen an empty, truncated output", tr.Text)
	}
	for _, r := range tr.ClientRequests {
		if r.Method == "terminal/output" && (r.Bytes != 0 || !r.Truncated) {
			t.Errorf("terminal/output record %+v, want 0 bytes, truncated", r)
		}
	}
}

// TestTerminalOutputAfterKill: terminal/kill is answered once the command
// has ended, so the terminal/output an agent's timeout sends after it
// (kill, then output) says how it ended, every run.
func TestTerminalOutputAfterKill(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - steps:
      - terminal: {command: sleep 1000, kill: true, killFirst: true, output: true, release: true}
`, `name: kill
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {allow: [{kind: execute, command: "sleep *"}]}
turns:
  - prompt: hi
`)
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	tr := out.Scenarios[0].Turns[0]
	if want := "terminal: term-1kill: okoutput, exit signal SIGKILL: release: ok"; tr.Text != want {
		t.Errorf("the agent was told %q; want %q", tr.Text, want)
	}
}

// TestTerminalOutputAfterCancel: a turn's cancel kills its running
// commands, and a terminal/output the agent sends once it has read the
// cancel says the command was killed, every run: it is served once the
// kill is done and the command has ended.
func TestTerminalOutputAfterCancel(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `onCancel: ignore
turns:
  - steps:
      - terminal: {command: sleep 1000}
      - usage_update: {used: 1, size: 10, cost: {amount: 5, currency: USD}}
      - waitForCancel: true
      - garbage: '{"jsonrpc":"2.0","id":"o1","method":"terminal/output","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - garbage: '{"jsonrpc":"2.0","id":"r1","method":"terminal/release","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - text: done
`, `name: cancel
agent: {name: mock, args: [agent.mock.yaml]}
client: {terminal: true}
permissions: {allow: [{kind: execute, command: "sleep *"}]}
turns:
  - prompt: hi
    budget: {maxCost: 1}
`)
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d (the budget passed)\nstderr:\n%s", res.code, exitFailed, res.stderr)
	}
	tr := out.Scenarios[0].Turns[0]
	var got []string
	for _, r := range tr.ClientRequests {
		got = append(got, r.Method+" "+r.Signal)
	}
	want := []string{"terminal/create ", "terminal/output SIGKILL", "terminal/release SIGKILL"}
	if tr.CancelCause != "budget" || !slices.Equal(got, want) {
		t.Errorf("turn cancelled for %q, client requests %q; want budget, %q", tr.CancelCause, got, want)
	}
}

// TestTerminalOutputLimitInvalidBytes: output bytes that are no
// character go to the agent as U+FFFD (3 bytes each), and terminal/output
// still answers at most outputByteLimit bytes, cut at a character.
func TestTerminalOutputLimitInvalidBytes(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - steps:
      - terminal: {command: printf, args: ['ab\377\376cd'], outputByteLimit: 3, waitForExit: true, output: true, release: true}
`, `name: invalid
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {allow: [{kind: execute, command: "printf *"}]}
turns: [{prompt: hi}]
`)
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	tr := out.Scenarios[0].Turns[0]
	if !strings.Contains(tr.Text, "output (truncated), exit 0: cd") {
		t.Errorf("text %q, want the agent to have seen the output's last 3 bytes, cd", tr.Text)
	}
	for _, r := range tr.ClientRequests {
		if r.Method == "terminal/output" && (r.Bytes > 3 || !r.Truncated) {
			t.Errorf("terminal/output record %+v, want at most 3 bytes, truncated", r)
		}
	}
}

// TestMalformedTerminalCreateKeepsCommand: a terminal/create refused for an
// argument that is not a string is recorded with its command, the bad word
// as the JSON the agent sent, so the results say what it tried to run.
func TestMalformedTerminalCreateKeepsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - garbage: '{"jsonrpc":"2.0","id":"t","method":"terminal/create","params":{"sessionId":"mock-session-1","command":"rm","args":["-rf",1,"/"]}}'
      - text: done
`,
		"s.yaml": `name: malformed
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
client: {terminal: true}
permissions: {default: deny}
turns: [{prompt: go}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 || len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
		t.Fatalf("exit %d, %d scenarios; want 0, 1\nstderr:\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	want := []report.ClientRequest{{Method: "terminal/create", Command: "rm -rf 1 /", Refused: "invalid params: args[1]: want a string, got a number"}}
	if diff := cmp.Diff(want, out.Scenarios[0].Turns[0].ClientRequests); diff != "" {
		t.Errorf("clientRequests (-want +got):\n%s", diff)
	}
}
