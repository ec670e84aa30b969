package e2e_test

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestRedactionKeepsVarsNames: a vars value the agent gets in its env is
// no secret, as the scenario's name holds it: the value sets stay two
// scenarios with their own verdicts, --min-pass-rate fails the one that
// failed, and --rerun-failed reruns it. A secret in no name (${VAR}) is
// still redacted.
func TestRedactionKeepsVarsNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p.mock.yaml": "turns: [{steps: [{text: \"I used opus-4 with sk-e2e-VarsSecret1234\"}]}]\n",
		"s.yaml": `name: matrix
vars: {model: [sonnet-4, opus-4]}
agent:
  command: [acprun, mock-agent, p.mock.yaml]
  env: {ANTHROPIC_MODEL: "{{.model}}", API_KEY: "${E2E_VARS_KEY}"}
permissions: {default: deny}
turns:
  - prompt: "Use {{.model}}"
    expect: {text: {contains: "{{.model}}"}}
`,
	})
	env := []string{"E2E_VARS_KEY=sk-e2e-VarsSecret1234"}
	res := acprunEnv(t, dir, env, "run", "s.yaml", "-o", "r.json", "--min-pass-rate", "0.5")
	if res.code != 1 {
		t.Errorf("run --min-pass-rate 0.5: exit %d, want 1 (matrix[model=sonnet-4] failed)\n%s", res.code, res.stderr)
	}
	data := readFiles(t, dir, "r.json")["r.json"]
	if bytes.Contains(data, []byte("VarsSecret")) || !bytes.Contains(data, []byte("I used opus-4 with [REDACTED]")) {
		t.Errorf("results: want the API key redacted, the model kept:\n%s", data)
	}
	got := map[string]report.Status{}
	for _, sc := range readResults(t, filepath.Join(dir, "r.json")).Scenarios {
		got[sc.Name] = sc.Status
	}
	want := map[string]report.Status{"matrix[model=sonnet-4]": report.StatusFailed, "matrix[model=opus-4]": report.StatusPassed}
	if !maps.Equal(got, want) {
		t.Errorf("results: %v; want %v\n%s", got, want, res.stderr)
	}
	rerun := acprunEnv(t, dir, env, "run", "s.yaml", "--rerun-failed", "r.json", "-o", "r2.json")
	if rerun.code != 1 || !strings.Contains(rerun.stderr, "FAIL matrix[model=sonnet-4]") || strings.Contains(rerun.stderr, "opus-4]") {
		t.Errorf("--rerun-failed: exit %d, want 1, rerunning matrix[model=sonnet-4] alone\n%s", rerun.code, rerun.stderr)
	}
}

// TestRedactionKeepsStatuses: an env value that is one of acprun's own
// words (a status, a stop reason) is no secret: a pass stays a pass, and
// the results stay readable by merge and --rerun-failed.
func TestRedactionKeepsStatuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml":    "turns: [{steps: [{text: fine}]}]\n",
		"crash.mock.yaml": "turns: [{steps: [{text: partial}, {exit: 1}]}]\n",
		"s.yaml": `name: realistic
agent:
  command: [acprun, mock-agent, crash.mock.yaml]
  env: {LOG_LEVEL: error}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: fine
agent:
  command: [acprun, mock-agent, ok.mock.yaml]
  env: {EXPECTED_RESULT: passed, STOP: END_TURN}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "r.json")
	if res.code != 1 || !strings.Contains(res.stderr, "PASS fine (end_turn") || !strings.Contains(res.stderr, "ERROR realistic") {
		t.Errorf("run: exit %d, want 1 with fine passed and realistic an error\n%s", res.code, res.stderr)
	}
	var statuses []report.Status
	for _, sc := range readResults(t, filepath.Join(dir, "r.json")).Scenarios {
		statuses = append(statuses, sc.Status)
	}
	if want := []report.Status{report.StatusError, report.StatusPassed}; !slices.Equal(statuses, want) {
		t.Errorf("statuses %v; want %v", statuses, want)
	}
	if m := acprun(t, dir, "merge", "r.json", "-o", "m.json"); m.code != 1 || !strings.Contains(m.stderr, "results: m.json") {
		t.Errorf("merge: exit %d, want 1 (the results it read hold an error)\n%s", m.code, m.stderr)
	}
	rerun := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "r.json", "-o", "r2.json")
	if rerun.code != 1 || !strings.Contains(rerun.stderr, "ERROR realistic") || strings.Contains(rerun.stderr, "fine") {
		t.Errorf("--rerun-failed: exit %d, want 1, rerunning realistic alone\n%s", rerun.code, rerun.stderr)
	}
}

// TestRedactionKeepsNames: the value of a secret-looking variable of
// acprun's environment that a scenario's name holds, or an env value that
// is the name of the config agent a scenario runs (MODEL: sonnet-4 in
// agent sonnet-4), is no secret: the name is intact in the results and
// the HTML reports of run and report, and --rerun-failed reruns the
// scenario.
func TestRedactionKeepsNames(t *testing.T) {
	t.Parallel()
	const scenario = "permissions: {default: deny}\nturns:\n  - prompt: x\n    expect: {text: {contains: \"yes\"}}\n"
	for _, tt := range []struct {
		name, config, agent, env string
		kept, fail               string // the name the outputs keep, the line run prints
	}{
		{"a scenario's name", "", "{command: [acprun, mock-agent, f.mock.yaml]}", "AUTH_USER=deploy-bot", "deploy-bot-smoke", "FAIL deploy-bot-smoke"},
		{"an agent's name", "agents:\n  sonnet-4: {command: [acprun, mock-agent, f.mock.yaml], env: {MODEL: sonnet-4}}\n",
			"sonnet-4", "AGENT_TOKEN=sonnet-4", "sonnet-4", "FAIL deploy-bot-smoke [sonnet-4]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"f.mock.yaml": "turns: [{steps: [{text: nope}]}]\n",
				"acprun.yaml": tt.config,
				"s.yaml":      "name: deploy-bot-smoke\nagent: " + tt.agent + "\n" + scenario,
			})
			env := []string{tt.env}
			res := acprunEnv(t, dir, env, "run", "s.yaml", "-o", "r.json", "--html", "r.html")
			if res.code != 1 || !strings.Contains(res.stderr, tt.fail+" (") {
				t.Errorf("run: exit %d, want 1 and %q\n%s", res.code, tt.fail, res.stderr)
			}
			if rep := acprunEnv(t, dir, env, "report", "r.json", "-o", "r2.html"); rep.code != 0 {
				t.Fatalf("report: exit %d, want 0\n%s", rep.code, rep.stderr)
			}
			for name, data := range readFiles(t, dir, "r.json", "r.html", "r2.html") {
				if bytes.Contains(data, []byte("[REDACTED]")) || !bytes.Contains(data, []byte(tt.kept)) {
					t.Errorf("%s: want the name %s intact", name, tt.kept)
				}
			}
			rerun := acprunEnv(t, dir, env, "run", "s.yaml", "--rerun-failed", "r.json", "-o", "r2.json", "--allow-empty")
			if rerun.code != 1 || !strings.Contains(rerun.stderr, tt.fail+" (") {
				t.Errorf("--rerun-failed: exit %d, want 1 and %q\n%s", rerun.code, tt.fail, rerun.stderr)
			}
		})
	}
}

// TestMcpServerCredentialsRedacted: the values of the env and headers of
// an agent's MCP servers are secrets: the session/new that carries them
// is recorded redacted in the transcript, and the HTML report of run
// --html and of report holds no token.
func TestMcpServerCredentialsRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "agentCapabilities: {mcpCapabilities: {http: true}}\nturns: [{steps: [{text: ok}]}]\n",
		"s.yaml": `name: mcp
agent:
  command: [acprun, mock-agent, m.mock.yaml]
  mcpServers:
    - name: github
      command: /usr/bin/github-mcp
      args: []
      env: [{name: GITHUB_PERSONAL_ACCESS_TOKEN, value: "${GH_PAT}"}]
    - type: http
      name: remote
      url: https://mcp.example.com/
      headers: [{name: Authorization, value: "Bearer ghs_LiteralServerT0ken"}]
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprunEnv(t, dir, []string{"GH_PAT=ghp_R3alL00kingT0kenValue"}, "run", "s.yaml", "-o", "r.json", "--transcripts", "tr", "--html", "r.html")
	if res.code != 0 {
		t.Fatalf("run: exit %d, want 0\n%s", res.code, res.stderr)
	}
	if rep := acprun(t, dir, "report", "r.json", "-o", "r2.html"); rep.code != 0 {
		t.Fatalf("report: exit %d, want 0\n%s", rep.code, rep.stderr)
	}
	outputs := readFiles(t, dir, "tr/mcp.jsonl", "r.html", "r2.html", "r.json")
	for name, data := range outputs {
		for _, token := range []string{"ghp_R3al", "ghs_Literal"} {
			if i := bytes.Index(data, []byte(token)); i >= 0 {
				t.Errorf("%s leaks an MCP server's token: …%s…", name, excerpt(data, i))
			}
		}
	}
	if tr := outputs["tr/mcp.jsonl"]; !bytes.Contains(tr, []byte(`"GITHUB_PERSONAL_ACCESS_TOKEN","value":"[REDACTED]"`)) || !bytes.Contains(tr, []byte(`"Authorization","value":"[REDACTED]"`)) {
		t.Errorf("transcript: want session/new with the env value and header redacted:\n%s", tr)
	}
}

