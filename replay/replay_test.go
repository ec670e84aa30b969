package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"go.uber.org/goleak"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/srcerr"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// recorded is a small transcript: a banner before initialize, a session
// in /rec, a turn with an update, a permission request (allowed), an fs
// read, a garbage line and a late update; a second turn cancelled by the
// client.
const recorded = `{"t":0,"dir":"a2c","raw":"agent v1 starting"}
{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}}
{"t":2,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"rec"}}}}
{"t":3,"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/rec","mcpServers":[]}}}
{"t":4,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}}
{"t":5,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}}
{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit /rec/a.txt","kind":"edit"}}}}
{"t":7,"dir":"a2c","msg":{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}}
{"t":8,"dir":"c2a","msg":{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}}
{"t":9,"dir":"a2c","msg":{"jsonrpc":"2.0","id":8,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/rec/a.txt"}}}
{"t":10,"dir":"c2a","msg":{"jsonrpc":"2.0","id":8,"result":{"content":"key=[REDACTED]\n"}}}
{"t":11,"dir":"a2c","raw":"DEBUG noise"}
{"t":12,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
{"t":13,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}}
{"t":20,"dir":"c2a","msg":{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"wait"}]}}}
{"t":21,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"waiting"}}}}}
{"t":500,"dir":"c2a","msg":{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}}
{"t":501,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"failed"}}}}
{"t":502,"dir":"a2c","msg":{"jsonrpc":"2.0","id":4,"result":{"stopReason":"cancelled"}}}
`

// client drives a Run over pipes, as acprun would.
type client struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan string
	stderr *strings.Builder
	done   chan error
}

// start plays transcript for a run whose secret is hunter2 (the key that
// the recording's fs/read_text_file answer redacted).
func start(t *testing.T, transcript string) *client {
	t.Helper()
	return startWith(t, transcript, Options{Redact: redact.New("hunter2")})
}

func startWith(t *testing.T, transcript string, opts Options) *client {
	t.Helper()
	rec, err := parse("rec.jsonl", strings.NewReader(transcript), nil)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, lines: make(chan string, 100), stderr: &strings.Builder{}, done: make(chan error, 1)}
	go func() {
		c.done <- Run(context.Background(), rec, inR, outW, c.stderr, opts)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// expect reads the next line from the agent and checks it holds every
// one of substrs.
func (c *client) expect(substrs ...string) string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the agent's output ended; want %q", substrs)
		}
		for _, s := range substrs {
			if !strings.Contains(l, s) {
				c.t.Fatalf("agent sent %s\nwant it to hold %q", l, s)
			}
		}
		return l
	case <-time.After(10 * time.Second): // a guard against a hang, not a synchronisation
		c.t.Fatalf("nothing from the agent; want %q", substrs)
	}
	return ""
}

// end closes the agent's input and waits for Run to return.
func (c *client) end() error {
	c.in.Close()
	for range c.lines {
	}
	return <-c.done
}

func (c *client) handshake(cwd string) {
	c.t.Helper()
	c.expect(`agent v1 starting`)
	c.send(`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":1}}`)
	c.expect(`"id":"a"`, `"agentInfo":{"name":"rec"}`)
	c.send(`{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"` + cwd + `","mcpServers":[]}}`)
	c.expect(`"id":"b"`, `"sessionId":"s1"`)
}

func TestRunPlaysTheRecording(t *testing.T) {
	c := start(t, recorded)
	c.handshake("/live")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}`)
	c.expect(`"tool_call"`, `"title":"Edit /live/a.txt"`)
	c.expect(`"id":1,`, `"method":"session/request_permission"`)
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`)
	c.expect(`"id":2,`, `"method":"fs/read_text_file"`, `"path":"/live/a.txt"`)
	c.send(`{"jsonrpc":"2.0","id":2,"result":{"content":"key=hunter2\n"}}`) // the secret was redacted in the recording
	if l := c.expect(`DEBUG noise`); l != "DEBUG noise" {
		t.Errorf("raw line = %q, want it verbatim", l)
	}
	c.expect(`"id":10,`, `"stopReason":"end_turn"`)
	c.expect(`"text":"late"`) // before the next request is read

	c.send(`{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"wait"}]}}`)
	c.expect(`"text":"waiting"`)
	// The recording was cancelled here: the replay waits for the cancel.
	c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	c.expect(`"status":"failed"`)
	c.expect(`"id":11,`, `"stopReason":"cancelled"`)

	// A third prompt is more than the recording has.
	c.send(`{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"more"}]}}`)
	c.expect(`"id":12,`, `"message":"replay diverged: turn 3: session/prompt: recorded 2 prompts, got prompt 3"`)
	if err := c.end(); err != nil {
		t.Errorf("Run = %v, want nil at the end of input", err)
	}
	if !strings.Contains(c.stderr.String(), "rec.jsonl: replay diverged: turn 3") {
		t.Errorf("stderr = %q, want the divergence", c.stderr.String())
	}
}

// TestRunSessionCloseNotRecorded: a session/close the recording lacks (it
// was made before acprun sent one) ends the session without a divergence;
// any other method the recording lacks diverges.
func TestRunSessionCloseNotRecorded(t *testing.T) {
	c := start(t, recorded)
	c.handshake("/live")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/close","params":{"sessionId":"s1"}}`)
	if l := c.expect(`"id":10,`); !strings.Contains(l, `"result":{}`) {
		t.Errorf("session/close answered %s; want an empty result", l)
	}
	c.send(`{"jsonrpc":"2.0","id":11,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"x"}}`)
	c.expect(`"id":11,`, `replay diverged`)
	if err := c.end(); err != nil {
		t.Errorf("Run = %v", err)
	}
	if strings.Contains(c.stderr.String(), "session/close") {
		t.Errorf("stderr = %q; want no divergence for session/close", c.stderr.String())
	}
}

