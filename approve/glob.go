package approve

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// wildcard reports whether name matches pattern, where '*' matches any run
// of characters and, when question is set, '?' matches one character
// (UTF-8 rune). It works on the strings' bytes without copying them and
// runs in O(len(pattern)·len(name)) at worst.
func wildcard(pattern, name string, question bool) bool {
	px, nx := 0, 0
	nextPx, nextNx := 0, 0
	for px < len(pattern) || nx < len(name) {
		if px < len(pattern) {
			switch c := pattern[px]; {
			case c == '*':
				nextPx, nextNx = px, nx+1
				px++
				continue
			case c == '?' && question:
				if nx < len(name) {
					_, size := utf8.DecodeRuneInString(name[nx:])
					px++
					nx += size
					continue
				}
			default:
				if nx < len(name) && name[nx] == c {
					px++
					nx++
					continue
				}
			}
		}
		if 0 < nextNx && nextNx <= len(name) {
			px, nx = nextPx, nextNx
			continue
		}
		return false
	}
	return true
}

// normalizeCommand trims s and collapses runs of unquoted blanks to one
// space, the form SplitCommands gives its commands; command patterns are
// normalized the same way.
func normalizeCommand(s string) string {
	var b strings.Builder
	var quote byte
	space := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if quote == 0 && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteByte(ch)
		switch {
		case quote == 0 && (ch == '\'' || ch == '"'):
			quote = ch
		case quote == ch:
			quote = 0
		}
	}
	return b.String()
}

// commandMatch reports whether a simple command matches a command pattern.
func commandMatch(pattern, cmd string) bool {
	return wildcard(normalizeCommand(pattern), cmd, false)
}

// MatchTitle reports whether title matches the title glob pattern the way
// a rule's title matcher does: case-insensitively, '*' matching any run of
// characters (also none, also '/') and '?' exactly one character.
func MatchTitle(pattern, title string) bool {
	return wildcard(strings.ToLower(pattern), strings.ToLower(title), true)
}

// MatchPath reports whether relPath, a relative path with slashes, matches
// the relative path glob pattern the way a rule's path matcher matches a
// path under the session cwd: '**' as a whole segment matches any number
// of segments (none included), and other segments follow path.Match ('*'
// and '?' never cross '/'). Both are cleaned first; an absolute pattern or
// path, or a malformed pattern, matches nothing.
func MatchPath(pattern, relPath string) bool {
	if strings.HasPrefix(strings.TrimSpace(pattern), "/") {
		return false
	}
	return pathMatch(pattern, path.Clean(filepath.ToSlash(relPath)), "")
}

// cleanPath cleans p and makes it absolute against cwd (when cwd is set),
// with forward slashes.
func cleanPath(p, cwd string) string {
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// pathMatch reports whether the cleaned path p (see cleanPath) matches a
// path pattern. An absolute pattern matches absolute paths. A relative
// pattern matches paths under cwd (including cwd itself) by their path
// relative to cwd; it can reach outside cwd only with explicit leading
// ".." segments, which must then equal the path's. Inside patterns, '**'
// as a whole segment matches any number of segments (zero included);
// other segments follow path.Match ('*', '?', '[…]'; '*' never crosses
// '/'). A malformed pattern matches nothing.
func pathMatch(pattern, p, cwd string) bool {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return false
	}
	pattern = path.Clean(filepath.ToSlash(pattern))
	if strings.HasPrefix(pattern, "/") {
		if !strings.HasPrefix(p, "/") {
			return false
		}
		return matchSegments(splitPath(pattern), splitPath(p))
	}
	var rel string
	switch {
	case cwd == "" && strings.HasPrefix(p, "/"):
		return false
	case cwd == "":
		rel = p
	default:
		r, err := filepath.Rel(filepath.Clean(cwd), filepath.FromSlash(p))
		if err != nil {
			return false
		}
		rel = filepath.ToSlash(r)
	}
	pat, segs := splitPath(pattern), splitPath(rel)
	up := leadingDotDots(pat)
	if leadingDotDots(segs) != up {
		return false
	}
	return matchSegments(pat[up:], segs[up:])
}

// rulePathMatch reports whether a path the call touches matches a path
// pattern of a rule of list (ListAllow or ListDeny), relative patterns
// matching under any of cwds (the session cwd as given and resolved). An
// unresolvable path matches every well-formed deny pattern and no allow
// one. A deny pattern whose first segment is '**' ("**/.env", "**")
// matches at any depth of any path, also outside the cwds: it names files
// wherever they are. Allow patterns stay relative to the cwd, so that
// "**" allows the cwd's tree, not the whole filesystem.
func rulePathMatch(list, pattern string, ps PathSource, cwds []string) bool {
	deny := list == ListDeny
	if ps.Unresolvable {
		return deny && strings.TrimSpace(pattern) != "" && CheckPathGlob(pattern) == nil
	}
	for _, cwd := range cwds {
		if pathMatch(pattern, ps.Path, cwd) {
			return true
		}
	}
	if !deny {
		return false
	}
	pattern = path.Clean(filepath.ToSlash(strings.TrimSpace(pattern)))
	if pattern != "**" && !strings.HasPrefix(pattern, "**/") {
		return false
	}
	return matchSegments(splitPath(pattern), splitPath(ps.Path))
}

// splitPath splits a cleaned slash path into its segments; "/" and "."
// have none.
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	if p == "" || p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

