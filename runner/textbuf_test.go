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
	t.Parallel()
	b := textBuf{dir: t.TempDir()}
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

// TestTextBufMessages: chunks of one message join as sent; a chunk of
// another message starts after a blank line, and a chunk without a
// messageId goes on with the message before it.
func TestTextBufMessages(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		chunks [][2]string // messageId, text
		want   string
	}{
		{"no ids", [][2]string{{"", "hel"}, {"", "lo"}}, "hello"},
		{"one message", [][2]string{{"m1", "hel"}, {"m1", "lo"}}, "hello"},
		{"two messages", [][2]string{{"m1", "tests pass"}, {"m2", "Now"}}, "tests pass\n\nNow"},
		{"interleaved", [][2]string{{"m1", "hel"}, {"m2", "XX"}, {"m1", "lo"}}, "hel\n\nXX\n\nlo"},
		{"without an id, the same message", [][2]string{{"m1", "a"}, {"", "b"}, {"m1", "c"}, {"m2", "d"}}, "abc\n\nd"},
		{"an id after none", [][2]string{{"", "a"}, {"m1", "b"}}, "ab"},
		{"a first message with no text", [][2]string{{"m1", ""}, {"m2", "x"}}, "x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b textBuf
			for _, c := range tt.chunks {
				b.WriteChunk(c[0], c[1])
			}
			if got := b.String(); got != tt.want {
				t.Errorf("text %q; want %q", got, tt.want)
			}
		})
	}
}

// TestTextBufSpills: a long text streams into a file, so the heap does
// not grow with it; String reads it back as one string. The file is
// never seen in its directory.
func TestTextBufSpills(t *testing.T) {
	// Not parallel: it measures the test binary's heap.
	dir := t.TempDir()
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
	if files, err := os.ReadDir(dir); err != nil || len(files) != 0 {
		t.Errorf("the directory holds %v (%v); want the file unlinked", files, err)
	}
	got := b.String()
	if len(got) != total || strings.Trim(got, "x") != "" {
		t.Fatalf("String() = %d bytes, not %d x's", len(got), total)
	}
	if b.file != nil || b.String() != got {
		t.Errorf("the file was not closed after String, or String changed")
	}
}

// TestTextBufNoSpill: without a directory for its file, or when the file
// cannot be made there, the text is kept in memory, whole.
func TestTextBufNoSpill(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789abcdef", spillAt/8)
	for _, dir := range []string{"", filepath.Join(t.TempDir(), "missing")} {
		b := textBuf{dir: dir}
		b.WriteString(long)
		b.WriteString("end")
		if b.file != nil {
			t.Errorf("%q: a file was made", dir)
		}
		if got := b.String(); got != long+"end" || b.lost != nil {
			t.Errorf("%q: String() = %d bytes (lost: %v), want %d", dir, len(got), b.lost, len(long)+3)
		}
	}
}
