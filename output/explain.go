package output

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/replay"
	"github.com/acprun/acprun/runner"
)

// Explanation is one request put to a scenario's policy
// (approve.Policy.Explain), as acprun explain shows it.
type Explanation struct {
	Scenario string // the scenario's name
	Pos      string // where the scenario is defined, file:line:col
	Request  approve.Request
	// Asked is the permission request of a transcript that Request was
	// rebuilt from, as run rebuilt it; nil for a request given alone or
	// made up.
	Asked    *Asked
	Decision approve.Decision
	Rules    []approve.RuleTrace // every rule, deny rules first
	// LinkFree says why Decision's verdict does not depend on where the
	// symbolic links on the request's paths lead (approve.Policy.LinkFree);
	// "" when it may. In a cwd that no longer exists (Asked.CwdGone) such
	// a verdict stands whatever run answered.
	LinkFree string
}

// Asked is a permission request of a transcript (see
// runner.RecordedSession).
type Asked struct {
	Transcript string // the transcript, as the user named it
	runner.AskedPermission
	// Nth is which of the transcript's permission requests for the tool
	// call it is, from 1, of Of.
	Nth, Of int
	// CwdGone is set when the session's cwd no longer exists (a workspace
	// copy removed after a pass): the links run followed under it cannot
	// be followed, so the rules saw the paths as written.
	CwdGone bool
	// Exit is the agent's exit that the transcript records as its last
	// line (it exited on its own, or crashed, while run used it); nil
	// when the transcript records none.
	Exit *RecordedExit
}

// RecordedExit is the agent's exit as a transcript records it (see
// replay.Recording.Exit), and where.
type RecordedExit struct {
	Status replay.AgentExit // the exit code or the signal
	Line   int              // the line that records it
	// Turn is the turn it came in or after, from 1, 0 before the first;
	// InTurn says that the turn's prompt was not answered yet (see
	// runner.RecordedSession.Turn).
	Turn   int
	InTurn bool
}

// Verdict is the decision explain stands by: the rules' (e.Decision's),
// unless the request was rebuilt in a cwd that no longer exists
// (Asked.CwdGone), the rules' verdict may depend on the links in it
// (LinkFree is empty), and run's recorded answer gave another, which then
// stands: the rules did not see what run saw.
func (e Explanation) Verdict() approve.Verdict {
	if v, ok := e.overruled(); ok {
		return v
	}
	return e.Decision.Verdict
}

// recorded returns the verdict of run's answer (see
// runner.RecordedAnswer.Verdict), "" when there is none.
func (e Explanation) recorded() approve.Verdict {
	if e.Asked == nil || e.Asked.Answer == nil {
		return ""
	}
	return e.Asked.Answer.Verdict()
}

// overruled returns run's verdict when it overrules the rules' (see
// Verdict).
func (e Explanation) overruled() (approve.Verdict, bool) {
	v := e.recorded()
	return v, v != "" && v != e.Decision.Verdict && e.Asked.CwdGone && e.LinkFree == ""
}

