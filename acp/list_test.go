package acp_test

import (
	"bytes"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
)

// TestListMarshal checks that a List is a JSON array even when nil, and
// otherwise marshals exactly as its slice does.
func TestListMarshal(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil", acp.List[string](nil), `[]`},
		{"empty", acp.List[string]{}, `[]`},
		{"values", acp.List[int]{1, 2}, `[1,2]`},
		{"structs", acp.List[acp.SessionMode]{{ID: "a", Name: "A"}}, `[{"id":"a","name":"A"}]`},
		{"nil field", struct {
			L acp.List[int] `json:"l"`
		}{}, `{"l":[]}`},
		{"nil field, omitempty", struct {
			L acp.List[int] `json:"l,omitempty"`
		}{}, `{}`},
		{"nil pointer", (*acp.List[int])(nil), `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(out) != tt.want {
				t.Errorf("Marshal = %s; want %s", out, tt.want)
			}
		})
	}
}

// TestListLeavesEscapingToItsEncoder checks that a List escapes < > & only
// when the encoder it is part of does, as a plain slice would.
func TestListLeavesEscapingToItsEncoder(t *testing.T) {
	v := struct {
		L acp.List[string] `json:"l"`
		S []string         `json:"s"`
	}{L: acp.List[string]{"<a&b>"}, S: []string{"<a&b>"}}
	for _, escape := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escape)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		want := `{"l":["<a&b>"],"s":["<a&b>"]}` + "\n"
		if escape {
			want = `{"l":["\u003ca\u0026b\u003e"],"s":["\u003ca\u0026b\u003e"]}` + "\n"
		}
		if b.String() != want {
			t.Errorf("escape %v: %s; want %s", escape, b.String(), want)
		}
	}
}

// TestListUnmarshal checks that a List decodes as a plain slice: null is
// nil, [] is empty.
func TestListUnmarshal(t *testing.T) {
	var l acp.List[int]
	if err := json.Unmarshal([]byte(`null`), &l); err != nil || l != nil {
		t.Errorf("Unmarshal(null) = %v, %v; want nil, nil", l, err)
	}
	if err := json.Unmarshal([]byte(`[]`), &l); err != nil || l == nil || len(l) != 0 {
		t.Errorf("Unmarshal([]) = %#v, %v; want an empty List", l, err)
	}
	if err := json.Unmarshal([]byte(`[3,4]`), &l); err != nil || len(l) != 2 || l[0] != 3 || l[1] != 4 {
		t.Errorf("Unmarshal([3,4]) = %v, %v; want [3 4]", l, err)
	}
}

// TestRequiredArraysNeverNull checks that every array the schema requires
// is sent as [] when the field is nil, with the message's other fields as
// they were.
func TestRequiredArraysNeverNull(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{acp.NewSessionRequest{}, `{"cwd":"","mcpServers":[]}`},
		{acp.LoadSessionRequest{}, `{"sessionId":"","cwd":"","mcpServers":[]}`},
		{acp.SessionModeState{}, `{"currentModeId":"","availableModes":[]}`},
		{&acp.SessionModeState{}, `{"currentModeId":"","availableModes":[]}`},
		{acp.SessionConfigSelectGroup{}, `{"group":"","name":"","options":[]}`},
		{acp.SessionConfigSelectOptions{}, `[]`},
		{acp.SetSessionConfigOptionResponse{}, `{"configOptions":[]}`},
		{acp.PromptRequest{}, `{"sessionId":"","prompt":[]}`},
		{acp.RequestPermissionRequest{}, `{"sessionId":"","toolCall":{"toolCallId":""},"options":[]}`},
		{acp.Plan{}, `{"entries":[]}`},
		{acp.AvailableCommandsUpdate{}, `{"availableCommands":[]}`},
		{acp.ConfigOptionUpdate{}, `{"configOptions":[]}`},
		{acp.McpServer{Name: "fs"}, `{"name":"fs","command":"","args":[],"env":[]}`},
		{acp.McpServer{Type: acp.McpHTTP, Name: "web"}, `{"type":"http","name":"web","url":"","headers":[]}`},
	}
	for _, tt := range tests {
		out, err := json.Marshal(tt.v)
		if err != nil {
			t.Errorf("Marshal(%T): %v", tt.v, err)
			continue
		}
		if string(out) != tt.want {
			t.Errorf("Marshal(%T) = %s; want %s", tt.v, out, tt.want)
		}
	}
}
