package acp

import (
	"errors"
	"fmt"
	"reflect"

	json "github.com/go-json-experiment/json/v1"
)

// ProtocolVersion is the ACP major protocol version this package speaks.
const ProtocolVersion = 1

// Method names of ACP v1. Client→agent requests and notifications first, then the
// agent→client ones.
const (
	MethodInitialize               = "initialize"
	MethodAuthenticate             = "authenticate"
	MethodSessionNew               = "session/new"
	MethodSessionLoad              = "session/load"
	MethodSessionSetMode           = "session/set_mode"
	MethodSessionSetConfigOption   = "session/set_config_option"
	MethodSessionPrompt            = "session/prompt"
	MethodSessionCancel            = "session/cancel"
	MethodSessionClose             = "session/close"
	MethodSessionUpdate            = "session/update"
	MethodSessionRequestPermission = "session/request_permission"
	MethodFSReadTextFile           = "fs/read_text_file"
	MethodFSWriteTextFile          = "fs/write_text_file"
	MethodTerminalCreate           = "terminal/create"
	MethodTerminalOutput           = "terminal/output"
	MethodTerminalWaitForExit      = "terminal/wait_for_exit"
	MethodTerminalKill             = "terminal/kill"
	MethodTerminalRelease          = "terminal/release"

	// MethodSessionSetModel is the legacy (removed, formerly unstable) model selection
	// method. Only call it if the agent returned Models in its session response.
	MethodSessionSetModel = "session/set_model"
)

// StopReason tells why a prompt turn ended. Unknown values are kept verbatim.
type StopReason string

// Stop reasons defined by ACP v1.
const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

// Known reports whether s is one of the stop reasons defined by ACP v1.
func (s StopReason) Known() bool {
	switch s {
	case StopEndTurn, StopMaxTokens, StopMaxTurnRequests, StopRefusal, StopCancelled:
		return true
	}
	return false
}

// PermissionOptionKind is the kind of a permission option. Unknown values are kept verbatim.
type PermissionOptionKind string

// Permission option kinds defined by ACP v1.
const (
	AllowOnce    PermissionOptionKind = "allow_once"
	AllowAlways  PermissionOptionKind = "allow_always"
	RejectOnce   PermissionOptionKind = "reject_once"
	RejectAlways PermissionOptionKind = "reject_always"
)

