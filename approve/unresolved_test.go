package approve_test

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/approve"
)

// unresolvedLines are command lines in which bash runs a variable's value
// as code, or which set a variable that makes bash or the dynamic loader
// run code: no allow rule allows them, every deny command rule matches.
var unresolvedLines = []string{
	// Indirection, prompt expansion, an unknown transformation.
	`echo ${x:='a[$(touch P)]'}; echo ${!x}`,
	`echo ${x:='$(touch P)'} ${x@P}`,
	`echo "${x@P}"`,
	`echo ${a[@]@P}`,
	`echo ${x@Z}`,
	`echo ${!x}`,
	`echo "${!x}"`,
	`echo ${!x:-y}`,
	`echo ${!a[0]}`,
	`echo ${!1}`,
	`echo ${!x@Q}`,
	`echo $(echo ${!x})`,
	`echo > ${!x}`,
	"echo hi <<EOF\n${!x}\nEOF",
	"echo hi <<EOF\n$(echo ${x@P})\nEOF",
	// In shell lines a command runs.
	`bash -c 'echo ${!x}'`,
	`x='a[$(touch P)]' bash -c 'echo ${!x}'`,
	`eval 'echo ${x@P}'`,
	`sh -c "bash -c 'echo \${!x}'"`,
	"bash -c 'echo hi <<EOF\n${!x}\nEOF'",
	// Variables with which bash or the dynamic loader runs code.
	"BASH_ENV=/tmp/x.sh bash -c 'echo hi'",
	"ENV=/tmp/x.sh echo hi",
	"SHELLOPTS=xtrace PS4='$(touch P)' bash -c 'echo hi'",
	"BASHOPTS=extdebug echo hi",
	"PS4='$(touch P)'; set -x; echo hi",
	"PROMPT_COMMAND='touch P' echo hi",
	"LD_PRELOAD=/tmp/x.so echo hi",
	"LD_PRELOAD+=:/tmp/x.so echo hi",
	"LD_AUDIT=/tmp/x.so echo hi",
	"LD_LIBRARY_PATH=/tmp echo hi",
	"A=1 env B=2 LD_PRELOAD=/tmp/x.so echo hi",
	"env 'BASH_FUNC_echo%%=() { touch P; }' bash -c 'echo hi'",
	"export BASH_ENV=/tmp/x.sh",
	"bash -c 'LD_PRELOAD=/tmp/x.so echo hi'",
	// A shell line with escapes in $'…', which bash decodes: \n ends a
	// comment, or the command.
	`bash -c $'echo x #\ntouch P'`,
	`bash -c $'echo x\ntouch P'`,
	`eval $'echo x\ntouch P'`,
	// Any $'…' or $"…" in a shell line: dash reads it as a $ and a quote.
	`bash -c $'echo a'`,
	`bash -c $"echo a"`,
	`eval echo $'a'`,
	// A brace expansion in the command word: bash runs touch.
	`{touch,P}`,
	`X=1 {touch,P}`,
	`env {touch,P}`,
	`bash -c '{touch,P}'`,
	// An expansion in the command word: bash runs the program it expands
	// to (E is empty, x holds touch).
	`$E touch P`,
	`${E}touch P`,
	`${x:-}touch P`,
	`"$E"touch P`,
	`$1 P`,
	`$(echo touch) P`,
	"`echo touch` P",
	`<()touch P`,
	`/*/tou?h P`,
	`/bin/tou[c]h P`,
	`x=touch; $x P`,
	`X=1 $E touch P`,
	`>/dev/null $E touch P`,
	`A=1 >/dev/null B=2 $E touch P`,
	`2>/dev/null bash -s < script.sh`,
	`env $E touch P`,
	`bash -c '$E touch P'`,
	`echo $(( $E touch P )); $E touch P`, // the same text as arithmetic and as a command
	`$(echo /usr/bin/touch) P`,           // its slash is no directory of the word
	`/usr/bin/$T P`,
	`"$D/bin/"$T P`,
	// A shell that reads its script from its standard input.
	`echo touch P | sh`,
	`bash <<< "touch P"`,
	"bash <<'E'\ntouch P\nE",
	`sh -s < script.sh`,
	`bash -x`,
	`bash <(echo touch P)`,
	`source <(echo touch P)`,
	`. /dev/stdin <<< "touch P"`,
	// A command git runs, set from the environment.
	`git --config-env=core.pager=PAGER_CMD log`,
	`git --config-env alias.t=T t`,
	// A wrapper that starts a shell with no command, which reads its
	// script from its standard input.
	`echo touch P | su`,
	`su - root < script.sh`,
	`su root -l`,
	`su -s /bin/bash root`,
	`sudo -s`,
	`sudo -u root -i`,
	`sudo --login`,
	`doas -s`,
	`runuser nobody`,
	`echo touch P | unshare -r`,
	`nsenter -t 1 -m`,
	`chroot /srv`,
	`script -q /dev/null`,
	`fakeroot`,
	`firejail --noprofile`,
	`systemd-run --shell`,
	// A name bound to another program: an alias, hash -p, enable -f.
	"shopt -s expand_aliases; alias t=touch\nt P",
	`hash -p /usr/bin/touch t; t P`,
	`enable -f ./touch.so touch`,
	`touch$IFS/P`, // bash splits it into touch /P
	`$X-y/z P`,
}

