package e2e_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/workspace"
)

// TestWorkspaceGitRefPinnedPerRun: an agent that commits on the branch
// its git workspace's ref names moves that branch in the source
// repository (a worktree shares its refs). Every attempt of the run,
// one after another or side by side, still starts at the commit the ref
// named when the run started, and each warns that the branch moved.
func TestWorkspaceGitRefPinnedPerRun(t *testing.T) {
	t.Parallel()
	underRace(t)
	needGit(t)
	for _, tc := range []struct {
		name, jobs, spawn string
	}{
		{"in turn", "1", "git checkout -q feature && echo x >> tracked.txt && git -c user.email=a@b -c user.name=a commit -qam agent"},
		// Side by side, two update-refs of feature at once may find it
		// locked: each attempt also makes a branch of its own, a change
		// of the refs it sees whenever it runs.
		{"side by side", "3", "echo x >> tracked.txt && git -c user.email=a@b -c user.name=a commit -qam agent && { git update-ref refs/heads/feature HEAD; git branch agent-$$; }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			repo := filepath.Join(dir, "repo")
			first, _ := makeRepo(t, repo)
			gitIn(t, repo, "branch", "feature", first)
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": "turns:\n  - steps:\n      - spawn: \"" + tc.spawn + "\"\n      - text: done\n",
				"s.yaml": `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: repo, ref: feature}
permissions: {default: deny}
turns: [{prompt: go}]
`,
			})
			res, out := runResults(t, dir, "s.yaml", "--repeat", "3", "-j", tc.jobs, "--workspace-dir", "ws")
			if res.code != 0 || len(out.Scenarios) != 3 {
				t.Fatalf("exit %d, %d results; want 0, 3\n%s", res.code, len(out.Scenarios), res.stderr)
			}
			for _, sc := range out.Scenarios {
				ws := workspaceOf(t, sc)
				// The agent that checks out feature itself gets what the
				// attempts before it committed there; the others do not.
				if ws.Commit != first || !slices.Equal(ws.Modified, []string{"tracked.txt"}) || tc.jobs != "1" && strings.Count(ws.Diff, "+x\n") != 1 {
					t.Errorf("attempt %d: commit %s, modified %q, diff:\n%s\nwant %s, tracked.txt with one line added", sc.Attempt, ws.Commit, ws.Modified, ws.Diff, first)
				}
				want := "workspace: refs of the source repository changed while the agent ran: "
				ref := "refs/heads/feature"
				if tc.jobs != "1" {
					ref = "refs/heads/agent-"
				}
				if !slices.ContainsFunc(sc.Warnings, func(w string) bool { return strings.HasPrefix(w, want) && strings.Contains(w, ref) }) {
					t.Errorf("attempt %d: warnings %q; want one beginning %q, naming %s", sc.Attempt, sc.Warnings, want, ref)
				}
				// Side by side, the change may be another attempt's: the
				// warning says so, and only then.
				const others = "an attempt running at the same time on the same repository may have made it"
				if beside := slices.ContainsFunc(sc.Warnings, func(w string) bool { return strings.Contains(w, others) }); beside != (tc.jobs != "1") {
					t.Errorf("attempt %d with -j %s: warnings %q; want %q in them only with -j above 1", sc.Attempt, tc.jobs, sc.Warnings, others)
				}
			}
			if !strings.Contains(res.stderr, "refs of the source repository changed while the agent ran") {
				t.Errorf("the summary does not say that the refs changed:\n%s", res.stderr)
			}
		})
	}
}

