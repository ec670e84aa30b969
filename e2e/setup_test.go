package e2e_test

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/acpschema"
	"github.com/acprun/acprun/report"
)

// The tests of this file open sessions the hard way: a setup request the
// agent is slow to answer (or never answers), an agent that asks for
// authentication, one that speaks protocol version 2, extra roots; and
// they spend against a budget.

// TestSetupCancelRequestTellsSlowFromDead: a session/new still unanswered
// when acprun must stop (here an interrupt, sent once the agent has shown
// it read the request: the transcript showing the request is not enough,
// as the interrupt could still cut its write short) gets $/cancel_request,
// valid by the schema and naming the request; the results say how the
// agent took it: answered cancelled (alive, slow) or not at all within
// cancelGrace (hung or dead).
func TestSetupCancelRequestTellsSlowFromDead(t *testing.T) {
	t.Parallel()
	// sessionNewRead answers initialize, reads session/new and says so
	// with an update; it never answers session/new by itself.
	const sessionNewRead = `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'
read -r line; printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"opening"}}}}'
`
	for _, tc := range []struct {
		name, script string
		want         report.SetupCancel
		says         string
	}{
		{"slow", sessionNewRead + "read -r line; printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32800,\"message\":\"Request cancelled\"}}'\nread -r line\n", report.SetupCancel{Method: "session/new", Cause: "interrupt", Answer: "cancelled"},
			"session/new: not answered before acprun was interrupted; acprun sent $/cancel_request and the agent answered it cancelled (code -32800): it is alive, and slow"},
		{"dead", sessionNewRead + "while read -r line; do :; done\n", report.SetupCancel{Method: "session/new", Cause: "interrupt", Answer: "none"},
			"session/new: not answered before acprun was interrupted; acprun sent $/cancel_request and the agent did not answer within cancelGrace (1s): it is hung or dead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"agent.sh": tc.script,
				"s.yaml": `name: opening
agent: {command: [sh, agent.sh]}
permissions: {default: deny}
cancelGrace: 1s
killGrace: 500ms
turns:
  - prompt: one
`,
			})
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			run := runFollowingTranscript(t, ctx, dir, "opening")
			run.waitFor("session/new", `"dir":"c2a"`, `"method":"session/new"`)
			run.waitFor("the agent's word that it read session/new", `"dir":"a2c"`, `"text":"opening"`)
			run.interrupt()
			run.waitFor("$/cancel_request", `"dir":"c2a"`, `"method":"$/cancel_request"`)
			var line struct {
				Msg json.RawMessage `json:"msg"`
			}
			if err := json.Unmarshal(run.lines.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			if err := acpschema.Load(t).ValidateClientMessage(line.Msg); err != nil || !strings.Contains(string(line.Msg), `"params":{"requestId":2}`) {
				t.Errorf("sent %s (%v), want a valid $/cancel_request of request 2, session/new", line.Msg, err)
			}
			out := run.waitInterrupted()
			r := out.Scenarios[0]
			if r.SetupCancel == nil {
				t.Fatalf("no setupCancel in %+v", r)
			}
			got := *r.SetupCancel
			got.WaitedMs = 0
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("setupCancel (-want +got):\n%s", diff)
			}
			if tc.want.Answer == "none" && r.SetupCancel.WaitedMs < 1000 {
				t.Errorf("waited %dms for an answer, want cancelGrace (1s)", r.SetupCancel.WaitedMs)
			}
			if r.Status != report.StatusInterrupted || r.Error != "acprun was interrupted before the session opened ("+tc.says+")" {
				t.Errorf("status %s, error %q; want interrupted, saying %q", r.Status, r.Error, tc.says)
			}
		})
	}
}