func TestRunDivergedPermission(t *testing.T) {
	c := start(t, recorded)
	c.handshake("/rec")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}`)
	c.expect(`"tool_call"`)
	c.expect(`"method":"session/request_permission"`)
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"no"}}}`)
	l := c.expect(`"id":10,`, `"code":-32603`)
	var resp struct {
		Error struct {
			Message string     `json:"message"`
			Data    Divergence `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(l), &resp); err != nil {
		t.Fatal(err)
	}
	want := Divergence{Turn: 1, Request: `session/request_permission for "Edit /rec/a.txt" (tool call t1)`, Line: 8,
		Recorded: `selected "ok" (allow_once)`, Got: `selected "no" (reject_once)`}
	if resp.Error.Data != want || resp.Error.Message != DivergedPrefix+want.message() {
		t.Errorf("error = %q %+v\nwant %q %+v", resp.Error.Message, resp.Error.Data, DivergedPrefix+want.message(), want)
	}
	// The turn stopped: nothing more of it is played, not even its late
	// update.
	c.send(`{"jsonrpc":"2.0","id":11,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"x"}}`)
	c.expect(`"id":11,`, `replay diverged: session/set_mode: recorded no session/set_mode request`)
	c.end()
}

func TestRunDivergedFileRead(t *testing.T) {
	c := start(t, recorded)
	c.handshake("/rec")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}`)
	c.expect(`"tool_call"`)
	c.expect(`"method":"session/request_permission"`)
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`)
	c.expect(`"method":"fs/read_text_file"`)
	c.send(`{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"Resource not found"}}`)
	c.expect(`"id":10,`, `replay diverged: turn 1: fs/read_text_file /rec/a.txt: recorded result {\"content\":\"key=[REDACTED]\\n\"}, got error -32002 \"Resource not found\"`)
	c.end()
}

func TestRunCancelWhileWaiting(t *testing.T) {
	c := start(t, recorded)
	c.handshake("/rec")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}`)
	c.expect(`"tool_call"`)
	c.expect(`"method":"session/request_permission"`)
	c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	c.expect(`"id":10,`, `"stopReason":"cancelled"`)
	// The client's answer to the abandoned request is ignored, and the
	// late update of a turn that ended otherwise is not played.
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"cancelled"}}}`)
	c.send(`{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"wait"}]}}`)
	c.expect(`"text":"waiting"`)
	if err := c.end(); err != nil {
		t.Errorf("Run = %v", err)
	}
	if strings.Contains(c.stderr.String(), "diverged") {
		t.Errorf("stderr = %q, want no divergence", c.stderr.String())
	}
}

// TestRunCancelCause: a recorded session/cancel whose _meta says acprun
// sent it for a cause outside the scenario (an interrupt, the run's
// --timeout, --fail-fast) is a point the replay cannot play past: no
// client cancels there, so the prompt is answered at once with an error
// saying why, at the cancel's line. One the scenario's own limits sent (a
// turn timeout) is waited for, as one without a cause is. One whose cause
// acprun's model gateway found ("acprun/cancelAt": "gateway") is not
// waited for either, for the replayed agent makes no model requests: for a
// budget the turn plays on as recorded, at once, with a note at the
// cancel's line; a divergence still cuts it.
func TestRunCancelCause(t *testing.T) {
	const cancelLine = `{"t":500,"dir":"c2a","msg":{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}}`
	const playedOn = "turn 2 was cancelled for a cause acprun's model gateway found (cancelCause budget), which the replayed agent makes no model requests to meet: the replay plays on as recorded, without waiting for a cancel"
	for _, tc := range []struct {
		cause     string
		atGateway bool
		want      string // the error's message; "" when the cancel is waited for
		note      string // what stderr says of the cancel's line, for a cancel not waited for
	}{
		{cause: "interrupt", want: "replay: the recorded run was interrupted during turn 2 (cancelCause interrupt): the recording cannot be replayed past that point; " + recordAgain},
		{cause: "runTimeout", want: "replay: the recorded run's --timeout passed during turn 2 (cancelCause runTimeout): the recording cannot be replayed past that point; " + recordAgain},
		{cause: "failFast", want: "replay: the recorded run stopped for --fail-fast during turn 2 (cancelCause failFast): the recording cannot be replayed past that point; " + recordAgain},
		{cause: "divergence", want: "replay: the recorded agent's model request matched none of the gateway's cassette during turn 2 (cancelCause divergence): the recording cannot be replayed past that point; " + recordAgain},
		{cause: "divergence", atGateway: true, want: "replay: the recorded agent's model request matched none of the gateway's cassette during turn 2 (cancelCause divergence): the recording cannot be replayed past that point; " + recordAgain},
		{cause: "turnTimeout"},
		{cause: "budget"},
		{cause: "budget", atGateway: true, note: playedOn},
	} {
		name := tc.cause
		meta := `"acprun/cancelCause":"` + tc.cause + `"`
		if tc.atGateway {
			name += " at the gateway"
			meta = `"acprun/cancelAt":"gateway",` + meta
		}
		t.Run(name, func(t *testing.T) {
			line := strings.Replace(cancelLine, `"sessionId":"s1"`, `"sessionId":"s1","_meta":{`+meta+`}`, 1)
			c := start(t, strings.Replace(recorded, cancelLine, line, 1))
			c.handshake("/rec")
			c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}`)
			c.expect(`"tool_call"`)
			c.expect(`"method":"session/request_permission"`)
			c.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`)
			c.expect(`"method":"fs/read_text_file"`)
			c.send(`{"jsonrpc":"2.0","id":2,"result":{"content":"key=hunter2\n"}}`)
			c.expect(`DEBUG noise`)
			c.expect(`"id":10,`, `"stopReason":"end_turn"`)
			c.expect(`"text":"late"`)
			c.send(`{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"wait"}]}}`)
			c.expect(`"text":"waiting"`)
			switch {
			case tc.note != "":
				// No cancel from the client: the rest of the turn is
				// played as recorded all the same.
				c.expect(`"status":"failed"`)
				c.expect(`"id":11,`, `"result":{"stopReason":"cancelled"}`)
			case tc.want == "":
				c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
				c.expect(`"status":"failed"`)
				c.expect(`"id":11,`, `"stopReason":"cancelled"`)
			default:
				// No cancel from the client: what the recorded agent sent
				// after the cancel is not played either.
				l := c.expect(`"id":11,`)
				var resp struct {
					Error *struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(l), &resp); err != nil {
					t.Fatal(err)
				}
				if resp.Error == nil || resp.Error.Code != -32603 || resp.Error.Message != tc.want {
					t.Errorf("prompt answered %s\nwant error -32603 %q", l, tc.want)
				}
			}
			if err := c.end(); err != nil {
				t.Errorf("Run = %v", err)
			}
			wantStderr := ""
			if note := tc.want + tc.note; note != "" { // (one of them at most)
				wantStderr = "acprun replay: rec.jsonl:17: " + note + "\n"
			}
			if got := c.stderr.String(); got != wantStderr {
				t.Errorf("stderr = %q, want %q", got, wantStderr)
			}
		})
	}
}

