package scenario_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/scenario"
)

// TestWorkspaceCopyPointersWarn: a directory to copy that holds a .git
// file naming a git directory by its absolute path (a linked worktree),
// or symbolic links that lead outside it, is warned about at the
// workspace's source (PointerWarnings), once for the links (the first
// three named); links into it are not. Loading the scenario does not
// walk the directory, and warns about none of it.
func TestWorkspaceCopyPointersWarn(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wt, plain := filepath.Join(dir, "wt"), filepath.Join(dir, "plain")
	for _, d := range []string{wt, plain, filepath.Join(dir, "out")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: /main/.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"wt/in": filepath.Join(wt, "a.txt"), "wt/l1": "../out/1", "wt/l2": filepath.Join(dir, "out", "2"),
		"wt/l3": "/etc/hosts", "wt/l4": "/etc/passwd", "plain/in": filepath.Join(plain, "x"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "s.yaml")
	gitNote := file + ":4:19: workspace " + wt + ": its .git file names the git directory /main/.git/worktrees/wt: git in each attempt's copy " +
		"works on that repository (its index, branches and refs, and the work tree it names), not on a copy, and what the agent commits there is not among the attempt's changes; " +
		"give workspace: {git: " + wt + "} for a checkout of its own"
	linkNote := file + ":4:19: workspace " + wt + ": the symbolic links l1 (to " + filepath.Join(dir, "out", "1") + "), l2 (to " + filepath.Join(dir, "out", "2") +
		"), l3 (to /etc/hosts) and 1 more lead outside it, and so do their copies: what the agent writes through them lands there, not in the attempt's copy, " +
		"and is not among its changes (links into the directory lead into the copy)"
	for _, tt := range []struct {
		ws   string
		want []string
	}{
		{"{from: wt}", []string{gitNote, linkNote}},
		{"{from: plain}", nil},
	} {
		src := "name: x\nagent: {command: [a]}\npermissions: {}\nworkspace: " + tt.ws + "\nturns: [{prompt: hi}]\n"
		scs, warns, err := scenario.LoadBytes(file, []byte(src), opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(warns) != 0 {
			t.Errorf("workspace: %s: LoadBytes warned %q; want no warning: loading walks no directory", tt.ws, warns)
		}
		w := scs[0].Workspace
		found, err := workspace.Pointers(t.Context(), w.From)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range w.PointerWarnings(found) {
			got = append(got, w.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("workspace: %s: warnings (-want +got):\n%s", tt.ws, diff)
		}
	}
}
