package approve_test

import (
	json "github.com/go-json-experiment/json/v1"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/approve"
)

// shellRead is a command line whose reading depends on where the shells
// join a backslash-newline (a line continuation), on how they remove
// quotes, or on how they split words. bash and dash say whether that shell
// runs `touch P` for it (TestShellReadsAgainstShells checks them with the
// shells themselves); allow is an allow list of command patterns and
// allowed what it decides.
type shellRead struct {
	name       string
	line       string
	bash, dash bool // the shell runs touch P
	allow      []string
	allowed    bool
}

var shellReads = []shellRead{
	// A line continuation is removed everywhere but in single quotes,
	// $'…', comments and quoted here-document bodies: in "…", ${…}, an
	// unquoted here-document, `…` and $(…) it joins $ and (.
	{"continuation in double quotes", "echo \"$\\\n(touch P)\"", true, true, []string{"echo *"}, false},
	{"continuation in a parameter", "echo ${x:-$\\\n(touch P)}", true, true, []string{"echo *"}, false},
	{"continuation in a quoted parameter", "echo \"${x:-$\\\n(touch P)}\"", true, true, []string{"echo *"}, false},
	{"continuation in a here-document", "cat <<EOF\n$\\\n(touch P)\nEOF", true, true, []string{"cat *"}, false},
	{"continuation in backticks", "echo `echo $\\\n(touch P)`", true, true, []string{"echo *"}, false},
	{"continuation in a substitution", "echo $(echo $\\\n(touch P))", true, true, []string{"echo *"}, false},
	{"continuation in a substitution in double quotes", "echo \"$(echo \"$\\\n(touch P)\")\"", true, true, []string{"echo *"}, false},
	{"continuation in a parameter name", "echo \"${x:=\\$(touch P)}\" \"$\\\n{x@P}\"", true, false, []string{"echo *"}, false},
	{"continuation in a parameter operator", "echo \"${x:=\\$(touch P)}\" \"${x\\\n@P}\"", true, false, []string{"echo *"}, false},
	{"continuation in arithmetic", "echo $((1+$\\\n(touch P)))", true, true, []string{"echo *"}, false},
	{"continuation in a here-document operator", "cat <\\\n<EOF\n$(touch P)\nEOF", true, true, []string{"cat *"}, false},
	// Where the shells keep it, it stays: a comment ends at its newline,
	// a single-quoted script keeps it for the shell that runs it, and a
	// quoted here-document ends at its delimiter line.
	{"comment ends at a continuation", "echo a # x \\\ntouch P", true, true, []string{"echo *"}, false},
	{"comment in a substitution ends at a continuation", "echo $(echo a # x \\\ntouch P)", true, true, []string{"echo *"}, false},
	{"single-quoted script keeps it", "bash -c 'echo a # x \\\ntouch P'", true, true, []string{"echo *"}, false},
	{"ansi-c quoting keeps it", "echo $'\\\n' ; touch P", true, true, []string{"echo *"}, false},
	{"quoted here-document keeps it", "cat <<'E'\na\\\nE\ntouch P", true, true, []string{"cat *"}, false},
	{"unquoted here-document body line", "cat <<E\na\\\nE\nE\necho b", false, false, []string{"cat *", "echo *"}, true},
	// dash reads $(…) in a here-document as a command, where a comment
	// ends at its newline; bash joins the body's lines first.
	{"comment in a here-document substitution", "cat <<E\n$(echo # \\\ntouch P)\nE", false, true, []string{"cat *", "echo *"}, false},
	// In backticks the body's lines are joined before it is read: the
	// comment goes on.
	{"comment in backticks goes on", "echo `echo a # x \\\ntouch P`", false, false, []string{"echo *"}, true},
	{"joined word", "ec\\\nho a", false, false, []string{"echo *"}, true},

	// Quote removal inside "…" keeps a backslash but before $ ` " \ and a
	// newline, so a script's \# is no comment and \' no quote.
	{"escaped hash in a double-quoted script", `bash -c "echo hi \#; touch P"`, true, true, []string{"echo *"}, false},
	{"escaped quotes in a double-quoted script", `bash -c "echo \'; touch P; \'"`, true, true, []string{"echo *"}, false},
	{"escaped hash in sh -c", `sh -c "echo hi \#; touch P"`, true, true, []string{"echo *"}, false},
	{"escaped hash in eval", `eval "echo hi \#; touch P"`, true, true, []string{"echo *"}, false},
	{"continuation in a double-quoted script", "bash -c \"echo a \\\n; touch P\"", true, true, []string{"echo *"}, false},
	{"hex escape in ansi-c quoting", `$'\x74ouch' P`, true, false, []string{"echo *"}, false},
	{"octal escape in ansi-c quoting", `echo x; $'\164'ouch P`, true, false, []string{"echo *"}, false},
	{"escaped quote in ansi-c quoting", `echo $'\'' ; touch P`, true, false, []string{"echo *"}, false},
	{"escaped dollar in a double-quoted script", `bash -c "echo \$HOME \"a b\" \\\\"`, false, false, []string{"echo *"}, true},

	// A { in an assignment is text: the command follows it.
	{"brace in an assignment", "X={ touch P } echo hi", true, true, []string{"echo *"}, false},
	{"brace in an assignment before go test", "GOFLAGS={ touch P } go test ./...", true, true, []string{"go test *"}, false},
	{"parenthesis in a parameter in an assignment", "X=${x:-(} touch P", true, true, []string{"echo *"}, false},
	{"brace after env", "env X={ touch P } echo hi", true, true, []string{"echo *"}, false},

	// A shell line in $'…' or $"…" is another script to dash, which has
	// neither: a $ and a plain quote, so $'(cmd)' is $(cmd) and $'#' $#.
	{"ansi-c script", `bash -c $'(echo touch P)'`, false, true, []string{"echo *"}, false},
	{"ansi-c eval", `eval $'(echo touch P)'`, false, true, []string{"echo *"}, false},
	{"ansi-c comment script", `sh -c $'#;touch P'`, false, true, []string{"echo *"}, false},
	{"locale script", `bash -c $"(echo touch P)"`, false, true, []string{"echo *"}, false},
	// dash reads single quotes in $((…)) as text: the arithmetic ends at
	// the first )).
	{"quotes in arithmetic", `echo hi || echo $((echo ' )); touch P; echo ' ))'`, false, true, []string{"echo *"}, false},
	// After a reserved word, (( is bash's arithmetic command, where << is
	// a shift, not a here-document.
	{"arithmetic after if", "if ((echo <<echo)); then echo hi; fi\ntouch P\necho", true, false, []string{"echo *"}, false},
	{"arithmetic after !", "! ((1<<E))\ntouch P\nE", true, false, []string{"echo *"}, false},
	{"arithmetic after {", "{ ((1<<E)); }\ntouch P\nE", true, false, []string{"echo *"}, false},
	{"arithmetic after time", "time ((1<<E))\ntouch P\nE", true, false, []string{"echo *"}, false},
	{"arithmetic after until", "until ((1<<E)); do :; done\ntouch P\nE", true, false, []string{"echo *"}, false},
	{"arithmetic for", "for ((i=0<<E;i<1;i++)); do echo hi; done\ntouch P\nE", true, false, []string{"echo *"}, false},
	// A case pattern's ) does not end $(…).
	{"case in a substitution", `echo "$(case a in a) touch P;; esac)"`, true, true, []string{"echo *"}, false},
	{"case in a process substitution", `cat <(case a in a) touch P;; esac)`, true, false, []string{"cat *"}, false},
	// coproc runs a compound command, named or not; bash expands braces
	// in a command word.
	{"coproc group", "coproc { touch P; }; wait", true, false, []string{"echo *", "wait"}, false},
	{"named coproc group", "coproc NAME { touch P; }; wait", true, false, []string{"echo *", "wait"}, false},
	{"coproc loop", "coproc while touch P; false; do :; done; wait", true, false, []string{"echo *", "wait", "false", ":"}, false},
	{"brace expansion as the command", "{touch,P}", true, false, []string{"echo *"}, false},
	{"brace expansion after env", "env {touch,P}", true, false, []string{"echo *"}, false},
	{"brace expansion after an assignment", "X=1 {touch,P,Q}", true, false, []string{"echo *"}, false},
	// An expansion in the command word names the program: an empty one
	// leaves the next word, a glob the file it matches.
	{"empty parameter as the command word", "$E touch P", true, true, []string{"*"}, false},
	{"empty parameter before the program", "${E}touch P", true, true, []string{"*"}, false},
	{"empty quoted parameter before the program", `"$E"touch P`, true, true, []string{"*"}, false},
	{"substitution as the command word", "$(echo touch) P", true, true, []string{"*"}, false},
	{"empty backquotes before the program", "`:`touch P", true, true, []string{"*"}, false},
	{"glob as the command word", "/*/tou?h P", true, true, []string{"*"}, false},
	{"process substitution before the program", "<()touch P", true, false, []string{"*"}, false},
	{"variable set before as the command word", "x=touch; $x P", true, true, []string{"*"}, false},
	{"split expansion before a directory", "touch$IFS./P", true, true, []string{"*"}, false},
	// A name bound to another program runs it; a trap's action runs at exit.
	{"alias", "shopt -s expand_aliases; alias t=touch\nt P", true, true, []string{"*"}, false},
	{"hash -p", "hash -p /usr/bin/touch t; t P", true, false, []string{"*"}, false},
	{"trap at exit", "trap 'touch P' EXIT", true, true, []string{"echo *"}, false},
	{"script on standard input", "echo touch P | sh", true, true, []string{"echo *", "sh"}, false},
	{"script in a here-string", `bash <<< "touch P"`, true, false, []string{"bash *"}, false},
	{"script from a process substitution", "bash <(echo touch P)", true, false, []string{"bash *", "echo *"}, false},
	{"sourced process substitution", "source <(echo touch P)", true, false, []string{"source *", "echo *"}, false},
	{"git alias", "git -c alias.t='!touch P' t", true, true, []string{"echo *"}, false},
	{"git alias after other options", "git --no-pager -C . -c user.name=x -c alias.t='!touch P' t", true, true, []string{"echo *"}, false},

	// An unquoted < or > ends a word: the command word before it is the
	// program, a reserved word before it is still reserved.
	{"redirection against the command word", "touch>/dev/null P", true, true, []string{"echo *"}, false},
	{"input redirection against the command word", "touch</dev/null P", true, true, []string{"echo *"}, false},
	{"redirection against !", "!>/dev/null touch P", true, true, []string{"echo *"}, false},
	{"redirection against {", "{>/dev/null touch P; }", true, true, []string{"echo *"}, false},
	{"redirection against if", "if>/dev/null touch P; then :; fi", true, true, []string{"echo *", ":"}, false},
	{"redirection against the command after an assignment", "X=1 touch>/dev/null P", true, true, []string{"echo *"}, false},
	{"redirection against the program in a script", "bash -c 'touch>/dev/null P'", true, true, []string{"echo *"}, false},
	// The crude split of a construct the splitter does not follow reads
	// the line with its continuations removed.
	{"continuation in a crudely split script", "bash -c '[[ x =~ (#) ]]; tou\\\nch P'", true, true, []string{"echo *", "[[ *"}, false},
	// zsh's parameter flags, =(…) and glob qualifiers run code: a zsh
	// script with them is unresolvable.
	{"zsh eval flag", "zsh -c \"echo \\${(e)\\${:-'\\$(touch P)'}}\"", true, true, []string{"echo *"}, false},
	{"zsh process substitution", "zsh -c 'echo =(touch P)'", true, true, []string{"echo *"}, false},
	// Shell options with an argument come before -c.
	{"bash -O before -c", "bash -O extglob -c 'touch P'", true, true, []string{"echo *"}, false},
	{"bash +O before -c", "bash +O extglob -c 'touch P'", true, true, []string{"echo *"}, false},
	{"bash --rcfile before -c", "bash --rcfile /dev/null -c 'touch P'", true, true, []string{"echo *"}, false},
	// test -v evaluates an array subscript.
	{"[ -v with a substitution in a subscript", "if [ -v 'a[$(touch P)]' ]; then echo y; fi", true, false, []string{"[ *", "echo *"}, false},
	{"test -v with backquotes in a subscript", "test -v 'a[`touch P`]'", true, false, []string{"test *"}, false},
	{"[[ -v with a substitution in a subscript", "[[ -v 'a[$(touch P)]' ]]", true, false, []string{"[[ *"}, false},

	// Ordinary lines stay allowed.
	{"go test", "go test ./...", false, false, []string{"go test *"}, true},
	{"npm run", "npm run build -- --flag", false, false, []string{"npm run build *"}, true},
	{"commit message with quotes", `git commit -m "msg with \"quotes\""`, false, false, []string{"git commit *"}, true},
	{"continued command", "go test \\\n  ./... \\\n  -run X", false, false, []string{"go test *"}, true},
	{"continued script", "bash -c 'go test \\\n  ./... && \\\n  go vet ./...'", false, false, []string{"go *"}, true},
	{"continued double-quoted script", "bash -c \"go test \\\n  ./... && \\\n  go vet ./...\"", false, false, []string{"go *"}, true},
	{"continued string", "echo \"a \\\nb\" 'c \\\nd'", false, false, []string{"echo *"}, true},
	{"assignment with braces and substitutions", "X=${HOME}/a Y=$(pwd) go test ./...", false, false, []string{"go test *", "pwd"}, true},
	{"brace group", "{ go test ./...; }", false, false, []string{"go test *"}, true},
	{"if test", "if [ -f x ]; then echo y; fi", false, false, []string{"[ *", "echo *"}, true},
	{"arithmetic expansion", "echo $((1+2))", false, false, []string{"echo *", "1+2"}, true},
	{"gofmt loop", `for f in *.go; do gofmt -l "$f"; done`, false, false, []string{"for *", "gofmt *"}, true},
	{"brace argument", "echo {a,b}", false, false, []string{"echo *"}, true},
	{"coproc echo", "coproc echo hi", false, false, []string{"coproc echo *"}, true},
	{"redirection against a word", "echo hi>out.txt 2>/dev/null", false, false, []string{"echo *"}, true},
	{"make quiet", "make 2>/dev/null", false, false, []string{"make *"}, true},
	{"go test piped", "go test ./... 2>&1 | tail", false, false, []string{"go test *", "tail"}, true},
	{"bash -O unwrapped", "bash -O extglob -c 'go test ./...'", false, false, []string{"go test *"}, true},
	{"bash --rcfile unwrapped", "bash --norc --rcfile /dev/null -lc 'go test ./...'", false, false, []string{"go test *"}, true},
	{"zsh script", "zsh -lc 'go test ./... && go vet ./...'", false, false, []string{"go *"}, true},
	{"[ -v with a plain subscript", "[ -v 'a[1]' ] && echo y", false, false, []string{"[ *", "echo *"}, true},
}

