package approve

import (
	"path"
	"slices"
	"strings"

	"github.com/acprun/acprun/internal/shellquote"
)

// argvLine turns an argv array into a shell line. A shell wrapper
// (sh, bash, zsh, dash or ksh, also given as a path, with -c among its
// options) yields its script; arguments after the script (which the script
// sees as $0, $1, …) are appended as a line of their own, so a policy sees
// them too. Any other argv is joined with shell quoting, so that splitting
// the line gives back one command; so is a shell wrapper whose reading is
// uncertain (see shellWhy), which then stays unresolvable.
func argvLine(argv []string) string {
	if script, ok := wrapperScript(argv); ok && shellWhy(argv) == "" {
		return script
	}
	return QuoteArgv(argv)
}

// shells are the shells whose -c script is read, by name.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true}

// wrapperScript returns the script of a shell wrapper argv (sh, bash, zsh,
// dash or ksh, also given as a path, with -c among its options), with the
// arguments after it, which it sees as $0, $1, …, as a line of their own.
func wrapperScript(argv []string) (string, bool) {
	if len(argv) == 0 || !shells[path.Base(argv[0])] {
		return "", false
	}
	sh := shellScript(argv[1:])
	script := sh.script
	if sh.ok && len(sh.extra) > 0 {
		script += "\n" + QuoteArgv(sh.extra)
	}
	return script, sh.ok
}

// trapAction returns the shell line that the trap command argv (unquoted)
// sets to run when a signal comes or the shell exits: its first operand,
// when a signal follows it and it is not "-" (which resets). false for
// any other command, or a trap that sets none (trap -p, trap - INT,
// trap INT).
func trapAction(argv []string) (string, bool) {
	if len(argv) == 0 || argv[0] != "trap" {
		return "", false
	}
	ops := argv[1:]
	for len(ops) > 0 && strings.HasPrefix(ops[0], "-") && ops[0] != "-" {
		opt := ops[0]
		ops = ops[1:]
		if opt == "--" {
			break
		}
	}
	if len(ops) < 2 || ops[0] == "-" {
		return "", false
	}
	return ops[0], true
}

// shellWhy returns why the shell wrapper argv (unquoted) is read with
// uncertainty, "" when it is not or is no shell: an option before its
// script that shellScript does not know (it may take the next word), a
// script it reads from a stream (see shellArgs), or a zsh or ksh script
// that is not plain (see zshWhy).
func shellWhy(argv []string) string {
	if len(argv) == 0 || !shells[path.Base(argv[0])] {
		return ""
	}
	sh := shellScript(argv[1:])
	switch name := path.Base(argv[0]); {
	case sh.unknown != "":
		return "its shell option " + sh.unknown + " is unknown: what it runs is uncertain"
	case sh.stream != "":
		return "it runs the script " + name + " reads from " + sh.stream + ", which is in no command's text"
	case sh.ok && (name == "zsh" || name == "ksh"):
		if why := zshOptionsWhy(argv[1:]); why != "" {
			return "it runs " + name + " with " + why + ", which changes how " + name + " reads its script"
		}
		if why := zshWhy(sh.script); why != "" {
			return "it runs a " + name + " script with " + why + ", which " + name + " reads otherwise than bash"
		}
	}
	return ""
}

// streamFile reports whether the operand a names no file but a stream,
// whose content is in no command's text: a process substitution, standard
// input, or an open file descriptor.
func streamFile(a string) bool {
	return strings.HasPrefix(a, "<(") || a == "/dev/stdin" || strings.HasPrefix(a, "/dev/fd/") ||
		strings.HasPrefix(a, "/proc/self/fd/")
}

// shellArgs is what the arguments of a shell after its name (without
// redirections) say of its script.
type shellArgs struct {
	// script is the first argument after -c that is not an option (-x,
	// +x, -o name, -O name, +O name, --login, --rcfile FILE, --init-file
	// FILE), and extra the arguments after it; ok says there is one.
	script string
	extra  []string
	ok     bool
	// unknown is the first option not known, which may take the next
	// word: then where the script is is not known (ok is false).
	unknown string
	// stream says where a shell without -c reads its script when that is
	// no file: "its standard input" (-s, or no operand) or the operand
	// that names a stream (see streamFile); "" for a script file, and
	// with --help or --version, which read none.
	stream string
}

