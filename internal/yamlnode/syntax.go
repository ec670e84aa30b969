package yamlnode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/srcerr"
	"go.yaml.in/yaml/v3"
)

// Documents yields each document of the Reader's text in turn; a syntax
// error is recorded (see SyntaxError) and ends them.
func (r *Reader) Documents() iter.Seq[*yaml.Node] {
	return func(yield func(*yaml.Node) bool) {
		dec := yaml.NewDecoder(bytes.NewReader(r.Text()))
		for {
			doc := new(yaml.Node)
			switch err := dec.Decode(doc); {
			case errors.Is(err, io.EOF):
				return
			case err != nil:
				r.SyntaxError(dec, err)
				return
			}
			if !yield(doc) {
				return
			}
		}
	}
}

// SyntaxError records the error err that dec.Decode returned while
// reading the Reader's text (the whole stream dec reads), as "YAML syntax:
// problem" at the offending token, with the parser's context and a hint
// when one helps:
//
//	s.yaml:9:6: YAML syntax: did not find expected key (while parsing a
//	block mapping that starts at line 4, column 5); check this line's
//	indentation (...)
//
// yaml.v3 puts only one line in its error text, "yaml: line N: problem",
// and N is the line of the context (the mapping or list being parsed,
// often many lines before the offending token, and one line early for
// parser errors), or nothing at all for the first line. The position here
// is the offending token's, counted from the start of the whole stream
// (so across "---" documents), read from the parser's state
// that dec keeps after the error; a problem at the end of the stream (an
// unclosed quoted string, [ or {) is put where the unclosed thing starts.
// Where that state says nothing (errors found after parsing, such as an
// unknown anchor, or a yaml.v3 that lays out its parser otherwise), it is
// the line in err's text, or the first alias of an unknown anchor, or else
// line 1, column 1; always inside the text.
func (r *Reader) SyntaxError(dec *yaml.Decoder, err error) {
	if looksUTF16(r.Src) { // its bytes are no line to show
		r.Errs = append(r.Errs, &srcerr.Error{File: r.Name, Line: 1, Col: 1, Msg: "YAML syntax: " + notUTF16})
		return
	}
	at, msg := r.syntaxProblem(dec, err)
	r.Errs = append(r.Errs, r.At(at.line, at.col, "YAML syntax: "+msg))
}

// syntaxProblem returns where the error err of dec is and what to say
// about it (see SyntaxError).
func (r *Reader) syntaxProblem(dec *yaml.Decoder, err error) (pos, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if pr, ok := lastProblem(dec); ok && strings.HasSuffix(msg, pr.problem) {
		return r.problemAt(pr)
	}
	// Errors of the composer (unknown anchors, excessive aliasing) carry no
	// position at all; the text's line, if any, is the best there is.
	at := pos{line: 1, col: 1}
	if m := errLine().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		at.line = r.clampLine(n)
		msg = m[2]
	} else if m := unknownAnchor().FindStringSubmatch(msg); m != nil {
		if i := bytes.Index(r.Text(), []byte("*"+m[1])); i >= 0 {
			at = r.offsetPos(i)
		}
	}
	return at, msg
}

// Compiled on first use, not at every start of acprun.
var (
	errLine       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })
	unknownAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown anchor '(.*)' referenced$`) })
	// bracesValue matches a line up to a value that starts with {{: at
	// the line's start, or after a key's colon, a list's dash, [ or a
	// comma.
	bracesValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[:-]\s|[,\[])\s*\{\{`) })
)

// UnquotedBraces is the hint for a value written {{…}} without quotes,
// which YAML reads as a mapping in a mapping ({{.lang}}), or as one
// followed by more text, a syntax error ({{.lang}} code).
const UnquotedBraces = `YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}"`

// libyamlError is what the YAML parser recorded about the syntax error it
// stopped at.
//
// The parser keeps the libyaml marks of the problem and of its context in
// its (unexported) state, which stays in the Decoder after Decode fails;
// lastProblem reads them with reflect, read-only. Should a future yaml.v3
// lay out its parser otherwise, lastProblem reports false and SyntaxError falls
// back on the error text (TestYAMLProblemMarks fails first).
type libyamlError struct {
	kind        int // libyaml's yaml_error_type_t: scannerError, parserError, …
	problem     string
	context     string
	problemMark mark
	contextMark mark
	offset      int // byte offset of a reader error (bad UTF-8, control character)
	// open is the start of the innermost collection being parsed, if any.
	open    mark
	hasOpen bool
}

