package acp

import (
	"bytes"
	"fmt"
	"reflect"

	json "github.com/go-json-experiment/json/v1"
)

// Session update kinds: every variant of the schema's SessionUpdate (the
// "sessionUpdate" discriminator).
const (
	UpdateUserMessageChunk        = "user_message_chunk"
	UpdateAgentMessageChunk       = "agent_message_chunk"
	UpdateAgentThoughtChunk       = "agent_thought_chunk"
	UpdateToolCall                = "tool_call"
	UpdateToolCallUpdate          = "tool_call_update"
	UpdatePlan                    = "plan"
	UpdateAvailableCommandsUpdate = "available_commands_update"
	UpdateCurrentModeUpdate       = "current_mode_update"
	UpdateConfigOptionUpdate      = "config_option_update"
	UpdateSessionInfoUpdate       = "session_info_update"
	UpdateUsageUpdate             = "usage_update"
	UpdateNotice                  = "notice"
	UpdateCompactionUpdate        = "compaction_update"
	UpdateCompactionSummaryChunk  = "compaction_summary_chunk"
)

// SessionUpdate is the "update" of a session/update notification.
//
// Kind is the "sessionUpdate" discriminator, verbatim. For a known kind exactly the
// matching payload field is set; for an unknown kind (an unstable or non-standard
// variant such as "plan_update" or "agent_error") no payload field is set and only Raw
// carries the data. Raw is always the whole update object as received.
//
// MarshalJSON emits {"sessionUpdate": Kind, ...payload fields} from the payload field
// matching Kind, or Raw verbatim for an unknown kind.
type SessionUpdate struct {
	Kind string

	UserMessageChunk        *ContentChunk
	AgentMessageChunk       *ContentChunk
	AgentThoughtChunk       *ContentChunk
	ToolCall                *ToolCall
	ToolCallUpdate          *ToolCallUpdate
	Plan                    *Plan
	AvailableCommandsUpdate *AvailableCommandsUpdate
	CurrentModeUpdate       *CurrentModeUpdate
	ConfigOptionUpdate      *ConfigOptionUpdate
	SessionInfoUpdate       *SessionInfoUpdate
	UsageUpdate             *UsageUpdate
	Notice                  *Notice
	CompactionUpdate        *CompactionUpdate
	CompactionSummaryChunk  *CompactionSummaryChunk

	// Raw is the whole update object as received (always set by UnmarshalJSON).
	Raw json.RawMessage

	// Malformed lists what UnmarshalJSON replaced: optional fields whose
	// value was malformed and took their default, and invalid list items it
	// left out (the schema's x-deserialize-default-on-error and
	// x-deserialize-skip-invalid-items). Each entry names the field by its
	// JSON path in the update and says what was wrong, e.g.
	// `locations[0].line: want a non-negative integer, got string "3"; the field took
	// its default`. An item left out (or an optional object ignored) has
	// one entry, with the reason:
	// `locations[0].path: want a string, got number 5 (item skipped)`, and
	// none for what was replaced inside it. It is nil for a well-formed
	// update and is not marshalled.
	Malformed []string
}

// Known reports whether the update's Kind is one of the variants of ACP v1.
func (u *SessionUpdate) Known() bool {
	_, ok := u.payload()
	return ok
}

// payload returns the payload field matching Kind (possibly a nil pointer) and
// whether Kind is known. The pointer is returned as a settable target for decoding.
func (u *SessionUpdate) payload() (any, bool) {
	switch u.Kind {
	case UpdateUserMessageChunk:
		return &u.UserMessageChunk, true
	case UpdateAgentMessageChunk:
		return &u.AgentMessageChunk, true
	case UpdateAgentThoughtChunk:
		return &u.AgentThoughtChunk, true
	case UpdateToolCall:
		return &u.ToolCall, true
	case UpdateToolCallUpdate:
		return &u.ToolCallUpdate, true
	case UpdatePlan:
		return &u.Plan, true
	case UpdateAvailableCommandsUpdate:
		return &u.AvailableCommandsUpdate, true
	case UpdateCurrentModeUpdate:
		return &u.CurrentModeUpdate, true
	case UpdateConfigOptionUpdate:
		return &u.ConfigOptionUpdate, true
	case UpdateSessionInfoUpdate:
		return &u.SessionInfoUpdate, true
	case UpdateUsageUpdate:
		return &u.UsageUpdate, true
	case UpdateNotice:
		return &u.Notice, true
	case UpdateCompactionUpdate:
		return &u.CompactionUpdate, true
	case UpdateCompactionSummaryChunk:
		return &u.CompactionSummaryChunk, true
	}
	return nil, false
}

