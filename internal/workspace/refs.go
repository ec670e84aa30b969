package workspace

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// refs maps the name of each ref of a repository (refs/heads/main) to the
// object it names.
type refs map[string]string

// takeRefs lists the refs of the source repository's shared git directory
// (branches, tags, remote-tracking branches, the stash: not a worktree's
// own HEAD), with git for-each-ref.
func (w *Workspace) takeRefs(ctx context.Context) (refs, error) {
	g := gitCmd{dir: w.common, global: []string{"--git-dir=" + w.common}, runs: w.runs}
	out, err := g.run(ctx, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return nil, err
	}
	rs := refs{}
	for line := range strings.Lines(out) {
		object, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if !ok {
			return nil, fmt.Errorf("git for-each-ref: unexpected line %q", line)
		}
		rs[name] = object
	}
	return rs, nil
}

// RefChanges says which refs of the source repository (branches, tags,
// remote-tracking branches) were created, moved or deleted since the
// baseline, by name, the deleted last: "moved refs/heads/feature from
// 1a2b3c4d5e6f to 0f9e8d7c6b5a", "created refs/heads/x at …", "deleted
// refs/tags/v1, which was at …"; nil when none was, and for a copy. A
// worktree shares its refs with the source repository (a clone's agent
// can push to it): a commit the agent makes on a branch it checked out
// moves the user's branch. acprun does not undo such a change. ctx stops
// it (err is then set).
func (w *Workspace) RefChanges(ctx context.Context) ([]string, error) {
	if w.Kind == KindCopy {
		return nil, nil
	}
	w.mu.Lock()
	base := w.refs
	w.mu.Unlock()
	cur, err := w.takeRefs(ctx)
	if err != nil {
		return nil, fmt.Errorf("workspace: refs of %s: %w", w.common, err)
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cur)) {
		was, ok := base[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("created %s at %s", name, short(cur[name])))
		case was != cur[name]:
			out = append(out, fmt.Sprintf("moved %s from %s to %s", name, short(was), short(cur[name])))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(base)) {
		if _, ok := cur[name]; !ok {
			out = append(out, fmt.Sprintf("deleted %s, which was at %s", name, short(base[name])))
		}
	}
	return out, nil
}
