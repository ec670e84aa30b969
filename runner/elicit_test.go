package runner

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// form is a form question with the fields props, of which required are
// required.
func form(message string, props map[string]acp.ElicitationProperty, required ...string) *acp.CreateElicitationRequest {
	return &acp.CreateElicitationRequest{Message: message, Mode: acp.ElicitationForm, SessionID: "s",
		RequestedSchema: &acp.ElicitationSchema{Type: "object", Properties: props, Required: required}}
}

func answerAt(line, col int, field, text string) scenario.AnswerValue {
	return scenario.AnswerValue{Pos: at(line, col), Field: field, Text: text}
}

func TestAnswerQuestion(t *testing.T) {
	t.Parallel()
	str := acp.ElicitationProperty{Type: acp.PropertyString}
	turn := scenario.AnswerSet{Match: regexp.MustCompile("(?i)deploy"), Values: []scenario.AnswerValue{
		answerAt(3, 1, "env", "prod"), answerAt(3, 2, "count", "3"), answerAt(3, 3, "ratio", "0.5"), answerAt(3, 4, "force", "TRUE"),
		{Pos: at(3, 5), Field: "labels", List: []string{"bug", "ci"}, IsList: true},
	}}
	sc := scenario.AnswerSet{Values: []scenario.AnswerValue{answerAt(9, 1, "branch", "main"), answerAt(9, 2, "env", "dev"), answerAt(9, 3, "tier", "a")}}
	sets := []scenario.AnswerSet{turn, sc}
	tests := []struct {
		name     string
		q        *acp.CreateElicitationRequest
		scripted bool
		action   string
		content  string // the accepted content as JSON
		reason   string
	}{
		{name: "the turn's first, where its match matches",
			q:        form("Deploy where?", map[string]acp.ElicitationProperty{"env": {Type: acp.PropertyString, Enum: []string{"dev", "prod"}}, "branch": str}, "env"),
			scripted: true, action: "accept", content: `{"branch":"main","env":"prod"}`},
		{name: "the scenario's where the turn's does not match",
			q:        form("Which env?", map[string]acp.ElicitationProperty{"env": str}, "env"),
			scripted: true, action: "accept", content: `{"env":"dev"}`},
		{name: "types",
			q: form("deploy", map[string]acp.ElicitationProperty{
				"count": {Type: acp.PropertyInteger}, "ratio": {Type: acp.PropertyNumber}, "force": {Type: acp.PropertyBoolean},
				"labels": {Type: acp.PropertyArray, Items: &acp.ElicitationItems{AnyOf: []acp.EnumOption{{Const: "bug", Title: "Bug"}, {Const: "ci", Title: "CI"}}}},
				"tier":   {Type: acp.PropertyString, OneOf: []acp.EnumOption{{Const: "a", Title: "A"}}},
				"note":   str, // optional, unanswered: left out
			}),
			scripted: true, action: "accept", content: `{"count":3,"force":true,"labels":["bug","ci"],"ratio":0.5,"tier":"a"}`},
		{name: "a required field without an answer",
			q:        form("Which branch?", map[string]acp.ElicitationProperty{"branch": str, "reviewer": str, "team": str}, "reviewer", "team"),
			scripted: true, action: "decline", reason: "no answer for the required fields reviewer, team (give them in answers)"},
		{name: "no field answered",
			q:        form("Who?", map[string]acp.ElicitationProperty{"reviewer": str}),
			scripted: true, action: "decline", reason: "no answer for any of its fields (give them in answers)"},
		{name: "an answer that does not fit",
			q: form("deploy", map[string]acp.ElicitationProperty{"count": {Type: acp.PropertyBoolean}, "env": {Type: acp.PropertyString, Enum: []string{"staging"}},
				"labels": {Type: acp.PropertyString}}),
			scripted: true, action: "decline",
			reason: `s.yaml:3:2: the answer for count is "3"; the field takes true or false; s.yaml:3:1: the answer for env is "prod", which is not one of its choices (staging); s.yaml:3:5: the answer for labels is a list; the field takes one string`},
		{name: "a form without fields", q: form("Proceed?", nil), scripted: true, action: "decline", reason: "the form has no fields, so no answer can accept it"},
		{name: "url", q: &acp.CreateElicitationRequest{Message: "Log in", Mode: acp.ElicitationURL, ElicitationID: "e1", URL: "https://example.com/login"},
			scripted: true, action: "decline", reason: "acprun declines URL elicitations: no one is there to open it"},
		{name: "unknown mode", q: &acp.CreateElicitationRequest{Message: "?", Mode: "_voice"}, scripted: true, action: "decline", reason: `unknown elicitation mode "_voice"`},
		{name: "no answers scripted", q: form("Which branch?", map[string]acp.ElicitationProperty{"branch": str}), action: "decline",
			reason: "the scenario scripts no answers, and acprun did not advertise elicitation (give them in answers)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, rec := answerQuestion(tt.q, tt.scripted, sets)
			if resp.Action != tt.action || rec.Action != tt.action || rec.Reason != tt.reason {
				t.Errorf("answer %s, record %s (%q); want %s (%q)", resp.Action, rec.Action, rec.Reason, tt.action, tt.reason)
			}
			if tt.content != "" {
				got, _ := json.Marshal(resp.Content)
				if string(got) != tt.content || string(rec.Content) != tt.content {
					t.Errorf("content sent %s, recorded %s; want %s", got, rec.Content, tt.content)
				}
			} else if resp.Content != nil || rec.Content != nil {
				t.Errorf("content %v / %s for a %s", resp.Content, rec.Content, tt.action)
			}
			if err := validateAs(t, "CreateElicitationResponse", resp); err != nil {
				t.Error(err)
			}
		})
	}
	_, rec := answerQuestion(tests[0].q, true, sets)
	want := report.Elicitation{Mode: "form", Message: "Deploy where?", Fields: []string{"branch", "env"}, Required: []string{"env"}, Action: "accept",
		Content: json.RawMessage(`{"branch":"main","env":"prod"}`), AnsweredFrom: map[string]string{"branch": "s.yaml:9:1", "env": "s.yaml:3:1"}}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
}

