package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSecretValues(t *testing.T) {
	got := secretValues(
		map[string]string{"A": "abc", "B": "from-scenario"},
		[]string{"HOME=/root", "OPENAI_API_KEY=sk-live-123456", "GITHUB_TOKEN=ghp_abcdefgh", "SHORT_KEY=1234", "PATH=/usr/bin"},
	)
	want := []string{"sk-live-123456", "from-scenario", "ghp_abcdefgh"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("secretValues (-want +got):\n%s", diff)
	}
}

func TestRedactTurn(t *testing.T) {
	secrets := []string{`sk-"live"`}
	tr := TurnResult{
		Text: `key sk-"live"`,
		ToolCalls: []ToolCall{{
			Title:    `echo sk-"live"`,
			RawInput: json.RawMessage(`{"command":"echo sk-\"live\""}`),
		}},
		Permissions:    []Permission{{Commands: []string{`echo sk-"live"`}}},
		ClientRequests: []ClientRequest{{Command: `echo sk-"live"`}},
	}
	redactTurn(&tr, secrets)
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatalf("marshal: %v (redacted raw JSON must stay valid)", err)
	}
	if s := string(b); strings.Contains(s, `sk-\"live\"`) || !strings.Contains(s, "[REDACTED]") {
		t.Errorf("secret left in %s", s)
	}
}
