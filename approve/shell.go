package approve

import "strings"

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
// own, after the enclosing one. The body of $((…)) and ((…)) is split as
// commands too, since bash may read it as a subshell, so arithmetic shows
// up as a (harmless, but unallowed) command.
//
// Each command is trimmed and runs of unquoted blanks are collapsed to one
// space; quoted text is kept verbatim, quotes included. Comments (# at the
// start of a word) and line continuations (backslash-newline) are removed.
// Leading reserved words (!, {, }, if, then, elif, else, fi, do, done,
// while, until, esac, time [-p], and "function NAME") are removed, and
// commands that consist of nothing else are dropped. Leading VAR=value
// assignments are kept. Redirections stay part of the command (2>&1 does
// not split), so the allow pattern "cat *" also matches `cat a >
// ~/.bashrc`; their targets are paths the call touches (Decision.Paths), which
// path rules see, and a deny rule such as "*>*" rules redirections out.
// Here-document bodies are not commands; only substitutions in an
// unquoted body are returned.
// Each command is returned once, where it first appears.
func SplitCommands(line string) []string {
	p := &splitter{s: line}
	parts := p.list(false)
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
		return nil
	}
	return out
}

// splitter is a small recursive-descent reader of POSIX shell syntax that
// only cares about where simple commands begin and end.
type splitter struct {
	s         string
	i         int
	depth     int
	heredocs  []heredoc // announced on the current line, read after its newline
	noHeredoc bool      // in arithmetic, << shifts
}

type heredoc struct {
	delim  string
	strip  bool // <<- strips leading tabs from body lines
	quoted bool // a quoted delimiter makes the body literal
}

// cmdBuf collects one simple command.
type cmdBuf struct {
	b     strings.Builder
	space bool     // an unquoted blank is pending
	subs  []string // commands found in substitutions
}

func (c *cmdBuf) write(s string) {
	if c.space && c.b.Len() > 0 {
		c.b.WriteByte(' ')
	}
	c.space = false
	c.b.WriteString(s)
}

// last returns the byte written last, or 0 after a blank.
func (c *cmdBuf) last() byte {
	if c.space || c.b.Len() == 0 {
		return 0
	}
	s := c.b.String()
	return s[len(s)-1]
}

func (c *cmdBuf) atWordStart() bool { return c.space || c.b.Len() == 0 }

// flush appends the command and then the commands of its substitutions.
func (c *cmdBuf) flush(parts []string) []string {
	if text := stripReserved(c.b.String()); text != "" {
		parts = append(parts, text)
	}
	parts = append(parts, c.subs...)
	c.b.Reset()
	c.space = false
	c.subs = nil
	return parts
}

// reserved are the words removed from the start of a simple command: they
// are shell syntax, not the command that runs.
var reserved = map[string]bool{
	"!": true, "{": true, "}": true, "if": true, "then": true, "elif": true,
	"else": true, "fi": true, "do": true, "done": true, "while": true,
	"until": true, "esac": true, "time": true,
}

func stripReserved(s string) string {
	for s != "" {
		w, rest, _ := strings.Cut(s, " ")
		switch {
		case reserved[w]:
			if w == "time" && strings.HasPrefix(rest+" ", "-p ") {
				rest = strings.TrimPrefix(strings.TrimPrefix(rest, "-p"), " ")
			}
		case w == "function": // function NAME { BODY: the body is what runs
			_, rest, _ = strings.Cut(rest, " ")
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
	var c cmdBuf
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
			parts = append(parts, p.readHeredocs()...)
		case ';':
			parts = c.flush(parts)
			p.i++
		case '|':
			if c.last() == '>' { // >| redirection
				c.write("|")
				p.i++
				continue
			}
			parts = c.flush(parts)
			p.i++
		case '&':
			if l := c.last(); l == '>' || l == '<' || p.peek(1) == '>' { // >&2, <&0, &>file
				c.write("&")
				p.i++
				continue
			}
			parts = c.flush(parts)
			p.i++
		case '(':
			if p.peek(1) == '(' && c.b.Len() == 0 { // ((arithmetic)) command
				p.i += 2
				parts = append(parts, p.arith()...)
				continue
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
				c.write(p.s[start:p.i])
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
				c.write(string(ch))
			}
		case '#':
			if !c.atWordStart() {
				c.write("#")
				p.i++
				continue
			}
			if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
				p.i += j
			} else {
				p.i = len(p.s)
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
			c.write(p.s[start:p.i])
			c.subs = append(c.subs, subs...)
		default:
			start := p.i
			for p.i < len(p.s) && !special(p.s[p.i]) {
				p.i++
			}
			c.write(p.s[start:p.i])
		}
	}
	return c.flush(parts)
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

// single reads '…' (no escapes inside).
func (p *splitter) single() {
	p.i++
	if j := strings.IndexByte(p.s[p.i:], '\''); j >= 0 {
		p.i += j + 1
	} else {
		p.i = len(p.s)
	}
}

// double reads "…", following substitutions inside.
func (p *splitter) double() []string {
	var subs []string
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.skip(2)
		case '"':
			p.i++
			return subs
		case '`', '$':
			subs = append(subs, p.unit(true)...)
		default:
			p.i++
		}
	}
	return subs
}

