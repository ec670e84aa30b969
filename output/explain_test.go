package output_test

import (
	"bytes"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/replay"
	"github.com/acprun/acprun/runner"
)

// TestExplain checks acprun explain's text: the commands and paths lines
// appear only when the rules saw some, each quoted (an agent's line breaks
// and escapes shown escaped), the decision names what made it,
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
paths:    "/w/a", "/w/b"

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
			name: "a transcript's request, its paths from the tool call before it",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1",
				Request: approve.Request{Kind: "edit", Title: "Edit", Cwd: "/w", RawInput: json.RawMessage(`{"file_path":"a.go"}`), Locations: []string{"/w/a.go", "/w/b.go"}},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 2, AskedPermission: runner.AskedPermission{Line: 9, Turn: 2, ToolCallID: "e1",
					Fields: []runner.FieldSource{
						{Field: "title", Line: 9, Message: "session/request_permission"},
						{Field: "kind", Line: 7, Message: "tool_call"},
						{Field: "rawInput", Line: 7, Message: "tool_call"},
						{Field: "locations", Line: 8, Message: "tool_call_update"},
					}}},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "s.yaml:9", RuleList: approve.ListAllow, OptionID: "ok", OptionKind: approve.AllowOnce,
					Paths: []string{"/w/a.go", "/w/b.go"}}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:9, turn 2: permission request 1 of 2 for tool call e1
request:  kind=edit title="Edit"
from:     kind, rawInput: tool_call, line 7
          locations: tool_call_update, line 8
          title: session/request_permission, line 9
paths:    "/w/a.go"
            from rawInput.file_path of the tool_call (line 7); locations of the tool_call_update (line 8)
          "/w/b.go"
            from locations of the tool_call_update (line 8)

decision: ALLOW by allow rule s.yaml:9
answer:   select option "ok" (allow_once)
`,
		},
		{
			name: "a request before the first turn, with redacted values",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1",
				Request: approve.Request{Kind: "execute", Title: "curl -H 'key: [REDACTED]' x", RawInput: json.RawMessage(`{"command":"curl -H 'key: [REDACTED]' x"}`)},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, ToolCallID: "c1",
					Fields: []runner.FieldSource{
						{Field: "title", Line: 5, Message: "session/request_permission"},
						{Field: "kind", Line: 5, Message: "session/request_permission"},
						{Field: "rawInput", Line: 5, Message: "session/request_permission"},
					}}},
				Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault, Cancelled: true, Commands: []string{"curl -H 'key: [REDACTED]' x"}}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, before the first turn (the request alone: nothing is merged into it): permission request 1 of 1 for tool call c1
request:  kind=execute title="curl -H 'key: [REDACTED]' x"
from:     title, kind, rawInput: session/request_permission, line 5
commands: "curl -H 'key: [REDACTED]' x"
note:     title, rawInput hold redacted values ([REDACTED]): run saw the secrets themselves, so its decision may differ

decision: DENY by the default
answer:   cancelled (no option of the needed kind)
`,
		},
		{
			name: "a transcript's request with a path through a link and an unresolvable one",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1",
				Request: approve.Request{Kind: "execute", Title: "x", Cwd: "/w", RawInput: json.RawMessage(`{"command":"echo > lnk/a > ~/b"}`),
					Resolve: func(p string) (string, error) { return strings.Replace(p, "/w/lnk", "/s", 1), nil }},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "c1",
					Fields: []runner.FieldSource{{Field: "rawInput", Line: 4, Message: "tool_call"}}}},
				Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault, Paths: []string{"/w/lnk/a", "/s/a", "~/b"}}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call c1
request:  kind=execute title="x"
from:     rawInput: tool_call, line 4
paths:    "/w/lnk/a"
            from rawInput.command of the tool_call (line 4)
          "/s/a" ("/w/lnk/a" with its links resolved)
            from rawInput.command of the tool_call (line 4)
          "~/b" (unresolvable: it matches every deny path pattern and no allow one)
            from rawInput.command of the tool_call (line 4)

decision: DENY by the default
`,
		},
		{
			name: "paths an agent chose with line breaks and escapes, alone",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "read", Title: "r"},
				Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault,
					Paths: []string{"/etc/x\ndecision: ALLOW\x1b[2J", "/w/a, /w/b"}}},
			want: `scenario: s (s.yaml:1:1)
