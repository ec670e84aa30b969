package e2e_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// exitWithin waits for cmd (started) to exit and returns its exit code,
// killing it and failing the test when it is still running after limit:
// what it printed on stderr so far (stderr) is in the failure.
func exitWithin(t *testing.T, cmd *exec.Cmd, limit time.Duration, stderr func() string) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("acprun %v still running after %v\nstderr:\n%s", cmd.Args[1:], limit, stderr())
		return -1
	}
}

// TestStdinReadInterrupted: a command waiting for its stdin (run --prompt
// -, with and without a scenario file, and explain --request -) stops at
// the first SIGINT or SIGTERM and exits 130, having run nothing. Stdin is
// a terminal, so that acprun says it waits for it: the signal is sent once
// it has said so.
func TestStdinReadInterrupted(t *testing.T) {
	t.Parallel()
	examples, err := filepath.Abs(filepath.Join(root, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n  basic:\n    command: [acprun, mock-agent, " +
		filepath.Join(examples, "agents", "basic.mock.yaml") + "]\n"})
	tests := []struct {
		name string
		args []string
		says string // what stderr says before the read
		then string // and after the signal
	}{
		{"one-shot run", []string{"run", "--agent", "basic", "--prompt", "-", "--print"},
			"acprun: reading the prompt from stdin (end it with Ctrl-D)", "acprun: --prompt -: interrupted while reading stdin; nothing ran"},
		{"run of a scenario file", []string{"run", filepath.Join(examples, "ci", "nightly"), "--prompt", "-"},
			"acprun: reading the prompt from stdin (end it with Ctrl-D)", "acprun: --prompt -: interrupted while reading stdin; nothing ran"},
		{"explain", []string{"explain", "--request", "-", "--allow", "read"},
			"acprun explain: reading the request from stdin (end it with Ctrl-D)", "acprun: --request -: interrupted while reading stdin"},
	}
	for _, tt := range tests {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(tt.name+"/"+sig.String(), func(t *testing.T) {
				t.Parallel()
				ptmx, tty, err := pty.Open()
				if err != nil {
					t.Skipf("no pseudo-terminal: %v", err)
				}
				defer ptmx.Close()
				cmd := exec.Command(acprunFor(t), tt.args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
				stderr, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer stderr.Close()
				cmd.Stdin, cmd.Stderr = tty, w
				err = cmd.Start()
				tty.Close() // the child holds them
				w.Close()
				if err != nil {
					t.Fatal(err)
				}
				stderr.SetReadDeadline(time.Now().Add(30 * time.Second))
				var seen strings.Builder
				lines := bufio.NewScanner(stderr)
				for !strings.Contains(seen.String(), tt.says) && lines.Scan() {
					seen.WriteString(lines.Text() + "\n")
				}
				if !strings.Contains(seen.String(), tt.says) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("stderr never said %q (%v):\n%s", tt.says, lines.Err(), seen.String())
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if code := exitWithin(t, cmd, 30*time.Second, seen.String); code != exitInterrupted {
					t.Errorf("exit %d, want %d", code, exitInterrupted)
				}
				for lines.Scan() { // what acprun said before it exited
					seen.WriteString(lines.Text() + "\n")
				}
				if !strings.Contains(seen.String(), tt.then) {
					t.Errorf("stderr:\n%s\nwant %q", seen.String(), tt.then)
				}
			})
		}
	}
}

// TestAgentOnTerminalInterrupted: mock-agent and replay with stdin on
// their controlling terminal, as a person tries them, answer a request
// typed there, and Ctrl-C then ends them with exit 130.
func TestAgentOnTerminalInterrupted(t *testing.T) {
	t.Parallel()
	examples, err := filepath.Abs(filepath.Join(root, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"
	tests := []struct {
		name string
		args []string
	}{
		{"mock-agent", []string{"mock-agent", filepath.Join(examples, "agents", "basic.mock.yaml")}},
		{"replay", []string{"replay", filepath.Join(examples, "replay", "recorded", "permissions.jsonl")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer ptmx.Close()
			go io.Copy(io.Discard, ptmx) // the echo of what is typed
			cmd := exec.Command(acprunFor(t), tt.args...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
			var stderr strings.Builder
			cmd.Stdin, cmd.Stderr = tty, &stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close() // the child holds it
			if _, err := io.WriteString(ptmx, initialize); err != nil {
				t.Fatal(err)
			}
			answer, err := bufio.NewReader(stdout).ReadString('\n')
			if !strings.Contains(answer, `"id":1,"result"`) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("answer to initialize: %q, %v\nstderr:\n%s", answer, err, stderr.String())
			}
			if _, err := io.WriteString(ptmx, "\x03"); err != nil { // Ctrl-C
				t.Fatal(err)
			}
			if code := exitWithin(t, cmd, 30*time.Second, stderr.String); code != exitInterrupted {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitInterrupted, stderr.String())
			}
		})
	}
}
