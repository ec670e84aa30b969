package approve

import (
	"fmt"
	"strings"
)

// maxDepth bounds the nesting of substitutions ($(…), `…`, <(…), ${…}) the
// splitter follows. Deeper text is split crudely (see crudeSplit), so a
// hostile line cannot exhaust the stack yet still shows its commands.
const maxDepth = 64

// SplitCommands splits a shell command line into its simple commands, the
// units that command patterns are matched against.
//
// The line is split on the control operators &&, ||, ;, ;;, |, |&, & and on
// newlines; grouping parentheses and braces are dropped and their contents
// split. Single quotes, double quotes, $'…' and backslash escapes are
// respected, so an operator inside quotes does not split. Command
// substitutions $(…) and `…` (also inside double quotes and unquoted
// here-documents), process substitutions <(…) and >(…), and substitutions
// inside ${…} are followed: the enclosing command keeps the substitution's
// text, and each simple command inside it is returned as a command of its
// own, after the enclosing one. The body of $((…)) and ((…)) (bash's,
// where a command starts, also after a reserved word and in for ((…));
// to dash two subshells) is split as commands too, since bash may read it as a subshell, so arithmetic shows
// up as a (harmless, but unallowed) command; so is the arithmetic of a
// ${…} that is no constant, an array subscript or a substring's offset
// and length (${a[i]}, ${x:i:n}), since a variable there may hold
// a[$(cmd)]. An expansion in an unquoted here-document body that makes a
// command unresolvable (see unresolvedWhy) is a command of its own.
//
// Line continuations (backslash-newline) are removed first, everywhere the
// shells remove them: in words, "…", ${…}, $(…), `…` and unquoted
// here-documents alike, so `echo "$\<newline>(cmd)"` is `echo "$(cmd)"`
// and cmd a command. Single quotes, $'…', comments and quoted
// here-document bodies keep theirs, as the shells do (a comment ends at
// the newline of its last backslash-newline; see joined).
// Each command is trimmed and runs of unquoted blanks are collapsed to one
// space; quoted text is kept verbatim, quotes included. Comments (# at the
// start of a word) are removed.
// Leading reserved words (!, {, }, if, then, elif, else, fi, do, done,
// while, until, esac, time [-p], "function NAME", and "coproc [NAME]"
// before a compound command) are removed, and
// commands that consist of nothing else are dropped. Leading VAR=value
// assignments are kept. Redirections stay part of the command (2>&1 does
// not split), so the allow pattern "cat *" also matches `cat a >
// ~/.bashrc`; their targets are paths the call touches (Decision.Paths), which
// path rules see, and a deny rule such as "*>*" rules redirections out.
// Here-document bodies are not commands; only substitutions in an
// unquoted body are returned.
//
// A line is read by more than one shell: an agent's Bash tool runs bash,
// and a terminal/create line /bin/sh, which is dash on Debian and Ubuntu
// and bash in POSIX mode elsewhere. They disagree on $'…' (dash: a $ and
// a plain '…'), &> and &>> (dash: & ends the command), single quotes
// inside "${…}", and where some here-documents end. So the line is split
// as each of bash, bash --posix and dash reads it, and every command of
// any of those readings is returned: `echo $'\' ; rm -rf /` is one
// (unfinished) command to bash and two to dash, and all three are returned.
// A few constructs are not followed: those of bash alone in which # and
// << are text ([[ … ]] with a parenthesis in it, extglob patterns such as
// @(…), an array subscript NAME[…] where an assignment may stand, $[…]),
// bash 5.3's ${ cmd; }, a here-document delimiter with escapes in $'…'
// and one of two lines, a single quote in $((…)) (text to dash, whose
// arithmetic ends at the first ))) and a case in $(…) or <(…) (a
// pattern's ) does not close it). A line with one of them is also cut crudely at
// every operator, parenthesis, brace and newline, quotes or not (see
// crudeSplit), and those pieces are returned too.
//
// Each command is returned once, where it first appears.
func SplitCommands(line string) []string {
	cmds, _ := splitLine(line)
	return cmds
}

// Where splitLine saw a command: as a simple command the shells read, or
// as a piece of text split as commands to be safe (see splitLine).
const (
	shownAsCommand = 1 << iota
	shownAsPiece
)

