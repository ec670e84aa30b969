package runner

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/report"
)

// setupScenario is the scenario of the setup tests: its agent is the
// mock agent's script.
const setupScenario = `name: setup
agent: {command: [acprun, mock-agent, agent.mock.yaml], mode: code}
permissions: {default: deny}
cancelGrace: 3s
turns:
  - prompt: one
`

// openInBubble opens the session of src on the mock agent's script as
// start does, within the setup timeout, and returns the result as the
// scenario leaves it when the session could not open, how long the
// opening took, and the methods acprun sent. It must run in a synctest
// bubble.
func openInBubble(t *testing.T, script, src string) (report.Result, time.Duration, []string) {
	t.Helper()
	b := startInBubble(t, script, src)
	ctx, cancel := context.WithTimeoutCause(t.Context(), setupTimeout, errSetupTimeout)
	defer cancel()
	start := time.Now()
	err := b.handshake(ctx)
	took := time.Since(start)
	if err != nil {
		b.r.res.StartFailed = true
		b.r.failStart(b.r.noteSetupError(err), "")
	}
	res := b.finish(t, true)
	return res, took, validSent(t, b.sentLines())
}

// TestSetupCancelRequest: a setup request the agent does not answer by
// the setup timeout gets $/cancel_request, and the agent has cancelGrace
// to answer it before it is stopped; the result says which request it was
// and how the agent took it: a slow agent (it answers cancelled, or late)
// told from a dead one (no answer). Run in a bubble, the waits are exact.
func TestSetupCancelRequest(t *testing.T) {
	t.Parallel()
	modes := "modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}\n"
	tests := []struct {
		name   string
		script string
		want   report.SetupCancel
		sent   []string
		error  string // the scenario's error
	}{
		{name: "slow session/new", script: "delay: {session/new: never}\n",
			want:  report.SetupCancel{Method: "session/new", Cause: "setupTimeout", Answer: "cancelled"},
			sent:  []string{"initialize", "session/new", "$/cancel_request"},
			error: "session/new: not answered within the setup timeout (2m0s); acprun sent $/cancel_request and the agent answered it cancelled (code -32800): it is alive, and slow"},
		{name: "session/new answered late", script: "delay: {session/new: 2m1s}\nonCancelRequest: ignore\n",
			want:  report.SetupCancel{Method: "session/new", Cause: "setupTimeout", Answer: "answered", WaitedMs: 1000},
			sent:  []string{"initialize", "session/new", "$/cancel_request"},
			error: "session/new: not answered within the setup timeout (2m0s); acprun sent $/cancel_request and the agent answered the request after all: it is alive, and too slow"},
		{name: "dead session/new", script: "delay: {session/new: never}\nonCancelRequest: ignore\n",
			want:  report.SetupCancel{Method: "session/new", Cause: "setupTimeout", Answer: "none", WaitedMs: 3000},
			sent:  []string{"initialize", "session/new", "$/cancel_request"},
			error: "session/new: not answered within the setup timeout (2m0s); acprun sent $/cancel_request and the agent did not answer within cancelGrace (3s): it is hung or dead"},
		{name: "hung agent", script: "updatesBeforeSessionNew: [{hang: true}]\n",
			want: report.SetupCancel{Method: "session/new", Cause: "setupTimeout", Answer: "none", WaitedMs: 3000},
			sent: []string{"initialize", "session/new", "$/cancel_request"}},
		{name: "slow initialize", script: "delay: {initialize: never}\n",
			want:  report.SetupCancel{Method: "initialize", Cause: "setupTimeout", Answer: "cancelled"},
			sent:  []string{"initialize", "$/cancel_request"},
			error: "initialize: not answered within the setup timeout (2m0s); acprun sent $/cancel_request and the agent answered it cancelled (code -32800)"},
		{name: "slow mode", script: modes + "delay: {session/set_mode: never}\n",
			want: report.SetupCancel{Method: "session/set_mode", Cause: "setupTimeout", Answer: "cancelled"},
			sent: []string{"initialize", "session/new", "session/set_mode", "$/cancel_request"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				res, took, sent := openInBubble(t, tt.script, setupScenario)
				if res.SetupCancel == nil {
					t.Fatalf("no setupCancel; error %q", res.Error)
				}
				if diff := cmp.Diff(tt.want, *res.SetupCancel); diff != "" {
					t.Errorf("setupCancel (-want +got):\n%s", diff)
				}
				if res.Status != report.StatusError || !res.StartFailed || res.ErrorCause != report.ErrorSetupTimeout {
					t.Errorf("status %s, startFailed %v, errorCause %q; want error, true, setupTimeout", res.Status, res.StartFailed, res.ErrorCause)
				}
				if !strings.Contains(res.Error, tt.error) {
					t.Errorf("error %q, want it to contain %q", res.Error, tt.error)
				}
				if want := setupTimeout + time.Duration(tt.want.WaitedMs)*time.Millisecond; took != want {
					t.Errorf("the setup took %s, want %s (the setup timeout, then the wait for the cancel's answer)", took, want)
				}
				if diff := cmp.Diff(tt.sent, sent); diff != "" {
					t.Errorf("methods sent (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestSetupAnsweredInTime: a request answered before the setup timeout
// gets no $/cancel_request, however slow.
func TestSetupAnsweredInTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res, took, sent := openInBubble(t, "delay: {session/new: 1m59s}\n", setupScenario)
		if res.Error != "" || res.SetupCancel != nil || took != 119*time.Second {
			t.Errorf("error %q, setupCancel %+v, took %s; want no error and no cancel after 1m59s", res.Error, res.SetupCancel, took)
		}
		if diff := cmp.Diff([]string{"initialize", "session/new"}, sent); diff != "" {
			t.Errorf("methods sent (-want +got):\n%s", diff)
		}
	})
}

// TestProtocolVersion2: an agent that answers initialize with version 2
// is sent nothing more; the error says v2 is not supported yet, at the
// scenario's agent, and the version it offered is recorded.
func TestProtocolVersion2(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res, _, sent := openInBubble(t, "protocolVersion: 2\n", setupScenario)
		want := "s.yaml:2:8: agent: initialize: the agent speaks ACP protocol version 2, which acprun does not support yet (acprun speaks version 1); acprun sent it nothing more"
		if !strings.Contains(res.Error, want) || res.ErrorCause != report.ErrorProtocolVersion || !res.StartFailed {
			t.Errorf("error %q (cause %q, startFailed %v), want %q… (protocolVersion, true)", res.Error, res.ErrorCause, res.StartFailed, want)
		}
		if res.Agent.ProtocolVersion != 2 {
			t.Errorf("agent.protocolVersion = %d, want 2", res.Agent.ProtocolVersion)
		}
		if diff := cmp.Diff([]string{"initialize"}, sent); diff != "" {
			t.Errorf("methods sent (-want +got):\n%s", diff)
		}
	})
}

// TestAuthRequired: auth_required at session/new ends the scenario with
// the cause auth and a message that says how to authenticate (the methods
// the agent offers, the variables its registry entry expects); with
// agent.auth, acprun authenticates before session/new, once.
func TestAuthRequired(t *testing.T) {
	t.Parallel()
	const methods = "authMethods: [{id: api-key, name: API key}, {id: login, name: Login, type: terminal}]\n"
	// launch is a method whose _meta asks that the agent be started with
	// an argument, as qwen-code's openai does.
	const launch = "authMethods: [{id: openai, name: OpenAI, _meta: {type: terminal, args: [--auth-type=openai]}}, {id: login, name: Login, type: terminal, args: [--login]}]\n"
	const launchHint = `its auth method "openai" says to start the agent with --auth-type=openai, which its command lacks`
	tests := []struct {
		name, script, auth string
		env                []string // acprun's environment
		args               []string // added to the agent's command
		sent               []string
		error              string // "" for none
	}{
		{name: "no agent.auth", script: methods + "authRequired: true\n", sent: []string{"initialize", "session/new"},
			error: `s.yaml:2:8: agent: session/new: the agent requires authentication (set agent.auth, or run with --auth, to one of: api-key); or log in once, by hand, with its terminal login (login); it expects MOCK_KEY (not set) in its environment: jsonrpc error -32000: Authentication required`},
		{name: "key set", script: methods + "authRequired: true\n", env: []string{"MOCK_KEY=k"}, sent: []string{"initialize", "session/new"},
			error: `it expects MOCK_KEY (set) in its environment`},
		{name: "agent.auth", script: methods + "authRequired: true\n", auth: "api-key",
			sent: []string{"initialize", "authenticate", "session/new", "session/set_mode"}},
		{name: "still required", script: methods + "authRequired: always\n", auth: "api-key", sent: []string{"initialize", "authenticate", "session/new"},
			error: `session/new: the agent requires authentication although acprun authenticated with "api-key" first`},
		{name: "a method not offered", script: methods, auth: "sso", sent: []string{"initialize"},
			error: `s.yaml:2:8: agent: authenticate: the agent offers no auth method "sso" (it offers: api-key, login)`},
		{name: "launch args", script: launch + "authRequired: true\n", sent: []string{"initialize", "session/new"},
			error: `s.yaml:2:8: agent: session/new: the agent requires authentication (set agent.auth, or run with --auth, to one of: openai; ` + launchHint +
				`); or log in once, by hand, with its terminal login (login: the agent's command with --login, in a terminal); it expects MOCK_KEY (not set) in its environment: jsonrpc error -32000: Authentication required`},
		{name: "launch args given", script: launch + "authRequired: true\n", args: []string{"--auth-type=openai"}, sent: []string{"initialize", "session/new"},
			error: `s.yaml:2:8: agent: session/new: the agent requires authentication (set agent.auth, or run with --auth, to one of: openai); or log in once, by hand`},
		{name: "launch args, authenticated", script: launch + "authRequired: always\n", auth: "openai", sent: []string{"initialize", "authenticate", "session/new"},
			error: `session/new: the agent requires authentication although acprun authenticated with "openai" first; ` + launchHint + `; or log in`},
		{name: "launch args, refused", script: launch + "authRequired: true\nauthError: {code: -32603, message: Internal error}\n", auth: "openai",
			sent:  []string{"initialize", "authenticate"},
			error: `s.yaml:2:8: agent: authenticate "openai": the agent refused it; ` + launchHint + `; it expects MOCK_KEY (not set) in its environment: jsonrpc error -32603: Internal error`},
		{name: "launch args given, refused", script: launch + "authRequired: true\nauthError: {code: -32603, message: Internal error}\n", auth: "openai",
			args: []string{"--auth-type=openai"}, sent: []string{"initialize", "authenticate"},
			error: `s.yaml:2:8: agent: authenticate "openai": the agent refused it; it expects MOCK_KEY (not set) in its environment: jsonrpc error -32603: Internal error`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := setupScenario
				if tt.auth != "" {
					src = strings.Replace(src, "mode: code}", "mode: code, auth: "+tt.auth+"}", 1)
				}
				b := startInBubble(t, "modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}\n"+tt.script, src)
				b.r.sc.Agent.AuthEnv = []string{"MOCK_KEY"}
				b.r.sc.Agent.Command = append(b.r.sc.Agent.Command, tt.args...)
				b.r.opts.Environ = tt.env
				err := b.handshake(t.Context())
				if err != nil {
					b.r.failStart(b.r.noteSetupError(err), "")
				}
				res := b.finish(t, false)
				sent := validSent(t, b.sentLines())
				switch {
				case tt.error == "" && res.Error != "":
					t.Errorf("error %q, want none", res.Error)
				case tt.error != "" && (!strings.Contains(res.Error, tt.error) || res.ErrorCause != report.ErrorAuth):
					t.Errorf("error %q (cause %q), want it to contain %q (cause auth)", res.Error, res.ErrorCause, tt.error)
				}
				if diff := cmp.Diff(tt.sent, sent); diff != "" {
					t.Errorf("methods sent (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestAuthErrorByMessage: an agent that says it needs authentication
// with another code than auth_required is understood too.
func TestAuthErrorByMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code int
		msg  string
		want bool
	}{
		{-32000, "Authentication required", true},
		{-32603, "Invalid API key", true},
		{-32603, "Not logged in: run `agent login`", true},
		{-32603, "401 Unauthorized", true},
		{-32603, "model overloaded", false},
		{-32602, "cwd must be absolute", false},
	} {
		if got := isAuthError(&acp.Error{Code: tc.code, Message: tc.msg}); got != tc.want {
			t.Errorf("isAuthError(%d %q) = %v, want %v", tc.code, tc.msg, got, tc.want)
		}
	}
}

// TestExtraRoots: the roots beyond the cwd go to session/new as
// additionalDirectories when the agent offers them; otherwise they are
// not sent, and a warning at client.roots says so.
func TestExtraRoots(t *testing.T) {
	t.Parallel()
	const src = `name: roots
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
client: {roots: [., ..]}
turns:
  - prompt: one
`
	const steps = "turns: [{steps: [{showRoots: true}]}]\n"
	for _, tc := range []struct {
		name, script string
		offered      bool
	}{
		{"offered", "agentCapabilities: {sessionCapabilities: {additionalDirectories: {}}}\n" + steps, true},
		{"not offered", steps, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startInBubble(t, tc.script, src)
				if err := b.handshake(t.Context()); err != nil {
					t.Fatalf("handshake: %v", err)
				}
				b.r.playTurns(t.Context(), t.Context())
				res := b.finish(t, false)
				validSent(t, b.sentLines())
				cwd := b.r.sc.Agent.Cwd
				parent := filepath.Dir(cwd)
				warned := slices.ContainsFunc(res.Warnings, func(w string) bool {
					return strings.Contains(w, "s.yaml:4:17: client.roots: the agent does not offer additionalDirectories") && strings.Contains(w, "("+parent+")")
				})
				want := "roots: " + cwd
				if tc.offered {
					want += ", " + parent
				}
				if res.Turns[0].Text != want || warned == tc.offered {
					t.Errorf("the agent says %q, warned %v; want %q, warned %v\nwarnings: %q", res.Turns[0].Text, warned, want, !tc.offered, res.Warnings)
				}
			})
		})
	}
}

func TestExtraRootsOf(t *testing.T) {
	t.Parallel()
	got := extraRoots([]string{"/w", "/w/sub", "/data", "/", "/data", "/wx"}, "/w")
	if diff := cmp.Diff([]string{"/data", "/", "/wx"}, got); diff != "" {
		t.Errorf("extraRoots (-want +got):\n%s", diff)
	}
}

// TestWithData: the agent's error shows its data, compact and cut; an
// error without data, or with data that is not JSON, is left as it is.
func TestWithData(t *testing.T) {
	t.Parallel()
	long := `"` + strings.Repeat("x", 400) + `"`
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&acp.Error{Code: -32603, Message: "Internal error", Data: []byte(`{ "details" : "closed" }`)}, `jsonrpc error -32603: Internal error (its data: {"details":"closed"})`},
		{&acp.Error{Code: -32603, Message: "Internal error", Data: []byte(long)}, `jsonrpc error -32603: Internal error (its data: "` + strings.Repeat("x", maxShownData-1) + `…)`},
		{&acp.Error{Code: -32603, Message: "Internal error", Data: []byte(`null`)}, `jsonrpc error -32603: Internal error`},
		{&acp.Error{Code: -32603, Message: "Internal error"}, `jsonrpc error -32603: Internal error`},
		{errors.New("timed out"), "timed out"},
	} {
		got := withData(nil, tc.err)
		if got.Error() != tc.want || !errors.Is(got, tc.err) {
			t.Errorf("withData(%v) = %q, want %q wrapping it", tc.err, got, tc.want)
		}
	}
	h := &handshake{authEnv: []string{"A_KEY (set)"}}
	if got := h.unsetEnvHint(); got != "" {
		t.Errorf("every variable set: unsetEnvHint() = %q, want none", got)
	}
	h.authEnv = append(h.authEnv, "B_KEY (not set)")
	if got, want := h.unsetEnvHint(), "; it expects A_KEY (set), B_KEY (not set) in its environment, which may be why"; got != want {
		t.Errorf("unsetEnvHint() = %q, want %q", got, want)
	}
}
