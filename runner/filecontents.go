package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/textfind"
	"github.com/acprun/acprun/scenario"
)

// quoteReach is how many bytes of a file the contents checks keep on each
// side of what a failure quotes (a line's beginning, where a file differs
// from its golden file): the quote is redacted knowing them
// (redact.Redactor.Excerpt), so that it shows no part of a secret that
// lies whole within them. It bounds their memory, with the size of a
// read, whatever the file's size.
const quoteReach = 64 << 10

// fileScan is what files.contains, files.matches and files.golden look
// for in one file of the workspace, and what they found, once the file
// was read, as a stream, once for all of them.
type fileScan struct {
	texts    []string         // of contains
	patterns []*regexp.Regexp // of matches
	goldens  []*goldenCompare // of golden

	problem        string // why the file could not be read: see workspaceFiles.problem
	size           int64  // the bytes read
	head           lineHead
	found, matched []bool // for texts and patterns
}

// checkContents checks e's contains, matches and golden: each file they
// name is read once, as a stream, for all of them (see scan), in memory
// that does not grow with it, and the golden files with it.
func (w *workspaceFiles) checkContents(ctx context.Context, red *redact.Redactor, e *scenario.FilesExpect, in inputs) []string {
	scans := map[string]*fileScan{}
	var order []string
	scanOf := func(rel string) *fileScan {
		s := scans[rel]
		if s == nil {
			s = &fileScan{}
			scans[rel] = s
			order = append(order, rel)
		}
		return s
	}
	texts := make([]int, len(e.Contains)) // each one's index in its scan
	for i, c := range e.Contains {
		s := scanOf(c.Path)
		texts[i] = len(s.texts)
		s.texts = append(s.texts, c.Text)
	}
	patterns := make([]int, len(e.Matches))
	for i, m := range e.Matches {
		s := scanOf(m.Path)
		patterns[i] = len(s.patterns)
		s.patterns = append(s.patterns, m.Re)
	}
	goldens := make([]*goldenCompare, len(e.Golden))
	for i, g := range e.Golden {
		s := scanOf(g.Path)
		goldens[i] = &goldenCompare{path: g.Golden}
		s.goldens = append(s.goldens, goldens[i])
	}
	for _, rel := range order {
		w.scan(ctx, rel, scans[rel], in)
	}

	var fails []string
	fail := func(pos scenario.Pos, format string, args ...any) {
		fails = append(fails, pos.String()+": "+fmt.Sprintf(format, args...))
	}
	for i, c := range e.Contains {
		switch s := scans[c.Path]; {
		case s.problem != "":
			fail(c.Pos, "files.contains: %q %s", c.Path, s.problem)
		case !s.found[texts[i]]:
			fail(c.Pos, "files.contains: %q does not contain %s (%s)", c.Path, quoted(red, c.Text), s.summary(red))
		}
	}
	for i, m := range e.Matches {
		switch s := scans[m.Path]; {
		case s.problem != "":
			fail(m.Pos, "files.matches: %q %s", m.Path, s.problem)
		case !s.matched[patterns[i]]:
			fail(m.Pos, "files.matches: %q does not match /%s/ (%s)", m.Path, m.Re, s.summary(red))
		}
	}
	for i, g := range e.Golden {
		s, gc := scans[g.Path], goldens[i]
		switch {
		case s.problem != "":
			fail(g.Pos, "files.golden: %q %s", g.Path, s.problem)
		case gc.err != nil:
			fail(g.Pos, "files.golden: cannot read the golden file: %v", gc.err)
		default:
			if diff := gc.diff(red, s.size); diff != "" {
				fail(g.Pos, "files.golden: %q differs from %s: %s", g.Path, g.Golden, diff)
			}
		}
	}
	return fails
}

