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
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/shellquote"
)

// Marker replaces every secret.
const Marker = "[REDACTED]"

// Redactor replaces secrets in text, JSON and Go values. Many goroutines
// may use one Redactor at once, and Add may add secrets to it meanwhile: a
// secret learnt while acprun runs (an API key the model gateway sees an
// agent send) is redacted from what is written after. A nil or empty
// Redactor redacts nothing, cheaply.
type Redactor struct {
	// tab holds the secrets looked for. Add replaces it with a larger
	// one; a table never changes once stored.
	tab atomic.Pointer[table]
	// adding serialises Add.
	adding sync.Mutex
	// notSecret is NewExcept's, for the values Add takes too.
	notSecret func(string) bool
}

// table is the secrets a Redactor looks for, and how it looks for them.
type table struct {
	// forms holds every form of every secret that is looked for in text:
	// the secret itself and its escaped forms, longest first.
	forms []string
	// fails holds the failure function of each form (see overlap).
	fails [][]int
	// values holds the secrets kept, as given (see Values).
	values []string
}

// New returns a Redactor for secrets. Values unfit to be secrets are
// dropped: after trimming surrounding white space, a value is dropped when
// it has fewer than 4 characters; is a boolean or null word in any case
// (true, false, yes, no, on, off, null, none), or a common value of a
// mode or log-level variable in any case (test, testing, dev, develop,
// development, prod, production, stage, staging, release, local, default,
// ci, trace, debug, verbose, info, warn, warning, error, fatal), or part of a JSON literal
// (true, false, null); is made only of digits, white space and the
// characters + - . e E { } [ ] , : " (numbers, dates, versions, JSON
// punctuation), which JSON can hold outside strings; or occurs in Marker.
//
// A value with surrounding white space is also looked for trimmed, and each
// line of a multi-line value (a PEM key, say) is looked for on its own.
// Besides its raw form, each secret is looked for in the forms it takes
// when quoted (QuotedForms), and in the form acprun's shell quoting gives
// it inside a word (shellquote.Quoted) with that form's quoted forms: a
// line acprun writes from an argv or env (a permission's commands, a
// terminal's command line, an agent command) is redacted as its words
// would be, whatever the policy matched it against.
func New(secrets ...string) *Redactor {
	return NewExcept(nil, secrets...)
}

// NewExcept is New without the values that notSecret reports: a secret,
// its trimmed form or a line of a multi-line one for which notSecret
// returns true is not looked for. A nil notSecret drops nothing more than
// New does.
func NewExcept(notSecret func(string) bool, secrets ...string) *Redactor {
	r := &Redactor{notSecret: notSecret}
	r.Add(secrets...)
	return r
}

// Add adds secrets to r, taken as NewExcept takes them (the values unfit
// to be secrets, those r's notSecret reports and those r has already are
// dropped): what r redacts once Add returns is redacted of them too. A nil
// r takes nothing.
func (r *Redactor) Add(secrets ...string) {
	if r == nil {
		return
	}
	r.adding.Lock()
	defer r.adding.Unlock()
	if t := r.load().with(r.notSecret, secrets); t != nil {
		r.tab.Store(t)
	}
}

// load returns the secrets r holds now; nil for none.
func (r *Redactor) load() *table {
	if r == nil {
		return nil
	}
	return r.tab.Load()
}

