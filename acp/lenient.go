package acp

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	json "github.com/go-json-experiment/json/v1"
)

// Lenient decoding of session updates and permission requests.
//
// The schema marks many optional fields x-deserialize-default-on-error (a
// malformed value takes its default) and many lists
// x-deserialize-skip-invalid-items (an invalid item is left out), so that one
// bad field does not cost the whole message. SessionUpdate and
// RequestPermissionRequest decode strictly first, which is the fast path and
// the one well-formed messages take; only when that fails do they decode
// again with the functions here, which replace what is malformed and say
// what they replaced. A malformed required field still fails. For a
// well-formed message both give the same value. One reflective decoder walks
// the wire structs: the roles of their members are in laxRoles, blockRoles
// and toolContentRoles, and how a member decodes follows from its Go type.

// lax collects what a lenient decode replaced.
type lax struct {
	malformed []string
	quiet     bool // decoding a member that is not part of the shape: record nothing
}

// add records one replacement.
func (l *lax) add(msg string) {
	if !l.quiet {
		l.malformed = append(l.malformed, msg)
	}
}

// note records that the value at path was malformed and replaced.
func (l *lax) note(path, problem string) { l.replaced(at(path, problem)) }

// replaced records msg, the problem of a value replaced by its default.
func (l *lax) replaced(msg string) { l.add(msg + "; the field took its default") }

// dropped records that a value was left out because of err. The notes
// recorded since kept (len(l.malformed) before the value was decoded) are
// forgotten: they were about replacements in a value that is not kept.
func (l *lax) dropped(kept int, err error, what string) {
	l.malformed = l.malformed[:kept]
	l.add(err.Error() + " (" + what + ")")
}

// role says what a malformed member costs.
type role int

const (
	ignored  role = iota // not part of the shape: kept when well-formed, else dropped silently
	optional             // replaced by its default, and noted
	required             // fails the object
	strict               // decoded with its type's own decoding, and fails the object when malformed
)

// at prefixes msg with path.
func at(path, msg string) string {
	if path == "" {
		return msg
	}
	return path + ": " + msg
}