// TestShellReads: allow lists allow a line only when they allow every
// command the shells run, and a deny rule for touch denies every line in
// which a shell runs touch.
func TestShellReads(t *testing.T) {
	denyTouch := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"touch *"}}}}
	var tests []decideCase
	for _, c := range shellReads {
		allow := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: c.allow}}}
		want := byDef(approve.Deny)
		if c.allowed {
			want = allowBy("a:1")
		}
		tests = append(tests, decideCase{"allow: " + c.name, allow, execReq(c.line), want})
		want = byDef(approve.Allow)
		if c.bash || c.dash {
			want = denyBy("d:1")
		}
		tests = append(tests, decideCase{"deny: " + c.name, denyTouch, execReq(c.line), want})
	}
	runDecide(t, tests)
}

// TestShellReadsAgainstShells: the shells run touch P where shellReads say
// they do.
func TestShellReadsAgainstShells(t *testing.T) {
	_, err := exec.LookPath("zsh")
	haveZsh := err == nil
	if !haveZsh {
		t.Log("no zsh: its rows are not run")
	}
	for _, sh := range []string{"bash", "dash"} {
		bin, err := exec.LookPath(sh)
		if err != nil {
			t.Logf("no %s: %v", sh, err)
			continue
		}
		for _, c := range shellReads {
			if !strings.Contains(c.line, "touch P") {
				continue // run only what touches P in a new directory
			}
			if strings.HasPrefix(c.line, "zsh ") && !haveZsh {
				continue
			}
			dir := t.TempDir()
			cmd := exec.Command(bin, "-c", c.line)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
			_ = cmd.Run() // some lines are errors to one shell
			_, err := os.Stat(filepath.Join(dir, "P"))
			if ran, want := err == nil, c.dash; sh == "bash" && ran != c.bash || sh == "dash" && ran != want {
				t.Errorf("%s: %s -c %q ran touch P: %v", c.name, sh, c.line, ran)
			}
		}
	}
}