// with returns a table of the values of t (which may be nil) and of
// secrets, as NewExcept takes them; nil when secrets add none.
func (t *table) with(notSecret func(string) bool, secrets []string) *table {
	var values []string
	if t != nil {
		values = slices.Clone(t.values)
	}
	had := len(values)
	add := func(v string) {
		if fit(v) && (notSecret == nil || !notSecret(v)) && !slices.Contains(values, v) {
			values = append(values, v)
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
	if len(values) == had {
		return nil
	}
	nt := &table{values: values}
	seen := make(map[string]bool)
	for _, v := range values {
		for _, f := range secretForms(v) {
			if !seen[f] {
				seen[f] = true
				nt.forms = append(nt.forms, f)
			}
		}
	}
	sortLongestFirst(nt.forms)
	for _, f := range nt.forms {
		nt.fails = append(nt.fails, failure(f))
	}
	return nt
}

// Values is Redactor.Values of the secrets of r.
func (r *table) Values() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.values)
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

// tooCommon lists values that are never secrets, compared in any case:
// booleans and null words, and the common values of the variables that
// name a mode, an environment or a log level (NODE_ENV=test,
// RAILS_ENV=production, LOG_LEVEL=debug). Each is a word anyone would
// guess first, so none can be a secret, and redacting one would rewrite
// ordinary text ("go test", "All tests pass") in every output.
var tooCommon = []string{
	"true", "false", "yes", "no", "on", "off", "null", "none",
	"test", "testing", "dev", "develop", "development", "prod", "production", "stage", "staging",
	"release", "local", "default", "ci",
	"trace", "debug", "verbose", "info", "warn", "warning", "error", "fatal",
}

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
	partOfLiteral := func(lit string) bool { return strings.Contains(lit, lower) }
	return !slices.Contains(tooCommon, lower) && !slices.ContainsFunc([]string{"true", "false", "null"}, partOfLiteral)
}

// QuotedForms returns v and the forms it takes inside a quoted string,
// without the quotes and without duplicates: JSON-escaped (with and without
// Go's HTML escaping of < > & as \u003c \u003e \u0026, and with non-ASCII
// characters as \uXXXX, as Python writes it), each also with "/" as "\/"
// (as PHP writes it), and Go quoted (%q). The forms but v itself have a
// backslash, so none occurs in Marker. The model gateway finds paths in
// the answers it keeps by these forms too.
func QuotedForms(v string) []string {
	forms := []string{v, string(appendEscaped(nil, v, false)), string(appendEscaped(nil, v, true))}
	if q, err := json.Marshal(v); err == nil {
		forms = append(forms, string(q[1:len(q)-1]))
	}
	for _, f := range forms[1:] { // the JSON forms
		if strings.Contains(f, "/") {
			forms = append(forms, strings.ReplaceAll(f, "/", `\/`))
		}
	}
	q := strconv.Quote(v)
	forms = append(forms, q[1:len(q)-1])
	slices.Sort(forms)
	return slices.Compact(forms)
}

// secretForms returns the forms of secret v that are looked for in text:
// its QuotedForms, and those of its shell-quoted form when that differs.
func secretForms(v string) []string {
	forms := QuotedForms(v)
	if q := shellquote.Quoted(v); q != v {
		forms = append(forms, QuotedForms(q)...)
	}
	return forms
}

// sortLongestFirst sorts s longest first, then in byte order, so that the
// order does not depend on the order of the input.
func sortLongestFirst(s []string) {
	slices.SortFunc(s, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
}

func (r *table) empty() bool { return r == nil || len(r.forms) == 0 }

// maxPasses bounds the passes String makes until nothing is left to
// replace.
const maxPasses = 8

// String is Redactor.String of the secrets of r.
func (r *table) String(s string) string {
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

// span is a part of a text to replace, [start, end), by Marker.
type span struct {
	start, end int
}

// once makes one pass of String.
func (r *table) once(s string) (string, bool) {
	spans := r.spansIn(s, maxUnescapes)
	if len(spans) == 0 {
		return s, false
	}
	return replace(s, spans), true
}

// replace returns s with each of spans replaced by Marker; spans that
// overlap are replaced by one.
func replace(s string, spans []span) string {
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	var b strings.Builder
	b.Grow(len(s))
	cur := spans[0]
	prev := 0
	flush := func() {
		b.WriteString(s[prev:cur.start])
		b.WriteString(Marker)
		prev = cur.end
	}
	for _, sp := range spans[1:] {
		if sp.start < cur.end {
			// Overlapping parts merge into one Marker.
			cur.end = max(cur.end, sp.end)
			continue
		}
		flush()
		cur = sp
	}
	flush()
	b.WriteString(s[prev:])
	return b.String()
}

// formSpans appends to spans every occurrence in s of a secret, in one of
// its forms; occurrences of one form that overlap make one span.
func (r *table) formSpans(s string, spans []span) []span {
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
				spans = append(spans, span{start, end})
			}
			// Step by one byte, so that overlapping occurrences are all
			// covered.
			i = start + 1
		}
	}
	return spans
}

