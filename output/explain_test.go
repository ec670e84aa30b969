package output_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/output"
)

// TestExplain checks acprun explain's text: the commands and paths lines
// appear only when the rules saw some, the decision names what made it,
// the answer line tells a selected option from a cancelled answer, and
// every rule is listed with why.
func TestExplain(t *testing.T) {
	tests := []struct {
		name string
		e    output.Explanation
		want string
	}{
		{
			name: "denied by the default, no rules",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Title: "look"},
				Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault, Cancelled: true, Reason: "no rule matched"}},
			want: `scenario: s (s.yaml:1:1)
request:  kind=- title="look"

decision: DENY by the default
answer:   cancelled (no option of the needed kind)
why:      no rule matched
`,
		},
		{
			name: "allowed by a rule",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "execute", Title: `go "test"`},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "s.yaml:9", RuleList: approve.ListAllow,
					OptionID: "ok", OptionKind: approve.AllowOnce, Commands: []string{`go "test"`, "make"}, Paths: []string{"/w/a", "/w/b"}},
				Rules: []approve.RuleTrace{
					{List: approve.ListDeny, Rule: "s.yaml:12", Why: []string{"no command matches", "second reason"}},
					{List: approve.ListAllow, Rule: "s.yaml:9", Matched: true, Why: []string{"command matches"}},
				}},
			want: `scenario: s (s.yaml:1:1)
request:  kind=execute title="go \"test\""
commands: "go \"test\"", "make"
paths:    /w/a, /w/b

decision: ALLOW by allow rule s.yaml:9
answer:   select option "ok" (allow_once)

rules:
  miss  deny s.yaml:12
        no command matches
        second reason
  MATCH allow s.yaml:9
        command matches
`,
		},
		{
			name: "decided by a policy without a list (--allow-all)",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "read"},
				Decision: approve.Decision{Verdict: approve.Allow}},
			want: `scenario: s (s.yaml:1:1)
request:  kind=read title=""

decision: ALLOW
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.Explain(&buf, tt.e); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.Split(tt.want, "\n"), strings.Split(buf.String(), "\n")); diff != "" {
				t.Errorf("Explain (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExplainWriteError: a failed write is returned, not dropped.
func TestExplainWriteError(t *testing.T) {
	e := output.Explanation{Scenario: "s", Decision: approve.Decision{Verdict: approve.Deny}}
	if err := output.Explain(&failAfter{n: 10}, e); err == nil {
		t.Error("Explain on a failing writer returned no error")
	}
}