// splitLine returns SplitCommands(line), and in pieces those of the
// commands that no shell reads as a simple command of the line: the text
// of arithmetic (see arith, arithmeticOperand) and the crude cuts of a
// line with constructs the splitter does not follow (see crudeSplit).
// They are split as commands to be safe, but name no program.
func splitLine(line string) (cmds []string, pieces map[string]bool) {
	var parts []string
	unmodeled := false
	shown := map[string]int{}
	for _, d := range dialects {
		p := newSplitter(line, d, &unmodeled)
		p.shown = shown
		parts = append(parts, p.list(false)...)
	}
	if unmodeled {
		// Cut as the shells read it, its continuations removed (r\<newline>m
		// is rm), and as written (a comment may end at a kept one).
		crude := append(crudeSplit(join(line).s), crudeSplit(line)...)
		for _, c := range crude {
			shown[c] |= shownAsPiece
		}
		parts = append(parts, crude...)
	}
	// Drop repeats: a command matters once, whether it runs once or often.
	seen := make(map[string]bool, len(parts))
	out := parts[:0]
	for _, c := range parts {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	for text, how := range shown {
		if how == shownAsPiece {
			if pieces == nil {
				pieces = map[string]bool{}
			}
			pieces[text] = true
		}
	}
	return out, pieces
}

// A dialect is one shell's reading of the constructs on which the shells
// that run agents' command lines disagree.
type dialect struct {
	// bash: $'…' is a quote with backslash escapes, &> and &>> redirect,
	// in $(…) a here-document also ends at a line that starts with its
	// delimiter and holds a ")", and a here-document left open at that
	// ")" is read after the next newline. Unquoted here-document lines
	// are compared with their delimiter with every backslash-newline
	// removed (dash removes only those at the start of a line).
	bash bool
	// posix: single quotes inside "${…}" are text, except after the
	// pattern operators # and % (and, in bash, ^ and ,), where they quote;
	// without posix (bash) they always quote.
	posix bool
}

// dialects are bash, sh as bash in POSIX mode (Fedora, macOS) and sh as
// dash (Debian, Ubuntu).
var dialects = []dialect{{bash: true}, {bash: true, posix: true}, {posix: true}}

// quotesInParam reports whether single quotes quote inside "${…}" after
// the operator that starts with op.
func (d dialect) quotesInParam(op byte) bool {
	switch {
	case !d.posix, op == '#', op == '%':
		return true
	default:
		return d.bash && (op == '^' || op == ',')
	}
}

// splitter is a small recursive-descent reader of POSIX shell syntax that
// only cares about where simple commands begin and end.
type splitter struct {
	s         string  // the text with its line continuations removed
	j         *joined // s, and the text as written (see joined)
	i         int
	d         dialect
	depth     int
	subs      int       // how many $(…) and <(…) enclose p.i
	heredocs  []heredoc // announced on the current line, read after its newline
	noHeredoc bool      // in arithmetic, << shifts
	unmodeled *bool     // set on meeting a construct that d does not follow
	// opaque, when not nil, is set to why the text is unresolvable on
	// meeting the first expansion in which bash evaluates a variable's
	// value as code (see unresolvedWhy).
	opaque *string
	// scanOnly: the text is read only to find where it ends, and split
	// later as a whole (arith): nested texts are not split now, so that
	// each is split once, not once for each construct around it.
	scanOnly bool
	// shown, when not nil, records how each command returned was seen
	// (shownAsCommand, shownAsPiece), for splitLine.
	shown map[string]int
}

// newSplitter returns a splitter of text, which it reads with its line
// continuations removed as the shells remove them (see joined).
func newSplitter(text string, d dialect, unmodeled *bool) *splitter {
	j := join(text)
	return &splitter{s: j.s, j: j, d: d, unmodeled: unmodeled}
}

// text returns p.s[lo:hi] as the shell reads it, with the line
// continuations it keeps (in quotes and comments) as written.
func (p *splitter) text(lo, hi int) string { return p.j.text(lo, hi) }

// unresolved records, when p looks for them, why the text is
// unresolvable; the first reason found is kept.
func (p *splitter) unresolved(why string) {
	if p.opaque != nil && *p.opaque == "" {
		*p.opaque = why
	}
}

type heredoc struct {
	delim  string
	strip  bool // <<- strips leading tabs from body lines
	quoted bool // a quoted delimiter makes the body literal
}

// cmdBuf collects one simple command.
type cmdBuf struct {
	shown map[string]int // the splitter's
	how   int            // how its commands are seen: shownAsCommand or shownAsPiece
	b     strings.Builder
	space bool     // an unquoted blank is pending
	op    byte     // the redirection operator < or > just written, else 0
	subs  []string // commands found in substitutions
	named bool     // a word that is no assignment was written (set by subscript)
}

func (c *cmdBuf) write(s string) {
	if c.space && c.b.Len() > 0 {
		c.b.WriteByte(' ')
	}
	c.space = false
	c.op = 0
	c.b.WriteString(s)
}

// writeOp writes the unquoted redirection operator character < or >.
func (c *cmdBuf) writeOp(ch byte) {
	c.write(string(ch))
	c.op = ch
}

// lastOp returns the unquoted redirection operator < or > written last,
// right before p.i, or 0: an escaped or quoted > is text, so the | of
// `\>|` is a pipe, not the >| operator.
func (c *cmdBuf) lastOp() byte {
	if c.space {
		return 0
	}
	return c.op
}

func (c *cmdBuf) atWordStart() bool { return c.space || c.b.Len() == 0 }

// flush appends the command and then the commands of its substitutions.
func (c *cmdBuf) flush(parts []string) []string {
	if text := stripReserved(c.b.String()); text != "" {
		parts = append(parts, text)
		if c.shown != nil {
			c.shown[text] |= c.how
		}
	}
	parts = append(parts, c.subs...)
	c.b.Reset()
	c.space = false
	c.op = 0
	c.subs = nil
	c.named = false
	return parts
}

// reserved are the words removed from the start of a simple command: they
// are shell syntax, not the command that runs.
var reserved = map[string]bool{
	"!": true, "{": true, "}": true, "if": true, "then": true, "elif": true,
	"else": true, "fi": true, "do": true, "done": true, "while": true,
	"until": true, "esac": true, "time": true,
}

// compoundStart are the reserved words that start a compound command
// (after coproc, which then may have a NAME before it).
var compoundStart = map[string]bool{
	"{": true, "while": true, "until": true, "if": true, "for": true, "case": true, "select": true, "[[": true,
}

// stripReserved returns the simple command s without the reserved words
// that start it (see reserved), function NAME, and coproc [NAME] before a
// compound command.
func stripReserved(s string) string {
	for s != "" {
		w, rest := cutWord(s)
		switch {
		case reserved[w]:
			if w == "time" {
				if opt, after := cutWord(rest); opt == "-p" {
					rest = after
				}
			}
		case w == "function": // function NAME { BODY: the body is what runs
			_, rest = cutWord(rest)
		case w == "coproc": // coproc [NAME] COMPOUND: the compound is what runs
			first, after := cutWord(rest)
			second, _ := cutWord(after)
			switch {
			case compoundStart[first]:
			case compoundStart[second]:
				rest = after
			default:
				return s // coproc CMD: a wrapper (see wrappers)
			}
		default:
			return s
		}
		s = rest
	}
	return s
}

func (p *splitter) skip(n int) { p.i = min(p.i+n, len(p.s)) }

func (p *splitter) peek(off int) byte {
	if p.i+off < len(p.s) {
		return p.s[p.i+off]
	}
	return 0
}

// list reads commands until the end of input or, when inSub, until the
// parenthesis that closes the current $( or <(.
func (p *splitter) list(inSub bool) []string {
	var parts []string
	c := cmdBuf{shown: p.shown, how: shownAsCommand}
	if p.noHeredoc {
		c.how = shownAsPiece // arithmetic's text
	}
	parens := 0
	for p.i < len(p.s) {
		ch := p.s[p.i]
		switch ch {
		case ' ', '\t':
			c.space = true
			p.i++
		case '\n':
			parts = c.flush(parts)
			p.i++
			parts = append(parts, p.readHeredocs(p.j.rawBefore(p.i))...)
		case ';', '|', '&':
			if ch == '|' && c.lastOp() == '>' || // >| redirection
				ch == '&' && (c.lastOp() != 0 || p.d.bash && p.peek(1) == '>') { // >&2, <&0, &>file
				c.write(string(ch))
			} else {
				parts = c.flush(parts)
			}
			p.i++
		case '(':
			if p.peek(1) == '(' && p.d.bash && arithCommand(c.b.String()) { // ((arithmetic)) command
				p.i += 2
				parts = append(parts, p.arith()...)
				continue
			}
			if p.d.bash && p.patternParen(&c) {
				*p.unmodeled = true
			}
			parens++
			parts = c.flush(parts)
			p.i++
		case ')':
			p.i++
			if inSub && parens == 0 {
				return c.flush(parts)
			}
			parens = max(parens-1, 0)
			parts = c.flush(parts)
		case '<', '>':
			start := p.i
			switch {
			case p.peek(1) == '(': // process substitution
				p.i += 2
				subs := p.sub()
				c.write(p.text(start, p.i))
				c.subs = append(c.subs, subs...)
			case ch == '<' && p.peek(1) == '<' && p.peek(2) == '<': // here-string
				p.i += 3
				c.write("<<<")
			case ch == '<' && p.peek(1) == '<' && p.noHeredoc:
				p.i += 2
				c.write("<<")
			case ch == '<' && p.peek(1) == '<':
				p.heredoc(&c)
			default:
				p.i++
				c.writeOp(ch)
			}
		case '#':
			if !c.atWordStart() {
				c.write("#")
				p.i++
				continue
			}
			if r, ok := p.comment(); ok { // its newline ends the command too
				parts = c.flush(parts)
				parts = append(parts, p.readHeredocs(r)...)
			}
		case '\\':
			if p.peek(1) == '\n' { // line continuation
				p.i += 2
				continue
			}
			start := p.i
			p.skip(2)
			c.write(p.s[start:p.i])
		case '\'', '"', '`', '$':
			start := p.i
			subs := p.unit(false)
			c.write(p.text(start, p.i))
			c.subs = append(c.subs, subs...)
		default:
			start := p.i
			for p.i < len(p.s) && !special(p.s[p.i]) {
				p.i++
			}
			if p.d.bash && !*p.unmodeled && p.subscript(&c, p.s[start:p.i]) {
				*p.unmodeled = true
			}
			if p.subs > 0 && p.s[start:p.i] == "case" && c.atWordStart() && stripReserved(c.b.String()) == "" {
				// A case pattern's ) does not close the $(…) or <(…)
				// that holds it, which the ) reader here takes it for.
				*p.unmodeled = true
			}
			c.write(p.s[start:p.i])
		}
	}
	return c.flush(parts)
}

// subscript reports whether bash reads word, which starts at p.i, as an
// array subscript (NAME[…]), whose text runs to the matching ], newlines,
// # and << included: a NAME[ where an assignment may stand, first in its
// command or after other assignments.
func (p *splitter) subscript(c *cmdBuf, word string) bool {
	name, _, ok := strings.Cut(word, "[")
	if !ok || c.named || !c.atWordStart() || !isAssignment(name+"=") {
		return false
	}
	for _, w := range words(stripReserved(c.b.String())) {
		if !isAssignment(w) {
			c.named = true // so each command's words are looked at once
			return false
		}
	}
	return true
}

// patternParen reports whether bash may read the ( at p.i as part of a
// pattern, where # and << are text: in [[ … ]] (a regex after =~, an
// extglob pattern after ==), or in an extglob pattern such as @(…) or
// !(…), which `shopt -s extglob` or BASHOPTS=extglob turns on.
func (p *splitter) patternParen(c *cmdBuf) bool {
	if p.i > 0 && !c.space && strings.IndexByte("?*+@!", p.s[p.i-1]) >= 0 {
		return true
	}
	cmd := stripReserved(c.b.String())
	return cmd == "[[" || strings.HasPrefix(cmd, "[[ ")
}

// arithCommand reports whether bash reads a (( after cmd, the command's
// text so far, as its arithmetic command: where a command starts, also
// after reserved words (if, while, !, {, then, time, …) and for. dash has
// no (( command: to it, (( opens two subshells.
func arithCommand(cmd string) bool {
	cmd = stripReserved(cmd)
	return cmd == "" || cmd == "for"
}

func special(b byte) bool {
	return strings.IndexByte(" \t\n;|&()<>#\\'\"`$", b) >= 0
}

// unit reads one quoted string or expansion starting at ' " ` or $ and
// returns the commands in its substitutions.
func (p *splitter) unit(inDouble bool) []string {
	switch p.s[p.i] {
	case '\'':
		p.single()
		return nil
	case '"':
		return p.double()
	case '`':
		return p.backtick(inDouble)
	default:
		return p.dollar(inDouble)
	}
}

// comment skips the comment at p.i up to the newline that ends it. A
// comment keeps a line continuation: the newline of a backslash-newline
// at its end ends it, as it ends the command. Then ok is true, p.i is
// after that newline, and r its raw index after it; else p.i is at the
// newline (or the end).
func (p *splitter) comment() (r int, ok bool) {
	end := len(p.s)
	if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
		end = p.i + j
	}
	if k, ok := p.j.first(p.i+1, end); ok {
		p.j.keepPair(k)
		p.i = p.j.at(k)
		return p.j.pairs[k] + 2, true
	}
	p.i = end
	return 0, false
}

