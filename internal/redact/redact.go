// Package redact removes secrets from everything acprun writes: results
// JSON, JUnit, JSONL events, GitHub annotations and step summary, stderr
// and transcripts.
//
// A [Redactor] holds the secrets and replaces each occurrence with
// [Marker]. It works on plain text ([Redactor.String]), on JSON text
// ([Redactor.JSON]: strings and object keys are decoded, redacted and
// re-encoded, so the result stays valid JSON and an escaped secret such as
// "\u0067hp_…" is found too) and on Go values ([Redactor.Value]: a
// reflection walk over every exported field, element, map key and map
// value, so no field can be forgotten).
//
// Values too short or too common to be secrets are never treated as
// secrets (see [New]), so an environment such as CI=true cannot turn every
// "true" into [Marker].
package redact

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"
)

// Marker replaces every secret.
const Marker = "[REDACTED]"

// Redactor replaces secrets in text, JSON and Go values. It does not change
// after New, so one Redactor may be used by many goroutines at once. A nil
// or empty Redactor redacts nothing, cheaply.
type Redactor struct {
	// forms holds every form of every secret that is looked for in text:
	// the secret itself and its escaped forms, longest first.
	forms []string
}

// New returns a Redactor for secrets. Values unfit to be secrets are
// dropped: after trimming surrounding white space, a value is dropped when
// it has fewer than 4 characters; is a boolean or null word in any case
// (true, false, yes, no, on, off, null, none) or part of a JSON literal
// (true, false, null); is made only of digits, white space and the
// characters + - . e E { } [ ] , : " (numbers, dates, versions, JSON
// punctuation), which JSON can hold outside strings; or occurs in Marker.
//
// A value with surrounding white space is also looked for trimmed, and each
// line of a multi-line value (a PEM key, say) is looked for on its own.
// Besides its raw form, each secret is looked for in the forms it takes
// when quoted: JSON-escaped (with and without Go's HTML escaping of < > &,
// and with non-ASCII characters as \uXXXX, as Python writes it) and Go
// quoted (%q).
func New(secrets ...string) *Redactor {
	seen := make(map[string]bool)
	r := &Redactor{}
	add := func(v string) {
		if !fit(v) {
			return
		}
		for _, f := range quotedForms(v) {
			if !seen[f] {
				seen[f] = true
				r.forms = append(r.forms, f)
			}
		}
	}
	for _, s := range secrets {
		add(s)
		add(strings.TrimSpace(s))
		if strings.Contains(s, "\n") {
			for line := range strings.SplitSeq(s, "\n") {
				add(strings.TrimSpace(line))
			}
		}
	}
	sortLongestFirst(r.forms)
	return r
}

// secretName matches environment variable names that hold secrets.
// It is compiled on first use, not at every start of acprun.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(key|token|secret|passw|credential|auth|cookie|session)`)
})

// Secrets returns the values worth redacting for one scenario, longest
// first and without duplicates: every value of the agent's env, and the
// values of secret-looking variables (names matching key, token, secret,
// passw, credential, auth, cookie or session, in any case) of environ, the
// environment acprun passes on, as "NAME=value" strings. Values unfit to
// be secrets (see New) are left out, and so are environ values shorter
// than 8 characters: variables such as XDG_SESSION_TYPE=x11 match the
// names but hold nothing secret.
func Secrets(env map[string]string, environ []string) []string {
	var out []string
	for _, v := range env {
		if fit(v) {
			out = append(out, v)
		}
	}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if secretName().MatchString(k) && utf8.RuneCountInString(strings.TrimSpace(v)) >= 8 && fit(v) {
			out = append(out, v)
		}
	}
	sortLongestFirst(out)
	return slices.Compact(out)
}

// tooCommon lists values that are never secrets, compared in any case.
var tooCommon = []string{"true", "false", "yes", "no", "on", "off", "null", "none"}

// notText holds the characters JSON can hold outside strings: a value made
// only of them is a number, a date, a version or punctuation.
const notText = "0123456789+-.eE{}[],:\" \t\r\n"

// fit reports whether v can be a secret (see New).
func fit(v string) bool {
	v = strings.TrimSpace(v)
	if utf8.RuneCountInString(v) < 4 || strings.Contains(Marker, v) || strings.Trim(v, notText) == "" {
		return false
	}
	lower := strings.ToLower(v)
	for _, w := range tooCommon {
		if lower == w {
			return false
		}
	}
	for _, lit := range []string{"true", "false", "null"} {
		if strings.Contains(lit, lower) {
			return false
		}
	}
	return true
}

// quotedForms returns v and the forms it takes when quoted, without
// duplicates. Every form but v itself has a backslash, so none occurs in
// Marker.
func quotedForms(v string) []string {
	forms := []string{v, string(appendEscaped(nil, v, false)), string(appendEscaped(nil, v, true))}
	if q, err := json.Marshal(v); err == nil {
		forms = append(forms, string(q[1:len(q)-1]))
	}
	q := strconv.Quote(v)
	forms = append(forms, q[1:len(q)-1])
	slices.Sort(forms)
	return slices.Compact(forms)
}

