package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/testkit"
)

// TestAgentDiesWithAcprun: when acprun is killed with SIGKILL mid-turn
// (a CI job's timeout, the OOM killer), which it cannot catch to stop its
// agent, the agent goes with it, although it ignores the end of its input,
// SIGTERM and the cancel, and runs in a process group of its own: without
// a sandbox, inside Landlock alone (acprun's helper execs the agent) and
// inside bubblewrap where the host has it.
func TestAgentDiesWithAcprun(t *testing.T) {
	underRace(t)
	t.Parallel()
	for _, tc := range []struct {
		name, sandbox string
		env           []string
	}{
		{"no sandbox", "", nil},
		{"landlock", "sandbox: {level: best-effort}\n", []string{sandbox.EnvTestNoBwrap + "=1"}},
		{"bubblewrap", "sandbox: {level: best-effort}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			marker := fmt.Sprintf("killed-%d-%s", os.Getpid(), strings.ReplaceAll(tc.name, " ", "-"))
			writeFiles(t, dir, map[string]string{
				"stubborn.mock.yaml": "onCancel: ignore\nignoreSigterm: true\nignoreEOF: true\nturns:\n  - steps: [{text: working}, {hang: true}]\n",
				"s.yaml": "name: k\nagent: {command: [acprun, mock-agent, stubborn.mock.yaml], env: {KILLED_MARKER: " + marker + "}}\n" +
					tc.sandbox + "turnTimeout: 1h\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
			})
			ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
			defer cancel()
			run := startWatchedEnv(t, ctx, dir, tc.env, "run", "s.yaml", "-o", "out.json", "-v")
			run.waitLine("[k] turn 1 started") // the agent runs, and will hang
			pids := testkit.Processes(t, testkit.WithEnv("KILLED_MARKER="+marker))
			if len(pids) == 0 {
				t.Fatal("no process carries the agent's marker")
			}
			for _, pid := range killAcprun(t, run, pids) {
				t.Errorf("process %d (%s) still runs %v after acprun was killed", pid, testkit.Cmdline(pid), testkit.Failsafe)
			}
			testkit.Leftovers(t, testkit.WithEnv("KILLED_MARKER="+marker)) // killed at the test's end
		})
	}
}