func TestRunPromptDiverged(t *testing.T) {
	c := start(t, recorded)
	c.handshake("/rec")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix that"}]}}`)
	c.expect(`"id":10,`, `replay diverged: turn 1: session/prompt: recorded \"fix it\", got \"fix that\"`)
	c.end()
}

// TestRunRedactedHidesNoChange: a recorded [REDACTED] (an agent.env value
// such as SUITE=kestrel) matches a secret the replaying run redacts, of
// another value too (its own token), and no other text: a changed prompt
// or answer around it diverges.
func TestRunRedactedHidesNoChange(t *testing.T) {
	tr := strings.Replace(recorded, `"text":"fix it"`, `"text":"Run the [REDACTED] suite"`, 1)
	prompt := func(text string) string {
		return `{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"` + text + `"}]}}`
	}
	red := redact.New("kestrel", "ghp_ReplayingMachine4567")
	for _, text := range []string{"Run the migration that drops every table, then the kestrel suite", "Run the frobnicate suite", "Delete everything"} {
		c := startWith(t, tr, Options{Redact: red})
		c.handshake("/rec")
		c.send(prompt(text))
		c.expect(`"id":10,`, `replay diverged: turn 1: session/prompt: recorded \"Run the [REDACTED] suite\", got \"`)
		c.end()
	}
	c := startWith(t, tr, Options{Redact: red})
	c.handshake("/rec")
	c.send(prompt("Run the kestrel suite"))
	c.expect(`"tool_call"`)
	c.expect(`"method":"session/request_permission"`)
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`)
	c.expect(`"method":"fs/read_text_file"`)
	c.send(`{"jsonrpc":"2.0","id":2,"result":{"content":"key=hunter2\n"}}`) // not a secret here
	c.expect(`"id":10,`, `replay diverged: turn 1: fs/read_text_file /rec/a.txt: recorded result {\"content\":\"key=[REDACTED]\\n\"}, got result {\"content\":\"key=hunter2\\n\"}`)
	c.end()

	c = startWith(t, tr, Options{Redact: red})
	c.handshake("/rec")
	c.send(prompt("Run the kestrel suite"))
	c.expect(`"tool_call"`)
	c.expect(`"method":"session/request_permission"`)
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`)
	c.expect(`"method":"fs/read_text_file"`)
	c.send(`{"jsonrpc":"2.0","id":2,"result":{"content":"key=ghp_ReplayingMachine4567\n"}}`) // another value of the secret
	c.expect(`DEBUG noise`)
	c.expect(`"id":10,`, `"stopReason":"end_turn"`)
	c.end()
}

// TestRunTruncated: a transcript whose last line is cut short (the
// recorder was killed) does not say that the agent went: the prompt it
// ends in is answered with an error saying the recording ends there.
func TestRunTruncated(t *testing.T) {
	lines := strings.SplitAfter(recorded, "\n")
	c := start(t, strings.Join(lines[:7], "")+lines[7][:20]) // up to the first update of turn 1, and half a line
	c.handshake("/rec")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}`)
	c.expect(`"tool_call"`)
	c.expect(`"id":10,`, `replay: the recording ends before the agent answered session/prompt (turn 1): the transcript stops at line 8`)
	c.end()
}

