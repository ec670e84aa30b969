package vt

import (
	"slices"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
)

// TestScreen checks the sequences the screen knows, a sequence cut between
// two writes, wrapping, and that the cursor never goes up into the
// scrollback.
func TestScreen(t *testing.T) {
	s := New(10, 3)
	for _, w := range []string{
		"one\r\n", "two\r\n", "bar 1\x1b[K", "\r\x1b[", "Kbar 22\r\n", "live", "\r\x1b[1A", "three\x1b[K\r\n", "\x1b[31mdone\x1b[0m\x1b[J",
	} {
		s.Write([]byte(w))
	}
	if got, want := s.Lines(), []string{"one", "two", "three", "done"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q; want %q", got, want)
	}
	if got, want := s.Screen(), []string{"two", "three", "done"}; !slices.Equal(got, want) {
		t.Errorf("screen = %q; want %q", got, want)
	}
	s.Write([]byte("\r\x1b[9Atop\x1b[J"))
	if got, want := s.Lines(), []string{"one", "top"}; !slices.Equal(got, want) {
		t.Errorf("after moving up past the screen: %q; want %q", got, want)
	}
	s.Write([]byte("\r\n0123456789abc\x07"))
	if s.Wraps() != 1 || !slices.Equal(s.Unknown(), []string{`"\a"`}) {
		t.Errorf("wraps %d, unknown %q; want 1, [\"\\a\"]", s.Wraps(), s.Unknown())
	}
}

// TestResize checks that a narrower screen reflows its lines and the
// cursor.
func TestResize(t *testing.T) {
	s := New(10, 5)
	s.Write([]byte("0123456789\r\nabcdefgh\r\nxyz"))
	s.Resize(4, 5)
	if got, want := s.Lines(), []string{"0123", "4567", "89", "abcd", "efgh", "xyz"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q; want %q", got, want)
	}
	s.Write([]byte("!\r\x1b[2Aup\x1b[J"))
	if got, want := s.Lines(), []string{"0123", "4567", "89", "up"}; !slices.Equal(got, want) {
		t.Errorf("after the cursor moved = %q; want %q", got, want)
	}
}

// TestWide checks that a wide character takes two cells, and goes on the
// next row when only one is left.
func TestWide(t *testing.T) {
	s := NewWide(5, 3, func(r rune) bool { return r == '✅' })
	s.Write([]byte("a✅✅b\r\n✅x\x1b[K"))
	if got, want := s.Lines(), []string{"a✅✅", "b", "✅x"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q; want %q", got, want)
	}
	if s.Wraps() != 1 {
		t.Errorf("wraps %d; want 1", s.Wraps())
	}
	// Narrower, the second ✅ of the first line would be cut: it goes on
	// the next row, and the cursor after the x with it.
	s.Resize(2, 3)
	if got, want := s.Lines(), []string{"a", "✅", "✅", "b", "✅", "x"}; !slices.Equal(got, want) {
		t.Errorf("lines after a resize = %q; want %q", got, want)
	}
	s.Write([]byte("!"))
	if got := s.Lines(); got[len(got)-1] != "x!" {
		t.Errorf("the cursor is not after the x: %q", got)
	}
}
