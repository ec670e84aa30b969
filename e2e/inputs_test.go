package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acprun/acprun/report"
)

// acprunBounded is acprun for a command that must end at once: it is
// killed after limit, failing the test, so that a read that would block
// (a FIFO with no writer) or never end (/dev/zero) cannot hang the suite.
func acprunBounded(t *testing.T, dir string, limit time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, acprunFor(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	cmd.WaitDelay = time.Second
	res, _ := runCommand(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("acprun %v did not end within %v (a read blocked?)\n%s", args, limit, res.stderr)
	}
	return res
}

// TestInputNotRegularFile gives each command that reads an input file a
// FIFO with no writer, or a link to /dev/zero: each refuses it at once
// (exit 2), naming the path and what it is, instead of waiting for a
// writer or reading without end.
func TestInputNotRegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "d1", "x.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"z.png", "zero.md"} {
		if err := os.Symlink("/dev/zero", filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	agent := fmt.Sprintf("agent: {command: [%q, mock-agent, agent.mock.yaml]}\n", acprunBin)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"s.yaml":          "name: s\n" + agent + "turns: [{prompt: go}]\n",
		// The first scenario passes; the second's prompt parts are not
		// files: the run must not start, let alone hang after the first.
		"p.yaml": "name: first\n" + agent + "turns: [{prompt: go}]\n---\nname: second\n" + agent +
			"turns:\n  - prompt:\n      - file: fifo\n      - file: zero.md\n      - image: z.png\n",
		// Replay transcripts are read before anything runs, too.
		"r.yaml": "name: r\nagent: {command: [acprun, replay, fifo]}\nturns: [{prompt: go}]\n" +
			"---\nname: z\nagent: {command: [acprun, replay, zero.md]}\nturns: [{prompt: go}]\n",
	})
	fifoMsg := "fifo: not a regular file (a FIFO): give a file"
	parts := []string{
		"p.yaml:9:15: prompt file \"fifo\" is not a regular file (a FIFO): give a file",
		"p.yaml:10:15: prompt file \"zero.md\" is not a regular file (a character device): give a file",
		"p.yaml:11:16: image \"z.png\" is not a regular file (a character device): give a file",
	}
	transcripts := []string{
		"r.yaml:2:35: agent: replay transcript fifo: not a regular file (a FIFO): give a file",
		"r.yaml:6:35: agent: replay transcript zero.md: not a regular file (a character device): give a file",
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"validate", "fifo"}, []string{fifoMsg}},
		{[]string{"run", "fifo"}, []string{fifoMsg}},
		{[]string{"run", "d1/*.yaml"}, []string{"d1/x.yaml: not a regular file (a FIFO): give a file"}},
		{[]string{"validate", "--config", "fifo", "s.yaml"}, []string{"--config " + fifoMsg}},
		{[]string{"mock-agent", "fifo"}, []string{fifoMsg}},
		{[]string{"replay", "fifo"}, []string{fifoMsg}},
		{[]string{"report", "fifo"}, []string{fifoMsg}},
		{[]string{"merge", "fifo", "s.yaml"}, []string{fifoMsg}},
		{[]string{"run", "s.yaml", "--rerun-failed", "fifo"}, []string{"--rerun-failed " + fifoMsg}},
		{[]string{"run", "s.yaml", "--balance-from", "fifo", "--shard", "1/2"}, []string{fifoMsg}},
		{[]string{"validate", "p.yaml"}, parts},
		{[]string{"run", "-j", "1", "p.yaml", "-o", "pr.json"}, parts},
		{[]string{"validate", "r.yaml"}, transcripts},
		{[]string{"run", "r.yaml", "-o", "pr.json"}, transcripts},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := acprunBounded(t, dir, 20*time.Second, tc.args...)
			if res.code != exitUsage {
				t.Errorf("exit %d, want %d\n%s", res.code, exitUsage, res.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, res.stderr)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "pr.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pr.json: %v; want no results from a run that did not start", err)
	}
}