// TestElicitationsAnswered: with answers acprun advertises form
// elicitation and answers the agent's questions from the turn's answers,
// then the scenario's; a question it cannot answer, and a URL one, are
// declined and warned about; the record of each is in its turn, one asked
// before the first turn with the setup, and elicitation/complete marks its
// URL elicitation completed.
func TestElicitationsAnswered(t *testing.T) {
	t.Parallel()
	early := `{"jsonrpc":"2.0","id":"early-1","method":"elicitation/create","params":{"sessionId":"mock-session-1","message":"Workspace?","mode":"form","requestedSchema":{"type":"object","properties":{"workspace":{"type":"string"}},"required":["workspace"]}}}`
	complete := `{"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"login-1"}}`
	rep := runOne(t, `
updatesBeforeSessionNew:
  - garbage: '`+early+`'
turns:
  - steps:
      - elicit: {message: "Which branch?", fields: {branch: string}}
      - elicit: {message: "Deploy to?", fields: {env: [dev, prod], approve: boolean}}
      - elicit: {message: "Reviewer?", fields: {reviewer: string}}
      - elicit: {message: "Log in", mode: url, url: "https://example.com/login", elicitationId: login-1, force: true}
      - garbage: '`+complete+`'
  - steps:
      - elicit: {message: "Deploy to?", fields: {env: [dev, prod]}}
`, `name: ask
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
answers: {branch: main, workspace: ws1, env: dev}
turns:
  - prompt: one
    answers:
      - {match: "^Deploy", values: {env: prod, approve: true}}
  - prompt: two
`)
	sc := rep.Scenarios[0]
	t1, t2 := sc.Turns[0], sc.Turns[1]
	if want := `elicit: accept {"branch":"main"}elicit: accept {"approve":true,"env":"prod"}elicit: declineelicit: decline`; t1.Text != want {
		t.Errorf("turn 1 text = %q, want %q", t1.Text, want)
	}
	if want := `elicit: accept {"env":"dev"}`; t2.Text != want {
		t.Errorf("turn 2 text = %q, want %q (the scenario's answer: turn 1's are its own)", t2.Text, want)
	}
	var actions []string
	for _, e := range t1.Elicitations {
		actions = append(actions, e.Action)
	}
	if got := strings.Join(actions, ","); got != "accept,accept,decline,decline" {
		t.Errorf("turn 1 actions = %s", got)
	}
	if len(t1.Elicitations) == 4 {
		url := t1.Elicitations[3]
		if url.Mode != "url" || url.URL != "https://example.com/login" || url.ElicitationID != "login-1" || !url.Completed {
			t.Errorf("URL elicitation = %+v, want declined and completed", url)
		}
	}
	warnings := strings.Join(sc.Warnings, "\n")
	for _, w := range []string{
		`turn 1: the agent asked form "Reviewer?" (fields: reviewer); acprun declined: no answer for the required field reviewer (give it in answers)`,
		`turn 1: the agent asked url "Log in" (https://example.com/login); acprun declined: acprun declines URL elicitations`,
	} {
		if !strings.Contains(warnings, w) {
			t.Errorf("warnings lack %q:\n%s", w, warnings)
		}
	}
	if se := sc.SetupElicitations; len(se) != 1 || se[0].Action != "accept" || string(se[0].Content) != `{"workspace":"ws1"}` {
		t.Errorf("setup elicitations = %+v, want the early question answered from the scenario's answers", se)
	}
	if sc.Status != report.StatusPassed {
		t.Errorf("status %s (%q), want passed: a declined question is a warning", sc.Status, sc.Failures)
	}
}

// TestElicitationWithoutAnswers: without answers acprun advertises no
// elicitation, so a well-behaved agent does not ask; one that asks anyway
// is declined with a warning; a question in a turn being cancelled is
// answered cancel, after session/cancel. It plays in a synctest bubble:
// turn 2's timeout passes after its prompt was written, however slow the
// machine.
func TestElicitationWithoutAnswers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testElicitationWithoutAnswers)
}

func testElicitationWithoutAnswers(t *testing.T) {
	sc := playInBubble(t, `
turns:
  - steps:
      - elicit: {message: "Which branch?", fields: {branch: string}}
      - elicit: {message: "Which branch?", fields: {branch: string}, force: true}
  - onCancel: ignore
    steps:
      - waitForCancel: true
      - elicit: {message: "Still there?", fields: {ok: boolean}, force: true}
`, `name: silent
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
continueAfterCancel: true
turns:
  - prompt: one
  - prompt: two
    timeout: 200ms
    expect: {stopReason: end_turn, cancelCause: turnTimeout}
`)
	t1, t2 := sc.Turns[0], sc.Turns[1]
	if want := "elicit: not asked (the client offers no form elicitation)elicit: decline"; t1.Text != want {
		t.Errorf("turn 1 text = %q, want %q", t1.Text, want)
	}
	if len(t1.Elicitations) != 1 || !strings.Contains(t1.Elicitations[0].Reason, "the scenario scripts no answers") {
		t.Errorf("turn 1 elicitations = %+v, want the forced one declined", t1.Elicitations)
	}
	if len(t2.Elicitations) != 1 || t2.Elicitations[0].Action != "cancel" || t2.Text != "elicit: cancel" {
		t.Errorf("turn 2: elicitations %+v, text %q; want the question answered cancel", t2.Elicitations, t2.Text)
	}
}
