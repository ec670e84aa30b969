package approve

import (
	"sort"
	"strings"
)

// joined is shell text as the shells read it: bash and dash remove a line
// continuation (a backslash-newline) wherever they read a character —
// in words, "…", ${…}, $(…), `…` and unquoted here-documents, so
// `"$\<newline>(cmd)"` is "$(cmd)" — except where the backslash is text:
// escaped by a backslash before it, in single quotes, $'…', a comment
// (which the newline ends) and a quoted here-document body.
//
// s is the text with every continuation removed, which the splitter
// reads; raw is the text as written. Where the splitter meets one of the
// exceptions it reads raw (keepLiteral, heredoc bodies), and the
// continuations there are kept: text gives them back, so a command's text
// holds what the shell reads, with the continuations in its quotes and
// comments as written (a script in '…' keeps them for the shell that runs
// it).
type joined struct {
	s, raw string
	// pairs are the raw indexes of the continuations removed, ascending;
	// kept tells those the shell keeps.
	pairs []int
	kept  []bool
	nKept int
}

// join removes the line continuations from raw, which starts where no
// backslash escapes its first byte.
func join(raw string) *joined {
	j := &joined{s: raw, raw: raw}
	if !strings.Contains(raw, "\\\n") {
		return j
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 == len(raw) {
			b.WriteByte(raw[i])
			continue
		}
		if raw[i+1] == '\n' {
			j.pairs = append(j.pairs, i)
		} else {
			b.WriteString(raw[i : i+2])
		}
		i++
	}
	j.s = b.String()
	j.kept = make([]bool, len(j.pairs))
	return j
}

// at returns the index in s where the removed continuation k was: the
// index of the byte that followed it.
func (j *joined) at(k int) int { return j.pairs[k] - 2*k }

// rawBefore returns the raw index right after s[i-1]: before the
// continuations removed between s[i-1] and s[i].
func (j *joined) rawBefore(i int) int {
	return i + 2*sort.Search(len(j.pairs), func(k int) bool { return j.at(k) >= i })
}

// index returns the index in s of the raw index r, which is no
// continuation's backslash.
func (j *joined) index(r int) int {
	return r - 2*sort.Search(len(j.pairs), func(k int) bool { return j.pairs[k] >= r })
}

// keep marks the continuations removed between s[lo-1] and s[hi], those of
// text the shells read literally from s[lo] up to s[hi] (a closing quote),
// as kept. hi may be len(s).
func (j *joined) keep(lo, hi int) {
	for k := sort.Search(len(j.pairs), func(k int) bool { return j.at(k) >= lo }); k < len(j.pairs) && j.at(k) <= hi; k++ {
		j.keepPair(k)
	}
}

// keepRaw marks the continuations that start in raw[lo:hi] as kept.
func (j *joined) keepRaw(lo, hi int) {
	for k := sort.Search(len(j.pairs), func(k int) bool { return j.pairs[k] >= lo }); k < len(j.pairs) && j.pairs[k] < hi; k++ {
		j.keepPair(k)
	}
}

func (j *joined) keepPair(k int) {
	if !j.kept[k] {
		j.kept[k] = true
		j.nKept++
	}
}

// first returns the first continuation removed between s[lo-1] and s[hi],
// if any.
func (j *joined) first(lo, hi int) (int, bool) {
	k := sort.Search(len(j.pairs), func(k int) bool { return j.at(k) >= lo })
	return k, k < len(j.pairs) && j.at(k) <= hi
}

// text returns s[lo:hi] with the kept continuations inside it put back.
func (j *joined) text(lo, hi int) string {
	if j.nKept == 0 {
		return j.s[lo:hi]
	}
	k := sort.Search(len(j.pairs), func(k int) bool { return j.at(k) > lo })
	if k == len(j.pairs) || j.at(k) >= hi {
		return j.s[lo:hi]
	}
	var b strings.Builder
	from := lo
	for ; k < len(j.pairs) && j.at(k) < hi; k++ {
		if j.kept[k] {
			b.WriteString(j.s[from:j.at(k)])
			b.WriteString("\\\n")
			from = j.at(k)
		}
	}
	b.WriteString(j.s[from:hi])
	return b.String()
}
