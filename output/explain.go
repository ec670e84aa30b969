package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/acprun/acprun/approve"
)

// Explanation is one request put to a scenario's policy
// (approve.Policy.Explain), as acprun explain shows it.
type Explanation struct {
	Scenario string // the scenario's name
	Pos      string // where the scenario is defined, file:line:col
	Request  approve.Request
	Decision approve.Decision
	Rules    []approve.RuleTrace // every rule, deny rules first
}

// Explain writes an explanation for people: the scenario and the request,
// the commands and paths the rules saw, the decision with the rule that
// made it and the option answered, then every rule, whether it matched and
// why.
func Explain(w io.Writer, e Explanation) error {
	ew := &errWriter{w: w}
	d := e.Decision
	ew.printf("scenario: %s (%s)\n", e.Scenario, e.Pos)
	ew.printf("request:  kind=%s title=%q\n", orDash(e.Request.Kind), e.Request.Title)
	if len(d.Commands) > 0 {
		ew.printf("commands: %s\n", quoteAll(d.Commands))
	}
	if len(d.Paths) > 0 {
		ew.printf("paths:    %s\n", strings.Join(d.Paths, ", "))
	}
	ew.printf("\ndecision: %s", strings.ToUpper(string(d.Verdict)))
	if d.Rule != "" {
		ew.printf(" by %s rule %s", d.RuleList, d.Rule)
	} else if d.RuleList == approve.ListDefault {
		ew.printf(" by the default")
	}
	ew.printf("\n")
	switch {
	case d.Cancelled:
		ew.printf("answer:   cancelled (no option of the needed kind)\n")
	case d.OptionID != "":
		ew.printf("answer:   select option %q (%s)\n", d.OptionID, d.OptionKind)
	}
	if d.Reason != "" {
		ew.printf("why:      %s\n", d.Reason)
	}
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

// quoteAll writes each of ss as a Go string literal, joined by commas.
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