// TestWorkspaceCopyLinksLeadIntoTheCopy: a directory copied for each
// attempt that is a linked worktree, with an absolute link into itself.
// The copy's link leads into the copy: what the agent writes through it
// changes the copy (and is listed), never the source. The .git file,
// which names the main repository's git directory, is warned about by
// validate and run, and so is a link to outside the directory.
func TestWorkspaceCopyLinksLeadIntoTheCopy(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	main, wt := filepath.Join(dir, "main"), filepath.Join(dir, "wt")
	makeRepo(t, main)
	gitIn(t, main, "worktree", "add", "-q", "-b", "wt", wt)
	writeFiles(t, dir, map[string]string{
		"outside.txt": "mine\n",
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: "echo via-link >> link.txt && echo via-dir >> dirlink/other.txt"
      - text: done
`,
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: wt}
permissions: {default: deny}
turns: [{prompt: go}]
`,
	})
	for link, target := range map[string]string{"link.txt": filepath.Join(wt, "tracked.txt"), "dirlink": wt, "out.txt": "../outside.txt"} {
		if err := os.Symlink(target, filepath.Join(wt, link)); err != nil {
			t.Fatal(err)
		}
	}
	gitNote := "s.yaml:3:19: warning: workspace " + wt + ": its .git file names the git directory " + filepath.Join(main, ".git", "worktrees", "wt") + ": "
	linkNote := "s.yaml:3:19: warning: workspace " + wt + ": the symbolic link out.txt (to " + filepath.Join(dir, "outside.txt") + ") leads outside it"
	v := acprun(t, dir, "validate", "s.yaml")
	if v.code != 0 || !strings.Contains(v.stderr, gitNote) || !strings.Contains(v.stderr, linkNote) {
		t.Errorf("validate: exit %d, stderr:\n%s\nwant 0, warnings beginning %q and %q", v.code, v.stderr, gitNote, linkNote)
	}
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != 0 {
		t.Fatalf("exit %d; want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	ws := workspaceOf(t, sc)
	if !slices.Equal(ws.Modified, []string{"other.txt", "tracked.txt"}) || len(ws.Created)+len(ws.Deleted) != 0 {
		t.Errorf("created %q, modified %q, deleted %q; want other.txt and tracked.txt modified", ws.Created, ws.Modified, ws.Deleted)
	}
	for name, want := range map[string]string{"tracked.txt": "second version\n", "other.txt": "same in both\n"} {
		if got := readFiles(t, wt, name)[name]; string(got) != want {
			t.Errorf("the source's %s = %q; want it untouched, %q", name, got, want)
		}
	}
	for _, note := range []string{gitNote, linkNote} {
		want := strings.Replace(note, "warning: ", "", 1)
		if !slices.ContainsFunc(sc.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
			t.Errorf("results' warnings %q; want one beginning %q", sc.Warnings, want)
		}
	}
}

// TestWorkspaceSourceWalkedByValidateOnly: loading scenarios does not
// walk the directories their workspaces copy: list and run --dry-run
// walk none, however many scenarios copy one. validate walks each once
// (the walks are counted through workspace.EnvTestWalks) and warns at
// every scenario that copies it; a run finds what it warns about while
// it copies, and says it in the attempt's results.
func TestWorkspaceSourceWalkedByValidateOnly(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	files := map[string]string{
		"outside.txt":     "mine\n",
		"src/a.txt":       "a\n",
		"agent.mock.yaml": "turns:\n  - steps:\n      - text: done\n",
	}
	for _, name := range []string{"s1", "s2", "s3"} {
		files[name+".yaml"] = "name: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nworkspace: {from: src}\npermissions: {default: deny}\nturns: [{prompt: go}]\n"
	}
	writeFiles(t, dir, files)
	if err := os.Symlink("../outside.txt", filepath.Join(dir, "src", "out.txt")); err != nil {
		t.Fatal(err)
	}
	walks := filepath.Join(dir, "walks")
	env := []string{workspace.EnvTestWalks + "=" + walks}
	walked := func() []string {
		data, err := os.ReadFile(walks)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return strings.Fields(string(data))
	}
	src := filepath.Join(dir, "src")
	note := ": workspace " + src + ": the symbolic link out.txt (to " + filepath.Join(dir, "outside.txt") + ") leads outside it"
	for _, args := range [][]string{{"list", "."}, {"list", "s1.yaml"}, {"run", "--dry-run", "."}} {
		res := acprunEnv(t, dir, env, args...)
		if res.code != 0 || strings.Contains(res.stderr, note) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant 0, no warning about the link", args, res.code, res.stderr)
		}
		if got := walked(); len(got) != 0 {
			t.Errorf("%q walked %q; want nothing walked", args, got)
		}
	}
	v := acprunEnv(t, dir, env, "validate", ".")
	for _, name := range []string{"s1", "s2", "s3"} {
		if want := name + ".yaml:3:19: warning" + note; v.code != 0 || !strings.Contains(v.stderr, want) {
			t.Errorf("validate: exit %d, stderr:\n%s\nwant 0, a warning beginning %q", v.code, v.stderr, want)
		}
	}
	if got := walked(); !slices.Equal(got, []string{src}) {
		t.Errorf("validate walked %q; want %s once", got, src)
	}
	res, out := runResults(t, dir, "s2.yaml", "--workspace-dir", "ws")
	if res.code != 0 || len(out.Scenarios) != 1 {
		t.Fatalf("run: exit %d, %d results; want 0, 1\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	if want := "s2.yaml:3:19" + note; !slices.ContainsFunc(out.Scenarios[0].Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("run: results' warnings %q; want one beginning %q", out.Scenarios[0].Warnings, want)
	}
	if got := walked(); len(got) != 1 {
		t.Errorf("run walked %q besides validate's walk; want nothing walked", got[1:])
	}
}
