package replay

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRunExitsWhereTheAgentDid: a recording whose agent exited on its own
// after answering turn 1 (acprun records {"exit": {"code": 5}} as the
// transcript's last line) plays turn 1, then ends, as the recorded agent
// did, before the client's next prompt: Run returns an *AgentExit with
// the recorded code, which wraps ErrRecordingEnded.
func TestRunExitsWhereTheAgentDid(t *testing.T) {
	tr := head + `{"t":10,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}}
{"t":11,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}}
{"t":12,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
{"t":13,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}}
{"t":40,"dir":"a2c","exit":{"code":5}}
`
	c := startWith(t, tr, Options{})
	c.handshakeNoBanner()
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
	c.expect(`"text":"done"`)
	c.expect(`"id":10,`, `"stopReason":"end_turn"`)
	c.expect(`"text":"late"`)
	select {
	case l, ok := <-c.lines:
		if ok {
			t.Errorf("the replay sent %s, want its output to end", l)
		}
	case <-time.After(10 * time.Second): // a guard against a hang
		t.Fatal("the replay's output did not end")
	}
	err := <-c.done
	var ae *AgentExit
	if !errors.As(err, &ae) || ae.Code == nil || *ae.Code != 5 || !errors.Is(err, ErrRecordingEnded) {
		t.Errorf("Run = %v, want an *AgentExit with code 5, wrapping ErrRecordingEnded", err)
	}
	want := "acprun replay: rec.jsonl:9: the recorded agent exited with code 5 here, after answering the last request it got: so does the replay\n"
	if got := c.stderr.String(); got != want {
		t.Errorf("stderr = %q\nwant    %q", got, want)
	}
}

// TestRunExitCodeOfACrash: a recording that ends in a prompt the agent
// never answered, then its exit by a signal, ends there with that signal
// in Run's *AgentExit.
func TestRunExitCodeOfACrash(t *testing.T) {
	tr := head + `{"t":10,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}}
{"t":11,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"working"}}}}}
{"t":12,"dir":"a2c","exit":{"signal":"SIGSEGV"}}
`
	c := startWith(t, tr, Options{})
	c.handshakeNoBanner()
	c.send(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
	c.expect(`"text":"working"`)
	for range c.lines {
	}
	err := <-c.done
	var ae *AgentExit
	if !errors.As(err, &ae) || ae.Code != nil || ae.Signal != "SIGSEGV" {
		t.Errorf("Run = %v, want an *AgentExit by SIGSEGV", err)
	}
	if got := c.stderr.String(); !strings.Contains(got, "rec.jsonl:5: the recording ends in turn 1, session/prompt not answered nor cancelled: the recorded agent was killed by SIGSEGV there, and so does the replay") {
		t.Errorf("stderr = %q", got)
	}
}

// TestParseExitLines: the agent's exit is the transcript's last line, and
// says how it exited.
func TestParseExitLines(t *testing.T) {
	for _, tc := range []struct{ tail, want string }{
		{`{"t":40,"dir":"a2c","exit":{"code":3}}` + "\n" + `{"t":41,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"x"}}`, `rec.jsonl:6:1: a line after the recorded agent's exit at line 5`},
		{`{"t":40,"dir":"c2a","exit":{"code":3}}`, `rec.jsonl:5:15: "exit" in a line of the client's ("dir": "c2a"): the agent's exit is the agent's`},
		{`{"t":40,"dir":"a2c","exit":{"code":3},"raw":"x"}`, `rec.jsonl:5:1: both "exit" and "raw": a line holds one of them`},
	} {
		_, err := parse("rec.jsonl", strings.NewReader(head+tc.tail+"\n"), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.tail, err, tc.want)
		}
	}
}

// TestRecordingExit: Exit gives the agent's exit that the transcript's
// last line records, code or signal, with that line; nothing for a
// transcript without one.
func TestRecordingExit(t *testing.T) {
	prompt := `{"t":10,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}}
`
	for _, tt := range []struct {
		name, last string
		line       int
		code       int // -1: none
		signal     string
	}{
		{"code", `{"t":40,"dir":"a2c","exit":{"code":5}}`, 6, 5, ""},
		{"signal", `{"t":40,"dir":"a2c","exit":{"signal":"SIGSEGV"}}`, 6, -1, "SIGSEGV"},
		{"none", "", 0, -1, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := parse("t.jsonl", strings.NewReader(head+prompt+tt.last), nil)
			if err != nil {
				t.Fatal(err)
			}
			e, line := rec.Exit()
			switch {
			case tt.line == 0 && (e != nil || line != 0):
				t.Errorf("Exit() = %+v, %d; want none", e, line)
			case tt.line == 0:
			case e == nil || line != tt.line || e.Signal != tt.signal || (e.Code == nil) != (tt.code < 0) || e.Code != nil && *e.Code != tt.code:
				t.Errorf("Exit() = %+v, %d; want code %d, signal %q at line %d", e, line, tt.code, tt.signal, tt.line)
			}
		})
	}
}

// TestRunStderrEscaped: what replay says on stderr of what the client
// sent (a line that is not JSON-RPC, a method the recording lacks) has
// control characters and "##[" escaped: the client's escape sequences
// reached the terminal.
func TestRunStderrEscaped(t *testing.T) {
	c := startWith(t, head, Options{})
	c.handshakeNoBanner()
	c.send("gar\x1b[31mbage ##[error]x")
	c.send(`{"jsonrpc":"2.0","id":10,"method":"f\u001b[31moo##[error]","params":{}}`)
	c.expect(`"id":10,`, `replay diverged`)
	c.end()
	want := "acprun replay: ignoring a line from the client that is not JSON-RPC: gar\\x1b[31mbage #\\x23[error]x\n" +
		"acprun replay: rec.jsonl: replay diverged: f\\x1b[31moo#\\x23[error]: recorded no f\\x1b[31moo#\\x23[error] request, got a f\\x1b[31moo#\\x23[error] request\n"
	if got := c.stderr.String(); got != want {
		t.Errorf("stderr = %q\nwant    %q", got, want)
	}
}
