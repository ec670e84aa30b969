package acp

import (
	"strings"
	"testing"
)

// TestByteOrderMarkIgnored: a message whose line starts with a UTF-8 byte
// order mark (as some runtimes write before their first output) is taken
// as the message, and the mark is reported as a protocol violation.
func TestByteOrderMarkIgnored(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	viol := make(chan Violation, 2)
	c, p := newRawPeer(t, nil, &Options{OnViolation: func(v Violation) { viol <- v }})
	call := c.Call(ctx, "initialize", nil)
	p.recv()
	p.send("\uFEFF" + `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`)
	var res struct{ ProtocolVersion int }
	if err := call.Await(ctx, &res); err != nil || res.ProtocolVersion != 1 {
		t.Fatalf("Await = %+v, %v; want protocolVersion 1", res, err)
	}
	const want = "a byte order mark (U+FEFF) before the message, which JSON does not allow; ignored: "
	if v := recvFrom(t, viol, "the violation"); !strings.HasPrefix(v.Msg, want) {
		t.Errorf("Violation.Msg = %q; want it to start with %q", v.Msg, want)
	}
}