// member returns the path of a member of the object at path.
func member(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// item returns the path of an item of the list at path.
func item(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// wrongType is the problem of a value that is not what the schema wants.
func wrongType(want string, raw json.RawMessage) string {
	return "want " + want + ", got " + describe(raw)
}

// maxDescribed is the longest string describe quotes.
const maxDescribed = 40

// describe names a JSON value's type, with the value itself when short, as
// in `string "3"`. A longer string is named by its size alone: quoting its
// start would show the start of a secret it may hold, which the caller's
// redaction, seeing no whole secret, could not find.
func describe(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	excerpt := func() string {
		if len(raw) <= maxDescribed {
			return string(raw)
		}
		cut := maxDescribed
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		return string(raw[:cut]) + "…" // digits: no secret
	}
	switch raw[0] {
	case '"':
		if len(raw) > maxDescribed {
			return "a string of " + strconv.Itoa(len(raw)-2) + " bytes"
		}
		return "string " + string(raw)
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "boolean " + string(raw)
	case 'n':
		return "null"
	}
	return "number " + excerpt()
}

// val returns *p, or the zero value for nil.
func val[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// absent reports whether a member is missing or null.
func absent(raw json.RawMessage) bool { return len(raw) == 0 || isNull(raw) }

// object decodes the members of the JSON object raw into w, a struct of
// json.RawMessage fields. null leaves w empty, as it does for a struct.
func object(raw json.RawMessage, path string, w any) error {
	if err := json.Unmarshal(raw, w); err != nil {
		return errors.New(at(path, wrongType("an object", raw)))
	}
	return nil
}

// fields decodes the members of one object, keeping the first error of a
// required member. unsigned are the object's members that the schema
// bounds at minimum 0 (see unsigned).
type fields struct {
	l        *lax
	path     string
	unsigned map[string]bool
	err      error
}

// fail records err, the error of a required member, unless one came first.
func (f *fields) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// laxRoles gives, for each type decoded member by member, the members whose
// malformed value fails the object: a required one, and a strict one (decoded
// with its type's own decoding). Every other member is optional.
var laxRoles = map[reflect.Type]map[string]role{
	reflect.TypeFor[EmbeddedResourceResource](): {"uri": required, "text": required, "blob": required},
	reflect.TypeFor[ContentChunk]():             {"content": required},
	reflect.TypeFor[ToolCall]():                 {"toolCallId": required, "title": required},
	reflect.TypeFor[ToolCallUpdate]():           {"toolCallId": required},
	reflect.TypeFor[ToolCallLocation]():         {"path": required},
	reflect.TypeFor[PlanEntry]():                {"content": required, "priority": required, "status": required},
	reflect.TypeFor[AvailableCommand]():         {"name": required, "description": required},
	reflect.TypeFor[AvailableCommandInput]():    {"hint": required},
	reflect.TypeFor[CurrentModeUpdate]():        {"currentModeId": required},
	reflect.TypeFor[SessionConfigOption]():      {"id": required, "name": required, "type": required, "options": strict},
	reflect.TypeFor[UsageUpdate]():              {"used": required, "size": required},
	reflect.TypeFor[Usage]():                    {"totalTokens": required, "inputTokens": required, "outputTokens": required},
	reflect.TypeFor[Cost]():                     {"amount": required, "currency": required},
	reflect.TypeFor[Notice]():                   {"severity": required, "title": required},
	reflect.TypeFor[CompactionUpdate]():         {"compactionId": required, "status": required},
	reflect.TypeFor[CompactionSummaryChunk]():   {"compactionId": required, "content": required},
	reflect.TypeFor[InitializeResponse]():       {"protocolVersion": required},
	reflect.TypeFor[NewSessionResponse]():       {"sessionId": required},
	reflect.TypeFor[PromptResponse]():           {"stopReason": required},
	reflect.TypeFor[RequestPermissionRequest](): {"sessionId": required, "toolCall": required, "options": strict},
}

// unsigned gives, for each type that has them, the members the schema
// bounds at minimum 0 (format uint16 to uint64): token counts, a tool call
// location's line, a read's line and limit, a terminal's output limit.
// They are held as signed integers (counts as int64, so that they add up
// as the results' do), and a negative one is malformed, as is a null or
// missing one that laxRoles says is required. Both decodings check them:
// the lenient one member by member (fields.scalar) and the strict one with
// the type's own decoding (decodeUnsigned, through its UnmarshalJSON, or
// strictOrLax or decodeRequired), so that a well-formed value takes the
// fast path and a malformed one is said. TestSchemaUnsignedCovered checks
// that every such member of what the agent sends is here.
var unsigned = map[reflect.Type]map[string]bool{
	reflect.TypeFor[Usage](): {"totalTokens": true, "inputTokens": true, "outputTokens": true,
		"thoughtTokens": true, "cachedReadTokens": true, "cachedWriteTokens": true},
	reflect.TypeFor[UsageUpdate]():           {"used": true, "size": true},
	reflect.TypeFor[ToolCallLocation]():      {"line": true},
	reflect.TypeFor[ReadTextFileRequest]():   {"line": true, "limit": true},
	reflect.TypeFor[CreateTerminalRequest](): {"outputByteLimit": true},
}

// unsignedKind is what the schema wants of an unsigned member.
const unsignedKind = "a non-negative integer"

// unsignedProblem says what is wrong with raw, the value of an unsigned
// member (see unsigned), required or not: missing or null when required,
// or negative; "" when none of these, and the member's decoding checks
// the rest.
func unsignedProblem(raw json.RawMessage, required bool) string {
	switch {
	case len(raw) == 0 && required:
		return "missing, and it is required"
	case isNull(raw) && required:
		return wrongType(unsignedKind, raw)
	case len(raw) > 0 && raw[0] == '-':
		if x, err := strconv.ParseFloat(string(raw), 64); err == nil && x < 0 {
			return wrongType(unsignedKind, raw)
		}
	}
	return ""
}

// decodeUnsigned decodes the JSON object data into v, a pointer to t or
// to a type like t without its methods (its UnmarshalJSON's plain type),
// and fails as checkUnsigned says: the strict decoding of t's unsigned
// members, which lets a well-formed value through and leaves a malformed
// one to the lenient decoding to say.
func decodeUnsigned(data []byte, v any, t reflect.Type) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	return checkUnsigned(data, t)
}

// checkUnsigned fails when one of the unsigned members of t (see
// unsigned) in data, a JSON object that decodes as a t, is wrong (see
// unsignedProblem), naming the first such member.
func checkUnsigned(data []byte, t reflect.Type) error {
	members := unsigned[t]
	if members == nil {
		return nil
	}
	s := shapeOf(t)
	w := reflect.New(s.raw)
	if err := json.Unmarshal(data, w.Interface()); err != nil {
		return err
	}
	roles := laxRoles[t]
	for i, name := range s.names {
		if !members[name] {
			continue
		}
		if p := unsignedProblem(w.Elem().Field(i).Bytes(), roles[name] == required); p != "" {
			return errors.New(at(name, p))
		}
	}
	return nil
}

// blockRoles gives the members of each content block type; the other
// members of the union are ignored. Unknown types have none.
var blockRoles = map[string]map[string]role{
	ContentText:         {"text": required, "annotations": optional},
	ContentImage:        {"data": required, "mimeType": required, "uri": optional, "annotations": optional},
	ContentAudio:        {"data": required, "mimeType": required, "annotations": optional},
	ContentResourceLink: {"uri": required, "name": required, "title": optional, "description": optional, "mimeType": optional, "size": optional, "annotations": optional},
	ContentResource:     {"resource": required, "annotations": optional},
}

// toolContentRoles gives the members of each known tool call content type.
var toolContentRoles = map[string]map[string]role{
	ToolContentBlock:    {"content": required},
	ToolContentDiff:     {"path": required, "oldText": optional, "newText": required},
	ToolContentTerminal: {"terminalId": required},
}

// laxValue decodes raw, the value at path, leniently into v.
func laxValue(l *lax, raw json.RawMessage, path string, v reflect.Value) error {
	switch v.Addr().Interface().(type) {
	case *ContentBlock:
		return laxContentBlock(l, raw, path, v)
	case *ToolCallContent:
		return laxToolContent(l, raw, path, v)
	case *SessionInfoUpdate:
		return laxSessionInfo(l, raw, path, v)
	case *AuthMethod, *Implementation, *Capability, *SessionModeState, *SessionModelState:
		// Decoded with the type's own (strict) decoding: a value with a
		// malformed member is wrong as a whole.
		if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
			return errors.New(at(path, problem(err, raw)))
		}
		return nil
	}
	if v.Kind() != reflect.Struct { // an item of a list of scalars
		if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
			return errors.New(at(path, wrongType(kindOf(v.Type()), raw)))
		}
		return nil
	}
	return laxStruct(l, raw, path, v, laxRoles[v.Type()], optional)
}

