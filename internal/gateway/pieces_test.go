package gateway

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// BenchmarkPathNamesPieces guards against quadratic naming of a streamed
// answer's pieces: each holds a path (the model controls how many), so
// time should double, not quadruple, as the pieces double.
func BenchmarkPathNamesPieces(b *testing.B) {
	p := newPathNames(map[string][]string{"<workspace>": {"/home/u/project"}}, nil)
	for _, n := range []int{1000, 2000, 4000, 8000} {
		pieces := make([]string, n)
		for i := range pieces {
			pieces[i] = "see /home/u/project/main.go and "
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(strings.Join(pieces, ""))))
			for b.Loop() {
				p.pieces(pieces)
			}
		})
	}
}

// plainPieces is pathNames.pieces read plainly: every piece looked at
// for each path found.
func (p *pathNames) plainPieces(pieces []string) []string {
	text := strings.Join(pieces, "")
	ends := make([]int, len(pieces))
	n := 0
	for i, s := range pieces {
		n += len(s)
		ends[i] = n
	}
	for _, pf := range p.byForm {
		for i := 0; ; {
			j := strings.Index(text[i:], pf[0])
			if j < 0 {
				break
			}
			start := i + j
			end := min(start+len(pf[0])+2, len(text))
			for end < len(text) && !utf8.RuneStart(text[end]) {
				end++
			}
			for k, e := range ends {
				if start < e && e < end {
					ends[k] = end
				}
			}
			i = start + 1
		}
	}
	out := make([]string, len(pieces))
	start := 0
	for k, e := range ends {
		out[k] = p.name(text[start:e])
		start = e
	}
	return out
}

// TestPathNamesPiecesPlain compares pathNames.pieces with its plain
// reading on random texts cut at random into pieces, empty ones too, of
// paths that hold one another, escaped or not.
func TestPathNamesPiecesPlain(t *testing.T) {
	p := newPathNames(map[string][]string{"<a>": {"/t/a"}, "<t>": {"/t"}, "<aa>": {"/t/a/a"}}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	bits := []string{"/t", "/a", "/", `\/`, "t", "a", "x", " ", "é", `"`}
	for range 20000 {
		var text strings.Builder
		for range rng.IntN(14) {
			text.WriteString(bits[rng.IntN(len(bits))])
		}
		s := text.String()
		var pieces []string
		for len(s) > 0 || rng.IntN(3) == 0 {
			n := min(rng.IntN(5), len(s))
			pieces = append(pieces, s[:n])
			s = s[n:]
		}
		if got, want := p.pieces(pieces), p.plainPieces(pieces); !slices.Equal(got, want) {
			t.Fatalf("pieces(%q) = %q; plainly %q", pieces, got, want)
		}
	}
}
