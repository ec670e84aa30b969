package scenario_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestAgentSpelled: an agent keeps the values of its env and of its MCP
// servers' env and headers as their files spell them, where that differs
// from the value (Agent.Spelled): its own, its named agent's (from the
// config file) and, for WithAgent, the scenario agent's own; also when
// the file has problems (ReadScenarios).
func TestAgentSpelled(t *testing.T) {
	cfg := loadConfig(t, `agents:
  mine: {command: [prog], env: {CFG_KEY: "cfg\x2dsecret-1"}}
`)
	scs := loadWith(t, cfg, `name: a
agent:
  name: mine
  env: {DB_PASSWORD: 'Tr0ub4dor''s-Horse-99', PLAIN: plain-value}
  mcpServers: [{name: m, type: http, url: "http://x", headers: [{name: Authorization, value: "Bearer t\u006fken-123"}]}]
turns: [{prompt: hi}]
---
name: b
agent: {command: [prog], env: {PLAIN: "plain-value"}}
turns: [{prompt: hi}]
`)
	want := []string{`cfg\x2dsecret-1`, "Tr0ub4dor''s-Horse-99", `Bearer t\u006fken-123`}
	if diff := cmp.Diff(want, scs[0].Agent.Spelled); diff != "" {
		t.Errorf("Spelled (-want +got):\n%s", diff)
	}
	if got := scs[1].Agent.Spelled; got != nil {
		t.Errorf("Spelled of values written as they read = %q, want nil", got)
	}
	other, err := scs[0].WithAgent("claude", scenario.LoadOptions{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, other.Agent.Spelled); diff != "" {
		t.Errorf("Spelled WithAgent (-want +got):\n%s", diff)
	}

	_, _, err = scenario.LoadBytes("s.yaml", []byte("name: bad\nagent: {command: [a], env: {K: 'it''s-a-secret'}, bogus: 1}\nturns: [{prompt: hi}]\n"), opts)
	read := scenario.ReadScenarios(err)
	if len(read) != 1 || !cmp.Equal(read[0].Agent.Spelled, []string{"it''s-a-secret"}) {
		t.Errorf("ReadScenarios of a file with problems: %d scenarios, want 1 with Spelled [it''s-a-secret]", len(read))
	}
}

// TestAgentSpelledTemplated: a secret value written with {{.NAME}} or
// ${VAR} that acprun fills in is kept as the file writes it too, the
// references as written (and with the file's escapes), as the line of a
// problem shows it; one the file gives none of ("${ANTHROPIC_API_KEY}",
// "{{.lang}}" alone: no text of the secret around the references) is not.
// A rendered template had no spelling: the line showed the secret's text.
func TestAgentSpelledTemplated(t *testing.T) {
	scs := loadWith(t, nil, `name: a
vars: {lang: [go, rust]}
agent:
  command: [prog]
  env:
    HEX: "s3cr\x65t-{{.lang}}-value"
    PLAIN: plain-{{.lang}}-secret
    LANG: "{{.lang}}"
    KEY: "${ANTHROPIC_API_KEY}"
    MIXED: 'key''s-${ANTHROPIC_API_KEY}-{{.lang}}'
  mcpServers: [{name: m, type: http, url: "http://x", headers: [{name: Authorization, value: "Bearer t\u006fken-{{.lang}}"}]}]
turns: [{prompt: hi}]
---
name: b
agent: {command: [prog], env: {URL: "https://user:pa\x73s-${ANTHROPIC_API_KEY}@host", KEY: "${ANTHROPIC_API_KEY}", ONE: "${EMPTY:-default-s3cret}"}}
turns: [{prompt: hi}]
`)
	if len(scs) != 3 {
		t.Fatalf("%d scenarios, want 3", len(scs))
	}
	want := []string{
		"s3cret-{{.lang}}-value", `s3cr\x65t-{{.lang}}-value`,
		"plain-{{.lang}}-secret",
		"key's-${ANTHROPIC_API_KEY}-{{.lang}}", "key''s-${ANTHROPIC_API_KEY}-{{.lang}}",
		"Bearer token-{{.lang}}", `Bearer t\u006fken-{{.lang}}`,
	}
	for _, sc := range scs[:2] {
		if diff := cmp.Diff(want, sc.Agent.Spelled); diff != "" {
			t.Errorf("%s: Spelled (-want +got):\n%s", sc.Name, diff)
		}
	}
	want = []string{"https://user:pass-${ANTHROPIC_API_KEY}@host", `https://user:pa\x73s-${ANTHROPIC_API_KEY}@host`, "${EMPTY:-default-s3cret}"}
	if diff := cmp.Diff(want, scs[2].Agent.Spelled); diff != "" {
		t.Errorf("%s: Spelled (-want +got):\n%s", scs[2].Name, diff)
	}
}

// TestGatewaySpelled: a gateway.upstream with a password (a proxy's) that
// its file writes otherwise than it reads (escapes, ${VAR}) keeps how
// the file writes it (Gateway.Spelled); one without a password, or
// written as it reads, keeps nothing.
func TestGatewaySpelled(t *testing.T) {
	scs := loadWith(t, nil, `name: a
agent: {command: [prog]}
gateway: {mode: record, env: MY_BASE_URL, upstream: "http://user:Pr0xy\x40pass-77@proxy:8080"}
turns: [{prompt: hi}]
---
name: b
agent: {command: [prog]}
gateway: {mode: record, env: MY_BASE_URL, upstream: "http://user:pw-${ANTHROPIC_API_KEY}@proxy:8080"}
turns: [{prompt: hi}]
---
name: c
agent: {command: [prog]}
gateway: {mode: record, env: MY_BASE_URL, upstream: "http://us\x65r@proxy:8080"}
turns: [{prompt: hi}]
---
name: d
agent: {command: [prog]}
gateway: {mode: record, env: MY_BASE_URL, upstream: "http://user:Pr0xy-pass-77@proxy:8080"}
turns: [{prompt: hi}]
`)
	want := [][]string{
		{`http://user:Pr0xy\x40pass-77@proxy:8080`},
		{"http://user:pw-${ANTHROPIC_API_KEY}@proxy:8080"},
		nil,
		nil,
	}
	for i, sc := range scs {
		if diff := cmp.Diff(want[i], sc.Gateway.Spelled); diff != "" {
			t.Errorf("%s: Gateway.Spelled (-want +got):\n%s", sc.Name, diff)
		}
	}
}

// TestBadUpstreamSpelled: a gateway.upstream that is no URL but writes a
// userinfo (a password with an unescaped "/" or "#", or a bad escape,
// which url.Parse cannot read a password of) keeps its value, and how the
// file writes it where that differs, whole (Gateway.Spelled): the
// problem's source line shows the password there. One without an "@"
// keeps nothing.
func TestBadUpstreamSpelled(t *testing.T) {
	tests := []struct {
		upstream string
		want     []string
	}{
		{`"http://user:abc/def+ghi@proxy:3128/v1"`, []string{"http://user:abc/def+ghi@proxy:3128/v1"}},
		{`"http://user:p%zz-s3cret@proxy:3128/v1"`, []string{"http://user:p%zz-s3cret@proxy:3128/v1"}},
		{`"http://user:pa#ss\x2dword@proxy"`, []string{`http://user:pa#ss\x2dword@proxy`, "http://user:pa#ss-word@proxy"}},
		{`"ftp://proxy:3128/v1"`, nil},
	}
	for _, tt := range tests {
		_, _, err := scenario.LoadBytes("/s/x.yaml", []byte("name: a\nagent: {command: [prog]}\ngateway: {mode: record, env: MY_BASE_URL, upstream: "+tt.upstream+"}\nturns: [{prompt: hi}]\n"), opts)
		if err == nil || !strings.Contains(err.Error(), "is not an http(s) base URL") {
			t.Fatalf("%s: err = %v; want the upstream refused", tt.upstream, err)
		}
		scs := scenario.ReadScenarios(err)
		if len(scs) != 1 || scs[0].Gateway == nil {
			t.Fatalf("%s: read %d scenarios, want 1 with a gateway", tt.upstream, len(scs))
		}
		if diff := cmp.Diff(tt.want, scs[0].Gateway.Spelled); diff != "" {
			t.Errorf("%s: Gateway.Spelled (-want +got):\n%s", tt.upstream, diff)
		}
	}
}
