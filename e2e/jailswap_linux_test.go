package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSandboxRefusedWriteLeavesNothing: while the agent's writes to
// d/fN.txt are served, d is exchanged again and again with a symlink to a
// hidden directory (renameat2 RENAME_EXCHANGE, as an agent can): each
// write lands in d or is refused, and a refused one leaves nothing in the
// hidden directory, not even an empty file. The exchanges race the
// client, so a run before the fix failed on some writes, not all; none
// may fail now.
func TestSandboxRefusedWriteLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	ws := filepath.Join(dir, "ws")
	const n = 300
	var script strings.Builder
	script.WriteString("turns:\n  - steps:\n")
	for i := range n {
		fmt.Fprintf(&script, "      - write: {path: %s/d/f%d.txt, content: x}\n", ws, i)
	}
	writeFiles(t, dir, map[string]string{
		"ws/d/.keep":     "",
		"ws/secrets/key": "HIDDEN\n",
		"m.mock.yaml":    script.String(),
		"s.yaml": "name: race\nagent: {command: [acprun, mock-agent, ../m.mock.yaml], cwd: ./ws}\nclient: {fs: true}\n" +
			"sandbox: {hide: [./ws/secrets]}\npermissions: {default: allow}\nturns: [{prompt: go}]\n",
	})
	if err := os.Symlink("secrets", filepath.Join(ws, "dlink")); err != nil {
		t.Fatal(err)
	}
	real, err := os.Open(filepath.Join(ws, "d")) // wherever the exchanges leave it
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	stop, stopped := make(chan struct{}), make(chan int)
	go func() {
		swaps := 0
		for {
			select {
			case <-stop:
				stopped <- swaps
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(ws, "d"), unix.AT_FDCWD, filepath.Join(ws, "dlink"), unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				stopped <- swaps
				return
			}
			swaps++
		}
	}()
	res, out := runSandboxed(t, dir, env, "s.yaml")
	close(stop)
	if swaps := <-stopped; swaps == 0 {
		t.Fatal("no exchange ran")
	}
	if res.code != exitOK {
		t.Errorf("exit %d; want 0\n%s", res.code, res.stderr)
	}
	hidden, err := os.ReadDir(filepath.Join(ws, "secrets"))
	if target, lerr := os.Readlink(filepath.Join(ws, "secrets")); lerr == nil {
		t.Fatalf("secrets became a symlink to %s", target)
	}
	if err != nil || len(hidden) != 1 || hidden[0].Name() != "key" {
		t.Errorf("the hidden directory holds %v, %v; want only key", hidden, err)
	}
	written, refused := 0, 0
	names, err := real.Readdirnames(-1)
	if err != nil {
		t.Fatal(err)
	}
	landed := map[string]bool{}
	for _, name := range names {
		landed[name] = true
	}
	for _, r := range out.Scenarios[0].Turns[0].ClientRequests {
		name := filepath.Base(r.Path)
		switch {
		case r.Refused != "":
			refused++
			if landed[name] {
				t.Errorf("%s: refused (%s) but written", name, r.Refused)
			}
		case r.Error != "":
			t.Errorf("%s: %s; want it written or refused", name, r.Error)
		default:
			written++
			if !landed[name] {
				t.Errorf("%s: written, but not in d", name)
			}
		}
	}
	if written+refused != n {
		t.Errorf("%d written, %d refused; want %d requests", written, refused, n)
	}
	t.Logf("%d written, %d refused", written, refused)
}
