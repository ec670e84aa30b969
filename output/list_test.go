package output_test

import (
	"bytes"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output"
)

// TestList: file:line and name, then the agent and the tags only when
// there are some, tab-separated.
func TestList(t *testing.T) {
	var buf bytes.Buffer
	err := output.List(&buf, []output.ListEntry{
		{Name: "a", File: "s.yaml", Line: 1},
		{Name: "b", File: "dir/s.yaml", Line: 12, Agent: "claude"},
		{Name: "c", File: "s.yaml", Line: 30, Tags: []string{"fast", "net"}},
		{Name: "d", File: "s.yaml", Line: 40, Agent: "mock", Tags: []string{"x"}},
		{Name: "e", File: "\x1b[2J.yaml", Line: 1}, // a name an agent chose
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "s.yaml:1\ta\n" +
		"dir/s.yaml:12\tb\t@claude\n" +
		"s.yaml:30\tc\t[fast net]\n" +
		"s.yaml:40\td\t@mock\t[x]\n" +
		`\x1b[2J.yaml:1` + "\te\n"
	if got := buf.String(); got != want {
		t.Errorf("List wrote\n%q, want\n%q", got, want)
	}
}

// TestValidated: the counts, each with its singular or plural noun.
func TestValidated(t *testing.T) {
	tests := []struct {
		scenarios, turns, files int
		want                    string
	}{
		{1, 1, 1, "OK: 1 scenario, 1 turn in 1 file\n"},
		{3, 0, 2, "OK: 3 scenarios, 0 turns in 2 files\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := output.Validated(&buf, tt.scenarios, tt.turns, tt.files); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("Validated(%d, %d, %d) = %q, want %q", tt.scenarios, tt.turns, tt.files, buf.String(), tt.want)
		}
	}
}

// TestListJSON: one array, every key present in every entry, tags [],
// vars {} and agent "" when the scenario has none; an empty selection is
// [].
func TestListJSON(t *testing.T) {
	var buf bytes.Buffer
	err := output.ListJSON(&buf, []output.ListEntry{
		{Name: "a", File: "s.yaml", Line: 1, Column: 1, Turns: 2},
		{Name: "b", Description: "d", File: "dir/s.yaml", Line: 12, Column: 3, Agent: "claude", Tags: []string{"fast"}, Turns: 1, Vars: map[string]string{"lang": "go"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.Bytes())
	}
	want := []map[string]any{
		{"name": "a", "description": "", "file": "s.yaml", "line": 1.0, "column": 1.0, "agent": "", "tags": []any{}, "turns": 2.0, "vars": map[string]any{}},
		{"name": "b", "description": "d", "file": "dir/s.yaml", "line": 12.0, "column": 3.0, "agent": "claude", "tags": []any{"fast"}, "turns": 1.0, "vars": map[string]any{"lang": "go"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListJSON (-want +got):\n%s", diff)
	}
	buf.Reset()
	if err := output.ListJSON(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "[]\n" {
		t.Errorf("ListJSON(nil) = %q, want []", buf.String())
	}
}
