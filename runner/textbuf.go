package runner

import (
	"runtime"
	"strings"
)

// Bounds of the blocks of a textBuf: the first holds at least
// minTextBlock bytes, each next one twice the one before, up to
// maxTextBlock.
const (
	minTextBlock = 512
	maxTextBlock = 1 << 20
	// collectBeforeJoin is the text, in blocks, from which String collects
	// garbage before joining them: one GC per turn that kept a megabyte of
	// text or more.
	collectBeforeJoin = 1 << 20
)

// textBuf accumulates the text (or thoughts) of a turn, chunk by chunk.
// Unlike a strings.Builder it never copies what it holds to grow: it keeps
// blocks of doubling size, so that a flood of chunks costs the text once
// and not, while the buffer grows, the old and the new copy of it. String
// joins the blocks into one string of the exact size, once; the blocks are
// then dropped. The zero value is an empty buffer.
type textBuf struct {
	joined string   // the text up to the blocks, as String returned it
	blocks [][]byte // the text written since, in blocks; the last may have room
	n      int      // bytes in blocks
}

// WriteString appends s.
func (b *textBuf) WriteString(s string) {
	for len(s) > 0 {
		if len(b.blocks) == 0 || len(b.blocks[len(b.blocks)-1]) == cap(b.blocks[len(b.blocks)-1]) {
			size := minTextBlock
			if len(b.blocks) > 0 {
				size = min(2*cap(b.blocks[len(b.blocks)-1]), maxTextBlock)
			}
			b.blocks = append(b.blocks, make([]byte, 0, max(size, min(len(s), maxTextBlock))))
		}
		last := &b.blocks[len(b.blocks)-1]
		k := min(len(s), cap(*last)-len(*last))
		*last = append(*last, s[:k]...)
		s = s[k:]
		b.n += k
	}
}

// Len returns the length of the text in bytes.
func (b *textBuf) Len() int { return len(b.joined) + b.n }

// String returns the text. It joins the blocks written since the last
// call into one string with what that call returned.
func (b *textBuf) String() string {
	if b.n == 0 {
		return b.joined
	}
	if b.n >= collectBeforeJoin {
		// The chunks of a flood leave as much garbage as the text they
		// carried (the GC lets the heap grow to twice what is live):
		// collect it first, so that the joined string can take its place
		// instead of growing the heap by the text once more.
		runtime.GC()
	}
	var sb strings.Builder
	sb.Grow(len(b.joined) + b.n)
	sb.WriteString(b.joined)
	for i, blk := range b.blocks {
		sb.Write(blk)
		b.blocks[i] = nil
	}
	b.blocks, b.n = nil, 0
	b.joined = sb.String() // no copy: a Builder's String shares its buffer
	return b.joined
}
