package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFilesCheckOfAHugeFileStopsAtASecondInterrupt: files.contains reads
// a file of any size to its end, and a sparse file of a terabyte takes
// hours; a second interrupt (which stops the agents at once) stops the
// read too, and the check fails saying so, where acprun read on past
// every interrupt but the third, which lost the results.
func TestFilesCheckOfAHugeFileStopsAtASecondInterrupt(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir()) // as /proc names the file acprun opened
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
		"s.yaml":      "name: huge\nagent: {name: mock, args: [a.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: go\n    expect: {files: {contains: {huge.txt: needle}}}\n",
	})
	if err := os.Truncate(filepath.Join(dir, "huge.txt"), 1<<40); err != nil {
		f, cerr := os.Create(filepath.Join(dir, "huge.txt"))
		if cerr == nil {
			err = f.Truncate(1 << 40)
			f.Close()
		}
		if err != nil {
			t.Skipf("this file system takes no sparse file of 1 TiB: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatched(t, ctx, dir, "run", "s.yaml", "-o", "out.json")
	waitOpened(t, ctx, run.cmd.Process.Pid, filepath.Join(dir, "huge.txt"))
	if err := run.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	run.waitLine("interrupt again to stop the agents at once")
	res := run.interruptOnce()
	const want = `files.contains: "huge.txt" cannot be read: acprun was stopped at once (second interrupt) before it was read to its end`
	if res.code != exitInterrupted || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and %q", res.code, res.stderr, exitInterrupted, want)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if sc := out.Scenarios[0]; sc.Status != "failed" || !out.Interrupted {
		t.Errorf("status %s, interrupted %v; want failed, interrupted", sc.Status, out.Interrupted)
	}
}

// waitOpened waits until process pid has the file path open: acprun has
// begun to read it.
func waitOpened(t *testing.T, ctx context.Context, pid int, path string) {
	t.Helper()
	fds := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		entries, _ := os.ReadDir(fds)
		for _, e := range entries {
			if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && target == path {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("acprun had not opened %s by the test's deadline", path)
		case <-tick.C:
		}
	}
}