// updateHead is what an update is decoded into first: its kind, and the
// members of a message, thought or user chunk, the updates that come by the
// thousand in a turn. A well-formed chunk of a known content type is then
// decoded in that one pass; any other update is decoded again, into the
// payload of its kind.
type updateHead struct {
	SessionUpdate *string           `json:"sessionUpdate"`
	Content       *contentBlockWire `json:"content"`
	MessageID     string            `json:"messageId"`
	Meta          json.RawMessage   `json:"_meta"`
}

// UnmarshalJSON reads "sessionUpdate" first and then decodes the object into exactly
// the matching payload field. Unknown kinds are kept in Raw only; unknown fields are
// ignored. A malformed optional field takes its default value and an invalid list item
// is left out, as the schema says, and both are listed in Malformed. A missing
// discriminator or a malformed required field of a known kind is an error naming the
// kind and the field.
//
// Its errors say what is wrong in the schema's words (see updateError).
func (u *SessionUpdate) UnmarshalJSON(data []byte) error {
	var head updateHead
	if json.Unmarshal(data, &head) != nil {
		// Not a well-formed chunk: the kind alone.
		var kind struct {
			SessionUpdate json.RawMessage `json:"sessionUpdate"`
		}
		if err := json.Unmarshal(data, &kind); err != nil {
			return &updateError{Problem: problem(err, data), Err: err}
		}
		head = updateHead{}
		if len(kind.SessionUpdate) > 0 && !isNull(kind.SessionUpdate) {
			head.SessionUpdate = new(string)
			if err := json.Unmarshal(kind.SessionUpdate, head.SessionUpdate); err != nil {
				return &updateError{Problem: "sessionUpdate: " + wrongType("a string", kind.SessionUpdate), Err: err}
			}
		}
	}
	if head.SessionUpdate == nil {
		return &updateError{Problem: "missing sessionUpdate"}
	}
	*u = SessionUpdate{Kind: *head.SessionUpdate, Raw: append(json.RawMessage(nil), data...)}
	if u.chunk(&head) {
		return nil
	}
	target, ok := u.payload()
	if !ok {
		return nil
	}
	if json.Unmarshal(data, target) == nil {
		return nil
	}
	// Something is malformed: decode again, leniently, to keep what can be kept.
	*u = SessionUpdate{Kind: u.Kind, Raw: u.Raw}
	malformed, err := u.decodeLenient(data)
	if err != nil {
		return &updateError{Kind: u.Kind, Problem: err.Error(), Err: err}
	}
	u.Malformed = malformed
	return nil
}

// updateError is the error of decoding a session update that the schema
// does not allow.
type updateError struct {
	// Kind is the update's sessionUpdate when it is a known kind whose
	// payload is malformed, "" when the update is not even an object with
	// a sessionUpdate.
	Kind string
	// Problem says what is wrong in the schema's words, starting with the
	// path of the member within the update when it is about one:
	// "sessionUpdate: want a string, got number 7", "missing
	// sessionUpdate", "title: want a string, got number 5".
	Problem string
	Err     error // the decoding's own error, if any
}

func (e *updateError) Error() string {
	if e.Kind != "" {
		return fmt.Sprintf("session update %q: %s", e.Kind, e.Problem)
	}
	return "session update: " + e.Problem
}

func (e *updateError) Unwrap() error { return e.Err }

// at says the error as that of the update at path in a message:
// "update.title: want a string, got number 5 (sessionUpdate "tool_call")".
func (e *updateError) at(path string) string {
	msg := at(path, e.Problem)
	if problemPath.MatchString(e.Problem) {
		msg = member(path, e.Problem)
	}
	if e.Kind != "" {
		msg += fmt.Sprintf(" (sessionUpdate %q)", e.Kind)
	}
	return msg
}

