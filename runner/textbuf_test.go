package runner

import (
	"strings"
	"testing"
)

// TestTextBuf: a textBuf gives back exactly what was written, in order,
// across blocks and across calls of String, and never holds more than one
// partly filled block beyond the text.
func TestTextBuf(t *testing.T) {
	var b textBuf
	var want strings.Builder
	if got := b.String(); got != "" {
		t.Fatalf("empty String() = %q", got)
	}
	for i := range 5000 {
		s := strings.Repeat(string(rune('a'+i%26)), i%300)
		if i == 2500 {
			s = strings.Repeat("é", maxTextBlock) // longer than a block
		}
		b.WriteString(s)
		want.WriteString(s)
		if i%1000 == 999 {
			if got := b.String(); got != want.String() {
				t.Fatalf("after %d writes String() differs: %d bytes, want %d", i+1, len(got), want.Len())
			}
		}
		if b.Len() != want.Len() {
			t.Fatalf("Len() = %d; want %d", b.Len(), want.Len())
		}
		room := 0
		for _, blk := range b.blocks {
			room += cap(blk) - len(blk)
		}
		if room > maxTextBlock || (room > 0 && cap(b.blocks[len(b.blocks)-1])-len(b.blocks[len(b.blocks)-1]) != room) {
			t.Fatalf("after %d writes %d bytes of room, not all in the last block", i+1, room)
		}
	}
	if got := b.String(); got != want.String() {
		t.Fatalf("String() differs: %d bytes, want %d", len(got), want.Len())
	}
}
