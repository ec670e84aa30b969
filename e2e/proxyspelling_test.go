package e2e_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

// TestProxyPasswordEscapesRedacted: the password of a proxy upstream
// written with percent-escapes Go would spell otherwise (lowercase hex
// "%2f", a letter escaped "%65"), in gateway.upstream, in the config's
// defaults.gateway or in acprun's environment, shows in no problem's
// source line (validate, run) and in no output of a run, not even when
// the agent repeats it as written; nor does the password of an upstream
// url.Parse cannot read, with an unescaped "/" in it. The source line
// showed them as written: only Go's own spelling ("%2F") was redacted.
func TestProxyPasswordEscapesRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	down := strings.TrimPrefix(testkit.RefusedURL(t), "http://")
	scUp := "http://proxyuser:Pr0xy%2fPassw0rd@" + down + "/v1"
	envUp := "http://proxyuser:Env-s3cr%65t-pw@" + down + "/v1"
	// The agent repeats the password as written, and asks the gateway.
	mock := func(pw string) string {
		return "turns:\n  - steps:\n      - text: \"as written: " + pw + "\"\n" +
			"      - model: {api: anthropic, model: claude-sonnet-4-5, prompt: hi}\n"
	}
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml":   mock("Pr0xy%2fPassw0rd"),
		"env.mock.yaml": mock("Env-s3cr%65t-pw"),
		"bad.yaml": "name: bad\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\n" +
			"gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: \"" + scUp + "\", bogus: 1}\nturns: [{prompt: hi}]\n",
		"notaurl.yaml": "name: notaurl\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\n" +
			"gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: \"http://proxyuser:abc/def+ghi@" + down + "/v1\"}\nturns: [{prompt: hi}]\n",
		"run.yaml": "name: run\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\n" +
			"gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: \"" + scUp + "\"}\nturns: [{prompt: hi}]\n",
		"env.yaml": "name: env\nagent: {command: [acprun, mock-agent, env.mock.yaml]}\n" +
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL}\nturns: [{prompt: hi}]\n",
		"cfg/acprun.yaml": "defaults:\n  gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: \"http://u:Cfg%2dSecr%2f88@127.0.0.1:9/v1\", bogus: 1}\n",
		"cfg/s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, ../m.mock.yaml]}\nturns: [{prompt: hi}]\n",
	})
	leaks := []string{"Passw0rd", "s3cr", "Cfg%2d", "Cfg-", "abc/def", base64.StdEncoding.EncodeToString([]byte("proxyuser:Pr0xy/Passw0rd"))}
	check := func(what string, out string, want ...string) {
		t.Helper()
		for _, leak := range leaks {
			if strings.Contains(out, leak) {
				t.Errorf("%s holds %s:\n%s", what, leak, out)
			}
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", what, w, out)
			}
		}
	}
	for _, args := range [][]string{{"validate", "bad.yaml"}, {"run", "bad.yaml"}} {
		res := acprun(t, dir, args...)
		check(strings.Join(args, " "), res.stdout+res.stderr, `upstream: "http://proxyuser:[REDACTED]@`, "bogus: 1}")
	}
	res := acprun(t, dir, "validate", "notaurl.yaml")
	check("validate notaurl.yaml", res.stdout+res.stderr, "is not an http(s) base URL", `upstream: "[REDACTED]"}`)
	res = acprun(t, dir+"/cfg", "validate", "s.yaml")
	check("cfg: validate", res.stdout+res.stderr, "unknown key", `upstream: "http://u:[REDACTED]@127.0.0.1:9/v1"`)

	res = acprun(t, dir, "run", "run.yaml", "-v", "-o", "r.json", "--junit", "junit.xml", "--events", "events.jsonl", "--transcripts", "tr", "--html", "r.html")
	check("run", res.stdout+res.stderr, "proxyuser:xxxxx@"+down)
	for name, data := range readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html", "tr/run.jsonl", "cassettes/run.cassette.json.partial") {
		check(name, string(data))
	}
	for name, data := range readFiles(t, dir, "r.json", "tr/run.jsonl") {
		check(name, string(data), "as written: [REDACTED]")
	}
	res = acprunEnv(t, dir, []string{"ANTHROPIC_BASE_URL=" + envUp}, "run", "env.yaml", "-o", "env.json")
	check("run env.yaml", res.stdout+res.stderr, "proxyuser:xxxxx@"+down)
	for name, data := range readFiles(t, dir, "env.json") {
		check(name, string(data), "as written: [REDACTED]")
	}
}