// chunk sets the payload of a chunk update from its head, and reports
// whether it did: the kind is a chunk's, and the head holds a content
// block of a known type, which is what decoding into ContentChunk gives.
func (u *SessionUpdate) chunk(head *updateHead) bool {
	if head.Content == nil || head.Content.Type == nil {
		return false
	}
	c := &ContentChunk{Content: head.Content.block(), MessageID: head.MessageID, Meta: head.Meta}
	if !c.Content.known() {
		return false // its Raw is needed
	}
	switch u.Kind {
	case UpdateAgentMessageChunk:
		u.AgentMessageChunk = c
	case UpdateAgentThoughtChunk:
		u.AgentThoughtChunk = c
	case UpdateUserMessageChunk:
		u.UserMessageChunk = c
	default:
		return false
	}
	return true
}

// MarshalJSON encodes the update with its discriminator first.
func (u SessionUpdate) MarshalJSON() ([]byte, error) {
	target, ok := u.payload()
	if !ok {
		if len(u.Raw) == 0 {
			return nil, fmt.Errorf("session update %q: unknown kind without raw JSON", u.Kind)
		}
		return u.Raw, nil
	}
	body, err := json.Marshal(target)
	if err != nil {
		return nil, fmt.Errorf("session update %q: %w", u.Kind, err)
	}
	if bytes.Equal(body, []byte("null")) {
		return nil, fmt.Errorf("session update %q: no payload", u.Kind)
	}
	kind, err := json.Marshal(u.Kind)
	if err != nil {
		return nil, fmt.Errorf("session update %q: %w", u.Kind, err)
	}
	var b bytes.Buffer
	b.WriteString(`{"sessionUpdate":`)
	b.Write(kind)
	if rest := bytes.TrimSpace(body[1:]); len(rest) > 0 && rest[0] != '}' {
		b.WriteByte(',')
	}
	b.Write(body[1:])
	return b.Bytes(), nil
}