func TestParseErrors(t *testing.T) {
	init := `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}` + "\n"
	newSession := `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/x"}}}` + "\n"
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "t.jsonl: the transcript is empty"},
		{"not json", "hello\n", "t.jsonl:1:1: not a JSON object"},
		{"not json after spaces", init + "   [1]\n", "t.jsonl:2:4: not a JSON object"},
		{"bad json", init + `{"t":1,"dir":"a2c","msg":{"id":}}` + "\n", "t.jsonl:2:32: not a JSON object: invalid character '}'"},
		{"bad t", `{"t":"x","dir":"a2c","raw":"x"}` + "\n", `t.jsonl:1:6: "t" is a JSON string`},
		{"no dir", `{"t":1,"raw":"x"}` + "\n", `t.jsonl:1:1: no "dir"`},
		{"lines dropped", init + `{"t":1,"dropped":3}` + "\n", "t.jsonl:2:1: 3 lines were dropped here, the transcript's reader not keeping up: it cannot be played"},
		{"bad dir", `{"t":1,"dir":"up","raw":"x"}` + "\n", `t.jsonl:1:14: "dir" is "up"`},
		{"bad dir named in capitals", `{"t":1,"Dir":"up","raw":"x"}` + "\n", `t.jsonl:1:14: "dir" is "up"`},
		{"bad dir after a raw naming it", `{"t":1,"raw":"\"dir\": 1","dir":"up"}` + "\n", `t.jsonl:1:33: "dir" is "up"`},
		{"t below 0", `{"t":-5,"dir":"a2c","raw":"x"}` + "\n", `t.jsonl:1:6: "t" is -5: want the milliseconds since the recording began, from 0 to 9223372036854`},
		{"t past a wait's milliseconds", `{"t":9223372036855,"dir":"a2c","raw":"x"}` + "\n", `t.jsonl:1:6: "t" is 9223372036855: want the milliseconds`},
		{"neither", `{"t":1,"dir":"a2c"}` + "\n", `t.jsonl:1:1: neither "msg" nor "raw"`},
		{"msg not an object", `{"t":1,"dir":"a2c","msg":[1]}` + "\n", `t.jsonl:1:26: "msg" is not a JSON object`},
		{"no initialize", newSession, "t.jsonl: no initialize request from the client"},
		{"two sessions", init + newSession + strings.Replace(newSession, `"id":2`, `"id":3`, 1), "t.jsonl:3:59: a second session (session/new)"},
		{"a resumed session, then a new one", init + strings.Replace(newSession, `"session/new"`, `"session/load"`, 1) + strings.Replace(newSession, `"id":2`, `"id":3`, 1),
			"t.jsonl:2:59: a resumed session (session/load): replay plays a new session, which the replaying client starts with session/new, and cannot play a resumed one (session: {resume: true}, acprun run --resume); record the scenario again without resuming its session"},
		{"two sessions, method first", init + newSession + `{"t":1,"dir":"c2a","msg":{"method":"session/new","jsonrpc":"2.0","id":3,"params":{"cwd":"/x"}}}` + "\n", "t.jsonl:3:36: a second session (session/new)"},
		// The lines of a transcript pair up: played, an answer to a request
		// it lacks would answer whatever the client has pending then.
		{"agent answers a request not recorded", init + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}` + "\n",
			"t.jsonl:2:48: the agent answers id 2, but the transcript holds no unanswered request of the client with that id"},
		{"agent answers twice", init + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n" + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n",
			"t.jsonl:3:48: the agent answers id 1, but"},
		{"agent answers a string id as a number", `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":"1","method":"initialize"}}` + "\n" + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n",
			"t.jsonl:2:48: the agent answers id 1, but"},
		{"client answers a request not recorded", init + `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":7,"result":{}}}` + "\n",
			"t.jsonl:2:48: the client answers id 7, but the transcript holds no unanswered request of the agent with that id"},
		{"client reuses a pending id", init + strings.Replace(newSession, `"id":2`, `"id":1`, 1),
			"t.jsonl:2:48: the client's request reuses id 1, that of its request at line 1, not answered yet"},
		{"object id", `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}}` + "\n",
			`t.jsonl:1:48: "id" is a JSON object: a JSON-RPC id is a string or a number`},
		{"boolean id of an answer", init + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":true,"result":{}}}` + "\n",
			`t.jsonl:2:48: "id" is a JSON boolean`},
		{"array id of the agent's request", init + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"fs/read_text_file","id":[1]}}` + "\n",
			`t.jsonl:2:77: "id" is a JSON array`},
		{"null id of a request", `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":null,"method":"initialize"}}` + "\n",
			`t.jsonl:1:48: "id" is null: a JSON-RPC id is a string or a number (null only in an error response)`},
		{"null id of a result", init + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":null,"result":{}}}` + "\n",
			`t.jsonl:2:48: "id" is null`},
		{"the id found among the members of msg", init + `{"t":1,"dir":"a2c","msg":{"params":{"id":1},"jsonrpc":"2.0","id":9,"result":{}}}` + "\n",
			"t.jsonl:2:66: the agent answers id 9"},
		{"raw JSON-RPC answer", init + `{"t":1,"dir":"a2c","raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"}` + "\n",
			`t.jsonl:2:26: "raw" is a JSON object: acprun records a message under "msg"`},
		{"raw with a line break", init + `{"t":1,"dir":"a2c","raw":"banner\n{}"}` + "\n",
			`t.jsonl:2:26: "raw" holds a line break`},
		// An answer of the client removed: played, the replay would wait
		// for it, or take the next answer for it.
		{"agent's request never answered", init + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":5,"method":"session/request_permission"}}` + "\n" + newSession,
			"t.jsonl:2:48: the agent's request id 5 (session/request_permission) has no answer of the client, which went on to send session/new at line 3 (was a line removed?)"},
		{"the first of the agent's requests never answered", init + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file"}}` + "\n" +
			`{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":6,"method":"fs/write_text_file"}}` + "\n" +
			`{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":6,"result":{}}}` + "\n" + newSession,
			"t.jsonl:2:48: the agent's request id 5 (fs/read_text_file) has no answer of the client, which went on to send session/new at line 5"},
		{"a whole last line without its line break", init + `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}`,
			"t.jsonl:2:48: the agent answers id 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("t.jsonl", strings.NewReader(tt.text), nil)
			var e *srcerr.Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want an *srcerr.Error starting %q", err, tt.want)
			}
			if !strings.Contains(fmt.Sprint(err), "with acprun run --transcripts DIR") && !strings.Contains(fmt.Sprint(err), "without resuming") {
				t.Errorf("Parse = %v, want it to say how to record a transcript", err)
			}
		})
	}
}