// single reads '…' (no escapes inside), in which line continuations are
// text.
func (p *splitter) single() {
	p.i++
	from := p.i
	if j := strings.IndexByte(p.s[p.i:], '\''); j >= 0 {
		p.i += j + 1
		p.j.keep(from, p.i-1)
	} else {
		p.i = len(p.s)
		p.j.keep(from, p.i)
	}
}

// ansi reads the body of bash's $'…' after its opening quote, in which
// line continuations are text (escapes that it does not decode).
func (p *splitter) ansi() {
	from := p.i
	if _, closed := p.quoted('\'', false); closed {
		p.j.keep(from, p.i-1)
	} else {
		p.j.keep(from, p.i)
	}
}

// double reads "…", following substitutions inside.
func (p *splitter) double() []string {
	p.i++
	subs, _ := p.quoted('"', true)
	return subs
}

// quoted reads the body of a quoted string up to its closing quote q,
// where a backslash escapes the next byte, and returns the commands of
// the substitutions in it, which it follows when expand is set: those
// of "…", not of $'…'. closed tells whether the closing quote was met.
func (p *splitter) quoted(q byte, expand bool) (subs []string, closed bool) {
	for p.i < len(p.s) {
		switch ch := p.s[p.i]; {
		case ch == '\\':
			p.skip(2)
		case ch == q:
			p.i++
			return subs, true
		case expand && (ch == '`' || ch == '$'):
			subs = append(subs, p.unit(true)...)
		default:
			p.i++
		}
	}
	return subs, false
}

