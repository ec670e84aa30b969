package runner

import "github.com/acprun/acprun/internal/reap"

// Guard is the guard of a run's or a probe's processes (see
// reap.StartGuard): once acprun has exited, however it exited, it kills
// what carries its mark and removes the files and directories given to
// Remove. Run and Probe start one of their own when Options.Guard or
// ProbeOptions.Guard is nil.
type Guard struct {
	mark  reap.Mark   // what the processes it guards carry
	guard *reap.Guard // nil off Linux, or when it could not start
}

// StartGuard starts the guard of the processes that a run or probe with
// the acprun executable self and the environment environ starts (as their
// Options say; defaults when ""/nil). Their mark is made inside the one
// environ carries, when another acprun started this one: the outer run's
// end kills them too. Without a guard (off Linux, or when it could not
// start), a killed acprun leaves their children running.
func StartGuard(self string, environ []string) *Guard {
	self, environ = processDefaults(self, environ)
	m := reap.Of(environ).Sub()
	// Self, not this executable: the same acprun, but for the tests' race
	// builds, which run their agents and their guards on a plain build.
	g, _ := reap.StartGuard(self, m)
	return &Guard{mark: m, guard: g}
}

// Remove has the guard remove path, a file or a directory with what it
// holds, when it ends: a private file of the run that acprun removes or
// renames itself unless it is killed first.
func (g *Guard) Remove(path string) { g.guard.Remove(path) }

// Forget undoes a Remove of path, once acprun has removed or renamed it
// itself: the guard then holds only what is still to remove.
func (g *Guard) Forget(path string) { g.guard.Forget(path) }

// Close tells the guard that the run has ended: it kills what still
// carries the mark, removes what it was given, and exits.
func (g *Guard) Close() error { return g.guard.Close() }

// guardOf returns g, or a new guard that the caller closes (close does,
// and is a no-op for g), with self and environ as StartGuard takes them.
func guardOf(g *Guard, self string, environ []string) (guard *Guard, close func()) {
	if g != nil {
		return g, func() {}
	}
	g = StartGuard(self, environ)
	return g, func() { g.Close() }
}
