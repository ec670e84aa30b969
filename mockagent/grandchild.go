package mockagent

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

// grandchildScript ignores SIGTERM and becomes a sleep that holds the
// inherited stdout and stderr (exec keeps the ignored disposition). Its
// 3>&- closes the ready pipe on fd 3 just before the exec, once the trap is
// set and stdout is back in place.
const grandchildScript = "trap '' TERM; exec sleep 3600 3>&-"

// grandchildStep is a spawnGrandchild step (see startGrandchild); what
// goes wrong is said on stderr.
type grandchildStep struct{ onlyTrue }

func (st *grandchildStep) play(pl *player) *ending {
	if err := pl.a.startGrandchild(); err != nil {
		fmt.Fprintf(pl.a.stderr, "mock-agent: spawnGrandchild: %v\n", err)
	}
	return nil
}

// startGrandchild starts a process that inherits stdout and stderr and
// ignores SIGTERM, waits until it does, and reports its pid on stderr.
// When stdout and stderr are files (the mock-agent process) the child is
// left running; otherwise (in-process runs) os/exec copies its output
// through goroutines, so Run kills and reaps it when it returns.
func (a *agent) startGrandchild() error {
	ready, readyW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer ready.Close()
	cmd := exec.Command("/bin/sh", "-c", grandchildScript)
	cmd.ExtraFiles = []*os.File{readyW}
	outFile, ok1 := a.out.w.(*os.File)
	errFile, ok2 := a.stderr.w.(*os.File)
	files := ok1 && ok2
	if files {
		cmd.Stdout, cmd.Stderr = outFile, errFile
	} else {
		cmd.Stdout, cmd.Stderr = a.out.w, a.stderr
	}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return err
	}
	if files {
		defer cmd.Process.Release() // left running on purpose; nothing to reap here
	} else {
		a.mu.Lock()
		a.children = append(a.children, cmd)
		a.mu.Unlock()
	}
	if n, err := io.Copy(io.Discard, ready); err != nil || n != 0 { // ends when the child closes fd 3
		return fmt.Errorf("grandchild %d did not get ready: %d bytes, %v", cmd.Process.Pid, n, err)
	}
	fmt.Fprintf(a.stderr, "mock-agent: grandchild pid %d\n", cmd.Process.Pid)
	return nil
}

// reapChildren kills and waits for the grandchildren of an in-process run.
func (a *agent) reapChildren() {
	a.mu.Lock()
	children := a.children
	a.children = nil
	a.mu.Unlock()
	for _, c := range children {
		_ = c.Process.Kill() // it may be gone already; Wait reports nothing we need
		_ = c.Wait()
	}
}
