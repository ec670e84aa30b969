package runner

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTextBuf: a textBuf gives back exactly what was written, in order,
// across its file and across calls of String, and never holds more than
// spillAt bytes of it in memory beyond what String returned.
func TestTextBuf(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := &spillDir{}
	defer dir.remove()
	b := textBuf{dir: dir}
	var want strings.Builder
	if got := b.String(); got != "" {
		t.Fatalf("empty String() = %q", got)
	}
	for i := range 20000 {
		s := strings.Repeat(string(rune('a'+i%26)), i%300)
		if i == 2500 {
			s = strings.Repeat("é", spillAt) // longer than what is held
		}
		b.WriteString(s)
		want.WriteString(s)
		if i == 2500 && b.file == nil {
			t.Fatalf("a text of %d bytes was not spilled", want.Len())
		}
		if i%3000 == 2999 {
			if got := b.String(); got != want.String() {
				t.Fatalf("after %d writes String() differs: %d bytes, want %d", i+1, len(got), want.Len())
			}
		}
		if len(b.buf) >= spillAt {
			t.Fatalf("after %d writes %d bytes held in memory", i+1, len(b.buf))
		}
	}
	if got := b.String(); got != want.String() {
		t.Fatalf("String() differs: %d bytes, want %d", len(got), want.Len())
	}
	if b.file != nil || b.lost != nil {
		t.Errorf("String left the file open (%v) or lost text: %v", b.file != nil, b.lost)
	}
}

// TestTextBufSpills: a long text streams into a file, so the heap does
// not grow with it; String reads it back as one string. The file is
// never seen in the run's directory, which remove takes away.
func TestTextBufSpills(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := &spillDir{}
	chunk := strings.Repeat("x", 64)
	const total = 16 << 20
	b := textBuf{dir: dir}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range total / len(chunk) {
		b.WriteString(chunk)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 2*spillAt {
		t.Errorf("the heap grew by %d bytes for %d bytes of text; want it in the file", grown, total)
	}
	if b.spilled < total-spillAt {
		t.Errorf("%d bytes of %d in the file", b.spilled, total)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil || len(entries) != 1 {
		t.Fatalf("temp dir holds %v (%v); want the spill directory alone", entries, err)
	}
	if files, err := os.ReadDir(filepath.Join(tmp, entries[0].Name())); err != nil || len(files) != 0 {
		t.Errorf("spill directory holds %v (%v); want its files unlinked", files, err)
	}
	got := b.String()
	if len(got) != total || strings.Trim(got, "x") != "" {
		t.Fatalf("String() = %d bytes, not %d x's", len(got), total)
	}
	if b.file != nil || b.String() != got {
		t.Errorf("the file was not closed after String, or String changed")
	}
	dir.remove()
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestTextBufNoSpill: without a spill directory, or when it cannot be
// made, the text is kept in memory, whole.
func TestTextBufNoSpill(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	long := strings.Repeat("0123456789abcdef", spillAt/8)
	for _, dir := range []*spillDir{nil, {}} {
		b := textBuf{dir: dir}
		b.WriteString(long)
		b.WriteString("end")
		if b.file != nil {
			t.Errorf("a file was made")
		}
		if got := b.String(); got != long+"end" || b.lost != nil {
			t.Errorf("String() = %d bytes (lost: %v), want %d", len(got), b.lost, len(long)+3)
		}
	}
}
