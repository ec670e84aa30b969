package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// diffLimit is the most of a git workspace's diff kept in the results.
const diffLimit = 256 << 10

// makeWorkspace makes the job's own workspace and returns the scenario as
// the attempt sees it: its cwd, client roots and commands in the copy.
// What a copy keeps that leads out of it (a .git file that names a git
// directory, links to outside its source) is warned about in the
// attempt's results. The
// scenario itself is shared by every attempt and never changed. The git
// commands run for it carry the scenario's mark, as everything the
// scenario starts does: the run's guard kills them if acprun is killed.
func (r *scenarioRun) makeWorkspace(ctx context.Context, job Ref) error {
	sc := r.sc
	spec, err := r.pinnedSpec(sc.Workspace)
	if err != nil {
		return workspaceError(sc.Workspace, err)
	}
	spec.Mark = r.mark
	spec.Redact = r.red // what git says, cut, shows no part of a secret
	ws, err := workspace.Create(ctx, spec, r.opts.WorkspaceDir, workspacePrefix(job))
	if err != nil {
		return workspaceError(sc.Workspace, err)
	}
	r.ws = ws
	if ws.Fallback != "" {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%s: workspace: git worktree add failed (%s); cloned instead", sc.Workspace.Pos, ws.Fallback))
	}
	// What the copy keeps that leads out of it, found as it was made: a
	// scenario's load does not walk the source (validate does).
	r.res.Warnings = append(r.res.Warnings, mapped(sc.Workspace.PointerWarnings(ws.Pointers), scenario.Warning.String)...)
	r.res.Workspace = &report.WorkspaceResult{
		Path: ws.Dir, Kept: true, Source: sc.Workspace.Source(), Kind: ws.Kind, Ref: sc.Workspace.Ref, Commit: ws.Commit,
		Created: []string{}, Modified: []string{}, Deleted: []string{},
	}
	local := *sc
	from := sc.Workspace.Source()
	rebase := func(p string) string { return workspace.Rebase(p, from, ws.Dir) }
	local.Agent.Cwd = rebase(sc.Agent.Cwd)
	local.Client.Roots = mapped(sc.Client.Roots, rebase)
	if sb := sc.Sandbox; sb != nil {
		// What the sandbox lets the agent write in the source is in the
		// copy; what it hides there is hidden in the copy and the source
		// alike, both of which the agent could read.
		copied := *sb
		copied.Write = mapped(sb.Write, rebase)
		copied.Hide, copied.HidePos = slices.Clone(sb.Hide), slices.Clone(sb.HidePos)
		for i, p := range sb.Hide {
			if q := rebase(p); q != p {
				copied.Hide, copied.HidePos = append(copied.Hide, q), append(copied.HidePos, sb.HidePos[i])
			}
		}
		local.Sandbox = &copied
	}
	r.sc = &local
	return nil
}

// CheckWorkspace checks, making nothing, what a run checks of the
// workspace w before it makes one (see workspace.Check): for validate
// --strict. It reads a git repository only where it is on this machine.
// The error is at the value it is about, as a run's is (see
// workspaceError).
func CheckWorkspace(ctx context.Context, w *scenario.Workspace) *WorkspaceError {
	if err := workspace.Check(ctx, workspaceSpec(w)); err != nil {
		return workspaceError(w, err)
	}
	return nil
}

// WorkspaceError is a workspace that cannot be made: Pos is the value
// that Err is about (ref's, when it names no commit; else the source's).
type WorkspaceError struct {
	Pos scenario.Pos
	Err error
}

func (e *WorkspaceError) Error() string { return posMsg(e.Pos, e.Err.Error()) }

// Unwrap returns Err.
func (e *WorkspaceError) Unwrap() error { return e.Err }

// workspaceError is err, what workspace.Create or Check says of w, at
// the value it is about. A workspace that could not be made where
// workspaces go (a *workspace.DirError: a directory that cannot be
// written, a full disk) is at no value of the scenario, which is not
// wrong: the error says what to do.
func workspaceError(w *scenario.Workspace, err error) *WorkspaceError {
	if de := (*workspace.DirError)(nil); errors.As(err, &de) {
		return &WorkspaceError{Err: fmt.Errorf("%w; acprun could not make the attempt's workspace in %s, where workspaces go: "+
			"make it writable (or free space there), or give another directory (--workspace-dir, or TMPDIR)", err, de.Dir)}
	}
	pos := cmp.Or(w.SourcePos, w.Pos)
	if ref := (*workspace.RefError)(nil); errors.As(err, &ref) && w.RefPos != (scenario.Pos{}) {
		pos = w.RefPos
	}
	return &WorkspaceError{Pos: pos, Err: err}
}