// TestParseAcceptsARequestLeftAtTheEnd: a request of the agent that the
// client did not answer is taken when the client sent no request after
// it (the transcript ends there, the agent gone, or the answer comes
// later), or only session/close, which acprun sends to a session whose
// agent may have gone already.
func TestParseAcceptsARequestLeftAtTheEnd(t *testing.T) {
	lines := strings.SplitAfter(recorded, "\n")
	for name, text := range map[string]string{
		"the end":                  strings.Join(lines[:8], ""),
		"answered later":           strings.Join(lines[:8], "") + lines[12] + lines[13] + lines[8],
		"then session/close alone": strings.Join(lines[:8], "") + `{"t":30,"dir":"c2a","msg":{"jsonrpc":"2.0","id":9,"method":"session/close","params":{"sessionId":"s1"}}}` + "\n",
		"after a byte order mark":  "\ufeff" + strings.Join(lines[:8], ""), // as an editor may save it
	} {
		if _, err := parse("t.jsonl", strings.NewReader(text), nil); err != nil {
			t.Errorf("%s: Parse = %v", name, err)
		}
	}
}

// TestParseAcceptsWhatAnAgentMaySend: what a real agent may send that
// answers nothing is played as recorded, not refused.
func TestParseAcceptsWhatAnAgentMaySend(t *testing.T) {
	init := `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}` + "\n"
	tests := []struct{ name, line string }{
		{"an error to a request it could not read", `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}}`},
		{"an object that is not JSON-RPC", `{"t":1,"dir":"a2c","msg":{"level":"info","msg":"started"}}`},
		{"a method that is not a string", `{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"method":7}}`},
		{"garbage", `{"t":1,"dir":"a2c","raw":"{not json"}`},
		{"the client's error to a line it could not read", `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := parse("t.jsonl", strings.NewReader(init+tt.line+"\n"), nil)
			if err != nil {
				t.Fatalf("Parse = %v, want no error", err)
			}
			if got := rec.calls["initialize"][0].during; !strings.HasPrefix(tt.name, "the client's") && len(got) != 1 {
				t.Errorf("played during initialize: %d items, want the line", len(got))
			}
		})
	}
}

// TestRunInvalidRequestOfTheAgent: a request of the agent whose method is
// no method's name ("" or not a string), which the client answered
// -32600, is played as recorded, with a fresh id, and the client's answer
// is compared with that one, as any request's.
func TestRunInvalidRequestOfTheAgent(t *testing.T) {
	head, _, _ := strings.Cut(recorded, `{"t":6,`)
	transcript := head + `{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","id":7,"method":""}}
{"t":7,"dir":"a2c","msg":{"jsonrpc":"2.0","id":8,"method":5}}
{"t":8,"dir":"c2a","msg":{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request: method: empty"}}}
{"t":9,"dir":"c2a","msg":{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"invalid request: method: want a string, got number 5"}}}
{"t":10,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
`
	for _, answer := range []struct{ code, want string }{{"-32600", `"stopReason":"end_turn"`}, {"-32601", `replay diverged: turn 1: \"\": recorded error -32600`}} {
		c := start(t, transcript)
		c.handshake("/live")
		c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}`)
		c.expect(`"id":1,`, `"method":""`)
		c.expect(`"id":2,`, `"method":5`)
		c.send(`{"jsonrpc":"2.0","id":1,"error":{"code":` + answer.code + `,"message":"invalid request: method: empty"}}`)
		c.send(`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request: method: want a string, got number 5"}}`)
		c.expect(`"id":10,`, answer.want)
		if err := c.end(); err != nil && answer.code == "-32600" {
			t.Errorf("Run = %v, want nil at the end of input", err)
		}
	}
}

// TestParseErrorSnippet: the snippet of a transcript's error shows its
// line around the column, however long the line, the caret under the
// character it is about, every byte that is no character counted as one
// column and shown escaped (\xff).
func TestParseErrorSnippet(t *testing.T) {
	long := strings.Repeat("x", 10000)
	tests := []struct {
		name, text, want string
	}{
		{"far in a long line", `{"t":1,"raw":"` + long + `","dir":"up"}`,
			"    1 | …" + long[:67] + `","dir":"up"}` + "\n" +
				"      | " + strings.Repeat(" ", 76) + "^\n"},
		{"after bytes that are no character", "{\"t\":1,\"raw\":\"\xff\xfe\",\"dir\":\"up\"}",
			"    1 | {\"t\":1,\"raw\":\"\\xff\\xfe\",\"dir\":\"up\"}\n" +
				"      | " + strings.Repeat(" ", 30) + "^\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("t.jsonl", strings.NewReader(tt.text+"\n"), nil)
			e, ok := errors.AsType[*srcerr.Error](err)
			if !ok || !strings.Contains(e.Msg, `"dir" is "up"`) {
				t.Fatalf("Parse = %v, want the bad dir", err)
			}
			if diff := cmp.Diff(tt.want, e.Snippet()); diff != "" {
				t.Errorf("Snippet (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCutLastLine(t *testing.T) {
	lines := strings.SplitAfter(recorded, "\n")
	text := strings.Join(lines[:5], "") + lines[5][:20]
	rec, err := parse("t.jsonl", strings.NewReader(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Notes) != 1 || !strings.HasPrefix(rec.Notes[0], "t.jsonl:6: the last line is cut short") {
		t.Errorf("notes = %q", rec.Notes)
	}
	if len(rec.prompts) != 0 || len(rec.calls["session/new"]) != 1 || len(rec.prelude) != 1 {
		t.Errorf("recording = %+v, want the handshake and no prompt", rec)
	}
	// A bad line that is not the last one is an error.
	if _, err := parse("t.jsonl", strings.NewReader(lines[5][:20]+"\n"+lines[1]), nil); err == nil {
		t.Error("a cut line in the middle was accepted")
	}
}

func TestParseShape(t *testing.T) {
	rec, err := parse("t.jsonl", strings.NewReader(recorded), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.cwd != "/rec" || len(rec.prompts) != 2 {
		t.Fatalf("cwd %q, %d prompts", rec.cwd, len(rec.prompts))
	}
	kinds := func(items []*item) []itemKind {
		var ks []itemKind
		for _, it := range items {
			ks = append(ks, it.kind)
		}
		return ks
	}
	p1, p2 := rec.prompts[0], rec.prompts[1]
	if got, want := kinds(p1.during), []itemKind{itemMessage, itemRequest, itemAwait, itemRequest, itemAwait, itemRaw}; !equalKinds(got, want) {
		t.Errorf("turn 1 = %v, want %v", got, want)
	}
	if p1.during[1].answer == nil || p1.during[1].answer.line != 9 || len(p1.after) != 1 || p1.answer.line != 13 {
		t.Errorf("turn 1 answers wrong: %+v", p1)
	}
	if got, want := kinds(p2.during), []itemKind{itemMessage, itemCancel, itemMessage}; !equalKinds(got, want) {
		t.Errorf("turn 2 = %v, want %v", got, want)
	}
}

func equalKinds(a, b []itemKind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSameJSON(t *testing.T) {
	red := redact.New("s3cr3t", "kestrel")
	tests := []struct {
		rec, got string
		want     bool
	}{
		{`{"a":1,"b":[true,null]}`, `{"b":[true,null],"a":1.0}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"content":"key=[REDACTED] end"}`, `{"content":"key=s3cr3t end"}`, true},
		{`{"content":"key=[REDACTED] end"}`, `{"content":"other"}`, false},
		// A marker matches a secret, redacted on both sides, and no other text.
		{`{"content":"key=[REDACTED] end"}`, `{"content":"key=hunter2 end"}`, false},
		{`{"text":"Run the [REDACTED] suite"}`, `{"text":"Run the migration that drops every table, then the kestrel suite"}`, false},
		{`{"text":"Run the [REDACTED] suite"}`, `{"text":"Run the frobnicate suite"}`, false},
		{`{"text":"Run the [REDACTED] suite"}`, `{"text":"Run the kestrel suite"}`, true},
		// A value that is a secret only where it replays is redacted in the recording too.
		{`{"text":"Run the kestrel suite"}`, `{"text":"Run the kestrel suite"}`, true},
		{`"a.b"`, `"aXb"`, false},
	}
	for _, tt := range tests {
		if got := sameJSON(red, json.RawMessage(tt.rec), json.RawMessage(tt.got)); got != tt.want {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", tt.rec, tt.got, got, tt.want)
		}
	}
}

func TestRewriterTerminals(t *testing.T) {
	var rw rewriter
	rw.mapTerminal("term-1", "term-7")
	if got := string(rw.out(json.RawMessage(`{"terminalId":"term-1","other":"term-1"}`))); got != `{"other":"term-1","terminalId":"term-7"}` {
		t.Errorf("out = %s", got)
	}
	if got := string(rw.in(json.RawMessage(`{"terminalId":"term-7"}`))); got != `{"terminalId":"term-1"}` {
		t.Errorf("in = %s", got)
	}
}

// TestRunTiming: with Timing, a message recorded 300ms after its prompt is
// not sent sooner (only this lower bound is checked: a slow machine may
// send it later).
func TestRunTiming(t *testing.T) {
	c := startWith(t, recorded, Options{Timing: true, Redact: redact.New("hunter2")})
	c.handshake("/rec")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix it"}]}}`)
	c.expect(`"tool_call"`)
	c.expect(`"method":"session/request_permission"`)
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`)
	c.expect(`"method":"fs/read_text_file"`)
	c.send(`{"jsonrpc":"2.0","id":2,"result":{"content":"key=hunter2\n"}}`)
	c.expect(`DEBUG noise`)
	c.expect(`"stopReason":"end_turn"`)
	c.expect(`"text":"late"`)
	start := time.Now()
	c.send(`{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"wait"}]}}`)
	c.expect(`"text":"waiting"`)
	c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	c.expect(`"status":"failed"`) // recorded 481ms after the prompt
	if d := time.Since(start); d < 481*time.Millisecond {
		t.Errorf("the update recorded 481ms after the prompt came after %v", d)
	}
	c.expect(`"stopReason":"cancelled"`)
	c.end()
}

// TestRunStopsWithItsContext: when ctx ends, Run returns its cause at once,
// even while it waits for the client, and writes nothing more.
func TestRunStopsWithItsContext(t *testing.T) {
	rec, err := parse("rec.jsonl", strings.NewReader(recorded), nil)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, rec, inR, outW, io.Discard, Options{}); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Scan() // the banner
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n")
	lines.Scan()
	stop := errors.New("stop")
	cancel(stop)
	if err := <-done; !errors.Is(err, stop) {
		t.Errorf("Run = %v, want the context's cause", err)
	}
	if lines.Scan() {
		t.Errorf("wrote %s after its context ended", lines.Text())
	}
	if _, err := io.WriteString(inW, "x\n"); err == nil {
		t.Error("stdin still read after Run returned")
	}
}

// TestRunRequestsInFlightTogether: requests the recorded agent made before
// any answer came go out together; each answer is awaited where the
// recording has it.
func TestRunRequestsInFlightTogether(t *testing.T) {
	lines := strings.SplitAfter(recorded, "\n")
	both := strings.Join(lines[:5], "") +
		`{"t":5,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"two"}]}}}
{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/rec/a"}}}
{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/rec/b"}}}
{"t":7,"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"result":{"content":"B"}}}
{"t":7,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"result":{"content":"A"}}}
{"t":8,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
`
	c := start(t, both)
	c.handshake("/rec")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"two"}]}}`)
	c.expect(`"id":1,`, `"path":"/rec/a"`)
	c.expect(`"id":2,`, `"path":"/rec/b"`)
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"content":"A"}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"result":{"content":"B"}}`)
	c.expect(`"id":10,`, `"stopReason":"end_turn"`)
	c.end()
}

// TestRunAnswerAndCancelInTheirOrder: when the client's answer to a
// recorded request and its session/cancel have both come before the replay
// looks for the answer, the one the client sent first decides, every time:
// an answer sent first is compared (and diverges), a cancel sent first ends
// the turn cancelled. The replay is held in the write of the line before
// the answer while both are read.
func TestRunAnswerAndCancelInTheirOrder(t *testing.T) {
	lines := strings.SplitAfter(recorded, "\n")
	transcript := strings.Join(lines[:5], "") +
		`{"t":5,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}}
{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"Edit"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}}
{"t":7,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"asked"}}}}}
{"t":8,"dir":"c2a","msg":{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}}
{"t":9,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
`
	rec, err := parse("rec.jsonl", strings.NewReader(transcript), nil)
	if err != nil {
		t.Fatal(err)
	}
	const (
		reject = `{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"no"}}}`
		cancel = `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`
		// A notification the replay ignores: once its write returns, the
		// lines before it have been handled (an io.Pipe write returns when
		// it is read, and the replay reads a line only after handling the
		// one before).
		noop = `{"jsonrpc":"2.0","method":"x/noop"}`
	)
	tests := []struct {
		name  string
		sends []string
		want  string
	}{
		{"answer first", []string{reject, cancel}, `replay diverged: turn 1: session/request_permission for \"Edit\" (tool call t1): recorded selected \"ok\" (allow_once), got selected \"no\" (reject_once)`},
		{"cancel first", []string{cancel, reject}, `"result":{"stopReason":"cancelled"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 { // a random choice would fail one of these
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				hold := &holdWriter{w: outW, at: `"asked"`, held: make(chan struct{}), release: make(chan struct{})}
				done := make(chan error, 1)
				go func() { done <- Run(context.Background(), rec, inR, hold, io.Discard, Options{}); outW.Close() }()
				out := bufio.NewScanner(outR)
				send := func(line string) {
					if _, err := io.WriteString(inW, line+"\n"); err != nil {
						t.Fatal(err)
					}
				}
				next := func() string {
					if !out.Scan() {
						t.Fatal("the replay's output ended")
					}
					return out.Text()
				}
				next() // the banner
				send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
				next()
				send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/rec","mcpServers":[]}}`)
				next()
				send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
				if l := next(); !strings.Contains(l, "session/request_permission") {
					t.Fatalf("got %s, want the permission request", l)
				}
				<-hold.held // writing the update, before it looks for the answer
				for _, l := range tt.sends {
					send(l)
				}
				send(noop)
				close(hold.release)
				if l := next(); !strings.Contains(l, `"asked"`) {
					t.Fatalf("got %s, want the update", l)
				}
				if l := next(); !strings.Contains(l, `"id":3,`) || !strings.Contains(l, tt.want) {
					t.Fatalf("the prompt's answer is %s, want it to hold %s", l, tt.want)
				}
				inW.Close()
				for out.Scan() {
				}
				if err := <-done; err != nil {
					t.Fatalf("Run = %v", err)
				}
			}
		})
	}
}

