package runner

import (
	"runtime"
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
			room += cap(blk.b) - len(blk.b)
		}
		if room > maxTextBlock || (room > 0 && cap(b.blocks[len(b.blocks)-1].b)-len(b.blocks[len(b.blocks)-1].b) != room) {
			t.Fatalf("after %d writes %d bytes of room, not all in the last block", i+1, room)
		}
	}
	if got := b.String(); got != want.String() {
		t.Fatalf("String() differs: %d bytes, want %d", len(got), want.Len())
	}
}

// TestTextBufOffHeap: a long text streams into blocks outside the Go heap,
// so the heap does not grow with it, and String frees them as it joins.
func TestTextBufOffHeap(t *testing.T) {
	m := allocOffHeap(offHeapBlock)
	if m == nil {
		t.Skip("this system maps no memory outside the Go heap")
	}
	m.free()
	chunk := strings.Repeat("x", 64)
	const total = 16 << 20
	var b textBuf
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range total / len(chunk) {
		b.WriteString(chunk)
	}
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 2<<20 {
		t.Errorf("the heap grew by %d bytes for %d bytes of text; want it outside the heap", grown, total)
	}
	offHeap := 0
	for _, blk := range b.blocks {
		if blk.mem != nil {
			offHeap += len(blk.b)
		}
	}
	if offHeap < total-offHeapBlock {
		t.Errorf("%d bytes of %d outside the heap", offHeap, total)
	}
	got := b.String()
	if len(got) != total || strings.Trim(got, "x") != "" {
		t.Fatalf("String() = %d bytes, not %d x's", len(got), total)
	}
	if b.blocks != nil || b.String() != got {
		t.Errorf("the blocks were not freed after String, or String changed")
	}
}