// shellScript reads the arguments args of a shell after its name (see
// shellArgs).
func shellScript(args []string) shellArgs {
	seenC, seenS, info := false, false, false
	// fromOperand is the reading of a shell without -c whose script is
	// operand ("": none).
	fromOperand := func(operand string) shellArgs {
		var sh shellArgs
		switch {
		case seenC, info:
		case operand == "" || seenS:
			sh.stream = "its standard input"
		case streamFile(operand):
			sh.stream = operand
		}
		return sh
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if seenC && i+1 < len(args) {
				return shellArgs{script: args[i+1], extra: args[i+2:], ok: true}
			}
			if i+1 < len(args) {
				return fromOperand(args[i+1])
			}
			return fromOperand("")
		case isLongOption(a):
			name, _, hasVal := strings.Cut(a[2:], "=")
			switch {
			case shellLongArg[name] && !hasVal:
				i++ // --rcfile FILE
			case shellLongArg[name]:
			case shellLongFlag[name]:
				info = info || name == "help" || name == "version" || strings.HasPrefix(name, "dump")
			default:
				return shellArgs{unknown: a}
			}
		case isOptionCluster(a):
			if a[0] == '-' {
				seenC = seenC || strings.Contains(a[1:], "c")
				seenS = seenS || strings.Contains(a[1:], "s")
			}
			// -o and -O (+o, +O) take an option name each.
			i += strings.Count(a[1:], "o") + strings.Count(a[1:], "O")
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			return shellArgs{unknown: a}
		default:
			if seenC {
				return shellArgs{script: a, extra: args[i+1:], ok: true}
			}
			return fromOperand(a)
		}
	}
	return fromOperand("")
}

// shellLongFlag and shellLongArg are bash's long options, without and
// with an argument.
var (
	shellLongFlag = map[string]bool{
		"login": true, "noprofile": true, "norc": true, "posix": true, "noediting": true, "restricted": true,
		"verbose": true, "debug": true, "debugger": true, "dump-po-strings": true, "dump-strings": true,
		"help": true, "version": true, "pretty-print": true,
	}
	shellLongArg = map[string]bool{"rcfile": true, "init-file": true}
)

const asciiLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// isOptionCluster reports whether a is like -lc or +x.
func isOptionCluster(a string) bool {
	return len(a) >= 2 && (a[0] == '-' || a[0] == '+') && strings.Trim(a[1:], asciiLetters) == ""
}

// isLongOption reports whether a is like --login or --rcfile=x.
func isLongOption(a string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
	return strings.HasPrefix(a, "--") && name != "" && strings.Trim(name, asciiLetters+"-") == ""
}

// QuoteArgv joins an argv into one POSIX shell line, quoting the words
// that need it: the line the rules see for an argv. Its first word is
// the program that runs, whatever a shell would make of it, so it is
// quoted where a shell would read it otherwise: holding = (an
// assignment: ["A=1", "echo", "hi"] runs the program A=1, not echo), ~
// (a home directory), * or ^, or a reserved word (if, !, {, …).
func QuoteArgv(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	first := argv[0]
	if !programWord.Plain(first) || reservedWords[first] {
		first = "'" + shellquote.Quoted(first) + "'"
	}
	words := []string{first}
	for _, a := range argv[1:] {
		words = append(words, ruleLine.Word(a))
	}
	return strings.Join(words, " ")
}

// QuoteWord returns s as one word of the line the rules see, quoted only
// where a shell would not read it back as written.
func QuoteWord(s string) string { return ruleLine.Word(s) }

// programWord is what an argv's first word may hold unquoted: ASCII
// letters, digits and the punctuation a shell reads as itself, but =.
var programWord = shellquote.Quoter{Keep: strings.ReplaceAll(shellquote.Literal, "=", ""), KeepNonASCII: true}

// reservedWords are the words bash and POSIX shells read as reserved in a
// command's first word.
var reservedWords = map[string]bool{
	"!": true, "{": true, "}": true, "[[": true, "]]": true, "case": true, "coproc": true, "do": true, "done": true,
	"elif": true, "else": true, "esac": true, "fi": true, "for": true, "function": true, "if": true, "in": true,
	"select": true, "then": true, "time": true, "until": true, "while": true,
}

// ruleLine quotes the words of an argv for the line the rules see. It
// leaves *, ~, ^ and non-ASCII text unquoted as well, so that the line
// reads as the agent wrote it and patterns written that way match.
var ruleLine = shellquote.Quoter{Keep: shellquote.Literal + "*~^", KeepNonASCII: true}

