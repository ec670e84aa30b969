package approve_test

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
)

// TestParseFlagRule: each form of the short grammar maps onto the rule a
// scenario file would write, with the flag and its value as the rule's
// position.
func TestParseFlagRule(t *testing.T) {
	tests := []struct {
		flag, value string
		want        approve.Rule
	}{
		{"--allow", "read", approve.Rule{Pos: "--allow read", Kind: []string{"read"}}},
		{"--allow", "switch_mode", approve.Rule{Pos: "--allow switch_mode", Kind: []string{"switch_mode"}}},
		{"--allow", "execute:go test *", approve.Rule{Pos: "--allow 'execute:go test *'", Kind: []string{"execute"}, Command: []string{"go test *"}}},
		{"--allow", "edit:src/**", approve.Rule{Pos: "--allow 'edit:src/**'", Kind: []string{"edit"}, Path: []string{"src/**"}}},
		{"--allow", "search: docs/** ", approve.Rule{Pos: "--allow 'search: docs/** '", Kind: []string{"search"}, Path: []string{"docs/**"}}},
		{"--deny", "path:**/.env", approve.Rule{Pos: "--deny 'path:**/.env'", Path: []string{"**/.env"}}},
		{"--deny", "command:docker run -p 80:80 *", approve.Rule{Pos: "--deny 'command:docker run -p 80:80 *'", Command: []string{"docker run -p 80:80 *"}}},
		{"--deny", "title:*delete*", approve.Rule{Pos: "--deny 'title:*delete*'", Title: []string{"*delete*"}}},
		{"--deny", "delete", approve.Rule{Pos: "--deny delete", Kind: []string{"delete"}}},
		{"--allow", "tool:mcp__github__*", approve.Rule{Pos: "--allow 'tool:mcp__github__*'", Tool: []string{"mcp__github__*"}}},
	}
	for _, tt := range tests {
		got, err := approve.ParseFlagRule(tt.flag, tt.value)
		if err != nil {
			t.Errorf("%s %q: %v", tt.flag, tt.value, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.flag, tt.value, diff)
		}
		if msgs := got.Validate(); len(msgs) > 0 {
			t.Errorf("%s %q: the rule does not validate: %v", tt.flag, tt.value, msgs)
		}
	}
}

// TestParseFlagRuleErrors: a value that is not a rule says what to write.
func TestParseFlagRuleErrors(t *testing.T) {
	tests := []struct{ value, want string }{
		{"", "no kind or matcher: write KIND, KIND:PATTERN or MATCHER:PATTERN, e.g. --allow read"},
		{":x", "no kind or matcher"},
		{"go test *", `"go test *" is neither a tool kind (read, edit, delete, move, search, execute, think, fetch, switch_mode, other) nor a matcher (command, path, title, tool)`},
		{"go test *", "(a command is written execute:COMMAND: 'execute:go test *')"},
		{"exec:go test *", `(did you mean execute?)`},
		{"Edit:src/**", `(did you mean edit?)`},
		{"tools:Bash", `(did you mean tool?)`},
		{"tool", "tool needs a pattern after ':', e.g. 'tool:mcp__github__*'"},
		{"execute:", `the pattern after "execute:" is empty: write execute alone for every execute call`},
		{"path:", `the pattern after "path:" is empty, e.g. 'path:**/.env'`},
		{"command", "command needs a pattern after ':', e.g. 'command:git push *'"},
		{"fetch:https://example.com/*", "a pattern follows only execute (a command) and read, edit, delete, move, search (a path); write fetch alone for every fetch call, or match the title: 'title:*delete*'"},
		{"edit:src/[", `path: bad pattern "src/[": malformed [...] class`},
		{"read:**/[z-a]", `path: bad pattern "**/[z-a]": range z-a is empty, so [...] matches nothing: write a-z`},
		{"edit:{a,b", `path: bad pattern "{a,b": {a,b} is not a glob here: write one pattern for each`},
		{"path:src/***", `path: bad pattern "src/***": ** matches any number of directories only as a whole segment`},
		{"tool:[", `tool: bad pattern "[": [...] is not a glob here`},
		{"title:{a,b}", `title: bad pattern "{a,b}": {a,b} is not a glob here: write one pattern for each`},
	}
	for _, tt := range tests {
		_, err := approve.ParseFlagRule("--allow", tt.value)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--allow %q: error %v, want it to contain %q", tt.value, err, tt.want)
		}
	}
}

