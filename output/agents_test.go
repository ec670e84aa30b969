package output_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output"
)

// TestAgents checks the agents table: aligned columns under a heading,
// commands shell-quoted, no auth and no auth env as "-", the auth env
// joined, descriptions on one line.
func TestAgents(t *testing.T) {
	tests := []struct {
		name string
		rows []output.AgentRow
		want string
	}{
		{"none", nil, "NAME  COMMAND  AUTH  AUTH ENV  SOURCE  DESCRIPTION\n"},
		{
			name: "two",
			rows: []output.AgentRow{
				{Name: "claude", Command: []string{"npx", "claude code"}, Auth: "api-key", AuthEnv: []string{"ANTHROPIC_API_KEY (set)", "OTHER_KEY (not set)"},
					Source: "built-in", Description: "Claude\n  Code"},
				{Name: "mine", Command: []string{"./agent", "it's"}, Source: "acprun.yaml (replaces built-in)"},
			},
			want: `NAME    COMMAND            AUTH     AUTH ENV                                      SOURCE                           DESCRIPTION
claude  npx 'claude code'  api-key  ANTHROPIC_API_KEY (set), OTHER_KEY (not set)  built-in                         Claude Code
mine    ./agent 'it'\''s'  -        -                                             acprun.yaml (replaces built-in)
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.Agents(&buf, tt.rows); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.Split(tt.want, "\n"), strings.Split(buf.String(), "\n")); diff != "" {
				t.Errorf("Agents (-want +got):\n%s", diff)
			}
		})
	}
}