// wrappedUnresolvedLines are unresolvable behind a wrapper that only deny
// rules see through: allow rules must allow the wrapper as written.
var wrappedUnresolvedLines = []string{
	`nice bash -c 'echo ${!x}'`,
	"sudo LD_PRELOAD=/tmp/x.so echo hi",
	"nice -n 5 env LD_PRELOAD=/tmp/x.so echo hi",
	"env -u HOME LD_PRELOAD=/tmp/x.so echo hi",
	"env -i BASH_ENV=/tmp/x.sh bash -c 'echo hi'",
	`xargs bash -c 'echo ${x@P}'`,
	`sudo bash -c $'echo x #\ntouch P'`,
	`watch -n 1 $'echo x\ntouch P'`,
	`sudo {touch,P}`,
	`nice bash -c $'echo a'`,
	`busybox touch P`,
	`nice su`,
	`sudo -E su -l < script.sh`,
	`sudo $E touch P`,
	`nice -n 5 ${E}touch P`,
	`timeout 5 $(echo touch) P`,
	`command $x P`,
	`xargs $x P`,
	`find . -exec $x P \;`,
}

// arithmeticLines evaluate a variable's value as arithmetic, where
// a[$(cmd)] runs cmd: the expression is a command, as in $((…)).
var arithmeticLines = []string{
	`echo ${x:='a[$(touch P)]'} ${a[x]}`,
	`echo ${x:x}`,
	`echo ${x:0:x}`,
	`echo ${#a[i]}`,
	`bash -c 'echo ${a[x]}'`,
}

// TestTrapActions: the action of a trap is a shell line that runs, later:
// deny rules see its commands, and allow rules that do not allow the trap
// as written allow its commands. A trap that resets, ignores or lists
// runs nothing.
func TestTrapActions(t *testing.T) {
	denyTouch := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"touch *"}}}}
	allowEcho := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"echo *"}}}}
	var tests []decideCase
	for _, line := range []string{`trap 'touch P' EXIT`, `trap -- "touch P" INT TERM`, `trap 'echo; touch P' 0`, `bash -c "trap 'touch P' EXIT"`} {
		tests = append(tests,
			decideCase{"deny touch: " + line, denyTouch, execReq(line), denyBy("d:1")},
			decideCase{"allow echo: " + line, allowEcho, execReq(line), byDef(approve.Deny)})
	}
	tests = append(tests, decideCase{"allow echo: trap 'echo bye' EXIT", allowEcho, execReq(`trap 'echo bye' EXIT`), allowBy("a:1")})
	for _, line := range []string{`trap - EXIT`, `trap '' INT`, `trap -p`, `trap INT`, `trap -l`} {
		tests = append(tests, decideCase{"deny touch: " + line, denyTouch, execReq(line), byDef(approve.Allow)})
	}
	runDecide(t, tests)
}