// dollar reads an expansion starting at $.
func (p *splitter) dollar(inDouble bool) []string {
	switch p.peek(1) {
	case '(':
		if p.peek(2) == '(' { // $((arithmetic))
			p.i += 3
			return p.arith()
		}
		p.i += 2
		return p.sub()
	case '{':
		return p.param(inDouble)
	case '\'':
		if inDouble || !p.d.bash { // "$'" is a literal dollar and quote; dash has no $'…'
			p.i++
			return nil
		}
		p.i += 2
		p.ansi()
		return nil
	case '[':
		if p.d.bash { // bash's old $[arithmetic], where # is text
			*p.unmodeled = true
		}
		p.i++
		return nil
	case '"':
		p.i++
		if inDouble { // the quote closes the enclosing string
			return nil
		}
		return p.double()
	default:
		p.i++
		return nil
	}
}

// sub reads the body of $(…) or <(…) up to its closing parenthesis.
// Here-documents announced before it are not read inside it; those left
// open inside it are read after the next newline outside in bash, and
// dropped in dash.
func (p *splitter) sub() []string {
	if p.depth >= maxDepth {
		return p.crude()
	}
	p.depth++
	p.subs++
	outer := p.heredocs
	p.heredocs = nil
	parts := p.list(true)
	if p.d.bash {
		outer = append(outer, p.heredocs...)
	}
	p.heredocs = outer
	p.depth--
	p.subs--
	return parts
}

