package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/scenario"
)

// TestHandshake checks the steps a scenario's run takes after initialize
// (those a probe shares are in TestProbe): which requests are sent, what
// is a warning and what ends the handshake.
func TestHandshake(t *testing.T) {
	bin := agentBin(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.mock.yaml")
	if err := os.WriteFile(script, []byte(`authMethods: [{id: key, name: Key}]
sessionId: s-1
modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	errOpened := errors.New("not this session")
	tests := []struct {
		name     string
		hs       handshake
		sent     []string // the methods sent, in order
		warnings []string
		wantErr  string // the error starts with it
	}{
		{name: "mode set", hs: handshake{auth: "key", mode: "code"},
			sent: []string{"initialize", "authenticate", "session/new", "session/set_mode"}},
		{name: "mode not offered", hs: handshake{mode: "plan", modePos: scenario.Pos{File: "s.yaml", Line: 2, Col: 30}},
			sent: []string{"initialize", "session/new"}, warnings: []string{`s.yaml:2:30: agent.mode: the agent does not offer mode "plan" (it offers: ask, code); not set`}},
		{name: "auth not offered", hs: handshake{auth: "sso"}, sent: []string{"initialize"},
			wantErr: `authenticate: the agent offers no auth method "sso" (it offers: key)`},
		{name: "bad mcpServers", hs: handshake{mcpServers: json.RawMessage(`{"a": 1}`)}, sent: []string{"initialize"},
			wantErr: "mcpServers: "},
		{name: "opened refuses", hs: handshake{mode: "code", opened: func(acp.NewSessionResponse) error { return errOpened }},
			sent: []string{"initialize", "session/new"}, wantErr: errOpened.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var sent []string
			tap := func(dir acp.Direction, line []byte, _ time.Time) {
				var m struct {
					Method string `json:"method"`
				}
				if dir == acp.Sent && json.Unmarshal(line, &m) == nil && m.Method != "" {
					mu.Lock()
					sent = append(sent, m.Method)
					mu.Unlock()
				}
			}
			a, err := startAgent(agentConfig{Argv: []string{bin, "mock-agent", script}, Env: os.Environ(), Dir: dir,
				Handler: &probeHandler{}, Conn: &acp.Options{Tap: tap}})
			if err != nil {
				t.Fatal(err)
			}
			hs := tt.hs
			hs.cwd = dir
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := hs.run(ctx, a.Conn)
			a.CloseAfter(context.Background(), time.Second, time.Second, time.Time{})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("handshake: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Fatalf("handshake: error %v, want one starting with %q", err, tt.wantErr)
			}
			if !got.initialized {
				t.Errorf("initialized = false, want true")
			}
			if diff := cmp.Diff(tt.warnings, got.warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.sent, sent); diff != "" {
				t.Errorf("methods sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHandshakeUnanswered: the handshake names the call that failed (the
// one an agent that went away left unanswered), and no call when a check
// of its own ended it.
func TestHandshakeUnanswered(t *testing.T) {
	t.Parallel()
	bin := agentBin(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.mock.yaml")
	if err := os.WriteFile(script, []byte("authMethods: [{id: key, name: Key}]\nauthRequired: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		hs   handshake
		want string
	}{
		{"session/new refused", handshake{}, "session/new"},
		{"no such auth method", handshake{auth: "sso"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := startAgent(agentConfig{Argv: []string{bin, "mock-agent", script}, Env: os.Environ(), Dir: dir,
				Handler: &probeHandler{}})
			if err != nil {
				t.Fatal(err)
			}
			defer a.CloseAfter(context.Background(), time.Second, time.Second, time.Time{})
			hs := tc.hs
			hs.cwd = dir
			got, err := hs.run(t.Context(), a.Conn)
			if err == nil || got.unanswered != tc.want {
				t.Errorf("error %v, unanswered %q; want an error and %q", err, got.unanswered, tc.want)
			}
		})
	}
}
