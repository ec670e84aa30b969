package workspace_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/internal/workspace"
)

// TestGitCarriesTheMark: every git command acprun runs for a workspace
// (to check and make it, for its baseline and its diff, to remove it)
// carries Spec.Mark, or a mark made from it, in its environment: when
// acprun is killed in the middle of one, the run's guard finds it, and
// what it started, by that mark (see package reap).
func TestGitCarriesTheMark(t *testing.T) {
	repo, _, _ := newRepo(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	// A git first on PATH that logs the mark it was given, then runs git.
	bin, log := tempDir(t), filepath.Join(tempDir(t), "log")
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\nprintf '%s %s\\n' \"${"+reap.Var+"-unmarked}\" \"$*\" >>'"+log+"'\nexec '"+real+"' \"$@\"\n", 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(reap.Var, "inherited") // replaced by the Spec's
	mark := reap.New()
	spec := workspace.Spec{Git: repo, Mark: mark}

	must(t, workspace.Check(t.Context(), spec))
	w := create(t, spec, tempDir(t))
	write(t, filepath.Join(w.Dir, "a.txt"), "changed\n", 0o644)
	write(t, filepath.Join(w.Dir, "new.txt"), "new\n", 0o644)
	if _, _, _, err := w.Diff(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	must(t, w.Remove())

	kinds := []string{"rev-parse", "worktree add", "add --all", "write-tree", "add --intent-to-add", "diff", "worktree remove"}
	seen := map[string]bool{}
	for line := range strings.Lines(read(t, log)) {
		got, args, _ := strings.Cut(strings.TrimSpace(line), " ")
		kind := args
		for _, k := range kinds {
			if strings.Contains(args+" ", " "+k+" ") {
				kind, seen[k] = k, true
			}
		}
		if got != string(mark) && !strings.HasPrefix(got, string(mark)+".") {
			t.Errorf("git %s ran with %s=%s; want %s or a mark inside it", kind, reap.Var, got, mark)
		}
	}
	if len(seen) != len(kinds) {
		t.Errorf("the logged git commands were %v; want each of the workspace's kinds:\n%s", seen, read(t, log))
	}
}

// TestGitKilledAtCancel: when ctx ends while a git command runs, the
// command and what it started (a filter, here a sleep) are killed, and
// Create says it was cancelled.
func TestGitKilledAtCancel(t *testing.T) {
	repo, _, _ := newRepo(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	fifo, pids, _ := testkit.FIFO(t)
	bin := tempDir(t)
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\ncase \" $* \" in *\" worktree add \"*) sleep 1000 & echo $! $$ >'"+fifo+"'; wait;; esac\n"+
		"exec '"+real+"' \"$@\"\n", 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	parent := tempDir(t)
	done := make(chan error, 1)
	go func() {
		w, err := workspace.Create(ctx, workspace.Spec{Git: repo, Mark: reap.New()}, parent, "x")
		if err == nil {
			w.Remove()
		}
		done <- err
	}()
	var sleep, shell int
	if _, err := fmt.Sscan(pids(), &sleep, &shell); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(sleep, syscall.SIGKILL) })
	watch := testkit.Watch(t, sleep)
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "git worktree: context canceled") {
		t.Errorf("Create cancelled during git worktree add = %v; want git worktree: context canceled", err)
	}
	if !testkit.Dying(shell) {
		t.Errorf("git (%d) still runs after the cancel", shell)
	}
	if !watch() {
		t.Errorf("what git started (%d: %s) still runs after the cancel", sleep, testkit.Cmdline(sleep))
	}
}
