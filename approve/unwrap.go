package approve

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// maxUnwrap bounds how deeply allowUnits unwraps nested shells.
const maxUnwrap = 4

// allowUnits returns what allow patterns must cover for one simple command
// (as returned by SplitCommands) when the command as written is matched by
// no allow pattern: the command without its leading VAR=value assignments
// and without an `env` that only sets variables (env FOO=1 cmd), and, for a
// shell wrapper (sh, bash, zsh, dash or ksh with -c SCRIPT, or eval …),
// the commands of the script, unwrapped in turn. Arguments after the
// script, which it sees as $0, $1, …, are a command of their own, as in
// commandsOf. A command with nothing to take off is its own only unit; so
// is one that unwraps into more than maxForms units.
//
// unresolved says why the command, or one it unwraps into, is
// unresolvable (see unresolvedWhy), "" when none is: then no allow
// pattern allows it. piece tells that cmd is no simple command but a
// piece of text split as one (see splitLine).
func allowUnits(cmd string, piece bool) (units []string, unresolved string) {
	var out []string
	seen := map[string]bool{}
	var walk func(cmd string, depth int, piece bool)
	walk = func(cmd string, depth int, piece bool) {
		if unresolved == "" {
			unresolved = unresolvedWhy(cmd, piece)
		}
		ws := words(cmd)
		i := skipAssignments(ws)
		if i == len(ws) {
			i = 0 // only assignments (or a bare env): that is the command
		}
		unit := strings.Join(ws[i:], " ")
		if depth < maxUnwrap && i < len(ws) {
			if inner, innerPieces := nestedCommands(ws[i:]); len(inner) > 0 {
				for _, c := range inner {
					walk(c, depth+1, innerPieces[c])
				}
				return
			}
		}
		if unit != "" && !seen[unit] {
			seen[unit] = true
			out = append(out, unit)
		}
	}
	walk(cmd, 0, piece)
	if len(out) == 0 || len(out) > maxForms {
		// Too much to unwrap: the command must be allowed as written.
		return []string{cmd}, unresolved
	}
	return out, unresolved
}

// codeVariables are the variables with which bash or the dynamic loader
// runs code that their value names or holds; so do BASH_FUNC_* (exported
// functions). PATH is not among them: it is set too often to refuse.
var codeVariables = map[string]bool{
	"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true,
	"PROMPT_COMMAND": true, "LD_PRELOAD": true, "LD_AUDIT": true, "LD_LIBRARY_PATH": true,
	"ZDOTDIR": true,
}

// declarations are the builtins whose NAME=value arguments set variables.
var declarations = map[string]bool{"export": true, "declare": true, "typeset": true, "local": true, "readonly": true}

// unresolvedWhy returns why the simple command cmd (as SplitCommands
// returns it) is unresolvable, "" when it is not: bash evaluates a
// variable's value as code in it (${!x}, ${x@P}; see splitter.param), it
// sets a variable with which bash or the dynamic loader runs code
// (codeVariable), it runs a script from a stream or binds a name to
// another program (hiddenCode, shellWhy, wrapperShellWhy, gitHiddenWhy),
// or, unless it is a piece of text split as a command (piece, see
// splitLine), its command word is expanded (see expandedCommand). What
// runs then is in no command's text, so such a command matches every deny
// command pattern and no allow one. The shell lines it runs (sh -c, eval,
// a trap's action) are commands of their own, which allowUnits and
// denyForms look at too.
func unresolvedWhy(cmd string, piece bool) string {
	ws := words(cmd)
	argv := ws[commandWord(ws):] // the command from its command word on
	if name := codeVariable(ws); name != "" {
		return "it sets " + name + ", with which bash or the dynamic loader runs code"
	}
	if why := hiddenCode(argv); why != "" {
		return why
	}
	if why := wrapperShellWhy(argv); why != "" {
		return why
	}
	if why := gitHiddenWhy(argv); why != "" {
		return why
	}
	if dollarQuotedShellLine(ws) {
		return "it runs a shell line in $'…' or $\"…\", which bash and dash read as different scripts"
	}
	if len(argv) > 0 && shells[path.Base(dequote(argv[0]))] {
		shell, _ := splitRedirections(argv)
		if why := shellWhy(dequoteAll(shell)); why != "" {
			return why
		}
	}
	if testSubscript(ws) {
		return "it tests a variable (-v) whose array subscript holds a command substitution, which bash runs"
	}
	if w := braceCommand(ws); w != "" {
		return "its command word " + w + " is a brace expansion, which bash expands into other words"
	}
	if what := expandedCommand(argv); what != "" && !piece {
		return "its command word " + argv[0] + " holds " + what + ": bash runs the program it expands to"
	}
	why := ""
	unmodeled := false
	for _, d := range dialects {
		p := newSplitter(cmd, d, &unmodeled)
		p.opaque = &why
		if p.list(false); why != "" {
			break
		}
	}
	return why
}