// TestCommandsDieWithAcprun: when acprun is killed with SIGKILL while a
// setup command and an agent's terminal run, what their shell lines
// started (sleep, a child of the shell acprun started) goes too, and the
// run's private directory in $TMPDIR is removed: acprun's guard, which
// outlives it, does both.
func TestCommandsDieWithAcprun(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir, tmp := realTempDir(t), realTempDir(t)
	setupFIFO, setupPids, _ := testkit.FIFO(t)
	terminalFIFO, terminalPids, _ := testkit.FIFO(t)
	// Each shell line tells the test its sleep's pid and its own.
	line := func(fifo string) string { return "sleep 1000 & echo $! $$ > " + fifo + "; wait" }
	writeFiles(t, dir, map[string]string{
		"terminal.mock.yaml": "turns:\n  - steps: [{terminal: {command: " + strconv.Quote(line(terminalFIFO)) + ", waitForExit: true}}]\n",
		"setup.yaml": "name: setup\nagent: {command: [acprun, mock-agent, terminal.mock.yaml]}\n" +
			"setup: [" + strconv.Quote(line(setupFIFO)) + "]\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
		"terminal.yaml": "name: terminal\nagent: {command: [acprun, mock-agent, terminal.mock.yaml]}\nclient: {terminal: true}\n" +
			"turnTimeout: 1h\npermissions: {default: allow}\nturns:\n  - prompt: one\n",
	})
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatchedEnv(t, ctx, dir, []string{"TMPDIR=" + tmp}, "run", "setup.yaml", "terminal.yaml", "-j", "2", "-o", "out.json")
	sleeps := map[string]int{}
	var shell int
	for what, read := range map[string]func() string{"the setup command's sleep": setupPids, "the terminal's sleep": terminalPids} {
		var pid int
		if _, err := fmt.Sscan(read(), &pid, &shell); err != nil {
			t.Fatal(err)
		}
		sleeps[what] = pid
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	// The guard's end says it has done its work: wait for it. It guards
	// the mark the shells' marks are made from.
	env, err := testkit.Environ(shell)
	if err != nil {
		t.Fatal(err)
	}
	mark, _, _ := strings.Cut(string(reap.Of(env)), ".")
	guard := testkit.Processes(t, testkit.WithEnv(reap.GuardVar+"="+mark))
	if len(guard) != 1 {
		t.Errorf("%d processes guard the run (%s), want 1", len(guard), mark)
	}
	if len(killAcprun(t, run, guard)) > 0 {
		t.Fatalf("the guard still runs %v after acprun was killed", testkit.Failsafe)
	}
	for what, pid := range sleeps {
		if !testkit.Dying(pid) {
			t.Errorf("%s (%d: %s) still runs after acprun was killed", what, pid, testkit.Cmdline(pid))
		}
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("left in $TMPDIR: %v (%v)", left, err)
	}
}

// TestGitCommandsDieWithAcprun: when acprun is killed with SIGKILL in the
// middle of one of its own git commands (here the workspace's diff, which
// can take long on a big change), what that git started goes too: the
// guard finds it by the scenario's mark, as it finds what setup commands
// and terminals started. The git on PATH is a shell that starts a sleep,
// as git starts a filter, and tells the test their pids.
func TestGitCommandsDieWithAcprun(t *testing.T) {
	underRace(t)
	t.Parallel()
	needGit(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := realTempDir(t)
	makeRepo(t, filepath.Join(dir, "repo"))
	fifo, pids, _ := testkit.FIFO(t)
	writeFiles(t, dir, map[string]string{
		"bin/git":        "#!/bin/sh\ncase \" $* \" in *\" diff \"*) sleep 1000 & echo $! $$ > '" + fifo + "'; wait;; esac\nexec '" + real + "' \"$@\"\n",
		"edit.mock.yaml": "turns:\n  - steps: [{write: {path: tracked.txt, content: \"edited\\n\"}}]\n",
		"s.yaml": "name: g\nagent: {command: [acprun, mock-agent, edit.mock.yaml]}\nworkspace: {git: ./repo}\n" +
			"permissions: {default: allow}\nturns:\n  - prompt: edit\n",
	})
	if err := os.Chmod(filepath.Join(dir, "bin", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	path := "PATH=" + filepath.Join(dir, "bin") + string(os.PathListSeparator) + os.Getenv("PATH")
	run := startWatchedEnv(t, ctx, dir, []string{path}, "run", "s.yaml", "-o", "out.json")
	var sleep, shell int
	if _, err := fmt.Sscan(pids(), &sleep, &shell); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(sleep, syscall.SIGKILL) })
	// The guard's end says it has done its work: wait for it.
	guard := testkit.Processes(t, func(pid int) bool {
		stat, _ := reap.ProcStat(pid)
		env, _ := testkit.Environ(pid)
		return len(stat) > 1 && stat[1] == strconv.Itoa(run.cmd.Process.Pid) &&
			slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, reap.GuardVar+"=") })
	})
	if len(guard) != 1 {
		t.Fatalf("acprun started %d guards, want 1", len(guard))
	}
	if len(killAcprun(t, run, guard)) > 0 {
		t.Fatalf("the guard still runs %v after acprun was killed", testkit.Failsafe)
	}
	if !testkit.Dying(sleep) {
		t.Errorf("what git diff started (%d: %s) still runs after acprun was killed", sleep, testkit.Cmdline(sleep))
	}
}

// killAcprun kills acprun with SIGKILL, as a CI job's timeout does, and
// returns those of pids (watched from before the kill) that have not
// exited within testkit.Failsafe of it.
func killAcprun(t *testing.T, run *watchedRun, pids []int) (running []int) {
	t.Helper()
	var waits []func() bool
	for _, pid := range pids {
		waits = append(waits, testkit.Watch(t, pid))
	}
	if err := run.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	run.cmd.Wait()
	for i, exited := range waits {
		if !exited() {
			running = append(running, pids[i])
		}
	}
	return running
}

// TestNestedRunMarkedInsideTheOuter: an acprun started by another
// acprun (as its agent, or a command), whose environment holds the outer
// scenario's mark, marks what it starts inside that mark: the outer run's
// end, or its guard, kills them too.
func TestNestedRunMarkedInsideTheOuter(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"hi.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml": `name: nested
agent: {command: [acprun, mock-agent, hi.mock.yaml]}
permissions: {default: deny}
verify:
  - run: 'echo "$` + reap.Var + `"'
    expect: {stdout: {matches: '\Aouter1234\.'}}
turns: [{prompt: hi}]
`,
	})
	if r := acprunEnv(t, dir, []string{reap.Var + "=outer1234"}, "run", "s.yaml", "-q", "-o", "r.json"); r.code != 0 {
		t.Errorf("a run inside the mark outer1234: exit %d; want its commands marked inside it\n%s", r.code, r.stderr)
	}
}