// TestSetupTimeoutSendsCancelRequest: the scenario's timeout passing
// during the setup is the setup's deadline: the request in flight
// (initialize, which this agent never answers by itself) gets
// $/cancel_request, and the scenario is an infrastructure error (exit 3)
// with the cause setupTimeout, which the JUnit <error>'s type and the HTML
// report's card say, with the setup request cancelled.
func TestSetupTimeoutSendsCancelRequest(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, "delay: {initialize: never}\n", `name: late
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
timeout: 2s
cancelGrace: 5s
turns:
  - prompt: one
`, "--transcripts", "tr", "--junit", "junit.xml", "--html", "report.html")
	if res.code != exitAgent {
		t.Errorf("exit %d, want %d\n%s", res.code, exitAgent, res.stderr)
	}
	const cancelled = "setup: initialize cancelled at scenarioTimeout: the agent confirmed the cancel in " // then the wait
	var junit struct {
		Cases []struct {
			Error struct {
				Type string `xml:"type,attr"`
				Body string `xml:",chardata"`
			} `xml:"error"`
		} `xml:"testsuite>testcase"`
	}
	files := readFiles(t, dir, "junit.xml", "report.html")
	if err := xml.Unmarshal(files["junit.xml"], &junit); err != nil || len(junit.Cases) != 1 {
		t.Fatalf("junit.xml: %v, %d cases", err, len(junit.Cases))
	}
	if e := junit.Cases[0].Error; e.Type != "setupTimeout" || !strings.Contains(e.Body, cancelled) {
		t.Errorf("JUnit <error> of type %q, text:\n%s\nwant type setupTimeout and %q", e.Type, e.Body, cancelled)
	}
	if page := string(files["report.html"]); !strings.Contains(page, `<p class="meta cause">cause <code>setupTimeout</code> · `+cancelled) {
		t.Errorf("the HTML report's card does not say the cause and the cancelled request")
	}
	r := out.Scenarios[0]
	want := "initialize: not answered before the scenario's timeout passed; acprun sent $/cancel_request and the agent answered it cancelled (code -32800): it is alive, and slow"
	if r.Status != report.StatusError || r.ErrorCause != report.ErrorSetupTimeout || r.Error != want {
		t.Errorf("status %s, cause %q, error %q; want error, setupTimeout, %q", r.Status, r.ErrorCause, r.Error, want)
	}
	if c := r.SetupCancel; c == nil || c.Method != "initialize" || c.Cause != "scenarioTimeout" || c.Answer != "cancelled" {
		t.Errorf("setupCancel %+v, want initialize cancelled after scenarioTimeout", c)
	}
	if !strings.Contains(res.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
	}
	validateTranscript(t, filepath.Join(dir, r.Transcript))
}

// TestAuthRequiredSaysHowToAuthenticate: an agent that answers
// session/new auth_required ends the scenario as an infrastructure error
// (exit 3, cause auth), with a message at the agent that names the
// methods to set agent.auth to, its terminal login, and the variable its
// registry entry expects (set, never its value); with agent.auth set,
// acprun authenticates first and the scenario runs.
func TestAuthRequiredSaysHowToAuthenticate(t *testing.T) {
	t.Parallel()
	const script = `authMethods:
  - {id: openai-api-key, name: OpenAI API key}
  - {id: chatgpt, name: ChatGPT login, type: terminal}
authRequired: true
turns: [{steps: [{text: hello}]}]
`
	for _, tc := range []struct {
		name, agent string
		code        int
		error       string
	}{
		{"without agent.auth", "codex", exitAgent, "s.yaml:2:8: agent: session/new: the agent requires authentication (set agent.auth, or run with --auth, to one of: openai-api-key); " +
			"or log in once, by hand, with its terminal login (chatgpt); it expects OPENAI_API_KEY (set) in its environment: jsonrpc error -32000: Authentication required"},
		{"with agent.auth", "{name: codex, auth: openai-api-key}", exitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": script,
				"acprun.yaml":     "agents:\n  codex: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
				"s.yaml": "name: auth\nagent: " + tc.agent + `
permissions: {default: deny, enforce: false}
turns:
  - prompt: one
`,
			})
			res := acprunEnv(t, dir, []string{"OPENAI_API_KEY=sk-e2e-not-to-be-seen"}, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr")
			if res.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", res.code, tc.code, res.stderr)
			}
			out := readResults(t, filepath.Join(dir, "out.json"))
			r := out.Scenarios[0]
			if tc.error != "" && (r.Error != tc.error || r.ErrorCause != report.ErrorAuth || !r.StartFailed) {
				t.Errorf("error %q (cause %q, startFailed %v), want %q (auth, true)", r.Error, r.ErrorCause, r.StartFailed, tc.error)
			}
			if tc.error == "" && r.Status != report.StatusPassed {
				t.Errorf("status %s (%s), want passed", r.Status, r.Error)
			}
			raw, err := os.ReadFile(filepath.Join(dir, "out.json"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw)+res.stderr, "sk-e2e-not-to-be-seen") {
				t.Errorf("the key's value is in the output")
			}
			tr := filepath.Join(dir, r.Transcript)
			validateTranscript(t, tr)
			if auth := findTranscriptLine(t, tr, `"method":"authenticate"`, "c2a"); (auth != "") != (tc.error == "") {
				t.Errorf("authenticate sent: %q, want it sent only with agent.auth", auth)
			}
		})
	}
}