// hiddenCode returns why the simple command argv (from its command word
// on, see commandWord) runs code that is in no command's text, "" when it
// does not: a script sourced from a stream (source <(…), . /dev/stdin;
// see streamFile), or a later command word bound to other code: an alias
// defined (alias NAME=VALUE: bash with expand_aliases, and dash, run
// VALUE for the word NAME), a name bound to a program (hash -p PATH
// NAME), or a builtin loaded from a shared object (enable -f FILE NAME).
func hiddenCode(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name, rest := dequote(argv[0]), argv[1:]
	switch name {
	case "alias":
		for _, a := range dequoteAll(rest) {
			if !strings.HasPrefix(a, "-") && strings.Contains(a, "=") {
				return "it defines the alias " + a + ", which the shell runs in place of a later command word"
			}
		}
	case "source", ".":
		if len(rest) > 0 && streamFile(dequote(rest[0])) {
			return "it runs a script read from " + dequote(rest[0]) + ", which is in no command's text"
		}
	case "hash", "enable":
		flag := map[string]string{"hash": "p", "enable": "f"}[name]
		for _, a := range dequoteAll(rest) {
			if a == "--" || !strings.HasPrefix(a, "-") {
				break
			}
			if strings.Contains(a[1:], flag) {
				return "it binds a command name to another program (" + name + " " + a + ")"
			}
		}
	}
	return ""
}

// wrapperShellWhy returns why the simple command argv (from its command
// word on) runs a shell's script that is in no command's text, "" when it
// does not: a wrapper that starts a shell with no command (sudo -s, su,
// unshare; see wrapper.startsShell), which reads its script from its
// standard input.
func wrapperShellWhy(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name := path.Base(dequote(argv[0]))
	w, ok := wrappers[name]
	if !ok || w.shell == shellNever {
		return "" // before the words are read: a form of a long line is one of many
	}
	args, _ := splitRedirections(argv)
	if !w.startsShell(args[1:]) {
		return ""
	}
	return "it starts a shell (" + name + " with no command), which runs the script it reads from its standard input, in no command's text"
}

// gitHiddenWhy returns why the simple command argv (from its command
// word on) runs a command git takes from the environment, "" when it does
// not: git --config-env NAME=VARIABLE for a setting whose value git runs
// (see gitConfig).
func gitHiddenWhy(argv []string) string {
	if len(argv) == 0 || path.Base(dequote(argv[0])) != "git" {
		return "" // before the words are read: a form of a long line is one of many
	}
	_, setting := gitConfig(dequoteAll(argv))
	if setting == "" {
		return ""
	}
	key, variable, _ := strings.Cut(setting, "=")
	return "it sets git's " + key + ", a command git runs, to the value of " + variable + " (--config-env), which is in no command's text"
}

// dollarQuotedShellLine reports whether the simple command ws runs a
// shell line (a shell wrapper, eval, or a wrapper that runs one: watch,
// flock, env) and a word of it has $'…' or $"…": bash takes them for
// quotes (decoding the escapes of $'…'), dash for a $ and a plain quote,
// so bash -c $'(cmd)' runs (cmd) in bash and $(cmd) in dash, and
// sh -c $'#;cmd' a comment in bash and $# then cmd in dash.
func dollarQuotedShellLine(ws []string) bool {
	i := skipAssignments(ws)
	if i == len(ws) {
		return false
	}
	switch name := path.Base(dequote(ws[i])); name {
	case "sh", "bash", "zsh", "dash", "ksh", "eval", "trap":
	default:
		if w, ok := wrappers[name]; !ok || len(w.script) == 0 && !w.joined {
			return false
		}
	}
	for _, w := range ws[i+1:] {
		if dollarQuoted(w) {
			return true
		}
	}
	return false
}