func leadingDotDots(segs []string) int {
	n := 0
	for n < len(segs) && segs[n] == ".." {
		n++
	}
	return n
}

// matchSegments matches path segments against pattern segments, '**'
// matching any number of segments, by dynamic programming (no
// exponential backtracking on many '**').
func matchSegments(pat, segs []string) bool {
	prev := make([]bool, len(segs)+1)
	prev[0] = true
	for _, ps := range pat {
		cur := make([]bool, len(segs)+1)
		if ps == "**" {
			acc := false
			for j := range cur {
				acc = acc || prev[j]
				cur[j] = acc
			}
		} else {
			for j := 1; j <= len(segs); j++ {
				if prev[j-1] {
					ok, err := path.Match(ps, segs[j-1])
					cur[j] = ok && err == nil
				}
			}
		}
		prev = cur
	}
	return prev[len(segs)]
}

// CheckPathGlob reports what is wrong with a path glob (a rule's path, a
// workspace's protect, a files expectation's pattern), or nil. It refuses
// what path.Match refuses (an unclosed [), a class range that is empty
// ([z-a]), a class that starts with ! ([!.], which path.Match reads as
// "! or .", not as the shell's negation [^.]), ** that is not a whole
// segment (***, a**), braces, which are not globs here, and a trailing /
// (cleaning drops it, so "secrets/" would match the directory alone): a
// pattern that could never match what it seems to say would deny or
// protect nothing, silently. A caller for which a trailing / means the
// directory's tree (files expectations) strips it first.
func CheckPathGlob(pattern string) error {
	slashed := filepath.ToSlash(pattern)
	for _, seg := range strings.Split(slashed, "/") {
		if err := checkSegment(seg); err != nil {
			return fmt.Errorf("bad pattern %q: %w", pattern, err)
		}
	}
	if trimmed := strings.TrimSpace(slashed); strings.HasSuffix(trimmed, "/") && strings.Trim(trimmed, "/") != "" {
		dir := strings.TrimRight(trimmed, "/")
		return fmt.Errorf("bad pattern %q: a trailing / is dropped, so it matches the directory %s alone, nothing in it: write %s/** for the directory and everything in it (or %s for the directory alone)",
			pattern, dir, dir, dir)
	}
	return nil
}

// CheckNameGlob reports what is wrong with a tool or title glob (a rule's
// tool or title, a tool call pattern), or nil. Only '*' and '?' are
// special in such globs, so brackets and braces, which would be taken
// literally and match no real name or title, are refused.
func CheckNameGlob(pattern string) error {
	switch i := strings.IndexAny(pattern, "[]{}"); {
	case i < 0:
		return nil
	case pattern[i] == '{' || pattern[i] == '}':
		return fmt.Errorf("bad pattern %q: {a,b} is not a glob here: write one pattern for each", pattern)
	default:
		return fmt.Errorf("bad pattern %q: [...] is not a glob here (only * and ? are): write one pattern for each, or ? for any one character", pattern)
	}
}

// checkSegment checks one segment of a path glob (see CheckPathGlob).
func checkSegment(seg string) error {
	if seg != "**" && strings.Contains(seg, "**") {
		return errors.New("** matches any number of directories only as a whole segment (a/**/b): within a segment write *")
	}
	if _, err := path.Match(seg, ""); err != nil {
		if strings.Contains(seg, "[") {
			return errors.New("malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal [")
		}
		return errors.New("malformed pattern (a \\ must be followed by a character)")
	}
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '\\':
			i++
		case '{':
			return errors.New("{a,b} is not a glob here: write one pattern for each (or [{] for a literal {)")
		case '[':
			end, err := checkClass(seg, i+1)
			if err != nil {
				return err
			}
			if err := checkBang(seg[i:min(end+1, len(seg))]); err != nil {
				return err
			}
			i = end
		}
	}
	return nil
}

// checkBang refuses a class (cls, from [ to ]) that starts with !: the
// shell's negation, which path.Match reads as a ! to match.
func checkBang(cls string) error {
	if !strings.HasPrefix(cls, "[!") {
		return nil
	}
	rest := cls[2:] // the class after !, up to and with its ]
	if rest == "]" {
		return errors.New(`[!] does not negate here, it matches "!" alone: write \! or [\!] for "!"`)
	}
	return fmt.Errorf(`%s does not negate here, it matches "!" or any of the others: write [^%s for any character but those (or [\!%s to match "!" too)`,
		cls, rest, rest)
}

// checkClass checks the character class of seg that starts at i (after
// its '['), which path.Match has found well formed, for an empty range; it
// returns the index of the closing ']'.
func checkClass(seg string, i int) (int, error) {
	if i < len(seg) && seg[i] == '^' {
		i++
	}
	char := func() rune {
		if seg[i] == '\\' {
			i++
		}
		r, size := utf8.DecodeRuneInString(seg[i:])
		i += size
		return r
	}
	for n := 0; i < len(seg); n++ {
		if seg[i] == ']' && n > 0 {
			return i, nil
		}
		start := i
		lo := char()
		if i < len(seg) && seg[i] == '-' {
			i++
			if hi := char(); hi < lo {
				return i, fmt.Errorf("range %s is empty, so [...] matches nothing: write %c-%c", seg[start:i], hi, lo)
			}
		}
	}
	return i, nil
}