// TestMcpServerURLSecretsRedacted: the password in the url of an http
// MCP server, and the value of a secret-looking query parameter in an sse
// one's, which session/new sends the agent, are redacted in the
// transcript and in the HTML report that embeds it, as a proxy's password
// in a gateway's upstream is; the rest of the urls is kept.
func TestMcpServerURLSecretsRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "agentCapabilities: {mcpCapabilities: {http: true, sse: true}}\nturns: [{steps: [{text: ok}]}]\n",
		"s.yaml": `name: mcp
agent:
  command: [acprun, mock-agent, m.mock.yaml]
  mcpServers:
    - {type: http, name: remote, url: "https://bot:Mcp-Passw0rd-9@mcp.example.com/", headers: []}
    - {type: sse, name: hosted, url: "https://mcp.example.com/sse?api_key=Mcp-QueryKey-7&limit=5", headers: []}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "r.json", "--transcripts", "tr", "--html", "r.html")
	if res.code != 0 {
		t.Fatalf("run: exit %d, want 0\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "tr/mcp.jsonl", "r.html", "r.json")
	outputs["stderr"] = []byte(res.stderr)
	for name, data := range outputs {
		for _, secret := range []string{"Passw0rd", "QueryKey"} {
			if i := bytes.Index(data, []byte(secret)); i >= 0 {
				t.Errorf("%s leaks an MCP server's credential: …%s…", name, excerpt(data, i))
			}
		}
	}
	tr := outputs["tr/mcp.jsonl"]
	for _, url := range []string{`"url":"https://bot:[REDACTED]@mcp.example.com/"`, `"url":"https://mcp.example.com/sse?api_key=[REDACTED]&limit=5"`} {
		if !bytes.Contains(tr, []byte(url)) {
			t.Errorf("transcript: want session/new with %s:\n%s", url, tr)
		}
	}
}

// TestRedactionKeepsFiles: a value of an agent's env, or of a
// secret-looking variable of acprun's environment, that is part of a
// scenario file's path is no secret, as a name is not: the path is intact
// in the results, JUnit, the GitHub annotations and step summary and the
// HTML report of report, and --rerun-failed reruns the failed scenario
// rather than finding nothing. A secret in no path is still redacted.
func TestRedactionKeepsFiles(t *testing.T) {
	t.Parallel()
	const fail = "name: check\nagent:\n  command: [acprun, mock-agent, ok.mock.yaml]\n  env: {%s}\npermissions: {default: deny}\n" +
		"turns:\n  - prompt: hi\n    expect: {text: {contains: missing}}\n"
	for _, tt := range []struct {
		name, dir, env, agentEnv string
	}{
		{"an agent's env value", "smoke", "E2E_FILES_KEY=sk-e2e-FileSecret1234", `SUITE: smoke, API_KEY: "${E2E_FILES_KEY}"`},
		{"an environment value", "nightly-evals", "MY_SESSION_NAME=nightly-evals", "A: b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := tt.dir + "/check.yaml"
			writeFiles(t, dir, map[string]string{
				tt.dir + "/ok.mock.yaml": "turns: [{steps: [{text: \"all good, sk-e2e-FileSecret1234\"}]}]\n",
				file:                     fmt.Sprintf(fail, tt.agentEnv),
			})
			summary := filepath.Join(dir, "summary.md")
			env := []string{tt.env, "E2E_FILES_TOKEN=sk-e2e-FileSecret1234", "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_WORKSPACE="}
			res := acprunEnv(t, dir, env, "run", tt.dir+"/", "-o", "r.json", "--junit", "r.xml")
			if res.code != 1 {
				t.Fatalf("run: exit %d, want 1\n%s", res.code, res.stderr)
			}
			if want := "::error file=" + file + ",line=8,col="; !strings.Contains(res.stdout, want) {
				t.Errorf("annotations: want %q\n%s", want, res.stdout)
			}
			if rep := acprunEnv(t, dir, env, "report", "r.json", "-o", "r.html"); rep.code != 0 {
				t.Fatalf("report: exit %d, want 0\n%s", rep.code, rep.stderr)
			}
			outputs := readFiles(t, dir, "r.json", "r.xml", "summary.md", "r.html")
			outputs["stdout"], outputs["stderr"] = []byte(res.stdout), []byte(res.stderr)
			for name, data := range outputs {
				for _, bad := range []string{"FileSecret", "[REDACTED]/"} {
					if i := bytes.Index(data, []byte(bad)); i >= 0 {
						t.Errorf("%s: want the path %s intact and the secret redacted: …%s…", name, file, excerpt(data, i))
					}
				}
				if !bytes.Contains(data, []byte(file)) {
					t.Errorf("%s: no %s", name, file)
				}
			}
			if got := readResults(t, filepath.Join(dir, "r.json")).Scenarios[0].File; got != file {
				t.Errorf("results: file %q, want %q", got, file)
			}
			if x := outputs["r.xml"]; !bytes.Contains(x, []byte(`file="`+file+`"`)) {
				t.Errorf("JUnit: want file=%q\n%s", file, x)
			}
			rerun := acprunEnv(t, dir, env, "run", tt.dir+"/", "--rerun-failed", "r.json", "-o", "r2.json", "--allow-empty")
			if rerun.code != 1 || !strings.Contains(rerun.stderr, "FAIL check (") {
				t.Errorf("--rerun-failed: exit %d, want 1, rerunning check\n%s", rerun.code, rerun.stderr)
			}
		})
	}
}