// TestRedirectionContinuations: a redirection target is the path the
// shells open, its line continuations removed.
func TestRedirectionContinuations(t *testing.T) {
	allowSrc := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"echo *"}, Path: []string{"src/**"}}}}
	denyEnv := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"**/.env"}}}}
	denyEtc := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"/etc/**"}}}}
	runDecide(t, []decideCase{
		{"out of src", allowSrc, execReq("echo owned > \"src/\\\n../../\\\n../tmp/x\""), byDef(approve.Deny)},
		{"out of src unquoted", allowSrc, execReq("echo owned > src/\\\n../../x"), byDef(approve.Deny)},
		{"in src", allowSrc, execReq("echo ok > \"src/\\\na.txt\""), allowBy("a:1")},
		{"single-quoted name keeps it", allowSrc, execReq("echo ok > 'src/\\\n../a.txt'"), allowBy("a:1")},
		{".env joined", denyEnv, execReq("echo SECRET=1 > \".e\\\nnv\""), denyBy("d:1")},
		{".env joined in a script", denyEnv, execReq("bash -c \"echo SECRET=1 > '.e\\\nnv'\""), denyBy("d:1")},
		{"single-quoted .env keeps it", denyEnv, execReq("echo SECRET=1 > '.e\\\nnv'"), byDef(approve.Allow)},
		{".env joined in a double-quoted script", denyEnv, execReq("bash -c 'echo SECRET=1 > \".e\\\nnv\"'"), denyBy("d:1")},
		{"target after a process substitution with a brace", denyEtc, execReq("cat <(echo {) > /etc/passwd"), denyBy("d:1")},
		{"target after a parameter with a parenthesis", denyEtc, execReq("cat ${x:-(} > /etc/passwd"), denyBy("d:1")},
	})
}