// ContentChunk is the payload of user_message_chunk, agent_message_chunk and
// agent_thought_chunk. Chunks with the same MessageID belong to one message.
type ContentChunk struct {
	Content   ContentBlock    `json:"content"`
	MessageID string          `json:"messageId,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// ---------------------------------------------------------------------------
// tool calls

// ToolKind is the category of a tool call (a UI hint). Unknown values are kept verbatim.
type ToolKind string

// Tool kinds defined by ACP v1.
const (
	KindRead       ToolKind = "read"
	KindEdit       ToolKind = "edit"
	KindDelete     ToolKind = "delete"
	KindMove       ToolKind = "move"
	KindSearch     ToolKind = "search"
	KindExecute    ToolKind = "execute"
	KindThink      ToolKind = "think"
	KindFetch      ToolKind = "fetch"
	KindSwitchMode ToolKind = "switch_mode"
	KindOther      ToolKind = "other"
)

// Known reports whether k is one of the tool kinds defined by ACP v1.
func (k ToolKind) Known() bool {
	switch k {
	case KindRead, KindEdit, KindDelete, KindMove, KindSearch, KindExecute, KindThink, KindFetch, KindSwitchMode, KindOther:
		return true
	}
	return false
}

// ToolCallStatus is the execution status of a tool call. Unknown values are kept verbatim.
type ToolCallStatus string

// Tool call statuses defined by ACP v1 (there is no "cancelled" in v1).
const (
	StatusPending    ToolCallStatus = "pending"
	StatusInProgress ToolCallStatus = "in_progress"
	StatusCompleted  ToolCallStatus = "completed"
	StatusFailed     ToolCallStatus = "failed"
)

// Known reports whether s is one of the tool call statuses defined by ACP v1.
func (s ToolCallStatus) Known() bool {
	switch s {
	case StatusPending, StatusInProgress, StatusCompleted, StatusFailed:
		return true
	}
	return false
}

// ToolCall is the payload of a tool_call update, and the merged record of a tool call.
// Empty optional scalars are omitted when marshalled (Kind and Status then default to
// "other" and "pending" on the wire); Content and Locations are emitted when non-nil,
// even when empty (omitzero), and decoding keeps an empty array as a non-nil empty slice.
type ToolCall struct {
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title"`
	Name       string             `json:"name,omitempty"`
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitzero"`
	Locations  []ToolCallLocation `json:"locations,omitzero"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
	Meta       json.RawMessage    `json:"_meta,omitempty"`
}

// Apply merges an update into the record: scalar fields present in u replace the
// record's, Content and Locations replace the whole collection when non-nil (an empty
// slice clears it), and RawInput, RawOutput and Meta replace when present and not
// null (null, like absent, leaves the recorded value). The record's ToolCallID is kept.
func (t *ToolCall) Apply(u *ToolCallUpdate) {
	if u.Title != nil {
		t.Title = *u.Title
	}
	if u.Name != nil {
		t.Name = *u.Name
	}
	if u.Kind != nil {
		t.Kind = *u.Kind
	}
	if u.Status != nil {
		t.Status = *u.Status
	}
	if u.Content != nil {
		t.Content = append([]ToolCallContent{}, u.Content...)
	}
	if u.Locations != nil {
		t.Locations = append([]ToolCallLocation{}, u.Locations...)
	}
	if !absent(u.RawInput) {
		t.RawInput = u.RawInput
	}
	if !absent(u.RawOutput) {
		t.RawOutput = u.RawOutput
	}
	if !absent(u.Meta) {
		t.Meta = u.Meta
	}
}

// ToolCallUpdate is the payload of a tool_call_update and the toolCall of a permission
// request. Only ToolCallID is required; a nil pointer or nil slice, or a null
// RawInput, RawOutput or Meta, means "absent, unchanged". Decoding keeps the
// difference between an absent (or null) collection (nil) and an empty one (non-nil,
// length 0: replace with none), and marshalling emits every non-nil collection, even
// an empty one (omitzero).
type ToolCallUpdate struct {
	ToolCallID string             `json:"toolCallId"`
	Title      *string            `json:"title,omitempty"`
	Name       *string            `json:"name,omitempty"`
	Kind       *ToolKind          `json:"kind,omitempty"`
	Status     *ToolCallStatus    `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitzero"`
	Locations  []ToolCallLocation `json:"locations,omitzero"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
	Meta       json.RawMessage    `json:"_meta,omitempty"`
}

// ToolCall returns a record built from the update alone, for an update about a tool
// call that was never announced. Absent fields stay empty.
func (u ToolCallUpdate) ToolCall() ToolCall {
	t := ToolCall{ToolCallID: u.ToolCallID}
	t.Apply(&u)
	return t
}

// Tool call content types (the ToolCallContent "type" discriminator).
const (
	ToolContentBlock    = "content"
	ToolContentDiff     = "diff"
	ToolContentTerminal = "terminal"
)

// ToolCallContent is one item of a tool call's content: a flat union of the schema's
// Content ({"type":"content","content":ContentBlock}), Diff (Path, OldText, NewText;
// OldText nil = new file) and Terminal (TerminalID) shapes, discriminated by Type.
// MarshalJSON emits only the fields of Type's shape. An item of an unknown type keeps its
// JSON in Raw when decoded and is marshalled from Raw verbatim.
type ToolCallContent struct {
	Type       string          `json:"type"`
	Content    *ContentBlock   `json:"content"`
	Path       string          `json:"path"`
	OldText    *string         `json:"oldText"`
	NewText    string          `json:"newText"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta"`
	// Raw holds the whole item as received when Type is unknown.
	Raw json.RawMessage `json:"-"`
}

// BlockToolContent returns a "content" tool call content item wrapping b.
func BlockToolContent(b ContentBlock) ToolCallContent {
	return ToolCallContent{Type: ToolContentBlock, Content: &b}
}

// DiffToolContent returns a "diff" tool call content item; a nil oldText means a new file.
func DiffToolContent(path string, oldText *string, newText string) ToolCallContent {
	return ToolCallContent{Type: ToolContentDiff, Path: path, OldText: oldText, NewText: newText}
}

// TerminalToolContent returns a "terminal" tool call content item.
func TerminalToolContent(terminalID string) ToolCallContent {
	return ToolCallContent{Type: ToolContentTerminal, TerminalID: terminalID}
}

