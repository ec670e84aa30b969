// Package yamlnode reads the go.yaml.in/yaml/v3 node trees of acprun's
// YAML files (scenarios, config files, mock agent scripts) the way they
// are checked: every problem recorded with its place and the text of its
// line, as a *srcerr.Error, and reading goes on, so that a file shows all
// its problems at once.
//
// A Reader is one file being read; Documents decodes its documents in
// turn, from its Text (a file saved as UTF-16 with a byte order mark
// decoded to UTF-8, so that its problems show its lines as written). ExpandAliases puts a copy of what each alias stands for where the
// alias is, so that a problem is reported where a value is used and says
// where it is written; walking every node, it also refuses a tag that is
// not YAML's own (!include, !env), whose value would otherwise be read as
// written. Mappings are read with Pairs: the keys in order, aliases
// followed, merge keys (<<) expanded or refused, each problem returned for
// the caller to word; Want and Expected report a node that is not what was
// expected, in Describe's words; ColIn places a byte of a scalar's value
// on its line, and Spelling gives a scalar as written where that differs
// from its value. A syntax error of the decoder is put at the offending token
// (see Reader.SyntaxError), not where yaml.v3's error text says.
package yamlnode

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/termtext"
)

// Reader is one YAML file being read: its name and text, and the problems
// found in it so far.
type Reader struct {
	Name string // the file as the user named it, for messages
	// Src is the file as it was read; what is read of it is its Text.
	Src  []byte
	Errs []*srcerr.Error
	// Templates says that the file's values may be templates ({{.NAME}}):
	// a problem Errorf records at a mapping written as an unquoted {{…}}
	// then says how YAML reads it (see bracesHint).
	Templates bool

	text   []byte // Text; nil until needed
	starts []int  // byte offset of each line of Text; nil until needed

	// origins holds where each copy that ExpandAliases made is written;
	// copied counts the copies.
	origins map[*yaml.Node]srcerr.Origin
	copied  int
	// copies holds the node each copy that Copied recorded was made of;
	// r and the Readers Again makes of it share it.
	copies map[*yaml.Node]*yaml.Node
	// reported holds the nodes Reported marked; r and the Readers Again
	// makes of it share it.
	reported map[*yaml.Node]bool
}

// Again returns a Reader of the same file without its problems, for
// reading again nodes that r read: it knows where the copies of aliases
// among them are written (see ExpandAliases), and what the copies that
// either records from then on were made of (see Copied).
func (r *Reader) Again() Reader {
	if r.copies == nil {
		r.copies = map[*yaml.Node]*yaml.Node{}
	}
	if r.reported == nil {
		r.reported = map[*yaml.Node]bool{}
	}
	return Reader{Name: r.Name, Src: r.Src, Templates: r.Templates, text: r.text, starts: r.starts, origins: r.origins, copied: r.copied, copies: r.copies,
		reported: r.reported}
}

// Reported marks n, a scalar whose value is wrong as written (a template
// that cannot be rendered), as reported: a problem Errorf finds later in
// it, or in a copy made of it (see Copied), follows from that one and is
// not recorded.
func (r *Reader) Reported(n *yaml.Node) {
	if r.reported == nil {
		r.reported = map[*yaml.Node]bool{}
	}
	r.reported[Deref(n)] = true
}

// Errorf records a problem at node n (nil: the whole file); at a copy of
// what an alias stands for, it says where that is written (see Origin).
func (r *Reader) Errorf(n *yaml.Node, format string, args ...any) {
	r.record(n, fmt.Sprintf(format, args...)+r.bracesHint(n))
}

// record is Errorf without the hint, for the problems the Reader finds
// itself.
func (r *Reader) record(n *yaml.Node, msg string) {
	if n != nil && r.reported[r.Source(n)] {
		return
	}
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	e := r.At(line, col, msg)
	e.Origin = r.Origin(n)
	r.Errs = append(r.Errs, e)
}

// bracesHint is the hint for a mapping that is the outer or inner braces
// of an unquoted {{…}} in a file of Templates: YAML reads {{.lang}} as a
// mapping in a mapping, which no key takes where a string, a number, a
// duration, a key name or a command is expected.
func (r *Reader) bracesHint(n *yaml.Node) string {
	if n = Deref(n); !r.Templates || n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	line := []rune(r.Line(n.Line))
	at := func(col int) bool { return col >= 1 && col+1 <= len(line) && line[col-1] == '{' && line[col] == '{' }
	if !at(n.Column) && !at(n.Column-1) {
		return ""
	}
	return " (" + UnquotedBraces + ")"
}

// At returns the problem msg at line and column col of the file (1-based,
// col counted in characters; line 0: the whole file), with the text of
// its line. The control characters of msg, which a value of the file
// quoted in it may hold, are escaped (termtext.Printable): a message
// cannot drive the terminal it is printed on.
func (r *Reader) At(line, col int, msg string) *srcerr.Error {
	return &srcerr.Error{File: r.Name, Line: line, Col: col, Msg: termtext.Printable(msg), Source: r.Line(line)}
}