// mark is a libyaml position: 0-based line and column (in characters).
type mark struct {
	line, column int
	index        int // characters from the start of the stream
}

// The values of libyaml's yaml_error_type_t that SyntaxError uses.
const (
	readerError  = 2
	scannerError = 3
	parserError  = 4
)

// lastProblem returns the problem the decoder's parser stopped at.
func lastProblem(dec *yaml.Decoder) (libyamlError, bool) {
	v := reflect.ValueOf(dec)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return libyamlError{}, false
	}
	p := v.Elem().FieldByName("parser")
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return libyamlError{}, false
	}
	p = p.Elem().FieldByName("parser")
	if p.Kind() != reflect.Struct {
		return libyamlError{}, false
	}
	var pr libyamlError
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
	markOf := func(f reflect.Value) mark {
		if f.Kind() != reflect.Struct {
			ok = false
			return mark{}
		}
		return mark{line: integer(f, "line"), column: integer(f, "column"), index: integer(f, "index")}
	}
	pr.kind = integer(p, "error")
	pr.problem = str("problem")
	pr.context = str("context")
	pr.problemMark = markOf(p.FieldByName("problem_mark"))
	pr.contextMark = markOf(p.FieldByName("context_mark"))
	pr.offset = integer(p, "problem_offset")
	if marks := p.FieldByName("marks"); marks.Kind() == reflect.Slice && marks.Len() > 0 {
		if f := marks.Index(marks.Len() - 1); f.Kind() == reflect.Struct {
			pr.open, pr.hasOpen = markOf(f), true
		}
	}
	if !ok || pr.kind == 0 || pr.problem == "" {
		return libyamlError{}, false
	}
	return pr, true
}

// problemAt returns where a parser problem is and what to say about it.
// The position is the problem's mark (the offending token or character),
// except where the start of what was being scanned says more: a key
// without its colon, and a problem at the end of the file (an unclosed
// quoted string, [ or {), which is put where the unclosed thing starts.
// The message names the parser's context (the collection being parsed)
// with its position, and a hint for the commonest mistakes.
func (r *Reader) problemAt(pr libyamlError) (pos, string) {
	end := utf8.RuneCount(r.Text())
	at, atContext := pr.problemMark, false
	switch {
	case pr.kind == readerError:
		if off, ok := r.firstNotUTF8(pr.offset); ok {
			return r.offsetPos(off), fmt.Sprintf(notUTF8, r.Text()[off])
		}
		return r.offsetPos(pr.offset), pr.problem
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
	p := r.markPos(at)
	text := pr.problem
	switch {
	case pr.context == "":
	case atContext:
		text += " " + pr.context
	case pr.kind == parserError && pr.contextMark != pr.problemMark:
		text += fmt.Sprintf(" (%s that starts at line %d, column %d)", pr.context, pr.contextMark.line+1, pr.contextMark.column+1)
	}
	if hint := r.hint(pr, p, at.index >= end || pr.problemMark.index >= end); hint != "" {
		text += "; " + hint
	}
	return p, text
}

// hint says what to do about the commonest syntax errors. atEnd reports
// that the parser ran into the end of the file.
func (r *Reader) hint(pr libyamlError, p pos, atEnd bool) string {
	var here rune
	before := "" // the line before the problem
	if line := r.Line(p.line); p.col >= 1 {
		before = line
		if i := runeOffset(line, p.col-1); i >= 0 && i < len(line) {
			here, _ = utf8.DecodeRuneInString(line[i:])
			before = line[:i]
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
	case bracesValue().MatchString(before):
		return UnquotedBraces
	case pr.problem == "could not find expected ':'":
		return "add a colon after the key, or indent this line more if it continues the one above"
	case pr.problem == "did not find expected key", pr.problem == "did not find expected '-' indicator":
		return "check this line's indentation (it must line up with the keys or list items of its level)"
	case pr.problem == "mapping values are not allowed in this context":
		return `quote a value that contains ": ", or check this line's indentation`
	}
	return ""
}
