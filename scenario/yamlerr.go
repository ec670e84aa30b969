package scenario

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yamlProblem is what the YAML parser recorded about the syntax error it
// stopped at.
//
// yaml.v3 puts only one line in its error text, "yaml: line N: problem",
// and N is the line of the *context* (the mapping or list being parsed,
// often many lines before the offending token, and one line early for
// parser errors), or nothing at all for the first line. The parser keeps
// the libyaml marks of the problem and of its context in its (unexported)
// state, which stays in the Decoder after Decode fails; lastProblem reads
// them with reflect, read-only. Should a future yaml.v3 lay out its parser
// otherwise, lastProblem reports false and syntaxError falls back on the
// error text (TestYAMLProblemMarks fails first).
type yamlProblem struct {
	kind        int // libyaml's yaml_error_type_t: scannerError, parserError, …
	problem     string
	context     string
	problemMark yamlMark
	contextMark yamlMark
	offset      int // byte offset of a reader error (bad UTF-8, control character)
	// open is the start of the innermost collection being parsed, if any.
	open    yamlMark
	hasOpen bool
}

// yamlMark is a libyaml position: 0-based line and column (in characters).
type yamlMark struct {
	line, column int
	index        int // characters from the start of the stream
}

// The values of libyaml's yaml_error_type_t that lastProblem uses.
const (
	readerError  = 2
	scannerError = 3
	parserError  = 4
)

// lastProblem returns the problem the decoder's parser stopped at.
func lastProblem(dec *yaml.Decoder) (yamlProblem, bool) {
	v := reflect.ValueOf(dec)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return yamlProblem{}, false
	}
	p := v.Elem().FieldByName("parser")
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return yamlProblem{}, false
	}
	p = p.Elem().FieldByName("parser")
	if p.Kind() != reflect.Struct {
		return yamlProblem{}, false
	}
	var pr yamlProblem
	ok := true
	integer := func(v reflect.Value, name string) int {
		f := v.FieldByName(name)
		if !f.IsValid() || !f.CanInt() {
			ok = false
			return 0
		}
		return int(f.Int())
	}
	str := func(name string) string {
		f := p.FieldByName(name)
		if f.Kind() != reflect.String {
			ok = false
			return ""
		}
		return f.String()
	}
	mark := func(name string) yamlMark {
		f := p.FieldByName(name)
		if f.Kind() != reflect.Struct {
			ok = false
			return yamlMark{}
		}
		return yamlMark{line: integer(f, "line"), column: integer(f, "column"), index: integer(f, "index")}
	}
	pr.kind = integer(p, "error")
	pr.problem = str("problem")
	pr.context = str("context")
	pr.problemMark = mark("problem_mark")
	pr.contextMark = mark("context_mark")
	pr.offset = integer(p, "problem_offset")
	if marks := p.FieldByName("marks"); marks.Kind() == reflect.Slice && marks.Len() > 0 {
		if f := marks.Index(marks.Len() - 1); f.Kind() == reflect.Struct {
			pr.open, pr.hasOpen = yamlMark{line: integer(f, "line"), column: integer(f, "column"), index: integer(f, "index")}, true
		}
	}
	if !ok || pr.kind == 0 || pr.problem == "" {
		return yamlProblem{}, false
	}
	return pr, true
}

var (
	yamlLine      = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// syntaxError records a YAML syntax error that dec returned: at the
// offending token, with the parser's context and a hint when one helps.
func (p *fileParser) syntaxError(dec *yaml.Decoder, err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if pr, ok := lastProblem(dec); ok && strings.HasSuffix(msg, pr.problem) {
		pos, text := p.problemAt(pr)
		p.errorAt(pos, "YAML syntax: %s", text)
		return
	}
	// Errors of the composer (unknown anchors, excessive aliasing) carry no
	// position at all; the text's line, if any, is the best there is.
	pos := Pos{File: p.file, Line: 1, Col: 1}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		pos.Line = p.clampLine(n)
		msg = m[2]
	} else if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		if i := bytes.Index(p.src, []byte("*"+m[1])); i >= 0 {
			pos = p.offsetPos(i)
		}
	}
	p.errorAt(pos, "YAML syntax: %s", msg)
}

