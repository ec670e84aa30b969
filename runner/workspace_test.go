package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestWorkspaceErrorAt: a workspace that a run cannot make is an error
// at the value it is about, and CheckWorkspace (validate --strict) says
// the same without making anything: at git for a directory that is not
// a repository, or a repository without commits when no ref is given; at
// ref for a ref that names no commit.
func TestWorkspaceErrorAt(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	repo, plain, empty := filepath.Join(base, "repo"), filepath.Join(base, "plain"), filepath.Join(base, "empty")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "--quiet", repo}, {"init", "--quiet", empty},
		{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "first"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	doc := func(name, ws string) string {
		return fmt.Sprintf("name: %s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {}\nturns: [{prompt: hi}]\nworkspace:\n%s", name, ws)
	}
	src := doc("not-a-repo", fmt.Sprintf("  git: %q\n", plain)) +
		"---\n" + doc("bad-ref", fmt.Sprintf("  git: %q\n  ref: no-such-branch\n", repo)) +
		"---\n" + doc("no-commits", fmt.Sprintf("  git: %q\n", empty)) +
		"---\n" + doc("good", fmt.Sprintf("  git: %q\n  ref: HEAD\n", repo))
	want := map[string]string{
		"not-a-repo": ":6:8: workspace: git " + plain + ": not a git repository",
		"bad-ref":    ":14:8: workspace: ref no-such-branch: unknown revision in ",
		"no-commits": ":21:8: workspace: ref HEAD: unknown revision in ",
	}

	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		got := ""
		if e := CheckWorkspace(t.Context(), sc.Workspace); e != nil {
			got = e.Error()
		}
		if w := want[sc.Name]; w == "" && got != "" || w != "" && !strings.HasPrefix(got, "s.yaml"+w) {
			t.Errorf("%s: CheckWorkspace = %q; want it to begin %q", sc.Name, got, "s.yaml"+w)
		}
	}

	rep := runScenarios(t, Options{}, src, map[string]string{"a.mock.yaml": "turns:\n  - steps: [{text: hi}]\n"})
	for _, r := range rep.Scenarios {
		w := want[r.Name]
		switch {
		case w == "" && r.Status != report.StatusPassed:
			t.Errorf("%s: %s (%q), want passed", r.Name, r.Status, r.Error)
		case w != "" && (r.Status != report.StatusError || !strings.HasPrefix(r.Error, r.File+w)):
			t.Errorf("%s: %s %q, want an error beginning %q", r.Name, r.Status, r.Error, r.File+w)
		}
	}
}

// TestWorkspaceDirErrorIsNotTheScenarios: a workspace that cannot be
// made where workspaces go (a directory that cannot be written, a full
// disk) errors its attempt, which a retry may mend, but is not put at the
// scenario's workspace key as if the scenario were wrong: the error names
// the directory and says what to do.
func TestWorkspaceDirErrorIsNotTheScenarios(t *testing.T) {
	t.Parallel()
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.ReadOnlyDir(t, ro)
	src := t.TempDir()
	doc := fmt.Sprintf("name: w\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {}\nturns: [{prompt: hi}]\nworkspace: {from: %q}\n", src)
	rep := runScenarios(t, Options{WorkspaceDir: ro}, doc, map[string]string{"a.mock.yaml": "turns:\n  - steps: [{text: hi}]\n"})
	r := rep.Scenarios[0]
	want := "workspace: mkdir " + filepath.Join(ro, "acprun-workspaces-") // then the uid
	tail := "; acprun could not make the attempt's workspace in " + ro + ", where workspaces go: make it writable (or free space there), or give another directory (--workspace-dir, or TMPDIR)"
	if r.Status != report.StatusError || !strings.HasPrefix(r.Error, want) || !strings.HasSuffix(r.Error, tail) {
		t.Errorf("%s %q; want an error beginning %q, ending %q", r.Status, r.Error, want, tail)
	}
}