request:  kind=read title="r"
paths:    "/etc/x\ndecision: ALLOW\x1b[2J", "/w/a, /w/b"

decision: DENY by the default
`,
		},
		{
			name: "a transcript's path with line breaks and escapes",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1",
				Request: approve.Request{Kind: "edit\x1b[2J", Title: "Edit", Cwd: "/w", Locations: []string{"/w/a.txt\n\ndecision: ALLOW \x1b[32mOK\x1b[0m\n"}},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 7, Turn: 1, ToolCallID: "t1\ndecision: ALLOW",
					Fields: []runner.FieldSource{{Field: "locations", Line: 6, Message: "tool_call"}}}},
				Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault,
					Paths: []string{"/w/a.txt\n\ndecision: ALLOW \x1b[32mOK\x1b[0m\n"}}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:7, turn 1: permission request 1 of 1 for tool call t1\x0adecision: ALLOW
request:  kind=edit\x1b[2J title="Edit"
from:     locations: tool_call, line 6
paths:    "/w/a.txt\n\ndecision: ALLOW \x1b[32mOK\x1b[0m\n"
            from locations of the tool_call (line 6)

decision: DENY by the default
`,
		},
		{
			name: "a transcript's request with run's answer, which agrees",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "read", Cwd: "/w"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "r1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "no", OptionKind: approve.RejectOnce}}},
				Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault, OptionID: "no", OptionKind: approve.RejectOnce}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call r1
request:  kind=read title=""

decision: DENY by the default
answer:   select option "no" (reject_once)
run:      answered DENY, option "no" (reject_once), t.jsonl:6
`,
		},
		{
			name: "run's answer differs: the rules changed",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "read", Cwd: "/w"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "r1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "no", OptionKind: approve.RejectOnce}}},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "s.yaml:4", RuleList: approve.ListAllow, OptionID: "ok", OptionKind: approve.AllowOnce}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call r1
request:  kind=read title=""

decision: ALLOW by allow rule s.yaml:4
answer:   select option "ok" (allow_once)
run:      answered DENY, option "no" (reject_once), t.jsonl:6
differs:  run answered DENY and the rules decide ALLOW now: the rules, the config, or the files and links the paths lead through have changed since the run
`,
		},
		{
			name: "the cwd is gone and run's answer differs: run's stands",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "edit", Cwd: "/gone"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, CwdGone: true, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "e1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "no", OptionKind: approve.RejectOnce}}},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "s.yaml:4", RuleList: approve.ListAllow, OptionID: "ok", OptionKind: approve.AllowOnce, Reason: "allow rule s.yaml:4 matched"}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call e1
request:  kind=edit title=""
note:     the session's cwd "/gone" no longer exists (a workspace copy is removed after a passing attempt): the links run followed in it cannot be followed now, so the rules see the paths as written and may decide otherwise than run did

decision: DENY, as run answered (the rules decide ALLOW by allow rule s.yaml:4 on the paths as written: see the note)
why:      allow rule s.yaml:4 matched
run:      answered DENY, option "no" (reject_once), t.jsonl:6
`,
		},
		{
			name: "the cwd is gone but the rules' verdict is link-free: it stands, and differs",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "execute", Title: "rm -rf build", Cwd: "/gone"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, CwdGone: true, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "c1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "allow", OptionKind: approve.AllowOnce}}},
				Decision: approve.Decision{Verdict: approve.Deny, Rule: "--deny 'execute:rm *'", RuleList: approve.ListDeny, OptionID: "reject", OptionKind: approve.RejectOnce,
					Commands: []string{"rm -rf build"}},
				LinkFree: "the request touches no path"},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call c1
request:  kind=execute title="rm -rf build"
commands: "rm -rf build"
note:     the session's cwd "/gone" no longer exists (a workspace copy is removed after a passing attempt): the links run followed in it cannot be followed now, but the rules' decision does not depend on them: the request touches no path

decision: DENY by deny rule --deny 'execute:rm *'
answer:   select option "reject" (reject_once)
run:      answered ALLOW, option "allow" (allow_once), t.jsonl:6
differs:  run answered ALLOW and the rules decide DENY now: the rules or the config have changed since the run
`,
		},
		{
			// The verdict is link-free: links cannot have made it differ.
			name: "run's answer differs, link-free, in a cwd that exists",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "edit", Cwd: "/w"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "e1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "no", OptionKind: approve.RejectOnce}}},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "--allow edit", RuleList: approve.ListAllow, OptionID: "ok", OptionKind: approve.AllowOnce},
				LinkFree: "no rule has a path matcher"},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call e1
