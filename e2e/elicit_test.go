package e2e_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// elicitAgent asks which branch to work on and, in the second turn,
// whether to deploy and where.
const elicitAgent = `turns:
  - steps:
      - elicit: {message: "Which branch should I use?", fields: {branch: string}}
  - steps:
      - elicit: {message: "Deploy now?", fields: {env: [staging, prod], confirm: boolean}}
`

// TestElicitationAnswers: with answers, acprun advertises form elicitation
// and fills the agent's forms, a turn's answers before the scenario's;
// results and transcripts hold each question and its answer, and every
// message acprun sends validates against the ACP schema.
func TestElicitationAnswers(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, elicitAgent, `name: ask
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
answers: {branch: main, env: staging}
turns:
  - prompt: one
    expect: {text: {contains: 'elicit: accept {"branch":"main"}'}}
  - prompt: two
    answers:
      - {match: "(?i)deploy", values: {env: prod, confirm: true}}
    expect: {text: {contains: 'elicit: accept {"confirm":true,"env":"prod"}'}}
`, "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	e := sc.Turns[1].Elicitations
	if len(e) != 1 || e[0].Mode != "form" || e[0].Message != "Deploy now?" || e[0].Action != "accept" ||
		compactJSON(t, e[0].Content) != `{"confirm":true,"env":"prod"}` || e[0].AnsweredFrom["env"] != "s.yaml:10:45" {
		t.Errorf("turn 2 elicitations = %+v, want the form accepted with the turn's answers", e)
	}
	if len(sc.Warnings) != 0 {
		t.Errorf("warnings = %q, want none", sc.Warnings)
	}
	tr := filepath.Join(dir, sc.Transcript)
	if init := findTranscriptLine(t, tr, `"method":"initialize"`, "c2a"); !strings.Contains(init, `"elicitation":{"form":{}}`) {
		t.Errorf("initialize = %s, want form elicitation advertised", init)
	}
	if ask := findTranscriptLine(t, tr, `"method":"elicitation/create"`, "a2c"); !strings.Contains(ask, "Which branch should I use?") {
		t.Errorf("transcript lacks the question: %q", ask)
	}
	if answer := findTranscriptLine(t, tr, `"action":"accept"`, "c2a"); !strings.Contains(answer, `"content":{"branch":"main"}`) {
		t.Errorf("transcript lacks the answer: %q", answer)
	}
	validateTranscript(t, tr)
}

// TestElicitationDeclined: a question the answers cannot fill is declined
// and warned about, and the turn that needed the answer fails; without
// answers acprun advertises no elicitation; answers written wrong are
// errors at their place.
func TestElicitationDeclined(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, elicitAgent, `name: ask
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
    answers: {env: prod}
    expect: {text: {contains: "elicit: accept"}}
  - prompt: two
`, "--transcripts", "tr")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	sc := out.Scenarios[0]
	t1 := sc.Turns[0]
	if len(t1.Elicitations) != 1 || t1.Elicitations[0].Action != "decline" || t1.Text != "elicit: decline" {
		t.Errorf("turn 1: elicitations %+v, text %q; want the question declined", t1.Elicitations, t1.Text)
	}
	warn := `turn 1: the agent asked form "Which branch should I use?" (fields: branch); acprun declined: no answer for the required field branch (give it in answers)`
	if len(sc.Warnings) != 2 || sc.Warnings[0] != warn || !strings.Contains(res.stderr, "no answer for the required field branch") {
		t.Errorf("warnings = %q, want %q, also on stderr:\n%s", sc.Warnings, warn, res.stderr)
	}
	if !strings.Contains(strings.Join(t1.Failures, "\n"), `text does not contain "elicit: accept"`) {
		t.Errorf("turn 1 failures = %q, want the text expectation", t1.Failures)
	}
	validateTranscript(t, filepath.Join(dir, sc.Transcript))

	// Without answers: nothing advertised, and the agent does not ask.
	res, out, dir = runOne(t, elicitAgent, "name: quiet\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: one}]\n", "--transcripts", "tr")
	if res.code != 0 || out.Scenarios[0].Turns[0].Text != "elicit: not asked (the client offers no form elicitation)" {
		t.Errorf("without answers: exit %d, text %q; want 0 and no question asked", res.code, out.Scenarios[0].Turns[0].Text)
	}
	if init := findTranscriptLine(t, filepath.Join(dir, out.Scenarios[0].Transcript), `"method":"initialize"`, "c2a"); strings.Contains(init, "elicitation") {
		t.Errorf("initialize = %s, want no elicitation advertised", init)
	}

	dir = t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": `name: bad
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
answers: {match: branch, values: {branch: main}}
turns:
  - prompt: one
    answers: [{match: "(", valuez: {}}]
`})
	res = acprun(t, dir, "validate", "s.yaml")
	for _, want := range []string{
		`s.yaml:3:34: the answer for field "values" is a mapping`,
		"s.yaml:6:23: bad regular expression",
		`s.yaml:6:28: unknown key "valuez" (did you mean "values"?)`,
	} {
		if res.code != exitUsage || !strings.Contains(res.stderr, want) {
			t.Errorf("validate: exit %d, want %d with %q\n%s", res.code, exitUsage, want, res.stderr)
		}
	}
}

// TestElicitationConfigAnswers: the config file's defaults.answers fill
// the forms of scenarios without answers of their own, and a scenario's
// own answers replace them whole.
func TestElicitationConfigAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": elicitAgent,
		"acprun.yaml":     "defaults:\n  answers: {branch: main, env: staging, confirm: false}\n",
		"s.yaml": `name: inherits
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: one}, {prompt: two}]
---
name: own
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
answers: {branch: dev}
turns: [{prompt: one}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	inherits, own := out.Scenarios[0], out.Scenarios[1]
	if got := inherits.Turns[1].Elicitations; len(got) != 1 || got[0].Action != "accept" ||
		compactJSON(t, got[0].Content) != `{"confirm":false,"env":"staging"}` || got[0].AnsweredFrom["env"] != "acprun.yaml:2:32" {
		t.Errorf("inherits: turn 2 elicitations = %+v, want the config's answers", got)
	}
	if got := own.Turns[0].Elicitations; len(got) != 1 || compactJSON(t, got[0].Content) != `{"branch":"dev"}` || got[0].AnsweredFrom["branch"] != "s.yaml:9:19" {
		t.Errorf("own: elicitations = %+v, want the scenario's answers", got)
	}
}

// compactJSON is data without its insignificant blanks.
func compactJSON(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return b.String()
}

// TestElicitationAnswerRedacted: a secret given as an answer reaches the
// agent, and appears in no output.
func TestElicitationAnswerRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{elicit: {message: \"Token?\", fields: {token: string}}}]\n",
		"s.yaml": `name: token
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
answers: {token: "${E2E_SECRET}"}
turns:
  - prompt: go
    expect: {text: {contains: 'elicit: accept {"token":"ghp_'}}
`,
	})
	res := acprunEnv(t, dir, []string{"E2E_SECRET=" + scenarioSecret}, "run", "s.yaml", "--transcripts", "tr", "-o", "out.json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0 (the agent got the token)\n%s", res.code, res.stderr)
	}
	out := readFiles(t, dir, "out.json", "tr/token.jsonl")
	for name, data := range out {
		if strings.Contains(string(data), scenarioSecret) {
			t.Errorf("%s holds the secret answer", name)
		}
	}
	if !strings.Contains(string(out["out.json"]), `[REDACTED]`) {
		t.Errorf("results do not show the answer redacted:\n%s", out["out.json"])
	}
}