// TestAuthenticateRefusedNamesTheVariable: an agent that refuses
// authenticate (codex-acp does so when its key is not set) ends the
// scenario as an auth error whose message names the variable its registry
// entry expects and whether it is set.
func TestAuthenticateRefusedNamesTheVariable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[{"id":"openai-api-key","name":"API key"}]}}'
read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}'
read -r line
`,
		"acprun.yaml": "agents:\n  codex: {command: [sh, agent.sh], auth: openai-api-key}\n",
		"s.yaml":      "name: auth\nagent: codex\npermissions: {default: deny, enforce: false}\nturns: [{prompt: one}]\n",
	})
	res := acprunEnv(t, dir, []string{"OPENAI_API_KEY="}, "run", "s.yaml", "-o", "out.json")
	if res.code != exitAgent {
		t.Errorf("exit %d, want %d\n%s", res.code, exitAgent, res.stderr)
	}
	r := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0]
	const want = `s.yaml:2:8: agent: authenticate "openai-api-key": the agent refused it; it expects OPENAI_API_KEY (not set) in its environment: jsonrpc error -32603: Internal error`
	if r.Error != want || r.ErrorCause != report.ErrorAuth {
		t.Errorf("error %q (cause %q), want %q (auth)", r.Error, r.ErrorCause, want)
	}
}

// TestAuthMethodLaunchArgs: an auth method whose _meta asks that the agent
// be started with arguments (qwen-code's openai: --auth-type=openai), when
// the agent's command lacks them, is said in the auth error — session/new
// asking for authentication, or authenticate refused (the case of
// --agent qwen --auth openai) — and is not said once the command has them.
func TestAuthMethodLaunchArgs(t *testing.T) {
	t.Parallel()
	const methods = "authMethods: [{id: openai, name: Use OpenAI API key, _meta: {type: terminal, args: [--auth-type=openai]}}]\n" +
		"authRequired: true\nturns: [{steps: [{text: hello}]}]\n"
	const hint = `; its auth method "openai" says to start the agent with --auth-type=openai, which its command lacks`
	for _, tc := range []struct {
		name, args, script string
		flags              []string
		code               int
		error              string
	}{
		{name: "session/new", script: methods, code: exitAgent,
			error: `s.yaml:2:8: agent: session/new: the agent requires authentication (set agent.auth, or run with --auth, to one of: openai` + hint +
				`); it expects OPENAI_API_KEY (set) in its environment: jsonrpc error -32000: Authentication required`},
		{name: "refused", script: methods + "authError: {code: -32603, message: Internal error}\n", flags: []string{"--auth", "openai"}, code: exitAgent,
			error: `s.yaml:2:8: agent: --auth openai: authenticate "openai": the agent refused it` + hint + `; it expects OPENAI_API_KEY (set) in its environment: jsonrpc error -32603: Internal error`},
		{name: "started with them", args: ", --auth-type=openai", script: methods, code: exitAgent,
			error: `s.yaml:2:8: agent: session/new: the agent requires authentication (set agent.auth, or run with --auth, to one of: openai); it expects OPENAI_API_KEY (set) in its environment: jsonrpc error -32000: Authentication required`},
		{name: "started with them and authenticated", args: ", --auth-type=openai", script: methods, flags: []string{"--auth", "openai"}, code: exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"wrap.sh":         `exec "$ACPRUN_BIN" mock-agent "$SCRIPT"` + "\n",
				"agent.mock.yaml": tc.script,
				"acprun.yaml": "agents:\n  qwen: {command: [sh, wrap.sh" + tc.args + "], env: {ACPRUN_BIN: " + acprunBin +
					", SCRIPT: " + filepath.Join(dir, "agent.mock.yaml") + "}}\n",
				"s.yaml": "name: auth\nagent: qwen\npermissions: {default: deny}\nturns: [{prompt: one}]\n",
			})
			res := acprunEnv(t, dir, []string{"OPENAI_API_KEY=sk-e2e-not-to-be-seen"}, append([]string{"run", "s.yaml", "-o", "out.json"}, tc.flags...)...)
			if res.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", res.code, tc.code, res.stderr)
			}
			r := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0]
			if tc.error != "" && (r.Error != tc.error || r.ErrorCause != report.ErrorAuth) {
				t.Errorf("error %q (cause %q),\nwant  %q (auth)", r.Error, r.ErrorCause, tc.error)
			}
			if tc.error != "" && !strings.Contains(res.stderr, tc.error) {
				t.Errorf("stderr does not say %q:\n%s", tc.error, res.stderr)
			}
			if strings.Contains(res.stdout+res.stderr, "sk-e2e-not-to-be-seen") {
				t.Errorf("the key's value is in the output")
			}
		})
	}
}

// TestProtocolVersion2IsNotSpoken: an agent that answers initialize with
// protocol version 2 is sent nothing more; the scenario is an
// infrastructure error at its agent saying v2 is not supported yet, and
// the version it offered is recorded. Version 1 runs.
func TestProtocolVersion2IsNotSpoken(t *testing.T) {
	t.Parallel()
	const src = `name: versions
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
`
	for _, v := range []int{2, 1} {
		res, out, dir := runOne(t, "protocolVersion: "+string(rune('0'+v))+"\n", src, "--transcripts", "tr")
		r := out.Scenarios[0]
		if r.Agent.ProtocolVersion != v {
			t.Errorf("v%d: agent.protocolVersion = %d", v, r.Agent.ProtocolVersion)
		}
		tr := filepath.Join(dir, r.Transcript)
		validateTranscript(t, tr)
		if v == 1 {
			if res.code != exitOK {
				t.Errorf("v1: exit %d, want 0\n%s", res.code, res.stderr)
			}
			continue
		}
		want := "s.yaml:2:8: agent: initialize: the agent speaks ACP protocol version 2, which acprun does not support yet (acprun speaks version 1); acprun sent it nothing more"
		if res.code != exitAgent || !strings.HasPrefix(r.Error, want) || r.ErrorCause != report.ErrorProtocolVersion {
			t.Errorf("v2: exit %d, error %q (cause %q); want %d, %q…, protocolVersion", res.code, r.Error, r.ErrorCause, exitAgent, want)
		}
		if !strings.Contains(res.stderr, want) {
			t.Errorf("v2: stderr does not say %q:\n%s", want, res.stderr)
		}
		data, err := os.ReadFile(tr)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), `"dir":"c2a"`); n != 1 || findTranscriptLine(t, tr, `"method":"initialize"`, "c2a") == "" {
			t.Errorf("v2: acprun sent %d messages, want initialize only:\n%s", n, data)
		}
	}
}

// TestExtraRootsAsAdditionalDirectories: client.roots beyond the cwd
// reach the agent as additionalDirectories when it offers them; an agent
// that does not offer them is sent none (this one would refuse them), and
// a warning at client.roots says so.
func TestExtraRootsAsAdditionalDirectories(t *testing.T) {
	t.Parallel()
	for _, offered := range []bool{true, false} {
		script := "turns: [{steps: [{showRoots: true}]}]\n"
		if offered {
			script = "agentCapabilities: {sessionCapabilities: {additionalDirectories: {}}}\n" + script
		}
		dir := realTempDir(t)
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": script,
			"repo/.keep":      "", "data/.keep": "",
			"s.yaml": `name: roots