// scan reads the regular file rel once, as far as its size when it was
// opened (a file that grows while it is read is not read without end),
// through s's texts, patterns and golden comparisons, and keeps the
// beginning of its first line for the failures; or says why it cannot.
// It stops when ctx ends (a second interrupt: a file of terabytes takes
// hours).
func (w *workspaceFiles) scan(ctx context.Context, rel string, s *fileScan, in inputs) {
	f, problem := w.open(rel)
	if problem != "" {
		s.problem = problem
		return
	}
	defer f.Close()
	var r io.Reader = untilDone{ctx, f}
	if fi, err := f.Stat(); err == nil {
		r = io.LimitReader(r, fi.Size())
	}
	find := textfind.New(s.texts, s.patterns)
	to := []io.Writer{find, &s.head}
	for _, g := range s.goldens {
		if g.open(in) {
			defer g.close()
			to = append(to, g)
		}
	}
	n, err := io.Copy(io.MultiWriter(to...), r)
	s.found, s.matched = find.Close()
	s.size = n
	if err != nil {
		s.problem = "cannot be read: " + innerError(err).Error()
		return
	}
	for _, g := range s.goldens {
		g.finish()
	}
}

// untilDone reads r until ctx ends, then fails saying so.
type untilDone struct {
	ctx context.Context
	r   io.Reader
}

func (u untilDone) Read(p []byte) (int, error) {
	if u.ctx.Err() != nil {
		return 0, errors.New("acprun was stopped at once (second interrupt) before it was read to its end")
	}
	return u.r.Read(p)
}

// summary describes the file in a failure message: its size and the
// beginning of its first line.
func (s *fileScan) summary(red *redact.Redactor) string {
	if s.size == 0 {
		return "the file is empty"
	}
	return fmt.Sprintf("%s, first line %s", plural64(s.size, "byte", "bytes"), quoted(red, string(s.head.data)))
}

// plural64 is plural for a size.
func plural64(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// lineHead keeps the beginning of the first line of a stream written to
// it: quoteReach bytes of it at most.
type lineHead struct {
	data []byte
	done bool // the line ended, or it was cut
}

// Write keeps what p holds of the first line.
func (h *lineHead) Write(p []byte) (int, error) {
	if !h.done {
		q := p
		if i := bytes.IndexByte(q, '\n'); i >= 0 {
			q, h.done = q[:i], true
		}
		if room := quoteReach - len(h.data); len(q) >= room {
			q, h.done = q[:room], true
		}
		h.data = append(h.data, q...)
	}
	return len(p), nil
}

// goldenCompare compares a file written to it with a golden file, read
// along with it chunk by chunk, and keeps, from the first byte where they
// differ, what a failure quotes of each: the end of the line before it and
// the bytes after it (quoteReach of each at most).
type goldenCompare struct {
	path string        // the golden file
	want io.ReadCloser // the golden file, open; nil before open and after close
	size int64         // the golden file's size
	err  error         // why the golden file could not be read

	buf     []byte // the golden file's chunk, reused
	at      int64  // how many bytes are equal
	lines   int    // the lines they end
	before  []byte // the end of the line at that byte, before it
	cut     bool   // before is not all of it
	differs bool
	got     []byte // the file from at on, quoteReach bytes at most
	golden  []byte // the golden file from at on, the same
}

// open opens the golden file, pinned in in, and reports whether it could.
func (g *goldenCompare) open(in inputs) bool {
	f, err := in.open(g.path)
	if err != nil {
		g.err = err
		return false
	}
	if fi, err := f.Stat(); err == nil {
		g.size = fi.Size()
	}
	g.want = f
	return true
}

func (g *goldenCompare) close() {
	g.want.Close()
	g.want = nil
}

// Write compares p with as many bytes of the golden file, after what was
// written before.
func (g *goldenCompare) Write(p []byte) (int, error) {
	switch {
	case g.err != nil:
	case g.differs:
		g.got = appendUpTo(g.got, p, quoteReach)
	default:
		if cap(g.buf) < len(p) {
			g.buf = make([]byte, len(p))
		}
		want := g.buf[:len(p)]
		n, err := io.ReadFull(g.want, want)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			g.readError(err)
			break
		}
		i := 0
		if !bytes.Equal(p[:n], want[:n]) {
			for p[i] == want[i] {
				i++
			}
		} else {
			i = n
		}
		g.equal(p[:i])
		if i < len(p) {
			g.differs = true
			g.got = appendUpTo(nil, p[i:], quoteReach)
			g.golden = appendUpTo(nil, want[i:n], quoteReach)
		}
	}
	return len(p), nil
}

