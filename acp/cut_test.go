package acp

import (
	"strconv"
	"strings"
	"testing"
)

// TestViolationText: a violation's message quotes the start of the line
// as the caller's function returns it, told whether the line was cut
// there, so that a caller that knows secrets can redact a cut through
// one; Msg is that message with the line as it is.
func TestViolationText(t *testing.T) {
	long := strings.Repeat("garbage ", 125)
	for _, tc := range []struct {
		line string
		cut  bool
		want string
	}{
		{"hello world", false, `not a JSON object: "<hello world>" (11 bytes)`},
		{long, true, `not a JSON object: "<` + long[:200] + `>"… (1000 bytes)`},
	} {
		checkLeaks(t)
		notes := make(chan *Request, 2)
		viol := make(chan Violation, 2)
		_, p := newRawPeer(t, recvNotifications(notes), &Options{OnViolation: func(v Violation) { viol <- v }})
		p.send(tc.line, `{"jsonrpc":"2.0","method":"after"}`)
		recvFrom(t, notes, "the next notification")
		v := <-viol
		var gotCut bool
		got := v.Text(func(line string, cut bool) string { gotCut = cut; return "<" + line + ">" })
		if !strings.Contains(got, tc.want) || gotCut != tc.cut {
			t.Errorf("Text = %q (cut %v); want it to contain %q (cut %v)", got, gotCut, tc.want, tc.cut)
		}
		if v.Msg != v.Text(nil) {
			t.Errorf("Msg = %q; want Text(nil) = %q", v.Msg, v.Text(nil))
		}
	}
}

// TestValuesQuotedWhole: an error quotes a value the peer sent only
// whole, never cut: a cut through a secret would show its start, which
// no redaction downstream can find. A long value is named by its kind and
// size.
func TestValuesQuotedWhole(t *testing.T) {
	secret := "sk-proj-" + strings.Repeat("Q3vZp9Lm", 10)
	if got := describe([]byte(strconv.Quote(secret))); strings.Contains(got, "sk-proj") || !strings.Contains(got, "string of 88 bytes") {
		t.Errorf("describe(a long string) = %q; want its kind and size, no part of it", got)
	}
	if got := describe([]byte(`"1.0"`)); got != `string "1.0"` {
		t.Errorf(`describe("1.0") = %q; want string "1.0"`, got)
	}
	var id ID
	err := id.UnmarshalJSON([]byte(`{"token":"` + secret + `"}`))
	if err == nil || strings.Contains(err.Error(), "sk-proj") {
		t.Errorf("UnmarshalJSON(an object holding a secret) = %v; want an error with no part of it", err)
	}
}
