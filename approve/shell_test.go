package approve_test

import (
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/approve"
	"github.com/google/go-cmp/cmp"
)

func TestSplitCommands(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"empty", "", nil},
		{"blank", " \t\n ", nil},
		{"only separators", ";; && |", nil},
		{"single", "go test ./...", []string{"go test ./..."}},
		{"collapse whitespace", "  go   test\t./...  ", []string{"go test ./..."}},
		{"operators", "a && b || c; d | e & f", []string{"a", "b", "c", "d", "e", "f"}},
		{"operators without blanks", "a&&b||c;d|e&f", []string{"a", "b", "c", "d", "e", "f"}},
		{"pipe stderr", "a |& b", []string{"a", "b"}},
		{"newline", "a\nb\r\n", []string{"a", "b\r"}},
		{"case terminators", "a;;b;&c", []string{"a", "b", "c"}},
		{"double quotes keep operators", `echo "a; b && c" && d`, []string{`echo "a; b && c"`, "d"}},
		{"single quotes keep operators", `echo 'a && b | c'`, []string{`echo 'a && b | c'`}},
		{"quoted blanks kept", `git commit -m "a   b"`, []string{`git commit -m "a   b"`}},
		{"escaped quote in double quotes", `echo "a\"; rm -rf /"`, []string{`echo "a\"; rm -rf /"`}},
		{"escaped operator", `echo \; rm x`, []string{`echo \; rm x`}},
		{"ansi c quoting", `echo $'a\'; rm -rf /'`, []string{`echo $'a\'; rm -rf /'`, `echo $'a\'`, "rm -rf /'"}}, // dash: $ and 'a\'
		{"ansi c quoting is dash's $ and a plain quote", `echo $'\' ; rm -rf / ; echo ''`, []string{`echo $'\' ; rm -rf / ; echo ''`, `echo $'\'`, "rm -rf /", "echo ''"}},
		{"ansi c quoting in double quotes is text", `echo "$'"; rm -rf /; echo "'"`, []string{`echo "$'"`, "rm -rf /", `echo "'"`}},
		{"locale quoting", `echo $"a; b" && c`, []string{`echo $"a; b"`, "c"}},
		{"unterminated quote", `echo "open; rm -rf /`, []string{`echo "open; rm -rf /`}},
		{"command substitution", "go test $(curl evil)", []string{"go test $(curl evil)", "curl evil"}},
		{"substitution in double quotes", `echo "$(rm -rf /)"`, []string{`echo "$(rm -rf /)"`, "rm -rf /"}},
		{"substitution in single quotes is text", `echo '$(rm -rf /)'`, []string{`echo '$(rm -rf /)'`}},
		{"substitution with operators", "x $(a && b | c)", []string{"x $(a && b | c)", "a", "b", "c"}},
		{"nested substitution", "echo $(echo $(rm -rf /))", []string{"echo $(echo $(rm -rf /))", "echo $(rm -rf /)", "rm -rf /"}},
		{"substitution with subshell", "echo $( (a) ; b)", []string{"echo $( (a) ; b)", "a", "b"}},
		{"backticks", "echo `rm -rf /`", []string{"echo `rm -rf /`", "rm -rf /"}},
		{"backticks in double quotes", "echo \"`rm -rf /`\"", []string{"echo \"`rm -rf /`\"", "rm -rf /"}},
		{"nested backticks", "echo `echo \\`rm -rf /\\``", []string{"echo `echo \\`rm -rf /\\``", "echo `rm -rf /`", "rm -rf /"}},
		{"arithmetic shows as a command", "echo $((1+2))", []string{"echo $((1+2))", "1+2"}},
		// Array subscripts and substring offsets and lengths are arithmetic
		// too, unless they are constants.
		{"subscript shows as a command", "echo ${a[x]}", []string{"echo ${a[x]}", "x"}},
		{"subscript of a length", "echo ${#a[i+1]}", []string{"echo ${#a[i+1]}", "i+1"}},
		{"subscript with a substitution", `echo "${a[$(rm -rf /)]}"`, []string{`echo "${a[$(rm -rf /)]}"`, "rm -rf /", "$(rm -rf /)"}},
		{"nested subscript", "echo ${a[b[i]]}", []string{"echo ${a[b[i]]}", "b[i]"}},
		{"offset shows as a command", "echo ${x:n}", []string{"echo ${x:n}", "n"}},
		{"offset and length show as a command", "echo ${x:0:n}", []string{"echo ${x:0:n}", "0:n"}},
		{"constant subscript", "echo ${a[0]} ${a[-1]} ${a[@]} ${a[*]} ${#a[@]}", []string{"echo ${a[0]} ${a[-1]} ${a[@]} ${a[*]} ${#a[@]}"}},
		{"constant offset and length", "echo ${x:0:3} ${x: -3} ${x:(-2):1} ${@:2}", []string{"echo ${x:0:3} ${x: -3} ${x:(-2):1} ${@:2}"}},
		{"defaults are no offsets", "echo ${x:-a} ${x:=b} ${x:?c} ${x:+d}", []string{"echo ${x:-a} ${x:=b} ${x:?c} ${x:+d}"}},
		{"shift in arithmetic is no heredoc", "echo $((1<<2))\nrm -rf /", []string{"echo $((1<<2))", "1<<2", "rm -rf /"}},
		{"arithmetic command", "((x<<2)) && ls\nrm -rf /", []string{"x<<2", "ls", "rm -rf /"}},
		{"substitution starting with a subshell", "echo $((rm -rf /) )", []string{"echo $((rm -rf /) )", "rm -rf /"}},
		{"nested subshells", "((cd x) && ls)", []string{"cd x", "ls"}},
		{"function keyword", "function f { rm -rf /; }; f", []string{"rm -rf /", "f"}},
		{"function parens", "f() { rm -rf /; }; f", []string{"f", "rm -rf /"}},
		{"time -p", "time -p go test", []string{"go test"}},
		{"repeats dropped", "ls; ls && ls $(ls)", []string{"ls", "ls $(ls)"}},
		{"parameter expansion with substitution", "echo ${x:-$(rm -rf /)}", []string{"echo ${x:-$(rm -rf /)}", "rm -rf /"}},
		// In "${x:-…}" a ' is text to dash and bash --posix, a quote to bash.
		{"single quote in quoted parameter", `echo "${x:-'}"; rm -rf /; echo "'"`, []string{`echo "${x:-'}"; rm -rf /; echo "'"`, `echo "${x:-'}"`, "rm -rf /", `echo "'"`}},
		{"single quote in quoted parameter hides a quote from dash", `echo "${x:-'"'}"; rm -rf /; echo "}"`, []string{`echo "${x:-'"'}"`, "rm -rf /", `echo "}"`, `echo "${x:-'"'}"; rm -rf /; echo "}"`}},
		{"single quotes quote after # and % everywhere", `echo "${x#'"'}"; rm -rf /; echo "}"`, []string{`echo "${x#'"'}"`, "rm -rf /", `echo "}"`}},
		{"single quotes quote after ^ in bash", `echo "${x^'"'}"; rm -rf /; echo "}"`, []string{`echo "${x^'"'}"`, "rm -rf /", `echo "}"`, `echo "${x^'"'}"; rm -rf /; echo "}"`}},
		{"ansi c quoting in quoted pattern", `echo "${x#$'\''}"; rm -rf /; echo "'}"`, []string{`echo "${x#$'\''}"`, "rm -rf /", `echo "'}"`, `echo "${x#$'\''}"; rm -rf /; echo "'}"`}},
		{"first brace closes a parameter", `echo "${x#{}"; rm -rf /; echo "}"`, []string{`echo "${x#{}"`, "rm -rf /", `echo "}"`}},
		{"hash in parameter is no comment", "echo ${x:- #}; rm -rf /", []string{"echo ${x:- #}", "rm -rf /"}},
		{"process substitution", "diff <(ls a) >(ls b)", []string{"diff <(ls a) >(ls b)", "ls a", "ls b"}},
		{"subshell", "(cd x && rm -rf /)", []string{"cd x", "rm -rf /"}},
		{"brace group", "{ a; b; }", []string{"a", "b"}},
		{"stray close paren", "a ) b", []string{"a", "b"}},
		{"redirections stay", "cmd 2>&1 | tee log", []string{"cmd 2>&1", "tee log"}},
		{"redirect both and background", "cmd &>/dev/null &", []string{"cmd &>/dev/null", "cmd", ">/dev/null"}}, // dash: cmd & >/dev/null
		{"redirect both hides a command from bash", "echo hi &>/dev/null rm -rf /", []string{"echo hi &>/dev/null rm -rf /", "echo hi", ">/dev/null rm -rf /"}},
		{"append both", "echo hi &>>log rm x", []string{"echo hi &>>log rm x", "echo hi", ">>log rm x"}},
		{"redirect input dup", "cmd <&0 >&2", []string{"cmd <&0 >&2"}},
		{"clobber", "echo x >| f", []string{"echo x >| f"}},
		{"escaped > before a pipe", `echo a\>|rm -rf /`, []string{`echo a\>`, "rm -rf /"}},
		{"escaped > before &", `echo a\>&rm -rf /`, []string{`echo a\>`, "rm -rf /"}},
		{"escaped < before &", `ls \<&rm -rf /`, []string{`ls \<`, "rm -rf /"}},
		{"quoted > before a pipe", `echo '>'|rm -rf /`, []string{`echo '>'`, "rm -rf /"}},
		{"escaped here-document delimiter > before a pipe", `cat <<\>|rm -rf /`, []string{`cat <<\>`, "rm -rf /"}},
		{"output redirect", "cmd > out.txt", []string{"cmd > out.txt"}},
		{"comment", "echo a # b; rm -rf /", []string{"echo a"}},
		{"comment ends at newline", "echo # it's\nrm -rf /", []string{"echo", "rm -rf /"}},
		{"hash inside word", "echo a#b; c", []string{"echo a#b", "c"}},
		{"line continuation", "go test \\\n  ./...", []string{"go test ./..."}},
		{"if", "if true; then rm -rf /; fi", []string{"true", "rm -rf /"}},
		{"for", "for f in *.go; do gofmt -l $f; done", []string{"for f in *.go", "gofmt -l $f"}},
		{"while with redirect", "while read l; do echo $l; done < file", []string{"read l", "echo $l", "< file"}},
		{"negation", "! grep x f", []string{"grep x f"}},
		{"time", "time go test", []string{"go test"}},
		{"quoted reserved word kept", `"if" x`, []string{`"if" x`}},
		{"assignments kept", "X=1 go test", []string{"X=1 go test"}},
		{"heredoc body is data", "cat <<EOF\nit's $(rm -rf /)\nrm -rf ~\nEOF\nls", []string{"cat <<EOF", "rm -rf /", "ls"}},
		{"quoted heredoc is literal", "cat <<'EOF'\n$(rm -rf /)\nEOF\nls", []string{"cat <<'EOF'", "ls"}},
		{"heredoc strip tabs", "cat <<-EOF\n\tx\n\tEOF\nls", []string{"cat <<-EOF", "ls"}},
		{"heredoc after command on same line", "cat <<EOF; rm -rf /\nbody\nEOF", []string{"cat <<EOF", "rm -rf /"}},
		{"heredoc delimiter with blank", "cat << EOF > f\nx\nEOF\nls", []string{"cat << EOF > f", "ls"}},
		{"here-string", `cat <<< "$(rm x)"`, []string{`cat <<< "$(rm x)"`, "rm x"}},
		// Bash and dash remove a backslash-newline from an unquoted body's
		// line: bash everywhere, dash only at the line's start.
		{"heredoc delimiter split by a line continuation", "cat <<EOF\nbody\nE\\\nOF\nrm -rf /\nEOF\n", []string{"cat <<EOF", "rm -rf /", "EOF"}},
		{"heredoc line continuation before the delimiter", "cat <<EOF\n\\\nEOF\nrm -rf /\n", []string{"cat <<EOF", "rm -rf /"}},
		{"heredoc continued line is one line", "cat <<EOF\nx\\\nEOF\nit's\nEOF\nrm -rf /\necho '\n", []string{"cat <<EOF", "rm -rf /", "echo '\n"}},
		{"heredoc escaped backslash ends no line", "cat <<EOF\nx\\\\\nEOF\nrm -rf /\n", []string{"cat <<EOF", "rm -rf /"}},
		{"heredoc strip tabs after joining", "cat <<-EOF\n\tE\\\nOF\nrm -rf /\nEOF\n", []string{"cat <<-EOF", "rm -rf /", "EOF"}},
		{"heredoc joined tab is no leading tab", "cat <<-EOF\nE\\\n\tOF\nrm -rf /\nEOF\n", []string{"cat <<-EOF"}},
		{"quoted heredoc does not join", "cat <<'EOF'\nE\\\nOF\nrm -rf /\nEOF\nls", []string{"cat <<'EOF'", "ls"}},
		{"dash ends a heredoc later", "cat <<EOF\nE\\\nOF\necho '\nEOF\nrm -rf /\necho '\n", []string{"cat <<EOF", "echo '\nEOF\nrm -rf /\necho '", "rm -rf /", "echo '\n"}},
		{"heredoc delimiter with a line continuation", "cat <<E\\\nOF\nit's\nEOF\nrm -rf /\n", []string{"cat <<EOF", "rm -rf /"}},
		{"empty quoted heredoc delimiter", "cat <<''\nit's\n\nrm -rf /\n", []string{"cat <<''", "rm -rf /"}},
		{"heredoc delimiter with an escaped quote", "cat <<\"E\\\"OF\"\nit's\nE\"OF\nrm -rf /\n", []string{`cat <<"E\"OF"`, "rm -rf /"}},
		{"heredoc delimiter with a substitution is text", "cat <<$(x y)\nit's\n$(x y)\nrm -rf /\n", []string{"cat <<$(x y)", "rm -rf /"}},
		{"heredoc delimiter in ansi c quotes", "cat <<$'EOF'\nx\nEOF\nrm -rf /\n$EOF\n", []string{"cat <<$'EOF'", "rm -rf /", "$EOF"}},
		{"heredoc delimiter of two lines", "cat <<\"a\nb\"\nx\na\nb\nrm -rf /\n", []string{"cat <<\"a\nb\"", "cat <<\"a", "b\"", "x", "a", "b", "rm -rf /"}}, // dash matches it across lines: not followed
		{"heredoc in a substitution ends at delimiter and paren in bash", "echo $(cat <<EOF\nx\nEOF);rm -rf /\nEOF\n)", []string{"echo $(cat <<EOF\nx\nEOF)", "cat <<EOF", "rm -rf /", "EOF", "echo $(cat <<EOF\nx\nEOF);rm -rf /\nEOF\n)"}},
		{"heredoc before a substitution is not read in it", "cat <<EOF; echo $(\nrm -rf /\nEOF\n)\nbody\nEOF\n", []string{"cat <<EOF", "echo $(\nrm -rf /\nEOF\n)", "rm -rf /", "EOF"}},
		{"heredoc left open in a substitution", "echo $(cat <<EOF)\nit's\nEOF\nrm -rf /\necho '\n", []string{"echo $(cat <<EOF)", "cat <<EOF", "rm -rf /", "echo '\n", "it's\nEOF\nrm -rf /\necho '"}},
		// Constructs of bash alone that are not followed: the line is also
		// cut at every operator.
		{"regex in [[", "[[ x =~ (#) ]]; rm -rf /", []string{"[[ x =~", "#", "]]", "rm -rf /"}},
		{"regex in [[ with a heredoc", "[[ x =~ (<<E) ]]\nrm -rf /\nE", []string{"[[ x =~", "<<E", "]]", "rm -rf /", "E"}},
		{"extglob", "echo @(a|#) ; rm -rf /", []string{"echo @", "a", "#", "rm -rf /"}},
		{"old arithmetic", "false && echo $[ #];rm -rf /", []string{"false", "echo $[", "echo $[ #]", "rm -rf /"}},
		{"array subscript", "a[ #]; rm -rf /", []string{"a[", "a[ #]", "rm -rf /"}},
		{"array subscript with a shift", "a[1 <<E]=1\nrm -rf /\nE", []string{"a[1 <<E]=1", "rm -rf /", "E"}},
		{"bash 5.3 function substitution", "echo ${ rm -rf /; }", []string{"echo ${ rm -rf /; }", "echo $", "rm -rf /", "${ rm -rf /; }"}},
		{"utf-8", "echo héllo && ls", []string{"echo héllo", "ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approve.SplitCommands(tt.line)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SplitCommands(%q) mismatch (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestSplitCommandsDeepNesting(t *testing.T) {
	for _, open := range []string{"$(", "${x:-$(", "<(", "\"$("} {
		line := strings.Repeat(open, 10000) + "rm -rf /"
		got := approve.SplitCommands(line)
		found := false
		for _, c := range got {
			if strings.HasPrefix(c, "rm -rf /") {
				found = true
			}
		}
		if !found {
			t.Errorf("SplitCommands(%q×10000 + \"rm -rf /\") = %d commands without \"rm -rf /\"", open, len(got))
		}
	}
}

// TestSplitCommandsNestedArithmetic: arithmetic nested in arithmetic is
// split once, not once for each level around it (which would take 2^40
// splits here), and the innermost variable shows up as a command.
func TestSplitCommandsNestedArithmetic(t *testing.T) {
	for open, close := range map[string]string{"${a[": "]}", "${x:": "}", "${a[\"": "\"]}", "$((\"": "\"))"} {
		line := "echo " + strings.Repeat(open, 40) + "i" + strings.Repeat(close, 40)
		got := approve.SplitCommands(line)
		if !slices.ContainsFunc(got, func(c string) bool { return strings.Trim(c, "\"`") == "i" }) {
			t.Errorf("SplitCommands(%q×40 i %q×40) = %d commands without \"i\"", open, close, len(got))
		}
		p := &approve.Policy{Allow: []approve.Rule{{Command: []string{"echo *"}}}, Deny: []approve.Rule{{Command: []string{"rm *"}}}}
		if d := p.Evaluate(execReq(line)); d.Verdict != approve.Deny {
			t.Errorf("%q×40 i %q×40 is allowed by \"echo *\": %s", open, close, d.Reason)
		}
	}
}

func TestDecisionCommands(t *testing.T) {
	tests := []struct {
		name string
		req  approve.Request
		want []string
	}{
		{
			name: "claude execute",
			req: approve.Request{Kind: "execute", Title: "touch made-by-bash.txt && echo hello-from-bash",
				RawInput: json.RawMessage(`{"command":"touch made-by-bash.txt && echo hello-from-bash","description":"Print a greeting"}`)},
			want: []string{"touch made-by-bash.txt", "echo hello-from-bash"},
		},
		{
			name: "codex argv wrapping bash",
			req: approve.Request{Kind: "execute", Title: "ignored",
				RawInput: json.RawMessage(`{"command":["/bin/bash","-lc","touch made-by-codex.txt && echo hello-from-codex"],"cwd":"/home/user/project","reason":"x"}`)},
			want: []string{"touch made-by-codex.txt", "echo hello-from-codex"},
		},
		{
			name: "gemini title",
			req:  approve.Request{Kind: "execute", Title: "touch made-by-gemini.txt && echo hello-from-gemini"},
			want: []string{"touch made-by-gemini.txt", "echo hello-from-gemini"},
		},
		{
			name: "argv words quoted as needed; globs, ~ and non-ASCII text as written",
			req:  approve.Request{RawInput: json.RawMessage(`{"command":["ls","*.go","~/x^","café","a b","it's",""]}`)},
			want: []string{`ls *.go ~/x^ café 'a b' 'it'\''s' ''`},
		},
		{
			name: "argv sh -c",
			req:  approve.Request{RawInput: json.RawMessage(`{"command":["sh","-c","a; b"]}`)},
			want: []string{"a", "b"},
		},
		{
			name: "argv zsh with separate options",
			req:  approve.Request{RawInput: json.RawMessage(`{"command":["zsh","-e","-o","pipefail","-c","ls | wc"]}`)},
			want: []string{"ls", "wc"},
		},
		{
			name: "argv shell script args are seen",
			req:  approve.Request{RawInput: json.RawMessage(`{"command":["bash","-c","$0 $1","rm","x y"]}`)},
			want: []string{"$0 $1", "rm 'x y'"},
		},
		{
			name: "argv shell without -c is joined",
			req:  approve.Request{RawInput: json.RawMessage(`{"command":["bash","script.sh"]}`)},
			want: []string{"bash script.sh"},
		},
		{
			name: "argv joined with quoting",
			req:  approve.Request{RawInput: json.RawMessage(`{"command":["git","commit","-m","a; rm -rf /","", 3]}`)},
			want: []string{"git commit -m 'a; rm -rf /' '' 3"},
		},
		{
			name: "terminal create shape",
			req:  approve.Request{RawInput: json.RawMessage(`{"command":"bash","args":["-lc","go test ./..."]}`)},
			want: []string{"go test ./..."},
		},
		{
			name: "terminal create program and args",
			req:  approve.Request{RawInput: json.RawMessage(`{"command":"npm","args":["run","build"]}`)},
			want: []string{"npm run build"},
		},
		{
			name: "execute with empty rawInput uses title",
			req:  approve.Request{Kind: "execute", Title: "ls -la", RawInput: json.RawMessage(`{}`)},
			want: []string{"ls -la"},
		},
		{
			name: "execute with blank command uses title",
			req:  approve.Request{Kind: "execute", Title: "ls", RawInput: json.RawMessage(`{"command":"  "}`)},
			want: []string{"ls"},
		},
		{
			name: "execute with invalid rawInput uses title",
			req:  approve.Request{Kind: "execute", Title: "ls", RawInput: json.RawMessage(`{"command":`)},
			want: []string{"ls"},
		},
		{
			name: "command of another type is ignored",
			req:  approve.Request{Kind: "execute", Title: "ls", RawInput: json.RawMessage(`{"command":{"x":1}}`)},
			want: []string{"ls"},
		},
		{
			name: "non-execute without command runs none",
			req:  approve.Request{Kind: "edit", Title: "Write a && b", RawInput: json.RawMessage(`{"file_path":"/x"}`)},
			want: nil,
		},
		{
			name: "missing kind with command (claude-code-acp)",
			req:  approve.Request{Title: "`ls`", RawInput: json.RawMessage(`{"command":"ls"}`)},
			want: []string{"ls"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approve.DenyAll().Evaluate(tt.req).Commands
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decision.Commands mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecisionPaths(t *testing.T) {
	tests := []struct {
		name string
		req  approve.Request
		want []string
	}{
		{
			name: "claude write: same path three times",
			req: approve.Request{Cwd: "/home/user/project",
				RawInput:  json.RawMessage(`{"file_path":"/home/user/project/hello.txt","content":"x"}`),
				DiffPaths: []string{"/home/user/project/hello.txt"},
				Locations: []string{"/home/user/project/hello.txt"}},
			want: []string{"/home/user/project/hello.txt"},
		},
		{
			name: "order and cleaning",
			req: approve.Request{Cwd: "/p",
				Locations: []string{"/p/./a/../b", ""},
				DiffPaths: []string{"c/d"},
				RawInput:  json.RawMessage(`{"paths":["e", 3, "/abs"], "path":"../up", "cwd":"/not/a/path", "notebook_path":"n.ipynb"}`)},
			want: []string{"/p/b", "/p/c/d", "/up", "/p/e", "/abs", "/p/n.ipynb"},
		},
		{
			name: "move fields",
			req:  approve.Request{Cwd: "/p", RawInput: json.RawMessage(`{"source":"a","destination":"b","old_path":"c","new_path":"d"}`)},
			want: []string{"/p/a", "/p/b", "/p/c", "/p/d"},
		},
		{
			name: "no cwd keeps relative paths",
			req:  approve.Request{Locations: []string{"./a/b/../c", "/x"}},
			want: []string{"a/c", "/x"},
		},
		{
			name: "no paths",
			req:  approve.Request{Kind: "execute", RawInput: json.RawMessage(`{"command":"cat /etc/passwd"}`)},
			want: nil,
		},
		{
			name: "redirection targets",
			req: approve.Request{Kind: "execute", Cwd: "/p", Locations: []string{"/p/a"},
				RawInput: json.RawMessage(`{"command":"cat <in 2>>err.log >'/o ut' && bash -c 'x >../up' >/dev/null 2>&1 && echo >$HOME/h"}`)},
			want: []string{"/p/a", "/p/in", "/p/err.log", "/o ut", "/up", "$HOME/h"},
		},
		{
			name: "relative to Dir, where the command runs",
			req: approve.Request{Kind: "execute", Cwd: "/p", Dir: "/p/sub", Locations: []string{"a"},
				RawInput: json.RawMessage(`{"command":"echo x > out && cat < ../in"}`)},
			want: []string{"/p/sub/a", "/p/sub/out", "/p/in"},
		},
		{
			name: "nested fields are not read",
			req:  approve.Request{RawInput: json.RawMessage(`{"edit":{"path":"/x"}}`)},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approve.DenyAll().Evaluate(tt.req).Paths
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decision.Paths mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPathSources: every path Decision.Paths lists, in its order, with each field
// that holds it; a redirection is the command's, read from rawInput or,
// without rawInput.command, from the title.
func TestPathSources(t *testing.T) {
	tests := []struct {
		name string
		req  approve.Request
		want []approve.PathSource
	}{
		{
			name: "one path in three fields",
			req: approve.Request{Cwd: "/p", Kind: "edit",
				RawInput:  json.RawMessage(`{"file_path":"a.go","paths":["b.go"]}`),
				DiffPaths: []string{"/p/a.go"},
				Locations: []string{"a.go"}},
			want: []approve.PathSource{
				{Path: "/p/a.go", From: []string{"locations", "content", "rawInput.file_path"}},
				{Path: "/p/b.go", From: []string{"rawInput.paths"}},
			},
		},
		{
			name: "redirections of rawInput.command",
			req:  approve.Request{Cwd: "/p", Kind: "execute", Title: "echo > t", RawInput: json.RawMessage(`{"command":"echo x > out && cat <$HOME/in"}`)},
			want: []approve.PathSource{
				{Path: "/p/out", From: []string{"rawInput.command"}},
				{Path: "$HOME/in", From: []string{"rawInput.command"}, Unresolvable: true},
			},
		},
		{
			name: "resolved through a link",
			req: approve.Request{Cwd: "/p", Kind: "execute", Locations: []string{"lnk/a", "/p/b"},
				RawInput: json.RawMessage(`{"command":"echo x > lnk/../c && cat < loop/d"}`),
				Resolve:  fakeResolve(map[string]string{"/p/lnk": "/s/t", "/p/loop": "/p/loop"})},
			want: []approve.PathSource{
				{Path: "/p/lnk/a", From: []string{"locations"}},
				{Path: "/s/t/a", From: []string{"locations"}, Via: "/p/lnk/a"},
				{Path: "/p/b", From: []string{"locations"}},
				{Path: "/p/c", From: []string{"rawInput.command"}},
				{Path: "/s/c", From: []string{"rawInput.command"}, Via: "/p/c"},
				{Path: "/p/loop/d", From: []string{"rawInput.command"}, Unresolvable: true},
			},
		},
		{
			name: "redirections of the title",
			req:  approve.Request{Cwd: "/p", Kind: "execute", Title: "echo x > out", RawInput: json.RawMessage(`{"description":"d"}`)},
			want: []approve.PathSource{{Path: "/p/out", From: []string{"title"}}},
		},
		{
			name: "no paths",
			req:  approve.Request{Kind: "read", Title: "x > y"},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approve.PathSources(tt.req)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PathSources() mismatch (-want +got):\n%s", diff)
			}
			var paths []string
			for _, s := range got {
				paths = append(paths, s.Path)
			}
			if diff := cmp.Diff(approve.DenyAll().Evaluate(tt.req).Paths, paths); diff != "" {
				t.Errorf("PathSources() paths are not Decision.Paths (-Paths +PathSources):\n%s", diff)
			}
		})
	}
}
