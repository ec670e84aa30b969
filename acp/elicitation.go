package acp

import (
	"maps"
	"slices"

	json "github.com/go-json-experiment/json/v1"
)

// Elicitation methods: the agent asks the client (its user) for input.
const (
	MethodElicitationCreate   = "elicitation/create"
	MethodElicitationComplete = "elicitation/complete"
)

// Elicitation modes (the CreateElicitationRequest "mode" discriminator).
// Other values are kept verbatim.
const (
	ElicitationForm = "form"
	ElicitationURL  = "url"
)

// Elicitation actions (the CreateElicitationResponse "action"
// discriminator).
const (
	ElicitationAccept  = "accept"
	ElicitationDecline = "decline"
	ElicitationCancel  = "cancel"
)

// ElicitationCapabilities says which elicitation modes the client
// supports: a non-nil mode is supported. An ElicitationCapabilities with no
// mode advertises none.
type ElicitationCapabilities struct {
	Form *Capability     `json:"form,omitempty"`
	URL  *Capability     `json:"url,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// CreateElicitationRequest is the params of "elicitation/create", a flat
// union of the schema's modes and scopes: Mode is ElicitationForm (with
// RequestedSchema), ElicitationURL (with ElicitationID and URL) or another
// mode kept verbatim; the request is tied to a session (SessionID, and
// maybe ToolCallID) or to a request of the client (RequestID).
type CreateElicitationRequest struct {
	Message         string             `json:"message"`
	Mode            string             `json:"mode"`
	SessionID       string             `json:"sessionId,omitempty"`
	ToolCallID      string             `json:"toolCallId,omitempty"`
	RequestID       *ID                `json:"requestId,omitempty"`
	RequestedSchema *ElicitationSchema `json:"requestedSchema,omitempty"`
	ElicitationID   string             `json:"elicitationId,omitempty"`
	URL             string             `json:"url,omitempty"`
	Meta            json.RawMessage    `json:"_meta,omitempty"`
}

// ElicitationSchema is the form a form elicitation asks to be filled: a
// flat object schema whose properties are primitive fields.
type ElicitationSchema struct {
	Type        string                         `json:"type,omitempty"` // "object"
	Title       string                         `json:"title,omitempty"`
	Description string                         `json:"description,omitempty"`
	Properties  map[string]ElicitationProperty `json:"properties"`
	Required    []string                       `json:"required,omitempty"`
	Meta        json.RawMessage                `json:"_meta,omitempty"`
}

// Fields returns the names of the schema's properties, sorted.
func (s *ElicitationSchema) Fields() []string {
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.Properties))
}

// Elicitation property types (the ElicitationProperty "type"
// discriminator); others are kept verbatim.
const (
	PropertyString  = "string"
	PropertyNumber  = "number"
	PropertyInteger = "integer"
	PropertyBoolean = "boolean"
	PropertyArray   = "array" // a multi-select: strings out of Items' choices
)

// ElicitationProperty is one field of an elicitation form. A string with
// Enum or OneOf is a single choice; an array is a multi-select of Items'
// choices. Constraints acprun does not check (lengths, bounds, formats)
// are not decoded.
type ElicitationProperty struct {
	Type        string            `json:"type,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Enum        []string          `json:"enum,omitempty"`
	OneOf       []EnumOption      `json:"oneOf,omitempty"`
	Items       *ElicitationItems `json:"items,omitempty"`
	Default     json.RawMessage   `json:"default,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
}

// Choices returns the values a single-choice string or a multi-select
// allows (Enum, else the consts of OneOf, of Items likewise); nil when any
// value goes.
func (p ElicitationProperty) Choices() []string {
	enum, titled := p.Enum, p.OneOf
	if p.Type == PropertyArray && p.Items != nil {
		enum, titled = p.Items.Enum, p.Items.AnyOf
	}
	if len(enum) > 0 {
		return enum
	}
	var out []string
	for _, o := range titled {
		out = append(out, o.Const)
	}
	return out
}

// ElicitationItems are the choices of a multi-select: plain (Type
// "string", Enum) or titled (AnyOf).
type ElicitationItems struct {
	Type  string          `json:"type,omitempty"`
	Enum  []string        `json:"enum,omitempty"`
	AnyOf []EnumOption    `json:"anyOf,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// EnumOption is a titled choice.
type EnumOption struct {
	Const       string          `json:"const"`
	Title       string          `json:"title"`
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// CreateElicitationResponse is the result of "elicitation/create": Action
// ElicitationAccept with Content (field name to a string, integer, number,
// boolean or string list), ElicitationDecline or ElicitationCancel.
type CreateElicitationResponse struct {
	Action  string          `json:"action"`
	Content map[string]any  `json:"content,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// CompleteElicitationNotification is the params of the
// "elicitation/complete" notification: a URL elicitation is done.
type CompleteElicitationNotification struct {
	ElicitationID string          `json:"elicitationId"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}
