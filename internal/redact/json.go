package redact

import (
	"bytes"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"
)

// JSON is Redactor.JSON of the secrets of r.
func (r *table) JSON(raw []byte) []byte {
	out, _ := r.json(raw)
	return out
}

// json is JSON, reporting whether anything changed.
func (r *table) json(raw []byte) ([]byte, bool) {
	if r.empty() {
		return raw, false
	}
	if !json.Valid(raw) {
		s := string(raw)
		if red := r.String(s); red != s {
			return []byte(red), true
		}
		return raw, false
	}
	w := rewriter{r: r, in: raw, out: make([]byte, 0, len(raw))}
	w.value()
	if !w.changed {
		return raw, false
	}
	return w.out, true
}

// stringEnd returns the index of the quote that closes the string of
// valid JSON starting at raw[i], and whether the string has escapes.
func stringEnd(raw []byte, i int) (end int, escaped bool) {
	for j := i + 1; ; j++ {
		switch raw[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
}

// rewriter copies valid JSON, redacting strings and keys and dropping the
// white space between tokens.
type rewriter struct {
	r   *table
	in  []byte
	pos int
	out []byte
	buf []byte // scratch space for decoding
	// changed is set once a string or key was redacted.
	changed bool
}

func (w *rewriter) skipSpace() {
	for w.pos < len(w.in) {
		switch w.in[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// value copies one value. JSON that json.Valid accepts nests at most
// 10000 deep, so recursion is bounded.
func (w *rewriter) value() {
	w.skipSpace()
	switch w.in[w.pos] {
	case '{':
		w.object()
	case '[':
		w.array()
	case '"':
		w.str()
	default:
		// A number, true, false or null: copied as it is.
		start := w.pos
	scan:
		for ; w.pos < len(w.in); w.pos++ {
			switch w.in[w.pos] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				break scan
			}
		}
		w.out = append(w.out, w.in[start:w.pos]...)
	}
}

func (w *rewriter) array() {
	for end := w.open(']'); !end; end = w.next(']') {
		w.value()
	}
}

// open copies the bracket that opens an array or object at w.pos, and
// reports whether closing follows at once (copied too).
func (w *rewriter) open(closing byte) bool {
	w.out = append(w.out, w.in[w.pos])
	w.pos++
	w.skipSpace()
	if w.in[w.pos] == closing {
		w.pos++
		w.out = append(w.out, closing)
		return true
	}
	return false
}

// next copies the ',' or closing that follows a member, and reports
// whether it was closing.
func (w *rewriter) next(closing byte) bool {
	w.skipSpace()
	c := w.in[w.pos]
	w.pos++
	w.out = append(w.out, c)
	return c == closing
}

// key is an object key as written to w.out.
type key struct {
	start, end int    // the literal, quotes included, in w.out
	changed    bool   // redacted
	name       string // the redacted name, when changed
}

func (w *rewriter) object() {
	start := len(w.out)
	var keys []key
	renamed := false
	for end := w.open('}'); !end; end = w.next('}') {
		w.skipSpace()
		k := key{start: len(w.out)}
		k.name, k.changed = w.str()
		k.end = len(w.out)
		renamed = renamed || k.changed
		keys = append(keys, k)
		w.skipSpace()
		w.pos++ // ':'
		w.out = append(w.out, ':')
		w.value()
	}
	if renamed {
		w.resolveCollisions(start, keys)
	}
}

// resolveCollisions gives every redacted key of the object at w.out[start:]
// that collides with another key the first free suffix "#2", "#3"…, in
// document order. Keys that were not redacted keep their names.
func (w *rewriter) resolveCollisions(start int, keys []key) {
	taken := make(map[string]bool, len(keys))
	for _, k := range keys {
		if !k.changed {
			lit := w.out[k.start+1 : k.end-1]
			taken[string(unquote(nil, string(lit)))] = true
		}
	}
	type fix struct {
		k    key
		name string
	}
	var fixes []fix
	nm := namer{r: w.r}
	for _, k := range keys {
		if !k.changed {
			continue
		}
		name := nm.free(nil, k.name, func(n string) bool { return taken[n] })
		taken[name] = true
		if name != k.name {
			fixes = append(fixes, fix{k, name})
		}
	}
	if len(fixes) == 0 {
		return
	}
	obj := bytes.Clone(w.out[start:])
	w.out = w.out[:start]
	prev := start
	for _, f := range fixes {
		w.out = append(w.out, obj[prev-start:f.k.start-start]...)
		w.out = appendQuoted(w.out, f.name)
		prev = f.k.end
	}
	w.out = append(w.out, obj[prev-start:]...)
}

// namer gives redacted keys that collide free names: base, or base with
// the first suffix "#2", "#3"… that is not taken and forms no secret. It
// remembers where it stopped for each base, so naming n colliding keys
// takes O(n), not O(n²): an agent controls the keys.
type namer struct {
	r    *table
	next map[namerKey]int
}

type namerKey struct {
	typ  reflect.Type // of a map key; nil in JSON
	base string
}

// free returns a free name for base; taken must stay true for every name
// it returned before. base is String's output, so it holds no secret.
func (n *namer) free(typ reflect.Type, base string, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	k := namerKey{typ, base}
	if n.next == nil {
		n.next = make(map[namerKey]int)
	}
	for i := max(n.next[k], 2); ; i++ {
		c := base + "#" + strconv.Itoa(i)
		if !taken(c) && n.r.String(c) == c {
			n.next[k] = i + 1
			return c
		}
	}
}

// str copies the string at w.pos, redacted. It returns the redacted,
// decoded string, and whether redacting changed it.
func (w *rewriter) str() (string, bool) {
	i := w.pos
	end, escaped := stringEnd(w.in, i)
	lit := w.in[i+1 : end]
	w.pos = end + 1
	var s string
	if escaped {
		w.buf = unquote(slices.Grow(w.buf[:0], len(lit)), lit)
		s = string(w.buf)
	} else {
		s = string(lit)
	}
	red := w.r.String(s)
	if red == s {
		w.out = append(w.out, w.in[i:end+1]...)
		return "", false
	}
	w.out = appendQuoted(w.out, red)
	w.changed = true
	return red, true
}

// unquote appends to dst the decoded content of a JSON string literal,
// lit, without its quotes; lit must be valid. Like encoding/json, it turns
// an escaped lone surrogate into U+FFFD, and it keeps invalid UTF-8 bytes
// as they are.
func unquote[T string | []byte](dst []byte, lit T) []byte {
	dst, _ = unescape(dst, lit, false)
	return dst
}

// hex4 decodes four hex digits.
func hex4[T string | []byte](h T) rune {
	var r rune
	for i := range 4 {
		c := h[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s to dst as a JSON string.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s, false)
	return append(dst, '"')
}

// appendEscaped appends s to dst escaped for a JSON string, without the
// quotes: only " \ and control characters are escaped, or with ascii also
// DEL and every non-ASCII character (as \uXXXX, in surrogate pairs beyond
// U+FFFF). Invalid UTF-8 bytes are kept as they are.
func appendEscaped(dst []byte, s string, ascii bool) []byte {
	for i := 0; i < len(s); {
		if !ascii {
			// Copy the run that needs no escape at once.
			j := i
			for j < len(s) && s[j] >= 0x20 && s[j] != '"' && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			if i = j; i == len(s) {
				break
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			case c < 0x20 || ascii && c == 0x7f:
				dst = appendU(dst, rune(c))
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !ascii || r == utf8.RuneError && size == 1:
			dst = append(dst, s[i:i+size]...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			dst = appendU(appendU(dst, r1), r2)
		default:
			dst = appendU(dst, r)
		}
		i += size
	}
	return dst
}

// appendU appends \uXXXX for r, at most U+FFFF.
func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
