package runner

import "strings"

// Bounds of the blocks of a textBuf: the first holds at least
// minTextBlock bytes, each next one twice the one before, up to
// maxTextBlock. Blocks of offHeapBlock bytes or more are taken outside
// the Go heap where the system allows it (see offHeapMem).
const (
	minTextBlock = 512
	maxTextBlock = 1 << 20
	offHeapBlock = 64 << 10
)

// textBuf accumulates the text (or thoughts) of a turn, chunk by chunk.
// Unlike a strings.Builder it never copies what it holds to grow: it keeps
// blocks of doubling size, so that a flood of chunks costs the text once
// and not, while the buffer grows, the old and the new copy of it. String
// joins the blocks into one string of the exact size, once; the blocks are
// then freed. The zero value is an empty buffer.
//
// The large blocks live outside the Go heap, so that a long text neither
// counts towards the garbage collector's heap goal while it streams in
// (the collector lets the heap grow to about twice what is live: the
// chunks' garbage would grow with the text) nor stays in memory beside its
// joined copy: each block is returned to the system as soon as String has
// copied it. A flood of text then costs its length, once, plus a block.
type textBuf struct {
	joined string      // the text up to the blocks, as String returned it
	blocks []textBlock // the text written since; the last may have room
	n      int         // bytes in blocks
}

// textBlock is one block of a textBuf: b, and when b is outside the Go
// heap the memory to free. b never leaves its textBuf.
type textBlock struct {
	b   []byte
	mem *offHeapMem // nil for a block in the Go heap
}

// newTextBlock returns an empty block with room for size bytes.
func newTextBlock(size int) textBlock {
	if size >= offHeapBlock {
		if mem := allocOffHeap(size); mem != nil {
			return textBlock{b: mem.bytes()[:0], mem: mem}
		}
	}
	return textBlock{b: make([]byte, 0, size)}
}

// WriteString appends s.
func (b *textBuf) WriteString(s string) {
	for len(s) > 0 {
		if len(b.blocks) == 0 || len(b.blocks[len(b.blocks)-1].b) == cap(b.blocks[len(b.blocks)-1].b) {
			size := minTextBlock
			if len(b.blocks) > 0 {
				size = min(2*cap(b.blocks[len(b.blocks)-1].b), maxTextBlock)
			}
			b.blocks = append(b.blocks, newTextBlock(max(size, min(len(s), maxTextBlock))))
		}
		last := &b.blocks[len(b.blocks)-1].b
		k := min(len(s), cap(*last)-len(*last))
		*last = append(*last, s[:k]...)
		s = s[k:]
		b.n += k
	}
}

// Len returns the length of the text in bytes.
func (b *textBuf) Len() int { return len(b.joined) + b.n }

// String returns the text. It joins the blocks written since the last
// call into one string with what that call returned, freeing each block
// once it is copied.
func (b *textBuf) String() string {
	if b.n == 0 {
		return b.joined
	}
	var sb strings.Builder
	sb.Grow(len(b.joined) + b.n)
	sb.WriteString(b.joined)
	for i := range b.blocks {
		blk := &b.blocks[i]
		sb.Write(blk.b)
		if blk.mem != nil {
			blk.mem.free()
		}
		*blk = textBlock{}
	}
	b.blocks, b.n = nil, 0
	b.joined = sb.String() // no copy: a Builder's String shares its buffer
	return b.joined
}