// dollarQuoted reports whether the word w has an unquoted $'…' or $"…".
func dollarQuoted(w string) bool {
	for i := 0; i < len(w); i++ {
		switch {
		case w[i] == '\\':
			i++
		case w[i] == '$' && i+1 < len(w) && (w[i+1] == '\'' || w[i+1] == '"'):
			return true
		case w[i] == '\'', w[i] == '"':
			i = skipQuoted(w, i) - 1
		}
	}
	return false
}

// testSubscript reports whether the simple command ws is a test ([, test
// or [[, also after its assignments) with a -v whose operand has an array
// subscript holding $( or a backquote: bash evaluates the subscript, the
// substitution in it included, even when the word quotes it.
func testSubscript(ws []string) bool {
	i := skipAssignments(ws)
	if i == len(ws) {
		return false
	}
	switch dequote(ws[i]) {
	case "[", "test", "[[":
	default:
		return false
	}
	for k := i + 1; k+1 < len(ws); k++ {
		if op := dequote(ws[k]); op != "-v" {
			continue
		}
		if v := dequote(ws[k+1]); strings.Contains(v, "[") && (strings.Contains(v, "`") || strings.Contains(v, "$(")) {
			return true
		}
	}
	return false
}

// braceCommand returns the command word of the simple command ws (after
// its assignments and an env that only sets variables) when it holds an
// unquoted brace expansion, an unquoted { with a } after it: bash
// expands {touch,x} into the words touch x, the command touch; dash runs
// a program of that name. "" when it holds none.
func braceCommand(ws []string) string {
	i := skipAssignments(ws)
	if i == len(ws) {
		return ""
	}
	w := ws[i]
	for k := 0; k < len(w); k++ {
		switch w[k] {
		case '\\':
			k++
		case '\'', '"', '`':
			k = skipQuoted(w, k) - 1
		case '$':
			k = skipQuoting(w, k) - 1
		case '{':
			if strings.Contains(w[k+1:], "}") {
				return w
			}
		}
	}
	return ""
}

// expandedCommand returns what bash expands in the command word of the
// simple command argv (from its command word on, see commandWord) when
// that is an expansion in the program's name whose value the engine
// cannot know (see programExpansion): the program that runs is then that
// value (${E}rm is rm when E is empty, $(echo rm) is rm, /bin/r? is
// /bin/rm), in no command's text. "" when it holds none.
func expandedCommand(argv []string) string {
	if len(argv) == 0 || elementAssignment(argv[0]) {
		return ""
	}
	return programExpansion(argv[0])
}

// commandWord returns the index in ws, the words of a simple command, of
// its command word: after the redirections, assignments and env that only
// sets variables which may come before it, in any order (>log A=1 cmd);
// len(ws) when there is none. Only the words before it are read.
func commandWord(ws []string) int {
	for i := 0; i < len(ws); {
		if n := skipAssignments(ws[i:]); n > 0 {
			i += n
			continue
		}
		m := redirectionWord().FindStringSubmatch(ws[i])
		if m == nil || strings.HasPrefix(m[2], "(") {
			return i
		}
		i++
		if m[2] == "" {
			i++ // the target is the next word
		}
	}
	return len(ws)
}

// elementAssignment reports whether w starts with NAME[…]= or NAME[…]+=,
// which bash reads as setting an array's element, not as a command word.
func elementAssignment(w string) bool {
	name, rest, ok := strings.Cut(w, "[")
	if !ok || !isAssignment(name+"=") {
		return false
	}
	for k := 0; k < len(rest); k++ {
		switch rest[k] {
		case '\\', '\'', '"', '`', '$':
			k = skipQuoting(rest, k) - 1
		case ']':
			return strings.HasPrefix(rest[k+1:], "=") || strings.HasPrefix(rest[k+1:], "+=")
		}
	}
	return false
}