// arith reads the rest of $((…)) or ((…)) after its "((". Bash reads it as
// arithmetic, or, when that fails, as a command substitution or subshell
// whose body starts with "(". To be safe either way the body is split as
// commands (so arithmetic such as 1+2 shows up as a command), with << read
// as a shift rather than a here-document.
func (p *splitter) arith() []string {
	start := p.i
	end := len(p.s)
	depth := 2
	was := p.scanOnly
	p.scanOnly = true // the body is split below, as a whole
scan:
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.skip(2)
		case '\'':
			if !p.d.bash {
				// dash: a single quote is text in arithmetic, which
				// ends at the first )) outside parentheses; the body
				// split below would take it for a quote.
				*p.unmodeled = true
				p.i++
				continue
			}
			p.single()
		case '"':
			p.double()
		case '`':
			p.backtick(false)
		case '(':
			depth++
			p.i++
		case ')':
			depth--
			p.i++
			if depth == 0 {
				end = p.i - 1
				break scan
			}
		default:
			p.i++
		}
	}
	p.scanOnly = was
	return p.arithmetic(p.text(start, end))
}

// arithmetic splits the text of an arithmetic expression as commands, as
// arith explains: a variable's value that bash evaluates there, such as x
// holding a[$(cmd)] in $((x)), shows up as the command x, which an allow
// list must allow.
func (p *splitter) arithmetic(body string) []string {
	return p.nested("("+body, true)
}

// nested splits s, text inside the construct at p.i, one level deeper;
// crudely beyond maxDepth.
func (p *splitter) nested(s string, noHeredoc bool) []string {
	if p.scanOnly {
		return nil
	}
	if p.depth >= maxDepth {
		p.unresolved(tooDeep)
		return crudeSplit(s)
	}
	q := newSplitter(s, p.d, p.unmodeled)
	q.depth, q.noHeredoc, q.opaque, q.shown = p.depth+1, noHeredoc, p.opaque, p.shown
	return q.list(false)
}

