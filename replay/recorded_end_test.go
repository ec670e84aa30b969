package replay

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// head is the handshake of the transcripts below: initialize and
// session/new in /rec.
var head = strings.Join(strings.SplitAfter(recorded, "\n")[1:5], "")

// handshakeNoBanner is client.handshake for a transcript without the banner.
func (c *client) handshakeNoBanner() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":1}}`)
	c.expect(`"id":"a"`)
	c.send(`{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"/rec","mcpServers":[]}}`)
	c.expect(`"id":"b"`, `"sessionId":"s1"`)
}

// timedOut is a turn the scenario's turnTimeout cancelled 700ms into it:
// updates 0, 200, 400 and 600ms after the prompt.
func timedOut(cause string) string {
	return head + `{"t":100,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}}
{"t":100,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}}
{"t":300,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"b"}}}}}
{"t":500,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"c"}}}}}
{"t":700,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"d"}}}}}
{"t":800,"dir":"c2a","msg":{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1","_meta":{"acprun/cancelCause":"` + cause + `"}}}}
{"t":801,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}}
`
}

// TestRunPacesADeadlineTurn: the messages of a turn that a deadline of the
// scenario cancelled (turnTimeout, scenarioTimeout, or a cancel that gives
// no cause) go out at their recorded pace, without --timing: sent at once,
// they would leave the turn silent until the deadline, and a shorter
// idleTimeout would cancel it first, for another cause. A turn an
// idleTimeout or a budget cancelled plays at once, as any other.
func TestRunPacesADeadlineTurn(t *testing.T) {
	for _, tc := range []struct {
		cause string
		paced bool
	}{
		{"turnTimeout", true},
		{"scenarioTimeout", true},
		{"", true},
		{"idleTimeout", false},
		{"budget", false},
	} {
		t.Run(tc.cause, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr := timedOut(tc.cause)
				if tc.cause == "" {
					tr = strings.Replace(tr, `,"_meta":{"acprun/cancelCause":""}`, "", 1)
				}
				c := startWith(t, tr, Options{})
				c.handshakeNoBanner()
				start := time.Now()
				c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
				for k, text := range []string{"a", "b", "c", "d"} {
					c.expect(`"text":"` + text + `"`)
					want := time.Duration(0)
					if tc.paced {
						want = time.Duration(k) * 200 * time.Millisecond
					}
					if got := time.Since(start); got != want {
						t.Errorf("update %q sent %v after the prompt, want %v", text, got, want)
					}
				}
				c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
				c.expect(`"id":10,`, `"stopReason":"cancelled"`)
				if err := c.end(); err != nil {
					t.Errorf("Run = %v", err)
				}
			})
		})
	}
}

// TestRunPacesAllForAScenarioTimeout: a recording whose scenario timeout
// cancelled a turn is played at its recorded pace throughout, turns
// before that one too: the scenario's timeout counts them.
func TestRunPacesAllForAScenarioTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := head + `{"t":10,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"one"}]}}}
{"t":310,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}}
{"t":310,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
` + strings.Join(strings.SplitAfter(timedOut("scenarioTimeout"), "\n")[4:], "")
		tr = strings.Replace(tr, `"id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}`, `"id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}`, 1)
		tr = strings.Replace(tr, `"id":3,"result":{"stopReason":"cancelled"}`, `"id":4,"result":{"stopReason":"cancelled"}`, 1)
		c := startWith(t, tr, Options{})
		c.handshakeNoBanner()
		start := time.Now()
		c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"one"}]}}`)
		c.expect(`"text":"x"`)
		if got := time.Since(start); got != 300*time.Millisecond {
			t.Errorf("turn 1's update sent %v after its prompt, want 300ms", got)
		}
		c.expect(`"id":10,`, `"end_turn"`)
		c.send(`{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
		c.expect(`"text":"a"`)
		c.expect(`"text":"b"`)
		c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
		c.expect(`"id":11,`, `"stopReason":"cancelled"`)
		c.end()
	})
}

// TestRunEndsWhereTheAgentDid: a recording that ends in a turn, the
// prompt unanswered and not cancelled (the recorded agent exited, or
// closed its output, there), plays that turn's messages, then ends as the
// agent did: Run returns ErrRecordingEnded (acprun replay exits), the
// prompt unanswered, with a line on stderr; a later prompt is not played.
func TestRunEndsWhereTheAgentDid(t *testing.T) {
	tr := head + `{"t":10,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}}
{"t":11,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"working"}}}}}
`
	c := startWith(t, tr, Options{})
	c.handshakeNoBanner()
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
	c.expect(`"text":"working"`)
	select {
	case l, ok := <-c.lines:
		if ok {
			t.Errorf("the replay sent %s, want its output to end", l)
		}
	case <-time.After(10 * time.Second): // a guard against a hang
		t.Fatal("the replay's output did not end")
	}
	if err := <-c.done; !errors.Is(err, ErrRecordingEnded) {
		t.Errorf("Run = %v, want ErrRecordingEnded", err)
	}
	want := "acprun replay: rec.jsonl:5: the recording ends in turn 1, session/prompt not answered nor cancelled: the recorded agent exited (or closed its output) there, and so does the replay\n"
	if got := c.stderr.String(); got != want {
		t.Errorf("stderr = %q\nwant    %q", got, want)
	}
}

// setupCancelled is a recording whose session/new acprun cancelled with
// $/cancel_request at its setup timeout, which the agent then answered.
const setupCancelled = `{"t":0,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}}
{"t":2,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"rec"}}}}
{"t":3,"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/rec","mcpServers":[]}}}
{"t":999,"dir":"c2a","msg":{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}}
{"t":1000,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"Request cancelled"}}}
`

// TestRunSetupAnsweredAfterItsCancel: a setup request whose recorded answer
// came after acprun's $/cancel_request for it is answered only once the
// client sends its own for it (whatever its id), as a recorded
// session/cancel is waited for: the setup times out again.
func TestRunSetupAnsweredAfterItsCancel(t *testing.T) {
	synctest.Test(t, testRunSetupAnsweredAfterItsCancel)
}

func testRunSetupAnsweredAfterItsCancel(t *testing.T) {
	c := startWith(t, setupCancelled, Options{})
	c.send(`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":1}}`)
	c.expect(`"id":"a"`)
	c.send(`{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"/rec","mcpServers":[]}}`)
	// A cancel of another request, and a notification, change nothing.
	c.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"a"}}`)
	c.send(`{"jsonrpc":"2.0","method":"x/noop"}`)
	synctest.Wait() // the replay has done all it does before the cancel
	select {
	case l := <-c.lines:
		t.Fatalf("the replay sent %s before the client cancelled session/new", l)
	default:
	}
	c.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"b"}}`)
	c.expect(`"id":"b"`, `"code":-32800`, `"Request cancelled"`)
	if err := c.end(); err != nil {
		t.Errorf("Run = %v", err)
	}
}