// TestRunDivergedAfterTheAnswer: a divergence in what the agent sent
// after answering (the client's answer to its request came after the
// prompt's) has no request to answer: it is reported on stderr.
func TestRunDivergedAfterTheAnswer(t *testing.T) {
	lines := strings.SplitAfter(recorded, "\n")
	c := start(t, strings.Join(lines[:5], "")+
		`{"t":5,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}}
{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/rec/a"}}}
{"t":7,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
{"t":8,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"result":{"content":"A"}}}
`)
	c.handshake("/rec")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
	c.expect(`"method":"fs/read_text_file"`)
	c.expect(`"id":10,`, `"stopReason":"end_turn"`)
	c.send(`{"jsonrpc":"2.0","id":1,"result":{"content":"B"}}`)
	if err := c.end(); err != nil {
		t.Errorf("Run = %v", err)
	}
	want := `acprun replay: rec.jsonl:7: replay diverged: turn 1: fs/read_text_file /rec/a: recorded result {"content":"A"}, got result {"content":"B"}`
	if !strings.Contains(c.stderr.String(), want) {
		t.Errorf("stderr = %q, want %q", c.stderr.String(), want)
	}
}

// holdWriter writes to w; the write of a line holding at waits, once, for
// release, after closing held.
type holdWriter struct {
	w             io.Writer
	at            string
	held, release chan struct{}
	once          bool
}