// namedProgramLines have expansions where no program is named: in the
// text of arithmetic, which shows up as commands, in an array element's
// assignment, and in the directory of the program. A deny rule that does
// not match them as written leaves them alone.
// noShellLines are wrappers that start no shell reading its standard
// input: they run a command or a shell line, or start no shell.
var noShellLines = []string{
	`sudo -v; sudo -l; sudo -k`,
	`sudo -s echo hi; sudo -i echo hi`,
	`su root -c 'echo hi'; su -c 'echo hi' root; su --help`,
	`runuser -u nobody -- echo hi; runuser -unobody echo hi; runuser nobody -c 'echo hi'`,
	`unshare -r echo hi; nsenter -t 1 -m echo hi; chroot /srv echo hi; chroot`,
	`script -c 'echo hi' log.txt; script --version`,
	`fakeroot make; firejail echo hi; systemd-run echo hi; doas echo hi`,
}

// gitSettingLines set nothing git runs as a command, or set it after the
// subcommand, where -c is the subcommand's.
var gitSettingLines = []string{
	`git -c user.name=x commit -m 'touch P'`,
	`git -c core.fsmonitor=false -c pager.log=true -c alias.t=log t`,
	`git log -c core.pager=touch`,
	`git --config-env=user.email=EMAIL commit -m x`,
}

var namedProgramLines = []string{
	`sleep $((n*2))`,
	`echo $(( $x + 1 )) $((${#a[@]} - 1)) $((a[i]))`,
	`echo ${a[i*2]} ${x:$n:2}`,
	`bash -c 'echo $(( $x * 2 ))'`,
	`a[$i]=x; a[0]+=y; a["$k"]=z; echo ${a[@]}`,
	`$HOME/bin/tool x; "$(go env GOPATH)"/bin/tool y; "$D/tool" z; /*/tool; ${E}/bin/tool`,
	`"a$D"/tool; /usr/lib*/tool; /b?n/$(echo lib)/"$A$B"/tool`,
	`bash script.sh; sh --version; bash -c 'echo hi' > out; bash -o pipefail script.sh; . ./env.sh; source x.sh`,
}

// resolvedLines stay allowed by "echo *" and are denied by no deny rule
// that does not match them.
var resolvedLines = []string{
	`echo ${x}`,
	`echo ${x:-default} ${x:=v} ${x:+alt} ${x:?msg}`,
	`echo ${#x} ${#}`,
	`echo ${x:0:3} ${x: -3} ${x:(-3)}`,
	`echo ${!prefix*} ${!prefix@}`,
	`echo ${!a[@]} ${!a[*]}`,
	`echo ${a[0]} ${a[@]} ${a[*]} ${#a[@]}`,
	`echo ${x@Q} ${x@U} ${x@u} ${x@L} ${x@E} ${x@A} ${x@K} ${x@a} ${x@k}`,
	`echo ${!#} ${!}`,
	`echo '${!x}' \${x@P} "\${!x}"`,
	"echo hi <<'EOF'\n${!x}\nEOF",
	`echo LD_PRELOAD=x BASH_ENV=y`,
	`FOO=1 PATH=/usr/bin echo hi`,
	`bash -c 'echo ${x:-y}'`,
	`echo $'a\tb'`,
	`bash -c "echo $'\n'"`,
	`echo {a,b} x{1..3}`,
	// Expansions in the arguments, none in the command word.
	`echo $x "$y" ${z:-} *.go [ab] $(echo hi) <(echo hi)`,
	`echo '$x' "\$x" \$x`,
	`X=$(echo a) echo b`,
}