agent: {command: [acprun, mock-agent, ../agent.mock.yaml], cwd: repo}
permissions: {default: deny}
client: {roots: [repo, data]}
turns:
  - prompt: one
`,
		})
		res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
		r := out.Scenarios[0]
		repo, data := filepath.Join(dir, "repo"), filepath.Join(dir, "data")
		want := "roots: " + repo
		if offered {
			want += ", " + data
		}
		if res.code != exitOK || r.Turns[0].Text != want {
			t.Errorf("offered %v: exit %d, the agent says %q; want 0 and %q\n%s", offered, res.code, r.Turns[0].Text, want, res.stderr)
		}
		warning := "s.yaml:4:17: client.roots: the agent does not offer additionalDirectories (sessionCapabilities.additionalDirectories): the roots beyond its cwd (" + data + ") were not sent to it"
		if warned := strings.Contains(strings.Join(r.Warnings, "\n"), warning); warned == offered {
			t.Errorf("offered %v: warnings %q; want the warning %v", offered, r.Warnings, !offered)
		}
		tr := filepath.Join(dir, r.Transcript)
		validateTranscript(t, tr)
		sent := findTranscriptLine(t, tr, `"method":"session/new"`, "c2a")
		if got := strings.Contains(sent, `"additionalDirectories":["`+data+`"]`); got != offered {
			t.Errorf("offered %v: session/new %s", offered, sent)
		}
	}
}

// TestBudgetStopsTheSpending: an agent whose reported cost passes the
// scenario's budget mid-turn has its turn cancelled (cancelCause budget,
// session/cancel as for a timeout), the turns after it do not run, and the
// scenario fails naming the budget; within the budget it passes.
func TestBudgetStopsTheSpending(t *testing.T) {
	t.Parallel()
	const script = `turns:
  - steps:
      - usage_update: {used: 100, size: 1000, cost: {amount: 0.30, currency: USD}}
      - waitForCancel: true
    usage: {inputTokens: 400, outputTokens: 100}
  - steps: [{text: more}]