// laxStruct decodes the JSON object raw into the struct v member by member:
// roles gives the role of a member, rest that of the others. An ignored
// member is decoded as an optional one whose replacement is not noted.
func laxStruct(l *lax, raw json.RawMessage, path string, v reflect.Value, roles map[string]role, rest role) error {
	s := shapeOf(v.Type())
	w := reflect.New(s.raw)
	if err := object(raw, path, w.Interface()); err != nil {
		return err
	}
	f := &fields{l: l, path: path, unsigned: unsigned[v.Type()]}
	quiet := &fields{l: &lax{quiet: true}, path: path, unsigned: f.unsigned}
	for i, name := range s.names {
		r, ok := roles[name]
		if !ok {
			r = rest
		}
		g := f
		if r == ignored {
			g, r = quiet, optional
		}
		g.member(w.Elem().Field(i).Bytes(), name, r, v.Field(s.index[i]))
	}
	return f.err
}

// shape is how laxStruct sees a struct type: raw is a struct with a
// json.RawMessage field for each of its JSON members, with the same names,
// so that they match as the strict decoding's do; names[i] is the name of
// raw's field i, and index[i] the struct's field it is decoded into.
type shape struct {
	raw   reflect.Type
	names []string
	index []int
}

var shapes sync.Map // reflect.Type → *shape

