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
		{
			// A config file's values with control characters (an OSC that
			// retitles the terminal, a CSI that clears it), a line separator and
			// a bidi override: escaped, each row one line that shows as it is.
			name: "escaped",
			rows: []output.AgentRow{{Name: "ev\x1bil", Command: []string{"sh", "-c", "exec agent # \x1b]0;T\a"}, Auth: "a\x1b[2J",
				AuthEnv: []string{"K\u202e (set)"}, Source: "acprun.yaml", Description: "an agent \x1b]0;D\a \x1b[2J\u2028\u202eRTL"}},
			want: `NAME      COMMAND                            AUTH      AUTH ENV       SOURCE       DESCRIPTION
ev\x1bil  sh -c 'exec agent # \x1b]0;T\x07'  a\x1b[2J  K\u202e (set)  acprun.yaml  an agent \x1b]0;D\x07 \x1b[2J \u202eRTL
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