// TestFlagRulesDecide: rules from flags decide as the same rules from a
// file would: deny beats allow, an allowed command line must be allowed
// whole, and the decision names the flag.
func TestFlagRulesDecide(t *testing.T) {
	rule := func(flag, value string) approve.Rule {
		t.Helper()
		r, err := approve.ParseFlagRule(flag, value)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	p := &approve.Policy{
		Allow: []approve.Rule{rule("--allow", "execute:go test *"), rule("--allow", "edit:src/**")},
		Deny:  []approve.Rule{rule("--deny", "path:**/.env")},
	}
	exec := func(line string) approve.Request {
		raw, _ := json.Marshal(map[string]string{"command": line})
		return approve.Request{Kind: "execute", RawInput: raw, Cwd: "/w"}
	}
	edit := func(path string) approve.Request {
		return approve.Request{Kind: "edit", Locations: []string{path}, Cwd: "/w"}
	}
	tests := []struct {
		req     approve.Request
		verdict approve.Verdict
		rule    string
	}{
		{exec("go test ./..."), approve.Allow, "--allow 'execute:go test *'"},
		{exec("go test ./... && curl x | sh"), approve.Deny, ""},
		{edit("/w/src/a.go"), approve.Allow, "--allow 'edit:src/**'"},
		{edit("/w/src/.env"), approve.Deny, "--deny 'path:**/.env'"},
		{edit("/w/README.md"), approve.Deny, ""},
		{approve.Request{Kind: "read", Locations: []string{"/w/src/a.go"}, Cwd: "/w"}, approve.Deny, ""},
	}
	for _, tt := range tests {
		d := p.Evaluate(tt.req)
		if d.Verdict != tt.verdict || d.Rule != tt.rule {
			t.Errorf("%s %s: %s by %q, want %s by %q (%s)", tt.req.Kind, tt.req.RawInput, d.Verdict, d.Rule, tt.verdict, tt.rule, d.Reason)
		}
	}
}

// TestPolicyWithRules: the rules come after the policy's own, its default
// and source stay, the policy itself is unchanged, and nil is a policy
// without rules (default deny).
func TestPolicyWithRules(t *testing.T) {
	own := approve.Rule{Pos: "s.yaml:4", Kind: []string{"read"}}
	added := approve.Rule{Pos: "--allow edit", Kind: []string{"edit"}}
	denied := approve.Rule{Pos: "--deny delete", Kind: []string{"delete"}}
	p := &approve.Policy{Default: approve.Allow, Allow: []approve.Rule{own}, Source: "--allow-all"}
	got := p.WithRules([]approve.Rule{added}, []approve.Rule{denied})
	want := &approve.Policy{Default: approve.Allow, Allow: []approve.Rule{own, added}, Deny: []approve.Rule{denied}, Source: "--allow-all"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WithRules (-want +got):\n%s", diff)
	}
	if len(p.Allow) != 1 || len(p.Deny) != 0 {
		t.Errorf("the policy changed: %+v", p)
	}
	var none *approve.Policy
	got = none.WithRules([]approve.Rule{added}, nil)
	if got.Default != "" || len(got.Allow) != 1 || got.Evaluate(approve.Request{Kind: "read"}).Verdict != approve.Deny {
		t.Errorf("nil.WithRules = %+v, want the rule alone, denying the rest", got)
	}
}

// TestCheckKind: a kind that is not one of Kinds is an error that lists
// them and names the kind a misspelt one means, as --allow does.
func TestCheckKind(t *testing.T) {
	for _, k := range approve.Kinds() {
		if err := approve.CheckKind(k); err != nil {
			t.Errorf("CheckKind(%q) = %v; want nil", k, err)
		}
	}
	tests := []struct{ kind, want string }{
		{"exec", `unknown kind "exec": want one of read, edit, delete, move, search, execute, think, fetch, switch_mode, other (did you mean execute?)`},
		{"EXECUTE", `unknown kind "EXECUTE": want one of read, edit, delete, move, search, execute, think, fetch, switch_mode, other (did you mean execute?)`},
		{"nonsense", `unknown kind "nonsense": want one of read, edit, delete, move, search, execute, think, fetch, switch_mode, other`},
	}
	for _, tt := range tests {
		if err := approve.CheckKind(tt.kind); err == nil || err.Error() != tt.want {
			t.Errorf("CheckKind(%q) = %v; want %q", tt.kind, err, tt.want)
		}
	}
}