func shapeOf(t reflect.Type) *shape {
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	s := &shape{}
	var raw []reflect.StructField
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		raw = append(raw, reflect.StructField{Name: sf.Name, Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + name + `"`)})
		s.names = append(s.names, name)
		s.index = append(s.index, i)
	}
	s.raw = reflect.StructOf(raw)
	shapes.Store(t, s)
	return s
}

// member decodes the member name, raw, into v according to its role and
// its Go type.
func (f *fields) member(raw json.RawMessage, name string, r role, v reflect.Value) {
	t := v.Type()
	switch {
	case t == reflect.TypeFor[json.RawMessage]():
		v.SetBytes(raw)
	case t.Kind() == reflect.Interface: // any JSON value
		if len(raw) > 0 {
			_ = json.Unmarshal(raw, v.Addr().Interface())
		}
	case r == strict:
		if !absent(raw) {
			if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
				f.fail(strictError(member(f.path, name), err, raw))
			}
		}
	case t.Kind() == reflect.Slice:
		f.list(raw, name, v)
	case t.Kind() == reflect.Struct, t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		f.nested(raw, name, r, v)
	default:
		f.scalar(raw, name, r, v)
	}
}

// scalar decodes a JSON scalar member into v, a T or a *T (absent and null
// leave it as it is) according to its role. An unsigned member (see
// unsigned) is checked as unsignedProblem says too.
func (f *fields) scalar(raw json.RawMessage, name string, r role, v reflect.Value) {
	problem := ""
	if f.unsigned[name] {
		problem = unsignedProblem(raw, r == required)
	}
	if absent(raw) && problem == "" {
		return
	}
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	p := reflect.New(t)
	if problem == "" {
		err := json.Unmarshal(raw, p.Interface())
		if n, ok := integral(raw); err != nil && ok {
			err = json.Unmarshal(n, p.Interface())
		}
		if err != nil {
			want := kindOf(t)
			if f.unsigned[name] {
				want = unsignedKind
			}
			problem = wrongType(want, raw)
		}
	}
	if problem != "" {
		path := member(f.path, name)
		switch r {
		case required:
			f.fail(errors.New(at(path, problem)))
		case optional:
			f.l.note(path, problem)
		}
		return
	}
	if v.Kind() == reflect.Pointer {
		v.Set(p)
	} else {
		v.Set(p.Elem())
	}
}

// integral returns the JSON number raw in integer syntax ("5" for 5.0 or
// 5e0) when it has no fractional part: JSON Schema's "integer" is any such
// number, as JavaScript's Number.isInteger says, and agents whose encoder
// writes whole floats as 5.0 send them. ok is false for anything else.
func integral(raw json.RawMessage) (_ json.RawMessage, ok bool) {
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return nil, false
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return nil, false
	}
	return strconv.AppendInt(nil, int64(x), 10), true
}

// wholeUnsigned returns data, a JSON object that decodes as a request's
// params of type t, with t's unsigned members (see unsigned) rewritten as
// a request takes them: a whole number written as a float (5.0, 1e0) in
// integer syntax (see integral), and an integer past int64 as the nearest
// int64, up to the largest uint64 (the schema's outputByteLimit is a
// uint64): they are bounds, and acprun caps them far below; a negative
// one is refused as such, said as the agent wrote it (checkUnsigned reads
// data). ok is false when nothing was rewritten.
func wholeUnsigned(data []byte, t reflect.Type) (_ []byte, ok bool) {
	members := unsigned[t]
	if members == nil {
		return nil, false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	var out []byte
	last := 0
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		name := tok.String() // tok is valid only until the next read
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		n, whole := wholeInteger(raw)
		if !whole || !hasMember(members, name) {
			continue
		}
		end := int(dec.InputOffset())
		out = append(append(out, data[last:end-len(raw)]...), n...)
		last = end
	}
	if out == nil {
		return nil, false
	}
	return append(out, data[last:]...), true
}

