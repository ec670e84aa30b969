package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// spillAt is how many bytes of text a textBuf holds in memory; past that it
// moves them to its file.
const spillAt = 1 << 20

// textBuf accumulates the text (or thoughts) of a turn, chunk by chunk. It
// holds up to spillAt bytes in memory; a longer text goes, spillAt bytes at a
// time, to a file in dir, and String reads it back into one string of the
// text's exact size. A flood of text then costs its length once, not, while a
// buffer grows, the old and the new copy of it, and not the garbage
// collector's slack on top (which lets the heap grow to about twice what is
// live). The zero value is an empty buffer that keeps everything in memory.
//
// dir is the run's private directory (see Options.spill). The file is
// unlinked as soon as it is made, so that nothing of a text is left behind
// however acprun stops, and no output can name it.
type textBuf struct {
	dir     string   // where the file is made; "" keeps the text in memory
	joined  string   // the text up to the last call of String
	file    *os.File // the text after joined, spilled bytes of it; nil until a spill
	spilled int64
	buf     []byte // the text after the file's
	lost    error  // why the text lacks what could not be read back
	message string // the messageId of the last chunk written that had one
}

// messageBreak is what stands between two messages of a turn's text (or
// thoughts).
const messageBreak = "\n\n"

// WriteChunk appends s, a chunk of the message with messageId id ("" for a
// chunk without one, which goes on with the message). A chunk of another
// message than the last one starts after messageBreak, so that no word of
// the text is made of two messages.
func (b *textBuf) WriteChunk(id, s string) {
	if id != "" {
		if b.message != "" && id != b.message && b.size() > 0 {
			b.WriteString(messageBreak)
		}
		b.message = id
	}
	b.WriteString(s)
}

// size is the length of the text written so far.
func (b *textBuf) size() int64 {
	return int64(len(b.joined)) + b.spilled + int64(len(b.buf))
}

// WriteString appends s.
func (b *textBuf) WriteString(s string) {
	b.buf = append(b.buf, s...)
	if len(b.buf) >= spillAt && b.dir != "" {
		b.spill()
	}
}

// spill moves what the buffer holds to the file. When the file cannot be
// made or written, what was not written stays in memory, and so does the
// rest of the text.
func (b *textBuf) spill() {
	if b.file == nil {
		f, err := os.CreateTemp(b.dir, "turn-")
		if err == nil {
			if err = os.Remove(f.Name()); err != nil {
				_ = f.Close()
			}
		}
		if err != nil {
			b.dir = ""
			return
		}
		b.file = f
	}
	n, err := b.file.Write(b.buf)
	b.spilled += int64(n)
	b.buf = b.buf[:copy(b.buf, b.buf[n:])]
	if err != nil {
		b.dir = ""
	}
	if cap(b.buf) > 2*spillAt { // one long chunk: not held for the rest of the turn
		b.buf = append([]byte(nil), b.buf...)
	}
}

// String returns the text. It joins what was written since the last call
// with what that call returned, in one string, and closes the file.
func (b *textBuf) String() string {
	if b.file == nil && len(b.buf) == 0 {
		return b.joined
	}
	var sb strings.Builder
	sb.Grow(len(b.joined) + int(b.spilled) + len(b.buf))
	sb.WriteString(b.joined)
	if b.file != nil {
		if _, err := io.Copy(&sb, io.NewSectionReader(b.file, 0, b.spilled)); err != nil {
			// The file is acprun's, not the user's business.
			b.lost = fmt.Errorf("part of the turn's text or thoughts could not be read back: %w", innerError(err))
		}
		_ = b.file.Close()
		b.file, b.spilled = nil, 0
	}
	sb.Write(b.buf)
	b.buf = nil
	b.joined = sb.String() // no copy: a Builder's String shares its buffer
	return b.joined
}

// texts are the text buffers of the turn.
func (t *turnState) texts() []*textBuf {
	return []*textBuf{&t.text, &t.lateText, &t.thoughts, &t.lateThoughts}
}
