package runner

import (
	"cmp"
	"fmt"
	"path/filepath"

	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/scenario"
)

// place is a path of a scenario that acprun resolves, through symlinks,
// each time an attempt of it starts: what to call it in a message, and
// where it is given.
type place struct {
	what string // "agent.cwd", "sandbox write path"…
	path string // absolute
	pos  scenario.Pos
}

// placesOf lists the places of sc under environ: its session cwd, client
// roots, workspace source, and its sandbox's write and hidden paths, the
// defaults included.
func placesOf(sc *scenario.Scenario, environ []string) []place {
	pl := []place{{"agent.cwd", sc.Agent.Cwd, cmp.Or(sc.Agent.CwdPos, sc.Pos)}}
	for _, root := range sc.Client.Roots {
		pl = append(pl, place{"client root", root, cmp.Or(sc.Client.RootsPos, sc.Pos)})
	}
	if ws := sc.Workspace; ws != nil {
		pl = append(pl, place{"workspace source", ws.Source(), ws.Pos})
	}
	if sb := sc.Sandbox; sb != nil {
		spec := sandboxSpec(sc, environ, "")
		own := len(spec.Write) - len(sb.Write) // the defaults come first
		for i, p := range spec.Write {
			pos := sb.Pos
			if i >= own && i-own < len(sb.WritePos) {
				pos = sb.WritePos[i-own]
			}
			pl = append(pl, place{"sandbox write path", p, pos})
		}
		for _, p := range spec.Hide {
			pl = append(pl, place{"sandbox hide path", p, sb.Pos})
		}
	}
	for i := range pl {
		if abs, err := filepath.Abs(pl[i].path); err == nil && pl[i].path != "" {
			pl[i].path = abs
		}
	}
	return pl
}

// places maps the places of a run's scenarios to where each led, symlinks
// resolved (workspace.ResolveExisting), when the run started, before any
// agent did. An agent may put a symlink in the way of a place of a later
// attempt or scenario (the session cwd of a scenario in a subdirectory of
// its own cwd, replaced by a link to your home): the sandbox would then
// let that attempt's agent write in your home, its client serve your
// files, its verify run there. nil outside Run: no place is checked.
type places map[string]string

// pinPlaces resolves the places of scenarios.
func pinPlaces(scenarios []*scenario.Scenario, environ []string) places {
	pinned := places{}
	for _, sc := range scenarios {
		for _, p := range placesOf(sc, environ) {
			if _, ok := pinned[p.path]; !ok && filepath.IsAbs(p.path) {
				pinned[p.path] = workspace.ResolveExisting(filepath.Clean(p.path))
			}
		}
	}
	return pinned
}

// checkPlaces returns an error naming the first place of the attempt's
// scenario that does not lead where it led when the run started, saying
// what then does not happen (outcome: "the attempt does not run"). It is
// checked when the attempt starts, and again right before its agent does:
// a setup may run long, and another agent of the run may write meanwhile.
func (r *scenarioRun) checkPlaces(outcome string) error {
	pinned := r.opts.places
	if pinned == nil {
		return nil
	}
	for _, p := range placesOf(r.sc, r.opts.Environ) {
		then, ok := pinned[p.path]
		if !ok {
			continue // a judge's: its cwd is its scenario's, checked
		}
		if now := workspace.ResolveExisting(filepath.Clean(p.path)); now != then {
			return fmt.Errorf("%s: %s %s led to %s when the run started and leads to %s now: "+
				"a symbolic link was put in its way since, which acprun does not follow (an agent of this run may have put it there); "+
				"%s", p.pos, p.what, p.path, then, termtext.OneLine(now), outcome)
		}
	}
	return nil
}
