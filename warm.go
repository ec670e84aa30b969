package main

import (
	"encoding/json"
	"io"
	"os"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// warmRun does ahead, on another goroutine, the one-time work of a run
// that depends on nothing the command line or the scenarios say, and
// returns a function that waits for it to end. A run starts it once its
// command line is parsed: loading the scenarios, starting the first agent
// and waiting for its first answers keep one core busy at most and leave
// the other idle, and a run of one short scenario spends much of its time
// on such first-time work. (Started before the command line is parsed, it
// slowed kong's building of its model more than it saved.)
//
// What it does has no effect but on speed: every piece is a cache that
// the run fills the same way on first use, whichever fills it first.
//   - os/exec's check that pidfds work (a clone of a child that exits at
//     once), made when the first process starts;
//   - the pattern of secret-looking variable names, compiled when the first
//     scenario's redactor is made, and crypto/rand, first drawn from for
//     the first scenario's reap mark;
//   - encoding/json's encoders and decoders of the messages of a session
//     (initialize, session/new, session/prompt, session/update) and of the
//     results file, built by reflection when a type is first used.
func warmRun() (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = redact.Secrets(nil, []string{"WARM_TOKEN=0123456789"})
		_ = reap.New()
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			_ = p.Release()
		}
		for _, v := range []any{
			acp.InitializeRequest{ClientCapabilities: acp.ClientCapabilities{Auth: &acp.AuthCapabilities{}, Session: &acp.ClientSessionCapabilities{}}, ClientInfo: &acp.Implementation{}},
			acp.NewSessionRequest{},
			acp.PromptRequest{Prompt: []acp.ContentBlock{acp.TextBlock("")}},
		} {
			_, _ = json.Marshal(v)
		}
		var init acp.InitializeResponse
		_ = json.Unmarshal([]byte(warmInitialize), &init)
		var ns acp.NewSessionResponse
		_ = json.Unmarshal([]byte(`{"sessionId":"s"}`), &ns)
		var pr acp.PromptResponse
		_ = json.Unmarshal([]byte(`{"stopReason":"end_turn","usage":{"totalTokens":0,"inputTokens":0,"outputTokens":0}}`), &pr)
		_, _ = acp.DecodeSessionNotification([]byte(`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`))
		_ = report.Write(io.Discard, report.Report{Scenarios: []report.Result{{Turns: []report.TurnResult{{}}}}})
	}()
	return func() { <-done }
}

// warmInitialize is an initialize result with the members agents commonly
// send.
const warmInitialize = `{"protocolVersion":1,"agentCapabilities":{"loadSession":true,` +
	`"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false},"mcpCapabilities":{"http":false,"sse":false},` +
	`"sessionCapabilities":{},"auth":{}},"authMethods":[{"id":"a","name":"a"}],"agentInfo":{"name":"a","version":"1"}}`