// Explain writes an explanation for people: the scenario and the request
// (with, for one of a transcript, where it is and which message gave each
// field of its tool call its value), the commands and paths the rules saw,
// quoted as the title is (and where each path was found), a note when the request holds redacted
// values or its cwd no longer exists (and whether the decision depends on
// the links in it), the decision with the rule that made
// it and the option answered, what run answered (for a transcript's
// request) and whether that differs, and the agent's exit if the
// transcript records one, then every rule, whether it matched and why.
func Explain(w io.Writer, e Explanation) error {
	ew := &errWriter{w: w}
	d := e.Decision
	ew.printf("scenario: %s (%s)\n", e.Scenario, e.Pos)
	if a := e.Asked; a != nil {
		ew.printf("asked:    %s:%d, %s: permission request %d of %d for tool call %s\n", a.Transcript, a.Line, turnName(a.Turn), a.Nth, a.Of, termtext.Printable(a.ToolCallID))
	}
	ew.printf("request:  kind=%s", termtext.Printable(cmp.Or(e.Request.Kind, "-")))
	if e.Request.Tool != "" {
		ew.printf(" tool=%q", e.Request.Tool)
	}
	ew.printf(" title=%q\n", e.Request.Title)
	if a := e.Asked; a != nil {
		explainFields(ew, a)
	}
	if len(d.Commands) > 0 {
		ew.printf("commands: %s\n", quoteAll(d.Commands))
	}
	switch {
	case len(d.Paths) > 0 && e.Asked != nil:
		explainPaths(ew, e.Asked, e.Request)
	case len(d.Paths) > 0:
		ew.printf("paths:    %s\n", quoteAll(d.Paths))
	}
	if fields := redactedFields(e.Request); len(fields) > 0 {
		ew.printf("note:     %s hold%s redacted values (%s): run saw the secrets themselves, so its decision may differ\n",
			strings.Join(fields, ", "), plural(len(fields), "s", ""), redact.Marker)
	}
	if a := e.Asked; a != nil && a.CwdGone {
		ew.printf("note:     the session's cwd %q no longer exists (a workspace copy is removed after a passing attempt): the links run followed in it cannot be followed now, ", e.Request.Cwd)
		if e.LinkFree != "" {
			ew.printf("but the rules' decision does not depend on them: %s\n", e.LinkFree)
		} else {
			ew.printf("so the rules see the paths as written and may decide otherwise than run did\n")
		}
	}
	by := ""
	if d.Rule != "" {
		by = fmt.Sprintf(" by %s rule %s", d.RuleList, d.Rule)
	} else if d.RuleList == approve.ListDefault {
		by = " by the default"
	}
	if v, ok := e.overruled(); ok {
		ew.printf("\ndecision: %s, as run answered (the rules decide %s%s on the paths as written: see the note)\n",
			strings.ToUpper(string(v)), strings.ToUpper(string(d.Verdict)), by)
	} else {
		ew.printf("\ndecision: %s%s\n", strings.ToUpper(string(d.Verdict)), by)
		switch {
		case d.Cancelled:
			ew.printf("answer:   cancelled (no option of the needed kind)\n")
		case d.OptionID != "":
			ew.printf("answer:   select option %q (%s)\n", d.OptionID, d.OptionKind)
		}
	}
	if d.Reason != "" {
		ew.printf("why:      %s\n", d.Reason)
	}
	explainAnswer(ew, e)
	if len(e.Rules) > 0 {
		ew.printf("\nrules:\n")
	}
	for _, tr := range e.Rules {
		mark := "miss "
		if tr.Matched {
			mark = "MATCH"
		}
		ew.printf("  %s %s %s\n", mark, tr.List, tr.Rule)
		for _, why := range tr.Why {
			ew.printf("        %s\n", why)
		}
	}
	return ew.err
}

// explainAnswer writes what run answered to a transcript's request, and
// whether the rules decide otherwise now, then the agent's exit that the
// transcript records, and where it came.
func explainAnswer(ew *errWriter, e Explanation) {
	if e.Asked == nil {
		return
	}
	defer explainExit(ew, e.Asked)
	if e.Asked.Answer == nil {
		return
	}
	a := e.Asked.Answer
	at := fmt.Sprintf("%s:%d", e.Asked.Transcript, a.Line)
	switch {
	case a.Outcome == "error":
		ew.printf("run:      answered with an error, %s: the request was refused before the rules\n", at)
	case a.Outcome == acp.OutcomeSelected && a.OptionKind != "":
		ew.printf("run:      answered %s, option %q (%s), %s\n", strings.ToUpper(string(a.Verdict())), a.OptionID, a.OptionKind, at)
	case a.Outcome == acp.OutcomeSelected:
		ew.printf("run:      answered option %q, which the request did not offer, %s\n", a.OptionID, at)
	default:
		ew.printf("run:      answered %s, %s\n", termtext.Printable(a.Outcome), at)
	}
	v := e.recorded()
	if _, over := e.overruled(); over || v == "" || v == e.Decision.Verdict {
		return
	}
	ew.printf("differs:  run answered %s and the rules decide %s now: %s\n",
		strings.ToUpper(string(v)), strings.ToUpper(string(e.Decision.Verdict)), whyDiffers(e))
}

// whyDiffers says what may have made the rules decide otherwise than run
// answered: the rules or the config changed since; the files and links
// the paths lead through only when the rules' verdict may depend on them
// (e.LinkFree is empty: a link-free verdict is the same wherever they
// lead); and, first, the secrets run saw where the request holds
// redacted values (the note says which).
func whyDiffers(e Explanation) string {
	why := "the rules or the config have changed since the run"
	if e.LinkFree == "" {
		why = "the rules, the config, or the files and links the paths lead through have changed since the run"
	}
	if len(redactedFields(e.Request)) > 0 {
		why = "run saw the redacted values themselves (see the note), or " + why
	}
	return why
}

