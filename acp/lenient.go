package acp

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

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
// well-formed message both give the same value.

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
func (l *lax) note(path, problem string) { l.add(at(path, problem)) }

// dropped records that a value was left out because of err.
func (l *lax) dropped(err error, what string) { l.add(err.Error() + " (" + what + ")") }

// role says what a malformed member costs.
type role int

const (
	ignored  role = iota // not part of the shape: kept when well-formed, else dropped silently
	optional             // replaced by its default, and noted
	required             // fails the object
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

// describe names a JSON value's type, with the value itself when short, as
// in `string "3"`.
func describe(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	excerpt := func() string {
		const max = 40
		if len(raw) <= max {
			return string(raw)
		}
		cut := max
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		return string(raw[:cut]) + "…"
	}
	switch raw[0] {
	case '"':
		return "string " + excerpt()
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
// required member.
type fields struct {
	l    *lax
	path string
	err  error
}

// scalar decodes a JSON scalar member into a *T (absent and null give nil)
// according to its role; want names T for messages.
func scalar[T any](f *fields, raw json.RawMessage, name, want string, r role) *T {
	if absent(raw) {
		return nil
	}
	var v T
	err := json.Unmarshal(raw, &v)
	if n, ok := integral(raw); err != nil && ok {
		err = json.Unmarshal(n, &v)
	}
	if err != nil {
		path := member(f.path, name)
		switch r {
		case required:
			if f.err == nil {
				f.err = errors.New(at(path, wrongType(want, raw)))
			}
		case optional:
			f.l.note(path, wrongType(want, raw))
		}
		return nil
	}
	return &v
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

func (f *fields) str(raw json.RawMessage, name string, r role) string {
	return val(scalar[string](f, raw, name, "a string", r))
}

func (f *fields) strPtr(raw json.RawMessage, name string, r role) *string {
	return scalar[string](f, raw, name, "a string", r)
}

// nested decodes an object member with dec according to its role: a
// malformed optional one is left out and noted; an ignored one is decoded
// without notes.
func nested[T any](f *fields, raw json.RawMessage, name string, r role, dec func(*lax, json.RawMessage, string) (T, error)) *T {
	if absent(raw) {
		return nil
	}
	path := member(f.path, name)
	l := f.l
	if r == ignored {
		l = &lax{quiet: true}
	}
	v, err := dec(l, raw, path)
	if err != nil {
		switch r {
		case required:
			if f.err == nil {
				f.err = err
			}
		case optional:
			if strings.HasPrefix(err.Error(), path+": ") { // the value itself is wrong
				f.l.add(err.Error())
			} else { // a required member of it is
				f.l.dropped(err, path+" ignored")
			}
		}
		return nil
	}
	return &v
}

// list decodes a list member (x-deserialize-skip-invalid-items): a value
// that is not an array is noted and gives nil; an item that fails to decode
// is noted and left out. Absent and null give nil, [] an empty list.
func list[T any](f *fields, raw json.RawMessage, name string, dec func(*lax, json.RawMessage, string) (T, error)) []T {
	if absent(raw) {
		return nil
	}
	path := member(f.path, name)
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		f.l.note(path, wrongType("an array", raw))
		return nil
	}
	out := make([]T, 0, len(items))
	for i, it := range items {
		v, err := dec(f.l, it, item(path, i))
		if err != nil {
			f.l.dropped(err, "item skipped")
			continue
		}
		out = append(out, v)
	}
	return out
}

// ---------------------------------------------------------------------------
// content

// blockRoles gives the members of each content block type; the other
// members of the union are ignored. Unknown types have none.
var blockRoles = map[string]map[string]role{
	ContentText:         {"text": required, "annotations": optional},
	ContentImage:        {"data": required, "mimeType": required, "uri": optional, "annotations": optional},
	ContentAudio:        {"data": required, "mimeType": required, "annotations": optional},
	ContentResourceLink: {"uri": required, "name": required, "title": optional, "description": optional, "mimeType": optional, "size": optional, "annotations": optional},
	ContentResource:     {"resource": required, "annotations": optional},
}

// laxContentBlock decodes a content block leniently. An absent block is
// empty, as it is for a strict decode.
func laxContentBlock(l *lax, raw json.RawMessage, path string) (ContentBlock, error) {
	if len(raw) == 0 {
		return ContentBlock{}, nil
	}
	var w struct {
		Type        json.RawMessage `json:"type"`
		Text        json.RawMessage `json:"text"`
		Data        json.RawMessage `json:"data"`
		MimeType    json.RawMessage `json:"mimeType"`
		URI         json.RawMessage `json:"uri"`
		Name        json.RawMessage `json:"name"`
		Title       json.RawMessage `json:"title"`
		Description json.RawMessage `json:"description"`
		Size        json.RawMessage `json:"size"`
		Resource    json.RawMessage `json:"resource"`
		Annotations json.RawMessage `json:"annotations"`
		Meta        json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return ContentBlock{}, err
	}
	f := &fields{l: l, path: path}
	typ := f.strPtr(w.Type, "type", required)
	if f.err != nil {
		return ContentBlock{}, f.err
	}
	if typ == nil {
		return ContentBlock{}, errors.New(at(path, "missing type"))
	}
	roles := blockRoles[*typ]
	b := ContentBlock{
		Type:        *typ,
		Text:        f.str(w.Text, "text", roles["text"]),
		Data:        f.str(w.Data, "data", roles["data"]),
		MimeType:    f.str(w.MimeType, "mimeType", roles["mimeType"]),
		URI:         f.str(w.URI, "uri", roles["uri"]),
		Name:        f.str(w.Name, "name", roles["name"]),
		Title:       f.str(w.Title, "title", roles["title"]),
		Description: f.str(w.Description, "description", roles["description"]),
		Size:        scalar[int64](f, w.Size, "size", "an integer", roles["size"]),
		Resource:    nested(f, w.Resource, "resource", roles["resource"], laxResource),
		Annotations: nested(f, w.Annotations, "annotations", roles["annotations"], laxAnnotations),
		Meta:        w.Meta,
	}
	if roles == nil {
		b.Raw = append(json.RawMessage(nil), raw...)
	}
	return b, f.err
}

func laxResource(l *lax, raw json.RawMessage, path string) (EmbeddedResourceResource, error) {
	var w struct {
		URI      json.RawMessage `json:"uri"`
		MimeType json.RawMessage `json:"mimeType"`
		Text     json.RawMessage `json:"text"`
		Blob     json.RawMessage `json:"blob"`
		Meta     json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return EmbeddedResourceResource{}, err
	}
	f := &fields{l: l, path: path}
	r := EmbeddedResourceResource{
		URI:      f.str(w.URI, "uri", required),
		MimeType: f.str(w.MimeType, "mimeType", optional),
		Text:     f.str(w.Text, "text", required),
		Blob:     f.str(w.Blob, "blob", required),
		Meta:     w.Meta,
	}
	return r, f.err
}

func laxAnnotations(l *lax, raw json.RawMessage, path string) (Annotations, error) {
	var w struct {
		Audience     json.RawMessage `json:"audience"`
		LastModified json.RawMessage `json:"lastModified"`
		Priority     json.RawMessage `json:"priority"`
		Meta         json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return Annotations{}, err
	}
	f := &fields{l: l, path: path}
	a := Annotations{
		Audience:     list(f, w.Audience, "audience", laxRole),
		LastModified: f.str(w.LastModified, "lastModified", optional),
		Priority:     scalar[float64](f, w.Priority, "priority", "a number", optional),
		Meta:         w.Meta,
	}
	return a, f.err
}

func laxRole(l *lax, raw json.RawMessage, path string) (Role, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", errors.New(at(path, wrongType("a string", raw)))
	}
	return Role(s), nil
}

func laxContentChunk(l *lax, raw json.RawMessage, path string) (ContentChunk, error) {
	var w struct {
		Content   json.RawMessage `json:"content"`
		MessageID json.RawMessage `json:"messageId"`
		Meta      json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return ContentChunk{}, err
	}
	f := &fields{l: l, path: path}
	content, err := laxContentBlock(l, w.Content, member(path, "content"))
	if err != nil {
		return ContentChunk{}, err
	}
	c := ContentChunk{Content: content, MessageID: f.str(w.MessageID, "messageId", optional), Meta: w.Meta}
	return c, f.err
}

// ---------------------------------------------------------------------------
// tool calls

// toolCallWire is every member of a tool call or tool call update.
type toolCallWire struct {
	ToolCallID json.RawMessage `json:"toolCallId"`
	Title      json.RawMessage `json:"title"`
	Name       json.RawMessage `json:"name"`
	Kind       json.RawMessage `json:"kind"`
	Status     json.RawMessage `json:"status"`
	Content    json.RawMessage `json:"content"`
	Locations  json.RawMessage `json:"locations"`
	RawInput   json.RawMessage `json:"rawInput"`
	RawOutput  json.RawMessage `json:"rawOutput"`
	Meta       json.RawMessage `json:"_meta"`
}

func laxToolCall(l *lax, raw json.RawMessage, path string) (ToolCall, error) {
	var w toolCallWire
	if err := object(raw, path, &w); err != nil {
		return ToolCall{}, err
	}
	f := &fields{l: l, path: path}
	t := ToolCall{
		ToolCallID: f.str(w.ToolCallID, "toolCallId", required),
		Title:      f.str(w.Title, "title", required),
		Name:       f.str(w.Name, "name", optional),
		Kind:       val(scalar[ToolKind](f, w.Kind, "kind", "a string", optional)),
		Status:     val(scalar[ToolCallStatus](f, w.Status, "status", "a string", optional)),
		Content:    list(f, w.Content, "content", laxToolContent),
		Locations:  list(f, w.Locations, "locations", laxLocation),
		RawInput:   w.RawInput,
		RawOutput:  w.RawOutput,
		Meta:       w.Meta,
	}
	return t, f.err
}

func laxToolCallUpdate(l *lax, raw json.RawMessage, path string) (ToolCallUpdate, error) {
	var w toolCallWire
	if err := object(raw, path, &w); err != nil {
		return ToolCallUpdate{}, err
	}
	f := &fields{l: l, path: path}
	u := ToolCallUpdate{
		ToolCallID: f.str(w.ToolCallID, "toolCallId", required),
		Title:      f.strPtr(w.Title, "title", optional),
		Name:       f.strPtr(w.Name, "name", optional),
		Kind:       scalar[ToolKind](f, w.Kind, "kind", "a string", optional),
		Status:     scalar[ToolCallStatus](f, w.Status, "status", "a string", optional),
		Content:    list(f, w.Content, "content", laxToolContent),
		Locations:  list(f, w.Locations, "locations", laxLocation),
		RawInput:   w.RawInput,
		RawOutput:  w.RawOutput,
		Meta:       w.Meta,
	}
	return u, f.err
}

// toolContentRoles gives the members of each known tool call content type.
var toolContentRoles = map[string]map[string]role{
	ToolContentBlock:    {"content": required},
	ToolContentDiff:     {"path": required, "oldText": optional, "newText": required},
	ToolContentTerminal: {"terminalId": required},
}

func laxToolContent(l *lax, raw json.RawMessage, path string) (ToolCallContent, error) {
	var w struct {
		Type       json.RawMessage `json:"type"`
		Content    json.RawMessage `json:"content"`
		Path       json.RawMessage `json:"path"`
		OldText    json.RawMessage `json:"oldText"`
		NewText    json.RawMessage `json:"newText"`
		TerminalID json.RawMessage `json:"terminalId"`
		Meta       json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return ToolCallContent{}, err
	}
	f := &fields{l: l, path: path}
	typ := f.strPtr(w.Type, "type", required)
	if f.err != nil {
		return ToolCallContent{}, f.err
	}
	if typ == nil {
		return ToolCallContent{}, errors.New(at(path, "missing type"))
	}
	roles, known := toolContentRoles[*typ]
	if !known {
		return ToolCallContent{Type: *typ, Raw: append(json.RawMessage(nil), raw...)}, nil
	}
	c := ToolCallContent{
		Type:       *typ,
		Content:    nested(f, w.Content, "content", roles["content"], laxContentBlock),
		Path:       f.str(w.Path, "path", roles["path"]),
		OldText:    f.strPtr(w.OldText, "oldText", roles["oldText"]),
		NewText:    f.str(w.NewText, "newText", roles["newText"]),
		TerminalID: f.str(w.TerminalID, "terminalId", roles["terminalId"]),
		Meta:       w.Meta,
	}
	return c, f.err
}

func laxLocation(l *lax, raw json.RawMessage, path string) (ToolCallLocation, error) {
	var w struct {
		Path json.RawMessage `json:"path"`
		Line json.RawMessage `json:"line"`
		Meta json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return ToolCallLocation{}, err
	}
	f := &fields{l: l, path: path}
	loc := ToolCallLocation{
		Path: f.str(w.Path, "path", required),
		Line: scalar[int](f, w.Line, "line", "an integer", optional),
		Meta: w.Meta,
	}
	return loc, f.err
}

// ---------------------------------------------------------------------------
// plans, commands, modes, config, info, usage, notices, compaction

func laxPlan(l *lax, raw json.RawMessage, path string) (Plan, error) {
	var w struct {
		Entries json.RawMessage `json:"entries"`
		Meta    json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return Plan{}, err
	}
	f := &fields{l: l, path: path}
	return Plan{Entries: list(f, w.Entries, "entries", laxPlanEntry), Meta: w.Meta}, f.err
}

func laxPlanEntry(l *lax, raw json.RawMessage, path string) (PlanEntry, error) {
	var w struct {
		Content  json.RawMessage `json:"content"`
		Priority json.RawMessage `json:"priority"`
		Status   json.RawMessage `json:"status"`
		Meta     json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return PlanEntry{}, err
	}
	f := &fields{l: l, path: path}
	e := PlanEntry{
		Content:  f.str(w.Content, "content", required),
		Priority: val(scalar[PlanEntryPriority](f, w.Priority, "priority", "a string", required)),
		Status:   val(scalar[PlanEntryStatus](f, w.Status, "status", "a string", required)),
		Meta:     w.Meta,
	}
	return e, f.err
}

func laxAvailableCommands(l *lax, raw json.RawMessage, path string) (AvailableCommandsUpdate, error) {
	var w struct {
		AvailableCommands json.RawMessage `json:"availableCommands"`
		Meta              json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return AvailableCommandsUpdate{}, err
	}
	f := &fields{l: l, path: path}
	return AvailableCommandsUpdate{AvailableCommands: list(f, w.AvailableCommands, "availableCommands", laxCommand), Meta: w.Meta}, f.err
}

func laxCommand(l *lax, raw json.RawMessage, path string) (AvailableCommand, error) {
	var w struct {
		Name        json.RawMessage `json:"name"`
		Description json.RawMessage `json:"description"`
		Input       json.RawMessage `json:"input"`
		Meta        json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return AvailableCommand{}, err
	}
	f := &fields{l: l, path: path}
	c := AvailableCommand{
		Name:        f.str(w.Name, "name", required),
		Description: f.str(w.Description, "description", required),
		Input:       nested(f, w.Input, "input", optional, laxCommandInput),
		Meta:        w.Meta,
	}
	return c, f.err
}

func laxCommandInput(l *lax, raw json.RawMessage, path string) (AvailableCommandInput, error) {
	var w struct {
		Hint json.RawMessage `json:"hint"`
		Meta json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return AvailableCommandInput{}, err
	}
	f := &fields{l: l, path: path}
	return AvailableCommandInput{Hint: f.str(w.Hint, "hint", required), Meta: w.Meta}, f.err
}

func laxCurrentMode(l *lax, raw json.RawMessage, path string) (CurrentModeUpdate, error) {
	var w struct {
		CurrentModeID json.RawMessage `json:"currentModeId"`
		Meta          json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return CurrentModeUpdate{}, err
	}
	f := &fields{l: l, path: path}
	return CurrentModeUpdate{CurrentModeID: f.str(w.CurrentModeID, "currentModeId", required), Meta: w.Meta}, f.err
}

func laxConfigOptions(l *lax, raw json.RawMessage, path string) (ConfigOptionUpdate, error) {
	var w struct {
		ConfigOptions json.RawMessage `json:"configOptions"`
		Meta          json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return ConfigOptionUpdate{}, err
	}
	f := &fields{l: l, path: path}
	return ConfigOptionUpdate{ConfigOptions: list(f, w.ConfigOptions, "configOptions", laxConfigOption), Meta: w.Meta}, f.err
}

// laxConfigOption decodes a config option; its select options are decoded
// strictly (an option with malformed ones is invalid).
func laxConfigOption(l *lax, raw json.RawMessage, path string) (SessionConfigOption, error) {
	var w struct {
		ID           json.RawMessage `json:"id"`
		Name         json.RawMessage `json:"name"`
		Description  json.RawMessage `json:"description"`
		Category     json.RawMessage `json:"category"`
		Type         json.RawMessage `json:"type"`
		CurrentValue json.RawMessage `json:"currentValue"`
		Options      json.RawMessage `json:"options"`
		Meta         json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return SessionConfigOption{}, err
	}
	f := &fields{l: l, path: path}
	o := SessionConfigOption{
		ID:          f.str(w.ID, "id", required),
		Name:        f.str(w.Name, "name", required),
		Description: f.str(w.Description, "description", optional),
		Category:    f.str(w.Category, "category", optional),
		Type:        f.str(w.Type, "type", required),
		Meta:        w.Meta,
	}
	if len(w.CurrentValue) > 0 {
		_ = json.Unmarshal(w.CurrentValue, &o.CurrentValue) // any JSON value
	}
	if !absent(w.Options) {
		var opts SessionConfigSelectOptions
		if err := json.Unmarshal(w.Options, &opts); err != nil {
			return SessionConfigOption{}, errors.New(at(member(path, "options"), err.Error()))
		}
		o.Options = &opts
	}
	return o, f.err
}

func laxSessionInfo(l *lax, raw json.RawMessage, path string) (SessionInfoUpdate, error) {
	var w struct {
		Title     json.RawMessage `json:"title"`
		UpdatedAt json.RawMessage `json:"updatedAt"`
		Meta      json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return SessionInfoUpdate{}, err
	}
	s := SessionInfoUpdate{Meta: w.Meta}
	for _, m := range []struct {
		name string
		raw  json.RawMessage
		dst  **string
	}{{"title", w.Title, &s.Title}, {"updatedAt", w.UpdatedAt, &s.UpdatedAt}} {
		v, err := nullableString(m.raw)
		if err != nil {
			l.note(member(path, m.name), wrongType("a string", m.raw))
			continue
		}
		*m.dst = v
	}
	return s, nil
}

func laxUsage(l *lax, raw json.RawMessage, path string) (UsageUpdate, error) {
	var w struct {
		Used json.RawMessage `json:"used"`
		Size json.RawMessage `json:"size"`
		Cost json.RawMessage `json:"cost"`
		Meta json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return UsageUpdate{}, err
	}
	f := &fields{l: l, path: path}
	u := UsageUpdate{
		Used: val(scalar[int64](f, w.Used, "used", "an integer", required)),
		Size: val(scalar[int64](f, w.Size, "size", "an integer", required)),
		Cost: nested(f, w.Cost, "cost", optional, laxCost),
		Meta: w.Meta,
	}
	return u, f.err
}

// laxTurnUsage decodes PromptResponse.usage: its three totals are
// required, the other counts optional.
func laxTurnUsage(l *lax, raw json.RawMessage, path string) (Usage, error) {
	var w struct {
		TotalTokens       json.RawMessage `json:"totalTokens"`
		InputTokens       json.RawMessage `json:"inputTokens"`
		OutputTokens      json.RawMessage `json:"outputTokens"`
		ThoughtTokens     json.RawMessage `json:"thoughtTokens"`
		CachedReadTokens  json.RawMessage `json:"cachedReadTokens"`
		CachedWriteTokens json.RawMessage `json:"cachedWriteTokens"`
		Meta              json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return Usage{}, err
	}
	f := &fields{l: l, path: path}
	u := Usage{
		TotalTokens:       val(scalar[int64](f, w.TotalTokens, "totalTokens", "an integer", required)),
		InputTokens:       val(scalar[int64](f, w.InputTokens, "inputTokens", "an integer", required)),
		OutputTokens:      val(scalar[int64](f, w.OutputTokens, "outputTokens", "an integer", required)),
		ThoughtTokens:     scalar[int64](f, w.ThoughtTokens, "thoughtTokens", "an integer", optional),
		CachedReadTokens:  scalar[int64](f, w.CachedReadTokens, "cachedReadTokens", "an integer", optional),
		CachedWriteTokens: scalar[int64](f, w.CachedWriteTokens, "cachedWriteTokens", "an integer", optional),
		Meta:              w.Meta,
	}
	return u, f.err
}

func laxCost(l *lax, raw json.RawMessage, path string) (Cost, error) {
	var w struct {
		Amount   json.RawMessage `json:"amount"`
		Currency json.RawMessage `json:"currency"`
		Meta     json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return Cost{}, err
	}
	f := &fields{l: l, path: path}
	c := Cost{
		Amount:   val(scalar[float64](f, w.Amount, "amount", "a number", required)),
		Currency: f.str(w.Currency, "currency", required),
		Meta:     w.Meta,
	}
	return c, f.err
}

func laxNotice(l *lax, raw json.RawMessage, path string) (Notice, error) {
	var w struct {
		Severity    json.RawMessage `json:"severity"`
		Title       json.RawMessage `json:"title"`
		Description json.RawMessage `json:"description"`
		Meta        json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return Notice{}, err
	}
	f := &fields{l: l, path: path}
	n := Notice{
		Severity:    val(scalar[NoticeSeverity](f, w.Severity, "severity", "a string", required)),
		Title:       f.str(w.Title, "title", required),
		Description: f.str(w.Description, "description", optional),
		Meta:        w.Meta,
	}
	return n, f.err
}

func laxCompaction(l *lax, raw json.RawMessage, path string) (CompactionUpdate, error) {
	var w struct {
		CompactionID json.RawMessage `json:"compactionId"`
		Status       json.RawMessage `json:"status"`
		Summary      json.RawMessage `json:"summary"`
		Error        json.RawMessage `json:"error"`
		Meta         json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return CompactionUpdate{}, err
	}
	f := &fields{l: l, path: path}
	c := CompactionUpdate{
		CompactionID: f.str(w.CompactionID, "compactionId", required),
		Status:       val(scalar[CompactionStatus](f, w.Status, "status", "a string", required)),
		Summary:      list(f, w.Summary, "summary", laxContentBlock),
		Error:        f.str(w.Error, "error", optional),
		Meta:         w.Meta,
	}
	return c, f.err
}

func laxCompactionChunk(l *lax, raw json.RawMessage, path string) (CompactionSummaryChunk, error) {
	var w struct {
		CompactionID json.RawMessage `json:"compactionId"`
		Content      json.RawMessage `json:"content"`
		Meta         json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return CompactionSummaryChunk{}, err
	}
	f := &fields{l: l, path: path}
	id := f.str(w.CompactionID, "compactionId", required)
	if f.err != nil {
		return CompactionSummaryChunk{}, f.err
	}
	content, err := laxContentBlock(l, w.Content, member(path, "content"))
	if err != nil {
		return CompactionSummaryChunk{}, err
	}
	return CompactionSummaryChunk{CompactionID: id, Content: content, Meta: w.Meta}, nil
}

// ---------------------------------------------------------------------------
// handshake results

// whole decodes an object with its type's own (strict) decoding: a value
// with a malformed member is wrong as a whole.
func whole[T any](_ *lax, raw json.RawMessage, path string) (T, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, errors.New(at(path, problem(err, raw)))
	}
	return v, nil
}

// boolean decodes an optional boolean member: a malformed one is false.
func (f *fields) boolean(raw json.RawMessage, name string) bool {
	return val(scalar[bool](f, raw, name, "a boolean", optional))
}

func laxInitialize(l *lax, raw json.RawMessage, path string) (InitializeResponse, error) {
	var w struct {
		ProtocolVersion   json.RawMessage `json:"protocolVersion"`
		AgentCapabilities json.RawMessage `json:"agentCapabilities"`
		AuthMethods       json.RawMessage `json:"authMethods"`
		AgentInfo         json.RawMessage `json:"agentInfo"`
		Meta              json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return InitializeResponse{}, err
	}
	f := &fields{l: l, path: path}
	r := InitializeResponse{
		ProtocolVersion:   val(scalar[int](f, w.ProtocolVersion, "protocolVersion", "an integer", required)),
		AgentCapabilities: val(nested(f, w.AgentCapabilities, "agentCapabilities", optional, laxAgentCapabilities)),
		AuthMethods:       list(f, w.AuthMethods, "authMethods", whole[AuthMethod]),
		AgentInfo:         nested(f, w.AgentInfo, "agentInfo", optional, whole[Implementation]),
		Meta:              w.Meta,
	}
	if f.err != nil { // protocolVersion's: the only required member
		return r, fmt.Errorf("%w, got %s", ErrBadProtocolVersion, describe(w.ProtocolVersion))
	}
	return r, nil
}

func laxAgentCapabilities(l *lax, raw json.RawMessage, path string) (AgentCapabilities, error) {
	var w struct {
		LoadSession         json.RawMessage `json:"loadSession"`
		PromptCapabilities  json.RawMessage `json:"promptCapabilities"`
		McpCapabilities     json.RawMessage `json:"mcpCapabilities"`
		SessionCapabilities json.RawMessage `json:"sessionCapabilities"`
		Auth                json.RawMessage `json:"auth"`
		Meta                json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return AgentCapabilities{}, err
	}
	f := &fields{l: l, path: path}
	return AgentCapabilities{
		LoadSession:         f.boolean(w.LoadSession, "loadSession"),
		PromptCapabilities:  val(nested(f, w.PromptCapabilities, "promptCapabilities", optional, laxPromptCapabilities)),
		McpCapabilities:     val(nested(f, w.McpCapabilities, "mcpCapabilities", optional, laxMcpCapabilities)),
		SessionCapabilities: val(nested(f, w.SessionCapabilities, "sessionCapabilities", optional, laxSessionCapabilities)),
		Auth:                val(nested(f, w.Auth, "auth", optional, laxAgentAuth)),
		Meta:                w.Meta,
	}, f.err
}

func laxPromptCapabilities(l *lax, raw json.RawMessage, path string) (PromptCapabilities, error) {
	var w struct {
		Image           json.RawMessage `json:"image"`
		Audio           json.RawMessage `json:"audio"`
		EmbeddedContext json.RawMessage `json:"embeddedContext"`
		Meta            json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return PromptCapabilities{}, err
	}
	f := &fields{l: l, path: path}
	return PromptCapabilities{Image: f.boolean(w.Image, "image"), Audio: f.boolean(w.Audio, "audio"),
		EmbeddedContext: f.boolean(w.EmbeddedContext, "embeddedContext"), Meta: w.Meta}, f.err
}

func laxMcpCapabilities(l *lax, raw json.RawMessage, path string) (McpCapabilities, error) {
	var w struct {
		HTTP json.RawMessage `json:"http"`
		SSE  json.RawMessage `json:"sse"`
		Meta json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return McpCapabilities{}, err
	}
	f := &fields{l: l, path: path}
	return McpCapabilities{HTTP: f.boolean(w.HTTP, "http"), SSE: f.boolean(w.SSE, "sse"), Meta: w.Meta}, f.err
}

func laxSessionCapabilities(l *lax, raw json.RawMessage, path string) (SessionCapabilities, error) {
	var w struct {
		List                  json.RawMessage `json:"list"`
		Delete                json.RawMessage `json:"delete"`
		AdditionalDirectories json.RawMessage `json:"additionalDirectories"`
		Resume                json.RawMessage `json:"resume"`
		Close                 json.RawMessage `json:"close"`
		Meta                  json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return SessionCapabilities{}, err
	}
	f := &fields{l: l, path: path}
	return SessionCapabilities{
		List:                  nested(f, w.List, "list", optional, whole[Capability]),
		Delete:                nested(f, w.Delete, "delete", optional, whole[Capability]),
		AdditionalDirectories: nested(f, w.AdditionalDirectories, "additionalDirectories", optional, whole[Capability]),
		Resume:                nested(f, w.Resume, "resume", optional, whole[Capability]),
		Close:                 nested(f, w.Close, "close", optional, whole[Capability]),
		Meta:                  w.Meta,
	}, f.err
}

func laxAgentAuth(l *lax, raw json.RawMessage, path string) (AgentAuthCapabilities, error) {
	var w struct {
		Logout json.RawMessage `json:"logout"`
		Meta   json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return AgentAuthCapabilities{}, err
	}
	f := &fields{l: l, path: path}
	return AgentAuthCapabilities{Logout: nested(f, w.Logout, "logout", optional, whole[Capability]), Meta: w.Meta}, f.err
}

// laxSessionState decodes what session/new, session/load and
// session/resume answer: the session's id (session/new's only) and its
// optional modes, config options and legacy models.
func laxSessionState(l *lax, raw json.RawMessage, path string, withID bool) (NewSessionResponse, error) {
	var w struct {
		SessionID     json.RawMessage `json:"sessionId"`
		Modes         json.RawMessage `json:"modes"`
		ConfigOptions json.RawMessage `json:"configOptions"`
		Models        json.RawMessage `json:"models"`
		Meta          json.RawMessage `json:"_meta"`
	}
	if err := object(raw, path, &w); err != nil {
		return NewSessionResponse{}, err
	}
	f := &fields{l: l, path: path}
	r := NewSessionResponse{
		Modes:         nested(f, w.Modes, "modes", optional, whole[SessionModeState]),
		ConfigOptions: list(f, w.ConfigOptions, "configOptions", laxConfigOption),
		Models:        nested(f, w.Models, "models", optional, whole[SessionModelState]),
		Meta:          w.Meta,
	}
	if withID {
		r.SessionID = f.str(w.SessionID, "sessionId", required)
	}
	return r, f.err
}

// ---------------------------------------------------------------------------
// entry points

// laxInto decodes data leniently with dec and stores the result in *dst.
func laxInto[T any](dst **T, l *lax, data []byte, dec func(*lax, json.RawMessage, string) (T, error)) error {
	v, err := dec(l, data, "")
	if err != nil {
		return err
	}
	*dst = &v
	return nil
}

// decodeLenient decodes the payload of u's known Kind leniently, returning
// what it replaced.
func (u *SessionUpdate) decodeLenient(data []byte) ([]string, error) {
	l := &lax{}
	var err error
	switch u.Kind {
	case UpdateUserMessageChunk:
		err = laxInto(&u.UserMessageChunk, l, data, laxContentChunk)
	case UpdateAgentMessageChunk:
		err = laxInto(&u.AgentMessageChunk, l, data, laxContentChunk)
	case UpdateAgentThoughtChunk:
		err = laxInto(&u.AgentThoughtChunk, l, data, laxContentChunk)
	case UpdateToolCall:
		err = laxInto(&u.ToolCall, l, data, laxToolCall)
	case UpdateToolCallUpdate:
		err = laxInto(&u.ToolCallUpdate, l, data, laxToolCallUpdate)
	case UpdatePlan:
		err = laxInto(&u.Plan, l, data, laxPlan)
	case UpdateAvailableCommandsUpdate:
		err = laxInto(&u.AvailableCommandsUpdate, l, data, laxAvailableCommands)
	case UpdateCurrentModeUpdate:
		err = laxInto(&u.CurrentModeUpdate, l, data, laxCurrentMode)
	case UpdateConfigOptionUpdate:
		err = laxInto(&u.ConfigOptionUpdate, l, data, laxConfigOptions)
	case UpdateSessionInfoUpdate:
		err = laxInto(&u.SessionInfoUpdate, l, data, laxSessionInfo)
	case UpdateUsageUpdate:
		err = laxInto(&u.UsageUpdate, l, data, laxUsage)
	case UpdateNotice:
		err = laxInto(&u.Notice, l, data, laxNotice)
	case UpdateCompactionUpdate:
		err = laxInto(&u.CompactionUpdate, l, data, laxCompaction)
	case UpdateCompactionSummaryChunk:
		err = laxInto(&u.CompactionSummaryChunk, l, data, laxCompactionChunk)
	}
	return l.malformed, err
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
// without this check) and fails when one of names, the members the schema
// requires, is missing or null: a plain decode would take it as its zero
// value, and serve a write without content as one that empties the file.
// The error names the first such member, at path ("env: value is
// required").
func decodeRequired(data []byte, v any, path string, names ...string) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
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
	return nil
}

// present is whether a member has a value: false for null.
type present bool

func (p *present) UnmarshalJSON(raw []byte) error {
	*p = present(!isNull(raw))
	return nil
}
