package mockagent_test

import (
	"context"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/mockagent"
)

// initializeWith initializes the agent as a client that advertises caps,
// and opens a session in /work.
func (c *client) initializeWith(caps acp.ClientCapabilities) string {
	c.t.Helper()
	var res acp.InitializeResponse
	if err := c.call(acp.MethodInitialize, acp.InitializeRequest{ProtocolVersion: 1, ClientCapabilities: caps}, &res); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	return c.newSession("/work")
}

// turnTexts plays one prompt and returns its updates, described.
func (c *client) turnTexts(sid string) []string {
	c.t.Helper()
	var out []string
	for _, u := range c.turnUpdates(sid) {
		out = append(out, describe(u))
	}
	return out
}

// turnUpdates plays one prompt and returns its updates.
func (c *client) turnUpdates(sid string) []acp.SessionUpdate {
	c.t.Helper()
	if _, err := c.prompt(sid, "go"); err != nil {
		c.t.Fatalf("prompt: %v", err)
	}
	var out []acp.SessionUpdate
	for _, n := range c.drain() {
		out = append(out, n.Update)
	}
	return out
}

const noticeScript = `turns:
  - steps:
      - notice: {severity: error, title: MCP server unavailable, description: "github: connection refused"}
      - compaction: {compactionId: c1, status: in_progress}
      - compaction: {compactionId: c1, chunk: "We fixed "}
      - compaction: {compactionId: c1, status: completed, summary: "We fixed the build."}
`

// TestNoticeAndCompaction: notice and compaction steps send their updates
// to a client that takes them, and tell one that does not in a text chunk.
func TestNoticeAndCompaction(t *testing.T) {
	c, _ := runMock(t, noticeScript, nil)
	sid := c.initializeWith(acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.Capability{}, Compaction: &acp.Capability{}}})
	want := []acp.SessionUpdate{
		{Kind: acp.UpdateNotice, Notice: &acp.Notice{Severity: acp.SeverityError, Title: "MCP server unavailable", Description: "github: connection refused"}},
		{Kind: acp.UpdateCompactionUpdate, CompactionUpdate: &acp.CompactionUpdate{CompactionID: "c1", Status: acp.CompactionInProgress}},
		{Kind: acp.UpdateCompactionSummaryChunk, CompactionSummaryChunk: &acp.CompactionSummaryChunk{CompactionID: "c1", Content: acp.TextBlock("We fixed ")}},
		{Kind: acp.UpdateCompactionUpdate, CompactionUpdate: &acp.CompactionUpdate{CompactionID: "c1", Status: acp.CompactionCompleted,
			Summary: []acp.ContentBlock{acp.TextBlock("We fixed the build.")}}},
	}
	if diff := cmp.Diff(want, c.turnUpdates(sid), cmpopts.IgnoreFields(acp.SessionUpdate{}, "Raw")); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}

	c, _ = runMock(t, noticeScript, nil)
	texts := c.turnTexts(c.initializeWith(acp.ClientCapabilities{}))
	wantTexts := []string{
		"text:notice (not sent: the client takes no notices): error: MCP server unavailable",
		"text:compaction (not sent: the client takes no compaction updates)",
		"text:compaction (not sent: the client takes no compaction updates)",
		"text:compaction (not sent: the client takes no compaction updates)",
	}
	if diff := cmp.Diff(wantTexts, texts); diff != "" {
		t.Errorf("without the capabilities (-want +got):\n%s", diff)
	}
}

