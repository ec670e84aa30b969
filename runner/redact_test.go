package runner

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// plant fills every string, map key, []byte (raw JSON) and nested value
// reachable from v with the secret, allocating pointers, one element per
// slice and one entry per map, so that every field a Result can carry holds
// it.
func plant(v reflect.Value, secret string, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("id-" + secret + " and \"" + secret + "\"")
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		plant(v.Elem(), secret, depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				plant(v.Field(i), secret, depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // json.RawMessage
			raw, _ := json.Marshal(map[string]any{"k-" + secret: []any{secret, true, 3}, "esc": "x"})
			raw = []byte(strings.Replace(string(raw), `"esc":"x"`, `"esc":"\u0067`+secret[1:]+`"`, 1))
			v.SetBytes(raw)
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		plant(s.Index(0), secret, depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		plant(k, secret, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		plant(e, secret, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// TestResultHasNoUnredactedField plants a secret in every field of a
// Result and checks that the redaction runScenario applies leaves none,
// raw, JSON-escaped or \u-escaped, and keeps the JSON valid.
func TestResultHasNoUnredactedField(t *testing.T) {
	t.Parallel()
	const secret = "ghp_planted1234567890"
	var res report.Result
	plant(reflect.ValueOf(&res), secret, 0)
	if len(res.Turns) != 1 || len(res.Turns[0].ToolCalls) != 1 || len(res.Turns[0].Updates) != 1 {
		t.Fatalf("plant did not fill the result: %+v", res.Turns)
	}
	redact.New(secret).Value(&res)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal after redaction: %v", err)
	}
	if strings.Contains(string(b), "planted") {
		t.Errorf("a secret is left in %s", b)
	}
	if !strings.Contains(string(b), redact.Marker) || !strings.Contains(string(b), `true,3`) {
		t.Errorf("redacted result %s: want markers, and literals kept", b)
	}
}

// TestSecretsOfTheWholeRun: a scenario's outputs (its result, transcript
// and what observers see) are redacted of the secrets of every scenario
// of the run, not only of its own: here b's agent tells a's secret, as
// an agent reading a's agent's environment from /proc could.
func TestSecretsOfTheWholeRun(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCDEF123456"
	tr := t.TempDir()
	obs := &recordingObserver{}
	rep := runFiles(t, t.Context(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: fine}]}]\n",
		"b.mock.yaml": "sessionId: sess-" + secret + "\nturns: [{steps: [{text: \"stolen: TOKEN_A=" + secret + "\"}]}]\n",
		"s.yaml": `
name: a
agent: {command: [acprun, mock-agent, a.mock.yaml], env: {TOKEN_A: "` + secret + `"}}
turns: [{prompt: hi}]
---
name: b
agent: {command: [acprun, mock-agent, b.mock.yaml]}
turns: [{prompt: hi, expect: {text: {contains: stolen}}}]
`,
	}, Options{Transcripts: tr, Observer: obs})
	if len(rep.Scenarios) != 2 || rep.Scenarios[1].Status != report.StatusPassed {
		t.Fatalf("scenarios = %+v, want a and b, b passed", rep.Scenarios)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "ABCDEF") || !strings.Contains(string(b), "TOKEN_A="+redact.Marker) {
		t.Errorf("results: want b's text with a's secret redacted, got %s", b)
	}
	entries, err := os.ReadDir(tr)
	if err != nil || len(entries) != 2 {
		t.Fatalf("transcripts %v (%v), want 2", entries, err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(tr, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "ABCDEF") {
			t.Errorf("transcript %s holds a's secret:\n%s", e.Name(), data)
		}
	}
	if seen := obs.String(); strings.Contains(seen, "ABCDEF") || !strings.Contains(seen, redact.Marker) {
		t.Errorf("the observer saw %s; want a's secret redacted", seen)
	}
}

// TestSecretSplitByTheShellRedacted: a secret written unquoted in a shell
// line, which the policy splits between commands and paths none of which
// holds it whole, is redacted in each of them, in a permission's record
// and in the refusal of a terminal's command, which the agent is sent.
func TestSecretSplitByTheShellRedacted(t *testing.T) {
	t.Parallel()
	const secret = "pa55;word|XKEYX2&x"
	tr := t.TempDir()
	obs := &recordingObserver{}
	rep := runFiles(t, t.Context(), map[string]string{
		"a.mock.yaml": `turns:
  - steps:
      - permission: {toolCallId: p1, title: Bash, kind: execute, rawInput: {command: "mysql -ppa55;word|XKEYX2&x db"}}
      - permission: {toolCallId: p2, title: Bash, kind: execute, rawInput: {command: "echo hi >pa55;word|XKEYX2&x"}}
      - terminal: {command: "echo pa55;word|XKEYX2&x"}
`,
		"s.yaml": `
name: a
agent: {command: [acprun, mock-agent, a.mock.yaml], env: {DB_PASSWORD: "` + secret + `"}}
permissions: {default: deny, allow: [{command: "echo *"}]}
turns: [{prompt: hi}]
`,
	}, Options{Transcripts: tr, Observer: obs})
	if len(rep.Scenarios) != 1 || len(rep.Scenarios[0].Turns) != 1 {
		t.Fatalf("scenarios = %+v, want a with one turn", rep.Scenarios)
	}
	turn := rep.Scenarios[0].Turns[0]
	if len(turn.Permissions) != 2 || len(turn.ClientRequests) != 1 {
		t.Fatalf("permissions %+v, client requests %+v: want 2 and 1", turn.Permissions, turn.ClientRequests)
	}
	want := []string{"mysql -p" + redact.Marker, redact.Marker, redact.Marker, "x db"}
	if diff := cmp.Diff(want, turn.Permissions[0].Commands); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "XKEYX2") {
		t.Errorf("results hold a part of the secret: %s", b)
	}
	data, err := os.ReadFile(filepath.Join(tr, "a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "XKEYX2") {
		t.Errorf("transcript holds a part of the secret:\n%s", data)
	}
	if seen := obs.String(); strings.Contains(seen, "XKEYX2") {
		t.Errorf("the observer saw a part of the secret: %s", seen)
	}
}

// recordingObserver records, as JSON, every result and turn it is told
// about.
type recordingObserver struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (o *recordingObserver) record(v any) {
	b, _ := json.Marshal(v)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(b)
	o.buf.WriteByte('\n')
}

func (o *recordingObserver) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

func (o *recordingObserver) ScenarioStarted(Ref)                          {}
func (o *recordingObserver) TurnStarted(Ref, int)                         {}
func (o *recordingObserver) TurnFinished(_ Ref, t report.TurnResult)      { o.record(t) }
func (o *recordingObserver) Warning(_ Ref, msg string)                    { o.record(msg) }
func (o *recordingObserver) ScenarioFinished(_ Ref, r report.Result)      { o.record(r) }
func (o *recordingObserver) PermissionDecided(_ Ref, p report.Permission) { o.record(p) }

// TestGatewayUpstreamPasswordRedacted: the password of a gateway's
// upstream (a proxy's) is a secret of the run, redacted wherever it shows,
// and the gateway's own error names the upstream with it masked.
func TestGatewayUpstreamPasswordRedacted(t *testing.T) {
	t.Parallel()
	const password = "Pr0xyPassw0rdXYZ"
	rep := runFiles(t, t.Context(), map[string]string{
		"a.mock.yaml": `turns: [{steps: [{text: "the proxy's is ` + password + `"}, {model: {api: anthropic, model: m, prompt: hi}}]}]` + "\n",
		"s.yaml": `name: a
agent: {command: [acprun, mock-agent, a.mock.yaml]}
gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: "http://proxyuser:` + password + `@127.0.0.1:1"}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	}, Options{})
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Scenarios[0].Turns[0]
	if strings.Contains(string(b), password) || tr.Text != "the proxy's is "+redact.Marker || !strings.Contains(tr.Error, "upstream http://proxyuser:xxxxx@127.0.0.1:1: ") {
		t.Errorf("turn text %q, error %q; want the password redacted, the upstream masked; results:\n%s", tr.Text, tr.Error, b)
	}
}

// TestRedactorKeepsNamesAndOwnWords: a value of an agent's env or of a
// secret-looking variable of acprun's environment that is part of a
// scenario's name, of its file's path or of its named agent's name, or
// is one of acprun's own words, is no secret of the run: names and files
// stay distinct and statuses and stop reasons readable. A secret in no
// name still is one.
func TestRedactorKeepsNamesAndOwnWords(t *testing.T) {
	t.Parallel()
	matrix := func(model string) *scenario.Scenario {
		return &scenario.Scenario{Name: "matrix[model=" + model + "]", Agent: scenario.Agent{Env: map[string]string{"ANTHROPIC_MODEL": model, "API_KEY": "sk-live-ABCDEF123456"}}}
	}
	words := &scenario.Scenario{Name: "st", Agent: scenario.Agent{Env: map[string]string{
		"EXPECTED": "passed", "LOG_LEVEL": "error", "STOP": " END_TURN ", "KIND": "execute", "CAUSE": "turnTimeout", "VERDICT": "deny",
	}}}
	smoke := &scenario.Scenario{Name: "deploy-bot-smoke"}
	suite := &scenario.Scenario{Name: "check", File: "smoke-suite/check.yaml", Agent: scenario.Agent{Env: map[string]string{"SUITE": "smoke-suite", "API_KEY": "sk-live-ABCDEF123456"}}}
	nightly := &scenario.Scenario{Name: "fail", File: "/ci/nightly-evals/fail.yaml"}
	named := &scenario.Scenario{Name: "port", Agent: scenario.Agent{Name: "claude-opus", Env: map[string]string{"MODEL": "claude-opus", "API_KEY": "sk-live-ABCDEF123456"}}}
	tests := []struct {
		name      string
		scenarios []*scenario.Scenario
		environ   []string
		in, want  string
	}{
		{"a vars value in env", []*scenario.Scenario{matrix("sonnet-4"), matrix("opus-4")}, nil,
			"matrix[model=sonnet-4] matrix[model=opus-4] used opus-4 with sk-live-ABCDEF123456",
			"matrix[model=sonnet-4] matrix[model=opus-4] used opus-4 with [REDACTED]"},
		{"acprun's own words", []*scenario.Scenario{words}, nil,
			`"status":"passed","error":"x","stopReason":"end_turn","kind":"execute","cancelCause":"turnTimeout","decision":"deny"`,
			`"status":"passed","error":"x","stopReason":"end_turn","kind":"execute","cancelCause":"turnTimeout","decision":"deny"`},
		{"an environment value in a name", []*scenario.Scenario{smoke}, []string{"AUTH_USER=deploy-bot", "MY_API_TOKEN=tok_environ987654"},
			"deploy-bot-smoke: tok_environ987654", "deploy-bot-smoke: [REDACTED]"},
		{"a name of another scenario", []*scenario.Scenario{matrix("sonnet-4"), smoke}, []string{"AUTH_USER=deploy-bot"},
			"deploy-bot-smoke matrix[model=sonnet-4]", "deploy-bot-smoke matrix[model=sonnet-4]"},
		{"an agent's name", []*scenario.Scenario{named}, nil,
			`"name":"port","agent":{"name":"claude-opus"}: sk-live-ABCDEF123456`, `"name":"port","agent":{"name":"claude-opus"}: [REDACTED]`},
		{"an env value in a scenario's file", []*scenario.Scenario{suite}, nil,
			`"file":"smoke-suite/check.yaml": smoke-suite/check.yaml:6:31: sk-live-ABCDEF123456`,
			`"file":"smoke-suite/check.yaml": smoke-suite/check.yaml:6:31: [REDACTED]`},
		{"an environment value in a scenario's file", []*scenario.Scenario{nightly}, []string{"MY_SESSION_NAME=nightly-evals", "MY_API_TOKEN=tok_environ987654"},
			`"file":"/ci/nightly-evals/fail.yaml": tok_environ987654`, `"file":"/ci/nightly-evals/fail.yaml": [REDACTED]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runRedactor(tt.scenarios, tt.environ, nil).String(tt.in); got != tt.want {
				t.Errorf("runRedactor: String(%q) = %q; want %q", tt.in, got, tt.want)
			}
			if len(tt.scenarios) != 1 {
				return
			}
			opts := &Options{Environ: tt.environ} // outside Run: the scenario's own secrets
			if got := opts.redactor(tt.scenarios[0]).String(tt.in); got != tt.want {
				t.Errorf("Options.redactor: String(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestResultsRedactorKeepsNames: what an HTML report of results redacts of
// acprun's environment spares the scenarios' names and their agents', their
// files and the directories those are relative to (the results' dir, a
// merged result's own), as their run did.
func TestResultsRedactorKeepsNames(t *testing.T) {
	t.Parallel()
	rep := report.Report{Dir: "/ci/run-workdir-one", Scenarios: []report.Result{
		{Name: "deploy-bot-smoke", File: "nightly-evals/fail.yaml", Status: report.StatusFailed, Agent: report.AgentInfo{Name: "claude-opus"}},
		{Name: "other", File: "b.yaml", Dir: "/ci/shard-workdir-two", Status: report.StatusPassed},
	}}
	red := ResultsRedactor(rep, []string{"AUTH_USER=deploy-bot", "SESSION_STATE=failed-or-so", "MY_API_TOKEN=tok_environ987654", "AUTH_MODEL=claude-opus",
		"MY_SESSION_NAME=nightly-evals", "SESSION_DIR=run-workdir", "AUTH_DIR=shard-workdir"})
	const in = "deploy-bot-smoke [claude-opus] failed-or-so tok_environ987654 /ci/run-workdir-one/nightly-evals/fail.yaml /ci/shard-workdir-two/b.yaml"
	if got, want := red.String(in), "deploy-bot-smoke [claude-opus] [REDACTED] [REDACTED] /ci/run-workdir-one/nightly-evals/fail.yaml /ci/shard-workdir-two/b.yaml"; got != want {
		t.Errorf("String(%q) = %q; want %q", in, got, want)
	}
}

// TestMcpServerSecrets: the values of the env and headers of the MCP
// servers of a scenario's agent and of its judges' agents, and the credential of an "Authorization: Bearer X", are
// secrets of the scenario; a value in its name is not.
func TestMcpServerSecrets(t *testing.T) {
	t.Parallel()
	sc := &scenario.Scenario{Name: "mcp-github", Agent: scenario.Agent{McpServers: []byte(`[
		{"name":"github","command":"/gh","args":[],"env":[{"name":"GITHUB_PERSONAL_ACCESS_TOKEN","value":"ghp_R3alL00kingT0ken"},{"name":"TOOLSET","value":"github"}]},
		{"type":"http","name":"remote","url":"https://mcp.example.com/","headers":[{"name":"Authorization","value":"Bearer ghs_S3rverT0kenValue"}]},
		{"type":"sse","name":"events","url":"https://mcp.example.com/sse","headers":[{"name":"X-Api-Key","value":"key-SseT0kenValue"}]}]`)}}
	sc.Expect.Judge = &scenario.Judge{Agent: scenario.Agent{McpServers: []byte(`[{"name":"judge","command":"/j","args":[],"env":[{"name":"TOKEN","value":"judge-T0kenValue"}]}]`)}}
	const in = `token ghp_R3alL00kingT0ken, Authorization: Bearer ghs_S3rverT0kenValue, told ghs_S3rverT0kenValue, key-SseT0kenValue, judge-T0kenValue, for mcp-github`
	const want = `token [REDACTED], Authorization: [REDACTED], told [REDACTED], [REDACTED], [REDACTED], for mcp-github`
	if got := runRedactor([]*scenario.Scenario{sc}, nil, nil).String(in); got != want {
		t.Errorf("runRedactor: String(%q) = %q; want %q", in, got, want)
	}
	if got := (&Options{}).redactor(sc).String(in); got != want {
		t.Errorf("Options.redactor: String(%q) = %q; want %q", in, got, want)
	}
}

// TestMcpServerURLSecrets: the password in the url of an http or sse
// MCP server (https://user:password@host/) and the values of its
// secret-looking query parameters (?api_key=…), which the agent is sent
// in session/new, are secrets of the scenario, as a proxy's password in a
// gateway's upstream is; the rest of the url is not.
func TestMcpServerURLSecrets(t *testing.T) {
	t.Parallel()
	sc := &scenario.Scenario{Name: "mcp", Agent: scenario.Agent{McpServers: []byte(`[
		{"type":"http","name":"remote","url":"https://bot:Mcp-Passw0rd-9@mcp.example.com/","headers":[]},
		{"type":"sse","name":"hosted","url":"https://mcp.example.com/sse?api_key=Mcp-QueryKey-7&limit=5","headers":[]}]`)}}
	const in = `{"url":"https://bot:Mcp-Passw0rd-9@mcp.example.com/"},{"url":"https://mcp.example.com/sse?api_key=Mcp-QueryKey-7&limit=5"}`
	const want = `{"url":"https://bot:[REDACTED]@mcp.example.com/"},{"url":"https://mcp.example.com/sse?api_key=[REDACTED]&limit=5"}`
	if got := runRedactor([]*scenario.Scenario{sc}, nil, nil).String(in); got != want {
		t.Errorf("String(%q) = %q; want %q", in, got, want)
	}
}

// TestSpelledSecrets: the values of an agent's env as its file spells
// them (Agent.Spelled) are secrets too, a scenario's, a judge's and a
// config agent's: a problem's source line shows them so.
func TestSpelledSecrets(t *testing.T) {
	t.Parallel()
	sc := &scenario.Scenario{Name: "s", Agent: scenario.Agent{Env: map[string]string{"PW": "Tr0ub4dor's-Horse-99"}, Spelled: []string{"Tr0ub4dor''s-Horse-99"}}}
	sc.Expect.Judge = &scenario.Judge{Agent: scenario.Agent{Spelled: []string{`judge\x2dsecret`}}}
	cfgAgent := scenario.Agent{Name: "mine", Spelled: []string{`cfg\u0073ecret`}}
	const in = `env: {PW: 'Tr0ub4dor''s-Horse-99', J: "judge\x2dsecret", C: "cfg\u0073ecret"}`
	const want = `env: {PW: '[REDACTED]', J: "[REDACTED]", C: "[REDACTED]"}`
	if got := runRedactor([]*scenario.Scenario{sc}, nil, nil, cfgAgent).String(in); got != want {
		t.Errorf("runRedactor: String(%q) = %q; want %q", in, got, want)
	}
}

// TestGatewaySpelledSecrets: the password of a gateway's upstream (a
// proxy's) and the upstream as its file writes it (Gateway.Spelled) are
// secrets, a scenario's and those of the config's defaults.gateway, which
// no scenario may use: a problem's source line shows them so.
func TestGatewaySpelledSecrets(t *testing.T) {
	t.Parallel()
	sc := &scenario.Scenario{Name: "s", Gateway: &scenario.Gateway{
		Given:   scenario.GatewayTarget{Upstream: "http://user:Pr0xy@pass-77@proxy:8080"},
		Spelled: []string{`http://user:Pr0xy\x40pass-77@proxy:8080`},
	}}
	cfg := &scenario.Config{}
	cfg.Defaults.Scenario.Gateway = &scenario.Gateway{Given: scenario.GatewayTarget{Upstream: "http://user:Cfg-Pr0xy-88@proxy:8080"}}
	const in = `upstream: "http://user:Pr0xy\x40pass-77@proxy:8080", told Pr0xy@pass-77 and Cfg-Pr0xy-88`
	const want = `upstream: "[REDACTED]", told [REDACTED] and [REDACTED]`
	if got := runRedactor([]*scenario.Scenario{sc}, nil, cfg).String(in); got != want {
		t.Errorf("runRedactor: String(%q) = %q; want %q", in, got, want)
	}
	if got := (&Options{Config: cfg}).redactor(sc).String(in); got != want {
		t.Errorf("Options.redactor: String(%q) = %q; want %q", in, got, want)
	}
}

// TestGatewayPasswordAsWritten: the password of a gateway's upstream (a
// proxy's) is a secret as its URL writes it, with escapes Go spells
// otherwise (lowercase hex, a letter escaped): a scenario's
// gateway.upstream, the config's defaults.gateway and an upstream taken
// from the agent's own variable (a target's), which a problem's source
// line, or the agent, may show so.
func TestGatewayPasswordAsWritten(t *testing.T) {
	t.Parallel()
	sc := &scenario.Scenario{Name: "s", Gateway: &scenario.Gateway{
		Given:   scenario.GatewayTarget{Upstream: "http://user:Pr0xy%2fpass%2d77@proxy:8080"},
		Targets: []scenario.GatewayTarget{{Env: "ANTHROPIC_BASE_URL", Upstream: "http://user:T%61rget-99@proxy:8080"}},
	}}
	cfg := &scenario.Config{}
	cfg.Defaults.Scenario.Gateway = &scenario.Gateway{Given: scenario.GatewayTarget{Upstream: "http://user:Cfg%2dPr0xy%2f88@proxy:8080"}}
	const in = `upstream: "http://user:Pr0xy%2fpass%2d77@proxy:8080", "http://user:Cfg%2dPr0xy%2f88@proxy:8080", http://user:T%61rget-99@proxy:8080`
	const want = `upstream: "http://user:[REDACTED]@proxy:8080", "http://user:[REDACTED]@proxy:8080", http://user:[REDACTED]@proxy:8080`
	if got := runRedactor([]*scenario.Scenario{sc}, nil, cfg).String(in); got != want {
		t.Errorf("runRedactor: String(%q) = %q; want %q", in, got, want)
	}
	if got := (&Options{Config: cfg}).redactor(sc).String(in); got != want {
		t.Errorf("Options.redactor: String(%q) = %q; want %q", in, got, want)
	}
	if got := cassetteRedactor(sc, nil).String(in); !strings.Contains(got, "Cfg%2dPr0xy") || strings.Contains(got, "Pr0xy%2fpass") || strings.Contains(got, "T%61rget") {
		t.Errorf("cassetteRedactor: String(%q) = %q; want its own scenario's redacted", in, got)
	}
}

// TestRedactionKeepsProtocolWords: an env value that is part of a word of
// the protocol (a method, property or enum value of the ACP schema) is no
// secret: the transcript keeps every message whole, the agent's name from
// initialize stays as it said; a secret that is no such word still goes.
func TestRedactionKeepsProtocolWords(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCDEF123456"
	tr := t.TempDir()
	rep := runFiles(t, t.Context(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: \"hi there, " + secret + "\"}]}]\n",
		"s.yaml": `name: a
agent:
  command: [acprun, mock-agent, a.mock.yaml]
  env: {OUTPUT_FORMAT: text, APP_MODE: agent, UPDATES: Message_Chunk, API_KEY: "` + secret + `"}
permissions: {default: deny}
turns: [{prompt: hello}]
`,
	}, Options{Transcripts: tr})
	res := rep.Scenarios[0]
	if res.Status != report.StatusPassed || res.Agent.InfoName != "acprun-mock-agent" || res.Turns[0].Text != "hi there, "+redact.Marker {
		t.Errorf("status %s, agentName %q, text %q; want passed, acprun-mock-agent, the secret redacted", res.Status, res.Agent.InfoName, res.Turns[0].Text)
	}
	data, err := os.ReadFile(filepath.Join(tr, "a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "ABCDEF") {
		t.Errorf("the transcript holds the secret:\n%s", data)
	}
	var prompt, chunk, initialize bool
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var l struct {
			Msg struct {
				Method string `json:"method"`
				Params struct {
					Prompt []map[string]string `json:"prompt"`
					Update struct {
						SessionUpdate string            `json:"sessionUpdate"`
						Content       map[string]string `json:"content"`
					} `json:"update"`
				} `json:"params"`
				Result struct {
					AgentInfo struct {
						Name string `json:"name"`
					} `json:"agentInfo"`
				} `json:"result"`
			} `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("transcript line %s: %v", line, err)
		}
		m := l.Msg
		prompt = prompt || m.Method == "session/prompt" && reflect.DeepEqual(m.Params.Prompt, []map[string]string{{"type": "text", "text": "hello"}})
		chunk = chunk || m.Params.Update.SessionUpdate == "agent_message_chunk" && m.Params.Update.Content["type"] == "text"
		initialize = initialize || m.Result.AgentInfo.Name == "acprun-mock-agent"
	}
	if !prompt || !chunk || !initialize {
		t.Errorf("transcript: prompt %v, agent_message_chunk %v, agentInfo %v; want each whole:\n%s", prompt, chunk, initialize, data)
	}
}

// TestGatewayKeyRedacted: the value of the variable gateway.key names, in
// acprun's environment, is a secret of the run, whatever the variable's
// name.
func TestGatewayKeyRedacted(t *testing.T) {
	t.Parallel()
	const key = "zzLLMkeyValue8888"
	rep := runFiles(t, t.Context(), map[string]string{
		"a.mock.yaml": `turns: [{steps: [{text: "the key is ` + key + `"}]}]` + "\n",
		"s.yaml": `name: a
agent: {command: [acprun, mock-agent, a.mock.yaml]}
gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: "http://127.0.0.1:1", key: LLMX}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	}, Options{Environ: append(os.Environ(), "LLMX="+key)})
	if text := rep.Scenarios[0].Turns[0].Text; text != "the key is "+redact.Marker {
		t.Errorf("turn text %q; want the key redacted", text)
	}
}

// TestSecretsOfTheUnselected: a run of some of the loaded scenarios (--run,
// --tag, --shard) redacts what a run of all of them does: the secrets of
// the scenarios it leaves out (Options.Loaded), of the config's agents it
// does not use and of its defaults.agent, which an agent of the run can
// read as well (here b's agent prints them from acprun's environment).
func TestSecretsOfTheUnselected(t *testing.T) {
	t.Parallel()
	const scSecret, cfgSecret, dfltSecret = "sk-ant-prod-0123456789", "sk-cfg-ABCDEF123456", "sk-dflt-ZYXWVU987654"
	dir := t.TempDir()
	files := map[string]string{
		"b.mock.yaml": "turns: [{steps: [{text: \"told " + scSecret + " " + cfgSecret + " " + dfltSecret + "\"}]}]\n",
		"s.yaml": `name: a
agent: {command: [acprun, mock-agent, b.mock.yaml], env: {ANTHROPIC_API_KEY: "` + scSecret + `"}}
turns: [{prompt: hi}]
---
name: b
agent: {command: [acprun, mock-agent, b.mock.yaml]}
turns: [{prompt: hi}]
`,
		"acprun.yaml": `agents:
  prod: {command: [acprun, mock-agent, b.mock.yaml], env: {ANTHROPIC_API_KEY: "` + cfgSecret + `"}}
defaults:
  agent: {command: [acprun, mock-agent, b.mock.yaml], env: {OTHER_KEY: "` + dfltSecret + `"}}
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := scenario.LoadConfig(filepath.Join(dir, "acprun.yaml"), scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{Config: cfg})
	if err != nil || len(scs) != 2 {
		t.Fatalf("Load: %d scenarios, %v", len(scs), err)
	}
	tr := t.TempDir()
	rep, err := Run(t.Context(), Options{Self: agentBin(t), Transcripts: tr, Loaded: scs, Config: cfg}, scs[1:])
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 1 || len(rep.Scenarios[0].Turns) != 1 {
		t.Fatalf("scenarios = %+v, want b with one turn", rep.Scenarios)
	}
	want := "told " + redact.Marker + " " + redact.Marker + " " + redact.Marker
	if got := rep.Scenarios[0].Turns[0].Text; got != want {
		t.Errorf("b's text = %q; want %q", got, want)
	}
	data, err := os.ReadFile(filepath.Join(tr, "b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{scSecret, cfgSecret, dfltSecret} {
		if strings.Contains(string(data), s) {
			t.Errorf("b's transcript holds %q:\n%s", s, data)
		}
	}
	if got := Redactor(Options{Loaded: scs, Config: cfg}, scs[1:]).String("told " + scSecret + " " + cfgSecret + " " + dfltSecret); got != want {
		t.Errorf("Redactor (the --dry-run plan's): %q; want %q", got, want)
	}
}

// TestConfigRedactorSparesNames: what acprun redacts of the config's
// agents wherever it shows them (acprun agents, probe: Redactor without
// scenarios) spares what a run spares: the agents' names, built-in ones
// too, the words of the protocol and acprun's own; a secret still goes.
func TestConfigRedactorSparesNames(t *testing.T) {
	t.Parallel()
	cfg := &scenario.Config{Agents: map[string]scenario.NamedAgent{"greeter": {Name: "greeter", Agent: scenario.Agent{
		Name: "greeter", Env: map[string]string{"APP_MODE": "agent", "MODEL_NAME": "greeter", "WHICH": "claude", "API_KEY": "sk-live-ABCDEF123456"}}}}}
	const in = "greeter: npx -y @agentclientprotocol/claude-agent-acp, an agent that greets with sk-live-ABCDEF123456"
	const want = "greeter: npx -y @agentclientprotocol/claude-agent-acp, an agent that greets with " + redact.Marker
	if got := Redactor(Options{Config: cfg}, nil).String(in); got != want {
		t.Errorf("Redactor: String(%q) = %q; want %q", in, got, want)
	}
}
