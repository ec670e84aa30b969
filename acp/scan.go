package acp

import (
	"encoding/json"
	"unicode/utf8"
)

// scanMaxDepth is the deepest nesting scan handles itself; deeper input goes
// to encoding/json, which has its own limit.
const scanMaxDepth = 1000

// scan decodes the members of one JSON-RPC message into w in a single
// validating pass over line, without reflection. encoding/json takes three
// passes (validate, decode, copy the raw members) and was the reader's main
// cost. scan handles valid JSON whose top-level member names are plain
// lowercase ASCII, and reports false for anything else (invalid JSON, an
// escaped or upper-case member name, a "method" that is not a string, very
// deep nesting), which decode then hands to encoding/json: so the result is
// always the one json.Unmarshal gives, and so are the errors.
func (d *decoder) scan(line []byte, w *wireMsg) bool {
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipWS(line, i+1)
	if i < len(line) && line[i] == '}' {
		return skipWS(line, i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return false
		}
		end, plain, ok := skipString(line, i)
		if !ok || !plain {
			return false
		}
		key := line[i+1 : end-1]
		i = skipWS(line, end)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		start := skipWS(line, i+1)
		if i, ok = d.skipValue(line, start); !ok {
			return false
		}
		if !d.member(w, key, line[start:i]) {
			return false
		}
		i = skipWS(line, i)
		switch {
		case i >= len(line):
			return false
		case line[i] == '}':
			return skipWS(line, i+1) == len(line)
		case line[i] != ',':
			return false
		}
		i = skipWS(line, i+1)
	}
}

// member stores one top-level member the way json.Unmarshal into wireMsg
// does; false means scan cannot tell (see scan).
func (d *decoder) member(w *wireMsg, key, val []byte) bool {
	switch string(key) {
	case "jsonrpc":
		_ = w.JSONRPC.UnmarshalJSON(val)
	case "id":
		w.ID = append(json.RawMessage(nil), val...)
	case "method":
		return val[0] == '"' && w.Method.UnmarshalJSON(val) == nil
	case "params":
		w.Params = append(json.RawMessage(nil), val...)
	case "result":
		w.Result = append(json.RawMessage(nil), val...)
	case "error":
		w.Error = append(json.RawMessage(nil), val...)
	default:
		// encoding/json matches member names without regard to case.
		for _, c := range key {
			if 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

// skipValue returns the index just after the JSON value that starts at
// b[i], and whether it is valid JSON (nested at most scanMaxDepth deep).
func (d *decoder) skipValue(b []byte, i int) (int, bool) {
	stack := d.stack[:0] // the open containers: '{' or '['
	defer func() { d.stack = stack }()
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return i, false
		}
		ok := true
		switch c := b[i]; c {
		case '{', '[':
			j := skipWS(b, i+1)
			if j < len(b) && b[j] == c+2 { // '}' or ']': empty
				i = j + 1
				break
			}
			if len(stack) == scanMaxDepth {
				return i, false
			}
			stack = append(stack, c)
			if c == '{' {
				if j, ok = skipKey(b, j); !ok {
					return j, false
				}
			}
			i = j
			continue
		case '"':
			i, _, ok = skipString(b, i)
		case 't':
			i, ok = skipLiteral(b, i, "true")
		case 'f':
			i, ok = skipLiteral(b, i, "false")
		case 'n':
			i, ok = skipLiteral(b, i, "null")
		default:
			i, ok = skipNumber(b, i)
		}
		if !ok {
			return i, false
		}
		// A value ended: close containers, or move to the next element.
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return i, false
			}
			top := stack[len(stack)-1]
			if b[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return i, false
			}
			i = skipWS(b, i+1)
			if top == '{' {
				if i, ok = skipKey(b, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// skipWS returns the index of the first byte at or after i that is not JSON
// whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipKey skips a member name and its colon, and the whitespace after.
func skipKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, _, ok := skipString(b, i)
	if !ok {
		return i, false
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipWS(b, i+1), true
}

// skipString returns the index just after the JSON string starting at
// b[i] == '"', whether it is valid, and whether it has no escapes.
func skipString(b []byte, i int) (end int, plain, ok bool) {
	plain = true
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return i, false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return i, false, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return i, false, false
					}
				}
				i += 4
			default:
				return i, false, false
			}
		case c < 0x20:
			return i, false, false
		}
	}
	return i, false, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipNumber returns the index just after the JSON number starting at b[i],
// and whether there is one.
func skipNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, true
}

// skipLiteral returns the index just after lit at b[i], and whether it is
// there.
func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}
