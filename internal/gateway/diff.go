package gateway

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
)

// excerptLen is how many characters of a value a divergence shows.
const excerptLen = 80

// diffRequest compares got with rec, a recorded request, both normalised
// and redacted: "" when they match, else the first field that differs,
// "FIELD: recorded X, received Y". The fields are the method, the path,
// the query, then the body's, in key order, named as in
// "messages[2].content[0].text". Both are redacted with the attempt's
// secrets, so a recorded redact.Marker matches only a marker: a secret
// redacted in the request received (whatever its value on this machine),
// never other text, which would hide a changed prompt or model. The
// excerpts, cut to excerptLen characters, are redacted with red knowing
// the whole value (redact.Redactor.Excerpt): no part of a secret a cut
// goes through is shown, though the message is redacted again, whole,
// where it is written. red nil shows the cuts as they are.
func diffRequest(rec, got *request, red *redact.Redactor) string {
	d := differ{red}
	switch {
	case rec.Method != got.Method:
		return differs("method", d.show(rec.Method), d.show(got.Method))
	case rec.Path != got.Path:
		return differs("path", d.show(rec.Path), d.show(got.Path))
	case rec.Query != got.Query:
		return differs("query", d.show(rec.Query), d.show(got.Query))
	}
	if len(rec.Body) == 0 || len(got.Body) == 0 {
		if len(rec.Body) == len(got.Body) {
			return ""
		}
		return differs("body", d.show(decode(rec.Body)), d.show(decode(got.Body)))
	}
	return d.diffValue("", decode(rec.Body), decode(got.Body))
}

// differ compares two requests (see diffRequest); red redacts the cuts of
// what it shows of them.
type differ struct {
	red *redact.Redactor
}

// differs is the message for a field that differs.
func differs(field, rec, got string) string {
	return cmp.Or(field, "body") + ": recorded " + rec + ", received " + got
}

// absent stands for a value that is not there.
type absent struct{}

// decode is raw decoded, numbers as json.Number; absent for nothing.
func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return absent{}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return string(raw)
	}
	return v
}

// diffValue compares got with rec at field: "" when they match, else the
// first difference.
func (d differ) diffValue(field string, rec, got any) string {
	switch r := rec.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := slices.AppendSeq(slices.Collect(maps.Keys(r)), maps.Keys(g))
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			if dv := d.diffValue(member(field, k), valueAt(r, k), valueAt(g, k)); dv != "" {
				return dv
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		for i := range max(len(r), len(g)) {
			if dv := d.diffValue(field+"["+strconv.Itoa(i)+"]", elemAt(r, i), elemAt(g, i)); dv != "" {
				return dv
			}
		}
		return ""
	case string:
		g, ok := got.(string)
		if !ok {
			break
		}
		if r == g {
			return ""
		}
		rs, gs := d.excerptPair(r, g)
		return differs(field, rs, gs)
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(r, g) {
			return ""
		}
	default:
		if rec == got {
			return ""
		}
	}
	return differs(field, d.show(rec), d.show(got))
}

// valueAt is m[k], absent when m has no k.
func valueAt(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return absent{}
}

// elemAt is s[i], absent past the end of s.
func elemAt(s []any, i int) any {
	if i < len(s) {
		return s[i]
	}
	return absent{}
}

// member names key of the object at field.
func member(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// sameNumber reports whether two JSON numbers are the same number.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	af, err1 := a.Float64()
	bf, err2 := b.Float64()
	return err1 == nil && err2 == nil && af == bf
}

// show is a value in a message: JSON, cut to excerptLen characters;
// "nothing" for absent.
func (d differ) show(v any) string {
	if _, ok := v.(absent); ok {
		return "nothing"
	}
	text := string(encode(v))
	return d.cut(text, 0)
}

// cut is text[start:] cut to excerptLen characters, with "…" where text
// was left out after it, redacted knowing the whole text.
func (d differ) cut(text string, start int) string {
	end, n := start, 0
	for end < len(text) && n < excerptLen {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
		n++
	}
	shown := d.red.Excerpt(text, start, end, false)
	if end < len(text) {
		shown += "…"
	}
	return shown
}

// excerptPair shows two strings that differ around where they first
// differ: when that is far in, both start a little before it.
func (d differ) excerptPair(rec, got string) (string, string) {
	r, g := []rune(rec), []rune(got)
	same := 0
	for same < len(r) && same < len(g) && r[same] == g[same] {
		same++
	}
	from := 0
	if same > excerptLen/2 {
		from = same - excerptLen*3/8
	}
	return d.excerpt(r, from), d.excerpt(g, from)
}

// excerpt is s[from:] as a JSON string cut to excerptLen characters, with
// "…" where text was left out.
func (d differ) excerpt(s []rune, from int) string {
	q := inner(encode(string(s)))
	start := len(inner(encode(string(s[:from])))) // each character is escaped on its own
	shown := d.cut(q, start)
	if from > 0 {
		shown = "…" + shown
	}
	return `"` + shown + `"`
}

// inner is the content of an encoded JSON string, without its quotes.
func inner(q []byte) string { return string(q[1 : len(q)-1]) }