// TestTempUses: what a run makes in the system's temporary directory,
// and whether --workspace-dir would take it elsewhere.
func TestTempUses(t *testing.T) {
	t.Parallel()
	ws := &scenario.Scenario{Name: "ws", Workspace: &scenario.Workspace{From: "/src"}}
	sb := &scenario.Scenario{Name: "sb", Sandbox: &scenario.Sandbox{}}
	reuse := &scenario.Scenario{Name: "reuse", Agent: scenario.Agent{Reuse: true}}
	gw := &scenario.Scenario{Name: "gw", Gateway: &scenario.Gateway{Mode: "meter", Targets: []scenario.GatewayTarget{{}}}}
	plain := &scenario.Scenario{Name: "plain"}
	for _, c := range []struct {
		name    string
		opts    Options
		scs     []*scenario.Scenario
		uses    []string
		movable bool
	}{
		{"nothing", Options{}, []*scenario.Scenario{plain}, nil, true},
		{"workspace", Options{}, []*scenario.Scenario{plain, ws}, []string{`the workspaces (scenario "ws")`}, true},
		{"workspace elsewhere", Options{WorkspaceDir: "/w"}, []*scenario.Scenario{ws, sb, reuse}, nil, true},
		{"sandbox", Options{}, []*scenario.Scenario{sb}, []string{`the sandboxes' temporary directories (scenario "sb")`}, true},
		{"reuse", Options{ReuseAgents: true}, []*scenario.Scenario{plain}, []string{`the reused agent processes' directory (scenario "plain")`}, true},
		{"gateway", Options{WorkspaceDir: "/w"}, []*scenario.Scenario{ws, gw}, []string{`the model gateway's socket (scenario "gw")`}, false},
		{"all", Options{}, []*scenario.Scenario{ws, gw, sb, reuse}, []string{`the workspaces (scenario "ws")`, `the sandboxes' temporary directories (scenario "sb")`, `the reused agent processes' directory (scenario "reuse")`, `the model gateway's socket (scenario "gw")`}, false},
	} {
		uses, movable := TempUses(c.opts, c.scs)
		if !slices.Equal(uses, c.uses) || movable != c.movable {
			t.Errorf("%s: %q, %v; want %q, %v", c.name, uses, movable, c.uses, c.movable)
		}
	}
}

// TestWorkspaceCwdThroughSymlink: an agent.cwd and a client root that
// name a directory of the workspace's source through a symlink are moved
// into the attempt's copy, as when named directly: the agent works and
// writes there, its changes are recorded, and the source is left alone.
func TestWorkspaceCwdThroughSymlink(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "my proj")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("my proj", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"my proj/a.txt": "hi\n",
		"a.mock.yaml": `turns:
  - steps:
      - spawn: "echo shell > shell.txt"
      - write: {path: fs.txt, content: client}
      - text: done
`,
		"s.yaml": `name: link
agent: {command: [acprun, mock-agent, ` + filepath.Join(dir, "a.mock.yaml") + `], cwd: link/sub}
client: {fs: true, roots: [link/sub]}
workspace: {from: "my proj"}
permissions: {default: allow}
turns:
  - prompt: hi
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Self: agentBin(t), WorkspaceDir: t.TempDir(), KeepWorkspaces: true}, scs)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Scenarios[0]
	if r.Status != report.StatusPassed || len(r.Warnings) != 0 {
		t.Errorf("status %s (error %q, failures %q), warnings %q; want passed, no warning", r.Status, r.Error, r.Failures, r.Warnings)
	}
	if r.Workspace == nil {
		t.Fatal("no workspace in the result")
	}
	if d := cmp.Diff([]string{"sub/fs.txt", "sub/shell.txt"}, r.Workspace.Created); d != "" {
		t.Errorf("created (-want +got):\n%s", d)
	}
	for _, name := range []string{"shell.txt", "fs.txt"} {
		if _, err := os.Lstat(filepath.Join(src, "sub", name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the agent wrote %s in the source: %v", name, err)
		}
	}
}

// gitIn runs git in dir, away from the user's and the system's config, and
// returns its output without the final newline.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %q: %v\n%s", args, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// gitRepo makes the directory dir a repository with one commit of all it holds.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "first")
}

// TestDiffStartsAfterSetup: the diff of a git workspace in the results and
// in the judge's prompt starts where created/modified/deleted do, after
// setup: setup's change is not shown as the agent's. The judge passes only
// when it is shown the agent's change and not setup's.
func TestDiffStartsAfterSetup(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"repo/a.txt": "one\n",
		"repo/b.txt": "bee\n",
		"s.yaml": `name: setup-diff
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
workspace: {git: repo}
setup: ["echo setup-change >> a.txt"]
turns:
  - prompt: change b.txt
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: only b.txt changed}
`,
		"a.mock.yaml": `turns:
  - steps:
      - writeFile: {path: b.txt, content: "agent-change\n"}
      - text: done