// equal takes b, bytes equal in both files.
func (g *goldenCompare) equal(b []byte) {
	g.at += int64(len(b))
	if n := bytes.Count(b, []byte("\n")); n > 0 {
		g.lines += n
		b = b[bytes.LastIndexByte(b, '\n')+1:]
		g.before, g.cut = g.before[:0], false
	}
	if len(g.before)+len(b) > 2*quoteReach { // keep the last quoteReach bytes
		keep := max(0, quoteReach-len(b))
		g.before = append(g.before[:0], g.before[len(g.before)-keep:]...)
		b = b[max(0, len(b)-quoteReach):]
		g.cut = true
	}
	g.before = append(g.before, b...)
}

// finish reads what a failure quotes of the golden file after the file's
// end, or after the first difference.
func (g *goldenCompare) finish() {
	if g.err != nil {
		return
	}
	rest, err := io.ReadAll(io.LimitReader(g.want, int64(quoteReach-len(g.golden))))
	if err != nil {
		g.readError(err)
		return
	}
	if len(rest) > 0 {
		g.differs = true // when it had not: the golden file goes on
		g.golden = append(g.golden, rest...)
	}
}

func (g *goldenCompare) readError(err error) {
	g.err = fmt.Errorf("%s: %w", g.path, innerError(err))
}

// diff says how the file of size bytes differs from the golden file ("" when
// they are equal): their sizes, and where it first differs, as a line that
// differs or one that one file has and the other not.
func (g *goldenCompare) diff(red *redact.Redactor, size int64) string {
	if !g.differs {
		return ""
	}
	msg := fmt.Sprintf("%s, golden %s; ", plural64(size, "byte", "bytes"), plural64(g.size, "byte", "bytes"))
	lineStart := len(g.before) == 0 && !g.cut
	ends := func(ended, other string, rest []byte) string {
		switch {
		case g.at == 0:
			return ended + " is empty"
		case lineStart:
			return fmt.Sprintf("%s ends after line %d, %s goes on with %s", ended, g.lines, other, quoted(red, firstLine(rest)))
		case len(rest) == 1: // "\n"
			return fmt.Sprintf("%s ends with a newline, %s does not", other, ended)
		}
		return fmt.Sprintf("%s ends after line %d, %s goes on with %s", ended, g.lines+1, other, quoted(red, firstLine(rest[1:])))
	}
	switch {
	case len(g.got) == 0 && (lineStart || g.golden[0] == '\n'):
		return msg + ends("the file", "the golden file", g.golden)
	case len(g.golden) == 0 && (lineStart || g.got[0] == '\n'):
		return msg + ends("the golden file", "the file", g.got)
	}
	return msg + fmt.Sprintf("first difference at byte %d, line %d: %s, golden %s", g.at+1, g.lines+1, g.quote(red, g.got), g.quote(red, g.golden))
}

// quote quotes the line where the files first differ, as one of them
// (rest, from there on) has it: from its start, or from foundContext
// characters before the difference ("…" marks the cut), to foundWidth
// characters at most.
func (g *goldenCompare) quote(red *redact.Redactor, rest []byte) string {
	line := string(g.before) + firstLine(rest)
	from, mark := 0, ""
	if n := utf8.RuneCount(g.before); n > foundContext || g.cut {
		from, mark = runeOffset(string(g.before), n-foundContext), "…"
	}
	head, _ := headOf(red, line, g.cut, from, len(line), foundWidth)
	return strconv.Quote(mark + head)
}

// firstLine is the first line of b, without its "\n".
func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}

// appendUpTo appends to dst as much of p as keeps it at most n bytes long.
func appendUpTo(dst, p []byte, n int) []byte {
	return append(dst, p[:min(len(p), max(0, n-len(dst)))]...)
}