// programExpansion names an expansion bash performs on the command word
// w that can change the program, other than quote removal and tilde and
// brace expansion: one in the program's name, its last segment (after the
// last / outside expansions): a parameter or arithmetic expansion or a
// command substitution (unquoted or in "…"), a process substitution
// (<(…), >(…)), or a glob (an unquoted * or ?, or a [ with a ] after it);
// or an unquoted one that bash may split into words in a directory
// segment with other text or expansions (rm$IFS-rf$IFS/ is rm -rf /). ""
// when there is none: a quoted expansion or a glob in the directory, or
// an unquoted expansion that is a whole segment of it ($HOME/bin/tool,
// "$(go env GOPATH)"/bin/tool, ${E}/bin/tool) leaves the name as written.
func programExpansion(w string) string {
	var first, loose string // the segment's first expansion, and its first unquoted one
	others := false         // the segment holds text, or more than one expansion
	quoted := false         // in "…"
	expansion := func(what string) {
		others = others || first != ""
		if first == "" {
			first = what
		}
		if loose == "" && !quoted && what != "a glob" {
			loose = what
		}
	}
	for k := 0; k < len(w); k++ {
		switch c := w[k]; {
		case c == '/':
			if loose != "" && others {
				return loose
			}
			first, loose, others = "", "", false
		case c == '"':
			quoted = !quoted
		case c == '\\':
			others = true
			k++
		case c == '`':
			expansion("a command substitution")
			k = skipQuoted(w, k) - 1
		case c == '$':
			if e, n := dollarExpansion(w[k+1:]); e != "" {
				expansion(e)
				k += n
			} else if !quoted && k+1 < len(w) && w[k+1] == '\'' { // $'…': a quote
				others = true
				k = skipQuoting(w, k) - 1
			} else {
				others = true
			}
		case quoted:
			others = true
		case c == '\'':
			others = true
			k = skipQuoted(w, k) - 1
		case (c == '<' || c == '>') && k+1 < len(w) && w[k+1] == '(':
			expansion("a process substitution")
			k = skipParens(w, k+1) - 1
		case c == '*' || c == '?' || c == '[' && strings.Contains(w[k+1:], "]"):
			expansion("a glob")
		default:
			others = true
		}
	}
	return first
}

// dollarExpansion names the expansion that a $ followed by rest starts,
// and returns how many bytes of rest it takes; "", 0 when the $ is text.
func dollarExpansion(rest string) (string, int) {
	switch {
	case rest == "":
		return "", 0
	case strings.HasPrefix(rest, "(("):
		return "an arithmetic expansion", skipParens(rest, 0)
	case rest[0] == '(':
		return "a command substitution", skipParens(rest, 0)
	case rest[0] == '{':
		return "a parameter expansion", skipParam(rest, 0)
	case rest[0] == '_' || rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= 'A' && rest[0] <= 'Z':
		n := 1
		for n < len(rest) && isNameByte(rest[n]) {
			n++
		}
		return "a parameter expansion", n
	case rest[0] >= '0' && rest[0] <= '9' || strings.IndexByte("@*#?$!-", rest[0]) >= 0:
		return "a parameter expansion", 1
	}
	return "", 0
}

// codeVariable returns the first of codeVariables (or BASH_FUNC_*) that
// the words of a simple command set: in its leading assignments, in those
// of an env at its start (env [options] NAME=value … cmd), or in the
// arguments of a declaration (export, declare, …); "" for none.
func codeVariable(ws []string) string {
	env, decl := false, false
	for _, w := range ws {
		u := dequote(w)
		switch {
		case isAssignment(w) || (env || decl) && strings.Contains(u, "=") && !strings.HasPrefix(u, "-"):
			name, _, _ := strings.Cut(u, "=")
			if name = strings.TrimSuffix(name, "+"); codeVariables[name] || strings.HasPrefix(name, "BASH_FUNC_") {
				return name
			}
		case decl: // an option, or a name without a value
		case env && strings.HasPrefix(u, "-"): // an option of env
		case !env && path.Base(u) == "env":
			env = true
		case !env && declarations[u]:
			decl = true
		default:
			return ""
		}
	}
	return ""
}