type (
	toolBlockWire struct {
		Type    string          `json:"type"`
		Content *ContentBlock   `json:"content"`
		Meta    json.RawMessage `json:"_meta,omitempty"`
	}
	toolDiffWire struct {
		Type    string          `json:"type"`
		Path    string          `json:"path"`
		OldText *string         `json:"oldText,omitempty"`
		NewText string          `json:"newText"`
		Meta    json.RawMessage `json:"_meta,omitempty"`
	}
	toolTerminalWire struct {
		Type       string          `json:"type"`
		TerminalID string          `json:"terminalId"`
		Meta       json.RawMessage `json:"_meta,omitempty"`
	}
)

// MarshalJSON encodes the item with exactly the fields of its Type.
func (c ToolCallContent) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ToolContentBlock:
		if c.Content == nil {
			return nil, fmt.Errorf("tool call content: %q item without content block", c.Type)
		}
		return json.Marshal(toolBlockWire{c.Type, c.Content, c.Meta})
	case ToolContentDiff:
		return json.Marshal(toolDiffWire{c.Type, c.Path, c.OldText, c.NewText, c.Meta})
	case ToolContentTerminal:
		return json.Marshal(toolTerminalWire{c.Type, c.TerminalID, c.Meta})
	}
	if len(c.Raw) == 0 {
		return nil, fmt.Errorf("tool call content: unknown type %q without raw JSON", c.Type)
	}
	return c.Raw, nil
}

// UnmarshalJSON decodes any tool call content item; unknown fields are ignored and a
// missing "type" is an error. For a "content" item, the nested block is decoded only
// when the type is "content".
func (c *ToolCallContent) UnmarshalJSON(data []byte) error {
	var probe struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("tool call content: %w", err)
	}
	if probe.Type == nil {
		return fmt.Errorf("tool call content: missing type")
	}
	*c = ToolCallContent{Type: *probe.Type}
	if _, known := toolContentRoles[c.Type]; !known {
		c.Raw = append(json.RawMessage(nil), data...)
		return nil
	}
	type toolContentWire ToolCallContent // the name its errors give
	var w toolContentWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("tool call content %q: %w", c.Type, err)
	}
	*c = ToolCallContent(w)
	return nil
}

// ToolCallLocation is a file location a tool call touches. Line is 1-based.
type ToolCallLocation struct {
	Path string          `json:"path"`
	Line *int            `json:"line,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the location, whose line is an integer of at
// least 0: a negative one is an error. A SessionUpdate's or a permission
// request's lenient decoding says which, and the line takes its default.
func (l *ToolCallLocation) UnmarshalJSON(data []byte) error {
	type plain ToolCallLocation
	return decodeUnsigned(data, (*plain)(l), reflect.TypeFor[ToolCallLocation]())
}

// ---------------------------------------------------------------------------
// plans, commands, modes, config, info, usage

// PlanEntryPriority is the priority of a plan entry. Unknown values are kept verbatim.
type PlanEntryPriority string

// Plan entry priorities defined by ACP v1.
const (
	PriorityHigh   PlanEntryPriority = "high"
	PriorityMedium PlanEntryPriority = "medium"
	PriorityLow    PlanEntryPriority = "low"
)

// PlanEntryStatus is the status of a plan entry. Unknown values are kept verbatim.
type PlanEntryStatus string

// Plan entry statuses defined by ACP v1.
const (
	PlanPending    PlanEntryStatus = "pending"
	PlanInProgress PlanEntryStatus = "in_progress"
	PlanCompleted  PlanEntryStatus = "completed"
)

// Plan is the payload of a plan update: the complete plan, replacing any earlier one.
// Entries marshals as [] when nil.
type Plan struct {
	Entries List[PlanEntry] `json:"entries"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// PlanEntry is one step of a plan.
type PlanEntry struct {
	Content  string            `json:"content"`
	Priority PlanEntryPriority `json:"priority"`
	Status   PlanEntryStatus   `json:"status"`
	Meta     json.RawMessage   `json:"_meta,omitempty"`
}

// AvailableCommandsUpdate is the payload of an available_commands_update: the complete
// command list. AvailableCommands marshals as [] when nil.
type AvailableCommandsUpdate struct {
	AvailableCommands List[AvailableCommand] `json:"availableCommands"`
	Meta              json.RawMessage        `json:"_meta,omitempty"`
}

// AvailableCommand is a slash command the agent offers (sent as plain text "/name …").
type AvailableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *AvailableCommandInput `json:"input,omitempty"`
	Meta        json.RawMessage        `json:"_meta,omitempty"`
}

