package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/acprun/acprun/scenario"
)

// TestProbeCheckOutput: probe -o refuses a file the probe reads: the
// config file (acprun.yaml or --config's), and the mock agent script or
// replay transcript of the agent probed, relative to its cwd, and any file
// a word of its command names, however acprun is named there; -o - is
// --json.
func TestProbeCheckOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{scenario.ConfigFile, "cfg.yaml", "m.mock.yaml", "t.jsonl", "old.json"} {
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mock := scenario.Agent{Command: []string{"acprun", "mock-agent", "m.mock.yaml"}, Cwd: dir}
	replay := scenario.Agent{Command: []string{"acprun", "replay", "t.jsonl"}, Cwd: dir}
	self := scenario.Agent{Command: []string{"/usr/local/bin/acprun", "mock-agent", "m.mock.yaml"}, Cwd: dir}
	script := scenario.Agent{Command: []string{"node", filepath.Join(dir, "old.json")}, Cwd: dir}
	tests := []struct {
		name  string
		cmd   probeCmd
		agent scenario.Agent
		want  string
	}{
		{"a new file", probeCmd{Output: "p.json"}, mock, ""},
		{"an older probe's", probeCmd{Output: "old.json"}, mock, ""},
		{"the working directory's config", probeCmd{Output: scenario.ConfigFile}, mock,
			"-o acprun.yaml: it is the config file of this probe; give the probe's JSON another file"},
		{"--config's", probeCmd{Output: "cfg.yaml", configFlag: configFlag{Config: "cfg.yaml"}}, mock,
			"-o cfg.yaml: it is the config file of this probe; give the probe's JSON another file"},
		{"the mock agent's script", probeCmd{Output: "./m.mock.yaml"}, mock,
			"-o ./m.mock.yaml: it is a mock agent script of this probe; give the probe's JSON another file"},
		{"the replay agent's transcript", probeCmd{Output: filepath.Join(dir, "t.jsonl")}, replay,
			"-o " + filepath.Join(dir, "t.jsonl") + ": it is a replay transcript of this probe; give the probe's JSON another file"},
		{"the script of acprun named by its path", probeCmd{Output: "m.mock.yaml"}, self,
			"-o m.mock.yaml: it is a file the probed command names (m.mock.yaml); give the probe's JSON another file"},
		{"a file another agent's command names", probeCmd{Output: "old.json"}, script,
			"-o old.json: it is a file the probed command names (" + filepath.Join(dir, "old.json") + "); give the probe's JSON another file"},
	}
	g := &globals{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	for _, tt := range tests {
		got := ""
		if err := tt.cmd.checkOutput(t.Context(), g, &tt.agent); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: checkOutput = %q, want %q", tt.name, got, tt.want)
		}
	}
	c := probeCmd{Output: "-"}
	if err := c.checkOutput(t.Context(), g, &mock); err != nil || !c.JSON || c.Output != "" {
		t.Errorf("-o -: %v, JSON %v, Output %q; want --json", err, c.JSON, c.Output)
	}
}

