package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// settingsAgent is a mock agent that offers a mode, a model and config
// options, and says what is set when prompted.
const settingsAgent = `modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}
models: {currentModelId: small, availableModels: [{modelId: small}, {modelId: big}]}
configOptions:
  - {id: effort, name: Effort, category: thought_level, options: [{value: low}, {value: high}]}
  - {id: thinking, name: Thinking, type: boolean}
turns:
  - steps: [{showConfig: true}]
`

// settingsScenario is a scenario whose agent (agent) has the settings
// settings (indented under agent:).
func settingsScenario(agent, settings string) string {
	return "name: fix\nagent:\n  " + agent + "\n" + settings +
		"permissions: {default: deny}\nturns:\n  - prompt: hi\n    expect: {text: {contains: \"mode: \"}}\n"
}

// recordedSettings are the settings the transcript of TestReplaySettings
// was recorded with.
const recordedSettings = "  mode: code\n  model: big\n  config: {effort: high, thinking: true}\n  mcpServers: [{name: files, command: ./mcp.sh}]\n"

// TestReplaySettings: a replay whose scenario sets up the session as
// recorded passes, in another directory (the session's cwd and the MCP
// server's command path are other paths); one whose scenario changed its
// mode, model, config or MCP servers does not pass: the replayed agent
// never ran in that session, and the changed request (or, for a setting
// removed, the first prompt) is a divergence that names what was
// recorded and what came.
func TestReplaySettings(t *testing.T) {
	t.Parallel()
	rec := settingsScenario("command: [acprun, mock-agent, agent.mock.yaml]", recordedSettings)
	recDir, recorded := replayRecord(t, settingsAgent, rec, nil)
	if sc := recorded.Scenarios[0]; sc.Status != "passed" || len(sc.SessionConfig) != 4 {
		t.Fatalf("recording: %s, settings %+v; want passed, 4 settings\n%+v", sc.Status, sc.SessionConfig, sc)
	}
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))

	tests := []struct {
		name, settings string
		args           []string
		code           int
		status         report.Status
		want           string // in the scenario's error (or its turn's) and the agent's stderr
	}{
		{name: "as recorded", settings: recordedSettings, code: exitOK, status: "passed"},
		{name: "mode changed", settings: strings.Replace(recordedSettings, "mode: code", "mode: ask", 1),
			code: exitAgent, status: "error",
			want: `replay diverged: session/set_mode: recorded {"modeId":"code"}, got {"modeId":"ask"}`},
		{name: "--mode", settings: recordedSettings, args: []string{"--mode", "ask"},
			code: exitAgent, status: "error",
			want: `replay diverged: session/set_mode: recorded {"modeId":"code"}, got {"modeId":"ask"}`},
		{name: "model changed", settings: strings.Replace(recordedSettings, "model: big", "model: small", 1),
			code: exitAgent, status: "error",
			want: `replay diverged: session/set_model: recorded {"modelId":"big"}, got {"modelId":"small"}`},
		{name: "config changed", settings: strings.Replace(recordedSettings, "thinking: true", "thinking: false", 1),
			code: exitAgent, status: "error",
			want: `replay diverged: session/set_config_option: recorded {"configId":"thinking","type":"boolean","value":true}, got {"configId":"thinking","type":"boolean","value":false}`},
		{name: "mode removed", settings: strings.Replace(recordedSettings, "  mode: code\n", "", 1),
			code: exitFailed, status: "failed",
			want: `replay diverged: turn 1: session/prompt: recorded session/set_mode {"modeId":"code"} before it, got the prompt without it`},
		{name: "config removed", settings: strings.Replace(recordedSettings, ", thinking: true", "", 1),
			code: exitFailed, status: "failed",
			want: `replay diverged: turn 1: session/prompt: recorded session/set_config_option {"configId":"thinking","type":"boolean","value":true} before it, got the prompt without it`},
		{name: "mcp server added", settings: strings.Replace(recordedSettings, "}]\n", "}, {name: web, command: ./web.sh}]\n", 1),
			code: exitAgent, status: "error",
			want: `replay diverged: session/new: recorded mcpServers "files" (stdio), got mcpServers "files" (stdio), "web" (stdio)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			writeFiles(t, dir, map[string]string{
				"rec/fix.jsonl": string(transcript),
				"s.yaml":        settingsScenario("replay: rec/fix.jsonl", tt.settings),
			})
			res, got := runResults(t, dir, append([]string{"s.yaml"}, tt.args...)...)
			sc := got.Scenarios[0]
			if res.code != tt.code || sc.Status != tt.status {
				t.Fatalf("exit %d, status %s; want %d, %s\n%s\n%+v", res.code, sc.Status, tt.code, tt.status, res.stderr, sc)
			}
			if tt.want == "" {
				if sc.Turns[0].Text != recorded.Scenarios[0].Turns[0].Text {
					t.Errorf("the replayed agent said %q, want %q as recorded", sc.Turns[0].Text, recorded.Scenarios[0].Turns[0].Text)
				}
				return
			}
			msg := sc.Error
			if len(sc.Turns) > 0 {
				msg += sc.Turns[0].Error
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, turns %+v; want it to hold %q", sc.Error, sc.Turns, tt.want)
			}
			if !strings.Contains(sc.StderrTail, "rec/fix.jsonl:") || !strings.Contains(sc.StderrTail, tt.want) {
				t.Errorf("agent stderr = %q, want the divergence with the transcript's line", sc.StderrTail)
			}
		})
	}
}