// TestRunReadsNotRegularFile gives a run a FIFO with no writer, or a link
// to /dev/zero, where it reads a gateway cassette (--gateway replay), the
// project settings that permissions.enforce merges into a workspace copy
// (claude's .claude/settings.json) and a session's state file: each is
// refused at once, naming it and what it is, instead of hanging the run or
// reading without end. The cassette and the settings are read when the
// scenario starts, which then errors (exit 3 for a cassette, which is the
// agent's start, 1 for the settings); the state file, a link in whose
// place is refused whatever it leads to, before anything runs (exit 2).
func TestRunReadsNotRegularFile(t *testing.T) {
	t.Parallel()
	for _, target := range []struct{ name, kind string }{{"fifo", "a FIFO"}, {"/dev/zero", "a character device"}} {
		for _, tc := range []struct {
			name  string
			files map[string]string
			link  string // made a link to target
			args  []string
			code  int
			want  string // in the scenario's error, or on stderr when code is exitUsage
		}{
			{
				name: "cassette", files: gatewayFiles(gatewayAPIs[0], "https://api.anthropic.com", "second"),
				link: "cassettes/g.cassette.json", args: []string{"--gateway", "replay"}, code: exitAgent,
				want: "cassettes/g.cassette.json: not a regular file (" + target.kind + "): give a file",
			},
			{
				name: "settings", files: map[string]string{
					"acprun.yaml":     "agents:\n  claude: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
					"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
					"s.yaml":          "name: s\nagent: claude\nworkspace: ws\npermissions: {default: deny}\nturns: [{prompt: go}]\n",
					"ws/main.go":      "package main\n",
				},
				// The link leads out of the workspace copy, which is refused
				// before what it leads to is looked at (TestMergeSettings
				// has a FIFO inside the copy).
				link: "ws/.claude/settings.json", code: exitFailed,
				want: "permissions.enforce: claude's settings .claude/settings.json: a symbolic link leads out of the workspace copy",
			},
			{
				name: "state file", files: map[string]string{
					"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
					"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n" +
						"session: {resume: true, stateFile: state.json}\npermissions: {default: deny}\nturns: [{prompt: go}]\n",
				},
				// A link in the state file's place is refused whatever it
				// leads to (TestNotARegularFile has a FIFO in its place).
				link: "state.json", code: exitUsage,
				want: "state.json is a symbolic link (to ",
			},
		} {
			t.Run(tc.name+" "+target.kind, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				writeFiles(t, dir, tc.files)
				link := filepath.Join(dir, tc.link)
				if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
					t.Fatal(err)
				}
				to := target.name
				if to == "fifo" {
					to = filepath.Join(dir, "fifo")
					if err := syscall.Mkfifo(to, 0o644); err != nil {
						t.Skipf("mkfifo: %v", err)
					}
				}
				if err := os.Symlink(to, link); err != nil {
					t.Fatal(err)
				}
				res := acprunBounded(t, dir, 20*time.Second, append([]string{"run", "s.yaml", "-o", "out.json"}, tc.args...)...)
				if res.code != tc.code {
					t.Errorf("exit %d, want %d\n%s", res.code, tc.code, res.stderr)
				}
				got := res.stderr
				if tc.code != exitUsage {
					got = readResults(t, filepath.Join(dir, "out.json")).Scenarios[0].Error
				}
				if !strings.Contains(got, tc.want) {
					t.Errorf("the error is %q, want it to say %q", got, tc.want)
				}
			})
		}
	}
}

// TestReplayTranscriptErrorColumn: an error at a member's value points at
// that value, whatever the case of its name and whatever text before it
// holds the name.
func TestReplayTranscriptErrorColumn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := `{"t":1,"raw":"\"dir\": 1","Dir":"up"}`
	writeFiles(t, dir, map[string]string{"t.jsonl": line + "\n"})
	res := acprun(t, dir, "replay", "t.jsonl")
	want := "t.jsonl:1:33: \"dir\" is \"up\": want \"c2a\" (client to agent) or \"a2c\" (agent to client); record it again with acprun run --transcripts DIR\n" +
		"    1 | " + line + "\n" +
		"      | " + strings.Repeat(" ", 32) + "^\n"
	if res.code != exitUsage || res.stderr != want {
		t.Errorf("acprun replay: exit %d, stderr\n%s\nwant %d and\n%s", res.code, res.stderr, exitUsage, want)
	}
}

// TestReplayTranscriptTimeOutOfRange: a "t" below 0 or above what a wait
// holds (time.Duration's milliseconds) is refused at its place when the
// transcript loads; a huge one overflowed --timing's wait into none.
func TestReplayTranscriptTimeOutOfRange(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ t, is string }{{"-5", "-5"}, {"9223372036854775807", "9223372036854775807"}} {
		dir := t.TempDir()
		line := `{"t":` + tt.t + `,"dir":"a2c","raw":"x"}`
		writeFiles(t, dir, map[string]string{"t.jsonl": line + "\n"})
		res := acprun(t, dir, "replay", "--timing", "t.jsonl")
		want := "t.jsonl:1:6: \"t\" is " + tt.is + ": want the milliseconds since the recording began, from 0 to 9223372036854; record it again with acprun run --transcripts DIR\n" +
			"    1 | " + line + "\n" +
			"      |      ^\n"
		if res.code != exitUsage || res.stderr != want {
			t.Errorf("acprun replay (t %s): exit %d, stderr\n%s\nwant %d and\n%s", tt.t, res.code, res.stderr, exitUsage, want)
		}
	}
}