// explainExit writes the agent's exit that the transcript of a's request
// records, if any: before run answered a, right after its answer, or
// later (in which turn, or after which).
func explainExit(ew *errWriter, a *Asked) {
	x := a.Exit
	if x == nil {
		return
	}
	var when string
	switch {
	case a.Answer == nil:
		when = "before run answered"
	case x.Line == a.Answer.Line+1:
		when = "right after run's answer"
	case x.InTurn:
		when = fmt.Sprintf("later, in turn %d", x.Turn)
	case x.Turn > 0:
		when = fmt.Sprintf("later, after turn %d", x.Turn)
	default:
		when = "later, before the first turn"
	}
	// The signal is the transcript's text, which an edit may have made
	// anything.
	ew.printf("exit:     %s %s, %s:%d\n", termtext.Printable(x.Status.Error()), when, a.Transcript, x.Line)
}

// quoteAll writes each of ss as a Go string literal, joined by commas.
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// turnName names turn n (from 1; 0 before the first turn).
func turnName(n int) string {
	if n == 0 {
		return "before the first turn (the request alone: nothing is merged into it)"
	}
	return fmt.Sprintf("turn %d", n)
}

// explainFields writes which message of the transcript gave each field of
// the tool call its value, the messages in their order.
func explainFields(ew *errWriter, a *Asked) {
	label := "from:     "
	for _, g := range bySource(a.Fields) {
		ew.printf("%s%s: %s, line %d\n", label, strings.Join(g.names, ", "), g.src.Message, g.src.Line)
		label = "          "
	}
}

// explainPaths writes the paths the rules saw, one a line, each quoted (an
// agent chose it) with the fields it was found in and the messages that
// gave them.
func explainPaths(ew *errWriter, a *Asked, req approve.Request) {
	from := map[string]runner.FieldSource{}
	for _, f := range a.Fields {
		from[f.Field] = f
	}
	label := "paths:    "
	for _, ps := range approve.PathSources(req) {
		ew.printf("%s%q", label, ps.Path)
		if note := ps.Note(req.Excerpt); note != "" { // a long path cut knowing the whole of it
			ew.printf(" (%s)", note)
		}
		ew.printf("\n")
		label = "          "
		var found []runner.FieldSource
		for _, field := range ps.From {
			src, ok := from[strings.SplitN(field, ".", 2)[0]] // rawInput.file_path is rawInput's
			if ok {
				src.Field = field
				found = append(found, src)
			}
		}
		var parts []string
		for _, g := range bySource(found) {
			parts = append(parts, fmt.Sprintf("%s of the %s (line %d)", strings.Join(g.names, ", "), g.src.Message, g.src.Line))
		}
		if len(parts) > 0 {
			ew.printf("            from %s\n", strings.Join(parts, "; "))
		}
	}
}

// sourceGroup is the fields that one message gave their values.
type sourceGroup struct {
	src   runner.FieldSource
	names []string
}

// bySource groups fields by the message that gave them their values, the
// messages in the order of their lines.
func bySource(fields []runner.FieldSource) []sourceGroup {
	var groups []sourceGroup
	for _, f := range fields {
		i := slices.IndexFunc(groups, func(g sourceGroup) bool { return g.src.Line == f.Line && g.src.Message == f.Message })
		if i < 0 {
			i = len(groups)
			groups = append(groups, sourceGroup{src: f})
		}
		groups[i].names = append(groups[i].names, f.Field)
	}
	slices.SortStableFunc(groups, func(a, b sourceGroup) int { return a.src.Line - b.src.Line })
	return groups
}

// redactedFields names the fields of req that hold redact.Marker: a
// value of the transcript that a secret was replaced in.
func redactedFields(req approve.Request) []string {
	var fields []string
	for _, f := range []struct {
		name   string
		values []string
	}{
		{"title", []string{req.Title}},
		{"rawInput", []string{string(req.RawInput)}},
		{"locations", req.Locations},
		{"content", req.DiffPaths},
	} {
		if slices.ContainsFunc(f.values, func(s string) bool { return strings.Contains(s, redact.Marker) }) {
			fields = append(fields, f.name)
		}
	}
	return fields
}