func TestUnresolvedCommands(t *testing.T) {
	allowEcho := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"echo *"}}}}
	allowAny := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "a:1", Command: []string{"*"}}}}
	denyTouch := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"touch *"}}}}
	var tests []decideCase
	for _, line := range unresolvedLines {
		tests = append(tests,
			decideCase{"allow echo: " + line, allowEcho, execReq(line), byDef(approve.Deny)},
			decideCase{"allow any: " + line, allowAny, execReq(line), byDef(approve.Deny)},
			decideCase{"deny touch: " + line, denyTouch, execReq(line), denyBy("d:1")})
	}
	for _, line := range wrappedUnresolvedLines {
		tests = append(tests, decideCase{"deny touch: " + line, denyTouch, execReq(line), denyBy("d:1")})
	}
	for _, line := range arithmeticLines {
		tests = append(tests, decideCase{"allow echo: " + line, allowEcho, execReq(line), byDef(approve.Deny)})
	}
	for _, line := range gitSettingLines {
		tests = append(tests, decideCase{"deny touch: " + line, denyTouch, execReq(line), byDef(approve.Allow)})
	}
	for _, line := range noShellLines {
		tests = append(tests, decideCase{"deny touch: " + line, denyTouch, execReq(line), byDef(approve.Allow)})
	}
	for _, line := range namedProgramLines {
		tests = append(tests, decideCase{"deny touch: " + line, denyTouch, execReq(line), byDef(approve.Allow)})
	}
	for _, line := range resolvedLines {
		tests = append(tests,
			decideCase{"allow echo: " + line, allowEcho, execReq(line), allowBy("a:1")},
			decideCase{"deny touch: " + line, denyTouch, execReq(line), byDef(approve.Allow)})
	}
	// The terminal/create shapes: an argv, and the env as assignments.
	argv := func(v any) approve.Request {
		raw, _ := json.Marshal(v)
		return approve.Request{Kind: "execute", RawInput: raw, Cwd: cwd}
	}
	tests = append(tests,
		decideCase{"argv with a prompt expansion", allowEcho,
			argv(map[string]any{"command": "bash", "args": []string{"-c", "echo ${x:='$(touch P)'} ${x@P}"}}), byDef(approve.Deny)},
		decideCase{"argv array with an indirection", allowEcho,
			argv(map[string]any{"command": []string{"bash", "-c", "echo ${!x}"}}), byDef(approve.Deny)},
		decideCase{"argv with a subscript", allowEcho,
			argv(map[string]any{"command": "bash", "args": []string{"-c", "echo ${a[x]}"}}), byDef(approve.Deny)},
		decideCase{"argv with constants", allowEcho,
			argv(map[string]any{"command": "bash", "args": []string{"-c", "echo ${a[0]} ${x:0:3}"}}), allowBy("a:1")})
	// An argv's first word is the program that runs, though a shell would
	// read it as an assignment, a home directory or a reserved word: the
	// rules judge that program, never the words after it.
	for _, program := range []string{"A=1", "~/echo", "!", "{", "if", "time", "ec*"} {
		tests = append(tests,
			decideCase{"allow echo: argv run as " + program, allowEcho,
				argv(map[string]any{"command": program, "args": []string{"echo", "hi"}}), byDef(approve.Deny)},
			decideCase{"allow echo: argv array run as " + program, allowEcho,
				argv(map[string]any{"command": []string{program, "echo", "hi"}}), byDef(approve.Deny)})
	}
	tests = append(tests, decideCase{"allow echo: argv of echo with an assignment-like argument", allowEcho,
		argv(map[string]any{"command": "echo", "args": []string{"A=1", "~", "if"}}), allowBy("a:1")})
	runDecide(t, tests)
}