// wholeInteger returns the JSON number raw as an int64 in integer syntax,
// when it is a whole number written otherwise (see integral) or an integer
// past int64, up to the largest uint64 or down from the smallest int64
// (as the nearest int64). ok is false for anything else.
func wholeInteger(raw []byte) (_ []byte, ok bool) {
	if n, ok := integral(raw); ok {
		return n, !bytes.Equal(n, raw)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if !errors.Is(err, strconv.ErrRange) {
		return nil, false
	}
	if _, err := strconv.ParseUint(string(raw), 10, 64); n > 0 && err != nil {
		return nil, false // past the largest uint64
	}
	return strconv.AppendInt(nil, n, 10), true
}

// hasMember reports whether name names one of members, as the decoding
// matches names: regardless of case.
func hasMember(members map[string]bool, name string) bool {
	for m := range members {
		if strings.EqualFold(m, name) {
			return true
		}
	}
	return false
}

// nested decodes an object member into v, a struct or a pointer to one,
// according to its role: a malformed optional one is left out and noted. A
// required struct (not a pointer) is decoded even when null, as its type's
// own decoding would be: a null content block has no type.
func (f *fields) nested(raw json.RawMessage, name string, r role, v reflect.Value) {
	byValue := v.Kind() == reflect.Struct
	if len(raw) == 0 || isNull(raw) && !(byValue && r == required) {
		return
	}
	path := member(f.path, name)
	p := reflect.New(v.Type())
	if !byValue {
		p = reflect.New(v.Type().Elem())
	}
	kept := len(f.l.malformed)
	if err := laxValue(f.l, raw, path, p.Elem()); err != nil {
		switch r {
		case required:
			f.fail(err)
		case optional:
			if strings.HasPrefix(err.Error(), path+": ") { // the value itself is wrong
				f.l.replaced(err.Error())
			} else { // a required member of it is
				f.l.dropped(kept, err, path+" ignored")
			}
		}
		return
	}
	if byValue {
		v.Set(p.Elem())
	} else {
		v.Set(p)
	}
}

// list decodes a list member (x-deserialize-skip-invalid-items) into v: a
// value that is not an array is noted and gives nil; an item that fails to
// decode is noted and left out. Absent and null give nil, [] an empty list.
func (f *fields) list(raw json.RawMessage, name string, v reflect.Value) {
	if absent(raw) {
		return
	}
	path := member(f.path, name)
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		f.l.note(path, wrongType("an array", raw))
		return
	}
	out := reflect.MakeSlice(v.Type(), 0, len(items))
	for i, it := range items {
		e := reflect.New(v.Type().Elem()).Elem()
		kept := len(f.l.malformed)
		if err := laxValue(f.l, it, item(path, i), e); err != nil {
			f.l.dropped(kept, err, "item skipped")
			continue
		}
		out = reflect.Append(out, e)
	}
	v.Set(out)
}

// unionType returns the "type" of the object raw, a member of a union,
// which must have one.
func unionType(raw json.RawMessage, path string) (string, error) {
	var w struct {
		Type json.RawMessage `json:"type"`
	}
	if err := object(raw, path, &w); err != nil {
		return "", err
	}
	if absent(w.Type) {
		return "", errors.New(at(path, "missing type"))
	}
	var typ string
	if json.Unmarshal(w.Type, &typ) != nil {
		return "", errors.New(at(member(path, "type"), wrongType("a string", w.Type)))
	}
	return typ, nil
}