// words splits a simple command (as returned by SplitCommands) into words
// as the shells do: at unquoted blanks, and before an unquoted redirection
// operator (<, >, >>, &>, <<, >&, <>, >|, …), which, in both bash and
// dash, ends the word before it unless that word is a file descriptor
// number (2>x) or bash's {NAME}; a redirection and the target written
// against it are one word (>/dev/null). So `cd>/dev/null /etc` is the
// words cd, >/dev/null and /etc. Quotes, backslash escapes and
// substitutions ($(…), ${…}, `…`, <(…), >(…)) stay inside their word. Any
// other { or ( is a byte of its word: { is a reserved word only where a
// command starts, so `X={ a } b` is the words X={, a, } and b.
func words(s string) []string {
	var out []string
	for _, w := range wordSpans(s) {
		out = append(out, s[w[0]:w[1]])
	}
	return out
}

// cutWord returns the first word of s (see words) and the text after it,
// its leading blanks removed.
func cutWord(s string) (w, rest string) {
	spans := wordSpans(s)
	if len(spans) == 0 {
		return "", ""
	}
	end := spans[0][1]
	return s[spans[0][0]:end], strings.TrimLeft(s[end:], " \t\n")
}

// wordSpans returns where the words of s (see words) start and end.
func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1    // of the word being read, -1 between words
	redir := false // the word being read starts with a redirection operator
	end := func(i int) {
		if start >= 0 && i > start {
			out = append(out, [2]int{start, i})
		}
		start = -1
	}
	for i := 0; i < len(s); {
		switch ch := s[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n':
			end(i)
			i++
		case (ch == '<' || ch == '>') && i+1 < len(s) && s[i+1] == '(':
			if start < 0 {
				start, redir = i, false
			}
			i = skipParens(s, i+1)
		case ch == '<' || ch == '>' || ch == '&' && i+1 < len(s) && s[i+1] == '>':
			if start >= 0 && (redir || !fdPrefix(s[start:i])) {
				end(i)
			}
			if start < 0 {
				start = i
			}
			redir = true
			i += redirectionOperator(s[i:])
		default:
			if start < 0 {
				start, redir = i, false
			}
			i = skipQuoting(s, i)
		}
	}
	end(len(s))
	return out
}

// fdPrefix reports whether w, written right before a redirection
// operator, is the file descriptor it redirects: a number, or bash's
// {NAME}.
func fdPrefix(w string) bool {
	if isDigits(w) {
		return true
	}
	name, ok := strings.CutPrefix(w, "{")
	name, ok2 := strings.CutSuffix(name, "}")
	return ok && ok2 && name != "" && isAssignment(name+"=")
}

