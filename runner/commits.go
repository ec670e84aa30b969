package runner

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/scenario"
)

// commits are the commits that the refs of a run's git workspaces named
// when the run started, before any attempt did, by repository and ref: a
// worktree shares its branches with the source repository, so an agent
// that commits on the branch a ref names moves it, and the attempts,
// repeats and retries after it would start at its commit (those running
// beside it, with its edit). nil outside Run, where each attempt resolves
// its ref.
type commits map[commitKey]resolved

// commitKey is a git workspace's repository and ref, as given.
type commitKey struct{ git, ref string }

// resolved is the commit a ref named, or why it named none (the
// repository or the ref is wrong: every attempt errors so).
type resolved struct {
	commit string
	err    error
}

// pinCommits resolves the refs of the git workspaces of scenarios, each
// repository and ref once; its git commands carry mark, and what they say
// is cut knowing red's secrets (see workspace.Spec).
func pinCommits(ctx context.Context, scenarios []*scenario.Scenario, mark reap.Mark, red *redact.Redactor) commits {
	pinned := commits{}
	for _, sc := range scenarios {
		w := sc.Workspace
		if w == nil || w.Git == "" {
			continue
		}
		k := commitKey{w.Git, w.Ref}
		if _, ok := pinned[k]; ok {
			continue
		}
		spec := workspaceSpec(w)
		spec.Mark, spec.Redact = mark, red
		commit, err := workspace.Resolve(ctx, spec)
		pinned[k] = resolved{commit, err}
	}
	return pinned
}

// pinnedSpec is what to make for the attempt's workspace w: its spec,
// with the commit its ref named when the run started; err is why that
// ref named none.
func (r *scenarioRun) pinnedSpec(w *scenario.Workspace) (workspace.Spec, error) {
	spec := workspaceSpec(w)
	if p, ok := r.opts.commits[commitKey{w.Git, w.Ref}]; ok && w.Git != "" {
		if p.err != nil {
			return spec, p.err
		}
		spec.Commit = p.commit
	}
	return spec, nil
}

// warnRefChanges warns when the refs of the source repository of the
// attempt's git workspace changed while its agent ran (see
// workspace.RefChanges), naming them.
func (r *scenarioRun) warnRefChanges(ctx context.Context) {
	changed, err := r.ws.RefChanges(ctx)
	if err != nil {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("workspace: the source repository's refs were not compared: %v", err))
	}
	if len(changed) > 0 {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("workspace: refs of the source repository changed while the agent ran: %s; "+
			"a worktree shares its branches and tags with the source repository, so a commit the agent makes on a branch it checks out "+
			"moves yours: check them (acprun does not undo the change; the run's other attempts still start at the commit the ref named when it started)%s",
			strings.Join(changed, ", "), r.besideOthers()))
	}
}

// besideOthers is what a warning about the source repository of the
// attempt's workspace adds when other attempts may have run beside it
// (-j above 1): the change may be theirs.
func (r *scenarioRun) besideOthers() string {
	if r.opts.Parallel <= 1 {
		return ""
	}
	return "; with -j " + strconv.Itoa(r.opts.Parallel) + ", an attempt running at the same time on the same repository may have made it"
}
