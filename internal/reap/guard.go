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

// Remove has the guard remove path, a file or a directory with what it
// holds, when it ends: a private file or directory of the run that
// acprun removes itself unless it is killed first.
func (g *Guard) Remove(path string) { g.send(opRemove, path) }

// Forget undoes a Remove of path: the guard no longer removes it, nor
// holds its name. acprun calls it once path is gone (a temporary file
// renamed into place, or removed), so that the guard holds only what is
// still to remove, however many files a long run writes.
func (g *Guard) Forget(path string) { g.send(opForget, path) }

// The operations of the guard's records (see record).
const (
	opRemove = '+'
	opForget = '-'
)

// record is what the guard reads for op on path: op, then path, then a
// NUL (no path holds one).
func record(op byte, path string) string { return string(op) + path + "\x00" }

// send writes the record of op on path to the guard, in one write: the
// records of concurrent calls do not mix.
func (g *Guard) send(op byte, path string) {
	if g == nil {
		return
	}
	_, _ = g.w.WriteString(record(op, path)) // a guard gone already can do nothing with it
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
