package scenario_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/scenario"
)

// gatewayEnv is the tests' environment with the base URLs an agent may
// take from acprun's environment.
func gatewayEnv(name string) (string, bool) {
	switch name {
	case "OPENAI_BASE_URL":
		return "https://proxy.example/v1", true
	case "PROXY":
		return "https://proxy.example", true
	}
	return env(name)
}

// gateways loads src as /s/x.yaml with cfg and o's flags, and returns each
// scenario's gateway by name, positions left out.
func gateways(t *testing.T, cfg *scenario.Config, o scenario.LoadOptions, src string) map[string]*scenario.Gateway {
	t.Helper()
	o.Config = cfg
	o.LookupEnv = gatewayEnv
	scens, _, err := scenario.LoadBytes("/s/x.yaml", []byte(src), o)
	if err != nil {
		t.Fatalf("LoadBytes:\n%v", err)
	}
	out := map[string]*scenario.Gateway{}
	for _, sc := range scens {
		out[sc.Name] = unplaced(sc.Gateway)
	}
	return out
}

// unplaced is g without its positions; nil stays nil.
func unplaced(g *scenario.Gateway) *scenario.Gateway {
	if g == nil {
		return nil
	}
	c := *g
	c.Pos, c.ModePos, c.KeyPos = scenario.Pos{}, scenario.Pos{}, scenario.Pos{}
	return &c
}