// skipAssignments returns the index of the first word of ws that is not a
// leading VAR=value assignment or an `env` that only sets variables (env
// with an option such as -i, -u or -S is a command of its own).
func skipAssignments(ws []string) int {
	i := 0
	for i < len(ws) {
		switch {
		case isAssignment(ws[i]):
		case dequote(ws[i]) == "env" && (i+1 == len(ws) || !strings.HasPrefix(ws[i+1], "-")):
		default:
			return i
		}
		i++
	}
	return i
}

// nestedCommands returns the commands a shell wrapper runs: the script of
// `sh -c SCRIPT [args]` (its args as a line of their own), the words of
// `eval …` or a trap's action (see trapAction), each with the wrapper's redirections (which apply to all of
// them); nil for any other command, or a wrapper without a script. pieces
// holds those of them that are no simple command (see splitLine).
func nestedCommands(ws []string) (inner []string, pieces map[string]bool) {
	ws, redirs := splitRedirections(ws)
	if len(ws) == 0 {
		return nil, nil
	}
	unq := dequoteAll(ws)
	if script, ok := wrapperScript(unq); ok {
		inner, pieces = splitLine(script)
	} else if path.Base(unq[0]) == "eval" {
		inner, pieces = splitLine(strings.Join(unq[1:], " "))
	} else if action, ok := trapAction(unq); ok {
		inner, pieces = splitLine(action)
	}
	if len(redirs) > 0 && len(inner) > 0 {
		with := make(map[string]bool, len(pieces))
		for j := range inner {
			a := pieces[inner[j]]
			inner[j] += " " + strings.Join(redirs, " ")
			with[inner[j]] = a
		}
		pieces = with
	}
	return inner, pieces
}

// redirectionWord matches a word that starts with a redirection operator
// (not a process substitution): the operator, and the target when it is
// in the same word.
var redirectionWord = sync.OnceValue(func() *regexp.Regexp { // compiled on first use, not at every start
	return regexp.MustCompile(`^(?:[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})?(<<<|<<-|<<|&>>|&>|>>|>\||>&|<>|<&|>|<)(.*)$`)
})

// splitRedirections separates the redirections of a simple command's
// words (an operator word and, when the target is a word of its own, the
// target) from the other words.
func splitRedirections(ws []string) (rest, redirs []string) {
	for i := 0; i < len(ws); i++ {
		m := redirectionWord().FindStringSubmatch(ws[i])
		if m == nil || strings.HasPrefix(m[2], "(") {
			rest = append(rest, ws[i])
			continue
		}
		r := ws[i]
		if m[2] == "" && i+1 < len(ws) {
			i++
			r += " " + ws[i]
		}
		redirs = append(redirs, r)
	}
	return rest, redirs
}

// harmlessTargets are redirection targets that are no file the call
// touches.
var harmlessTargets = map[string]bool{
	"/dev/null": true, "/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
}

// redirectTargets returns the files a simple command's redirections name:
// the word after >, >>, >|, <, <>, &>, &>> and >& (with or without a file
// descriptor number before the operator, such as 2>), unquoted. Duplicating
// or closing a descriptor (2>&1, >&2, <&-), here-documents and
// here-strings (<<, <<<) and process substitutions (<(…), >(…)) name no
// file; neither do /dev/null, /dev/std{in,out,err}, /dev/tty and
// /dev/fd/N. Redirections inside quotes or substitutions are not the
// command's (the commands of a substitution are commands of their own).
func redirectTargets(cmd string) []string {
	var out []string
	s := cmd
	for i := 0; i < len(s); {
		switch ch := s[i]; ch {
		case '\\', '\'', '"', '`', '$':
			i = skipQuoting(s, i)
		case '<', '>', '&':
			j := i + 1
			switch {
			case ch == '&' && j < len(s) && s[j] == '>': // &> and &>>
				j++
				if j < len(s) && s[j] == '>' {
					j++
				}
			case ch == '&':
				i++
				continue
			case j < len(s) && s[j] == '(': // process substitution
				i = skipParens(s, j)
				continue
			case ch == '<' && j < len(s) && s[j] == '<': // here-document or here-string
				for j < len(s) && (s[j] == '<' || s[j] == '-') {
					j++
				}
				_, i = redirectWord(s, j) // the delimiter or the string
				continue
			case j < len(s) && ch == '>' && strings.IndexByte(">|&", s[j]) >= 0:
				j++ // >> >| >&
			case j < len(s) && ch == '<' && strings.IndexByte(">&", s[j]) >= 0:
				j++ // <> <&
			}
			target, next := redirectWord(s, j)
			op := s[i:j]
			i = next
			if strings.HasSuffix(op, "&") && (target == "-" || isDigits(target)) {
				continue // 2>&1, >&2, <&0, >&-
			}
			if target == "" || harmlessTargets[target] || strings.HasPrefix(target, "/dev/fd/") {
				continue
			}
			out = append(out, target)
		default:
			i++
		}
	}
	return out
}

