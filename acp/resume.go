package acp

import json "github.com/go-json-experiment/json/v1"

// MethodSessionResume is "session/resume": continue an existing session
// without a replay of its history. Only call it when the agent advertised
// SessionCapabilities.Resume.
const MethodSessionResume = "session/resume"

// ResumeSessionRequest is the params of "session/resume". McpServers is
// optional here, unlike in session/new and session/load, but always sent
// as a JSON array (nil is sent as []).
type ResumeSessionRequest struct {
	SessionID             string          `json:"sessionId"`
	Cwd                   string          `json:"cwd"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
	McpServers            List[McpServer] `json:"mcpServers"`
	Meta                  json.RawMessage `json:"_meta,omitempty"`
}

// ResumeSessionResponse is the result of "session/resume" (a JSON null
// result decodes as the zero value).
type ResumeSessionResponse struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Models        *SessionModelState    `json:"models,omitempty"`
	Meta          json.RawMessage       `json:"_meta,omitempty"`
}