`,
		"judge.mock.yaml": `turns:
  - match: setup-change
    steps: [{text: "FAIL: shown setup's change"}]
  - match: agent-change
    steps: [{text: PASS}]
  - steps: [{text: "FAIL: not shown the agent's change"}]
`,
	})
	gitRepo(t, filepath.Join(dir, "repo"))
	r := runDir(t, dir, Options{}).Scenarios[0]
	if r.Status != report.StatusPassed || r.Judge == nil || r.Judge.Text != "PASS" {
		t.Errorf("status %s, judge %+v (error %q, failures %q); want passed, the judge shown the agent's change only", r.Status, r.Judge, r.Error, r.Failures)
	}
	ws := r.Workspace
	if !slices.Equal(ws.Modified, []string{"b.txt"}) || !strings.Contains(ws.Diff, "+agent-change\n") || strings.Contains(ws.Diff, "setup-change") {
		t.Errorf("workspace modified %q, diff:\n%s\nwant b.txt, the agent's change only", ws.Modified, ws.Diff)
	}
}

// TestRepoConfigChangeIsWarned: an agent that runs `git config` in its
// worktree changes the source repository's config; the attempt warns,
// naming the file, and leaves the config as the agent made it.
func TestRepoConfigChangeIsWarned(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"repo/a.txt": "one\n",
		"s.yaml": `name: repo-config
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
workspace: {git: repo}
turns:
  - prompt: hi
`,
		"a.mock.yaml": `turns:
  - steps:
      - spawn: git config filter.x.clean false
      - text: done
