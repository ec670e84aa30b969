package report

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// longText is the length from which a turn's text, thoughts, late text or
// late thoughts is written from the string itself instead of marshalled.
const longText = 64 << 10

// textPiece is how much of a long text is escaped at a time.
const textPiece = 32 << 10

// longTexts writes the long texts of turns into the results JSON without
// marshalling them: encoding/json marshals a whole value into one buffer
// before writing any of it, which for a turn of a flood is another copy of
// its text (and, while the buffer grows, two). swap replaces each long
// text with a token; the splicer, which the encoder writes to, replaces
// each token with the text, escaped as encoding/json escapes strings, a
// piece at a time. The output is byte for byte what marshalling gives.
//
// A token is a string no agent can send: it holds a NUL (escaped \\u0000)
// and a random nonce drawn for each write, which never reaches the output.
type longTexts struct {
	prefix []byte   // a token's JSON up to its index: "\\u0000acprun-text:NONCE:
	texts  []string // by index
}

func newLongTexts() (*longTexts, error) {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return &longTexts{prefix: []byte(`"\u0000acprun-text:` + hex.EncodeToString(nonce[:]) + ":")}, nil
}

// token returns the token of text i, as a Go string.
func (lt *longTexts) token(i int) string {
	// prefix without its quote, with \u0000 as the NUL it encodes
	return "\x00" + string(lt.prefix[len(`"\u0000`):]) + strconv.Itoa(i)
}

// put returns s, or the token of s when s is long.
func (lt *longTexts) put(s string) string {
	if len(s) < longText {
		return s
	}
	lt.texts = append(lt.texts, s)
	return lt.token(len(lt.texts) - 1)
}

// swap returns scenarios with their long texts replaced by tokens. It
// copies what it changes: scenarios is not modified.
func (lt *longTexts) swap(scenarios []Result) []Result {
	var out []Result
	for i := range scenarios {
		var turns []TurnResult
		for j := range scenarios[i].Turns {
			t := &scenarios[i].Turns[j]
			if max(len(t.Text), len(t.Thoughts), len(t.LateText), len(t.LateThoughts)) < longText {
				continue
			}
			if turns == nil {
				turns = append([]TurnResult(nil), scenarios[i].Turns...)
			}
			c := &turns[j]
			c.Text, c.Thoughts, c.LateText, c.LateThoughts = lt.put(c.Text), lt.put(c.Thoughts), lt.put(c.LateText), lt.put(c.LateThoughts)
		}
		if turns == nil {
			continue
		}
		if out == nil {
			out = append([]Result(nil), scenarios...)
		}
		out[i].Turns = turns
	}
	if out == nil {
		return scenarios
	}
	return out
}

// splicer passes what the encoder writes on to w with each token replaced
// by its text. An Encoder writes each value whole, in one Write, so a
// token is never split between two writes.
type splicer struct {
	w       io.Writer
	lt      *longTexts
	scratch bytes.Buffer
}

func (s *splicer) Write(p []byte) (int, error) {
	n := len(p)
	for len(s.lt.texts) > 0 {
		at := bytes.Index(p, s.lt.prefix)
		if at < 0 {
			break
		}
		rest := p[at+len(s.lt.prefix):]
		end := bytes.IndexByte(rest, '"')
		i, err := strconv.Atoi(string(rest[:max(end, 0)]))
		if end < 0 || err != nil || i < 0 || i >= len(s.lt.texts) {
			return 0, fmt.Errorf("results: a long text's token is cut short")
		}
		if _, err := s.w.Write(p[:at]); err != nil {
			return 0, err
		}
		if err := s.writeString(s.lt.texts[i]); err != nil {
			return 0, err
		}
		p = rest[end+1:]
	}
	if _, err := s.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// writeString writes text as a JSON string, as an Encoder without HTML
// escaping writes it, a piece at a time. Pieces end before a byte that
// starts a UTF-8 sequence, so that invalid UTF-8 is replaced as it would
// be in one piece.
func (s *splicer) writeString(text string) error {
	enc := json.NewEncoder(&s.scratch)
	enc.SetEscapeHTML(false)
	if _, err := io.WriteString(s.w, `"`); err != nil {
		return err
	}
	for len(text) > 0 {
		k := min(len(text), textPiece)
		for k < len(text) && !utf8.RuneStart(text[k]) {
			k++
		}
		s.scratch.Reset()
		if err := enc.Encode(text[:k]); err != nil {
			return err
		}
		b := s.scratch.Bytes()
		if _, err := s.w.Write(b[1 : len(b)-2]); err != nil { // without the quotes and newline
			return err
		}
		text = text[k:]
	}
	_, err := io.WriteString(s.w, `"`)
	return err
}
