package e2e_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// configAgent is a mock agent that offers config options (a model option,
// a select and a boolean) and says what is set when prompted.
const configAgent = `configOptions:
  - {id: model, name: Model, category: model, options: [{value: small}, {value: big}]}
  - {id: effort, name: Effort, category: thought_level, options: [{value: low}, {value: high}]}
  - {id: thinking, name: Thinking, type: boolean}
turns:
  - steps: [{showConfig: true}]
`

// configScenario is a scenario on agent.mock.yaml whose agent has the
// extra keys agentKeys (indented under agent:).
func configScenario(agentKeys string) string {
	return "name: cfg\nagent:\n  command: [acprun, mock-agent, agent.mock.yaml]\n" + agentKeys +
		"permissions: {default: deny}\nturns:\n  - prompt: hi\n    expect: {text: {contains: \"config:\"}}\n"
}

// configSent returns the params of every message acprun sent with method,
// from a transcript, in order.
func configSent(t *testing.T, path, method string) []json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	defer f.Close()
	var out []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			} `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Dir == "c2a" && line.Msg.Method == method {
			out = append(out, line.Msg.Params)
		}
	}
	return out
}

// TestConfigSetAndSeenByAgent: agent.model and agent.config reach the
// agent through session/set_config_option (the model through its option
// of category model, a boolean as a boolean), before the first prompt;
// the agent says it has them, the results record them, and every message
// acprun sent fits the ACP schema.
func TestConfigSetAndSeenByAgent(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, configAgent, configScenario("  model: big\n  config: {effort: high, thinking: true}\n"), "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if got, want := sc.Turns[0].Text, "config: model=big, effort=high, thinking=true"; got != want {
		t.Errorf("the agent said %q, want %q", got, want)
	}
	want := []report.SessionSetting{
		{Key: "model", ConfigID: "model", Value: "big", Method: "session/set_config_option"},
		{Key: "config.effort", ConfigID: "effort", Value: "high", Method: "session/set_config_option"},
		{Key: "config.thinking", ConfigID: "thinking", Value: true, Method: "session/set_config_option"},
	}
	if diff := cmp.Diff(want, sc.SessionConfig); diff != "" {
		t.Errorf("sessionConfig (-want +got):\n%s", diff)
	}
	tr := filepath.Join(dir, sc.Transcript)
	sent := configSent(t, tr, "session/set_config_option")
	if len(sent) != 3 || !strings.Contains(string(sent[2]), `"type":"boolean","value":true`) {
		t.Errorf("set_config_option params = %s, want three, the last a boolean", sent)
	}
	caps := initializeCapabilities(t, tr)
	wantSession := map[string]any{"configOptions": map[string]any{"boolean": map[string]any{}}, "notices": map[string]any{}, "compaction": map[string]any{}}
	if diff := cmp.Diff(wantSession, caps["session"]); diff != "" {
		t.Errorf("clientCapabilities.session (-want +got):\n%s", diff)
	}
	validateTranscript(t, tr)
}

// TestConfigModelViaSetModel: an agent with the legacy models and no model
// option gets agent.model through session/set_model.
func TestConfigModelViaSetModel(t *testing.T) {
	t.Parallel()
	script := "models: {currentModelId: m1, availableModels: [{modelId: m1}, {modelId: m2}]}\nturns:\n  - steps: [{showConfig: true}]\n"
	res, out, dir := runOne(t, script, strings.Replace(configScenario("  model: m2\n"), `contains: "config:"`, `contains: "model: m2"`, 1), "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	want := []report.SessionSetting{{Key: "model", Value: "m2", Method: "session/set_model"}}
	if diff := cmp.Diff(want, sc.SessionConfig); diff != "" {
		t.Errorf("sessionConfig (-want +got):\n%s", diff)
	}
	sent := configSent(t, filepath.Join(dir, sc.Transcript), "session/set_model")
	if len(sent) != 1 || !strings.Contains(string(sent[0]), `"modelId":"m2"`) {
		t.Errorf("set_model params = %s, want one with modelId m2", sent)
	}
}

// TestConfigNotOffered: a value, an option id or a model the agent does
// not offer ends the scenario with status error before the first prompt
// (no session/prompt on the wire), pointing at the value in the file that
// gave it and listing what the agent offers.
func TestConfigNotOffered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		keys   string // under agent:
		config string // acprun.yaml, when the agent is a named one
		pos    string // the value's position: FILE:TEXT, TEXT the value's text in FILE
		msg    string
	}{
		{name: "value", script: configAgent, keys: "  config:\n    effort: max\n", pos: "s.yaml:max",
			msg: `agent.config.effort: the agent does not offer "max" for config option "effort" (it offers: low, high)`},
		{name: "option id", script: configAgent, keys: "  config: {temperature: \"0.2\"}\n", pos: `s.yaml:"0.2"`,
			msg: `agent.config.temperature: the agent has no config option "temperature" (it has: model (select), effort (select), thinking (boolean))`},
		{name: "model", script: configAgent, keys: "  model: huge\n", pos: "s.yaml:huge",
			msg: `agent.model: the agent does not offer model "huge" (its model option "model" offers: small, big)`},
		{name: "boolean", script: configAgent, keys: "  config: {thinking: maybe}\n", pos: "s.yaml:maybe",
			msg: `agent.config.thinking: config option "thinking" is boolean: give true or false, not "maybe"`},
		{name: "no configOptions nor models", script: "turns: [{steps: [{showConfig: true}]}]\n", keys: "  model: big\n", pos: "s.yaml:big",
			msg: `agent.model: the agent offers no model choice (no config option of category model, no models): remove model, or set the agent's own option in agent.config (it has: none)`},
		{name: "no configOptions", script: "turns: [{steps: [{showConfig: true}]}]\n", keys: "  config: {effort: high}\n", pos: "s.yaml:high",
			msg: `agent.config.effort: the agent offers no config options (see acprun probe)`},
		{name: "in a named agent", script: configAgent,
			config: "agents:\n  mine:\n    command: [acprun, mock-agent, agent.mock.yaml]\n    config: {effort: extreme}\n",
			pos:    "acprun.yaml:extreme",
			msg:    `agent.config.effort: the agent does not offer "extreme" for config option "effort" (it offers: low, high)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			scen := configScenario(tt.keys)
			files := map[string]string{"agent.mock.yaml": tt.script, "s.yaml": scen}
			if tt.config != "" {
				scen = "name: cfg\nagent: mine\npermissions: {default: deny}\nturns:\n  - prompt: hi\n"
				files["s.yaml"], files["acprun.yaml"] = scen, tt.config
			}
			writeFiles(t, dir, files)
			res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
			file, text, _ := strings.Cut(tt.pos, ":")
			content := files[file]
			wantErr := lineCol(file, content, strings.Index(content, text)) + ": " + tt.msg
			if res.code != exitAgent {
				t.Errorf("exit %d, want %d\n%s", res.code, exitAgent, res.stderr)
			}
			sc := out.Scenarios[0]
			if sc.Status != report.StatusError || sc.Error != wantErr {
				t.Errorf("status %s, error %q\nwant error, %q", sc.Status, sc.Error, wantErr)
			}
			if !strings.Contains(res.stderr, wantErr) {
				t.Errorf("stderr does not say %q:\n%s", wantErr, res.stderr)
			}
			if len(sc.Turns) != 1 || sc.Turns[0].StopReason != report.OutcomeSkipped {
				t.Errorf("turns = %+v, want the one turn skipped", sc.Turns)
			}
			if p := configSent(t, filepath.Join(dir, sc.Transcript), "session/prompt"); len(p) != 0 {
				t.Errorf("session/prompt was sent %d times, want never", len(p))
			}
			if p := configSent(t, filepath.Join(dir, sc.Transcript), "session/set_config_option"); len(p) != 0 {
				t.Errorf("session/set_config_option was sent: %s", p)
			}
		})
	}
}

// TestConfigMcpServersFiltered: http and sse MCP servers reach session/new
// only when the agent's mcpCapabilities has their transport; each one left
// out gives a warning at its entry in agent.mcpServers that names it and
// the missing capability, and says what to do. Stdio servers always go.
func TestConfigMcpServersFiltered(t *testing.T) {
	t.Parallel()
	servers := `  mcpServers:
    - {name: files, command: /bin/files, args: [], env: []}
    - {type: http, name: docs, url: "http://127.0.0.1:1/mcp", headers: []}
    - {type: sse, name: events, url: "http://127.0.0.1:1/sse", headers: []}
`
	const useStdio = "; give it as a stdio server (command, args, env), which every agent takes, or remove it"
	warnHTTP := `s.yaml:6:7: agent.mcpServers: MCP server "docs" left out: the agent does not support http MCP servers (its mcpCapabilities.http is not true)` + useStdio
	warnSSE := `s.yaml:7:7: agent.mcpServers: MCP server "events" left out: the agent does not support sse MCP servers (its mcpCapabilities.sse is not true)` + useStdio
	tests := []struct {
		name     string
		caps     string
		kept     []string
		warnings []string
	}{
		{"no capabilities", "", []string{"files"}, []string{warnHTTP, warnSSE}},
		{"http", "agentCapabilities: {mcpCapabilities: {http: true}}\n", []string{"files", "docs"}, []string{warnSSE}},
		{"http and sse", "agentCapabilities: {mcpCapabilities: {http: true, sse: true}}\n", []string{"files", "docs", "events"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, out, dir := runOne(t, tt.caps+"turns: [{steps: [{text: \"config: ok\"}]}]\n", configScenario(servers), "--transcripts", "tr")
			if res.code != exitOK {
				t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
			}
			sc := out.Scenarios[0]
			var warnings []string
			for _, w := range sc.Warnings {
				if strings.Contains(w, "MCP server") {
					warnings = append(warnings, w)
				}
			}
			if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			for _, w := range tt.warnings {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr does not warn %q:\n%s", w, res.stderr)
				}
			}
			tr := filepath.Join(dir, sc.Transcript)
			params := configSent(t, tr, "session/new")
			if len(params) != 1 {
				t.Fatalf("session/new sent %d times, want once", len(params))
			}
			var p struct {
				McpServers []struct {
					Name string `json:"name"`
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal(params[0], &p); err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, s := range p.McpServers {
				kept = append(kept, s.Name)
			}
			if diff := cmp.Diff(tt.kept, kept); diff != "" {
				t.Errorf("session/new mcpServers (-want +got):\n%s", diff)
			}
			validateTranscript(t, tr)
		})
	}
}

// TestConfigDryRun: --dry-run shows the model, the config options and the
// MCP servers a scenario asks for, without starting the agent.
func TestConfigDryRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(configScenario("  model: big\n  config: {effort: high}\n  mcpServers: [{type: http, name: docs, url: \"http://x\", headers: []}]\n"),
		"acprun, mock-agent, agent.mock.yaml", "/nonexistent/agent", 1)})
	res := acprun(t, dir, "run", "s.yaml", "--dry-run")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"  session:  model big, effort=high (checked against what the agent offers when the session opens)\n",
		"  mcp:      docs (http)\n",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the plan lacks %q:\n%s", want, res.stdout)
		}
	}
}

// TestConfigModeThroughItsOption: an agent that has both modes and a
// config option of category mode gets agent.mode through the option, as
// the spec asks of clients that know config options, and never
// session/set_mode; a mode the option does not offer is a warning.
func TestConfigModeThroughItsOption(t *testing.T) {
	t.Parallel()
	script := `modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}