// TestUnresolvedExplain: the decision and the trace say why an
// unresolvable command is denied.
func TestUnresolvedExplain(t *testing.T) {
	p := &approve.Policy{Default: approve.Deny,
		Allow: []approve.Rule{{Pos: "a:1", Command: []string{"echo *"}}},
		Deny:  []approve.Rule{{Pos: "d:1", Command: []string{"touch *"}}}}
	d, traces := p.Explain(execReq(`echo ${x:='a[$(rm y)]'}; echo ${!x}`))
	const why = "bash may run a variable's value as code: ${!x} is an indirection"
	if d.Verdict != approve.Deny || d.Rule != "d:1" || !strings.Contains(d.Reason, `command "echo ${!x}" (unresolvable: `+why+`)`) {
		t.Errorf("decision %s by %q: %s; want deny by d:1 naming the unresolvable command", d.Verdict, d.Rule, d.Reason)
	}
	want := map[string]string{
		"d:1": `command "echo ${!x}" (unresolvable: ` + why + `) is taken to match ["touch *"]`,
		"a:1": `command "echo ${!x}" is unresolvable (` + why + `): no allow pattern matches it`,
	}
	for _, tr := range traces {
		if !strings.Contains(strings.Join(tr.Why, "\n"), want[tr.Rule]) {
			t.Errorf("trace of %s = %q; want a line %q", tr.Rule, tr.Why, want[tr.Rule])
		}
	}

	allow := &approve.Policy{Default: approve.Deny, Allow: p.Allow}
	if d := allow.Evaluate(execReq("LD_PRELOAD=/tmp/x.so echo hi")); !strings.Contains(d.Reason,
		`("LD_PRELOAD=/tmp/x.so echo hi" is unresolvable: it sets LD_PRELOAD, with which bash or the dynamic loader runs code)`) {
		t.Errorf("reason %q; want it to say why the command is unresolvable", d.Reason)
	}
}

// TestTildePaths: a path that starts with ~ is unresolvable wherever the
// call gives it: every deny path rule matches it, no allow one.
func TestTildePaths(t *testing.T) {
	allowAll := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"edit"}, Path: []string{"**", "/**"}}}}
	denyRoot := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"/root/**"}}}}
	edit := func(raw string) approve.Request {
		return approve.Request{Kind: "edit", RawInput: json.RawMessage(raw), Cwd: cwd}
	}
	var tests []decideCase
	for name, req := range map[string]approve.Request{
		"file_path ~/":    edit(`{"file_path":"~/.bashrc"}`),
		"path ~":          edit(`{"path":"~"}`),
		"paths ~user/":    edit(`{"paths":["a.go","~root/.profile"]}`),
		"destination ~/":  edit(`{"source":"a","destination":"~/x"}`),
		"location ~/":     {Kind: "edit", Locations: []string{"~/.ssh/authorized_keys"}, Cwd: cwd},
		"diff ~/":         {Kind: "edit", DiffPaths: []string{"~/.bashrc"}, Cwd: cwd},
		"redirection ~/":  execReq("echo x > ~/.bashrc"),
		"with a resolver": {Kind: "edit", Locations: []string{"~/x"}, Cwd: cwd, Resolve: fakeResolve(nil)},
	} {
		tests = append(tests,
			decideCase{"allow: " + name, allowAll, req, byDef(approve.Deny)},
			decideCase{"deny: " + name, denyRoot, req, denyBy("d:1")})
	}
	for name, req := range map[string]approve.Request{
		"~ inside a name": edit(`{"file_path":"a~/b~"}`),
		"~ after a slash": edit(`{"file_path":"/tmp/~x"}`),
	} {
		tests = append(tests,
			decideCase{"allow: " + name, allowAll, req, allowBy("a:1")},
			decideCase{"deny: " + name, denyRoot, req, byDef(approve.Allow)})
	}
	runDecide(t, tests)

	ps := approve.PathSources(edit(`{"file_path":"~/.bashrc"}`))
	if len(ps) != 1 || ps[0].Path != "~/.bashrc" || !ps[0].Unresolvable || ps[0].From[0] != "rawInput.file_path" {
		t.Errorf("PathSources = %+v; want ~/.bashrc as written, unresolvable", ps)
	}
}
