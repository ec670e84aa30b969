// Package textfind looks for texts and RE2 patterns in the whole of a
// stream written to it, however long, in memory bounded by what it looks
// for and the size of a write: a verify command's stdout, a file of the
// workspace that files.contains and files.matches check.
package textfind

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
)

// Finder looks for texts and patterns in the whole of a stream written to
// it: each text in what was just written and the end of what came before
// (one byte short of the longest text, so an occurrence split between
// writes is found), each pattern by regexp.MatchReader, which reads the
// stream rune by rune and keeps none of it, so that a pattern sees the
// stream as one text, as Match would (^ its start, $ its end). Write never
// fails. Its goroutines (one per pattern) end at Close.
type Finder struct {
	texts [][]byte
	found []bool
	carry []byte // the last bytes written, len(longest text)-1 at most
	most  int    // the longest text's length
	buf   []byte // carry and what is written, reused

	matchers []*matcher
}

// matcher runs one pattern over the stream.
type matcher struct {
	pw      *io.PipeWriter // to the pattern's matcher; nil once it is decided
	matched chan bool      // its answer
}

// errDecided stops the writes to a pattern's matcher once it is decided.
var errDecided = errors.New("decided")

// New returns a Finder of texts and patterns.
func New(texts []string, patterns []*regexp.Regexp) *Finder {
	f := &Finder{found: make([]bool, len(texts))}
	for i, t := range texts {
		f.texts = append(f.texts, []byte(t))
		f.found[i] = t == "" // found in any stream, the empty one too
		f.most = max(f.most, len(t))
	}
	for _, re := range patterns {
		pr, pw := io.Pipe()
		m := &matcher{pw: pw, matched: make(chan bool, 1)}
		f.matchers = append(f.matchers, m)
		go func() {
			ok := re.MatchReader(bufio.NewReader(pr))
			pr.CloseWithError(errDecided) // the rest cannot change it
			m.matched <- ok
		}()
	}
	return f
}

// Write looks for the texts and the patterns in p, after what was written
// before.
func (f *Finder) Write(p []byte) (int, error) {
	for _, m := range f.matchers {
		if m.pw != nil {
			if _, err := m.pw.Write(p); err != nil {
				m.pw = nil // decided: Close waits for the answer
			}
		}
	}
	if f.most > 0 {
		f.buf = append(append(f.buf[:0], f.carry...), p...)
		for i, t := range f.texts {
			if !f.found[i] && bytes.Contains(f.buf, t) {
				f.found[i] = true
			}
		}
		f.carry = append(f.carry[:0], f.buf[len(f.buf)-min(len(f.buf), f.most-1):]...)
	}
	return len(p), nil
}

// Close ends the stream, once nothing writes to f any more, and waits for
// the patterns' matchers; call it once. It returns whether each text was
// found and whether each pattern matched, in the order New was given them.
func (f *Finder) Close() (found, matched []bool) {
	matched = make([]bool, len(f.matchers))
	for i, m := range f.matchers {
		if m.pw != nil {
			m.pw.Close()
		}
		matched[i] = <-m.matched
	}
	return f.found, matched
}