// laxContentBlock decodes a content block with the members of its type; a
// block of an unknown type keeps its JSON in Raw.
func laxContentBlock(l *lax, raw json.RawMessage, path string, v reflect.Value) error {
	typ, err := unionType(raw, path)
	if err != nil {
		return err
	}
	roles := blockRoles[typ]
	if err := laxStruct(l, raw, path, v, roles, ignored); err != nil {
		return err
	}
	if roles == nil {
		v.Addr().Interface().(*ContentBlock).Raw = append(json.RawMessage(nil), raw...)
	}
	return nil
}

// laxToolContent decodes a tool call content item with the members of its
// type; an item of an unknown type has only its Type and Raw.
func laxToolContent(l *lax, raw json.RawMessage, path string, v reflect.Value) error {
	typ, err := unionType(raw, path)
	if err != nil {
		return err
	}
	roles, known := toolContentRoles[typ]
	if !known {
		v.Set(reflect.ValueOf(ToolCallContent{Type: typ, Raw: append(json.RawMessage(nil), raw...)}))
		return nil
	}
	return laxStruct(l, raw, path, v, roles, ignored)
}

// laxSessionInfo decodes a session info update, whose null members are
// pointers to "".
func laxSessionInfo(l *lax, raw json.RawMessage, path string, v reflect.Value) error {
	var w struct {
		Title     json.RawMessage `json:"title"`
		UpdatedAt json.RawMessage `json:"updatedAt"`
		Meta      json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return err
	}
	s := SessionInfoUpdate{Meta: w.Meta}
	for _, m := range []struct {
		name string
		raw  json.RawMessage
		dst  **string
	}{{"title", w.Title, &s.Title}, {"updatedAt", w.UpdatedAt, &s.UpdatedAt}} {
		p, err := nullableString(m.raw)
		if err != nil {
			l.note(member(path, m.name), wrongType("a string", m.raw))
			continue
		}
		*m.dst = p
	}
	v.Set(reflect.ValueOf(s))
	return nil
}

// laxDecode decodes the JSON object data leniently into *v, returning what
// it replaced.
func laxDecode(data []byte, v any) ([]string, error) {
	l := &lax{}
	err := laxValue(l, data, "", reflect.ValueOf(v).Elem())
	return l.malformed, err
}

// strictOrLax decodes the JSON object data into *r, whose type has a
// Malformed field: through plain, r as its type without methods, when data
// is well-formed (the fast path, which checks T's unsigned members too),
// and else leniently, setting Malformed to what was replaced. *r is left
// as it was when both fail.
func strictOrLax[T any](data []byte, r *T, plain any) error {
	old := *r
	*r = *new(T)
	if decodeUnsigned(data, plain, reflect.TypeFor[T]()) == nil {
		return nil
	}
	*r = old
	var v T
	malformed, err := laxDecode(data, &v)
	if err != nil {
		return err
	}
	reflect.ValueOf(&v).Elem().FieldByName("Malformed").Set(reflect.ValueOf(malformed))
	*r = v
	return nil
}

// decodeLenient decodes the payload of u's known Kind leniently, returning
// what it replaced.
func (u *SessionUpdate) decodeLenient(data []byte) ([]string, error) {
	target, ok := u.payload()
	if !ok {
		return nil, nil
	}
	dst := reflect.ValueOf(target).Elem()
	p := reflect.New(dst.Type().Elem())
	malformed, err := laxDecode(data, p.Interface())
	if err == nil {
		dst.Set(p)
	}
	return malformed, err
}

// problem says what is wrong with raw, which failed to decode with err, in
// the schema's words rather than Go's: "want a string, got number 5", and
// the path of the member that is wrong when it is one of raw's
// ("name: want a string, got number 5").
func problem(err error, raw json.RawMessage) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	if te.Field == "" {
		return wrongType(kindOf(te.Type), raw)
	}
	return te.Field + ": want " + kindOf(te.Type) + ", got " + valueKind(te.Value)
}

