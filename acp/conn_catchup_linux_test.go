package acp

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
)

// TestCatchUpReadsThePipe: the peer writes a flood of notifications, then
// the answer to our call, and only then (as an agent that answers its
// prompt, then asks its model) does something that makes us call CatchUp.
// By the time its write returns, the answer is still in the pipe, behind
// what the Conn has read; CatchUp reads it, and every line before it, and
// returns once they are handled: the call is answered. WaitHandled, which
// knows only what was read, would return with the answer unread.
func TestCatchUpReadsThePipe(t *testing.T) {
	checkLeaks(t)
	const n = 20_000
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	var handled atomic.Int64
	h := HandlerFunc(func(context.Context, *Request) (any, error) {
		handled.Add(1)
		return nil, nil
	})
	c := NewConn(pr, io.Discard, h, nil)
	defer c.Close()
	call := c.Call(testCtx(t), "ask", nil)
	var b []byte
	for i := range n {
		b = append(b, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `"}}}}`+"\n"...)
	}
	b = append(b, `{"jsonrpc":"2.0","id":`+strconv.FormatInt(call.id, 10)+`,"result":{}}`+"\n"...)
	written := make(chan error, 1)
	go func() {
		_, err := pw.Write(b) // returns once the last line is in the pipe
		written <- err
	}()
	if err := recvFrom(t, written, "the flood to be written"); err != nil {
		t.Fatal(err)
	}
	if err := c.CatchUp(testCtx(t)); err != nil {
		t.Fatalf("CatchUp: %v", err)
	}
	if !isDone(call.Done()) || handled.Load() != n {
		t.Errorf("after CatchUp: answered %v, %d notifications handled; want the answer and all %d before it", isDone(call.Done()), handled.Load(), n)
	}
}