func (h *holdWriter) Write(b []byte) (int, error) {
	if !h.once && strings.Contains(string(b), h.at) {
		h.once = true
		close(h.held)
		<-h.release
	}
	return h.w.Write(b)
}

func TestWithoutURIs(t *testing.T) {
	rec := `[{"type":"text","text":"see"},{"type":"resource","resource":{"uri":"file:///home/me/NOTES.md","text":"notes"}}]`
	moved := `[{"type":"text","text":"see"},{"type":"resource","resource":{"uri":"file:///ci/NOTES.md","text":"notes"}}]`
	changed := `[{"type":"text","text":"see"},{"type":"resource","resource":{"uri":"file:///ci/NOTES.md","text":"other"}}]`
	if !sameJSON(nil, withoutURIs(json.RawMessage(rec)), withoutURIs(json.RawMessage(moved))) {
		t.Error("a moved attachment with the same content diverged")
	}
	if sameJSON(nil, withoutURIs(json.RawMessage(rec)), withoutURIs(json.RawMessage(changed))) {
		t.Error("an attachment with other content matched")
	}
}

// TestWalk: every message, both ways, in the recorded order with its line;
// raw lines are not messages. A transcript Load refuses, Walk refuses
// with the same error.
func TestWalk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte(recorded), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	if _, err := Walk(path, func(m Message) {
		var w wire
		if err := json.Unmarshal(m.Msg, &w); err != nil {
			t.Fatalf("line %d: %v", m.Line, err)
		}
		got = append(got, fmt.Sprintf("%d %v %s%s", m.Line, m.FromAgent, w.name(), string(w.ID)))
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"2 false initialize1", "3 true 1", "4 false session/new2", "5 true 2", "6 false session/prompt3",
		"7 true session/update", "8 true session/request_permission7", "9 false 7", "10 true fs/read_text_file8", "11 false 8",
		"13 true 3", "14 true session/update", "15 false session/prompt4", "16 true session/update", "17 false session/cancel",
		"18 true session/update", "19 true 4"}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%q\nwant\n%q", got, want)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"t":1,"dir":"up","raw":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{bad, filepath.Join(dir, "missing.jsonl"), dir} {
		_, lerr := Load(p)
		_, werr := Walk(p, func(Message) {})
		if lerr == nil || fmt.Sprint(werr) != fmt.Sprint(lerr) {
			t.Errorf("%s: Walk = %v, want Load's %v", p, werr, lerr)
		}
	}
}