// TempUses says what a run of scenarios with opts makes in the system's
// temporary directory (os.TempDir()), each named with the first scenario
// that needs it, for a message: the workspaces, the sandboxes' temporary
// directories and the reused agent processes' directory, unless
// opts.WorkspaceDir takes them elsewhere, and the model gateway's UNIX
// socket (on Linux), which it does not; movable reports whether
// WorkspaceDir would take all of them. None when the run makes nothing
// there that it needs (its spill directory for long texts is optional).
func TempUses(opts Options, scenarios []*scenario.Scenario) (uses []string, movable bool) {
	first := func(what string, needs func(sc *scenario.Scenario) bool) {
		if i := slices.IndexFunc(scenarios, needs); i >= 0 {
			uses = append(uses, fmt.Sprintf("%s (scenario %q)", what, scenarios[i].Name))
		}
	}
	if opts.WorkspaceDir == "" {
		first("the workspaces", func(sc *scenario.Scenario) bool { return sc.Workspace != nil })
		first("the sandboxes' temporary directories", func(sc *scenario.Scenario) bool { return sc.Sandbox != nil })
		first("the reused agent processes' directory", func(sc *scenario.Scenario) bool { return sc.Agent.Reuse || opts.ReuseAgents })
	}
	n := len(uses)
	if runtime.GOOS == "linux" {
		first("the model gateway's socket", func(sc *scenario.Scenario) bool { return sc.Gateway != nil && len(sc.Gateway.Targets) > 0 })
	}
	return uses, len(uses) == n
}

// workspaceSpec is what to make for w.
func workspaceSpec(w *scenario.Workspace) workspace.Spec {
	return workspace.Spec{From: w.From, Git: w.Git, Ref: w.Ref}
}

// unredactWorkspace puts the paths of the workspace, its source and the
// transcript back into the redacted result: acprun chose them from the
// scenario file and the flags, so none is a secret, and a value of
// agent.env that is part of them (TMPDIR: /tmp) must not hide where a kept
// workspace or a transcript is.
func (r *scenarioRun) unredactWorkspace(res *report.Result) {
	if r.tr != nil {
		res.Transcript = r.tr.path
	}
	if r.ws == nil || res.Workspace == nil {
		return
	}
	res.Workspace.Path = r.ws.Dir
	res.Workspace.Source = r.sc.Workspace.Source()
}

// workspacePrefix names a job's workspace directory after its scenario,
// agent, attempt and retry, so that a kept one is easy to find.
func workspacePrefix(j Ref) string {
	name := "acprun-" + j.Name
	if j.Agent != "" {
		name += "-" + j.Agent
	}
	if j.Attempt > 0 {
		name += "-" + strconv.Itoa(j.Attempt)
	}
	if j.Retry > 0 {
		name += "-retry" + strconv.Itoa(j.Retry)
	}
	return name
}

// workDir is where commands run and file expectations look: the
// workspace, else the session cwd.
func (r *scenarioRun) workDir() string {
	if r.ws != nil {
		return r.ws.Dir
	}
	return r.sc.Agent.Cwd
}

// checkFiles checks a files expectation on the workspace (or the session
// cwd) as it is now; nil passes. The agent's changes are listed (a walk of
// the whole workspace) only for unchanged globs, the one check that needs
// them; the results warn about each that matches no file of the workspace,
// before the agent ran nor created by it. As recordChanges, the listing
// stops only at an abort (second interrupt): its globs then fail, the
// changes unknown; so does the reading of the files.
func (r *scenarioRun) checkFiles(e *scenario.FilesExpect) []string {
	if e == nil {
		return nil
	}
	var changed []string
	known := false // unknown fails unchanged
	var fails []string
	ctx, cancel := untilAbort(context.Background(), r.opts.Abort)
	defer cancel()
	if err := r.followHidden(ctx); err != nil {
		return []string{fmt.Sprintf("%s: files: cannot check the files: %v", e.Pos, err)}
	}
	if len(e.Unchanged) > 0 && r.ws != nil {
		created, modified, deleted, err := r.ws.Changes(ctx)
		if err != nil {
			fails = append(fails, fmt.Sprintf("%s: files: the workspace's changes could not be listed: %v", e.Pos, err))
		} else {
			changed, known = slices.Concat(created, modified, deleted), true
			r.warnNoFile("files.unchanged", e.Unchanged, slices.Concat(r.ws.Files(), created), " before the run, nor one created by it")
		}
	}
	var leftOut []workspace.LeftOut
	if r.ws != nil {
		leftOut = r.ws.LeftOut
	}
	return append(fails, checkFiles(ctx, r.red, e, r.workDir(), r.hidden, leftOut, changed, known, r.opts.inputs)...)
}

