package scenario

import (
	"fmt"
	"strings"
)

// problem is a problem inside a string value, at byte offset off.
type problem struct {
	off int
	msg string
	// unset marks a reference to an unset variable: a problem of the
	// environment the file is loaded in, not of the file.
	unset bool
}

// expand replaces ${NAME} and ${NAME:-default} with the value of the
// variable NAME and $$ with a single $. A default is used when the variable
// is unset or empty, and is taken literally: a "${" inside it is a problem
// (a shell would expand it; passing it on as written would surprise). A $
// followed by anything else is kept as it is. Problems carry the offset of
// the offending "${" in s.
func expand(s string, lookup func(string) (string, bool)) (string, []problem) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	var probs []problem
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' || i+1 == len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i += 2
			continue
		case '{':
		default:
			b.WriteByte('$')
			i++
			continue
		}
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			probs = append(probs, problem{off: i, msg: fmt.Sprintf("unterminated variable reference %q: missing }", s[i:])})
			b.WriteString(s[i:])
			break
		}
		ref := s[i : i+2+end+1]
		inner := s[i+2 : i+2+end]
		i += 2 + end + 1
		name, def, hasDef := strings.Cut(inner, ":-")
		if !validVarName(name) {
			probs = append(probs, problem{off: i - len(ref), msg: fmt.Sprintf("bad variable reference %q: use ${NAME} or ${NAME:-default}", ref)})
			continue
		}
		if at := strings.Index(def, "${"); hasDef && at >= 0 {
			probs = append(probs, problem{off: i - len(ref) + 2 + len(name) + 2 + at,
				msg: fmt.Sprintf("${ inside the default of ${%s:-…}: a default is taken literally, not expanded: write the value itself", name)})
			continue
		}
		v, ok := lookup(name)
		switch {
		case hasDef && v == "":
			v = def
		case !ok:
			probs = append(probs, problem{off: i - len(ref), msg: fmt.Sprintf("environment variable %s is not set (write ${%s:-default} to give a default)", name, name), unset: true})
		}
		b.WriteString(v)
	}
	return b.String(), probs
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// splitCommand splits s into words the way a POSIX shell would, without
// any expansion: blanks separate words; '...' keeps everything literally;
// "..." keeps everything except that \" and \\ stand for " and \; outside
// quotes a backslash keeps the next character literally. For each word it
// also returns the offset in s of every byte of the word, so that problems
// found later inside a word can be placed in s.
func splitCommand(s string) (words []string, offs [][]int, prob *problem) {
	var (
		word   []byte
		off    []int
		inWord bool
	)
	add := func(c byte, at int) {
		word = append(word, c)
		off = append(off, at)
		inWord = true
	}
	flush := func() {
		if inWord {
			words = append(words, string(word))
			offs = append(offs, off)
		}
		word, off, inWord = nil, nil, false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r':
			flush()
		case '\\':
			if i+1 < len(s) {
				i++
				add(s[i], i)
			} else {
				add(c, i)
			}
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, nil, &problem{off: i, msg: "unterminated ' in command"}
			}
			inWord = true
			for j := i + 1; j <= i+end; j++ {
				add(s[j], j)
			}
			i += end + 1
		case '"':
			inWord = true
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				add(s[j], j)
			}
			if j == len(s) {
				return nil, nil, &problem{off: i, msg: `unterminated " in command`}
			}
			i = j
		default:
			add(c, i)
		}
	}
	flush()
	return words, offs, nil
}
