package redact

import "testing"

// TestCover checks cover against the plain reading of "a span lies within
// one of them", overlapping and nested spans included.
func TestCover(t *testing.T) {
	spans := []span{{10, 20}, {2, 5}, {12, 30}, {40, 41}, {2, 8}}
	c := coverOf(spans)
	for start := range 45 {
		for end := start + 1; end <= 46; end++ {
			sp := span{start, end}
			want := false
			for _, o := range spans {
				want = want || o.start <= sp.start && sp.end <= o.end
			}
			if got := c.covers(sp); got != want {
				t.Errorf("covers(%v) = %v; want %v", sp, got, want)
			}
		}
	}
	if (cover{}).covers(span{0, 1}) {
		t.Error("an empty cover covers a span")
	}
}