`
	for _, tc := range []struct {
		budget string
		code   int
	}{{"0.25", exitFailed}, {"1", exitOK}} {
		s := script
		if tc.code == exitOK {
			s = strings.Replace(s, "waitForCancel: true", "text: done", 1)
		}
		res, out, dir := runOne(t, s, `name: spend
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
budget: {maxCost: `+tc.budget+`}
turnTimeout: 1m
turns:
  - prompt: one
  - prompt: two
`, "--transcripts", "tr")
		r := out.Scenarios[0]
		if res.code != tc.code {
			t.Errorf("budget %s: exit %d, want %d\n%s", tc.budget, res.code, tc.code, res.stderr)
		}
		validateTranscript(t, filepath.Join(dir, r.Transcript))
		if tc.code == exitOK {
			continue
		}
		want := []string{
			"turn 1: s.yaml:4:19: budget.maxCost: the agent reported a session cost of 0.3 USD, over the scenario's budget of 0.25 USD; acprun stopped the scenario there",
			"turn 2: s.yaml:8:5: not run: turn 1 passed a budget",
		}
		if diff := cmp.Diff(want, r.Failures); diff != "" {
			t.Errorf("failures (-want +got):\n%s", diff)
		}
		if t1 := r.Turns[0]; t1.StopReason != "cancelled" || t1.CancelCause != report.CauseBudget {
			t.Errorf("turn 1: %s after %q, want cancelled after budget", t1.StopReason, t1.CancelCause)
		}
		if !strings.Contains(res.stderr, want[0]) || !strings.Contains(res.stderr, "cancelled after budget") {
			t.Errorf("stderr does not say the budget and the cancel:\n%s", res.stderr)
		}
	}
}

// TestSessionNewErrorSaysWhatItKnows: an agent that fails session/new
// with an error that is not about authentication (claude-agent-acp
// without its key answers "Internal error", its details in the error's
// data) gets a message that shows the data and, when a variable its
// registry entry expects is not set, says so.
func TestSessionNewErrorSaysWhatItKnows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'
read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error","data":{"details":"Query closed before response received"}}}'
read -r line
`,
		"acprun.yaml": "agents:\n  claude: {command: [sh, agent.sh]}\n",
		"s.yaml":      "name: s\nagent: claude\npermissions: {default: deny, enforce: false}\nturns: [{prompt: one}]\n",
	})
	for _, tc := range []struct {
		key  bool
		want string
	}{
		{false, `session/new: jsonrpc error -32603: Internal error (its data: {"details":"Query closed before response received"}); it expects ANTHROPIC_API_KEY (not set) in its environment, which may be why`},
		{true, `session/new: jsonrpc error -32603: Internal error (its data: {"details":"Query closed before response received"})`},
	} {
		var res result
		if tc.key {
			res = acprunEnv(t, dir, []string{"ANTHROPIC_API_KEY=sk-e2e-not-to-be-seen"}, "run", "s.yaml", "-o", "out.json")
		} else {
			res = acprunUnset(t, dir, "ANTHROPIC_API_KEY", "run", "s.yaml", "-o", "out.json")
		}
		r := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0]
		if res.code != exitAgent || r.Error != tc.want || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("key set %v: exit %d, error %q; want exit %d and\n%q\nin the results and on stderr:\n%s", tc.key, res.code, r.Error, exitAgent, tc.want, res.stderr)
		}
	}
}
