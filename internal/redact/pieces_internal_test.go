package redact

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// plainPieces is pieces read plainly: every span looked at for each
// piece, and for each step back from the unfinished end.
func (r *table) plainPieces(pieces []string, cutEnd bool) (out []string, held int) {
	out = make([]string, len(pieces))
	if r.empty() {
		copy(out, pieces)
		return out, 0
	}
	text := strings.Join(pieces, "")
	spans := r.spansIn(text, maxUnescapes)
	if n := r.Unfinished(text); cutEnd && n >= cutMin {
		spans = append(spans, span{len(text) - n, len(text)})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	starts := make([]int, len(pieces)+1)
	for i, p := range pieces {
		starts[i+1] = starts[i] + len(p)
	}
	for i := range pieces {
		var b strings.Builder
		at := starts[i]
		for _, sp := range spans {
			if sp.end <= at || sp.start >= starts[i+1] {
				continue
			}
			if sp.start >= at {
				b.WriteString(text[at:sp.start])
				b.WriteString(Marker)
			}
			at = min(max(at, sp.end), starts[i+1])
		}
		b.WriteString(text[at:starts[i+1]])
		out[i] = r.String(b.String())
	}
	if cutEnd {
		return out, 0
	}
	var first int
	for b := len(text) - r.Unfinished(text); ; {
		nb := b
		for _, sp := range spans {
			if sp.start < nb && nb < sp.end {
				nb = sp.start
			}
		}
		first = len(pieces)
		for i := range pieces {
			if starts[i+1] > nb {
				first, nb = i, min(nb, starts[i])
				break
			}
		}
		if nb == b {
			break
		}
		b = nb
	}
	return out, len(pieces) - first
}

// TestPiecesPlain compares pieces with its plain reading on random texts
// cut at random into pieces, empty ones too, of secrets that overlap,
// hold one another and are escaped or shell-quoted.
func TestPiecesPlain(t *testing.T) {
	r := New("abcab", "bcabca", "cab'c", `ab"ca`).load()
	rng := rand.New(rand.NewPCG(1, 2))
	bits := []string{"a", "b", "c", "ab", "abcab", "bcabca", "cab", `\u0062`, `\"`, `'\''`, "'", "é", " "}
	for range 4000 { // seeded: the same texts every run
		var text strings.Builder
		for range rng.IntN(12) {
			text.WriteString(bits[rng.IntN(len(bits))])
		}
		s := text.String()
		var pieces []string
		for len(s) > 0 || rng.IntN(3) == 0 {
			n := min(rng.IntN(5), len(s))
			pieces = append(pieces, s[:n])
			s = s[n:]
		}
		for _, cutEnd := range []bool{false, true} {
			got, gotHeld := r.pieces(pieces, cutEnd)
			want, wantHeld := r.plainPieces(pieces, cutEnd)
			if !slices.Equal(got, want) || gotHeld != wantHeld {
				t.Fatalf("pieces(%q, %v) = %q, %d; plainly %q, %d", pieces, cutEnd, got, gotHeld, want, wantHeld)
			}
		}
	}
}
