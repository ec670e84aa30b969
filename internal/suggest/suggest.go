// Package suggest finds the valid word a mistyped one was meant to be, for
// the "did you mean" of an unknown key or value in acprun's input files.
package suggest

import "strings"

// Closest returns the valid word closest to word: the same word but for
// case, '_' and '-'; else the one within an edit distance of 2 (counting a
// swap of neighbours as one edit); else one that starts with word or that
// word starts with (at least 3 characters in common).
func Closest(word string, valid []string) (string, bool) {
	w := normalize(word)
	if w == "" {
		return "", false
	}
	for _, v := range valid {
		if normalize(v) == w {
			return v, true
		}
	}
	best, bestDist := "", 3
	for _, v := range valid {
		d := osaDistance(w, normalize(v))
		if d < bestDist && d < len(w) {
			best, bestDist = v, d
		}
	}
	if best != "" {
		return best, true
	}
	if len(w) >= 3 {
		for _, v := range valid {
			nv := normalize(v)
			if strings.HasPrefix(nv, w) || len(nv) >= 3 && strings.HasPrefix(w, nv) {
				return v, true
			}
		}
	}
	return "", false
}

func normalize(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// osaDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent bytes.
func osaDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b)) // far apart anyway; bound the work
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