var (
	claudeTarget = scenario.GatewayTarget{Env: "ANTHROPIC_BASE_URL", Upstream: "https://api.anthropic.com", KeyEnv: "ANTHROPIC_API_KEY"}
	openAITarget = scenario.GatewayTarget{Env: "OPENAI_BASE_URL", Upstream: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY"}
)

// TestGateway: the forms of gateway, its defaults (cassettes beside the
// scenario file, USD) and each named agent's targets, with the upstream
// taken from gateway.upstream, else the agent's env, else acprun's
// environment, else the provider's default.
func TestGateway(t *testing.T) {
	got := gateways(t, nil, scenario.LoadOptions{}, `name: short
agent: claude
gateway: meter
turns: [{prompt: hi}]
---
name: mapping
agent: {name: claude, env: {ANTHROPIC_BASE_URL: "https://corp.example/anthropic"}}
gateway: {mode: record, dir: tapes}
turns: [{prompt: hi}]
---
name: upstream-given
agent: {name: claude, env: {ANTHROPIC_BASE_URL: "https://corp.example/anthropic"}}
gateway: {mode: replay, dir: /abs/tapes, upstream: "${PROXY}/anthropic", key: MY_KEY}
turns: [{prompt: hi}]
---
name: codex-from-environment
agent: codex
gateway: meter
turns: [{prompt: hi}]
---
name: gemini
agent: gemini
gateway: meter
turns: [{prompt: hi}]
---
name: qwen-own-env
agent: {name: qwen, env: {OPENAI_BASE_URL: "https://dashscope.example/v1"}}
gateway: meter
turns: [{prompt: hi}]
---
name: goose
agent: goose
gateway: meter
turns: [{prompt: hi}]
---
name: opencode
agent: {name: opencode, env: {OPENCODE_CONFIG_CONTENT: '{"provider":{"openai":{"options":{"baseURL":"https://oc.example/v1"}}}}'}}
permissions: {enforce: false}
gateway: meter
turns: [{prompt: hi}]
---
name: command
agent: {command: [my-agent], env: {MY_URL: "https://mine.example/v1"}}
gateway: {mode: meter, env: MY_URL, key: MY_KEY}
turns: [{prompt: hi}]
---
name: command-replay-without-upstream
agent: {command: [my-agent]}
gateway: {mode: replay, env: MY_URL}
turns: [{prompt: hi}]
---
name: named-with-own-variable
agent: claude
gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: "https://other.example"}
turns: [{prompt: hi}]
---
name: none
agent: claude
turns: [{prompt: hi}]
`)
	dir := "/s/cassettes"
	want := map[string]*scenario.Gateway{
		"short":   {Mode: "meter", Dir: dir, Currency: "USD", Targets: []scenario.GatewayTarget{claudeTarget}},
		"mapping": {Mode: "record", Dir: "/s/tapes", Currency: "USD", Targets: []scenario.GatewayTarget{{Env: "ANTHROPIC_BASE_URL", Upstream: "https://corp.example/anthropic", KeyEnv: "ANTHROPIC_API_KEY"}}},
		"upstream-given": {Mode: "replay", Dir: "/abs/tapes", Currency: "USD",
			Targets: []scenario.GatewayTarget{{Env: "ANTHROPIC_BASE_URL", KeyEnv: "MY_KEY"}}, // a replay forwards nothing
			Given:   scenario.GatewayTarget{Upstream: "https://proxy.example/anthropic", KeyEnv: "MY_KEY"}},
		"codex-from-environment": {Mode: "meter", Dir: dir, Currency: "USD", Targets: []scenario.GatewayTarget{{Env: "OPENAI_BASE_URL", Upstream: "https://proxy.example/v1", KeyEnv: "OPENAI_API_KEY"}}},
		"gemini": {Mode: "meter", Dir: dir, Currency: "USD", Targets: []scenario.GatewayTarget{
			{Env: "GOOGLE_GEMINI_BASE_URL", Upstream: "https://generativelanguage.googleapis.com", KeyEnv: "GEMINI_API_KEY"}}},
		"qwen-own-env": {Mode: "meter", Dir: dir, Currency: "USD", Targets: []scenario.GatewayTarget{{Env: "OPENAI_BASE_URL", Upstream: "https://dashscope.example/v1", KeyEnv: "OPENAI_API_KEY"}}},
		"goose": {Mode: "meter", Dir: dir, Currency: "USD", Targets: []scenario.GatewayTarget{
			{Env: "ANTHROPIC_HOST", Upstream: "https://api.anthropic.com", KeyEnv: "ANTHROPIC_API_KEY"},
			{Env: "OPENAI_HOST", Upstream: "https://api.openai.com", KeyEnv: "OPENAI_API_KEY"}}},
		"opencode": {Mode: "meter", Dir: dir, Currency: "USD", Targets: []scenario.GatewayTarget{
			{Env: "OPENCODE_CONFIG_CONTENT", JSONPath: []string{"provider", "anthropic", "options", "baseURL"}, Upstream: "https://api.anthropic.com/v1", KeyEnv: "ANTHROPIC_API_KEY"},
			{Env: "OPENCODE_CONFIG_CONTENT", JSONPath: []string{"provider", "openai", "options", "baseURL"}, Upstream: "https://oc.example/v1", KeyEnv: "OPENAI_API_KEY"}}},
		"command": {Mode: "meter", Dir: dir, Currency: "USD", Targets: []scenario.GatewayTarget{{Env: "MY_URL", Upstream: "https://mine.example/v1", KeyEnv: "MY_KEY"}},
			Given: scenario.GatewayTarget{Env: "MY_URL", KeyEnv: "MY_KEY"}},
		"command-replay-without-upstream": {Mode: "replay", Dir: dir, Currency: "USD", Targets: []scenario.GatewayTarget{{Env: "MY_URL"}},
			Given: scenario.GatewayTarget{Env: "MY_URL"}},
		"named-with-own-variable": {Mode: "meter", Dir: dir, Currency: "USD",
			Targets: []scenario.GatewayTarget{{Env: "ANTHROPIC_BASE_URL", Upstream: "https://other.example", KeyEnv: "ANTHROPIC_API_KEY"}},
			Given:   scenario.GatewayTarget{Env: "ANTHROPIC_BASE_URL", Upstream: "https://other.example"}},
		"none": nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gateways (-want +got):\n%s", diff)
	}
}

// TestGatewayConfig: the config's defaults give every scenario a gateway
// (its dir relative to the config file, else cassettes beside each
// scenario file), which a scenario's own replaces as a whole or turns off
// with null or false; the config's prices and currency go with it.
func TestGatewayConfig(t *testing.T) {
	cfg := loadConfig(t, `defaults:
  gateway: {mode: replay, dir: tapes}
prices:
  claude-sonnet-4-5: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}
  gpt-5: {input: 1.25, output: 10}
currency: EUR
`)
	prices := map[string]gateway.Price{
		"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
		"gpt-5":             {Input: 1.25, Output: 10},
	}
	if diff := cmp.Diff(prices, cfg.Prices); diff != "" || cfg.Currency != "EUR" {
		t.Errorf("config prices (-want +got):\n%s\ncurrency %q", diff, cfg.Currency)
	}
	got := gateways(t, cfg, scenario.LoadOptions{}, `name: from-config
agent: claude
turns: [{prompt: hi}]
---
name: own
agent: claude
gateway: {mode: meter}
turns: [{prompt: hi}]
---
name: "off"
agent: claude
gateway: false
turns: [{prompt: hi}]
---
name: "null"
agent: claude
gateway: null
turns: [{prompt: hi}]
`)
	want := map[string]*scenario.Gateway{
		"from-config": {Mode: "replay", Dir: "/cfg/tapes", Prices: prices, Currency: "EUR", Targets: []scenario.GatewayTarget{{Env: "ANTHROPIC_BASE_URL", KeyEnv: "ANTHROPIC_API_KEY"}}},
		"own":         {Mode: "meter", Dir: "/s/cassettes", Prices: prices, Currency: "EUR", Targets: []scenario.GatewayTarget{claudeTarget}},
		"off":         nil,
		"null":        nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gateways (-want +got):\n%s", diff)
	}
}

// TestGatewayFlag: --gateway MODE gives every scenario a gateway in that
// mode (those with one keep the rest of theirs), which then allows
// budget.maxRequests; --gateway-timing sets Timing.
func TestGatewayFlag(t *testing.T) {
	got := gateways(t, nil, scenario.LoadOptions{Gateway: "replay", GatewayTiming: true}, `name: without
agent: codex
budget: {maxRequests: 3}
turns: [{prompt: hi, budget: {maxRequests: 1}}]
---
name: with
agent: {command: [my-agent]}
gateway: {mode: record, dir: tapes, env: MY_URL, upstream: "https://mine.example"}
turns: [{prompt: hi}]
`)
	want := map[string]*scenario.Gateway{
		"without": {Mode: "replay", Dir: "/s/cassettes", Timing: true, Currency: "USD",
			Targets: []scenario.GatewayTarget{{Env: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY"}}},
		"with": {Mode: "replay", Dir: "/s/tapes", Timing: true, Currency: "USD",
			Targets: []scenario.GatewayTarget{{Env: "MY_URL"}},
			Given:   scenario.GatewayTarget{Env: "MY_URL", Upstream: "https://mine.example"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gateways (-want +got):\n%s", diff)
	}
	// A variable a built-in agent reads brings its provider's upstream
	// and key: the mock agent's model steps read them.
	mock, _, err := scenario.LoadBytes("/s/x.yaml", []byte("name: x\nagent: {name: mock, args: [a.mock.yaml]}\ngateway: {mode: meter, env: ANTHROPIC_BASE_URL}\nturns: [{prompt: hi}]\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if g := mock[0].Gateway; !cmp.Equal(g.Targets, []scenario.GatewayTarget{claudeTarget}) {
		t.Errorf("mock agent with gateway.env ANTHROPIC_BASE_URL: targets %+v, want %+v", g.Targets, claudeTarget)
	}
	o := opts
	o.Gateway = "meter"
	scens, _, err := scenario.LoadBytes("/s/x.yaml", []byte("name: x\nagent: claude\ngateway: {mode: record}\nturns: [{prompt: hi}]\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	if g := scens[0].Gateway; g.Mode != "meter" || g.ModePos.String() != "--gateway meter" || g.Pos.String() != "/s/x.yaml:3:10" {
		t.Errorf("--gateway meter on a gateway: mode %q at %s, gateway at %s; want meter at --gateway meter, the file's gateway", g.Mode, g.ModePos, g.Pos)
	}
}

// TestGatewayBudget: budget.maxRequests is read at the scenario and turn
// levels (the config's defaults too) when the scenario has a gateway.
func TestGatewayBudget(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  budget: {maxRequests: 7}\n")
	scens := loadWith(t, cfg, `name: x
agent: claude
gateway: meter
turns: [{prompt: hi, budget: {maxRequests: 0, maxCost: 1}}]
`)
	sc := scens[0]
	if b := sc.Budget; b == nil || b.MaxRequests == nil || *b.MaxRequests != 7 || b.MaxRequestsPos.String() != "/cfg/acprun.yaml:2:25" {
		t.Errorf("scenario budget = %+v; want maxRequests 7 from the config", b)
	}
	if b := sc.Turns[0].Budget; b == nil || b.MaxRequests == nil || *b.MaxRequests != 0 || b.MaxRequestsPos.String() != "/s/x.yaml:4:44" {
		t.Errorf("turn budget = %+v; want maxRequests 0 at 4:44", b)
	}
}

// TestGatewayMockAgent: acprun's mock agent has no variable of its own: its
// gateway has no target, with a warning when the file asks for one (not
// for --gateway); pointed at a real agent with WithAgent it gets that
// agent's targets.
func TestGatewayMockAgent(t *testing.T) {
	src := "name: x\nagent: {name: mock, args: [a.mock.yaml]}\ngateway: replay\nbudget: {maxRequests: 1}\nturns: [{prompt: hi}]\n"
	scens, warns, err := scenario.LoadBytes("/s/x.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	if g := scens[0].Gateway; g == nil || len(g.Targets) != 0 || g.Mode != "replay" {
		t.Errorf("mock agent's gateway = %+v; want replay with no target", g)
	}
	if len(warns) != 1 || warns[0].Pos.String() != "/s/x.yaml:3:10" || !strings.Contains(warns[0].Msg, "set gateway.env") {
		t.Errorf("warnings = %v; want one at the gateway saying to set gateway.env", warns)
	}
	o := opts
	o.Gateway = "meter"
	if _, warns, err := scenario.LoadBytes("/s/x.yaml", []byte("name: x\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nturns: [{prompt: hi}]\n"), o); err != nil || len(warns) != 0 {
		t.Errorf("--gateway on a mock agent: err %v, warnings %v; want neither", err, warns)
	}
	claude, err := scens[0].WithAgent("claude", opts)
	if err != nil {
		t.Fatal(err)
	}
	if g := claude.Gateway; g == nil || g.Mode != "replay" || !cmp.Equal(g.Targets, []scenario.GatewayTarget{{Env: "ANTHROPIC_BASE_URL", KeyEnv: "ANTHROPIC_API_KEY"}}) {
		t.Errorf("WithAgent(claude) gateway = %+v; want replay pointing ANTHROPIC_BASE_URL", g)
	}
	if g := scens[0].Gateway; len(g.Targets) != 0 {
		t.Errorf("WithAgent changed the scenario's own gateway: %+v", g)
	}
}

// TestGatewayWithAgent: WithAgent points the gateway at the new agent
// (the file's env still wins), and refuses an agent it cannot point.
func TestGatewayWithAgent(t *testing.T) {
	cfg := loadConfig(t, "agents:\n  mine: {command: [mine]}\n")
	o := opts
	o.Config = cfg
	o.LookupEnv = gatewayEnv
	scens := loadWith(t, cfg, "name: x\nagent: claude\ngateway: meter\nturns: [{prompt: hi}]\n")
	codex, err := scens[0].WithAgent("codex", o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []scenario.GatewayTarget{{Env: "OPENAI_BASE_URL", Upstream: "https://proxy.example/v1", KeyEnv: "OPENAI_API_KEY"}}; !cmp.Equal(codex.Gateway.Targets, want) {
		t.Errorf("WithAgent(codex) targets = %+v; want %+v", codex.Gateway.Targets, want)
	}
	if !cmp.Equal(scens[0].Gateway.Targets, []scenario.GatewayTarget{claudeTarget}) {
		t.Errorf("WithAgent changed the scenario's own targets: %+v", scens[0].Gateway.Targets)
	}
	_, err = scens[0].WithAgent("mine", o)
	if err == nil || !strings.Contains(err.Error(), "set gateway.env to the variable your agent reads its model base URL from") {
		t.Errorf("WithAgent(mine) error = %v; want one saying to set gateway.env", err)
	}
	own := loadWith(t, cfg, "name: x\nagent: claude\ngateway: {mode: meter, env: MY_URL, upstream: 'https://mine.example'}\nturns: [{prompt: hi}]\n")
	mine, err := own[0].WithAgent("mine", o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []scenario.GatewayTarget{{Env: "MY_URL", Upstream: "https://mine.example"}}; !cmp.Equal(mine.Gateway.Targets, want) {
		t.Errorf("WithAgent(mine) targets = %+v; want %+v", mine.Gateway.Targets, want)
	}
}

// TestGatewayErrors: each problem at its place, saying what to write.
func TestGatewayErrors(t *testing.T) {
	const turns = "turns: [{prompt: hi}]\n"
	tests := []struct {
		name string
		src  string
		flag string
		want []string
	}{
		{"bad mode", "name: x\nagent: claude\ngateway: {mode: replau}\n" + turns, "",
			[]string{`bad.yaml:3:17: unknown gateway mode "replau" (did you mean "replay"?): record calls the real provider and keeps its answers in a cassette, replay answers from the cassette with no network and no key, meter calls the provider and counts what the agent spends`}},
		{"bad short mode", "name: x\nagent: claude\ngateway: on\n" + turns, "",
			[]string{`bad.yaml:3:10: unknown gateway mode "on" (valid modes: record, replay, meter): record calls the real provider and keeps its answers in a cassette, replay answers from the cassette with no network and no key, meter calls the provider and counts what the agent spends`}},
		{"unknown key", "name: x\nagent: claude\ngateway: {mode: meter, upsteam: 'https://x.example'}\n" + turns, "",
			[]string{`bad.yaml:3:24: unknown key "upsteam" (did you mean "upstream"?)`}},
		{"no mode", "name: x\nagent: claude\ngateway: {dir: tapes}\n" + turns, "",
			[]string{`bad.yaml:3:10: missing required key "mode"`}},
		{"true", "name: x\nagent: claude\ngateway: true\n" + turns, "",
			[]string{`bad.yaml:3:10: gateway: true does not say what the gateway does: write gateway: record, replay or meter, or a mapping with a mode ({mode: meter})`}},
		{"list", "name: x\nagent: claude\ngateway: [meter]\n" + turns, "",
			[]string{`bad.yaml:3:10: expected a gateway: record, replay or meter, or a mapping of mode, dir, env, upstream or key (null or false for none), got a list`}},
		{"bad upstream and names", "name: x\nagent: claude\ngateway: {mode: meter, upstream: api.example.com, env: 'A=B', key: ''}\n" + turns, "",
			[]string{
				`bad.yaml:3:34: gateway upstream is not an http(s) base URL: give the provider's base URL, such as https://api.openai.com/v1`,
				`bad.yaml:3:56: bad environment variable name "A=B": gateway.env names a variable (such as MY_BASE_URL), not its value`,
				`bad.yaml:3:68: bad environment variable name "": gateway.key names a variable (such as MY_API_KEY), not its value`,
			}},
		// Told once, at the value: the upstream is given, though bad.
		{"command agent with a bad upstream", "name: x\nagent: {command: [my-agent]}\ngateway: {mode: record, env: X, upstream: 'http://h/v1?key=abc'}\n" + turns, "",
			[]string{`bad.yaml:3:43: gateway upstream is not an http(s) base URL: give the provider's base URL, such as https://api.openai.com/v1`}},
		{"key is the base URL's variable", "name: x\nagent: {command: [my-agent]}\ngateway: {mode: replay, env: MY_URL, key: MY_URL}\n" + turns, "",
			[]string{`bad.yaml:3:43: gateway.key names MY_URL, the variable the agent reads its model base URL from: name its API-key variable (such as MY_API_KEY), or leave key out`}},
		{"key is a named agent's base URL's variable", "name: x\nagent: claude\ngateway: {mode: meter, key: ANTHROPIC_BASE_URL}\n" + turns, "",
			[]string{`bad.yaml:3:29: gateway.key names ANTHROPIC_BASE_URL, the variable the agent reads its model base URL from: name its API-key variable (such as MY_API_KEY), or leave key out`}},
		// A variable of the system, or an API-key variable, set to the
		// gateway's URL (or a dummy key) would break the agent.
		{"env a variable of the system", "name: x\nagent: {command: [my-agent]}\ngateway: {mode: meter, env: PATH, upstream: 'https://x.example'}\n" + turns, "",
			[]string{`bad.yaml:3:29: gateway.env names PATH, a variable the agent and the commands it runs rely on, which the gateway would set to its URL: name the variable the agent reads its model provider's base URL from, such as ANTHROPIC_BASE_URL`}},
		{"env HOME for a named agent", "name: x\nagent: claude\ngateway: {mode: replay, env: HOME}\n" + turns, "",
			[]string{`bad.yaml:3:30: gateway.env names HOME, a variable the agent and the commands it runs rely on, which the gateway would set to its URL: name the variable the agent reads its model provider's base URL from, such as ANTHROPIC_BASE_URL`}},
		{"env the loader's", "name: x\nagent: {command: [my-agent]}\ngateway: {mode: replay, env: LD_LIBRARY_PATH}\n" + turns, "",
			[]string{`bad.yaml:3:30: gateway.env names LD_LIBRARY_PATH, a variable the agent and the commands it runs rely on, which the gateway would set to its URL: name the variable the agent reads its model provider's base URL from, such as ANTHROPIC_BASE_URL`}},
		{"env an API-key variable", "name: x\nagent: claude\ngateway: {mode: meter, env: ANTHROPIC_API_KEY}\n" + turns, "",
			[]string{`bad.yaml:3:29: gateway.env names ANTHROPIC_API_KEY, an API-key variable, which the gateway would set to its URL: name the variable the agent reads its model provider's base URL from, such as ANTHROPIC_BASE_URL (the key's goes in gateway.key)`}},
		{"key a variable of the system", "name: x\nagent: {command: [my-agent]}\ngateway: {mode: replay, env: MY_URL, key: TMPDIR}\n" + turns, "",
			[]string{`bad.yaml:3:43: gateway.key names TMPDIR, a variable the agent and the commands it runs rely on, which a replay would set to a dummy key: name the variable the agent reads its API key from (such as ANTHROPIC_API_KEY), or leave key out`}},
		{"command agent without env", "name: x\nagent: {command: [my-agent]}\ngateway: meter\n" + turns, "",
			[]string{`bad.yaml:3:10: acprun does not know how to point this agent at its gateway (it knows the built-in agents' variables: claude, codex, gemini, goose, opencode, qwen): ` +
				`set gateway.env to the variable your agent reads its model base URL from, and gateway.upstream to that URL (gateway: {mode: meter, env: MY_BASE_URL, upstream: https://api.example.com/v1})`}},
		{"command agent under --gateway", "name: x\nagent: {command: [my-agent]}\n" + turns, "record",
			[]string{`bad.yaml:2:8: acprun does not know how to point this agent at its gateway (it knows the built-in agents' variables: claude, codex, gemini, goose, opencode, qwen): ` +
				`set gateway.env to the variable your agent reads its model base URL from, and gateway.upstream to that URL (gateway: {mode: record, env: MY_BASE_URL, upstream: https://api.example.com/v1}) (--gateway record gives every scenario a gateway)`}},
		{"command agent without upstream", "name: x\nagent: {command: [my-agent]}\ngateway: {mode: record, env: MY_URL}\n" + turns, "",
			[]string{`bad.yaml:3:10: acprun does not know where the agent's MY_URL points: set gateway.upstream to the provider's base URL (such as https://api.openai.com/v1), or set MY_URL in agent.env`}},
		{"agent env not a URL", "name: x\nagent: {name: claude, env: {ANTHROPIC_BASE_URL: 'localhost:8080'}}\ngateway: meter\n" + turns, "",
			[]string{`bad.yaml:3:10: ANTHROPIC_BASE_URL in agent.env, where the gateway's upstream comes from, is not an http(s) base URL: give the provider's base URL, such as https://api.openai.com/v1 (or set gateway.upstream)`}},
		{"several base URLs", "name: x\nagent: goose\ngateway: {mode: meter, upstream: 'https://x.example'}\n" + turns, "",
			[]string{`bad.yaml:3:10: agent goose reads several base URLs (ANTHROPIC_HOST, OPENAI_HOST): give gateway.env with gateway.upstream to say which one to point at the gateway`}},
		{"maxRequests without a gateway", "name: x\nagent: claude\nbudget: {maxRequests: 2}\nturns: [{prompt: hi, budget: {maxRequests: 1}}]\n", "",
			[]string{
				`bad.yaml:3:23: budget maxRequests counts the agent's model requests through acprun's gateway, and this scenario has none: add gateway: {mode: meter} to it (or to the config's defaults), or run it with --gateway meter`,
				`bad.yaml:4:44: budget maxRequests counts the agent's model requests through acprun's gateway, and this scenario has none: add gateway: {mode: meter} to it (or to the config's defaults), or run it with --gateway meter`,
			}},
		{"maxRequests in expect.usage", "name: x\nagent: claude\ngateway: meter\nexpect: {usage: {maxRequests: 2}}\n" + turns, "",
			[]string{`bad.yaml:4:18: unknown key "maxRequests" (valid keys: maxTotalTokens, maxCost); maxRequests is a budget's (budget: {maxRequests: N}): the gateway counts the model requests and stops the turn that would pass it`}},
		{"negative maxRequests", "name: x\nagent: claude\ngateway: meter\nbudget: {maxRequests: -1}\n" + turns, "",
			[]string{`bad.yaml:4:23: expected a whole number from 0 up, got -1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			o.Gateway = tt.flag
			_, _, err := scenario.LoadBytes("bad.yaml", []byte(tt.src), o)
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGatewayConfigErrors: the config's prices, currency and defaults'
// gateway are checked where they are written; a defaults' gateway that
// cannot point a scenario's agent is reported at the agent, naming it.
func TestGatewayConfigErrors(t *testing.T) {
	_, err := scenario.LoadConfigBytes("c.yaml", []byte(`defaults:
  gateway: {mode: metre}
prices:
  gpt-5: {input: 1, ouput: 2}
  o3: {input: -1, output: 2}
currency: ""
`), opts)
	want := []string{
		`c.yaml:2:19: unknown gateway mode "metre" (did you mean "meter"?): record calls the real provider and keeps its answers in a cassette, replay answers from the cassette with no network and no key, meter calls the provider and counts what the agent spends`,
		`c.yaml:4:21: unknown key "ouput" (did you mean "output"?)`,
		`c.yaml:5:15: expected a number from 0 up, got -1`,
		`c.yaml:6:11: currency is empty: name the currency of the prices (USD, EUR…), or leave it out for USD`,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("config errors (-want +got):\n%s", diff)
	}
	// A number or a boolean is no currency, though YAML would read it as
	// a string's text; a quoted one is the user's choice.
	for src, want := range map[string]string{
		"currency: 5\n":           `c.yaml:1:11: expected a currency such as USD or EUR, got the number 5: name the currency of the prices, or leave it out for USD`,
		"currency: 1.5\n":         `c.yaml:1:11: expected a currency such as USD or EUR, got the number 1.5: name the currency of the prices, or leave it out for USD`,
		"currency: true\n":        `c.yaml:1:11: expected a currency such as USD or EUR, got the boolean true: name the currency of the prices, or leave it out for USD`,
		"currency: [USD]\n":       `c.yaml:1:11: expected a string, got a list`,
		"p: &c 5\ncurrency: *c\n": `c.yaml:2:11: expected a currency such as USD or EUR, got the number 5: name the currency of the prices, or leave it out for USD (written at line 1, column 4, in the anchor &c)`,
	} {
		_, err := scenario.LoadConfigBytes("c.yaml", []byte(src), opts)
		if got := errorLines(t, err); !slices.Contains(got, want) {
			t.Errorf("config %q: errors %q, want %q", src, got, want)
		}
	}
	if cfg, err := scenario.LoadConfigBytes("c.yaml", []byte("currency: '5'\n"), opts); err != nil || cfg.Currency != "5" {
		t.Errorf("a quoted currency: %v, currency %q", err, cfg.Currency)
	}
	cfg := loadConfig(t, "defaults:\n  gateway: meter\n")
	o := opts
	o.Config = cfg
	_, _, err = scenario.LoadBytes("bad.yaml", []byte("name: x\nagent: {command: [my-agent]}\nturns: [{prompt: hi}]\n"), o)
	got := errorLines(t, err)
	if len(got) != 1 || !strings.HasPrefix(got[0], "bad.yaml:2:8: acprun does not know how to point this agent") ||
		!strings.HasSuffix(got[0], "(the gateway is the config's, at /cfg/acprun.yaml:2:12)") {
		t.Errorf("errors = %q; want one at the agent naming the config's gateway", got)
	}
}

// TestUnusedPricesWarnings: the config's prices, which only a gateway
// applies, get one warning at prices: when no scenario of a run has a
// gateway, however many scenarios it runs, naming them as its command
// says (of this run, in the files validated); none when one has, or the
// config has no prices, or there is no config.
func TestUnusedPricesWarnings(t *testing.T) {
	cfg, err := scenario.LoadConfigBytes("c.yaml", []byte("currency: EUR\nprices:\n  gpt-5: {input: 1, output: 2}\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	plain, metered := &scenario.Scenario{}, &scenario.Scenario{Gateway: &scenario.Gateway{}}
	const want = "c.yaml:3:3: prices: no scenario %s has a gateway, so the prices price nothing; " +
		"a gateway counts what the agents' model requests cost (gateway: meter, in a scenario or the config's defaults, or run --gateway meter)"
	for _, which := range []string{"of this run", "in the files validated"} {
		var got []string
		for _, w := range scenario.UnusedPricesWarnings(cfg, []*scenario.Scenario{plain, plain}, which) {
			got = append(got, w.String())
		}
		if diff := cmp.Diff([]string{fmt.Sprintf(want, which)}, got); diff != "" {
			t.Errorf("UnusedPricesWarnings %s (-want +got):\n%s", which, diff)
		}
	}
	noPrices, err := scenario.LoadConfigBytes("c.yaml", []byte("currency: EUR\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, ws := range map[string][]scenario.Warning{
		"a scenario with a gateway": scenario.UnusedPricesWarnings(cfg, []*scenario.Scenario{plain, metered}, "of this run"),
		"no prices":                 scenario.UnusedPricesWarnings(noPrices, []*scenario.Scenario{plain}, "of this run"),
		"no config":                 scenario.UnusedPricesWarnings(nil, []*scenario.Scenario{plain}, "of this run"),
	} {
		if len(ws) != 0 {
			t.Errorf("%s: warnings %v, want none", name, ws)
		}
	}
}

// TestCostCurrency: a scenario's costs are counted in the config's
// currency, which its maxCost bounds are in, with a gateway or without;
// USD when the config names none or there is no config. Currencies are
// compared in any case, and a cost without one is taken to be in either.
func TestCostCurrency(t *testing.T) {
	const src = "name: s\nagent: {command: [agent]}\nbudget: {maxCost: 1}\nturns: [{prompt: hi}]\n"
	for _, tt := range []struct {
		name string
		cfg  *scenario.Config
		want string
	}{
		{"the config's", loadConfig(t, "currency: EUR\n"), "EUR"},
		{"the config names none", loadConfig(t, "prices:\n  gpt-5: {input: 1, output: 2}\n"), "USD"},
		{"no config", nil, "USD"},
	} {
		if got := loadWith(t, tt.cfg, src)[0].CostCurrency(); got != tt.want {
			t.Errorf("%s: CostCurrency() = %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{{"USD", "USD", true}, {"usd", "USD", true}, {"", "EUR", true}, {"EUR", "", true}, {"EUR", "USD", false}} {
		if got := scenario.SameCurrency(tt.a, tt.b); got != tt.want {
			t.Errorf("SameCurrency(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
