// Package pathtext replaces directory paths where they stand in free text
// (prompts, tool output, JSON strings): the workspace path of a recording
// becomes a name, or another run's path, without touching a longer name
// that merely starts like it; and names the part of a path that is not
// UTF-8 (NotUTF8), the one a user is to rename.
package pathtext

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// NotUTF8 is the first element of path (a directory's name, or the
// file's) that is not valid UTF-8, the one to rename; path itself when
// every element is.
func NotUTF8(path string) string {
	for e := range strings.SplitSeq(filepath.ToSlash(path), "/") {
		if !utf8.ValidString(e) {
			return e
		}
	}
	return path
}

// Replace replaces, in s, each occurrence of the directory path that
// stands as a path of its own by to: not inside a longer name (/a/bc is
// not /a/b followed by c), and followed by the end of s, a character that
// cannot continue a name (a slash included), or a full stop that ends a
// sentence.
func Replace(s, path, to string) string {
	if path == "" || !strings.Contains(s, path) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, path)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(path)
		b.WriteString(s[:i])
		if (i == 0 || !isNameByte(s[i-1])) && ends(s, end) {
			b.WriteString(to)
		} else {
			b.WriteString(path)
		}
		s = s[end:]
	}
}

// ends reports whether a path in s ends at i.
func ends(s string, i int) bool {
	if i == len(s) || !isNameByte(s[i]) {
		return true
	}
	return s[i] == '.' && (i+1 == len(s) || !isNameByte(s[i+1]))
}

// isNameByte reports whether c may be part of a file name next to a path.
func isNameByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= 0x80
}
