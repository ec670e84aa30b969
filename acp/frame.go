package acp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// This file is the framing: one JSON message per line, with no embedded
// newline. It moves lines and knows nothing of what they hold.

const (
	readBufBytes = 64 << 10 // lines up to this size are returned in place
	keepBufBytes = 1 << 20  // larger line buffers are dropped after use
)

// lineReader splits a stream into lines of any length up to max.
type lineReader struct {
	src *stream
	br  *bufio.Reader
	max int
	acc []byte // a line longer than the bufio buffer, or an excerpt
	err error  // sticky end of stream
}

func newLineReader(src *stream, max int) *lineReader {
	return &lineReader{src: src, br: bufio.NewReaderSize(src, readBufBytes), max: max}
}

// taken returns where in the stream (a count of its bytes) the last line
// next returned ends: every line that ends there or before was returned.
func (lr *lineReader) taken() int64 {
	return lr.src.read() - int64(lr.br.Buffered())
}

// next returns the next line without its '\n'; it is valid until the next
// call. A line longer than max comes back as its first bytes with over set,
// once look, when not nil, has read what it wants of it through a reader of
// the whole line (see overLine); the rest is discarded. size is always the
// whole line's length. err (io.EOF or a read error) comes only when no line
// is left: a last line without '\n' is returned first, with last set.
func (lr *lineReader) next(look func(line io.Reader)) (line []byte, size int, last, over bool, err error) {
	if lr.err != nil {
		return nil, 0, false, false, lr.err
	}
	if cap(lr.acc) > keepBufBytes {
		lr.acc = nil
	}
	lr.acc = lr.acc[:0]
	for {
		frag, rerr := lr.br.ReadSlice('\n')
		complete := rerr == nil
		if complete {
			frag = frag[:len(frag)-1]
		}
		size += len(frag)
		switch {
		case size > lr.max:
			return lr.overLine(frag, complete, rerr, look)
		case complete && len(lr.acc) == 0:
			return frag, size, false, false, nil // the common case: in the read buffer
		}
		lr.acc = append(lr.acc, frag...)
		if complete {
			return lr.acc, size, false, false, nil
		}
		if rerr != bufio.ErrBufferFull {
			lr.err = rerr
			if size == 0 {
				return nil, 0, false, false, rerr
			}
			return lr.acc, size, true, false, nil
		}
	}
}

// overLine reads the rest of a line longer than max, of which lr.acc and
// frag were read (complete: frag ends the line; rerr: the error that ended
// frag), and returns its start, as next does. look, when not nil, first
// reads as much of the line as it wants, from its start, through a reader
// that ends where the line does: of the line, only what was read before
// (max bytes and a read buffer) is held.
func (lr *lineReader) overLine(frag []byte, complete bool, rerr error, look func(io.Reader)) (line []byte, size int, last, over bool, err error) {
	lr.acc = append(lr.acc, frag...)
	rest := &lineRest{lr: lr, ended: complete}
	if !complete && rerr != bufio.ErrBufferFull {
		lr.err, rest.ended = rerr, true
	}
	if look != nil {
		look(io.MultiReader(bytes.NewReader(lr.acc), rest))
	}
	_, _ = io.Copy(io.Discard, rest) // its errors are lr.err's
	size = len(lr.acc) + rest.n
	lr.acc = lr.acc[:min(len(lr.acc), excerptBytes)]
	return lr.acc, size, lr.err != nil, true, nil
}

// lineRest reads the rest of the line lr is in, up to its '\n' (which it
// takes, and does not return) or the end of the stream (lr.err).
type lineRest struct {
	lr    *lineReader
	n     int  // the bytes of the line read through it
	ended bool // the line ended
}

func (r *lineRest) Read(p []byte) (int, error) {
	br := r.lr.br
	if r.ended {
		return 0, io.EOF
	}
	if _, err := br.Peek(1); err != nil {
		r.lr.err, r.ended = err, true
		return 0, io.EOF
	}
	b, _ := br.Peek(min(len(p), br.Buffered()))
	took := len(b)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b, took, r.ended = b[:i], i+1, true
	}
	n := copy(p, b)
	_, _ = br.Discard(took)
	r.n += n
	return n, nil
}

// buffered reports whether next can return without reading: a whole line
// (or the end of the stream) is already buffered.
func (lr *lineReader) buffered() bool {
	if lr.err != nil {
		return true
	}
	return bytes.IndexByte(lr.rest(), '\n') >= 0
}

// bufferedLines returns how many whole lines are buffered, blank ones
// excepted.
func (lr *lineReader) bufferedLines() int {
	n := 0
	for line := range bytes.Lines(lr.rest()) {
		if line[len(line)-1] == '\n' && !isBlank(line) {
			n++
		}
	}
	return n
}

// rest returns the bytes read from the stream but not yet returned by next.
func (lr *lineReader) rest() []byte {
	b, _ := lr.br.Peek(lr.br.Buffered())
	return b
}

// isBlank reports whether a line holds only JSON whitespace.
func isBlank(line []byte) bool {
	return len(bytes.TrimLeft(line, " \t\r\n")) == 0
}

// deadliner is a writer whose blocked writes can be cut short (os.File
// pipes, net.Conn).
type deadliner interface {
	SetWriteDeadline(t time.Time) error
}

// writeLine writes buf, a whole line or the rest of one, to w. When ctx
// ends while the peer does not read (a full pipe), a writer with deadlines
// is cut short, so that no deadline and no interrupt is ever stuck behind a
// write; n says how much of buf went out, and cut that ctx's end cut the
// write short (rather than the peer closing its input): the rest of buf may
// still be written, and the stream is sound again once it is.
func writeLine(ctx context.Context, w io.Writer, buf []byte) (n int, cut bool, err error) {
	d, ok := w.(deadliner)
	if !ok || ctx.Done() == nil {
		n, err = w.Write(buf)
		return n, false, err
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = d.SetWriteDeadline(time.Unix(1, 0))
	})
	n, err = w.Write(buf)
	if stop() {
		return n, false, err // the deadline was never set
	}
	// The deadline is set, or about to be: wait for it, so that it cannot
	// land after this write and cut the next one short; then clear it, so
	// that later writes (the rest of this one) may block again.
	<-fired
	_ = d.SetWriteDeadline(time.Time{})
	if err != nil {
		return n, errors.Is(err, os.ErrDeadlineExceeded), fmt.Errorf("%w (%w)", err, context.Cause(ctx))
	}
	return n, false, nil
}
