package reap

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// daemon starts `sleep 1000` with env marked m, detached as a daemon
// is: double-forked (its parent shell has exited) and in a session of
// its own. It returns the sleep's pid; the test's end kills it.
func daemon(t *testing.T, m Mark, command string) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "setsid "+command+" </dev/null >/dev/null 2>&1 & echo $!")
	cmd.Env = m.Set(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("start daemon: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("daemon pid %q: %v", out, err)
	}
	t.Cleanup(func() { m.Kill() })
	execDone(t, pid, strings.Fields(command)[0])
	return pid
}

// execDone waits until process pid runs program (its exec is done): a
// scan that meets a process in the middle of an exec cannot read its
// environment yet, and a slow machine may take its time over the exec.
func execDone(t *testing.T, pid int, program string) {
	t.Helper()
	for {
		if dying(pid) {
			t.Fatalf("process %d is not running", pid)
		}
		// Before its exec, the process is a copy of daemon's shell:
		// /bin/sh -c setsid ….
		args := strings.Split(cmdline(pid), " ")
		if filepath.Base(args[0]) == filepath.Base(program) && (len(args) < 3 || args[2] != "setsid") {
			return
		}
		time.Sleep(time.Millisecond) // polling the exec, bounded by the test's deadline
	}
}

func TestKillFindsDaemonsOutsideEveryGroup(t *testing.T) {
	m := New()
	pid := daemon(t, m, "sleep 1000")
	sub := daemon(t, m.Sub(), "sleep 1000")
	other := daemon(t, New(), "sleep 1000")

	killed := m.Kill()
	var got []int
	for _, p := range killed {
		got = append(got, p.Pid)
	}
	for _, want := range []int{pid, sub} {
		if !slices.Contains(got, want) {
			t.Errorf("Kill = %v, want %d among them", killed, want)
		}
		if !dying(want) {
			t.Errorf("process %d still runs after Kill", want)
		}
	}
	if slices.Contains(got, other) || dying(other) {
		t.Errorf("Kill killed %d, which carries another mark", other)
	}
}

func TestSubKillLeavesItsParentsProcesses(t *testing.T) {
	m := New()
	s := m.Sub()
	parent := daemon(t, m, "sleep 1000")
	child := daemon(t, s, "sleep 1000")
	s.Kill()
	if !dying(child) {
		t.Errorf("process %d of the sub mark still runs", child)
	}
	if dying(parent) {
		t.Errorf("the sub mark's Kill killed %d, of its parent mark", parent)
	}
}

// TestKillCatchesAForkLoop: a daemon forking new daemons as fast as it
// can is gone with all its children when Kill returns.
func TestKillCatchesAForkLoop(t *testing.T) {
	m := New()
	daemon(t, m, `/bin/sh -c 'while :; do setsid sleep 1000 & done'`)
	if len(m.Kill()) == 0 {
		t.Fatal("Kill found nothing")
	}
	if live := alive(t, m); len(live) > 0 {
		t.Errorf("left running after Kill: %v", live)
	}
}

// alive lists the processes whose environment holds exactly Var=m and
// that are not dying, read apart from Kill's own scan.
func alive(t *testing.T, m Mark) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), Var+"="+string(m)) || dying(pid) {
			continue
		}
		live = append(live, e.Name()+" ("+cmdline(pid)+")")
	}
	return live
}

// TestScanAllAnswersInTheOrderOfItsList: however the scan shares its list
// among goroutines, what it did with each process is at that process's
// place in the list.
func TestScanAllAnswersInTheOrderOfItsList(t *testing.T) {
	m := New()
	first, last := daemon(t, m, "sleep 1000"), daemon(t, m, "sleep 1000")
	other := daemon(t, New(), "sleep 1000")
	list := make([]int, 2*scanWorkers*minScanPart) // a part for every goroutine
	for i := range list {
		list[i] = other
	}
	list[0], list[len(list)-1] = first, last
	got := m.scanAll(list, 0)
	for i, f := range got {
		want := verdict(miss)
		if i == 0 || i == len(list)-1 {
			want = hit
		}
		if f.verdict != want || (want == hit && f.p.Pid != list[i]) {
			t.Errorf("scanAll: place %d (pid %d) = %+v, want verdict %d", i, list[i], f, want)
		}
	}
	if !dying(first) || !dying(last) || dying(other) {
		t.Errorf("after scanAll: marked %d, %d dying: %v, %v; other %d dying: %v", first, last, dying(first), dying(last), other, dying(other))
	}
}

// TestKillOutsideLeavesTheGroup: KillOutside kills the marked process that
// left the group and leaves the marked member of the group alone.
func TestKillOutsideLeavesTheGroup(t *testing.T) {
	m := New()
	member := exec.Command("sleep", "1000")
	member.Env = m.Set(os.Environ())
	member.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := member.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = member.Process.Kill()
		_ = member.Wait()
	})
	// The daemon opens the FIFO once its exec is done: KillOutside finds
	// it then (a process in the middle of an exec may escape a scan).
	fifo := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	left := daemon(t, m, "sh -c 'read x < "+fifo+"'")
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the daemon opened it
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	killed := m.KillOutside(member.Process.Pid)
	if len(killed) != 1 || killed[0].Pid != left {
		t.Errorf("KillOutside = %v; want only %d, which left the group", killed, left)
	}
	if !dying(left) {
		t.Errorf("process %d, outside the group, still runs", left)
	}
	if dying(member.Process.Pid) {
		t.Errorf("KillOutside killed %d, a member of the group", member.Process.Pid)
	}
}

// TestKillLeavesProcessesWithoutEnvironment: a process with no
// environment at all (its arguments read, its environment empty, as at the
// end of an exec) is looked at again for a moment, then taken for what it
// is: not marked, left alone, while the marked daemon beside it is killed.
func TestKillLeavesProcessesWithoutEnvironment(t *testing.T) {
	m := New()
	pid := daemon(t, m, "sleep 1000")
	bare := exec.Command("/bin/sleep", "1000")
	bare.Env = []string{}
	if err := bare.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bare.Process.Kill(); bare.Wait() })
	execDone(t, bare.Process.Pid, "/bin/sleep")
	m.Kill()
	if !dying(pid) {
		t.Errorf("the marked daemon %d still runs after Kill", pid)
	}
	if dying(bare.Process.Pid) {
		t.Errorf("Kill killed %d, which has no environment", bare.Process.Pid)
	}
}
