package e2e_test

import (
	"encoding/base64"
	"net"
	"strings"
	"testing"
)

// TestProxyPasswordAsWrittenRedacted: the password of a proxy in
// gateway.upstream, written with escapes ("p\x40ss") in a scenario or in
// the config's defaults.gateway, shows in none of validate's, run's,
// --dry-run's or explain's messages, a problem's source line included
// (the upstream there [REDACTED] as the file writes it), nor in a run's
// outputs: neither decoded, nor as written, nor as the Basic credentials
// sent for it. The line showed it as written; the config's
// defaults.gateway was not redacted at all.
func TestProxyPasswordAsWrittenRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A port that refuses connections: the gateway's error names the upstream.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upstream := `"http://user:Pr0xy\x40pass-77@` + l.Addr().String() + `/v1"`
	l.Close()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps:\n      - model: {api: anthropic, model: claude-sonnet-4-5, prompt: hi}\n",
		"bad.yaml": "name: bad\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\n" +
			"gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: " + upstream + ", bogus: 1}\nturns: [{prompt: hi}]\n",
		"run.yaml": "name: run\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\n" +
			"gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: " + upstream + "}\nturns: [{prompt: hi}]\n",
		"cfg/acprun.yaml": "defaults:\n  gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: " + upstream + ", bogus: 1}\n",
		"cfg/s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, ../m.mock.yaml]}\nturns: [{prompt: hi}]\n",
		"cfg2/acprun.yaml": "defaults:\n  gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: \"http://user:Pr0xy-pass-77@127.0.0.1:9/v1\"}\n" +
			"  bogus: {x: Pr0xy-pass-77}\n",
		"cfg2/s.yaml": "name: s\nagent: {command: [acprun, mock-agent, ../m.mock.yaml]}\nturns: [{prompt: hi}]\n",
	})
	leaks := []string{"Pr0xy", "x40pass", base64.StdEncoding.EncodeToString([]byte("user:Pr0xy@pass-77"))}
	check := func(what string, code int, out string, want ...string) {
		t.Helper()
		for _, leak := range leaks {
			if strings.Contains(out, leak) {
				t.Errorf("%s holds %s:\n%s", what, leak, out)
			}
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: exit %d, lacks %q:\n%s", what, code, w, out)
			}
		}
	}
	for _, args := range [][]string{
		{"validate", "bad.yaml"},
		{"run", "bad.yaml", "--dry-run"},
		{"explain", "bad.yaml", "--kind", "execute", "--command", "ls"},
	} {
		res := acprun(t, dir, args...)
		check(strings.Join(args, " "), res.code, res.stdout+res.stderr, `upstream: "[REDACTED]", bogus: 1}`)
	}
	for _, d := range []string{"cfg", "cfg2"} {
		res := acprun(t, dir+"/"+d, "validate", "s.yaml")
		check(d+": validate", res.code, res.stdout+res.stderr, "unknown key")
	}

	res := acprun(t, dir, "run", "run.yaml", "-v", "-o", "r.json", "--junit", "junit.xml", "--events", "events.jsonl", "--transcripts", "tr", "--html", "r.html")
	check("run", res.code, res.stdout+res.stderr, "user:xxxxx@127.0.0.1")
	for name, data := range readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html", "tr/run.jsonl", "cassettes/run.cassette.json.partial") {
		check(name, res.code, string(data))
	}
	dry := acprun(t, dir, "run", "run.yaml", "--dry-run")
	check("--dry-run", dry.code, dry.stdout+dry.stderr, "user:xxxxx@127.0.0.1")
}