// sortLongestFirst sorts s longest first, then in byte order, so that the
// order does not depend on the order of the input.
func sortLongestFirst(s []string) {
	slices.SortFunc(s, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
}

func (r *Redactor) empty() bool { return r == nil || len(r.forms) == 0 }

// maxPasses bounds the passes String makes until nothing is left to
// replace.
const maxPasses = 8

// String returns s with every occurrence of a secret replaced by Marker.
// Secrets are found in their raw and quoted forms (see New), and inside
// every JSON string literal of s that has escapes, decoded: in a log line
// such as {"token":"\u0067hp_…"} the literal's content is replaced by its
// redacted form. Occurrences that overlap are replaced by one Marker, so
// no part of a secret is left behind, and the result contains no secret
// even where a replacement and the text around it would form one. String
// returns s itself when s holds no secret.
func (r *Redactor) String(s string) string {
	if r.empty() {
		return s
	}
	for range maxPasses {
		t, changed := r.once(s)
		if !changed {
			return s
		}
		s = t
	}
	// Replacements keep forming new secrets: give nothing away.
	return Marker
}

// span is a part of a text to replace, [start, end), by repl.
type span struct {
	start, end int
	repl       string
}

// once makes one pass of String.
func (r *Redactor) once(s string) (string, bool) {
	var spans []span
	for _, f := range r.forms {
		last := -1 // spans[last] is the last span of f
		for i := 0; ; {
			j := strings.Index(s[i:], f)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(f)
			if last >= 0 && start < spans[last].end {
				spans[last].end = end // overlaps the last: one span
			} else {
				last = len(spans)
				spans = append(spans, span{start, end, Marker})
			}
			// Step by one byte, so that overlapping occurrences are all
			// covered.
			i = start + 1
		}
	}
	if strings.IndexByte(s, '\\') >= 0 && strings.IndexByte(s, '"') >= 0 {
		spans = r.literalSpans(s, spans)
	}
	if len(spans) == 0 {
		return s, false
	}
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	var b strings.Builder
	b.Grow(len(s))
	cur := spans[0]
	prev := 0
	flush := func() {
		b.WriteString(s[prev:cur.start])
		b.WriteString(cur.repl)
		prev = cur.end
	}
	for _, sp := range spans[1:] {
		if sp.start < cur.end {
			// Overlapping parts merge into one Marker.
			cur.end = max(cur.end, sp.end)
			cur.repl = Marker
			continue
		}
		flush()
		cur = sp
	}
	flush()
	b.WriteString(s[prev:])
	return b.String(), true
}

// literalSpans appends to spans the content of every JSON string literal
// of s that has escapes and holds a secret once decoded, to be replaced by
// its redacted form.
//
// A literal is tried from every quote not preceded by a backslash, so one
// stray quote cannot hide the literals after it. A literal ends at the
// first such quote at the latest, so the text is read about once.
func (r *Redactor) literalSpans(s string, spans []span) []span {
	var buf []byte
	for i := strings.IndexByte(s, '"'); i >= 0 && i < len(s); {
		if i == 0 || s[i-1] != '\\' {
			if end, escaped, ok := scanLiteral(s, i); ok && escaped {
				buf = unquote(buf[:0], s[i+1:end])
				dec := string(buf)
				if red := r.String(dec); red != dec {
					spans = append(spans, span{i + 1, end, string(appendEscaped(nil, red, false))})
				}
			}
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return spans
}

// Unfinished returns the length of the longest end of s that begins a
// secret (in one of its forms) without finishing it: the part of a text
// still arriving that must be held back until what follows is known, for
// redacting what comes before it and what comes after separately cannot
// find a secret split between them. Redact s first: a whole secret inside
// it is not looked for. It is 0 when no secret can start in s's end.
func (r *Redactor) Unfinished(s string) int {
	if r.empty() {
		return 0
	}
	n := 0
	for _, f := range r.forms {
		n = max(n, overlap(s, f))
	}
	return n
}

// overlap is the length of the longest end of s that is a proper prefix of
// f (Knuth–Morris–Pratt: the failure function of f, then s's last
// len(f)-1 bytes run through it).
func overlap(s, f string) int {
	if len(f) < 2 {
		return 0
	}
	fail := make([]int, len(f))
	for i, k := 1, 0; i < len(f); i++ {
		for k > 0 && f[i] != f[k] {
			k = fail[k-1]
		}
		if f[i] == f[k] {
			k++
		}
		fail[i] = k
	}
	k := 0
	for i := max(len(s)-(len(f)-1), 0); i < len(s); i++ {
		for k > 0 && (k == len(f) || s[i] != f[k]) {
			k = fail[k-1]
		}
		if s[i] == f[k] {
			k++
		}
	}
	if k == len(f) {
		k = fail[k-1]
	}
	return k
}

// Pattern matches the texts that s, a redacted text, could have been: each
// Marker in s stands for one or more characters, the rest for itself. A
// replay compares what it receives with what it recorded so.
func Pattern(s string) *regexp.Regexp {
	parts := strings.Split(s, Marker)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(parts, ".+?") + `\z`)
}