// param reads ${…}. Inside double quotes, single quotes in it quote or
// are text as the dialect says (see dialect.posix).
//
// Bash evaluates some of it as arithmetic: an array subscript (${a[i]}),
// a substring's offset and length (${x:i:n}); their text is split as
// commands as $((…))'s is (see arithmetic), unless it is a constant. Other
// forms evaluate a variable's value as code: indirection (${!x}, where x
// may hold a[$(cmd)]; not the listings ${!prefix*} and ${!a[@]}) and
// prompt expansion (${x@P}); they make the text unresolvable.
func (p *splitter) param(inDouble bool) []string {
	if p.depth >= maxDepth {
		return p.crude()
	}
	if p.d.bash && strings.IndexByte(" \t\n|", p.peek(2)) >= 0 { // bash 5.3's ${ cmd; } runs cmd
		*p.unmodeled = true
	}
	quotes := !inDouble || p.d.quotesInParam(p.paramOp())
	p.depth++
	defer func() { p.depth-- }()
	start := p.i
	p.i += 2
	prefix, n := paramName(p.s[p.i:])
	name := p.s[p.i+min(len(prefix), n) : p.i+n]
	p.i += n
	var subs []string
	subscript, indexed := "", p.peek(0) == '['
	if indexed {
		p.i++
		from := p.i
		subs = p.paramText(inDouble, quotes, ']')
		subscript = p.s[from:p.i]
		if p.peek(0) == ']' {
			p.i++
		}
		if subscript != "@" && subscript != "*" {
			subs = append(subs, p.arithmeticOperand(subscript)...)
		}
	}
	why := ""
	op, next := p.peek(0), p.peek(1)
	switch {
	case prefix == "!" && !paramListing(name, indexed, subscript, op, next):
		why = "an indirection"
	case op == '@' && next == 'P':
		why = "a prompt expansion"
	case op == '@' && next != '}' && strings.IndexByte("UuLQEAKak", next) < 0:
		why = "a transformation"
	case op == ':' && strings.IndexByte("-=?+", next) < 0: // ${x:offset:length}
		p.i++
		from := p.i
		subs = append(subs, p.paramText(inDouble, quotes, '}')...)
		subs = append(subs, p.arithmeticOperand(p.s[from:p.i])...)
	}
	subs = append(subs, p.paramText(inDouble, quotes, '}')...)
	if p.peek(0) == '}' {
		p.i++
	}
	if why != "" {
		p.unresolved("bash may run a variable's value as code: " + p.text(start, p.i) + " is " + why)
	}
	return subs
}

// paramListing reports whether ${!…} lists names rather than takes a
// variable's value as a name: ${!prefix*}, ${!prefix@}, ${!a[@]},
// ${!a[*]}, and ${!#}, whose value is a number. name is what follows the
// !, and op and next the two bytes after it and its subscript.
func paramListing(name string, indexed bool, subscript string, op, next byte) bool {
	switch {
	case indexed:
		return (subscript == "@" || subscript == "*") && op == '}'
	case name == "#":
		return op == '}'
	}
	return name != "" && isNameByte(name[0]) && (op == '*' || op == '@') && next == '}'
}

// arithmeticOperand returns arithmetic text of a ${…} as a command, as
// arithmetic shows that of $((…)), unless it is a constant: digits,
// blanks, parentheses and the operators + - * / % and the : between
// offset and length only, as in ${a[0]} and ${x:1:3}. Bash reads it as
// arithmetic only, so it is not split; the substitutions in it are
// followed where it is read (paramText).
func (p *splitter) arithmeticOperand(text string) []string {
	cmd := strings.Join(strings.Fields(text), " ")
	if p.scanOnly || cmd == "" || strings.Trim(text, "0123456789 \t+-*/%():") == "" {
		return nil
	}
	if p.shown != nil {
		p.shown[cmd] |= shownAsPiece
	}
	return []string{cmd}
}

// paramText reads the text of a ${…} at p.i up to stop or the first },
// met outside quotes, substitutions and (for ]) nested brackets, which it
// leaves unread, and returns the commands of the substitutions in it.
func (p *splitter) paramText(inDouble, quotes bool, stop byte) []string {
	var subs []string
	brackets := 0
	for p.i < len(p.s) {
		switch ch := p.s[p.i]; {
		case ch == '}', ch == stop && brackets == 0: // the first } closes: the shells do not pair a { in it
			return subs
		case ch == '\\':
			p.skip(2)
		case ch == '\'':
			if quotes {
				p.single()
			} else {
				p.i++
			}
		case ch == '$':
			subs = append(subs, p.dollar(inDouble && !quotes)...)
		case ch == '"', ch == '`':
			subs = append(subs, p.unit(inDouble)...)
		case ch == '[':
			brackets++
			p.i++
		case ch == ']':
			brackets = max(brackets-1, 0)
			p.i++
		default:
			p.i++
		}
	}
	return subs
}

