package hook

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
)

// finder looks for texts and a pattern in the whole of a stream written to
// it, however long, in memory bounded by what it looks for and the size of
// a write: each text in what was just written and the end of what came
// before (one byte short of the longest text, so an occurrence split
// between writes is found), the pattern by regexp.MatchReader, which reads
// the stream rune by rune and keeps none of it. Write never fails. Its one
// goroutine (the pattern's) ends at close.
type finder struct {
	texts [][]byte
	found []bool
	carry []byte // the last bytes written, len(longest text)-1 at most
	most  int    // the longest text's length
	buf   []byte // carry and what is written, reused

	pw      *io.PipeWriter // to the pattern's matcher; nil without one, or once it is decided
	matched chan bool      // its answer; nil without a pattern
}

// errDecided stops the writes to a pattern's matcher once it is decided.
var errDecided = errors.New("decided")

// newFinder returns a finder of texts and re (nil: none).
func newFinder(texts []string, re *regexp.Regexp) *finder {
	f := &finder{found: make([]bool, len(texts))}
	for i, t := range texts {
		f.texts = append(f.texts, []byte(t))
		f.found[i] = t == "" // found in any stream, the empty one too
		f.most = max(f.most, len(t))
	}
	if re != nil {
		pr, pw := io.Pipe()
		f.pw, f.matched = pw, make(chan bool, 1)
		go func() {
			m := re.MatchReader(bufio.NewReader(pr))
			pr.CloseWithError(errDecided) // the rest cannot change it
			f.matched <- m
		}()
	}
	return f
}

// Write looks for the texts and the pattern in p, after what was written
// before.
func (f *finder) Write(p []byte) (int, error) {
	if f.pw != nil {
		if _, err := f.pw.Write(p); err != nil {
			f.pw = nil // decided: close waits for the answer
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

// close ends the stream, once nothing writes to f any more, and waits for
// the pattern's matcher; call it once. It returns whether each text was
// found, in order, and whether the pattern matched (false without one).
func (f *finder) close() (found []bool, matched bool) {
	if f.matched != nil {
		if f.pw != nil {
			f.pw.Close()
		}
		matched = <-f.matched
	}
	return f.found, matched
}
