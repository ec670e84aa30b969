package report

import json "github.com/go-json-experiment/json/v1"

// Notice is a notice the agent sent (a notice session update): a live
// hint for its user, such as "MCP server unavailable".
type Notice struct {
	// Severity is info, warning or error, or another value as sent.
	Severity    string `json:"severity"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	// Late is set when the notice came after the prompt's answer.
	Late bool `json:"late,omitempty"`
}

// Compaction is a compaction of the agent's context, merged from its
// compaction_update and compaction_summary_chunk updates.
type Compaction struct {
	ID string `json:"compactionId"`
	// Status is in_progress, completed, failed or cancelled, or another
	// value as sent.
	Status string `json:"status"`
	// Summary is the text of the summary's text blocks, at most 64 KiB of
	// it (SummaryTruncated then).
	Summary          string `json:"summary,omitempty"`
	SummaryTruncated bool   `json:"summaryTruncated,omitempty"`
	Error            string `json:"error,omitempty"`
	// Late is set when the compaction was first seen after the prompt's
	// answer.
	Late bool `json:"late,omitempty"`
}

// Elicitation is one elicitation/create the agent sent (a question for its
// user) and how acprun answered it.
type Elicitation struct {
	// Mode is form or url, or another value as sent.
	Mode    string `json:"mode"`
	Message string `json:"message"`
	// ToolCallID is the tool call the question is about, when it says.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Fields are the names of the form's fields (sorted), Required those
	// it requires.
	Fields   []string `json:"fields,omitempty"`
	Required []string `json:"required,omitempty"`
	// ElicitationID and URL are a URL elicitation's.
	ElicitationID string `json:"elicitationId,omitempty"`
	URL           string `json:"url,omitempty"`
	// Action is how acprun answered: accept (with Content), decline or
	// cancel (the turn was being cancelled).
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
	// AnsweredFrom says where each field's answer was written in the
	// scenario (field name to file:line:col).
	AnsweredFrom map[string]string `json:"answeredFrom,omitempty"`
	// Reason says why acprun declined or cancelled.
	Reason string `json:"reason,omitempty"`
	// Completed is set when the agent said, with elicitation/complete,
	// that the URL elicitation is done.
	Completed bool `json:"completed,omitempty"`
	// Late is set when the request came after the prompt's answer.
	Late bool `json:"late,omitempty"`
}