configOptions:
  - {id: session_mode, name: Mode, category: mode, options: [{value: ask}, {value: code}]}
turns:
  - steps: [{showConfig: true}]
`
	tests := []struct {
		mode, said string
		settings   []report.SessionSetting
		warning    string
	}{
		{mode: "code", said: "config: session_mode=code; mode: ask",
			settings: []report.SessionSetting{{Key: "mode", ConfigID: "session_mode", Value: "code", Method: "session/set_config_option"}}},
		{mode: "plan", said: "config: session_mode=ask; mode: ask",
			warning: `s.yaml:4:9: agent.mode: the agent does not offer mode "plan" (its mode option "session_mode" offers: ask, code); not set`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			res, out, dir := runOne(t, script, configScenario("  mode: "+tt.mode+"\n"), "--transcripts", "tr")
			if res.code != exitOK {
				t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
			}
			sc := out.Scenarios[0]
			if sc.Turns[0].Text != tt.said {
				t.Errorf("the agent said %q, want %q", sc.Turns[0].Text, tt.said)
			}
			if diff := cmp.Diff(tt.settings, sc.SessionConfig); diff != "" {
				t.Errorf("sessionConfig (-want +got):\n%s", diff)
			}
			if tt.warning != "" && !slices.Contains(sc.Warnings, tt.warning) {
				t.Errorf("warnings = %q, want %q among them", sc.Warnings, tt.warning)
			}
			if p := configSent(t, filepath.Join(dir, sc.Transcript), "session/set_mode"); len(p) != 0 {
				t.Errorf("session/set_mode was sent: %s", p)
			}
		})
	}
}

// TestConfigModeNotOffered: a mode the agent does not offer (it has
// modes, and no config option of category mode) is a warning at the
// value of agent.mode that lists the modes it offers, and is not set;
// the scenario runs on.
func TestConfigModeNotOffered(t *testing.T) {
	t.Parallel()
	script := "modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: architect, name: Architect}]}\n" +
		"turns: [{steps: [{text: \"config: ok\"}]}]\n"
	res, out, dir := runOne(t, script, configScenario("  mode: code\n"), "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	const want = `s.yaml:4:9: agent.mode: the agent does not offer mode "code" (it offers: ask, architect); not set`
	sc := out.Scenarios[0]
	if !slices.Contains(sc.Warnings, want) {
		t.Errorf("warnings = %q, want %q among them", sc.Warnings, want)
	}
	if !strings.Contains(res.stderr, want) {
		t.Errorf("stderr does not warn %q:\n%s", want, res.stderr)
	}
	if p := configSent(t, filepath.Join(dir, sc.Transcript), "session/set_mode"); len(p) != 0 {
		t.Errorf("session/set_mode was sent: %s", p)
	}
}

// TestMcpServersChecked: agent.mcpServers entries, in a scenario or a
// config agent, are checked against ACP's McpServer before anything runs:
// validate and run report each problem at its file:line:col (exit 2); a
// relative command path is resolved against the file's directory.
func TestMcpServersChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: \"config: ok\"}]}]\n",
		"cfg/acprun.yaml": "agents:\n  m:\n    command: [acprun, mock-agent, agent.mock.yaml]\n    mcpServers: [{name: x, command: /x, args: \"-v\"}]\n",
		"bad.yaml": configScenario(`  mcpServers:
    - {name: b, command: /bin/true, env: {K: v}}
    - {name: c, type: websocket, url: "ws://x"}
    - {name: b, type: sse, url: "mcp.example.com/sse"}
