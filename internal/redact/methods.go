package redact

// The methods of Redactor, each that of the table of secrets it holds when
// it is called (see Redactor.Add).

// Values returns the secrets r looks for, each once, in no set order:
// New(r.Values()...) redacts as r does. It lets a process that acprun
// starts redact as acprun does (a replay compares what it receives with a
// redacted recording so).
func (r *Redactor) Values() []string {
	return r.load().Values()
}

// String returns s with every occurrence of a secret replaced by Marker.
// Secrets are found in their raw and quoted forms (see New), and inside
// every JSON string literal of s that has escapes, decoded: in a log line
// such as {"token":"\u0067hp_…"} the literal's content is replaced by its
// redacted form. They are found too in s read as a shell reads its single
// quotes, where a shell line splits them between words (see shellSpans):
// `echo 'hunter2!' now` holds "hunter2! now". Occurrences that overlap
// are replaced by one Marker, so
// no part of a secret is left behind, and the result contains no secret
// even where a replacement and the text around it would form one. String
// returns s itself when s holds no secret.
func (r *Redactor) String(s string) string {
	return r.load().String(s)
}

// JSON returns raw with secrets removed from its strings and object keys.
// Strings are decoded before they are searched, so escapes cannot hide a
// secret, and each string that held one is re-encoded; numbers, true,
// false, null and the structure are never touched. Valid JSON in gives
// valid JSON out, with keys in their order and numbers and unchanged
// strings byte for byte as they were; when something was redacted the
// result is compact (no white space between tokens).
//
// A redacted object key can collide with another key of its object. Then
// the later one, in document order, gets a suffix "#2" (or "#3" and so on,
// the first free one), so that both values are kept.
//
// Text that is not valid JSON is redacted as plain text (see String).
// When raw holds no secret, JSON returns raw itself, not a copy.
func (r *Redactor) JSON(raw []byte) []byte {
	return r.load().JSON(raw)
}

// Value removes secrets, in place, from everything v points to: the
// exported fields of structs, the elements of slices and arrays, the keys
// and values of maps, and the values in interfaces and behind pointers.
// Strings are redacted with String; byte slices, json.RawMessage among
// them, with JSON. Unexported fields are left alone; nil pointers, maps
// and interfaces are skipped; a value reached twice (shared, or in a
// cycle) is walked once; and anything nested deeper than 10000 levels is
// set to its zero value rather than left unredacted.
//
// v should be a pointer. Maps and slices passed as they are are redacted
// too, but strings and byte slices that are reached only by value cannot
// be changed.
//
// A redacted map key can collide with another key of the map. String keys
// (of any string type, or strings in interface keys) then get a suffix
// "#2" (or "#3" and so on, the first free one), so that both values are
// kept: keys that were not redacted keep their names, and redacted keys
// are given theirs in the order of their original keys. Keys of other
// types (structs or arrays with strings in them) cannot take a suffix: of
// those that collide, the entry with the first original key (in %#v
// order) is kept and the others are dropped.
func (r *Redactor) Value(v any) {
	r.load().Value(v)
}

// Pieces redacts a text that comes in pieces, each kept on its own (the
// chunks of a message an agent streams). It returns one piece for each,
// whose concatenation has no secret: a secret within one piece is
// replaced by Marker there; one split between pieces is replaced by
// Marker in the piece where it starts and dropped from the others.
//
// held is how many of the last pieces must wait for the pieces still to
// come, to be redacted again with them: those from where the text's end
// may begin a secret that is not finished yet. The others are final:
// no secret goes on from them into the held ones.
func (r *Redactor) Pieces(pieces []string) (out []string, held int) {
	return r.load().Pieces(pieces)
}

// PiecesCutEnd is Pieces for a text whose end was cut off (see CutEnd):
// none of its pieces waits, and an end of the text that may begin a
// secret, when it is 4 bytes or more, is replaced by Marker too, in the
// piece where it starts, and dropped from the others.
func (r *Redactor) PiecesCutEnd(pieces []string) []string {
	return r.load().PiecesCutEnd(pieces)
}

// Cut returns s redacted (see String), where s is the end of a longer text
// whose beginning was cut off (the tail of a command's output): a start of
// s that is the rest of a secret, in one of its forms, that the cut went
// through is replaced by Marker too, when it is at least 4 bytes long.
func (r *Redactor) Cut(s string) string {
	return r.load().Cut(s)
}

// CutEnd returns s redacted (see String), where s is the beginning of a
// longer text whose end was cut off (the head of a diff): an end of s that
// is the beginning of a secret, in one of its forms, that the cut went
// through is replaced by Marker too, when it is at least 4 bytes long.
func (r *Redactor) CutEnd(s string) string {
	return r.load().CutEnd(s)
}

// Excerpt returns text[start:end] redacted as a part of text, for a
// message that shows only that part (cut to a width, or around a match):
// the secrets are looked for in the whole of text, so that a secret the
// part holds whole, and what it holds of one that goes on past either of
// its ends, however short, is replaced by Marker; text that merely begins
// or ends like a secret is left as it is. With cutStart, text's own
// beginning is a cut (see Cut). start and end must be byte offsets at
// character boundaries, start <= end.
func (r *Redactor) Excerpt(text string, start, end int, cutStart bool) string {
	return r.load().Excerpt(text, start, end, cutStart)
}

// Wrapped returns s redacted (see String), where s is a log whose long
// lines may have been wrapped (a base64 blob at 76 columns): a secret of
// 16 bytes or more (in one of its forms) is found also with line breaks
// (\n, \r) inside it, and replaced by one Marker, those line breaks
// included. With cutStart, s's beginning is a cut (see Cut); with cutEnd,
// its end may be one (see CutEnd): the rest or the beginning of a secret
// that the cut went through is replaced too, that of a secret of 16 bytes
// or more also when wrapped, for a line break at a cut is no sign that
// the secret ended there.
func (r *Redactor) Wrapped(s string, cutStart, cutEnd bool) string {
	return r.load().Wrapped(s, cutStart, cutEnd)
}

// Unfinished returns the length of the longest end of s that begins a
// secret (in one of its forms) without finishing it: the part of a text
// still arriving that must be held back until what follows is known, for
// redacting what comes before it and what comes after separately cannot
// find a secret split between them. Redact s first: a whole secret inside
// it is not looked for. It is 0 when no secret can start in s's end.
func (r *Redactor) Unfinished(s string) int {
	return r.load().Unfinished(s)
}

// Parted returns a Redactor of r's secrets and also of the parts of those
// that texts hold, cut at the shell's blanks, operators, quotes and escapes
// (see parted): a policy splits a shell line that holds a secret unquoted
// into commands and paths none of which holds it whole (`mysql
// -ppa55;word|x` runs mysql -ppa55, word and x), so that String alone
// finds nothing of it in them. Redact with it what was split out of texts.
// Parts unfit to be secrets (see New: fewer than 4 characters, among them)
// are not looked for, as at a cut (see Cut). It returns r itself when
// texts hold none of its secrets.
func (r *Redactor) Parted(texts ...string) *Redactor {
	if r.load().empty() {
		return r
	}
	t := r.load().parted(r.notSecret, texts)
	if t == nil {
		return r
	}
	p := &Redactor{notSecret: r.notSecret}
	p.tab.Store(t)
	return p
}