// escapedSpans appends to spans the parts of s that hold a secret once
// their escapes are decoded (see unescape): JSON's escapes, wherever they
// are, so that neither a log line that is not JSON or was cut short, nor
// an odd mix of escaped and plain characters, hides a secret. Text escaped
// again (JSON in a JSON string) is decoded again, up to depth times. Each
// span covers whole escapes.
func (r *table) escapedSpans(s string, spans []span, depth int) []span {
	dec, _ := unescape(nil, s, false)
	if string(dec) == s {
		return spans
	}
	found := r.spansIn(string(dec), depth-1)
	if len(found) == 0 {
		return spans
	}
	_, from := unescape(nil, s, true) // the same text, with where each byte comes from
	for _, f := range found {
		end := len(s)
		for j := f.end; j < len(from); j++ {
			if from[j] > from[f.end-1] {
				end = from[j]
				break
			}
		}
		spans = append(spans, span{from[f.start], end})
	}
	return spans
}

// maxUnescapes bounds how many times escapedSpans decodes a text.
const maxUnescapes = 4

// spansIn returns the spans of s that hold a secret: in one of its forms,
// or (depth > 0) once s's escapes are decoded, or once its single quotes
// are read as a shell reads them (see shellSpans).
func (r *table) spansIn(s string, depth int) []span {
	spans := r.formSpans(s, nil)
	if depth > 0 && strings.IndexByte(s, '\\') >= 0 {
		spans = r.escapedSpans(s, spans, depth)
	}
	if depth > 0 && strings.IndexByte(s, '\'') >= 0 {
		spans = r.shellSpans(s, spans, depth)
	}
	return spans
}

// unescape appends to b s with its JSON escapes decoded (\" \\ \/ \b \f \n
// \r \t and \uXXXX, surrogate pairs too); a backslash that begins none
// stands for itself. With offsets it also returns, for each byte appended,
// the index in s of the escape or byte it comes from.
func unescape[T string | []byte](b []byte, s T, offsets bool) ([]byte, []int) {
	var from []int
	for i := 0; i < len(s); {
		start := i
		c := s[i]
		n := 1
		if c == '\\' && i+1 < len(s) {
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				c, n = e, 2
			case 'b':
				c, n = '\b', 2
			case 'f':
				c, n = '\f', 2
			case 'n':
				c, n = '\n', 2
			case 'r':
				c, n = '\r', 2
			case 't':
				c, n = '\t', 2
			case 'u':
				if rn, size := unescapeU(s[i:]); size > 0 {
					k := len(b)
					b = utf8.AppendRune(b, rn)
					for range len(b) - k {
						from = appendIf(from, offsets, start)
					}
					i += size
					continue
				}
			}
		}
		b = append(b, c)
		from = appendIf(from, offsets, start)
		i += n
	}
	return b, from
}

// unescapeU decodes the \uXXXX escape (or surrogate pair of them) at the
// start of s, returning its size; 0 when s starts with none.
func unescapeU[T string | []byte](s T) (rune, int) {
	if len(s) < 6 || hex4(s[2:6]) < 0 {
		return 0, 0
	}
	rn := hex4(s[2:6])
	if !utf16.IsSurrogate(rn) {
		return rn, 6
	}
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' && hex4(s[8:12]) >= 0 {
		if d := utf16.DecodeRune(rn, hex4(s[8:12])); d != utf8.RuneError {
			return d, 12
		}
	}
	return utf8.RuneError, 6
}

func appendIf(s []int, ok bool, v int) []int {
	if ok {
		return append(s, v)
	}
	return s
}

// Pieces is Redactor.Pieces of the secrets of r.
func (r *table) Pieces(pieces []string) (out []string, held int) {
	return r.pieces(pieces, false)
}

// PiecesCutEnd is Redactor.PiecesCutEnd of the secrets of r.
func (r *table) PiecesCutEnd(pieces []string) []string {
	out, _ := r.pieces(pieces, true)
	return out
}

