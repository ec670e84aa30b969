package mockagent_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/mockagent"
)

// TestDelayAndCancelRequest: a delayed request is answered after its
// delay; $/cancel_request for it answers it -32800 at once, unless the
// script ignores it; the messages behind it are handled meanwhile.
func TestDelayAndCancelRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := runMock(t, "delay: {session/new: 10s, session/set_mode: never}\nmodes: {availableModes: [{id: ask, name: Ask}]}\n", nil)
		c.initialize()
		start := time.Now()
		sid := c.newSession("/w")
		if took := time.Since(start); took != 10*time.Second {
			t.Errorf("session/new answered after %s, want 10s", took)
		}
		ctx := t.Context()
		call := c.conn.Call(ctx, acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sid, ModeID: "ask"})
		// Behind the delayed request, another is answered.
		if _, err := c.prompt("nope", "hi"); codeOf(err) != acp.CodeResourceNotFound {
			t.Errorf("a request behind the delayed one: %v, want -32002", err)
		}
		if err := c.conn.Notify(ctx, acp.MethodCancelRequest, acp.CancelRequestNotification{RequestID: call.ID()}); err != nil {
			t.Fatal(err)
		}
		if err := call.Await(ctx, nil); codeOf(err) != acp.CodeRequestCancelled {
			t.Errorf("cancelled request: %v, want -32800", err)
		}
	})
}

func TestCancelRequestIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := runMock(t, "delay: {initialize: 1m}\nonCancelRequest: ignore\n", nil)
		ctx := t.Context()
		start := time.Now()
		call := c.conn.Call(ctx, acp.MethodInitialize, acp.InitializeRequest{ProtocolVersion: 1})
		if err := c.conn.Notify(ctx, acp.MethodCancelRequest, acp.CancelRequestNotification{RequestID: call.ID()}); err != nil {
			t.Fatal(err)
		}
		if err := call.Await(ctx, nil); err != nil || time.Since(start) != time.Minute {
			t.Errorf("initialize: %v after %s, want an answer after its delay (1m)", err, time.Since(start))
		}
	})
}

// TestAuthRequiredAlways: authRequired: always refuses sessions even
// after authenticate; true only until then.
func TestAuthRequiredAlways(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  int // session/new's error code after authenticate; 0 for none
	}{{"true", 0}, {"always", acp.CodeAuthRequired}} {
		c, _ := runMock(t, "authMethods: [{id: k, name: K}]\nauthRequired: "+tc.value+"\n", nil)
		c.initialize()
		if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, nil); codeOf(err) != acp.CodeAuthRequired {
			t.Errorf("%s: session/new before authenticate: %v, want -32000", tc.value, err)
		}
		if err := c.call(acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: "k"}, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, nil); codeOf(err) != tc.want {
			t.Errorf("%s: session/new after authenticate: %v, want code %d", tc.value, err, tc.want)
		}
	}
}

// TestAdditionalDirectories: a session takes additionalDirectories only
// when the script advertises them, absolute; showRoots says them.
func TestAdditionalDirectories(t *testing.T) {
	steps := "turns: [{steps: [{showRoots: true}]}]\n"
	c, _ := runMock(t, steps, nil)
	c.initialize()
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w", AdditionalDirectories: []string{"/d"}}, nil); codeOf(err) != acp.CodeInvalidParams {
		t.Errorf("not advertised: %v, want -32602", err)
	}
	c, _ = runMock(t, "agentCapabilities: {sessionCapabilities: {additionalDirectories: {}}}\n"+steps, nil)
	c.initialize()
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w", AdditionalDirectories: []string{"d"}}, nil); codeOf(err) != acp.CodeInvalidParams {
		t.Errorf("relative: %v, want -32602", err)
	}
	var res acp.NewSessionResponse
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w", AdditionalDirectories: []string{"/d", "/e"}}, &res); err != nil {
		t.Fatal(err)
	}
	if _, err := c.prompt(res.SessionID, "hi"); err != nil {
		t.Fatal(err)
	}
	c.waitText("roots: /w, /d, /e")
}

func TestSetupParseErrors(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"delay: {session/prompt: 1s}\n", `test.yaml:1:9: delay: unknown method "session/prompt"`},
		{"delay: {initialize: soon}\n", `test.yaml:1:21: delay.initialize: want a duration such as 500ms or 1s, or never, got "soon"`},
		{"onCancelRequest: end_turn\n", `test.yaml:1:18: onCancelRequest: unknown value "end_turn" (want one of: cancelled, ignore)`},
		{"authRequired: sometimes\n", `test.yaml:1:15: authRequired: unknown value "sometimes" (want one of: always)`},
	} {
		_, err := mockagent.Parse("test.yaml", []byte(tc.script))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.script, err, tc.want)
		}
	}
}
