package replay

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
)

// TestRunPlaysOnPastAnUnrecordedCancel: a session/cancel the recording does
// not hold (the recorded acprun handled the answer before it cancelled, as
// it does for a budget passed by the last updates) does not cut what the
// recorded agent sent without waiting: that agent never saw the cancel.
// Wherever the client's cancel comes, the turn plays as recorded and ends
// with the recorded end_turn: the test holds the replay at each line in
// turn, while the client's cancel is read.
func TestRunPlaysOnPastAnUnrecordedCancel(t *testing.T) {
	transcript := head + `{"t":100,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"one"}]}}}
{"t":101,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":5,"currency":"USD"}}}}}
{"t":101,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"one more"}}}}}
{"t":101,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" and another"}}}}}
{"t":101,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
`
	rec, err := parse("rec.jsonl", strings.NewReader(transcript), nil)
	if err != nil {
		t.Fatal(err)
	}
	const (
		cancel = `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1","_meta":{"acprun/cancelCause":"budget"}}}`
		noop   = `{"jsonrpc":"2.0","method":"x/noop"}` // see TestRunAnswerAndCancelInTheirOrder
	)
	want := []string{`"usage_update"`, `"one more"`, `" and another"`, `"stopReason":"end_turn"`}
	for _, at := range want[:3] {
		t.Run(at, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			hold := &holdWriter{w: outW, at: at, held: make(chan struct{}), release: make(chan struct{})}
			stderr := &strings.Builder{}
			done := make(chan error, 1)
			go func() { done <- Run(context.Background(), rec, inR, hold, stderr, Options{}); outW.Close() }()
			out := bufio.NewScanner(outR)
			send := func(line string) {
				if _, err := io.WriteString(inW, line+"\n"); err != nil {
					t.Error(err)
				}
			}
			next := func() string {
				if !out.Scan() {
					t.Fatal("the replay's output ended")
				}
				return out.Text()
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
			next()
			send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/rec","mcpServers":[]}}`)
			next()
			send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"one"}]}}`)
			go func() {
				<-hold.held // writing that line: the cancel is read before it goes on
				send(cancel)
				send(noop)
				close(hold.release)
			}()
			for _, w := range want {
				if l := next(); !strings.Contains(l, w) {
					t.Fatalf("got %s, want it to hold %s", l, w)
				}
			}
			inW.Close()
			for out.Scan() {
			}
			if err := <-done; err != nil {
				t.Fatalf("Run = %v", err)
			}
			if s := stderr.String(); s != "" {
				t.Errorf("stderr = %q, want nothing", s)
			}
		})
	}
}
