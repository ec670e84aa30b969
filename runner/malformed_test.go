package runner

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// TestMalformedRequiredFails: a permission request or a session/update
// with a malformed required field (a number for toolCallId, params that
// are not an object, a negative or missing usage_update count) is a
// protocol violation that fails the scenario, as the docs say; the
// permission request is still answered -32602, and nothing of it is
// recorded as a permission.
func TestMalformedRequiredFails(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		requests := []string{
			`{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"mock-session-1","toolCall":{"toolCallId":7,"title":"rm"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`,
			`{"jsonrpc":"2.0","id":"p2","method":"session/request_permission","params":["s1"]}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"mock-session-1","update":{"sessionUpdate":"usage_update","used":-1,"size":10}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"mock-session-1","update":{"sessionUpdate":"usage_update","size":10}}}`,
		}
		res, sent := playRequests(t, dir, requests, nil)

		want := []string{
			`session/request_permission: toolCall.toolCallId: want a string, got number 7; refused`,
			`session/request_permission: want an object, got an array; refused`,
			`session/update: update.used: want a non-negative integer, got number -1 (sessionUpdate "usage_update")`,
			`session/update: update.used: missing, and it is required (sessionUpdate "usage_update")`,
		}
		if diff := cmp.Diff(want, res.Violations); diff != "" {
			t.Errorf("violations (-want +got):\n%s", diff)
		}
		var failures []string
		for _, v := range want {
			failures = append(failures, "protocol violation: "+v)
		}
		if diff := cmp.Diff(failures, res.Failures); diff != "" {
			t.Errorf("failures (-want +got):\n%s", diff)
		}
		if res.Status != report.StatusFailed {
			t.Errorf("status %s; want failed", res.Status)
		}
		if tr := res.Turns[0]; len(tr.Permissions) != 0 || tr.Text != "done" {
			t.Errorf("permissions %+v, text %q: want none recorded, and the turn to go on", tr.Permissions, tr.Text)
		}
		for _, want := range []string{
			`{"jsonrpc":"2.0","id":"p1","error":{"code":-32602,"message":"session/request_permission: permission request: toolCall.toolCallId: want a string, got number 7"}}`,
			`{"jsonrpc":"2.0","id":"p2","error":{"code":-32602,"message":"session/request_permission: permission request: want an object, got an array"}}`,
		} {
			if !strings.Contains(sent, want) {
				t.Errorf("acprun sent:\n%s\nwant the answer %s", sent, want)
			}
		}
	})
}

// TestClientParamsNotAnObject: an fs/* request whose params are not an
// object is refused in the schema's words, not Go's.
func TestClientParamsNotAnObject(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res, sent := playRequests(t, t.TempDir(), []string{
			`{"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":"x"}`,
		}, nil)
		const msg = `invalid params: want an object, got string \"x\"`
		if want := `{"jsonrpc":"2.0","id":"r","error":{"code":-32602,"message":"` + msg + `"}}`; !strings.Contains(sent, want) {
			t.Errorf("acprun sent:\n%s\nwant the answer %s", sent, want)
		}
		if got := res.Turns[0].ClientRequests; len(got) != 1 || got[0].Refused != strings.ReplaceAll(msg, `\"`, `"`) {
			t.Errorf("client requests %+v; want one refused %s", got, msg)
		}
	})
}

// TestNotificationSentAsRequest: a session/update or an
// elicitation/complete that the agent sends with an id is answered -32601
// as before, and is a protocol violation that says so, since what it said
// is not recorded.
func TestNotificationSentAsRequest(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res, sent := playRequests(t, t.TempDir(), []string{
			`{"jsonrpc":"2.0","id":7,"method":"session/update","params":{"sessionId":"mock-session-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"lost"}}}}`,
			`{"jsonrpc":"2.0","id":"e","method":"elicitation/complete","params":{"elicitationId":"x"}}`,
		}, nil)
		want := []string{
			`request "session/update" (id 7): session/update is a notification, to be sent without an id; answered -32601, not handled`,
			`request "elicitation/complete" (id "e"): elicitation/complete is a notification, to be sent without an id; answered -32601, not handled`,
		}
		if diff := cmp.Diff(want, res.Violations); diff != "" {
			t.Errorf("violations (-want +got):\n%s", diff)
		}
		if want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found: session/update"}}`; !strings.Contains(sent, want) {
			t.Errorf("acprun sent:\n%s\nwant the answer %s", sent, want)
		}
		if res.Status != report.StatusPassed || res.Turns[0].Text != "done" {
			t.Errorf("status %s, text %q; want passed (a warning), and the turn to go on", res.Status, res.Turns[0].Text)
		}
	})
}