// Err returns the problems found, each once (see srcerr.Unique), joined
// with errors.Join; nil when there are none.
func (r *Reader) Err() error {
	var errs []error
	for _, e := range srcerr.Unique(r.Errs) {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// Expected records at n that it is not what was expected: "expected
// WHAT, got a list" (see Describe).
func (r *Reader) Expected(n *yaml.Node, what string) {
	r.Errorf(n, "expected %s, got %s", what, Describe(n))
}

// Want returns n, aliases followed, and whether it is of kind k; when it
// is not, it records that what was expected (see Expected).
func (r *Reader) Want(n *yaml.Node, k yaml.Kind, what string) (*yaml.Node, bool) {
	n = Deref(n)
	if n.Kind != k {
		r.Expected(n, what)
		return n, false
	}
	return n, true
}

// NotBoolean describes n, aliases followed, where true or false is
// expected and n is no boolean, for "expected true or false, got Y"
// messages: a string is quoted, a number given, and a YAML 1.1 spelling
// of a boolean (yes, no, on, off, y, n) or a quoted true or false, in any
// case, says which to write: `the string "yes" (YAML 1.1's yes: write
// true)`. Anything else is in Describe's words.
func NotBoolean(n *yaml.Node) string {
	n = Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" || n.ShortTag() == "!!bool" {
		return Describe(n)
	}
	if t := n.ShortTag(); t == "!!int" || t == "!!float" {
		return "the number " + n.Value
	}
	got := "the string " + strconv.Quote(n.Value)
	switch v := strings.ToLower(n.Value); v {
	case "yes", "y", "on":
		return got + " (YAML 1.1's " + n.Value + ": write true)"
	case "no", "n", "off":
		return got + " (YAML 1.1's " + n.Value + ": write false)"
	case "true", "false":
		return got + " (write " + v + " without quotes)"
	}
	return got
}

// Describe names the kind of n, aliases followed, for "expected X, got
// Y" messages.
func Describe(n *yaml.Node) string {
	switch n = Deref(n); n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!bool":
			return "a boolean"
		case "!!int", "!!float":
			return "a number"
		}
		return "a string"
	}
	return "an alias"
}

// Deref follows aliases to the node they stand for.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// IsNull reports whether n (aliases followed) is null.
func IsNull(n *yaml.Node) bool {
	n = Deref(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// pos is a 1-based line and column (in characters) of the source.
type pos struct{ line, col int }

// markPos turns a libyaml mark into a position, kept inside the source.
func (r *Reader) markPos(m mark) pos {
	return pos{line: r.clampLine(m.line + 1), col: max(m.column+1, 1)}
}

// offsetPos returns the position of byte offset off of the source's Text.
func (r *Reader) offsetPos(off int) pos {
	text := r.Text()
	off = min(max(off, 0), len(text))
	starts := lineStarts(text[:off])
	return pos{line: len(starts), col: utf8.RuneCount(text[starts[len(starts)-1]:off]) + 1}
}

// clampLine keeps a line number inside the source.
func (r *Reader) clampLine(n int) int {
	return min(max(n, 1), len(r.lineStarts()))
}

func (r *Reader) lineStarts() []int {
	if r.starts == nil {
		r.starts = lineStarts(r.Text())
	}
	return r.starts
}

// lineStarts returns the byte offset of each line of src. Lines end where
// YAML says they do: at \r\n, \n, \r, NEL, LS or PS.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n':
			i++
		case src[i] == '\n', src[i] == '\r':
		case bytes.HasPrefix(src[i:], []byte("\u0085")):
			i++
		case bytes.HasPrefix(src[i:], []byte("\u2028")), bytes.HasPrefix(src[i:], []byte("\u2029")):
			i += 2
		default:
			continue
		}
		starts = append(starts, i+1)
	}
	return starts
}

// Line returns line n (1-based) of the source's Text, without its line break; ""
// when it has no line n. A UTF-8 byte order mark that starts the source is
// no part of line 1: YAML does not count it in columns.
func (r *Reader) Line(n int) string {
	starts := r.lineStarts()
	if n < 1 || n > len(starts) {
		return ""
	}
	text := r.Text()
	end := len(text)
	if n < len(starts) {
		end = starts[n]
	}
	line := string(text[starts[n-1]:end])
	if n == 1 {
		line = strings.TrimPrefix(line, "\ufeff")
	}
	for _, br := range []string{"\r\n", "\n", "\r", "\u0085", "\u2028", "\u2029"} {
		if strings.HasSuffix(line, br) {
			return strings.TrimSuffix(line, br)
		}
	}
	return line
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

// ColIn returns the column of byte off of scalar n's value, n being
// written at line and col, after its anchor and tag if it has them (&name
// !!str "value"). It is exact for a one-line plain or quoted scalar whose
// text before off (and the two bytes from off) appear unchanged in the
// source; otherwise it is col.
func (r *Reader) ColIn(n *yaml.Node, line, col, off int) int {
	if off < 0 || off > len(n.Value) || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return col
	}
	text := r.Line(line)
	start := 0
	for c := 1; c < col; c++ {
		_, size := utf8.DecodeRuneInString(text[start:])
		if size == 0 {
			return col
		}
		start += size
	}
	at := col // the column of text[start:]
	for start < len(text) && (text[start] == '&' || text[start] == '!') {
		prop := strings.IndexAny(text[start:], " \t")
		if prop < 0 {
			return col
		}
		blanks := len(text[start+prop:]) - len(strings.TrimLeft(text[start+prop:], " \t"))
		at += utf8.RuneCountInString(text[start : start+prop+blanks])
		start += prop + blanks
	}
	quote := 0
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		quote = 1
	}
	want := n.Value[:min(off+2, len(n.Value))]
	if strings.Contains(want, "\n") || start+quote > len(text) || !strings.HasPrefix(text[start+quote:], want) {
		return col
	}
	return at + quote + utf8.RuneCountInString(n.Value[:off])
}
