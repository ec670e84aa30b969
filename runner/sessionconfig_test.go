package runner

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestSessionConfig checks what the handshake sets in a session and how:
// which requests go out, what is recorded, what is a warning and what is
// an error (and then that nothing after it is sent).
func TestSessionConfig(t *testing.T) {
	bin := agentBin(t)
	dir := t.TempDir()
	scripts := map[string]string{
		"options": `modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}
configOptions:
  - {id: mode, category: mode, options: [{value: ask}, {value: code}]}
  - {id: model, category: model, options: [{value: small}, {value: big}]}
  - {id: effort, options: [{value: low}, {value: high}]}
  - {id: thinking, type: boolean}
models: {availableModels: [{modelId: legacy}]}
`,
		"models": "modes: {availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}\nmodels: {currentModelId: m1, availableModels: [{modelId: m1}, {modelId: m2}]}\n",
		"none":   "",
		"perms": `configOptions:
  - {id: perm, category: mode, options: [{value: default}, {value: bypassPermissions}]}
  - {id: style, options: [{value: plain}, {value: bypassPermissions}]}
`,
	}
	claude := &scenario.Agent{Name: "claude", Enforcement: &scenario.Enforcement{UnaskedModes: []string{"bypassPermissions"}}}
	for name, src := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name+".mock.yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(line int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: line, Col: 10} }
	tests := []struct {
		name     string
		script   string
		hs       handshake
		sent     []string
		settings []report.SessionSetting
		warnings []string
		wantErr  string
	}{
		{
			name: "all through config options", script: "options",
			hs: handshake{mode: "code", model: "big", modelPos: at(3), config: []scenario.ConfigSetting{
				{ID: "effort", Value: "high", Pos: at(5)}, {ID: "thinking", Value: "true", Pos: at(6)}}},
			sent: []string{"initialize", "session/new", "session/set_config_option", "session/set_config_option", "session/set_config_option", "session/set_config_option"},
			settings: []report.SessionSetting{
				{Key: "mode", ConfigID: "mode", Value: "code", Method: "session/set_config_option"},
				{Key: "model", ConfigID: "model", Value: "big", Method: "session/set_config_option"},
				{Key: "config.effort", ConfigID: "effort", Value: "high", Method: "session/set_config_option"},
				{Key: "config.thinking", ConfigID: "thinking", Value: true, Method: "session/set_config_option"},
			},
		},
		{
			name: "mode not among the mode option's values", script: "options", hs: handshake{mode: "plan", modePos: at(2)},
			sent:     []string{"initialize", "session/new"},
			warnings: []string{`s.yaml:2:10: agent.mode: the agent does not offer mode "plan" (its mode option "mode" offers: ask, code); not set`},
		},
		{
			name: "legacy mode not offered", script: "models", hs: handshake{mode: "plan", modePos: at(2), model: "m2", modelPos: at(3)},
			sent:     []string{"initialize", "session/new", "session/set_model"},
			settings: []report.SessionSetting{{Key: "model", Value: "m2", Method: "session/set_model"}},
			warnings: []string{`s.yaml:2:10: agent.mode: the agent does not offer mode "plan" (it offers: ask, code); not set`},
		},
		{
			name: "no mode choice", script: "none", hs: handshake{mode: "plan", modePos: at(2)},
			sent:     []string{"initialize", "session/new"},
			warnings: []string{`s.yaml:2:10: agent.mode: the agent offers no mode choice (no config option of category mode, no modes): remove mode, or set the agent's own option in agent.config (it has: none); not set`},
		},
		{
			name: "value not offered", script: "options",
			hs:      handshake{config: []scenario.ConfigSetting{{ID: "effort", Value: "max", Pos: at(5)}, {ID: "thinking", Value: "true", Pos: at(6)}}},
			sent:    []string{"initialize", "session/new"},
			wantErr: `s.yaml:5:10: agent.config.effort: the agent does not offer "max" for config option "effort" (it offers: low, high)`,
		},
		{
			name: "unknown option", script: "options",
			hs:      handshake{config: []scenario.ConfigSetting{{ID: "temperature", Value: "1", Pos: at(5)}}},
			sent:    []string{"initialize", "session/new"},
			wantErr: `s.yaml:5:10: agent.config.temperature: the agent has no config option "temperature" (it has: mode (select), model (select), effort (select), thinking (boolean))`,
		},
		{
			name: "boolean given a word", script: "options",
			hs:      handshake{config: []scenario.ConfigSetting{{ID: "thinking", Value: "yes", Pos: at(6)}}},
			sent:    []string{"initialize", "session/new"},
			wantErr: `s.yaml:6:10: agent.config.thinking: config option "thinking" is boolean: give true or false, not "yes"`,
		},
		{
			name: "model not offered by the model option", script: "options",
			hs:      handshake{model: "legacy", modelPos: at(3)},
			sent:    []string{"initialize", "session/new"},
			wantErr: `s.yaml:3:10: agent.model: the agent does not offer model "legacy" (its model option "model" offers: small, big)`,
		},
		{
			name: "legacy models", script: "models", hs: handshake{mode: "code", model: "m2", modelPos: at(3)},
			sent: []string{"initialize", "session/new", "session/set_mode", "session/set_model"},
			settings: []report.SessionSetting{
				{Key: "mode", Value: "code", Method: "session/set_mode"},
				{Key: "model", Value: "m2", Method: "session/set_model"},
			},
		},
		{
			name: "legacy model not offered", script: "models", hs: handshake{model: "m3", modelPos: at(3)},
			sent:    []string{"initialize", "session/new"},
			wantErr: `s.yaml:3:10: agent.model: the agent does not offer model "m3" (it offers: m1, m2)`,
		},
		{
			name: "no model choice", script: "none", hs: handshake{model: "big", modelPos: at(3)},
			sent:    []string{"initialize", "session/new"},
			wantErr: `s.yaml:3:10: agent.model: the agent offers no model choice (no config option of category model, no models): remove model, or set the agent's own option in agent.config (it has: none)`,
		},
		{
			name: "no config options", script: "none", hs: handshake{config: []scenario.ConfigSetting{{ID: "effort", Value: "high", Pos: at(5)}}},
			sent:    []string{"initialize", "session/new"},
			wantErr: `s.yaml:5:10: agent.config.effort: the agent offers no config options (see acprun probe)`,
		},
		{
			name: "a mode option set to a mode in which the enforced agent does not ask", script: "perms",
			hs: handshake{unasked: claude.UnaskedMode, config: []scenario.ConfigSetting{
				{ID: "style", Value: "bypassPermissions", Pos: at(5)}, {ID: "perm", Value: "bypassPermissions", Pos: at(6)}}},
			sent:     []string{"initialize", "session/new", "session/set_config_option"},
			settings: []report.SessionSetting{{Key: "config.style", ConfigID: "style", Value: "bypassPermissions", Method: "session/set_config_option"}},
			wantErr: `s.yaml:6:10: agent.config.perm: in mode "bypassPermissions" claude does not ask permission (it acts, or refuses, on its own), ` +
				`so permissions.enforce cannot make it ask and the permission rules would never be consulted: choose another mode, or set permissions.enforce: false to run in "bypassPermissions" on purpose`,
		},
		{
			name: "a mode option set to a mode in which the enforced agent asks", script: "perms",
			hs:       handshake{unasked: claude.UnaskedMode, config: []scenario.ConfigSetting{{ID: "perm", Value: "default", Pos: at(6)}}},
			sent:     []string{"initialize", "session/new", "session/set_config_option"},
			settings: []report.SessionSetting{{Key: "config.perm", ConfigID: "perm", Value: "default", Method: "session/set_config_option"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var sent []string
			tap := func(dir acp.Direction, line []byte, _ time.Time) {
				var m struct {
					Method string `json:"method"`
				}
				if dir == acp.Sent && json.Unmarshal(line, &m) == nil && m.Method != "" {
					mu.Lock()
					sent = append(sent, m.Method)
					mu.Unlock()
				}
			}
			a, err := startAgent(agentConfig{Argv: []string{bin, "mock-agent", filepath.Join(dir, tt.script+".mock.yaml")}, Env: os.Environ(), Dir: dir,
				Handler: &probeHandler{}, Conn: &acp.Options{Tap: tap}})
			if err != nil {
				t.Fatal(err)
			}
			hs := tt.hs
			hs.cwd = dir
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := hs.run(ctx, a.Conn)
			a.CloseAfter(context.Background(), time.Second, time.Second, time.Time{})
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("handshake error = %q, want %q", gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(tt.settings, got.settings); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, got.warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.sent, sent); diff != "" {
				t.Errorf("methods sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFilterMcpServers: the servers an agent does not support are left
// out, each with a warning at its entry in agent.mcpServers that says what
// to do.
func TestFilterMcpServers(t *testing.T) {
	t.Parallel()
	servers := []acp.McpServer{
		{Name: "files", Command: "/bin/files"},
		{Type: acp.McpHTTP, Name: "docs", URL: "http://x"},
		{Type: acp.McpSSE, Name: "events", URL: "http://y"},
		{Type: "acp", Name: "own", Raw: json.RawMessage(`{"type":"acp","name":"own","serverId":"s"}`)},
	}
	pos := []scenario.Pos{{File: "s.yaml", Line: 5, Col: 7}, {File: "s.yaml", Line: 6, Col: 7}, {File: "s.yaml", Line: 7, Col: 7}, {File: "s.yaml", Line: 8, Col: 7}}
	const useStdio = "; give it as a stdio server (command, args, env), which every agent takes, or remove it"
	names := func(ss []acp.McpServer) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	tests := []struct {
		name     string
		caps     acp.McpCapabilities
		kept     []string
		warnings []string
	}{
		{"no capabilities", acp.McpCapabilities{}, []string{"files", "own"}, []string{
			`s.yaml:6:7: agent.mcpServers: MCP server "docs" left out: the agent does not support http MCP servers (its mcpCapabilities.http is not true)` + useStdio,
			`s.yaml:7:7: agent.mcpServers: MCP server "events" left out: the agent does not support sse MCP servers (its mcpCapabilities.sse is not true)` + useStdio,
		}},
		{"http only", acp.McpCapabilities{HTTP: true}, []string{"files", "docs", "own"}, []string{
			`s.yaml:7:7: agent.mcpServers: MCP server "events" left out: the agent does not support sse MCP servers (its mcpCapabilities.sse is not true)` + useStdio,
		}},
		{"both", acp.McpCapabilities{HTTP: true, SSE: true}, []string{"files", "docs", "events", "own"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, warnings := filterMcpServers(servers, pos, tt.caps)
			if diff := cmp.Diff(tt.kept, names(kept)); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