// TestElicit: an elicit step asks in a mode the client offers (or any,
// with force), sends its fields as a requested schema whose fields are
// all required, and says the answer.
func TestElicit(t *testing.T) {
	script := `turns:
  - steps:
      - elicit: {message: "Which branch?", toolCallId: t1, fields: {branch: string, env: [dev, prod], force: boolean}}
      - elicit: {message: "Log in", mode: url, url: "https://example.com/login"}
      - elicit: {message: "Raw", schema: {type: object, properties: {n: {type: integer}}}, force: true, mode: _custom}
`
	var asked []json.RawMessage
	serve := func(_ context.Context, req *acp.Request) (any, error) {
		asked = append(asked, req.Params)
		var p acp.CreateElicitationRequest
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		switch p.Mode {
		case acp.ElicitationForm:
			return acp.CreateElicitationResponse{Action: acp.ElicitationAccept, Content: map[string]any{"branch": "main", "force": true}}, nil
		case acp.ElicitationURL:
			return acp.CreateElicitationResponse{Action: acp.ElicitationDecline}, nil
		}
		return nil, acp.NewError(acp.CodeInvalidParams, "mode %s not advertised", p.Mode)
	}
	c, _ := runMock(t, script, serve)
	texts := c.turnTexts(c.initializeWith(acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.Capability{}, URL: &acp.Capability{}}}))
	want := []string{
		`text:elicit: accept {"branch":"main","force":true}`,
		"text:elicit: decline",
		"text:error: elicitation/create: mode _custom not advertised (-32602)",
	}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("said (-want +got):\n%s", diff)
	}
	if len(asked) != 3 {
		t.Fatalf("asked %d times, want 3", len(asked))
	}
	wantParams := []string{
		`{"sessionId":"mock-session-1","toolCallId":"t1","message":"Which branch?","mode":"form","requestedSchema":{"type":"object","properties":{"branch":{"type":"string"},"env":{"type":"string","enum":["dev","prod"]},"force":{"type":"boolean"}},"required":["branch","env","force"]}}`,
		`{"sessionId":"mock-session-1","message":"Log in","mode":"url","elicitationId":"elicitation-1","url":"https://example.com/login"}`,
		`{"sessionId":"mock-session-1","message":"Raw","mode":"_custom","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`,
	}
	for i, w := range wantParams {
		if got := string(asked[i]); got != w {
			t.Errorf("params %d = %s\nwant %s", i, got, w)
		}
	}

	// A client that offers no elicitation is not asked, but with force.
	asked = nil
	c, _ = runMock(t, script, serve)
	texts = c.turnTexts(c.initializeWith(acp.ClientCapabilities{}))
	want = []string{
		"text:elicit: not asked (the client offers no form elicitation)",
		"text:elicit: not asked (the client offers no url elicitation)",
		"text:error: elicitation/create: mode _custom not advertised (-32602)",
	}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("without elicitation (-want +got):\n%s", diff)
	}
}

// TestContentStepErrors: the steps' mistakes are errors at their place.
func TestContentStepErrors(t *testing.T) {
	_, err := mockagent.Parse("s.yaml", []byte(`turns:
  - steps:
      - notice: {severity: error}
      - compaction: {compactionId: c1, status: completed, chunk: x}
      - compaction: {compactionId: c1}
      - compaction: {status: completed}
      - elicit: {fields: {n: decimal}}
      - elicit: {message: m, mode: url}
      - elicit: {message: m, fields: {a: string}, schema: {}}
updatesBeforeSessionNew:
  - elicit: {message: early}
`))
	want := []string{
		`s.yaml:3:17: notice: severity and title are required`,
		`s.yaml:4:21: compaction: chunk goes alone (a summary chunk); status, summary and error make a compaction_update step of their own`,
		`s.yaml:5:21: compaction: status is required (or chunk, for a summary chunk)`,
		`s.yaml:6:21: compaction: compactionId is required`,
		`s.yaml:7:17: elicit: message is required`,
		`s.yaml:7:30: elicit.fields.n: unknown value "decimal" (want one of: string, number, integer, boolean)`,
		`s.yaml:8:17: elicit: mode url needs url`,
		`s.yaml:9:17: elicit: give fields or schema, not both`,
		`s.yaml:11:5: elicit step: only allowed in a turn's steps, not in updatesBeforeSessionNew`,
	}
	if err == nil {
		t.Fatal("Parse: no error")
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