`,
	})
	repo := filepath.Join(dir, "repo")
	gitRepo(t, repo)
	r := runDir(t, dir, Options{}).Scenarios[0]
	want := "workspace: git files of the source repository changed while the agent ran: modified " + filepath.Join(repo, ".git", "config") + "; "
	if r.Status != report.StatusPassed || !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("status %s, warnings %q (error %q); want passed, a warning starting %q", r.Status, r.Warnings, r.Error, want)
	}
	if got := gitIn(t, repo, "config", "filter.x.clean"); got != "false" {
		t.Errorf("the repository's filter.x.clean = %q; want it left as the agent set it", got)
	}
}

// TestDiffCutKeepsNoSecret: a secret that the cut of a long diff goes
// through leaves no part of itself in the results or the judge's prompt.
func TestDiffCutKeepsNoSecret(t *testing.T) {
	t.Parallel()
	const secret = "supersecretvalue123"
	repo := filepath.Join(writeTree(t, map[string]string{"repo/a.txt": "one\n"}), "repo")
	gitRepo(t, repo)
	ws, err := workspace.Create(t.Context(), workspace.Spec{Git: repo}, t.TempDir(), "cut")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	// The secret's first 8 bytes are the last ones of the diff kept.
	head := "diff --git a/x.txt b/x.txt\nnew file mode 100644\nindex 0000000..1234567\n--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1 @@\n+"
	text := strings.Repeat("A", diffLimit-len(head)-8) + secret + strings.Repeat("B", 1000) + "\n"
	if err := os.WriteFile(filepath.Join(ws.Dir, "x.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &scenarioRun{ws: ws, red: redact.New(secret)}
	var w report.WorkspaceResult
	if err := r.changes(t.Context(), &w); err != nil {
		t.Fatal(err)
	}
	if !w.DiffTruncated || !strings.HasSuffix(w.Diff, "AAA"+redact.Marker) {
		t.Errorf("diff truncated %v, ends %q; want it cut, the secret's start redacted", w.DiffTruncated, w.Diff[max(0, len(w.Diff)-40):])
	}
	summary := r.changeSummary(t.Context())
	for what, s := range map[string]string{"diff": w.Diff, "judge's summary": summary} {
		if strings.Contains(s, secret[:4]) {
			t.Errorf("the %s leaks the secret's start: …%s", what, s[strings.Index(s, secret[:4])-10:][:30])
		}
	}
}

// TestChangeSummaryNamesWhatTheDiffHides: the judge is told of every change
// the lists have, whether or not another file's diff is there: the paths
// the diff does not show (a file git ignores, a change of mode other than
// +x, of line endings git normalises, inside an embedded repository) are
// named after it.
func TestChangeSummaryNamesWhatTheDiffHides(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"repo/.gitignore":     "dist/\n",
		"repo/.gitattributes": "crlf.txt text\n",
		"repo/a.txt":          "a\n",
		"repo/mode.txt":       "m\n",
		"repo/crlf.txt":       "c\n",
	})
	repo := filepath.Join(dir, "repo")
	gitRepo(t, repo)
	ws, err := workspace.Create(t.Context(), workspace.Spec{Git: repo}, t.TempDir(), "hides")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	r := &scenarioRun{ws: ws, red: redact.New()}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(ws.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("dist/index.html", "<html>\n")
	if got, want := r.changeSummary(t.Context()), "created: dist/index.html\n"; got != want {
		t.Errorf("with the ignored file alone, the summary is %q; want %q", got, want)
	}

	write("a.txt", "a\nb\n")
	write("crlf.txt", "c\r\n")
	if err := os.Chmod(filepath.Join(ws.Dir, "mode.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	write("inner/f.txt", "f\n")
	gitRepo(t, filepath.Join(ws.Dir, "inner"))
	got := r.changeSummary(t.Context())
	diff, tail, ok := strings.Cut(got, "\n\nThe diff above does not show these changes:\n")
	if !ok || !strings.Contains(diff, "+++ b/a.txt\n") || !strings.Contains(diff, "+Subproject commit ") {
		t.Fatalf("summary = %q; want the diff (a.txt's change, inner's commit), then the changes it does not show", got)
	}
	created, modified, _ := strings.Cut(tail, "\n")
	if !strings.HasPrefix(created, "created: dist/index.html, inner/") || !strings.Contains(created, ", inner/f.txt") {
		t.Errorf("summary's created line = %q; want dist/index.html and inner's files", created)
	}
	if modified != "modified: crlf.txt, mode.txt\n" {
		t.Errorf("summary's modified line = %q; want crlf.txt and mode.txt, not a.txt", modified)
	}
}

// TestProtectDecidesOnTheLists: workspace.protect judges the lists of
// changes: a diff that could not be taken (the lists known) makes no
// attempt invalid unless a protected file is listed; lists that could not
// be taken (null) do.
func TestProtectDecidesOnTheLists(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{"tests/t.sh": "t\n", "a.txt": "a\n"})
	ws, err := workspace.Create(t.Context(), workspace.Spec{From: dir}, t.TempDir(), "protect")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	const diffErr = "workspace: diff /w: git diff: error: open(\"x\"): Input/output error"
	for _, tt := range []struct {
		name string
		w    report.WorkspaceResult
		want string // the invalid message; "" for valid
	}{
		{"diff failed, nothing protected changed", report.WorkspaceResult{Created: []string{"key.pem"}, Modified: []string{"a.txt"}, Deleted: []string{}, Error: diffErr}, ""},
		{"diff failed, a protected file changed", report.WorkspaceResult{Created: []string{}, Modified: []string{"tests/t.sh"}, Deleted: []string{}, Error: diffErr},
			"s.yaml:3:40: workspace.protect: the agent changed 1 protected file: modified tests/t.sh; verify was not run"},
		{"lists unknown", report.WorkspaceResult{Error: "workspace: snapshot /w: stopped"},
			"s.yaml:3:40: workspace.protect: the protected files could not be compared (workspace: snapshot /w: stopped); verify was not run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &scenarioRun{ws: ws, res: &report.Result{Workspace: &tt.w}, sc: &scenario.Scenario{Workspace: &scenario.Workspace{
				From: dir, Protect: []scenario.Located{{Value: "tests/**"}}, ProtectPos: scenario.Pos{File: "s.yaml", Line: 3, Col: 40},
			}}}
			r.checkProtected()
			got := ""
			if r.invalid != nil {
				got = r.invalid.Message
			}
			if got != tt.want {
				t.Errorf("invalid: %q; want %q", got, tt.want)
			}
		})
	}
}

// TestChangeSummaryWithoutDiff: when the diff of a git workspace cannot be
// taken but the changes are listed, the judge is told why and given the
// lists, rather than nothing.
func TestChangeSummaryWithoutDiff(t *testing.T) {
	t.Parallel()
	repo := filepath.Join(writeTree(t, map[string]string{"repo/a.txt": "a\n"}), "repo")
	gitRepo(t, repo)
	ws, err := workspace.Create(t.Context(), workspace.Spec{Git: repo}, t.TempDir(), "nodiff")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	if err := os.WriteFile(filepath.Join(ws.Dir, "a.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// acprun's own git directory for the diff is gone.
	if err := os.RemoveAll(filepath.Join(ws.Dir+".git", "base")); err != nil {
		t.Fatal(err)
	}
	got := (&scenarioRun{ws: ws, red: redact.New()}).changeSummary(t.Context())
	if !strings.HasPrefix(got, "(the diff could not be taken: workspace: diff "+ws.Dir+": ") || !strings.HasSuffix(got, ")\nmodified: a.txt\n") {
		t.Errorf("summary = %q; want why the diff is missing, then the lists", got)
	}
}

// TestWorkspaceCopyPointersWarned: each attempt whose workspace copies a
// directory that holds a .git file naming a git directory by its
// absolute path, or a link that leads outside it, warns about them in
// its results, at the workspace's source, as the copy found them (the
// scenario's load does not look).
func TestWorkspaceCopyPointersWarned(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"outside.txt":   "mine\n",
		"fixture/.git":  "gitdir: /main/.git/worktrees/wt\n",
		"fixture/a.txt": "a\n",
		"a.mock.yaml":   "turns:\n  - steps:\n      - text: done\n",
		"s.yaml":        "name: w\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {}\nworkspace: {from: fixture}\nturns: [{prompt: hi}]\n",
	})
	fixture := filepath.Join(dir, "fixture")
	if err := os.Symlink("../outside.txt", filepath.Join(fixture, "out.txt")); err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(dir, "s.yaml") + ":4:19: workspace " + fixture + ": "
	want := []string{
		at + "its .git file names the git directory /main/.git/worktrees/wt: git in each attempt's copy works on that repository " +
			"(its index, branches and refs, and the work tree it names), not on a copy, and what the agent commits there is not among the attempt's changes; " +
			"give workspace: {git: " + fixture + "} for a checkout of its own",
		at + "the symbolic link out.txt (to " + filepath.Join(dir, "outside.txt") + ") leads outside it, and so does its copy: what the agent writes through it lands there, " +
			"not in the attempt's copy, and is not among its changes (links into the directory lead into the copy)",
	}
	rep := runDir(t, dir, Options{Repeat: 2})
	if len(rep.Scenarios) != 2 {
		t.Fatalf("%d results; want 2", len(rep.Scenarios))
	}
	for _, r := range rep.Scenarios {
		if d := cmp.Diff(want, r.Warnings); r.Status != report.StatusPassed || d != "" {
			t.Errorf("attempt %d: %s (%q), warnings (-want +got):\n%s", r.Attempt, r.Status, r.Error, d)
		}
	}
}