// TestCheckProbeScript: probe refuses, before the agent starts, a mock
// agent script the mock agent could not open, as run and validate say it:
// by itself for a command, at the config's word for a named agent; a
// script that opens, and any other command, is none.
func TestCheckProbeScript(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.mock.yaml"), []byte("turns: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := scenario.Pos{File: "acprun.yaml", Line: 3, Col: 35}
	tests := []struct {
		name  string
		agent scenario.Agent
		want  string
	}{
		{"a script", scenario.Agent{Command: []string{"acprun", "mock-agent", "m.mock.yaml"}, Cwd: dir}, ""},
		{"another command", scenario.Agent{Command: []string{"node", "gone.js"}, Cwd: dir}, ""},
		{"missing", scenario.Agent{Command: []string{"acprun", "mock-agent", "gone.mock.yaml"}, Cwd: dir},
			"mock script gone.mock.yaml does not exist (looked for it in the agent's cwd " + dir + "): write the script there, or give its path"},
		{"a directory", scenario.Agent{Command: []string{"acprun", "mock-agent", "."}, Cwd: dir},
			"mock script .: not a regular file (a directory): give a file"},
		{"a named agent's", scenario.Agent{Name: "mine", Command: []string{"acprun", "mock-agent", "gone.mock.yaml"}, Cwd: dir,
			ArgvPos: []scenario.Pos{{}, {}, at}},
			"acprun.yaml:3:35: agent mine: mock script gone.mock.yaml does not exist (looked for it in the agent's cwd " + dir + "): write the script there, or give its path"},
	}
	for _, tt := range tests {
		got := ""
		if err := checkProbeScript(&tt.agent); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: checkProbeScript = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestProbeSelfAgent: probe refuses, before the agent starts, a command
// of acprun's own that its command line refuses, as run and validate say
// it: by itself for a command, at the config's word for a named agent
// (acprun mock-agent without its script, there, was said as for the
// built-in mock, and acprun replay without a transcript nowhere).
func TestProbeSelfAgent(t *testing.T) {
	at := scenario.Pos{File: "acprun.yaml", Line: 3, Col: 23}
	mock := `acprun mock-agent: expected "<script>": the agent would exit before answering initialize; write acprun mock-agent <script>`
	tests := []struct {
		name  string
		agent scenario.Agent
		want  string
	}{
		{"a script", scenario.Agent{Command: []string{"acprun", "mock-agent", "m.mock.yaml"}}, ""},
		{"another command", scenario.Agent{Command: []string{"node", "gone.js"}}, ""},
		{"a command without its script", scenario.Agent{Command: []string{"acprun", "mock-agent"}}, mock},
		{"a named agent's", scenario.Agent{Name: "greeter", Command: []string{"acprun", "mock-agent"}, ArgvPos: []scenario.Pos{{}, at}},
			"acprun.yaml:3:23: agent greeter: " + mock},
		{"a named agent's replay", scenario.Agent{Name: "player", Command: []string{"acprun", "replay"}, ArgvPos: []scenario.Pos{{}, at}},
			`acprun.yaml:3:23: agent player: acprun replay: expected "<transcript>": the agent would exit before answering initialize; write acprun replay [flags] <transcript>`},
	}
	for _, tt := range tests {
		got := ""
		if err := probeSelfAgent(&tt.agent); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: probeSelfAgent = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestProbeInterrupted: an interrupted probe says so, in text as in JSON
// (where the report's error says it too), and exits 130.
func TestProbeInterrupted(t *testing.T) {
	t.Chdir(t.TempDir())
	ctx, interrupt := context.WithCancelCause(context.Background())
	interrupt(errInterrupted)
	agent := []string{"/bin/sh", "-c", "exec cat"}
	for _, json := range []bool{false, true} {
		var stdout bytes.Buffer
		g := &globals{Stdout: &stdout, Stderr: &bytes.Buffer{}}
		c := probeCmd{Target: agent, JSON: json}
		err := c.Run(ctx, g, &kong.Context{Args: append([]string{"probe", "--"}, agent...)})
		var ee exitError
		if !errors.As(err, &ee) || ee.code != exitInterrupted || ee.err == nil || ee.err.Error() != "interrupted" {
			t.Errorf("--json=%v: Run = %#v; want exit %d saying interrupted", json, err, exitInterrupted)
		}
		if json && !bytes.Contains(stdout.Bytes(), []byte(`"error": "interrupted"`)) {
			t.Errorf("--json: stdout lacks the error:\n%s", stdout.String())
		}
	}
}

// TestProbeFailureSaidWhenOutputFails: a probe whose agent failed, and
// whose -o could not be written, says both: the exit code (4) tells only
// of the write. It said only the write's error.
func TestProbeFailureSaidWhenOutputFails(t *testing.T) {
	t.Chdir(t.TempDir())
	// A device that writes as /dev/full does: as root, one of the test's
	// own, which a regression that replaced it could not harm.
	full := "/dev/full"
	if os.Geteuid() == 0 {
		full = "full"
		if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
			t.Skipf("mknod: %v", err)
		}
	} else if _, err := os.Stat(full); err != nil {
		t.Skipf("no %s", full)
	}
	agent := []string{"/bin/sh", "-c", "echo oops >&2; exit 1"}
	for _, json := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		g := &globals{Stdout: &stdout, Stderr: &stderr}
		c := probeCmd{Target: agent, JSON: json, Output: full}
		err := c.Run(context.Background(), g, &kong.Context{Args: append([]string{"probe", "--"}, agent...)})
		var ee exitError
		want := "the agent exited with code 1 before answering initialize\nacprun: -o " + full + ": write " + full + ": no space left on device; the probe's JSON was not written"
		if !errors.As(err, &ee) || ee.code != exitOutput || ee.err == nil || ee.err.Error() != want {
			t.Errorf("--json=%v: Run = %v; want exit %d saying %q", json, err, exitOutput, want)
		}
		if tail := "agent stderr (last lines):\n| oops\n"; !json && stderr.String() != tail {
			t.Errorf("stderr %q; want the agent's, %q", stderr.String(), tail)
		}
	}
}

// TestProbeEmptyAgent: an empty agent name, or an empty program name after
// --, as "$AGENT" gives them with AGENT unset, is a usage error that says
// so (exit 2), not an unknown agent "" or a program "" not found in PATH
// (exit 3).
func TestProbeEmptyAgent(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, args := range [][]string{{""}, {"--", "", "acp"}} {
		var stdout, stderr bytes.Buffer
		c := probeCmd{Target: slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--" })}
		err := c.Run(context.Background(), &globals{Stdout: &stdout, Stderr: &stderr}, &kong.Context{Args: append([]string{"probe"}, args...)})
		var ee exitError
		if !errors.As(err, &ee) || ee.code != exitUsage || ee.err == nil || !strings.Contains(ee.err.Error(), "is empty (is the variable that gives it unset?)") {
			t.Errorf("probe %q: Run = %v; want exit %d saying it is empty", args, err, exitUsage)
		}
		if stdout.Len() > 0 {
			t.Errorf("probe %q: stdout %q; want nothing started", args, stdout.String())
		}
	}
}

// TestProbeErrorEscaped: the error a probe ends with, which quotes what the
// agent sent (its JSON-RPC error's message, a line that is not JSON-RPC),
// has control characters, line breaks and "##[" escaped, as the probe's
// stdout and its agent's stderr have them: an agent's escape sequences
// reached the terminal, and its line breaks began lines of their own
// (a GitHub workflow command: ::error::).
func TestProbeErrorEscaped(t *testing.T) {
	t.Chdir(t.TempDir())
	answer := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom ##[error]x \u001b[31mred\n::error::y"}}`
	agent := []string{"/bin/sh", "-c", `read -r _; printf '%s\n' "$0"; exec cat >/dev/null`, answer}
	c := probeCmd{Target: agent}
	g := &globals{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	err := c.Run(context.Background(), g, &kong.Context{Args: append([]string{"probe", "--"}, agent...)})
	want := `initialize: jsonrpc error -32000: boom #\x23[error]x \x1b[31mred\x0a::error::y`
	if err == nil || err.Error() != want {
		t.Errorf("Run = %v; want %q", err, want)
	}
}

// TestProbeFailureSaidWhenStdoutFails: a probe whose agent failed, and
// whose stdout could not be written, says both, as it does for -o: it
// said only the write's error.
func TestProbeFailureSaidWhenStdoutFails(t *testing.T) {
	agent := []string{"/bin/sh", "-c", "echo oops >&2; exit 1"}
	for _, json := range []bool{false, true} {
		var stderr bytes.Buffer
		g := &globals{Stdout: failingWriter{}, Stderr: &stderr}
		c := probeCmd{Target: agent, JSON: json}
		err := c.Run(context.Background(), g, &kong.Context{Args: append([]string{"probe", "--"}, agent...)})
		var ee exitError
		want := "the agent exited with code 1 before answering initialize\nacprun: " + syscall.ENOSPC.Error()
		if !errors.As(err, &ee) || ee.code != exitOutput || ee.err == nil || ee.err.Error() != want {
			t.Errorf("--json=%v: Run = %v; want exit %d saying %q", json, err, exitOutput, want)
		}
		if tail := "agent stderr (last lines):\n| oops\n"; !json && stderr.String() != tail {
			t.Errorf("stderr %q; want the agent's, %q", stderr.String(), tail)
		}
	}
}

// failingWriter is a stdout that takes nothing, as /dev/full.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestProbeFailureSaidWhenStdoutGone: a probe whose agent failed, and
// whose stdout's reader quit (EPIPE), ends as the probe failed (exit 3,
// why), not quietly, as one that did not fail does.
func TestProbeFailureSaidWhenStdoutGone(t *testing.T) {
	agent := []string{"/bin/sh", "-c", "exit 1"}
	var stderr bytes.Buffer
	g := &globals{Stdout: goneWriter{}, Stderr: &stderr}
	c := probeCmd{Target: agent}
	err := c.Run(context.Background(), g, &kong.Context{Args: append([]string{"probe", "--"}, agent...)})
	var ee exitError
	if want := "the agent exited with code 1 before answering initialize"; !errors.As(err, &ee) || ee.code != exitAgent || ee.err == nil || ee.err.Error() != want {
		t.Errorf("Run = %v; want exit %d saying %q", err, exitAgent, want)
	}
}

// goneWriter is a stdout whose reader quit.
type goneWriter struct{}

func (goneWriter) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: os.Stdout.Name(), Err: syscall.EPIPE}
}