// problemAt returns where a parser problem is and what to say about it.
// The position is the problem's mark (the offending token or character),
// except where the start of what was being scanned says more: a key
// without its colon, and a problem at the end of the file (an unclosed
// quoted string, [ or {), which is put where the unclosed thing starts.
// The message names the parser's context (the collection being parsed)
// with its position, and a hint for the commonest mistakes.
func (p *fileParser) problemAt(pr yamlProblem) (Pos, string) {
	end := utf8.RuneCount(p.src)
	at, atContext := pr.problemMark, false
	switch {
	case pr.kind == readerError:
		pos := p.offsetPos(pr.offset)
		return pos, pr.problem
	case pr.context == "while scanning a simple key":
		at, atContext = pr.contextMark, true
	case pr.problemMark.index >= end:
		switch {
		case pr.context != "" && pr.contextMark.index < end:
			at, atContext = pr.contextMark, true
		case pr.hasOpen && pr.open.index < end:
			at = pr.open
		}
	}
	pos := p.markPos(at)
	text := pr.problem
	switch {
	case pr.context == "":
	case atContext:
		text += " " + pr.context
	case pr.kind == parserError && pr.contextMark != pr.problemMark:
		text += fmt.Sprintf(" (%s that starts at line %d, column %d)", pr.context, pr.contextMark.line+1, pr.contextMark.column+1)
	}
	if hint := p.syntaxHint(pr, pos, at.index >= end || pr.problemMark.index >= end); hint != "" {
		text += "; " + hint
	}
	return pos, text
}

// syntaxHint says what to do about the commonest syntax errors. atEnd
// reports that the parser ran into the end of the file.
func (p *fileParser) syntaxHint(pr yamlProblem, pos Pos, atEnd bool) string {
	var here rune
	if line := p.sourceLine(pos.Line); pos.Col >= 1 {
		if i := runeOffset(line, pos.Col-1); i >= 0 && i < len(line) {
			here, _ = utf8.DecodeRuneInString(line[i:])
		}
	}
	switch {
	case strings.Contains(pr.problem, "tab character") || here == '\t' && pr.problem == "found character that cannot start any token":
		return "YAML cannot indent with tabs, use spaces"
	case atEnd && (here == '"' || here == '\''):
		return "the quoted string that starts here is never closed"
	case atEnd && here == '[':
		return "the [ here is never closed with ]"
	case atEnd && here == '{':
		return "the { here is never closed with }"
	case pr.problem == "could not find expected ':'":
		return "add a colon after the key, or indent this line more if it continues the one above"
	case pr.problem == "did not find expected key", pr.problem == "did not find expected '-' indicator":
		return "check this line's indentation (it must line up with the keys or list items of its level)"
	case pr.problem == "mapping values are not allowed in this context":
		return `quote a value that contains ": ", or check this line's indentation`
	}
	return ""
}

// markPos turns a libyaml mark into a position, kept inside the file.
func (p *fileParser) markPos(m yamlMark) Pos {
	return Pos{File: p.file, Line: p.clampLine(m.line + 1), Col: max(m.column+1, 1)}
}

// offsetPos returns the position of byte offset off of the file.
func (p *fileParser) offsetPos(off int) Pos {
	off = min(max(off, 0), len(p.src))
	starts := lineStarts(p.src[:off])
	return Pos{File: p.file, Line: len(starts), Col: utf8.RuneCount(p.src[starts[len(starts)-1]:off]) + 1}
}

// clampLine keeps a line number inside the file.
func (p *fileParser) clampLine(n int) int {
	if p.lineStarts == nil {
		p.lineStarts = lineStarts(p.src)
	}
	return min(max(n, 1), len(p.lineStarts))
}

// runeOffset returns the byte offset of the n-th rune (0-based) of s, or
// -1 when s is shorter.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	if n == 0 {
		return len(s)
	}
	return -1
}