// redirectWord reads the word starting at or after s[i] (blanks skipped)
// up to an unquoted blank or operator, and returns it unquoted with the
// index after it.
func redirectWord(s string, i int) (string, int) {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	start := i
	for i < len(s) && !strings.ContainsRune(" \t\n;|&<>()", rune(s[i])) {
		i = skipQuoting(s, i)
	}
	i = min(i, len(s))
	return dequote(s[start:i]), i
}

// skipQuoting returns the index after what starts at s[i]: a backslash
// escape, a quoted string, a substitution ($(…), ${…}, $((…))), or else
// the one byte.
func skipQuoting(s string, i int) int {
	switch s[i] {
	case '\\':
		return min(i+2, len(s))
	case '\'', '"', '`':
		return skipQuoted(s, i)
	case '$':
		if i+1 < len(s) && s[i+1] == '(' {
			return skipParens(s, i+1)
		}
		if i+1 < len(s) && s[i+1] == '{' {
			return skipParam(s, i+1)
		}
		if i+1 < len(s) && s[i+1] == '\'' { // $'…', with backslash escapes
			for j := i + 2; j < len(s); j++ {
				switch s[j] {
				case '\\':
					j++
				case '\'':
					return j + 1
				}
			}
			return len(s)
		}
	}
	return i + 1
}

// skipQuoted returns the index after the quoted string starting at s[i]
// (' " or `), substitutions in "…" included, or len(s) when it is not
// closed.
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '\'':
			j++
		case s[j] == q:
			return j + 1
		case q == '"' && s[j] == '$':
			j = skipQuoting(s, j) - 1
		}
	}
	return len(s)
}

// skipParens returns the index after the parenthesized text starting at
// s[i] (the ( of $(…), <(…) or >(…)), quotes and substitutions respected,
// or len(s) when it is not closed. Braces in it are text to be skipped.
func skipParens(s string, i int) int {
	depth := 0
	for j := i; j < len(s); {
		switch s[j] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return j + 1
			}
		case '\\', '\'', '"', '`', '$':
			j = skipQuoting(s, j)
			continue
		}
		j++
	}
	return len(s)
}

// skipParam returns the index after the ${…} whose { is at s[i]: the
// first } outside quotes and substitutions closes it (the shells do not
// pair a { in it), or len(s) when none does.
func skipParam(s string, i int) int {
	for j := i + 1; j < len(s); {
		switch s[j] {
		case '}':
			return j + 1
		case '\\', '\'', '"', '`', '$':
			j = skipQuoting(s, j)
			continue
		}
		j++
	}
	return len(s)
}

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// unresolvable reports whether a redirection target's text depends on an
// expansion the engine cannot perform ($VAR, `…`, a leading ~, a glob
// that bash would expand): the engine cannot know where such a path leads
// (see PathSource.Unresolvable).
func unresolvable(p string) bool {
	return strings.ContainsAny(p, "$`*?[") || tildePath(p)
}

// tildePath reports whether p starts with ~ (~, ~/x, ~user/x), which
// the shell expands to a home directory, as tools may too.
func tildePath(p string) bool { return strings.HasPrefix(p, "~") }