// TestReplayTranscriptLongLineError: an error at the end of a
// transcript's line of many megabytes (a long raw line, then a bad
// "dir") is shown where it is, the end of the line under a caret, and
// printing it takes memory for what is shown, not for each character of
// the line.
func TestReplayTranscriptLongLineError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("x", 24<<20)
	writeFiles(t, dir, map[string]string{"t.jsonl": `{"t":1,"raw":"` + long + `","dir":"up"}` + "\n"})
	bin, err := plainBinary() // the race detector's own memory aside
	if err != nil {
		t.Fatal(err)
	}
	res, peak := runMeasured(t, bin, dir, "replay", "t.jsonl")
	want := fmt.Sprintf("t.jsonl:1:%d: \"dir\" is \"up\": want \"c2a\" (client to agent) or \"a2c\" (agent to client); record it again with acprun run --transcripts DIR\n", len(long)+23) +
		"    1 | …" + long[:67] + `","dir":"up"}` + "\n" +
		"      | " + strings.Repeat(" ", 76) + "^\n"
	if res.code != exitUsage || res.stderr != want {
		t.Errorf("acprun replay: exit %d, stderr\n%.2000s\nwant %d and\n%s", res.code, res.stderr, exitUsage, want)
	}
	if limit := int64(8 * len(long)); peak > limit {
		t.Errorf("acprun replay's peak resident memory %d MiB, want at most %d MiB", peak>>20, limit>>20)
	}
}

// TestReplayTranscriptEndlessLine: a transcript that is one line longer
// than any acprun records (65 MiB of NUL bytes, no newline) is refused
// by validate and by acprun replay, at its line, saying what to do.
func TestReplayTranscriptEndlessLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": "name: s\nagent: {replay: big.jsonl}\nturns:\n  - prompt: hi\n",
	})
	f, err := os.Create(filepath.Join(dir, "big.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(65 << 20); err != nil { // sparse
		t.Fatal(err)
	}
	f.Close()
	const want = "big.jsonl:1: the line is longer than 64 MiB, more than acprun records of one message: this is not a transcript acprun wrote; record it again with acprun run --transcripts DIR"
	for _, args := range [][]string{{"validate", "s.yaml"}, {"replay", "big.jsonl"}} {
		res := acprunBounded(t, dir, time.Minute, args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, strings.TrimPrefix(want, "big.jsonl:1: ")) {
			t.Errorf("acprun %s: exit %d, want %d and %q\n%s", strings.Join(args, " "), res.code, exitUsage, want, res.stderr)
		}
	}
}

// TestPinnedFilesShareTheirDirectory: the files acprun pins before any
// agent starts (golden files here, replay's cassettes too) hold one
// descriptor per directory, not one each: a scenario with 200 golden files
// in one directory passes under a limit of 100 open files, where it used to
// fail with "too many open files".
func TestPinnedFilesShareTheirDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"}
	var golden strings.Builder
	for i := range 200 {
		files[fmt.Sprintf("out/f%d.txt", i)] = fmt.Sprintf("x%d\n", i)
		files[fmt.Sprintf("golden/f%d.txt", i)] = fmt.Sprintf("x%d\n", i)
		fmt.Fprintf(&golden, "          out/f%d.txt: golden/f%d.txt\n", i, i)
	}
	files["s.yaml"] = "name: many-golden\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\n" +
		"turns:\n  - prompt: hi\n    expect:\n      files:\n        golden:\n" + golden.String()
	writeFiles(t, dir, files)
	// The limit is set hard as well as soft: Go raises the soft one.
	res, _ := runBinary(t, "sh", dir, nil, "-c", `ulimit -n 100 && exec "$0" run s.yaml -o out.json`, acprunFor(t))
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if sc := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0]; sc.Status != report.StatusPassed {
		t.Errorf("status %s, want passed\nerror %q, failures %q", sc.Status, sc.Error, sc.Failures)
	}
}