// Known reports whether k is one of the permission option kinds defined by ACP v1.
func (k PermissionOptionKind) Known() bool {
	switch k {
	case AllowOnce, AllowAlways, RejectOnce, RejectAlways:
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// initialize

// InitializeRequest is the params of "initialize".
type InitializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
	Meta               json.RawMessage    `json:"_meta,omitempty"`
}

// ClientCapabilities advertises what the client supports. Absent means unsupported.
type ClientCapabilities struct {
	FS       FileSystemCapabilities `json:"fs"`
	Terminal bool                   `json:"terminal"`
	// Auth is optional; Auth.Terminal allows "terminal" auth methods.
	Auth *AuthCapabilities `json:"auth,omitempty"`
	// Session is optional; nil advertises none of the session capabilities.
	Session *ClientSessionCapabilities `json:"session,omitempty"`
	// Elicitation is optional; nil advertises no elicitation mode.
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
	Meta        json.RawMessage          `json:"_meta,omitempty"`
}

// FileSystemCapabilities says which fs/* methods the client serves.
type FileSystemCapabilities struct {
	ReadTextFile  bool            `json:"readTextFile"`
	WriteTextFile bool            `json:"writeTextFile"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// AuthCapabilities are the client's authentication capabilities.
type AuthCapabilities struct {
	Terminal bool            `json:"terminal"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// Capability is an empty capability object whose presence (non-nil) means support,
// as used for many optional capabilities ("list": {}). Nil or JSON null means unsupported.
type Capability struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ClientSessionCapabilities are the client's optional session capabilities.
type ClientSessionCapabilities struct {
	ConfigOptions *SessionConfigOptionsCapabilities `json:"configOptions,omitempty"`
	Notices       *Capability                       `json:"notices,omitempty"`
	Compaction    *Capability                       `json:"compaction,omitempty"`
	Meta          json.RawMessage                   `json:"_meta,omitempty"`
}

// SessionConfigOptionsCapabilities says which optional config option types the client supports.
type SessionConfigOptionsCapabilities struct {
	Boolean *Capability     `json:"boolean,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// Implementation names a client or agent implementation.
type Implementation struct {
	Name    string          `json:"name"`
	Title   string          `json:"title,omitempty"`
	Version string          `json:"version"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// InitializeResponse is the result of "initialize".
type InitializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	// AuthMethods is omitted when empty (the schema's default is []).
	AuthMethods []AuthMethod    `json:"authMethods,omitempty"`
	AgentInfo   *Implementation `json:"agentInfo,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
	// Malformed lists what UnmarshalJSON replaced, as
	// SessionUpdate.Malformed does, with paths such as
	// "agentCapabilities.promptCapabilities.image: want a boolean, got
	// string \"yes\"; the field took its default".
	Malformed []string `json:"-"`
}

// UnmarshalJSON decodes the result. A malformed optional field takes its
// default and an invalid auth method is left out, as the schema says, and
// both are listed in Malformed; a malformed protocolVersion is an error.
func (r *InitializeResponse) UnmarshalJSON(data []byte) error {
	var pv struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
	}
	if err := object(data, "", &pv); err != nil {
		return err
	}
	if absent(pv.ProtocolVersion) {
		return ErrNoProtocolVersion
	}
	type plain InitializeResponse
	if strictOrLax(data, r, (*plain)(r)) != nil { // protocolVersion's: the only required member
		return fmt.Errorf("%w, got %s", ErrBadProtocolVersion, describe(pv.ProtocolVersion))
	}
	return nil
}

// AgentCapabilities advertises what the agent supports. Absent means unsupported.
type AgentCapabilities struct {
	LoadSession         bool                  `json:"loadSession"`
	PromptCapabilities  PromptCapabilities    `json:"promptCapabilities"`
	McpCapabilities     McpCapabilities       `json:"mcpCapabilities"`
	SessionCapabilities SessionCapabilities   `json:"sessionCapabilities"`
	Auth                AgentAuthCapabilities `json:"auth"`
	Meta                json.RawMessage       `json:"_meta,omitempty"`
}

// PromptCapabilities lists the optional prompt content types the agent accepts
// (text and resource_link are always accepted).
type PromptCapabilities struct {
	Image           bool            `json:"image"`
	Audio           bool            `json:"audio"`
	EmbeddedContext bool            `json:"embeddedContext"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// McpCapabilities lists the optional MCP transports the agent supports (stdio is mandatory).
type McpCapabilities struct {
	HTTP bool            `json:"http"`
	SSE  bool            `json:"sse"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// SessionCapabilities lists the optional session methods the agent supports; a non-nil
// field means supported. Unstable capabilities are ignored.
type SessionCapabilities struct {
	List                  *Capability     `json:"list,omitempty"`
	Delete                *Capability     `json:"delete,omitempty"`
	AdditionalDirectories *Capability     `json:"additionalDirectories,omitempty"`
	Resume                *Capability     `json:"resume,omitempty"`
	Close                 *Capability     `json:"close,omitempty"`
	Meta                  json.RawMessage `json:"_meta,omitempty"`
}

// AgentAuthCapabilities are the agent's authentication capabilities.
type AgentAuthCapabilities struct {
	Logout *Capability     `json:"logout,omitempty"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// Auth method types (the AuthMethod "type" discriminator). An absent type means AuthTypeAgent.
const (
	AuthTypeAgent    = "agent"
	AuthTypeTerminal = "terminal"
)

// AuthMethod is one authentication method the agent offers. Type is empty for the
// default "agent" method, AuthTypeTerminal for terminal login, or an unknown type kept
// verbatim (treat it as unusable). Args and Env are only meaningful for terminal methods.
type AuthMethod struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Type        string            `json:"type,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
}

// AuthenticateRequest is the params of "authenticate".
type AuthenticateRequest struct {
	MethodID string          `json:"methodId"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// AuthenticateResponse is the result of "authenticate".
type AuthenticateResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ---------------------------------------------------------------------------
// sessions

// McpServer types (the McpServer "type" discriminator). Stdio servers have no type.
const (
	McpStdio = ""
	McpHTTP  = "http"
	McpSSE   = "sse"
)

// McpServer is an MCP server the agent should connect to. It is a flat union of the
// schema's McpServerStdio (Type empty: Command, Args, Env), McpServerHttp and
// McpServerSse (URL, Headers). MarshalJSON emits exactly the fields of its type, with the
// required arrays as [] when nil. A server of an unknown type keeps its JSON in Raw when
// decoded and is marshalled from Raw verbatim, so servers written in a scenario pass
// through unchanged.
type McpServer struct {
	Type    string          `json:"type"`
	Name    string          `json:"name"`
	Command string          `json:"command"`
	Args    []string        `json:"args"`
	Env     []EnvVariable   `json:"env"`
	URL     string          `json:"url"`
	Headers []HttpHeader    `json:"headers"`
	Meta    json.RawMessage `json:"_meta"`
	// Raw holds the whole server as received when Type is unknown.
	Raw json.RawMessage `json:"-"`
}

type (
	mcpStdioWire struct {
		Name    string            `json:"name"`
		Command string            `json:"command"`
		Args    List[string]      `json:"args"`
		Env     List[EnvVariable] `json:"env"`
		Meta    json.RawMessage   `json:"_meta,omitempty"`
	}
	mcpHTTPWire struct {
		Type    string           `json:"type"`
		Name    string           `json:"name"`
		URL     string           `json:"url"`
		Headers List[HttpHeader] `json:"headers"`
		Meta    json.RawMessage  `json:"_meta,omitempty"`
	}
)

// MarshalJSON encodes the server in the schema shape of its type.
func (s McpServer) MarshalJSON() ([]byte, error) {
	switch s.Type {
	case McpStdio:
		return json.Marshal(mcpStdioWire{s.Name, s.Command, s.Args, s.Env, s.Meta})
	case McpHTTP, McpSSE:
		return json.Marshal(mcpHTTPWire{s.Type, s.Name, s.URL, s.Headers, s.Meta})
	}
	if len(s.Raw) == 0 {
		return nil, fmt.Errorf("mcp server %q: unknown type %q without raw JSON", s.Name, s.Type)
	}
	return s.Raw, nil
}

// UnmarshalJSON decodes any MCP server; unknown fields are ignored.
func (s *McpServer) UnmarshalJSON(data []byte) error {
	type mcpServerWire McpServer // the name its errors give
	var w mcpServerWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("mcp server: %w", err)
	}
	*s = McpServer(w)
	switch s.Type {
	case McpStdio, McpHTTP, McpSSE:
	default:
		s.Raw = append(json.RawMessage(nil), data...)
	}
	return nil
}

// EnvVariable is one environment variable (for MCP stdio servers and terminals).
type EnvVariable struct {
	Name  string          `json:"name"`
	Value string          `json:"value"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the variable, which must have a name and a value
// (see decodeRequired).
func (e *EnvVariable) UnmarshalJSON(data []byte) error {
	type plain EnvVariable
	return decodeRequired(data, (*plain)(e), reflect.TypeFor[EnvVariable](), "env", "name", "value")
}

// HttpHeader is one HTTP header for an MCP http/sse server.
type HttpHeader struct {
	Name  string          `json:"name"`
	Value string          `json:"value"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// NewSessionRequest is the params of "session/new". McpServers always marshals as a
// JSON array: a nil slice is sent as [] (never null), as the protocol requires.
type NewSessionRequest struct {
	Cwd                   string          `json:"cwd"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
	McpServers            List[McpServer] `json:"mcpServers"`
	Meta                  json.RawMessage `json:"_meta,omitempty"`
}

// ErrNoProtocolVersion is the error of an initialize result that has no
// protocolVersion (or a null one), which the protocol requires.
var ErrNoProtocolVersion = errors.New("protocolVersion: none given")

// ErrBadProtocolVersion is wrapped by the error of an initialize result
// whose protocolVersion is not an integer.
var ErrBadProtocolVersion = errors.New("protocolVersion: want an integer")

// NewSessionResponse is the result of "session/new".
type NewSessionResponse struct {
	SessionID     string                `json:"sessionId"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	// Models is the legacy model state (see MethodSessionSetModel).
	Models *SessionModelState `json:"models,omitempty"`
	Meta   json.RawMessage    `json:"_meta,omitempty"`
	// Malformed lists what UnmarshalJSON replaced (see
	// InitializeResponse.Malformed).
	Malformed []string `json:"-"`
}

// UnmarshalJSON decodes the result. Malformed modes, models or config
// options take their default (an invalid config option is left out), as
// the schema says, and are listed in Malformed; a malformed sessionId is
// an error.
func (r *NewSessionResponse) UnmarshalJSON(data []byte) error {
	type plain NewSessionResponse
	return strictOrLax(data, r, (*plain)(r))
}

// LoadSessionRequest is the params of "session/load". McpServers always marshals as a
// JSON array (nil is sent as []).
type LoadSessionRequest struct {
	SessionID             string          `json:"sessionId"`
	Cwd                   string          `json:"cwd"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
	McpServers            List[McpServer] `json:"mcpServers"`
	Meta                  json.RawMessage `json:"_meta,omitempty"`
}

// LoadSessionResponse is the result of "session/load" (a JSON null result decodes as
// the zero value).
type LoadSessionResponse struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Models        *SessionModelState    `json:"models,omitempty"`
	Meta          json.RawMessage       `json:"_meta,omitempty"`
	// Malformed lists what UnmarshalJSON replaced (see
	// InitializeResponse.Malformed).
	Malformed []string `json:"-"`
}

// UnmarshalJSON decodes the result as NewSessionResponse's, without a
// sessionId. A JSON null is the zero value.
func (r *LoadSessionResponse) UnmarshalJSON(data []byte) error {
	type plain LoadSessionResponse
	return strictOrLax(data, r, (*plain)(r))
}

// CloseSessionRequest is the params of "session/close".
type CloseSessionRequest struct {
	SessionID string          `json:"sessionId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// CloseSessionResponse is the result of "session/close".
type CloseSessionResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// SessionModeState is the agent's current mode and the modes it offers.
type SessionModeState struct {
	CurrentModeID  string            `json:"currentModeId"`
	AvailableModes List[SessionMode] `json:"availableModes"`
	Meta           json.RawMessage   `json:"_meta,omitempty"`
}

// SessionMode is one mode an agent can run in.
type SessionMode struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// SetSessionModeRequest is the params of "session/set_mode".
type SetSessionModeRequest struct {
	SessionID string          `json:"sessionId"`
	ModeID    string          `json:"modeId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// SetSessionModeResponse is the result of "session/set_mode".
type SetSessionModeResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// SessionModelState is the legacy (removed from the schema) model state some agents
// still return from session/new and session/load.
type SessionModelState struct {
	CurrentModelID  string          `json:"currentModelId"`
	AvailableModels []ModelInfo     `json:"availableModels"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// ModelInfo is one model in the legacy SessionModelState.
type ModelInfo struct {
	ModelID     string          `json:"modelId"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// SetSessionModelRequest is the params of the legacy "session/set_model".
type SetSessionModelRequest struct {
	SessionID string          `json:"sessionId"`
	ModelID   string          `json:"modelId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// Session config option types (the SessionConfigOption "type" discriminator).
const (
	ConfigSelect  = "select"
	ConfigBoolean = "boolean"
)

// SessionConfigOption is one configurable session setting. Type is ConfigSelect,
// ConfigBoolean or an unknown type kept verbatim (ignore such options).
// CurrentValue is the decoded JSON value: a value id string for "select", a bool for
// "boolean". Options is set for "select" only.
type SessionConfigOption struct {
	ID           string                      `json:"id"`
	Name         string                      `json:"name"`
	Description  string                      `json:"description,omitempty"`
	Category     string                      `json:"category,omitempty"`
	Type         string                      `json:"type"`
	CurrentValue any                         `json:"currentValue"`
	Options      *SessionConfigSelectOptions `json:"options,omitempty"`
	Meta         json.RawMessage             `json:"_meta,omitempty"`
}

// SessionConfigSelectOptions are the possible values of a "select" option: either a
// flat list (Options) or a list of groups (Groups). MarshalJSON emits Groups when set,
// and Options (as [] when nil) otherwise.
type SessionConfigSelectOptions struct {
	Options []SessionConfigSelectOption
	Groups  []SessionConfigSelectGroup
}

// All returns every option value, flattening groups, in order.
func (o *SessionConfigSelectOptions) All() []SessionConfigSelectOption {
	if o == nil {
		return nil
	}
	all := append([]SessionConfigSelectOption(nil), o.Options...)
	for _, g := range o.Groups {
		all = append(all, g.Options...)
	}
	return all
}

// MarshalJSON encodes the options as a flat or grouped array.
func (o SessionConfigSelectOptions) MarshalJSON() ([]byte, error) {
	if len(o.Groups) > 0 {
		return json.Marshal(o.Groups)
	}
	return json.Marshal(List[SessionConfigSelectOption](o.Options))
}

// UnmarshalJSON decodes a flat or grouped option array; an array whose first element
// has a "group" key is grouped.
func (o *SessionConfigSelectOptions) UnmarshalJSON(data []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return fmt.Errorf("config select options: %w", err)
	}
	*o = SessionConfigSelectOptions{}
	if len(items) == 0 {
		o.Options = []SessionConfigSelectOption{}
		return nil
	}
	var probe struct {
		Group *string `json:"group"`
	}
	if err := json.Unmarshal(items[0], &probe); err != nil {
		return fmt.Errorf("config select options: %w", err)
	}
	if probe.Group != nil {
		if err := json.Unmarshal(data, &o.Groups); err != nil {
			return fmt.Errorf("config select groups: %w", err)
		}
		return nil
	}
	if err := json.Unmarshal(data, &o.Options); err != nil {
		return fmt.Errorf("config select options: %w", err)
	}
	return nil
}

// SessionConfigSelectOption is one possible value of a "select" config option.
type SessionConfigSelectOption struct {
	Value       string          `json:"value"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// SessionConfigSelectGroup is a named group of select option values.
type SessionConfigSelectGroup struct {
	Group   string                          `json:"group"`
	Name    string                          `json:"name"`
	Options List[SessionConfigSelectOption] `json:"options"`
	Meta    json.RawMessage                 `json:"_meta,omitempty"`
}

// SetSessionConfigOptionRequest is the params of "session/set_config_option".
// For a select option set Value to the value id (a string) and leave Type empty; for a
// boolean option set Type to ConfigBoolean and Value to a bool.
type SetSessionConfigOptionRequest struct {
	SessionID string          `json:"sessionId"`
	ConfigID  string          `json:"configId"`
	Type      string          `json:"type,omitempty"`
	Value     any             `json:"value"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// SetSessionConfigOptionResponse is the result of "session/set_config_option": the
// complete option state. ConfigOptions marshals as [] when nil.
type SetSessionConfigOptionResponse struct {
	ConfigOptions List[SessionConfigOption] `json:"configOptions"`
	Meta          json.RawMessage           `json:"_meta,omitempty"`
}

// ---------------------------------------------------------------------------
// prompt turn

// PromptRequest is the params of "session/prompt". Prompt marshals as [] when nil.
type PromptRequest struct {
	SessionID string             `json:"sessionId"`
	Prompt    List[ContentBlock] `json:"prompt"`
	Meta      json.RawMessage    `json:"_meta,omitempty"`
}

// PromptResponse is the result of "session/prompt".
type PromptResponse struct {
	StopReason StopReason `json:"stopReason"`
	// Usage is the unstable per-turn token usage, decoded when present.
	Usage *Usage          `json:"usage,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
	// Malformed lists what UnmarshalJSON replaced (see
	// InitializeResponse.Malformed).
	Malformed []string `json:"-"`
}

// UnmarshalJSON decodes the result. A malformed usage is left out, and a
// malformed optional count of it takes its default, as the schema says;
// both are listed in Malformed. A malformed stopReason is an error.
func (r *PromptResponse) UnmarshalJSON(data []byte) error {
	type plain PromptResponse
	return strictOrLax(data, r, (*plain)(r))
}

// Usage is the token usage of a prompt turn (unstable schema: PromptResponse.usage).
type Usage struct {
	TotalTokens       int64           `json:"totalTokens"`
	InputTokens       int64           `json:"inputTokens"`
	OutputTokens      int64           `json:"outputTokens"`
	ThoughtTokens     *int64          `json:"thoughtTokens,omitempty"`
	CachedReadTokens  *int64          `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens *int64          `json:"cachedWriteTokens,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the usage, whose counts are integers of at least
// 0 and whose totalTokens, inputTokens and outputTokens are required: one
// that is not is an error. A PromptResponse's lenient decoding says which.
func (u *Usage) UnmarshalJSON(data []byte) error {
	type plain Usage
	return decodeUnsigned(data, (*plain)(u), reflect.TypeFor[Usage]())
}

// UnmarshalJSON decodes the update (a type of update.go), whose used and
// size are required integers of at least 0: one that is not is an error.
// A SessionUpdate's lenient decoding says which.
func (u *UsageUpdate) UnmarshalJSON(data []byte) error {
	type plain UsageUpdate
	return decodeUnsigned(data, (*plain)(u), reflect.TypeFor[UsageUpdate]())
}

// CancelNotification is the params of the "session/cancel" notification.
type CancelNotification struct {
	SessionID string          `json:"sessionId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// SessionNotification is the params of the "session/update" notification.
type SessionNotification struct {
	SessionID string          `json:"sessionId"`
	Update    SessionUpdate   `json:"update"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// ---------------------------------------------------------------------------
// permission

// RequestPermissionRequest is the params of "session/request_permission".
// Options marshals as [] when nil.
type RequestPermissionRequest struct {
	SessionID string                 `json:"sessionId"`
	ToolCall  ToolCallUpdate         `json:"toolCall"`
	Options   List[PermissionOption] `json:"options"`
	Meta      json.RawMessage        `json:"_meta,omitempty"`

	// Malformed lists what UnmarshalJSON replaced in ToolCall, as
	// SessionUpdate.Malformed does, with paths such as
	// `toolCall.locations[0].line`. It is not marshalled.
	Malformed []string `json:"-"`
}

// UnmarshalJSON decodes the request. A malformed optional field of the tool
// call takes its default and an invalid item of its lists is left out, as
// the schema says, and both are listed in Malformed; anything else
// malformed is an error.
func (r *RequestPermissionRequest) UnmarshalJSON(data []byte) error {
	type plain RequestPermissionRequest
	if err := strictOrLax(data, r, (*plain)(r)); err != nil {
		return fmt.Errorf("permission request: %w", err)
	}
	return nil
}

// PermissionOption is one choice offered in a permission request.
type PermissionOption struct {
	OptionID string               `json:"optionId"`
	Name     string               `json:"name"`
	Kind     PermissionOptionKind `json:"kind"`
	Meta     json.RawMessage      `json:"_meta,omitempty"`
}

// RequestPermissionResponse is the result of "session/request_permission".
type RequestPermissionResponse struct {
	Outcome RequestPermissionOutcome `json:"outcome"`
	Meta    json.RawMessage          `json:"_meta,omitempty"`
}

// Permission outcomes (the RequestPermissionOutcome "outcome" discriminator).
const (
	OutcomeSelected  = "selected"
	OutcomeCancelled = "cancelled"
)

// RequestPermissionOutcome is the user's decision: OutcomeSelected with the chosen
// OptionID, or OutcomeCancelled (the turn was cancelled). MarshalJSON emits optionId
// only (and always) for a selected outcome.
type RequestPermissionOutcome struct {
	Outcome  string
	OptionID string
	Meta     json.RawMessage
}

type permissionOutcomeWire struct {
	Outcome  string          `json:"outcome"`
	OptionID *string         `json:"optionId,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// MarshalJSON encodes the outcome in its schema shape.
func (o RequestPermissionOutcome) MarshalJSON() ([]byte, error) {
	w := permissionOutcomeWire{Outcome: o.Outcome, Meta: o.Meta}
	if o.Outcome == OutcomeSelected {
		w.OptionID = &o.OptionID
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes an outcome; unknown fields are ignored.
func (o *RequestPermissionOutcome) UnmarshalJSON(data []byte) error {
	var w permissionOutcomeWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("permission outcome: %w", err)
	}
	*o = RequestPermissionOutcome{Outcome: w.Outcome, OptionID: val(w.OptionID), Meta: w.Meta}
	return nil
}

// Selected returns a permission response selecting optionID.
func Selected(optionID string) RequestPermissionResponse {
	return RequestPermissionResponse{Outcome: RequestPermissionOutcome{Outcome: OutcomeSelected, OptionID: optionID}}
}

// Cancelled returns the permission response for a cancelled turn.
func Cancelled() RequestPermissionResponse {
	return RequestPermissionResponse{Outcome: RequestPermissionOutcome{Outcome: OutcomeCancelled}}
}

// ---------------------------------------------------------------------------
// file system

// ReadTextFileRequest is the params of "fs/read_text_file". Line is 1-based.
type ReadTextFileRequest struct {
	SessionID string          `json:"sessionId"`
	Path      string          `json:"path"`
	Line      *int            `json:"line,omitempty"`
	Limit     *int            `json:"limit,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params, which must have the members the schema
// requires (see decodeRequired).
func (r *ReadTextFileRequest) UnmarshalJSON(data []byte) error {
	type plain ReadTextFileRequest
	return decodeRequired(data, (*plain)(r), reflect.TypeFor[ReadTextFileRequest](), "", "sessionId", "path")
}

// ReadTextFileResponse is the result of "fs/read_text_file".
type ReadTextFileResponse struct {
	Content string          `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// WriteTextFileRequest is the params of "fs/write_text_file".
type WriteTextFileRequest struct {
	SessionID string          `json:"sessionId"`
	Path      string          `json:"path"`
	Content   string          `json:"content"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params, which must have the members the schema
// requires (see decodeRequired).
func (r *WriteTextFileRequest) UnmarshalJSON(data []byte) error {
	type plain WriteTextFileRequest
	return decodeRequired(data, (*plain)(r), reflect.TypeFor[WriteTextFileRequest](), "", "sessionId", "path", "content")
}

// WriteTextFileResponse is the result of "fs/write_text_file".
type WriteTextFileResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ---------------------------------------------------------------------------
// terminals

// CreateTerminalRequest is the params of "terminal/create".
type CreateTerminalRequest struct {
	SessionID       string          `json:"sessionId"`
	Command         string          `json:"command"`
	Args            []string        `json:"args,omitempty"`
	Env             []EnvVariable   `json:"env,omitempty"`
	Cwd             string          `json:"cwd,omitempty"`
	OutputByteLimit *int64          `json:"outputByteLimit,omitempty"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params, which must have the members the schema
// requires (see decodeRequired).
func (r *CreateTerminalRequest) UnmarshalJSON(data []byte) error {
	type plain CreateTerminalRequest
	return decodeRequired(data, (*plain)(r), reflect.TypeFor[CreateTerminalRequest](), "", "sessionId", "command")
}

// CreateTerminalResponse is the result of "terminal/create".
type CreateTerminalResponse struct {
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// TerminalOutputRequest is the params of "terminal/output".
type TerminalOutputRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params, which must have the members the schema
// requires (see decodeRequired).
func (r *TerminalOutputRequest) UnmarshalJSON(data []byte) error {
	type plain TerminalOutputRequest
	return decodeRequired(data, (*plain)(r), reflect.TypeFor[TerminalOutputRequest](), "", "sessionId", "terminalId")
}

// TerminalOutputResponse is the result of "terminal/output". ExitStatus is set only
// once the command has exited.
type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
	Meta       json.RawMessage     `json:"_meta,omitempty"`
}

// TerminalExitStatus is how a terminal command ended: an exit code (non-negative) or
// the name of the signal that killed it.
type TerminalExitStatus struct {
	ExitCode *int            `json:"exitCode,omitempty"`
	Signal   *string         `json:"signal,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// WaitForTerminalExitRequest is the params of "terminal/wait_for_exit".
type WaitForTerminalExitRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params, which must have the members the schema
// requires (see decodeRequired).
func (r *WaitForTerminalExitRequest) UnmarshalJSON(data []byte) error {
	type plain WaitForTerminalExitRequest
	return decodeRequired(data, (*plain)(r), reflect.TypeFor[WaitForTerminalExitRequest](), "", "sessionId", "terminalId")
}

// WaitForTerminalExitResponse is the result of "terminal/wait_for_exit".
type WaitForTerminalExitResponse struct {
	ExitCode *int            `json:"exitCode,omitempty"`
	Signal   *string         `json:"signal,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// KillTerminalRequest is the params of "terminal/kill".
type KillTerminalRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params, which must have the members the schema
// requires (see decodeRequired).
func (r *KillTerminalRequest) UnmarshalJSON(data []byte) error {
	type plain KillTerminalRequest
	return decodeRequired(data, (*plain)(r), reflect.TypeFor[KillTerminalRequest](), "", "sessionId", "terminalId")
}

// KillTerminalResponse is the result of "terminal/kill".
type KillTerminalResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ReleaseTerminalRequest is the params of "terminal/release".
type ReleaseTerminalRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params, which must have the members the schema
// requires (see decodeRequired).
func (r *ReleaseTerminalRequest) UnmarshalJSON(data []byte) error {
	type plain ReleaseTerminalRequest
	return decodeRequired(data, (*plain)(r), reflect.TypeFor[ReleaseTerminalRequest](), "", "sessionId", "terminalId")
}

// ReleaseTerminalResponse is the result of "terminal/release".
type ReleaseTerminalResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}
