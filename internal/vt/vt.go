// Package vt is a tiny terminal emulator for tests: it applies what a
// program writes to a terminal of known size and keeps the lines that
// scroll off its top, so that a test can check what a person would see,
// not the bytes. It knows what acprun's progress output uses (printable
// text, carriage return, line feed, backspace, cursor up, erase in line
// and in display, colours) and counts everything else as unknown.
package vt

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Screen is a terminal of Cols×Rows cells with an unbounded scrollback.
// A line feed moves down (the pseudo-terminal turns "\n" into "\r\n"); the
// cursor never moves up into the scrollback. It is safe for concurrent
// use.
type Screen struct {
	mu         sync.Mutex
	cols, rows int
	lines      [][]rune // the scrollback, then the screen's rows
	row, col   int      // the cursor, row indexing lines
	pending    []byte   // an escape sequence or rune cut between writes
	wraps      int
	unknown    []string
	changed    chan struct{} // closed and replaced on every Write
	wide       func(rune) bool
}

// cont fills the cell that the right half of a wide character takes.
const cont = 0

// New returns an empty screen of cols×rows.
func New(cols, rows int) *Screen {
	return NewWide(cols, rows, func(rune) bool { return false })
}

// NewWide returns an empty screen of cols×rows on which the characters
// wide says are wide take two cells, as a terminal's font says, not the
// program under test. One that does not fit at the end of a row goes on
// the next.
func NewWide(cols, rows int, wide func(rune) bool) *Screen {
	return &Screen{cols: cols, rows: rows, lines: [][]rune{nil}, changed: make(chan struct{}), wide: wide}
}

// Feed writes what r gives to the screen, in a goroutine, until r ends
// (or fails); the channel returned is closed then. It never stops reading,
// so the writer never blocks on it.
func (s *Screen) Feed(r io.Reader) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				s.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return done
}

// Wait waits until ok holds for the lines on the screen (see Screen),
// checking after every Write, and reports whether it did before timeout.
func (s *Screen) Wait(timeout time.Duration, ok func(screen string) bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if ok(strings.Join(s.Screen(), "\n")) {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// Resize changes the screen's size. A narrower screen reflows its lines,
// as most terminals do (VTE, iTerm2, Terminal.app, kitty, tmux): a line
// longer than the new width goes on over the next rows, a wide character
// that does not fit at the end of a row whole on the next, and so does the
// cursor.
func (s *Screen) Resize(cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var lines [][]rune
	row, col := s.row, s.col
	for i, l := range s.lines {
		for off := 0; ; {
			n := len(l) - off
			if n > cols {
				n = cols
				if l[off+n] == cont && n > 1 {
					n-- // the wide character would be cut
				}
			}
			// The cursor at the end of a full row stays there.
			if i == s.row && s.col >= off && (s.col < off+n || off+n == len(l)) {
				row, col = len(lines), s.col-off
			}
			lines = append(lines, l[off:off+n:off+n])
			if off += n; off >= len(l) {
				break
			}
		}
	}
	s.lines, s.row, s.col = lines, row, col
	s.cols, s.rows = cols, rows
}

// Write applies p to the screen.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
	b := append(s.pending, p...)
	s.pending = nil
	for len(b) > 0 {
		n := s.step(b)
		if n == 0 { // incomplete: wait for the rest
			s.pending = append([]byte(nil), b...)
			break
		}
		b = b[n:]
	}
	return len(p), nil
}

// step applies the start of b and returns how many bytes it took; 0 when
// b starts with an incomplete sequence.
func (s *Screen) step(b []byte) int {
	switch c := b[0]; {
	case c == '\r':
		s.col = 0
		return 1
	case c == '\n':
		s.down()
		return 1
	case c == '\b':
		s.col = max(s.col-1, 0)
		return 1
	case c == 0x1b:
		return s.escape(b)
	case c < 0x20 || c == 0x7f:
		s.unknown = append(s.unknown, strconv.Quote(string(c)))
		return 1
	}
	if !utf8.FullRune(b) {
		return 0
	}
	r, n := utf8.DecodeRune(b)
	s.put(r)
	return n
}

// escape applies a CSI sequence at the start of b.
func (s *Screen) escape(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	if b[1] != '[' {
		s.unknown = append(s.unknown, strconv.Quote(string(b[:2])))
		return 2
	}
	end := 2
	for end < len(b) && (b[end] >= 0x30 && b[end] <= 0x3f) {
		end++
	}
	if end == len(b) {
		return 0
	}
	params, final := string(b[2:end]), b[end]
	n := 1
	if v, err := strconv.Atoi(params); err == nil && v > 0 {
		n = v
	}
	switch {
	case final == 'A' && !strings.Contains(params, ";"):
		s.row = max(s.row-n, s.top())
	case (final == 'K' || final == 'J') && (params == "" || params == "0"):
		line := s.lines[s.row]
		if s.col < len(line) {
			s.lines[s.row] = line[:s.col]
		}
		if final == 'J' { // and the lines below
			s.lines = s.lines[:s.row+1]
		}
	case final == 'm': // colours
	default:
		s.unknown = append(s.unknown, strconv.Quote(string(b[:end+1])))
	}
	return end + 1
}

// top is the index in lines of the screen's first row.
func (s *Screen) top() int { return max(len(s.lines)-s.rows, 0) }

// down moves the cursor a row down, adding a line at the bottom.
func (s *Screen) down() {
	s.row++
	if s.row == len(s.lines) {
		s.lines = append(s.lines, nil)
	}
}

// put writes r at the cursor, wrapping at the right margin.
func (s *Screen) put(r rune) {
	cells := []rune{r}
	if s.wide(r) {
		cells = append(cells, cont)
	}
	if s.col+len(cells) > s.cols {
		s.wraps++
		s.down()
		s.col = 0
	}
	for _, c := range cells {
		line := s.lines[s.row]
		for len(line) < s.col {
			line = append(line, ' ')
		}
		if s.col < len(line) {
			line[s.col] = c
		} else {
			line = append(line, c)
		}
		s.lines[s.row] = line
		s.col++
	}
}

// Lines returns every line, the scrollback's then the screen's, without
// trailing spaces and trailing empty lines.
func (s *Screen) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.lines))
	for i, l := range s.lines {
		out[i] = strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " ")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// Screen returns the lines on the screen (the last Rows), as Lines does.
func (s *Screen) Screen() []string {
	all := s.Lines()
	s.mu.Lock()
	top := s.top()
	s.mu.Unlock()
	if top >= len(all) {
		return nil
	}
	return all[top:]
}

// Size returns the screen's columns and rows.
func (s *Screen) Size() (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cols, s.rows
}

// Wraps counts the lines that were too long for the screen and wrapped.
func (s *Screen) Wraps() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wraps
}

// Unknown lists the control characters and sequences the screen did not
// know, quoted.
func (s *Screen) Unknown() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unknown...)
}