// pieces is Pieces, or PiecesCutEnd with cutEnd.
func (r *table) pieces(pieces []string, cutEnd bool) (out []string, held int) {
	out = make([]string, len(pieces))
	if r.empty() {
		copy(out, pieces)
		return out, 0
	}
	text := strings.Join(pieces, "")
	spans := r.spansIn(text, maxUnescapes)
	if n := r.Unfinished(text); cutEnd && n >= cutMin {
		spans = append(spans, span{len(text) - n, len(text)})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	starts := make([]int, len(pieces)+1) // starts[i]: where piece i starts
	for i, p := range pieces {
		starts[i+1] = starts[i] + len(p)
	}
	// reach[i]: the furthest end of spans[:i+1], so that neither loop
	// below goes through all the spans for each piece (a streamed text
	// may hold a secret in a great many of its pieces).
	reach := make([]int, len(spans))
	for i, sp := range spans {
		reach[i] = sp.end
		if i > 0 {
			reach[i] = max(reach[i], reach[i-1])
		}
	}
	for i := range pieces {
		out[i] = r.String(cutSpans(text, starts[i], starts[i+1], spans, reach))
	}
	if cutEnd {
		return out, 0
	}
	// The first piece held is the one where the unfinished end begins,
	// or a secret that goes on into it does.
	var first int
	for b := len(text) - r.Unfinished(text); ; {
		nb := b
		// The span that starts first of those going on past b: the
		// first that reaches past it, if it starts before it.
		if j, _ := slices.BinarySearch(reach, b+1); j < len(spans) && spans[j].start < nb {
			nb = spans[j].start
		}
		first, _ = slices.BinarySearch(starts[1:], nb+1) // the first piece that ends past nb
		if first < len(pieces) {
			nb = min(nb, starts[first])
		}
		if nb == b {
			break
		}
		b = nb
	}
	return out, len(pieces) - first
}

// cutSpans is text[start:end] with the parts of spans in it replaced: a
// span that starts there by Marker, the rest of one that started before
// by nothing. spans are sorted by their start, and reach[i] is the
// furthest end of spans[:i+1]: it looks only at the spans that start
// there, those before count by the furthest end they reach.
func cutSpans(text string, start, end int, spans []span, reach []int) string {
	var b strings.Builder
	j, _ := slices.BinarySearchFunc(spans, start, func(sp span, t int) int { return cmp.Compare(sp.start, t) })
	at := start
	if j > 0 {
		at = min(max(at, reach[j-1]), end)
	}
	for _, sp := range spans[j:] {
		if sp.start >= end {
			break
		}
		if sp.end <= at {
			continue
		}
		if sp.start >= at {
			b.WriteString(text[at:sp.start])
			b.WriteString(Marker)
		}
		at = min(max(at, sp.end), end)
	}
	b.WriteString(text[at:end])
	return b.String()
}

// cutMin is the fewest bytes of a secret's end that Cut replaces: fewer
// tell less than a value too short to be a secret (see New).
const cutMin = 4

// Cut is Redactor.Cut of the secrets of r.
func (r *table) Cut(s string) string {
	if r.empty() {
		return s
	}
	if n := r.restLen(s); n >= cutMin {
		s = Marker + s[n:]
	}
	return r.String(s)
}

// CutEnd is Redactor.CutEnd of the secrets of r.
func (r *table) CutEnd(s string) string {
	if r.empty() {
		return s
	}
	s = r.String(s)
	if n := r.Unfinished(s); n >= cutMin {
		s = r.String(s[:len(s)-n] + Marker)
	}
	return s
}

// Excerpt is Redactor.Excerpt of the secrets of r.
func (r *table) Excerpt(text string, start, end int, cutStart bool) string {
	if r.empty() || start == end {
		return text[start:end]
	}
	spans := r.spansIn(text, maxUnescapes)
	if n := r.restLen(text); cutStart && n >= cutMin {
		spans = append(spans, span{0, n})
	}
	var in []span
	for _, sp := range spans {
		if sp.start < end && sp.end > start {
			in = append(in, span{max(sp.start, start) - start, min(sp.end, end) - start})
		}
	}
	s := text[start:end]
	if len(in) > 0 {
		s = replace(s, in)
	}
	return r.String(s)
}

// minWrapped is the fewest bytes of a secret's form that Wrapped looks for
// with line breaks inside: a shorter value ("main") would be found by
// chance across the end of one line and the start of the next ("ma",
// "info").
const minWrapped = 16

// Wrapped is Redactor.Wrapped of the secrets of r.
func (r *table) Wrapped(s string, cutStart, cutEnd bool) string {
	if r.empty() {
		return s
	}
	if cutStart {
		s = r.Cut(s)
	}
	s = r.String(s)
	if strings.ContainsAny(s, "\r\n") {
		s = r.wrapped(s, cutStart, cutEnd)
	}
	if cutEnd {
		s = r.CutEnd(s)
	}
	return s
}

// wrapped is Wrapped's search over lines, in s redacted: the secrets of
// 16 bytes or more, and at a cut their rest or beginning, in s without
// its line breaks.
func (r *table) wrapped(s string, cutStart, cutEnd bool) string {
	var b strings.Builder
	from := make([]int, 0, len(s)) // from[i]: where in s byte i of b is
	for i := range len(s) {
		if s[i] != '\n' && s[i] != '\r' {
			b.WriteByte(s[i])
			from = append(from, i)
		}
	}
	long := &table{}
	for i, f := range r.forms {
		if len(f) >= minWrapped {
			long.forms, long.fails = append(long.forms, f), append(long.fails, r.fails[i])
		}
	}
	joined := b.String()
	spans := long.formSpans(joined, nil)
	if n := long.restLen(joined); cutStart && n >= cutMin {
		spans = append(spans, span{0, n})
	}
	if n := long.Unfinished(joined); cutEnd && n >= cutMin {
		spans = append(spans, span{len(joined) - n, len(joined)})
	}
	if len(spans) == 0 {
		return s
	}
	for i, sp := range spans {
		spans[i] = span{from[sp.start], from[sp.end-1] + 1}
	}
	return r.String(replace(s, spans))
}

// restLen is the length of the longest start of s that is a proper end of a
// secret (in one of its forms).
func (r *table) restLen(s string) int {
	n := 0
	for _, f := range r.forms {
		n = max(n, rest(s, f))
	}
	return n
}

// rest is the length of the longest start of s that is a proper end of f.
func rest(s, f string) int {
	for k := min(len(f)-1, len(s)); k > 0; k-- {
		if strings.HasSuffix(f, s[:k]) {
			return k
		}
	}
	return 0
}

// Unfinished is Redactor.Unfinished of the secrets of r.
func (r *table) Unfinished(s string) int {
	if r.empty() {
		return 0
	}
	n := 0
	for i, f := range r.forms {
		n = max(n, overlap(s, f, r.fails[i]))
	}
	return n
}

// failure is the failure function of f (Knuth–Morris–Pratt): fail[i] is
// the length of the longest proper prefix of f[:i+1] that is also its end.
func failure(f string) []int {
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
	return fail
}

// overlap is the length of the longest end of s that is a proper prefix of
// f, whose failure function is fail: s's last len(f)-1 bytes run through it.
func overlap(s, f string, fail []int) int {
	if len(f) < 2 {
		return 0
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

// shellBreaks are the characters at which parted cuts a secret: where a
// shell splits a line into commands, words and redirections, and the
// quotes and escapes it drops from a word.
const shellBreaks = " \t\r\n;|&<>()'\"\\`$"

// parted returns a table of the values of t and of the parts, cut at
// shellBreaks, of the secrets that texts hold, in one of their forms
// (decoded when escaped); nil when that adds none (see Redactor.Parted).
func (t *table) parted(notSecret func(string) bool, texts []string) *table {
	var parts []string
	for _, s := range texts {
		for _, sp := range t.spansIn(s, maxUnescapes) {
			v := s[sp.start:sp.end]
			if strings.IndexByte(v, '\\') >= 0 {
				dec, _ := unescape(nil, v, false)
				v = string(dec)
			}
			parts = append(parts, strings.FieldsFunc(v, func(c rune) bool { return strings.ContainsRune(shellBreaks, c) })...)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return t.with(notSecret, parts)
}