// paramName returns the prefix (# for a length, ! for indirection, or "")
// that starts s, the text of a ${…} after its ${, and the length of the
// prefix and the parameter's name together: a name, a positional
// parameter's digits or one special parameter.
func paramName(s string) (prefix string, n int) {
	if len(s) > 1 && (s[0] == '#' || s[0] == '!') && s[1] != '}' { // ${#x}, ${!x}
		prefix, n = s[:1], 1
	}
	switch {
	case n < len(s) && isNameByte(s[n]):
		for n < len(s) && isNameByte(s[n]) {
			n++
		}
	case n < len(s) && strings.IndexByte("@*#?$!-", s[n]) >= 0:
		n++
	}
	return prefix, n
}

// paramOp returns the byte after the parameter of the ${…} at p.i, where
// its operator starts ('}' when it has none).
func (p *splitter) paramOp() byte {
	s := p.s[min(p.i+2, len(p.s)):]
	_, i := paramName(s)
	if i < len(s) && s[i] == '[' { // an array subscript
		if j := strings.IndexByte(s[i:], ']'); j >= 0 {
			i += j + 1
		}
	}
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isNameByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// backtick reads `…`, undoes the backslash escapes that are special inside
// it and splits the result.
func (p *splitter) backtick(inDouble bool) []string {
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		if ch == '`' {
			p.i++
			break
		}
		if ch == '\\' && p.i+1 < len(p.s) {
			n := p.s[p.i+1]
			if n == '`' || n == '\\' || n == '$' || (inDouble && n == '"') {
				b.WriteByte(n)
			} else {
				b.WriteByte(ch)
				b.WriteByte(n)
			}
			p.i += 2
			continue
		}
		b.WriteByte(ch)
		p.i++
	}
	return p.nested(b.String(), false)
}