// TestRedirectionAfterDirectoryChange: a relative redirection target after
// a cd (pushd, popd, source) is relative to a directory the rules cannot
// know: it matches every deny path rule and no allow one. A request's
// rawInput.workdir or rawInput.cwd is where its command runs.
func TestRedirectionAfterDirectoryChange(t *testing.T) {
	denyEtc := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"/etc/**"}}}}
	denySecrets := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"secrets/**"}}}}
	allowHere := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"*"}, Path: []string{"**"}}}}
	allowGo := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"cd *", "go test *"}}}}
	argv := func(v any) approve.Request {
		raw, _ := json.Marshal(v)
		return approve.Request{Kind: "execute", RawInput: raw, Cwd: cwd}
	}
	runDecide(t, []decideCase{
		{"cd then read", denyEtc, execReq("cd /etc && cat < passwd"), denyBy("d:1")},
		{"cd then write", denySecrets, execReq("cd secrets && echo stolen > key"), denyBy("d:1")},
		{"pushd then write", denySecrets, execReq("pushd secrets; echo stolen > key"), denyBy("d:1")},
		{"cd in a loop", denyEtc, execReq("while cat < passwd; do cd /etc; done"), denyBy("d:1")},
		{"cd in a script", denyEtc, execReq("bash -c 'cd /etc; cat < passwd'"), denyBy("d:1")},
		{"builtin cd", denyEtc, execReq("builtin cd /etc; cat < passwd"), denyBy("d:1")},
		{"source", denyEtc, execReq(". ./x.sh; cat < passwd"), denyBy("d:1")},
		{"cd against a redirection", denyEtc, execReq("cd>/dev/null /etc && cat < passwd"), denyBy("d:1")},
		{"cd against an input redirection", denyEtc, execReq("cd</dev/null /etc && cat < passwd"), denyBy("d:1")},
		{"cd after a brace against a redirection", denyEtc, execReq("{>/dev/null cd /etc; }; cat < passwd"), denyBy("d:1")},
		{"cd after if against a redirection", denyEtc, execReq("if>/dev/null cd /etc; then cat < passwd; fi"), denyBy("d:1")},
		{"cd after ! against a redirection", denyEtc, execReq("!>/dev/null cd /etc; cat < passwd"), denyBy("d:1")},
		{"cd against a redirection not allowed by a path allow", allowHere, execReq("cd>/dev/null /tmp && echo pwned > key"), byDef(approve.Deny)},
		{"redirection against a word allowed", allowHere, execReq("echo hi>out.txt"), allowBy("a:1")},
		{"npm build log allowed", allowHere, execReq("npm run build > build.log"), allowBy("a:1")},
		{"cd then absolute", denyEtc, execReq("cd /etc && cat < /tmp/x"), byDef(approve.Allow)},
		{"cd then no redirection", allowGo, execReq("cd sub && go test ./..."), allowBy("a:1")},
		{"cd not allowed by a path allow", allowHere, execReq("cd sub && go test ./... > out.txt"), byDef(approve.Deny)},
		{"redirection without cd", allowHere, execReq("go test ./... > out.txt"), allowBy("a:1")},
		{"codex workdir", denyEtc, argv(map[string]any{"command": []string{"bash", "-lc", "cat < passwd"}, "workdir": "/etc"}), denyBy("d:1")},
		{"cwd field", denyEtc, argv(map[string]any{"command": "cat < passwd", "cwd": "/etc"}), denyBy("d:1")},
		{"relative workdir", denySecrets, argv(map[string]any{"command": "echo x > key", "workdir": "secrets"}), denyBy("d:1")},
		{"workdir elsewhere", denyEtc, argv(map[string]any{"command": "cat < passwd", "workdir": "/tmp"}), byDef(approve.Allow)},
		{"unknown workdir", allowHere, argv(map[string]any{"command": "echo x > key", "workdir": "$HOME"}), byDef(approve.Deny)},
	})
}

