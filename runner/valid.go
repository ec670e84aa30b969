package runner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// This file tells a measurement from one that measured nothing: an agent
// that changed the files it was told to leave alone (workspace.protect),
// the wrong agent (expect.agent), a provider that refused the work (a
// rate limit, a quota, an overload). Such an attempt is invalid: it
// neither passed nor failed (see report.StatusInvalid).

// invalidate records that the attempt measured nothing, and why; the first
// reason found is the one kept.
func (r *scenarioRun) invalidate(reason, msg string, files []string) {
	if r.invalid == nil {
		r.invalid = &report.Invalid{Reason: reason, Message: msg, Files: files}
	}
}

// wrongAgent is the error of a scenario whose agent is not the one its
// expect.agent names: the message says what came and what was wanted.
type wrongAgent string

func (w wrongAgent) Error() string { return string(w) }

// checkAgent compares what initialize's agentInfo said (a) with e; it
// returns a wrongAgent error when they differ, at the first part of e
// that was not met. A nil e accepts any agent.
func checkAgent(e *scenario.AgentExpect, a report.AgentInfo) error {
	if e == nil {
		return nil
	}
	var want []string
	pos := e.Pos
	for _, part := range []struct {
		what string
		m    *scenario.TextMatch
		got  string
	}{{"name", e.Name, a.InfoName}, {"version", e.Version, a.InfoVersion}} {
		if part.m == nil || part.m.Match(part.got) {
			continue
		}
		if want == nil {
			pos = part.m.Pos
		}
		want = append(want, part.what+" "+part.m.String())
	}
	if want == nil {
		return nil
	}
	got := "the agent gave no agentInfo"
	if a.InfoName != "" || a.InfoVersion != "" {
		got = "the agent is " + strconv.Quote(a.InfoName)
		if a.InfoVersion != "" {
			got += " " + a.InfoVersion
		}
	}
	return wrongAgent(fmt.Sprintf("%s: expect.agent: %s, want %s", pos, got, strings.Join(want, " and ")))
}

// checkProtected makes the attempt invalid (tampered) when the agent
// created, modified or deleted a file of workspace.protect, comparing the
// workspace as recordChanges found it after the last turn with the one
// the agent started in (after setup). Only the lists count: a diff that
// could not be taken, the lists known, changes nothing; lists that could
// not be taken make the attempt invalid, as what was not compared may
// have changed.
func (r *scenarioRun) checkProtected() {
	w := r.sc.Workspace
	if r.ws == nil || w == nil || len(w.Protect) == 0 || r.res.Workspace == nil {
		return
	}
	prefix := w.ProtectPos.String() + ": workspace.protect: "
	if err := r.res.Workspace.Error; err != "" && r.res.Workspace.Created == nil {
		// The lists are unknown (when only the diff could not be taken,
		// they are known, and judged below).
		r.invalidate(report.InvalidTampered, prefix+"the protected files could not be compared ("+err+"); verify was not run", nil)
		return
	}
	var files, parts []string
	for _, kind := range []struct {
		what  string
		paths []string
	}{{"created", r.res.Workspace.Created}, {"modified", r.res.Workspace.Modified}, {"deleted", r.res.Workspace.Deleted}} {
		if hit := kept(kind.paths, func(p string) bool { return protected(w.Protect, p) }); hit != nil {
			parts = append(parts, kind.what+" "+listed(hit))
			files = append(files, hit...)
		}
	}
	if files == nil {
		return
	}
	slices.Sort(files)
	r.invalidate(report.InvalidTampered, fmt.Sprintf("%sthe agent changed %s: %s; verify was not run",
		prefix, plural(len(files), "protected file", "protected files"), strings.Join(parts, "; ")), files)
}

// warnUnprotected warns about each glob of workspace.protect that matches
// no file of the workspace the agent starts in (after acprun's own writes
// and setup): such a glob only forbids creating a file, which may be what
// was meant (conftest.py), or a typo that leaves the files meant
// unprotected.
func (r *scenarioRun) warnUnprotected() {
	w := r.sc.Workspace
	if r.ws == nil || w == nil || len(w.Protect) == 0 {
		return
	}
	r.warnNoFile("workspace.protect", w.Protect, r.ws.Files(), " yet: it only forbids creating one")
}

// warnNoFile warns about each glob of key (see matchFile) that matches none
// of files, saying what that means after "matches no file of the
// workspace".
func (r *scenarioRun) warnNoFile(key string, globs []scenario.Located, files []string, meaning string) {
	for _, g := range globs {
		if !slices.ContainsFunc(files, func(p string) bool { return matchFile(g.Value, p) }) {
			r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%s: %s: %q matches no file of the workspace%s "+
				"(check it for a typo: a glob is relative to the workspace's root)", g.Pos, key, g.Value, meaning))
		}
	}
}

// protected reports whether the workspace path p matches a glob of
// protect.
func protected(protect []scenario.Located, p string) bool {
	return slices.ContainsFunc(protect, func(g scenario.Located) bool { return matchFile(g.Value, p) })
}