request:  kind=edit title=""

decision: ALLOW by allow rule --allow edit
answer:   select option "ok" (allow_once)
run:      answered DENY, option "no" (reject_once), t.jsonl:6
differs:  run answered DENY and the rules decide ALLOW now: the rules or the config have changed since the run
`,
		},
		{
			// Run saw the secret that the request holds redacted: that
			// alone may make the rules decide otherwise.
			name: "run's answer differs, with redacted values",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1",
				Request: approve.Request{Kind: "execute", Title: "deploy --token [REDACTED]", RawInput: json.RawMessage(`{"command":"deploy --token [REDACTED]"}`)},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "c1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "ok", OptionKind: approve.AllowOnce}}},
				Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault, OptionID: "no", OptionKind: approve.RejectOnce,
					Commands: []string{"deploy --token [REDACTED]"}},
				LinkFree: "the request touches no path"},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call c1
request:  kind=execute title="deploy --token [REDACTED]"
commands: "deploy --token [REDACTED]"
note:     title, rawInput hold redacted values ([REDACTED]): run saw the secrets themselves, so its decision may differ

decision: DENY by the default
answer:   select option "no" (reject_once)
run:      answered ALLOW, option "ok" (allow_once), t.jsonl:6
differs:  run answered ALLOW and the rules decide DENY now: run saw the redacted values themselves (see the note), or the rules or the config have changed since the run
`,
		},
		{
			name: "the cwd is gone, link-free and run agrees",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "execute", Title: "ls", Cwd: "/gone"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, CwdGone: true, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "c1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "allow", OptionKind: approve.AllowOnce}}},
				Decision: approve.Decision{Verdict: approve.Allow, RuleList: approve.ListDefault, OptionID: "allow", OptionKind: approve.AllowOnce},
				LinkFree: "no rule has a path matcher"},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call c1
request:  kind=execute title="ls"
note:     the session's cwd "/gone" no longer exists (a workspace copy is removed after a passing attempt): the links run followed in it cannot be followed now, but the rules' decision does not depend on them: no rule has a path matcher

decision: ALLOW by the default
answer:   select option "allow" (allow_once)
run:      answered ALLOW, option "allow" (allow_once), t.jsonl:6
`,
		},
		{
			name: "the cwd is gone, run cancelled",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "edit", Cwd: "/gone"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, CwdGone: true, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "e1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "cancelled"}}},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "s.yaml:4", RuleList: approve.ListAllow}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call e1
request:  kind=edit title=""
note:     the session's cwd "/gone" no longer exists (a workspace copy is removed after a passing attempt): the links run followed in it cannot be followed now, so the rules see the paths as written and may decide otherwise than run did

decision: ALLOW by allow rule s.yaml:4
run:      answered cancelled, t.jsonl:6
`,
		},
		{
			name: "the agent exited right after run's answer",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "read", Cwd: "/w"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "r1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "ok", OptionKind: approve.AllowOnce}},
					Exit: &output.RecordedExit{Status: replay.AgentExit{Code: new(5)}, Line: 7, Turn: 1, InTurn: true}},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "s.yaml:4", RuleList: approve.ListAllow, OptionID: "ok", OptionKind: approve.AllowOnce}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call r1
request:  kind=read title=""