// changes lists what the agent changed in the workspace so far, and for a
// git workspace its diff, in w. When they cannot be listed, w's lists are
// nil (null in the results: not known), never empty (known: nothing
// changed).
func (r *scenarioRun) changes(ctx context.Context, w *report.WorkspaceResult) error {
	created, modified, deleted, err := r.ws.Changes(ctx)
	if err != nil {
		w.Created, w.Modified, w.Deleted = nil, nil, nil
		return err
	}
	w.Created, w.Modified, w.Deleted = created, modified, deleted
	diff, total, truncated, err := r.ws.Diff(ctx, diffLimit)
	if err != nil {
		return err // it says "workspace: diff DIR: …"
	}
	if truncated {
		// A secret the cut went through would be redacted nowhere.
		diff = r.red.CutEnd(diff)
	}
	w.Diff, w.DiffBytes, w.DiffTruncated = diff, total, truncated
	return nil
}

// recordChanges records in the result what the agent changed in the
// workspace, once it has stopped, however its session ended (see
// endAgent), and warns when the source repository's config, hooks,
// attributes or refs changed meanwhile. An interrupt or the run's timeout does not
// stop it (the changes are what an interrupted attempt leaves to look at,
// and listing them reads no more than the baseline did, the diff 32 MiB
// more at most: see workspace.Changes and Diff); only an abort (second
// interrupt) does, and leaves them unknown.
func (r *scenarioRun) recordChanges() {
	if r.ws == nil {
		return
	}
	ctx, cancel := untilAbort(context.Background(), r.opts.Abort)
	defer cancel()
	if err := r.changes(ctx, r.res.Workspace); err != nil {
		r.res.Workspace.Error = err.Error()
		r.res.Warnings = append(r.res.Warnings, err.Error())
	}
	changed, err := r.ws.RepoChanges(ctx)
	if err != nil {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("workspace: the source repository's git files were not compared: %v", err))
	}
	if len(changed) > 0 {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("workspace: git files of the source repository changed while the agent ran: %s; "+
			"an agent in a worktree writes the repository's config with `git config`, and a filter, hook or other command set there "+
			"runs in your own git commands in that repository: check them (acprun does not undo the change)%s", listed(changed), r.besideOthers()))
	}
	r.warnRefChanges(ctx)
}

// changeSummary describes what the agent changed so far, for a judge: the
// diff of a git workspace, then the paths of the lists of changes that it
// does not show (files git ignores or cannot read, changes of mode or line
// endings git does not see, files inside an embedded repository, those
// after a cut); a copy's lists alone.
func (r *scenarioRun) changeSummary(ctx context.Context) string {
	if r.ws == nil {
		return "(no workspace: changes were not recorded)"
	}
	var w report.WorkspaceResult
	err := r.changes(ctx, &w)
	if w.Created == nil {
		return fmt.Sprintf("(the changes could not be listed: %v)", err)
	}
	var b strings.Builder
	if err != nil {
		// The lists are known: the diff alone could not be taken.
		fmt.Fprintf(&b, "(the diff could not be taken: %v)\n", err)
	}
	shown := map[string]bool{}
	if w.Diff != "" {
		shown = workspace.DiffPaths(w.Diff)
		b.WriteString(w.Diff)
		if w.DiffTruncated {
			fmt.Fprintf(&b, "\n[diff cut at %d of %d bytes]", len(w.Diff), w.DiffBytes)
		}
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
	}
	var lists strings.Builder
	for _, l := range []struct {
		what  string
		paths []string
	}{{"created", w.Created}, {"modified", w.Modified}, {"deleted", w.Deleted}} {
		if hidden := kept(l.paths, func(p string) bool { return !shown[p] }); len(hidden) > 0 {
			fmt.Fprintf(&lists, "%s: %s\n", l.what, summaryListed(hidden))
		}
	}
	switch {
	case lists.Len() > 0 && w.Diff != "":
		b.WriteString("\nThe diff above does not show these changes:\n")
		b.WriteString(lists.String())
	case lists.Len() > 0:
		b.WriteString(lists.String())
	case b.Len() == 0:
		return "(no file was created, modified or deleted)"
	}
	return b.String()
}

// summaryNamed is how many paths of each list a judge's summary names.
const summaryNamed = 200

// summaryListed is paths as a judge's summary names them: the first
// summaryNamed, and a count of the others.
func summaryListed(paths []string) string {
	if len(paths) <= summaryNamed {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s … and %d more", strings.Join(paths[:summaryNamed], ", "), len(paths)-summaryNamed)
}

// removeWorkspace removes the workspace of a passing attempt (unless
// --keep-workspaces), and keeps any other.
func (r *scenarioRun) removeWorkspace() {
	if r.ws == nil || r.res.Status != report.StatusPassed || r.opts.KeepWorkspaces {
		return
	}
	if err := r.ws.Remove(); err != nil {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("workspace %s was not removed: %v", r.ws.Dir, err))
		return
	}
	r.res.Workspace.Kept = false
}

// commandEnv is the environment of setup, verify and teardown commands:
// the agent's, plus ACPRUN_WORKSPACE when there is a workspace.
func (r *scenarioRun) commandEnv() []string {
	env := r.env()
	if r.ws != nil {
		env = append(append([]string{}, env...), "ACPRUN_WORKSPACE="+r.ws.Dir)
	}
	return env
}
