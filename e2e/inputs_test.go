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
)

// acprunBounded is acprun for a command that must end at once: it is
// killed after limit, failing the test, so that a read that would block
// (a FIFO with no writer) or never end (/dev/zero) cannot hang the suite.
func acprunBounded(t *testing.T, dir string, limit time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, acprunBin, args...)
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
