package redact

import (
	"slices"
	"strings"
)

// shellSpans appends to spans the parts of s that hold a secret once read
// as a POSIX shell reads its single quotes (see unshell): a secret that a
// shell line splits between words, some of them quoted, as acprun's shell
// quoting writes an argv (`echo 'hunter2!' now` for "hunter2! now", or
// "don't tell anyone" as the words don't, tell and anyone). A span that
// goes out of a quoted word covers that word whole, its quotes too, so
// that what is left of the line has its quotes in pairs; one within a
// quoted word stays inside its quotes. A part found already (in one of
// the secret's forms, its quotes written as shellquote.Quoted writes
// them) is left to that span. The decoded text is looked at again, up to
// depth times (a line Go-quoted, then shell-quoted).
func (r *table) shellSpans(s string, spans []span, depth int) []span {
	dec := unshell(s, false).text
	if dec == s {
		return spans
	}
	found := r.spansIn(dec, depth-1)
	if len(found) == 0 {
		return spans
	}
	u := unshell(s, true) // the same text, with where each byte comes from
	known := coverOf(spans)
	for _, f := range found {
		sp := span{u.from[f.start], u.to[f.end-1]}
		if known.covers(sp) {
			continue // found already, in one of its forms
		}
		if w := u.word[f.start]; w >= 0 && sp.end >= u.words[w].end {
			// Starts inside a quoted word and goes on past its end.
			sp.start = u.words[w].start
		}
		if w := u.word[f.end-1]; w >= 0 && u.words[w].start > u.from[f.start] {
			// Ends inside a quoted word it goes into from before.
			sp.end = u.words[w].end
		}
		spans = append(spans, sp)
	}
	return spans
}

// cover answers whether a span lies within one of a set of spans, in
// logarithmic time: a text may hold a secret a great many times.
type cover struct {
	starts []int // the spans' starts, sorted
	ends   []int // ends[i]: the furthest end of the spans up to starts[i]
}

// coverOf is the cover of spans.
func coverOf(spans []span) cover {
	sorted := slices.SortedFunc(slices.Values(spans), func(a, b span) int { return a.start - b.start })
	c := cover{starts: make([]int, len(sorted)), ends: make([]int, len(sorted))}
	for i, o := range sorted {
		c.starts[i], c.ends[i] = o.start, o.end
		if i > 0 {
			c.ends[i] = max(c.ends[i], c.ends[i-1])
		}
	}
	return c
}

// covers reports whether one of the spans starts at or before sp and
// ends at or after it.
func (c cover) covers(sp span) bool {
	i, _ := slices.BinarySearch(c.starts, sp.start+1) // the spans starting at or before sp
	return i > 0 && c.ends[i-1] >= sp.end
}

// unshelled is a text read as a shell reads its single quotes.
type unshelled struct {
	text string
	// from[i] and to[i] are where in the source the byte text[i] comes
	// from: [from[i], to[i]).
	from, to []int
	// word[i] is the index in words of the quoted word that holds
	// text[i], or -1.
	word []int
	// words are the quoted words of the source: from the ' that opens one
	// to just after the ' that closes it, across the quotes written
	// inside it as shellquote.Quoted writes them.
	words []span
}

// unshell reads s as a POSIX shell reads its single quotes: the text
// between a ' and the next ' is kept without them, a ' written inside
// quotes as shellquote.Quoted writes it (the quotes closed, an escaped '
// and the quotes opened again) and an escaped ' outside them read as '.
// A ' with no closing one stands for itself. Nothing else is read: the
// blanks between words stay. Without offsets, only the text is set.
func unshell(s string, offsets bool) unshelled {
	var u unshelled
	if offsets {
		u = unshelled{from: make([]int, 0, len(s)), to: make([]int, 0, len(s)), word: make([]int, 0, len(s))}
	}
	b := make([]byte, 0, len(s))
	// copyRun appends s[from:to] as it is, in quoted word w (or -1).
	copyRun := func(from, to, w int) {
		b = append(b, s[from:to]...)
		for i := from; offsets && i < to; i++ {
			u.from, u.to, u.word = append(u.from, i), append(u.to, i+1), append(u.word, w)
		}
	}
	// quote appends a ' read from s[from:to], in quoted word w (or -1).
	quote := func(from, to, w int) {
		b = append(b, '\'')
		if offsets {
			u.from, u.to, u.word = append(u.from, from), append(u.to, to), append(u.word, w)
		}
	}
	for i := 0; i < len(s); {
		next := strings.IndexAny(s[i:], `'\`)
		if next < 0 {
			copyRun(i, len(s), -1)
			break
		}
		copyRun(i, i+next, -1)
		i += next
		if s[i] == '\\' {
			if strings.HasPrefix(s[i+1:], "'") {
				quote(i, i+2, -1)
				i += 2
			} else {
				copyRun(i, i+1, -1)
				i++
			}
			continue
		}
		end := strings.IndexByte(s[i+1:], '\'')
		if end < 0 {
			copyRun(i, len(s), -1) // no ' closes it: no quotes follow
			break
		}
		w, open := len(u.words), i
		for i, end = i+1, i+1+end; ; {
			copyRun(i, end, w)
			// s[end] closes the quotes; an escaped ' and a ' after it open
			// them again, when a ' that closes them follows.
			next := -1
			if strings.HasPrefix(s[end:], `'\''`) {
				next = strings.IndexByte(s[end+4:], '\'')
			}
			if next < 0 {
				i = end + 1
				break
			}
			quote(end, end+4, w)
			i, end = end+4, end+4+next
		}
		if offsets {
			u.words = append(u.words, span{open, i})
		}
	}
	u.text = string(b)
	return u
}
