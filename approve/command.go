package approve

import (
	"path"
	"strings"

	"github.com/acprun/acprun/internal/shellquote"
)

// argvLine turns an argv array into a shell line. A shell wrapper
// (sh, bash, zsh, dash or ksh, also given as a path, with -c among its
// options) yields its script; arguments after the script (which the script
// sees as $0, $1, …) are appended as a line of their own, so a policy sees
// them too. Any other argv is joined with shell quoting, so that splitting
// the line gives back one command.
func argvLine(argv []string) string {
	if script, ok := wrapperScript(argv); ok {
		return script
	}
	return QuoteArgv(argv)
}

// wrapperScript returns the script of a shell wrapper argv (sh, bash, zsh,
// dash or ksh, also given as a path, with -c among its options), with the
// arguments after it, which it sees as $0, $1, …, as a line of their own.
func wrapperScript(argv []string) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	switch path.Base(argv[0]) {
	case "sh", "bash", "zsh", "dash", "ksh":
		script, extra, ok := shellScript(argv[1:])
		if ok && len(extra) > 0 {
			script += "\n" + QuoteArgv(extra)
		}
		return script, ok
	}
	return "", false
}

// shellScript finds the script of `sh [options] -c [options] SCRIPT [args]`
// given the arguments after the shell's name: the first argument after -c
// that is not an option (-x, +x, --long, -o name) is the script.
func shellScript(args []string) (script string, extra []string, ok bool) {
	seenC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o":
			i++ // takes an option name
		case a == "--":
			if seenC && i+1 < len(args) {
				return args[i+1], args[i+2:], true
			}
			return "", nil, false
		case isLongOption(a):
			// --login, --norc, ...
		case isOptionCluster(a):
			if a[0] == '-' && strings.Contains(a[1:], "c") {
				seenC = true
			}
		default:
			if seenC {
				return a, args[i+1:], true
			}
			return "", nil, false
		}
	}
	return "", nil, false
}

// isOptionCluster reports whether a is like -lc or +x.
func isOptionCluster(a string) bool {
	if len(a) < 2 || a[0] != '-' && a[0] != '+' {
		return false
	}
	for _, r := range a[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// isLongOption reports whether a is like --login or --rcfile=x.
func isLongOption(a string) bool {
	if len(a) < 3 || !strings.HasPrefix(a, "--") {
		return false
	}
	name, _, _ := strings.Cut(a[2:], "=")
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	return name != ""
}

// QuoteArgv joins an argv into one POSIX shell line, quoting the words
// that need it: the line the rules see for an argv.
func QuoteArgv(argv []string) string { return ruleLine.Join(argv) }

// ruleLine quotes the words of an argv for the line the rules see. It
// leaves *, ~, ^ and non-ASCII text unquoted as well, so that the line
// reads as the agent wrote it and patterns written that way match.
var ruleLine = shellquote.Quoter{Keep: shellquote.Literal + "*~^", KeepNonASCII: true}

// words splits a simple command (as returned by SplitCommands) into words
// at unquoted blanks, keeping quotes and substitutions inside their word.
func words(s string) []string {
	var out []string
	start, nest := 0, 0
	var quote byte // ' " or ` while inside one
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			}
		case ch == '\\':
			i++
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
		case ch == '(' || ch == '{':
			nest++
		case ch == ')' || ch == '}':
			nest = max(nest-1, 0)
		case (ch == ' ' || ch == '\t' || ch == '\n') && nest == 0:
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// dequote removes shell quoting from s: quotes disappear, backslash
// escapes are undone, and $'…' and $"…" lose their dollar.
func dequote(s string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				b.WriteByte(ch)
			}
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case quote == '"':
			if ch == '"' {
				quote = 0
			} else {
				b.WriteByte(ch)
			}
		case ch == '$' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"'):
			// $'…' / $"…": drop the dollar, the quote opens next
		case ch == '\'' || ch == '"':
			quote = ch
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
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

// wrappers are commands that run their arguments as a command; a deny
// pattern also sees the command they wrap.
var wrappers = map[string]bool{
	"command": true, "builtin": true, "exec": true, "nohup": true,
	"sudo": true, "doas": true, "env": true, "nice": true, "time": true,
	"coproc": true,
}

// maxForms bounds the forms denyForms returns for one command.
const maxForms = 64

// denyForms returns the forms of a simple command that deny patterns are
// matched against: the command itself; without leading assignments,
// wrapper commands (sudo, env, exec, …) and their -options; each of those
// leading assignments on its own (NAME=value, as written and unquoted);
// with quoting removed; with the program's directory removed (/bin/rm →
// rm); and the commands of a nested `sh -c SCRIPT` or `eval …`. Allow
// patterns see the command itself and its allowUnits.
func denyForms(cmd string) []string {
	seen := map[string]bool{}
	var out []string
	var add func(s string, depth int)
	add = func(s string, depth int) {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" || seen[s] || len(out) >= maxForms {
			return
		}
		seen[s] = true
		out = append(out, s)
		ws := words(s)
		i := 0
		for i < len(ws) && (isAssignment(ws[i]) || wrappers[dequote(ws[i])] ||
			i > 0 && wrappers[dequote(ws[i-1])] && strings.HasPrefix(ws[i], "-")) {
			i++
		}
		if i > 0 && i < len(ws) {
			add(strings.Join(ws[i:], " "), depth)
		}
		for _, a := range assignmentForms(ws[:i]) {
			add(a, depth)
		}
		if len(ws) == 0 {
			return
		}
		unq := make([]string, len(ws))
		for j, w := range ws {
			unq[j] = dequote(w)
		}
		add(strings.Join(unq, " "), depth)
		if strings.Contains(unq[0], "/") {
			add(path.Base(unq[0])+" "+strings.Join(unq[1:], " "), depth)
		}
		if depth >= 4 {
			return
		}
		var nested string
		switch path.Base(unq[0]) {
		case "sh", "bash", "zsh", "dash", "ksh":
			if script, _, ok := shellScript(unq[1:]); ok {
				nested = script
			}
		case "eval":
			nested = strings.Join(unq[1:], " ")
		}
		if nested != "" {
			for _, c := range SplitCommands(nested) {
				add(c, depth+1)
			}
		}
	}
	add(cmd, 0)
	return out
}