func TestCountPrompts(t *testing.T) {
	for n, want := range map[int]string{0: "0 prompts", 1: "1 prompt", 2: "2 prompts"} {
		if got := countPrompts(n); got != want {
			t.Errorf("countPrompts(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestProblem: Problem says a Load error without the transcript's name,
// with the line and column of a line's: what a scenario that plays the
// transcript says after naming it.
func TestProblem(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"bad.jsonl":   `{"t":1,"dir":"up","raw":"x"}` + "\n",
		"empty.jsonl": "",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ file, want string }{
		{"bad.jsonl", `line 1, column 14: "dir" is "up": want "c2a" (client to agent) or "a2c" (agent to client); record it again with acprun run --transcripts DIR`},
		{"empty.jsonl", "the transcript is empty; record it again with acprun run --transcripts DIR"},
		{"missing.jsonl", "no such file or directory (a transcript is written per scenario by acprun run --transcripts DIR)"},
	} {
		path := filepath.Join(dir, tt.file)
		_, err := Load(path)
		if got := Problem(err); got != tt.want {
			t.Errorf("%s: Problem = %q, want %q", tt.file, got, tt.want)
		}
		if !strings.HasSuffix(fmt.Sprint(err), ": "+strings.TrimPrefix(tt.want, "line 1, column 14: ")) {
			t.Errorf("%s: Load = %v, want the same message after the place", tt.file, err)
		}
	}
	if got := Problem(errors.New("plain")); got != "plain" {
		t.Errorf("Problem of another error = %q", got)
	}
}

// endless is a line that never ends: 'a' forever, counting what was read.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n += len(p)
	return len(p), nil
}

// TestParseEndlessLine: a transcript whose line never ends is refused
// once it is longer than a line acprun records, having read little more:
// it does not fill the memory.
func TestParseEndlessLine(t *testing.T) {
	init := `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}` + "\n"
	e := &endless{}
	_, err := parse("t.jsonl", io.MultiReader(strings.NewReader(init), e), nil)
	if want := "t.jsonl:2: the line is longer than 64 MiB"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Parse = %v, want an error starting %q", err, want)
	}
	if e.n > maxLineBytes+1<<20 {
		t.Errorf("read %d bytes of the endless line, want at most %d", e.n, maxLineBytes+1<<20)
	}
}

// TestRedactorOf: a replay redacts with the secrets acprun handed it, or,
// started by hand, with those of the secret-looking variables of its
// environment.
func TestRedactorOf(t *testing.T) {
	handed := RedactorOf([]string{"API_TOKEN=ghp_Other0123456", SecretsEnv(redact.New("kestrel", "line one\nline two"))})
	if got := handed.String("the kestrel of line two, ghp_Other0123456"); got != "the [REDACTED] of [REDACTED], ghp_Other0123456" {
		t.Errorf("handed secrets: %q", got)
	}
	own := RedactorOf([]string{"API_TOKEN=ghp_Other0123456", "SUITE=kestrel"})
	if got := own.String("the kestrel of ghp_Other0123456"); got != "the kestrel of [REDACTED]" {
		t.Errorf("by hand: %q", got)
	}
}