// heredoc reads the operator <<[-]WORD and announces a here-document whose
// body starts after the next newline. Its delimiter is WORD after quote
// removal; substitutions in WORD are text, not run.
func (p *splitter) heredoc(c *cmdBuf) {
	start := p.i
	p.i += 2
	h := heredoc{}
	if p.peek(0) == '-' {
		h.strip = true
		p.i++
	}
	c.write(p.s[start:p.i])
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		c.space = true
		p.i++
	}
	var d strings.Builder
	wstart := p.i
	for p.i < len(p.s) && strings.IndexByte(" \t\n;|&()<>", p.s[p.i]) < 0 {
		from := p.i
		switch ch, next := p.s[p.i], p.peek(1); {
		case ch == '\\' && next == '\n': // line continuation
			p.i += 2
		case ch == '\\':
			h.quoted = true
			p.skip(2)
			d.WriteString(p.s[from+1 : p.i])
		case ch == '\'':
			h.quoted = true
			p.single()
			d.WriteString(strings.TrimSuffix(p.text(from+1, p.i), "'"))
		case ch == '"', ch == '$' && next == '"' && p.d.bash:
			h.quoted = true
			if ch == '$' {
				p.i++
			}
			open := p.i
			p.double()
			d.WriteString(unescapeDouble(strings.TrimSuffix(p.s[open+1:p.i], `"`)))
		case ch == '$' && next == '\'' && p.d.bash:
			h.quoted = true
			p.i += 2
			p.ansi()
			body := strings.TrimSuffix(p.text(from+2, p.i), "'")
			if strings.Contains(body, `\`) { // escapes this splitter does not decode
				*p.unmodeled = true
			}
			d.WriteString(body)
		case ch == '`', ch == '$' && (next == '(' || next == '{'):
			p.unit(false) // text here: the delimiter is not expanded
			d.WriteString(p.s[from:p.i])
		default:
			d.WriteByte(ch)
			p.i++
		}
	}
	if p.i > wstart {
		c.write(p.text(wstart, p.i))
		h.delim = d.String()
		if strings.Contains(h.delim, "\n") { // dash matches it across lines
			*p.unmodeled = true
		}
		p.heredocs = append(p.heredocs, h) // '' too: an empty line ends its body
	}
}

// unescapeDouble removes the backslashes that quote inside "…": those
// before $, `, ", \ and a newline (which goes too).
func unescapeDouble(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readHeredocs consumes the bodies of the here-documents announced on the
// line just ended, which start at the raw index r, and returns the
// commands substituted in unquoted ones. They are read as written (see
// heredocLine): a quoted body keeps its line continuations.
func (p *splitter) readHeredocs(r int) []string {
	docs := p.heredocs
	if len(docs) == 0 {
		return nil
	}
	p.heredocs = nil
	raw := p.j.raw
	var parts []string
	for _, h := range docs {
		start := r
		end := len(raw)
		for r < len(raw) {
			next, last := p.heredocLine(raw, r, h)
			if last {
				end = r
				r = next
				break
			}
			r = next
		}
		switch {
		case h.quoted:
			p.j.keepRaw(start, r)
		case p.d.bash: // bash joins the body's lines before it reads it
			parts = append(parts, p.expansions(p.s[p.j.index(start):p.j.index(end)])...)
		default: // dash reads $(…) in it as commands, where '…' and comments keep them
			parts = append(parts, p.expansions(raw[start:end])...)
		}
	}
	p.i = p.j.index(r)
	return parts
}

// heredocLine reads the here-document line at s[i], text as written, as
// the dialect's shell compares it with h's delimiter. It returns where
// reading goes on, and whether the line ends the here-document.
//
// In an unquoted here-document a backslash-newline continues a line.
// Bash removes all of them before comparing (E\<newline>OF is EOF), dash
// only those at the start of the line. <<- strips leading tabs first. In
// $(…), bash also ends the here-document at a line that starts with the
// delimiter and holds a ")", and goes on reading right after the
// delimiter.
func (p *splitter) heredocLine(s string, i int, h heredoc) (next int, last bool) {
	end := len(s)
	for k := i; k < len(s); k++ {
		if s[k] == '\\' && !h.quoted {
			k++
		} else if s[k] == '\n' {
			end = k
			break
		}
	}
	next = min(end+1, len(s))
	if !p.d.bash {
		k := i
		for !h.quoted && strings.HasPrefix(s[k:], "\\\n") {
			k += 2
		}
		for h.strip && k < len(s) && s[k] == '\t' {
			k++
		}
		j := strings.IndexByte(s[k:], '\n')
		if j < 0 {
			j = len(s) - k
		}
		if s[k:k+j] == h.delim {
			return min(k+j+1, len(s)), true
		}
		return next, false
	}
	var line []byte
	var at []int // the index in s of each byte of line
	for k := i; k < end; k++ {
		if s[k] == '\\' && !h.quoted && k+1 < end {
			k++
			if s[k] == '\n' {
				continue
			}
			line, at = append(line, '\\'), append(at, k-1)
		}
		line, at = append(line, s[k]), append(at, k)
	}
	k := 0
	for h.strip && k < len(line) && line[k] == '\t' {
		k++
	}
	text := string(line[k:])
	if text == h.delim {
		return next, true
	}
	if rest, ok := strings.CutPrefix(text, h.delim); ok && p.subs > 0 && strings.Contains(rest, ")") {
		return at[k+len(h.delim)], true
	}
	return next, false
}

// expansions returns the commands substituted in text that is subject to
// expansion but not to word splitting (an unquoted here-document body).
func (p *splitter) expansions(text string) []string {
	why := ""
	q := newSplitter(text, p.d, p.unmodeled)
	q.depth, q.opaque, q.scanOnly, q.shown = p.depth, &why, p.scanOnly, p.shown
	var parts []string
	for q.i < len(q.s) {
		switch q.s[q.i] {
		case '\\':
			q.skip(2)
		case '`', '$':
			start := q.i
			parts = append(parts, q.unit(true)...)
			if why != "" {
				// The text is no command's: an expansion that makes it
				// unresolvable is a command of its own, which is so too.
				parts = append(parts, q.text(start, q.i))
				p.unresolved(why)
				why = ""
			}
		default:
			q.i++
		}
	}
	return parts
}

// tooDeep is why text nested deeper than maxDepth is unresolvable: it is
// not read for the expansions that evaluate a variable's value.
var tooDeep = fmt.Sprintf("it is nested more than %d deep", maxDepth)

// crude consumes the rest of the input, nested too deeply, and splits it
// crudely.
func (p *splitter) crude() []string {
	p.unresolved(tooDeep)
	rest := p.s[p.i:]
	p.i = len(p.s)
	return crudeSplit(rest)
}

// crudeSplit splits s at every operator, paren, brace and backtick,
// ignoring quotes, comments and here-documents, and adds each ${…} in it
// (up to the first }) as a piece of its own, which a command that
// evaluates a variable's value would be unresolvable for. It is used
// beyond maxDepth and for constructs the splitter does not follow: it errs
// towards more, smaller commands, which can only make a policy stricter.
// SplitCommands drops the repeats.
func crudeSplit(s string) []string {
	var parts []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(";&|(){}`\n", r)
	}) {
		if f = stripReserved(strings.Join(strings.Fields(f), " ")); f != "" {
			parts = append(parts, f)
		}
	}
	for rest := s; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		rest = rest[i:]
		end := strings.IndexByte(rest, '}') + 1
		if end == 0 {
			end = len(rest)
		}
		parts = append(parts, strings.Join(strings.Fields(rest[:end]), " "))
		rest = rest[end:]
	}
	return parts
}