// redirectionOperator returns the length of the redirection operator
// that s starts with (<<<, <<-, <<, &>>, &>, >>, >|, >&, <>, <&, > or <).
func redirectionOperator(s string) int {
	for _, op := range []string{"<<<", "<<-", "&>>", "<<", "&>", ">>", ">|", ">&", "<>", "<&"} {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	return 1
}

// dequote removes shell quoting from s as the shells do: outside quotes a
// backslash escapes the byte after it, and a backslash-newline goes;
// '…' is literal; inside "…" a backslash escapes only $, `, ", \ and a
// newline (which goes with it) and is text before any other byte; bash's
// $'…' decodes its escapes (see ansiC) and $"…" is "…".
func dequote(s string) string {
	if !strings.ContainsAny(s, `'"\$`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		case ch == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				end = len(s) - i - 1
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				b.WriteByte(s[i])
			}
		case ch == '$' && i+1 < len(s) && s[i+1] == '\'':
			body, n := ansiC(s[i+2:])
			b.WriteString(body)
			i += 1 + n
		case ch == '$' && i+1 < len(s) && s[i+1] == '"':
			// $"…": the dollar goes, the quote opens next
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// ansiC decodes the body of bash's $'…', s starting after its opening
// quote, and returns it and the length read, the closing quote included:
// \a \b \e \E \f \n \r \t \v \\ \' \" \?, octal \NNN, hex \xHH, \uHHHH,
// \UHHHHHHHH and control \cX; any other backslash is text.
func ansiC(s string) (string, int) {
	var b strings.Builder
	i := 0
	for ; i < len(s) && s[i] != '\''; i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		if r := strings.IndexByte(`abeEfnrtv\'"?`, s[i]); r >= 0 {
			b.WriteByte("\a\b\x1b\x1b\f\n\r\t\v\\'\"?"[r])
			continue
		}
		digits, base, width := "", 0, 0
		switch s[i] {
		case '0', '1', '2', '3', '4', '5', '6', '7':
			digits, base, width = "01234567", 8, 3
		case 'x':
			digits, base, width = "0123456789abcdefABCDEF", 16, 2
		case 'u':
			digits, base, width = "0123456789abcdefABCDEF", 16, 4
		case 'U':
			digits, base, width = "0123456789abcdefABCDEF", 16, 8
		case 'c':
			if i+1 < len(s) && s[i+1] != '\'' {
				i++
				b.WriteByte(s[i] & 0x1f)
				continue
			}
		}
		if base == 0 {
			b.WriteByte('\\')
			b.WriteByte(s[i])
			continue
		}
		j := i
		if base == 16 {
			j++ // after x, u or U
		}
		v, k := 0, j
		for k < len(s) && k-j < width && strings.IndexByte(digits, s[k]) >= 0 {
			d := strings.IndexByte("0123456789abcdef", s[k]|0x20)
			v = v*base + d
			k++
		}
		switch {
		case k == j: // \x without digits is text
			b.WriteByte('\\')
			b.WriteByte(s[i])
			continue
		case s[i] == 'u' || s[i] == 'U':
			b.WriteRune(rune(v))
		default:
			b.WriteByte(byte(v))
		}
		i = k - 1
	}
	return b.String(), min(i+1, len(s))
}

// dequoteAll returns the words ws with their quoting removed (dequote).
func dequoteAll(ws []string) []string {
	unq := make([]string, len(ws))
	for i, w := range ws {
		unq[i] = dequote(w)
	}
	return unq
}

// isAssignment reports whether w starts with NAME= or NAME+=.
func isAssignment(w string) bool {
	i := 0
	for i < len(w) && (w[i] == '_' || w[i] >= 'a' && w[i] <= 'z' || w[i] >= 'A' && w[i] <= 'Z' ||
		i > 0 && w[i] >= '0' && w[i] <= '9') {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(w) && w[i] == '+' {
		i++
	}
	return i < len(w) && w[i] == '='
}

// wrapper says how a command that runs its arguments as a command (sudo,
// env, timeout, …) is read, so that deny patterns also see the command it
// runs. Options are those of the tool's getopt: they come first, then the
// operands, then the command.
type wrapper struct {
	// opts are the short options in getopt's notation: a letter followed
	// by ':' takes an argument (attached, -n5, or the next word, -n 5),
	// one followed by '::' takes only an attached one, a letter alone
	// takes none. A letter not listed may take an argument or not: both
	// readings are tried.
	opts string
	// long are the long options that take an argument (--user root, or
	// --user=root). Any other long option without '=' is read both ways.
	long []string
	// script are the options (short letters and long names) whose
	// argument is a shell line that runs (flock -c, env -S).
	script []string
	// operands is the number of words after the options and before the
	// command (timeout's DURATION, chrt's PRIORITY, flock's FILE).
	operands int
	// afterOperands are the options after the operands whose argument is
	// the shell line that runs instead of a command (flock FILE -c LINE).
	afterOperands []string
	// assigns: NAME=VALUE words may come before the command (env, sudo).
	assigns bool
	// joined: the command's words are joined into a shell line, which runs
	// (watch runs sh -c "WORDS").
	joined bool
	// appends: the wrapper adds arguments to the command (xargs, from its
	// input): a form ends with "…" for them too, so "rm *" denies
	// `xargs rm`.
	appends bool
	// execs: the commands are those after -exec, -execdir, -ok and -okdir,
	// up to ; or {} + (find).
	execs bool
	// permutes: options may also come after the operands, as GNU getopt
	// allows (su root -c LINE): the script options are looked for in
	// every word.
	permutes bool
	// shell says when the wrapper starts a shell, which reads its script
	// from its standard input: with no command (unshare), with no word
	// but a user among its options (su), or, with shellAlways, whenever
	// no script option gives it a line (script, whose operand is a file).
	// shellOpts, when set, are the options it needs for that (sudo -s).
	shell     shellStart
	shellOpts []string
	// userOpts are the options that name the user, after which no word
	// is the user (runuser -u USER COMMAND): with shellUser, a shell then
	// starts only with no word left.
	userOpts []string
}

// shellStart says when a wrapper starts a shell (see wrapper.shell).
type shellStart int

const (
	shellNever     shellStart = iota
	shellNoCommand            // with no command after its options and operands
	shellUser                 // with no word but a user among its options (su)
	shellAlways               // unless a script option gives it a shell line
)

// wrappers are the commands deny patterns see through, by name (also
// given as a path). docs/permissions.md lists them.
var wrappers = map[string]wrapper{
	"sudo": {opts: "ABbEeHiKklNnPSsVvC:D:g:p:R:r:T:t:U:u:",
		long:    []string{"user", "group", "close-from", "chdir", "host", "prompt", "chroot", "role", "type", "command-timeout", "other-user"},
		assigns: true, shell: shellNoCommand, shellOpts: []string{"s", "i", "shell", "login"}},
	"doas":    {opts: "Lnsa:C:u:", shell: shellNoCommand, shellOpts: []string{"s"}},
	"env":     {opts: "0ivu:C:S:P:", long: []string{"unset", "chdir", "split-string"}, script: []string{"S", "split-string"}, assigns: true},
	"exec":    {opts: "cla:"},
	"nice":    {opts: "0123456789n:", long: []string{"adjustment"}},
	"nohup":   {},
	"command": {opts: "pvV"},
	"builtin": {},
	"time":    {opts: "apqvVf:o:", long: []string{"format", "output"}},
	"coproc":  {},
	"timeout": {opts: "vk:s:", long: []string{"kill-after", "signal"}, operands: 1},
	"xargs": {opts: "0oprtxa:d:E:e::I:i::L:l::n:P:s:",
		long:    []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		appends: true},
	"find":    {execs: true},
	"stdbuf":  {opts: "i:o:e:", long: []string{"input", "output", "error"}},
	"setsid":  {opts: "cfw"},
	"busybox": {}, // busybox APPLET ARGS: the applet is the command
	"toybox":  {},
	// Namespaces, users and tracers, which run a command in another setting.
	"unshare": {opts: "muinpUCTfrclR:w:S:G:",
		long:  []string{"propagation", "setgroups", "root", "wd", "setuid", "setgid", "map-user", "map-group", "map-users", "map-groups"},
		shell: shellNoCommand},
	"nsenter": {opts: "aFZt:S:G:m::u::i::n::p::U::C::T::r::w::", long: []string{"target", "setuid", "setgid"}, shell: shellNoCommand},
	"chroot":  {long: []string{"userspec", "groups"}, operands: 1, shell: shellNoCommand},
	"runuser": {opts: "flmpPu:g:G:c:s:w:", long: []string{"user", "group", "supp-group", "command", "session-command", "shell", "whitelist-environment"},
		script: []string{"c", "command", "session-command"}, permutes: true, shell: shellUser, userOpts: []string{"u", "user"}},
	"su": {opts: "flmpPc:g:G:s:w:", long: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment"},
		script: []string{"c", "command", "session-command"}, permutes: true, shell: shellUser},
	"script": {opts: "aefqc:E:I:O:B:T:m:t::", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"},
		script: []string{"c", "command"}, permutes: true, shell: shellAlways},
	"strace":           {opts: "fFhiqrtTvVwxyzcCdDkna:b:e:E:I:o:O:p:P:s:S:u:X:", long: []string{"output", "attach", "env", "expr", "trace", "signal", "status", "user", "string-limit", "summary-sort-by", "columns", "detach-on", "trace-path"}},
	"ltrace":           {opts: "bcCfhiLrStTVa:A:D:e:F:l:n:o:p:s:u:w:x:", long: []string{"output", "align", "indent", "library", "config"}},
	"valgrind":         {},
	"fakeroot":         {opts: "ubl:s:i:", long: []string{"lib", "faked"}, shell: shellNoCommand},
	"xvfb-run":         {opts: "alhe:f:n:p:s:w:", long: []string{"error-file", "auth-file", "server-num", "xauth-protocol", "server-args", "wait"}},
	"dbus-run-session": {long: []string{"config-file", "dbus-daemon"}},
	"unbuffer":         {opts: "p"},
	"firejail":         {shell: shellNoCommand},
	"systemd-run": {opts: "qPGtdrSp:u:E:M:H:",
		long:  []string{"property", "unit", "setenv", "machine", "host", "uid", "gid", "nice", "working-directory", "description", "slice", "service-type"},
		shell: shellNoCommand, shellOpts: []string{"S", "shell"}},
	"catchsegv": {},
	// GNU parallel runs its command words, joined, as a shell line, with
	// arguments from its input or after :::.
	"parallel": {opts: "0kmqruvXa:d:E:I:j:L:l::N:n:P:S:s:",
		long:   []string{"jobs", "arg-file", "delimiter", "max-args", "max-procs", "sshlogin", "halt", "timeout", "joblog", "results", "tmpdir", "workdir"},
		joined: true, appends: true},
	"torsocks": {opts: "diqu:p:a:P:", long: []string{"user", "pass", "address", "port"}},
	"ionice":   {opts: "tc:n:p:P:u:", long: []string{"class", "classdata", "pid", "pgid", "uid"}},
	"chrt":     {opts: "abdefimoprRvT:P:D:", long: []string{"sched-runtime", "sched-period", "sched-deadline"}, operands: 1},
	"taskset":  {opts: "acp", operands: 1},
	"watch":    {opts: "bcCd::egprtwxn:q:", long: []string{"interval", "equexit"}, joined: true},
	"flock": {opts: "sexnouFw:E:c:", long: []string{"timeout", "wait", "conflict-exit-code", "command"},
		script: []string{"c", "command"}, operands: 1, afterOperands: []string{"-c", "--command"}},
}

// wrapped returns what the wrapper w, given the words after its name,
// runs: the commands (words as written), each for every reading of its
// options, and shell lines (unquoted) that run. all is false when there
// were more readings than maxDenyForms, of which the first are returned.
func (w wrapper) wrapped(ws []string) (cmds [][]string, lines []string, all bool) {
	if w.execs {
		return execs(ws), nil, true
	}
	ends, lines := w.options(ws)
	if all = len(ends) <= maxDenyForms; !all {
		ends = ends[:maxDenyForms]
	}
	for _, e := range ends {
		s := e + w.operands
		if s < len(ws)-1 && slices.Contains(w.afterOperands, dequote(ws[s])) {
			lines = append(lines, dequote(ws[s+1]))
			continue
		}
		if s >= len(ws) {
			continue
		}
		cmds = append(cmds, ws[s:])
		if w.appends {
			cmds = append(cmds, append(slices.Clip(ws[s:]), "…"))
		}
		if w.assigns { // env also takes 'A.B=x' as an assignment
			k := s
			for k < len(ws) && strings.Contains(dequote(ws[k]), "=") {
				k++
			}
			if k > s && k < len(ws) {
				cmds = append(cmds, ws[k:])
			}
		}
		if w.joined {
			lines = append(lines, strings.Join(dequoteAll(ws[s:]), " "))
		}
	}
	return cmds, lines, all
}

// options reads the options of the wrapper w in the words ws after its
// name, from every place they may go on from (an option that may or may
// not take an argument goes on from two), and returns where they may end,
// in order (len(ws) when they may take every word), and the shell lines
// their script options give.
func (w wrapper) options(ws []string) (ends []int, lines []string) {
	seen := make([]bool, len(ws)+2)
	for todo := []int{0}; len(todo) > 0; {
		i := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if i > len(ws) || seen[i] {
			continue
		}
		seen[i] = true
		if i == len(ws) {
			ends = append(ends, i)
			continue
		}
		switch a := dequote(ws[i]); {
		case a == "--":
			ends = append(ends, i+1)
		case a == "-": // env's -i, or an operand
			ends = append(ends, i)
			todo = append(todo, i+1)
		case strings.HasPrefix(a, "-"):
			next, script := w.option(ws, i)
			todo = append(todo, next...)
			lines = append(lines, script...)
		default:
			ends = append(ends, i)
		}
	}
	if w.permutes {
		for i := range ws {
			if a := dequote(ws[i]); strings.HasPrefix(a, "-") && a != "-" && a != "--" {
				_, script := w.option(ws, i)
				lines = append(lines, script...)
			}
		}
	}
	slices.Sort(ends)
	return slices.Compact(ends), lines
}

// startsShell reports whether the wrapper w, given the words ws after its
// name, may start a shell that reads its script from its standard input
// (see wrapper.shell): sudo -s, su, unshare, chroot NEWROOT, script FILE
// with no command, no shell line given (su -c) and no --help or
// --version.
func (w wrapper) startsShell(ws []string) bool {
	if w.shell == shellNever {
		return false
	}
	unq := dequoteAll(ws)
	if slices.Contains(unq, "--help") || slices.Contains(unq, "--version") {
		return false
	}
	if len(w.shellOpts) > 0 && !slices.ContainsFunc(unq, func(a string) bool { return hasOption(a, w.shellOpts) }) {
		return false
	}
	ends, lines := w.options(ws)
	if len(lines) > 0 {
		return false
	}
	switch w.shell {
	case shellAlways:
		return true
	case shellUser:
		users := 1
		if slices.ContainsFunc(unq, func(a string) bool { return hasOption(a, w.userOpts) }) {
			users = 0
		}
		return w.operandCount(ws) <= users
	}
	return slices.ContainsFunc(ends, func(e int) bool { return len(ws)-e == w.operands })
}

// operandCount returns how many of the words ws after the name of the
// wrapper w (whose options permute) are neither options nor their
// arguments; an option that may take the next word is taken to.
func (w wrapper) operandCount(ws []string) int {
	n := 0
	for i := 0; i < len(ws); i++ {
		switch a := dequote(ws[i]); {
		case a == "--":
			return n + len(ws) - i - 1
		case a == "-": // su's -, a login shell
		case strings.HasPrefix(a, "-"):
			next, _ := w.option(ws, i)
			i = slices.Max(next) - 1
		default:
			n++
		}
	}
	return n
}

// hasOption reports whether the word a is one of the options names: a
// long option (--shell, --shell=x) or a cluster of short ones that holds
// one of the letters (-Es).
func hasOption(a string, names []string) bool {
	if long, ok := strings.CutPrefix(a, "--"); ok {
		long, _, _ = strings.Cut(long, "=")
		return slices.Contains(names, long)
	}
	if !isOptionCluster(a) || a[0] != '-' {
		return false
	}
	return slices.ContainsFunc(names, func(n string) bool { return len(n) == 1 && strings.Contains(a[1:], n) })
}

// option reads the option word ws[i] (dequoted, it starts with '-') and
// returns where the words may go on after it (i+1, or i+2 after an
// argument in the next word; both when that is unknown) and the shell
// line it gives, if any.
func (w wrapper) option(ws []string, i int) (next []int, lines []string) {
	a := dequote(ws[i])
	arg := func(attached string, script bool) {
		val := attached
		if val == "" {
			next = append(next, i+2)
			if i+1 < len(ws) {
				val = dequote(ws[i+1])
			}
		} else {
			next = append(next, i+1)
		}
		if script && val != "" {
			lines = append(lines, val)
		}
	}
	if name, ok := strings.CutPrefix(a, "--"); ok {
		name, val, hasVal := strings.Cut(name, "=")
		script := slices.Contains(w.script, name)
		switch {
		case hasVal:
			next = append(next, i+1)
			if script {
				lines = append(lines, val)
			}
		case slices.Contains(w.long, name):
			arg("", script)
		default: // a flag, or an option that takes the next word
			next = append(next, i+1, i+2)
		}
		return next, lines
	}
	for j := 1; j < len(a); j++ {
		c, rest := a[j], a[j+1:]
		k := strings.IndexByte(w.opts, c)
		if c == ':' || k < 0 { // unknown: read with an argument, then without
			if rest == "" {
				next = append(next, i+2)
			} else {
				next = append(next, i+1)
			}
			continue
		}
		spec := w.opts[k+1:]
		switch {
		case strings.HasPrefix(spec, "::"): // only an attached argument
			return append(next, i+1), lines
		case strings.HasPrefix(spec, ":"):
			arg(rest, slices.Contains(w.script, string(c)))
			return next, lines
		}
	}
	return append(next, i+1), lines
}

// execs returns the commands of find's -exec, -execdir, -ok and -okdir:
// the words after each up to ; or {} +.
func execs(ws []string) [][]string {
	var out [][]string
	for i := 0; i < len(ws); i++ {
		switch dequote(ws[i]) {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(ws) {
			a := dequote(ws[j])
			if a == ";" || a == "+" && j > i+1 && dequote(ws[j-1]) == "{}" {
				break
			}
			j++
		}
		if j > i+1 {
			out = append(out, ws[i+1:j])
		}
		i = j
	}
	return out
}

// maxForms bounds the units allowUnits returns for one command.
const maxForms = 64

// maxDenyForms and maxDenyBytes bound the forms denyForms returns for one
// command: their number and their total length.
const (
	maxDenyForms = 256
	maxDenyBytes = 1 << 20
)

// maxNesting bounds how deeply denyForms follows shell lines inside
// commands (sh -c, eval, watch, flock -c, env -S).
const maxNesting = 4

// denyForms returns the forms of a simple command that deny patterns are
// matched against: the command itself; without its redirections; without
// its leading assignments;
// each of those assignments on its own (NAME=value, as written and
// unquoted); what a wrapper (see wrappers) runs, without the wrapper and
// its options, for every reading of options whose argument is unknown;
// with quoting removed; with the program's directory removed (/bin/rm →
// rm); and the commands of a shell line the command runs (sh -c SCRIPT,
// eval …, watch, flock -c, env -S). complete is false when there were more
// forms than maxDenyForms (or maxDenyBytes of them) or shell lines nested
// deeper than maxNesting: a deny pattern must then be taken to match, as
// it could. unresolved says why a form as the shell reads it (not one with
// its quoting removed) is unresolvable (see unresolvedWhy), "" when none
// is: a deny pattern is then taken to match too. Allow patterns see the
// command itself and its allowUnits. piece tells that cmd is a piece of
// text split as a command to be safe (see splitLine), and so are its forms.
func denyForms(cmd string, piece bool) (forms []string, complete bool, unresolved string) {
	seen := map[string]bool{}    // the texts added
	listed := map[string]bool{}  // the forms returned
	checked := map[string]bool{} // the texts as the shell reads them, looked at by unresolvedWhy
	complete = true
	size := 0 // of the forms
	var add func(s string, depth int, raw, piece bool)
	// full reports whether no more forms are taken: what is left unseen
	// makes the forms incomplete.
	full := func() bool {
		if len(seen) >= maxDenyForms || size >= maxDenyBytes {
			complete = false
		}
		return !complete
	}
	addLine := func(line string, depth int, raw bool) {
		if depth >= maxNesting {
			complete = false
			return
		}
		cmds, pieces := splitLine(line)
		for _, c := range cmds {
			if full() {
				return
			}
			add(c, depth+1, raw, pieces[c])
		}
	}
	// add adds the form s and its forms; raw tells that s is shell text
	// as the shell reads it, its quoting intact, and piece that it is a
	// piece (see splitLine).
	add = func(s string, depth int, raw, piece bool) {
		// Patterns see the form with its blanks collapsed; s itself, its
		// quoted newlines kept, is read for what it runs (a newline ends
		// a comment in a script).
		s = strings.TrimSpace(s)
		form := strings.Join(strings.Fields(s), " ")
		check := func() {
			if raw && unresolved == "" && !checked[s] {
				checked[s] = !piece // seen later as a command, it is read as one
				unresolved = unresolvedWhy(s, piece)
			}
		}
		if form == "" {
			return
		}
		if seen[s] {
			check() // it may have been seen with its quoting removed
			return
		}
		if len(seen) >= maxDenyForms || size+len(s) > maxDenyBytes {
			complete = false
			return
		}
		seen[s] = true
		if !listed[form] {
			listed[form] = true
			forms = append(forms, form)
		}
		size += len(s)
		check()
		ws := words(s)
		if len(ws) == 0 {
			return
		}
		unq := dequoteAll(ws)
		add(strings.Join(unq, " "), depth, false, piece)
		if strings.ContainsAny(s, "<>") {
			if rest, redirs := splitRedirections(ws); len(redirs) > 0 && len(rest) > 0 {
				add(strings.Join(rest, " "), depth, raw, piece) // >log sudo rm: its forms
			}
		}
		i := 0
		for i < len(ws) && isAssignment(ws[i]) {
			add(ws[i], depth, raw, piece)
			add(unq[i], depth, false, piece)
			i++
		}
		if i > 0 {
			if i < len(ws) {
				add(strings.Join(ws[i:], " "), depth, raw, piece) // and its forms
			}
			return
		}
		name := path.Base(unq[0])
		if strings.Contains(unq[0], "/") {
			add(name+" "+strings.Join(unq[1:], " "), depth, false, piece)
		}
		if w, ok := wrappers[name]; ok {
			cmds, lines, all := w.wrapped(ws[1:])
			complete = complete && all
			for _, c := range cmds {
				if full() {
					return
				}
				add(strings.Join(c, " "), depth, raw, piece)
			}
			for _, l := range lines {
				if full() {
					return
				}
				addLine(l, depth, raw)
			}
		}
		if script, ok := wrapperScript(unq); ok {
			addLine(script, depth, raw)
		} else if name == "eval" {
			addLine(strings.Join(unq[1:], " "), depth, raw)
		} else if action, ok := trapAction(unq); ok {
			addLine(action, depth, raw)
		}
		lines, _ := gitConfig(unq)
		for _, l := range lines {
			addLine(l, depth, raw)
		}
	}
	add(cmd, 0, true, piece)
	return forms, complete, unresolved
}