// strictError is the error of the strict member at path ("" for a whole
// message's params), raw, whose own decoding failed with err, in the
// schema's words: the path goes down to the value that is wrong
// ("options[0].optionId: want a string, got a number"). It wraps err.
func strictError(path string, err error, raw json.RawMessage) error {
	msg := problem(err, raw)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil && te.Field != "" {
		for _, f := range strings.Split(te.Field, ".") {
			if _, numErr := strconv.Atoi(f); numErr == nil {
				path += "[" + f + "]"
			} else {
				path = member(path, f)
			}
		}
		msg = "want " + kindOf(te.Type) + ", got " + valueKind(te.Value)
	}
	return &memberError{msg: at(path, msg), err: err}
}

// memberError is a member's decoding error said in the schema's words
// (see strictError), wrapping the decoding's own.
type memberError struct {
	msg string
	err error
}

func (e *memberError) Error() string { return e.msg }
func (e *memberError) Unwrap() error { return e.err }

// kindOf names what a value of Go type t is in JSON.
func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "another value"
}

// valueKind is UnmarshalTypeError.Value ("bool", "number -5") as
// describe says it.
func valueKind(v string) string {
	switch v {
	case "bool":
		return "a boolean"
	case "string", "number":
		return "a " + v
	case "array", "object":
		return "an " + v
	}
	return v
}

// ---------------------------------------------------------------------------
// required members

// decodeRequired decodes the JSON object data into v (a pointer to a type
// like t without this check) and fails when one of names, the members the
// schema requires, is missing or null: a plain decode would take it as its
// zero value, and serve a write without content as one that empties the
// file. The error names the first such member, at path ("env: value is
// required"); one of a malformed member is said in the schema's words, not
// Go's (strictError: "path: want a string, got a number"), and so is a
// negative unsigned one of t's ("line: want a non-negative integer, got
// number -1", see unsigned).
func decodeRequired(data []byte, v any, t reflect.Type, path string, names ...string) error {
	err := json.Unmarshal(data, v)
	if whole, ok := wholeUnsigned(data, t); err != nil && ok {
		err = json.Unmarshal(whole, v)
	}
	if err != nil {
		return strictError(path, err, data)
	}

	var given map[string]present
	if err := json.Unmarshal(data, &given); err != nil {
		return err
	}
	for _, n := range names {
		if !given[n] {
			return errors.New(at(path, n+" is required"))
		}
	}
	if err := checkUnsigned(data, t); err != nil {
		return errors.New(at(path, err.Error()))
	}
	return nil
}

// present is whether a member has a value: false for null.
type present bool

func (p *present) UnmarshalJSON(raw []byte) error {
	*p = present(!isNull(raw))
	return nil
}

// problemPath matches the path that starts a problem of the lenient
// decoding (see at): member names, and item indexes in brackets.
var problemPath = regexp.MustCompile(`^([A-Za-z_$][\w$]*(?:\[\d+\]|\.[A-Za-z_$][\w$]*)*): `)

// ProblemPath is the path of the value that problem, an entry of a
// Malformed list, is about, in dotted form (member names and item indexes
// joined by dots, as jsonpos takes it: "toolCall.locations.0.path"); ""
// when it is about the whole value.
func ProblemPath(problem string) string {
	m := problemPath.FindStringSubmatch(problem)
	if m == nil {
		return ""
	}
	return strings.NewReplacer("[", ".", "]", "").Replace(m[1])
}

// ErrorPath is the path, as ProblemPath gives it, of the value that err,
// the error of decoding a message leniently (a RequestPermissionRequest's),
// is about: the path of the first error it wraps that starts with one,
// followed by where in that value the type's own decoding failed (a
// permission request's options); "" when it is about the whole message.
func ErrorPath(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		path := ProblemPath(e.Error())
		if path == "" {
			continue
		}
		var te *json.UnmarshalTypeError
		if _, whole := e.(*memberError); !whole && errors.As(e, &te) && te.Field != "" {
			path += "." + te.Field
		}
		return path
	}
	return ""
}