// AvailableCommandInput describes a command's free-form input.
type AvailableCommandInput struct {
	Hint string          `json:"hint"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// CurrentModeUpdate is the payload of a current_mode_update.
type CurrentModeUpdate struct {
	CurrentModeID string          `json:"currentModeId"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// ConfigOptionUpdate is the payload of a config_option_update: the complete option
// state. ConfigOptions marshals as [] when nil.
type ConfigOptionUpdate struct {
	ConfigOptions List[SessionConfigOption] `json:"configOptions"`
	Meta          json.RawMessage           `json:"_meta,omitempty"`
}

// SessionInfoUpdate is the payload of a session_info_update. A nil field is unchanged;
// a JSON null (clear) decodes as a pointer to "".
type SessionInfoUpdate struct {
	Title     *string         `json:"title,omitempty"`
	UpdatedAt *string         `json:"updatedAt,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the update, mapping null fields to pointers to "".
func (s *SessionInfoUpdate) UnmarshalJSON(data []byte) error {
	var w struct {
		Title     json.RawMessage `json:"title"`
		UpdatedAt json.RawMessage `json:"updatedAt"`
		Meta      json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("session info update: %w", err)
	}
	*s = SessionInfoUpdate{Meta: w.Meta}
	var err error
	if s.Title, err = nullableString(w.Title); err != nil {
		return fmt.Errorf("session info update: title: %w", err)
	}
	if s.UpdatedAt, err = nullableString(w.UpdatedAt); err != nil {
		return fmt.Errorf("session info update: updatedAt: %w", err)
	}
	return nil
}

// nullableString decodes an optional nullable string: absent → nil, null → "".
func nullableString(raw json.RawMessage) (*string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var s *string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s == nil {
		s = new(string)
	}
	return s, nil
}

// UsageUpdate is the payload of a usage_update: context tokens used, the context window
// size, and the optional cumulative cost.
type UsageUpdate struct {
	Used int64           `json:"used"`
	Size int64           `json:"size"`
	Cost *Cost           `json:"cost,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Cost is a cumulative session cost.
type Cost struct {
	Amount   float64         `json:"amount"`
	Currency string          `json:"currency"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// NoticeSeverity is the severity of a notice. Unknown values are kept verbatim.
type NoticeSeverity string

// Notice severities defined by ACP v1.
const (
	SeverityInfo    NoticeSeverity = "info"
	SeverityWarning NoticeSeverity = "warning"
	SeverityError   NoticeSeverity = "error"
)

// Notice is the payload of a notice update: a live hint, not part of history.
type Notice struct {
	Severity    NoticeSeverity  `json:"severity"`
	Title       string          `json:"title"`
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// CompactionStatus is the status of a context compaction. Unknown values are kept verbatim.
type CompactionStatus string

// Compaction statuses defined by ACP v1.
const (
	CompactionInProgress CompactionStatus = "in_progress"
	CompactionCompleted  CompactionStatus = "completed"
	CompactionFailed     CompactionStatus = "failed"
	CompactionCancelled  CompactionStatus = "cancelled"
)

// CompactionUpdate is the payload of a compaction_update (patch semantics: nil Summary
// and empty Error are unchanged).
type CompactionUpdate struct {
	CompactionID string           `json:"compactionId"`
	Status       CompactionStatus `json:"status"`
	Summary      []ContentBlock   `json:"summary,omitempty"`
	Error        string           `json:"error,omitempty"`
	Meta         json.RawMessage  `json:"_meta,omitempty"`
}

// CompactionSummaryChunk is the payload of a compaction_summary_chunk: one content
// block appended to the compaction's summary.
type CompactionSummaryChunk struct {
	CompactionID string          `json:"compactionId"`
	Content      ContentBlock    `json:"content"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}