// TestRedirectionEndsWord: deny patterns see the command whose word a
// redirection is written against.
func TestRedirectionEndsWord(t *testing.T) {
	deny := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"rm *", "git push *"}}}}
	runDecide(t, []decideCase{
		{"rm", deny, execReq("rm>/dev/null -f victim"), denyBy("d:1")},
		{"!", deny, execReq("!>/dev/null rm -f victim"), denyBy("d:1")},
		{"{", deny, execReq("{>/dev/null rm -f victim; }"), denyBy("d:1")},
		{"sudo", deny, execReq("sudo>/dev/null rm -f victim"), denyBy("d:1")},
		{"git push", deny, execReq("git push>/dev/null origin main"), denyBy("d:1")},
		{"fd number", deny, execReq("rm 2>/dev/null -f victim"), denyBy("d:1")},
		{"&>", deny, execReq("rm&>/dev/null -f victim"), denyBy("d:1")},
		{"git pull", deny, execReq("git pull>/dev/null origin main"), byDef(approve.Allow)},
	})
}

// TestShellWrapperUncertain: a shell wrapper with an option before its
// script that is not known, and a zsh script that zsh reads otherwise
// than bash, are unresolvable: no allow rule allows them, every deny
// command rule denies them.
func TestShellWrapperUncertain(t *testing.T) {
	allow := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"echo *", "go *"}}}}
	deny := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"git push *"}}}}
	argv := func(v ...string) approve.Request {
		raw, _ := json.Marshal(map[string]any{"command": v})
		return approve.Request{Kind: "execute", RawInput: raw, Cwd: cwd}
	}
	runDecide(t, []decideCase{
		{"unknown long option", allow, execReq("bash --weird -c 'echo hi'"), byDef(approve.Deny)},
		{"unknown long option denied", deny, execReq("bash --weird -c 'echo hi'"), denyBy("d:1")},
		{"unknown option", allow, execReq("sh -5 -c 'echo hi'"), byDef(approve.Deny)},
		{"zsh argv with a flag", allow, argv("/bin/zsh", "-lc", "echo ${(e)${:-'$(rm -f victim)'}}"), byDef(approve.Deny)},
		{"zsh argv with a flag denied", deny, argv("/bin/zsh", "-lc", "echo ${(P)x}"), denyBy("d:1")},
		{"zsh short loop", allow, argv("zsh", "-c", "while true { rm x }"), byDef(approve.Deny)},
		{"zsh globsubst", allow, argv("zsh", "-c", "echo $~x"), byDef(approve.Deny)},
		{"zsh noglob", allow, argv("zsh", "-c", "noglob echo x"), byDef(approve.Deny)},
		{"zsh plain argv", allow, argv("/bin/zsh", "-lc", "go test ./... && echo \"$(go env GOPATH)\" ${HOME}"), allowBy("a:1")},
		{"ZDOTDIR", allow, execReq("ZDOTDIR=. zsh -c 'echo hi'"), byDef(approve.Deny)},
		{"bash long options", allow, argv("bash", "--noprofile", "--norc", "-O", "extglob", "-c", "echo hi"), allowBy("a:1")},
	})
	// What zsh reads as bash does is plain, however it is quoted: codex
	// on macOS sends every command as /bin/zsh -lc. Parentheses, braces,
	// [[ and zsh's words in quotes, in escapes, in comments, in quoted
	// here-documents or inside other words, and $((…)), are text or
	// bash's; an unquoted one, a flag or ~ in double quotes or an unquoted
	// here-document, and the words in a command's place are not.
	plain := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"*"}}}}
	var cases []decideCase
	for _, script := range []string{
		`git commit -m "feat(api): add endpoint"`,
		`python3 -c 'print(1)'`,
		`go test -run "Test(A|B)" ./...`,
		`rg -n 'func (s \*Server)' .`,
		`git log --format='%h (%an)' -5`,
		"python3 - <<'PY'\nprint(x)\nPY",
		"cat > main.go <<'EOF'\nfunc main() {}\nEOF",
		"cat > main.go <<-\"EOF\"\n\tfunc main() {}\n\tEOF\necho done",
		`awk '{print $1}' f`,
		`jq '.items[] | {name}' d.json`,
		`find . -name '*.go' -exec grep -l foo {} +`,
		`git rev-parse --abbrev-ref @{u}`,
		`git stash show -p stash@{0}`,
		`echo $((1+2))`,
		`git commit -m "remove repeated code"`,
		`git log --grep=repeat`,
		`ls src/emulated`,
		`echo done # (a comment) { [[`,
		`echo \( \{`,
		"cat <<EOF\n(literal) {text} [[x]]\nEOF",
		`set -euo pipefail; go test ./...`,
		"git commit -m \"$(cat <<'EOF'\nfeat(x): y {z}\nEOF\n)\"",
		`diff <(ls a) <(ls b) | cat -`,
		`echo "$(go env GOPATH)/bin" ${HOME:-/tmp} $((2*3))`,
		`[ "$a" = "$b" ] && echo same`,
		"x=$((1<<2)); cat <<'E'\n(text)\nE",
	} {
		cases = append(cases, decideCase{"zsh plain: " + script, plain, argv("/bin/zsh", "-lc", script), allowBy("a:1")})
	}
	for _, script := range []string{
		`echo (x)`,
		`ls *(e:'rm -f x':)`,
		`echo =(rm x)`,
		`echo "${(e)x}"`,
		`echo "$~x"`,
		"cat <<EOF\n${(e)x}\nEOF",
		`if [[ -f x ]] rm x`,
		`while true { rm x }`,
		`x=1; setopt globsubst; echo $x`,
		`true && noglob rm *`,
		`if true; then repeat 2 rm x; fi`,
		`options[globsubst]=on`,
		// A # after the ) of $(…) is the word's, no comment; an escaped '
		// in $'…'; a << inside ${…} is no here-document; setopt where its
		// command's place is not plain to see, and set -o; =cmd.
		`echo $(echo x)# ; echo ${(e):-"\$(touch PWNED)"}`,
		`echo $'\' ' ; echo ${(e):-"\$(touch PWNED)"}`,
		"echo ${x#<<\"E\"}\necho ${(e):-\"\\$(touch PWNED)\"}",
		`A=1 setopt globsubst; echo $y`,
		`>/dev/null setopt globsubst; echo $y`,
		`set -o globsubst; echo $y`,
		`set -G; echo $y`,
		`echo hi; =rm victim`,
		// A glob qualifier after zsh's <-> number pattern; a ) the
		// reading cannot match ($((cmd) ), a )) inside ${…}); the
		// precommand modifier -; a case in $(…), whose ) ends it early.
		`echo >a1; echo *<->(echo ";/usr/bin/t?u?h PWNED;c")`,
		"echo $((echo hi) ) <<E\n'\nE\necho ${x:=\"*(e:touch PWNED:)\"} $~x ''",
		"echo ${x:-$(echo a))<<'echo x';}\necho ${y:=\"*(e:touch PWNED:)\"} $~y\necho x",
		`echo hi; - rm -rf d`,
		`echo "$(case x in a) echo *(e:'touch P':);; esac)"`,
		"cat <<E\n$(=rm x)\nE",
		`echo "unclosed`,
	} {
		cases = append(cases, decideCase{"zsh not plain: " + script, plain, argv("/bin/zsh", "-lc", script), byDef(approve.Deny)})
	}
	// zsh's options on its command line change how it reads its script:
	// -i reads no comments, -o globsubst runs glob qualifiers of values.
	cases = append(cases,
		decideCase{"zsh -o globsubst", plain, argv("zsh", "-o", "globsubst", "-c", "echo $1", "echo", "/(e.eval x.)"), byDef(approve.Deny)},
		decideCase{"zsh -i", plain, argv("zsh", "-ic", "echo hi # ; touch P"), byDef(approve.Deny)},
		decideCase{"zsh --emulate", plain, argv("zsh", "--emulate", "sh", "-c", "echo hi"), byDef(approve.Deny)},
		decideCase{"zsh -o pipefail", plain, argv("zsh", "-o", "pipefail", "-lc", "echo hi"), allowBy("a:1")},
		decideCase{"zsh -f -l", plain, argv("/bin/zsh", "-f", "-lc", "echo hi"), allowBy("a:1")})
	runDecide(t, cases)
}