`),
		"named.yaml": "name: named\nagent: m\nturns: [{prompt: hi}]\n",
		"good.yaml":  configScenario("  mcpServers: [{name: t, command: ./tools/t.sh}]\n"),
	})
	for _, tc := range []struct {
		files []string
		want  []string
	}{
		{[]string{"bad.yaml"}, []string{
			"bad.yaml:5:42: MCP server env is a list of {name, value}: write env: [{name: NAME, value: VALUE}], got a mapping",
			`bad.yaml:6:23: unknown MCP server type "websocket" (valid types: http, sse); a stdio server (command, args, env) has no type`,
			`bad.yaml:7:14: MCP server name "b" is also the name of the server at line 5: the agent would keep one of them; give each server its own name`,
			`bad.yaml:7:33: MCP server url "mcp.example.com/sse" is not an http or https URL (such as https://mcp.example.com/mcp)`,
		}},
		{[]string{"--config", "cfg/acprun.yaml", "named.yaml"}, []string{"acprun.yaml:4:47: expected a list of strings, got a string"}},
	} {
		for _, cmd := range [][]string{{"validate", "--strict"}, {"run", "-o", "out.json"}} {
			res := acprun(t, dir, append(cmd, tc.files...)...)
			if res.code != exitUsage {
				t.Errorf("%s %s: exit %d, want %d\n%s", cmd[0], tc.files, res.code, exitUsage, res.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("%s %s: stderr lacks %q:\n%s", cmd[0], tc.files, w, res.stderr)
				}
			}
		}
	}
	res := acprun(t, dir, "run", "good.yaml", "-o", "out.json", "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	params := configSent(t, filepath.Join(dir, "tr", "cfg.jsonl"), "session/new")
	if len(params) != 1 {
		t.Fatalf("session/new sent %d times, want once", len(params))
	}
	var p struct {
		McpServers []map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(params[0], &p); err != nil {
		t.Fatal(err)
	}
	wantServers := []map[string]any{{"name": "t", "command": filepath.Join(dir, "tools/t.sh"), "args": []any{}, "env": []any{}}}
	if diff := cmp.Diff(wantServers, p.McpServers); diff != "" {
		t.Errorf("session/new mcpServers (-want +got):\n%s", diff)
	}
}

// TestConfigTurnTimeoutWarned: a turnTimeout in acprun.yaml's defaults
// that is longer than the timeout of a scenario it applies to is warned
// about at its place in acprun.yaml, as the same key in a scenario file
// is, by every command that loads scenarios, and run records it with the
// scenario's results. Given once for the scenarios it is about, the
// warning names them on stderr; each scenario's results have it unnamed.
// With --turn-timeout 5m, which replaces it, the warning is about the
// flag, at the timeout it is longer than, in acprun.yaml.
func TestConfigTurnTimeoutWarned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const config = "defaults:\n  timeout: 1m\n  turnTimeout: 5m\n"
	writeFiles(t, dir, map[string]string{
		"acprun.yaml":     config,
		"agent.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml":          "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"t.yaml":          "name: t\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	at := posAfter(t, "acprun.yaml", config, "turnTimeout:", "5m")
	const msg = "turn timeout 5m0s is longer than the scenario timeout 1m0s"
	for _, args := range [][]string{{"validate", "s.yaml", "t.yaml"}, {"list", "s.yaml", "t.yaml"}, {"explain", "s.yaml", "--kind", "read"}, {"run", "s.yaml", "t.yaml", "-o", "out.json"}} {
		names := `(scenarios "s", "t")`
		if args[0] == "explain" { // one scenario file
			names = `(scenario "s")`
		}
		if res := acprun(t, dir, args...); strings.Count(res.stderr, at+": warning: "+msg+" "+names+"\n") != 1 {
			t.Errorf("acprun %s: exit %d, want the warning at %s:\n%s", args[0], res.code, at, res.stderr)
		}
	}
	var got []string
	for _, sc := range readResults(t, filepath.Join(dir, "out.json")).Scenarios {
		got = append(got, sc.Warnings...)
	}
	if !slices.Equal(got, []string{at + ": " + msg, at + ": " + msg}) {
		t.Errorf("the results' warnings are %q, want the one at %s for each scenario", got, at)
	}
	at = posAfter(t, "acprun.yaml", config, "timeout:", "1m")
	const flagMsg = "--turn-timeout 5m0s is longer than the scenario timeout 1m0s"
	if res := acprun(t, dir, "run", "s.yaml", "--turn-timeout", "5m", "-o", "out.json"); !strings.Contains(res.stderr, at+": warning: "+flagMsg+` (scenario "s")`+"\n") {
		t.Errorf("acprun run --turn-timeout 5m: exit %d, want the warning at %s:\n%s", res.code, at, res.stderr)
	}
}

// TestQuietRunSaysLoadWarningsOnce: run -q, which prints just the
// summary, says the warnings of loading the scenarios it runs there
// alone (it said them above the summary too, a config default's worded
// differently); above it, what the summary does not say: the warnings
// about the scenarios that do not run, a config default's naming those.
// A one-shot --prompt run says its config default's warning once too.
func TestQuietRunSaysLoadWarningsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const config = "defaults:\n  timeout: 1m\n  turnTimeout: 5m\nagents:\n  mock1: {command: [acprun, mock-agent, agent.mock.yaml]}\n"
	const own = "name: t\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, timeout: 10m}]\n"
	writeFiles(t, dir, map[string]string{
		"acprun.yaml":     config,
		"agent.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml":          "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"t.yaml":          own,
		"u.yaml":          "name: u\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	cfgAt := posAfter(t, "acprun.yaml", config, "turnTimeout:", "5m")
	ownAt := posAfter(t, "t.yaml", own, "timeout:", "10m")
	const cfgMsg, ownMsg = "turn timeout 5m0s is longer than the scenario timeout 1m0s", "turn timeout 10m0s is longer than the scenario timeout 1m0s"
	res := acprun(t, dir, "run", ".", "--run", "^[st]$", "-q", "-o", "out.json")
	want := cfgAt + ": warning: " + cfgMsg + ` (scenario "u")` + "\n\nWARN s\n    warning: " + cfgAt + ": " + cfgMsg + "\nWARN t\n    warning: " + ownAt + ": " + ownMsg + "\n"
	if res.code != exitOK || !strings.HasPrefix(res.stderr, want) || strings.Count(res.stderr, ownMsg) != 1 || strings.Count(res.stderr, cfgMsg) != 3 {
		t.Errorf("run --run '^[st]$' -q: exit %d, stderr:\n%s\nwant 0 and each warning once, beginning:\n%s", res.code, res.stderr, want)
	}
	res = acprun(t, dir, "run", "--agent", "mock1", "--prompt", "Say something.", "-q", "-o", "out.json")
	if res.code != exitOK || strings.Count(res.stderr, cfgMsg) != 1 || !strings.Contains(res.stderr, "    warning: "+cfgAt+": "+cfgMsg+"\n") {
		t.Errorf("run --prompt -q: exit %d, stderr:\n%s\nwant 0 and the warning at %s once, in the summary", res.code, res.stderr, cfgAt)
	}
}

// TestConfigBesideTheScenariosNotLoaded: an acprun.yaml beside the
// scenarios run from another directory is not the run's config; its
// defaults (here a deny rule) do not apply, and the run says so with a
// warning that names the file and how to load it, rather than ignore it
// without a word. With --config, or run from its directory, it is loaded,
// and nothing is said.
func TestConfigBesideTheScenariosNotLoaded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"suite/ok.mock.yaml": "turns:\n  - steps: [{text: pass}]\n",
		"suite/acprun.yaml":  "defaults:\n  permissions: {deny: [{kind: execute}]}\n",
		"suite/s.yaml":       "name: a\nagent: {name: mock, args: [ok.mock.yaml]}\nturns: [{prompt: hi}]\n",
	})
	want := "acprun: warning: suite/acprun.yaml was not loaded: acprun reads its config from acprun.yaml in the working directory, or from --config FILE; pass --config suite/acprun.yaml\n"
	for _, args := range [][]string{{"run", "suite", "-o", "out.json"}, {"list", "suite"}} {
		if res := acprun(t, dir, args...); !strings.Contains(res.stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant it to hold:\n%s", args, res.code, res.stderr, want)
		}
	}
	if res := acprun(t, dir, "run", "suite", "--config", "suite/acprun.yaml", "-o", "out.json"); res.code != 0 || strings.Contains(res.stderr, "was not loaded") {
		t.Errorf("--config: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if res := acprun(t, filepath.Join(dir, "suite"), "run", ".", "-o", "out.json"); res.code != 0 || strings.Contains(res.stderr, "was not loaded") {
		t.Errorf("from its directory: exit %d, stderr:\n%s", res.code, res.stderr)
	}
}

// TestScenarioWithoutAgentSaysHowToGiveOne: a scenario without an agent
// key, run with --agent (which replaces its agent, and does not give it
// one), is an error at the scenario that says how to give it one: its own
// agent key, or the config's defaults.agent.
func TestScenarioWithoutAgentSaysHowToGiveOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml": "turns:\n  - steps: [{text: pass}]\n",
		"acprun.yaml":  "agents:\n  m: {command: [acprun, mock-agent, ok.mock.yaml]}\n",
		"s.yaml":       "name: a\npermissions: {}\nturns: [{prompt: hi}]\n",
	})
	want := `s.yaml:1:1: missing required key "agent": name the agent that runs it (agent: claude, or agent: {command: [...]}), ` +
		"or give every scenario one with defaults.agent in the config file (acprun.yaml, or --config FILE)\n"
	if res := acprun(t, dir, "run", "s.yaml", "--agent", "m", "-o", "out.json"); res.code != exitUsage || !strings.HasPrefix(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and it to start with:\n%s", res.code, res.stderr, exitUsage, want)
	}
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n  m: {command: [acprun, mock-agent, ok.mock.yaml]}\ndefaults:\n  agent: {name: m}\n"})
	if res := acprun(t, dir, "run", "s.yaml", "--agent", "m", "-o", "out.json"); res.code != 0 {
		t.Errorf("with defaults.agent: exit %d, stderr:\n%s", res.code, res.stderr)
	}
}

// TestCurrencyNotANumber: a config's currency that YAML reads as a number
// or a boolean is refused where it is written, by validate and run alike,
// rather than taken as the currency "5".
func TestCurrencyNotANumber(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"acprun.yaml":     "prices:\n  m: {input: 1, output: 2}\ncurrency: 5\n",
		"s.yaml":          "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns: [{prompt: hi}]\n",
	})
	want := "acprun.yaml:3:11: expected a currency such as USD or EUR, got the number 5: name the currency of the prices, or leave it out for USD"
	for _, cmd := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, cmd...)
		if res.code != exitUsage || !strings.Contains(res.stderr, want) {
			t.Errorf("%s: exit %d, want %d and %q in:\n%s", cmd[0], res.code, exitUsage, want, res.stderr)
		}
	}
}