// ansi reads the body of $'…', where backslash escapes the next byte.
func (p *splitter) ansi() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.skip(2)
		case '\'':
			p.i++
			return
		default:
			p.i++
		}
	}
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
		if inDouble { // "$'" is a literal dollar and quote
			p.i++
			return nil
		}
		p.i += 2
		p.ansi()
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
func (p *splitter) sub() []string {
	if p.depth >= maxDepth {
		return p.crude()
	}
	p.depth++
	defer func() { p.depth-- }()
	return p.list(true)
}

// arith reads the rest of $((…)) or ((…)) after its "((". Bash reads it as
// arithmetic, or, when that fails, as a command substitution or subshell
// whose body starts with "(". To be safe either way the body is split as
// commands (so arithmetic such as 1+2 shows up as a command), with << read
// as a shift rather than a here-document.
func (p *splitter) arith() []string {
	start := p.i
	body := p.s[start:]
	depth := 2
scan:
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.skip(2)
		case '\'':
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
				body = p.s[start : p.i-1]
				break scan
			}
		default:
			p.i++
		}
	}
	if p.depth >= maxDepth {
		return crudeSplit(body)
	}
	q := &splitter{s: "(" + body, depth: p.depth + 1, noHeredoc: true}
	return q.list(false)
}

// param reads ${…}. Inside double quotes, single quotes in it are literal.
func (p *splitter) param(inDouble bool) []string {
	if p.depth >= maxDepth {
		return p.crude()
	}
	p.depth++
	defer func() { p.depth-- }()
	p.i += 2
	var subs []string
	braces := 1
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.skip(2)
		case '\'':
			if inDouble {
				p.i++
			} else {
				p.single()
			}
		case '"', '`', '$':
			subs = append(subs, p.unit(inDouble)...)
		case '{':
			braces++
			p.i++
		case '}':
			p.i++
			if braces--; braces == 0 {
				return subs
			}
		default:
			p.i++
		}
	}
	return subs
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
	if p.depth >= maxDepth {
		return crudeSplit(b.String())
	}
	q := &splitter{s: b.String(), depth: p.depth + 1}
	return q.list(false)
}

// heredoc reads the operator <<[-]WORD and announces a here-document whose
// body starts after the next newline.
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
		switch ch := p.s[p.i]; ch {
		case '\'', '"':
			h.quoted = true
			end := strings.IndexByte(p.s[p.i+1:], ch)
			if end < 0 {
				d.WriteString(p.s[p.i+1:])
				p.i = len(p.s)
				continue
			}
			d.WriteString(p.s[p.i+1 : p.i+1+end])
			p.i += end + 2
		case '\\':
			h.quoted = true
			if p.i+1 < len(p.s) {
				d.WriteByte(p.s[p.i+1])
			}
			p.skip(2)
		default:
			d.WriteByte(ch)
			p.i++
		}
	}
	if p.i > wstart {
		c.write(p.s[wstart:p.i])
	}
	h.delim = d.String()
	if h.delim != "" { // without a word the following lines stay commands
		p.heredocs = append(p.heredocs, h)
	}
}

// readHeredocs consumes the bodies of the here-documents announced on the
// line just ended and returns the commands substituted in unquoted ones.
func (p *splitter) readHeredocs() []string {
	docs := p.heredocs
	p.heredocs = nil
	var parts []string
	for _, h := range docs {
		start := p.i
		end := len(p.s)
		for p.i < len(p.s) {
			lineEnd, next := len(p.s), len(p.s)
			if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
				lineEnd, next = p.i+j, p.i+j+1
			}
			line := p.s[p.i:lineEnd]
			if h.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				end = p.i
				p.i = next
				break
			}
			p.i = next
		}
		if !h.quoted {
			parts = append(parts, p.expansions(p.s[start:end])...)
		}
	}
	return parts
}

// expansions returns the commands substituted in text that is subject to
// expansion but not to word splitting (an unquoted here-document body).
func (p *splitter) expansions(text string) []string {
	q := &splitter{s: text, depth: p.depth}
	var parts []string
	for q.i < len(q.s) {
		switch q.s[q.i] {
		case '\\':
			q.skip(2)
		case '`', '$':
			parts = append(parts, q.unit(true)...)
		default:
			q.i++
		}
	}
	return parts
}

// crude consumes the rest of the input and splits it crudely.
func (p *splitter) crude() []string {
	rest := p.s[p.i:]
	p.i = len(p.s)
	return crudeSplit(rest)
}

// crudeSplit splits s at every operator, paren and backtick, ignoring
// quotes. It is used beyond maxDepth: it errs towards more, smaller
// commands, which can only make a policy stricter.
func crudeSplit(s string) []string {
	var parts []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(";&|()`\n", r)
	}) {
		if f = stripReserved(strings.Join(strings.Fields(f), " ")); f != "" && !seen[f] {
			seen[f] = true
			parts = append(parts, f)
		}
	}
	return parts
}
