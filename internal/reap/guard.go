package reap

import "os"

// GuardVar, in the environment of a process of a binary that imports this
// package, makes it the guard of the run whose mark it holds (on Linux;
// see StartGuard).
const GuardVar = "ACPRUN_GUARD"

// Guard is the process that kills what a run left running, and removes
// its private directories, once acprun has exited, however it exited: a
// SIGKILL, the OOM killer or a CI job's timeout leave acprun no chance to
// do it itself (see StartGuard). A nil Guard guards nothing.
type Guard struct {
	w      *os.File      // the write end of the guard's stdin, acprun's only
	exited chan struct{} // closed once the guard has exited
}

// Remove has the guard remove directory dir, with what it holds, when it
// ends: a private directory of the run that acprun removes itself unless
// it is killed first.
func (g *Guard) Remove(dir string) {
	if g == nil {
		return
	}
	_, _ = g.w.WriteString(dir + "\x00") // a guard gone already can do nothing with it
}

// Close tells the guard that the run has ended: it kills what still
// carries the run's mark, removes the directories it was given, and
// exits. Close does not wait for it.
func (g *Guard) Close() error {
	if g == nil {
		return nil
	}
	return g.w.Close()
}