decision: ALLOW by allow rule s.yaml:4
answer:   select option "ok" (allow_once)
run:      answered ALLOW, option "ok" (allow_once), t.jsonl:6
exit:     the recorded agent exited with code 5 right after run's answer, t.jsonl:7
`,
		},
		{
			name: "the agent was killed later, in another turn",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "read", Cwd: "/w"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "r1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "ok", OptionKind: approve.AllowOnce}},
					Exit: &output.RecordedExit{Status: replay.AgentExit{Signal: "SIGSEGV"}, Line: 30, Turn: 3, InTurn: true}},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "s.yaml:4", RuleList: approve.ListAllow, OptionID: "ok", OptionKind: approve.AllowOnce}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call r1
request:  kind=read title=""

decision: ALLOW by allow rule s.yaml:4
answer:   select option "ok" (allow_once)
run:      answered ALLOW, option "ok" (allow_once), t.jsonl:6
exit:     the recorded agent was killed by SIGSEGV later, in turn 3, t.jsonl:30
`,
		},
		{
			name: "the agent exited between turns",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "read", Cwd: "/w"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "r1",
					Answer: &runner.RecordedAnswer{Line: 6, Outcome: "selected", OptionID: "ok", OptionKind: approve.AllowOnce}},
					Exit: &output.RecordedExit{Status: replay.AgentExit{Code: new(0)}, Line: 9, Turn: 1}},
				Decision: approve.Decision{Verdict: approve.Allow, Rule: "s.yaml:4", RuleList: approve.ListAllow, OptionID: "ok", OptionKind: approve.AllowOnce}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, turn 1: permission request 1 of 1 for tool call r1
request:  kind=read title=""

decision: ALLOW by allow rule s.yaml:4
answer:   select option "ok" (allow_once)
run:      answered ALLOW, option "ok" (allow_once), t.jsonl:6
exit:     the recorded agent exited with code 0 later, after turn 1, t.jsonl:9
`,
		},
		{
			name: "the agent was killed before run answered, by a signal an edit made strange",
			e: output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: approve.Request{Kind: "read", Cwd: "/w"},
				Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, ToolCallID: "r1"},
					Exit: &output.RecordedExit{Status: replay.AgentExit{Signal: "SIG\x1b[2J\ndecision: ALLOW"}, Line: 6}},
				Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault, Cancelled: true}},
			want: `scenario: s (s.yaml:1:1)
asked:    t.jsonl:5, before the first turn (the request alone: nothing is merged into it): permission request 1 of 1 for tool call r1
request:  kind=read title=""

decision: DENY by the default
answer:   cancelled (no option of the needed kind)
exit:     the recorded agent was killed by SIG\x1b[2J\x0adecision: ALLOW before run answered, t.jsonl:6
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
			_, line, _ := strings.Cut(buf.String(), "\ndecision: ")
			if said := strings.TrimSuffix(strings.Fields(line)[0], ","); !strings.EqualFold(said, string(tt.e.Verdict())) {
				t.Errorf("Verdict() = %q; the decision line says %q", tt.e.Verdict(), said)
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

// TestExplainPathNoteRedactedWhole: the note of a path found through a
// link quotes the path as the call gives it, cut at 200 bytes; the cut is
// redacted knowing the whole path (Request.Excerpt), so that a secret it
// goes through shows no start once the text is redacted, as explain
// prints it.
func TestExplainPathNoteRedactedWhole(t *testing.T) {
	const secret = "tokenvalue-abcdef99xyz"
	red := redact.New(secret)
	pad := strings.Repeat("p", 200-len("/w/lnk/")-len("token"))
	via := "/w/lnk/" + pad + secret + "/x"
	req := approve.Request{Kind: "read", Cwd: "/w", Locations: []string{via},
		Resolve: func(p string) (string, error) { return strings.Replace(p, "/w/lnk", "/s", 1), nil },
		Excerpt: func(text string, end int) string { return red.Excerpt(text, 0, end, false) }}
	e := output.Explanation{Scenario: "s", Pos: "s.yaml:1:1", Request: req,
		Asked: &output.Asked{Transcript: "t.jsonl", Nth: 1, Of: 1, AskedPermission: runner.AskedPermission{Line: 5, Turn: 1, ToolCallID: "r1",
			Fields: []runner.FieldSource{{Field: "locations", Line: 4, Message: "tool_call"}}}},
		Decision: approve.Decision{Verdict: approve.Deny, RuleList: approve.ListDefault, Paths: []string{via, "/s/" + pad + secret + "/x"}}}
	var buf strings.Builder
	if err := output.Explain(&buf, e); err != nil {
		t.Fatal(err)
	}
	got := red.String(buf.String())
	if want := `("/w/lnk/` + pad + `[REDACTED]…" with its links resolved)`; !strings.Contains(got, want) || strings.Contains(got, "token") {
		t.Errorf("the note shows the secret's start; want %s in:\n%s", want, got)
	}
}
