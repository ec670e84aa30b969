package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/sessionstate"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

func chunk(kind, text, id string) acp.SessionNotification {
	c := &acp.ContentChunk{Content: acp.TextBlock(text), MessageID: id}
	u := acp.SessionUpdate{Kind: kind}
	switch kind {
	case acp.UpdateUserMessageChunk:
		u.UserMessageChunk = c
	case acp.UpdateAgentMessageChunk:
		u.AgentMessageChunk = c
	case acp.UpdateAgentThoughtChunk:
		u.AgentThoughtChunk = c
	}
	return acp.SessionNotification{SessionID: "s1", Update: u}
}

// TestHistoryIsNotSetup records a session/load replay: chunks of one
// message are joined, and nothing of it is setup; what comes after the
// load's answer is.
func TestHistoryIsNotSetup(t *testing.T) {
	t.Parallel()
	s := &session{}
	s.loading("s1")
	for _, n := range []acp.SessionNotification{
		chunk(acp.UpdateUserMessageChunk, "fix ", ""),
		chunk(acp.UpdateUserMessageChunk, "the bug", ""),
		chunk(acp.UpdateAgentMessageChunk, "done", "m1"),
		chunk(acp.UpdateAgentMessageChunk, " and tested", "m1"),
		chunk(acp.UpdateAgentMessageChunk, "also this", "m2"),
		chunk(acp.UpdateAgentThoughtChunk, "hmm", ""),
		{SessionID: "s1", Update: acp.SessionUpdate{Kind: "tool_call", ToolCall: &acp.ToolCall{ToolCallID: "t1"}}},
		chunk(acp.UpdateUserMessageChunk, "next", ""),
	} {
		s.update(n)
	}
	h := s.loaded(true)
	s.update(chunk(acp.UpdateAgentMessageChunk, "after the answer", ""))
	want := &report.History{
		Updates: map[string]int{"user_message_chunk": 3, "agent_message_chunk": 3, "agent_thought_chunk": 1, "tool_call": 1},
		Messages: []report.HistoryMessage{
			{Role: "user", Text: "fix the bug"},
			{Role: "agent", Text: "done and tested"},
			{Role: "agent", Text: "also this"},
			{Role: "user", Text: "next"},
		},
	}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"agent_message_chunk": 1}, s.setup.updates); diff != "" {
		t.Errorf("setup updates (-want +got):\n%s", diff)
	}
}

func TestHistoryBounded(t *testing.T) {
	t.Parallel()
	s := &session{}
	s.loading("s1")
	for i := range maxHistoryMessages + 3 {
		kind := acp.UpdateUserMessageChunk
		if i%2 == 1 {
			kind = acp.UpdateAgentMessageChunk
		}
		s.update(chunk(kind, "m", ""))
	}
	s.update(chunk(acp.UpdateUserMessageChunk, "more of the last, dropped message", ""))
	h := s.loaded(true)
	if len(h.Messages) != maxHistoryMessages || h.MessagesDropped != 3 {
		t.Errorf("%d messages kept, %d dropped; want %d and 3", len(h.Messages), h.MessagesDropped, maxHistoryMessages)
	}
	if last := h.Messages[len(h.Messages)-1].Text; last != "m" {
		t.Errorf("the last kept message grew: %q", last)
	}
}

// TestHandshakeResumes checks which requests a resumed handshake sends:
// the load's (or resume's) modes serve set_mode as session/new's would,
// and a refusal falls back to session/new.
func TestHandshakeResumes(t *testing.T) {
	bin := agentBin(t)
	const modes = "modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}\n"
	tests := []struct {
		name, script string
		sent         []string
		resumed      bool
		warning      string
	}{
		{"load", "agentCapabilities: {loadSession: true}\n" + modes,
			[]string{"initialize", "session/load", "session/set_mode"}, true, ""},
		{"load preferred", "agentCapabilities: {loadSession: true, sessionCapabilities: {resume: {}}}\n" + modes,
			[]string{"initialize", "session/load", "session/set_mode"}, true, ""},
		{"resume", "agentCapabilities: {sessionCapabilities: {resume: {}}}\n" + modes,
			[]string{"initialize", "session/resume", "session/set_mode"}, true, ""},
		{"refused", "agentCapabilities: {loadSession: true}\nloadError: {code: -32000, message: Authentication required}\n" + modes,
			[]string{"initialize", "session/load", "session/new", "session/set_mode"}, false,
			`session: the agent refused session/load (Authentication required, code -32000); started a new session instead of continuing session "old-1"`},
		{"neither", modes,
			[]string{"initialize", "session/new", "session/set_mode"}, false,
			`session: the agent advertises neither loadSession nor sessionCapabilities.resume; started a new session instead of continuing session "old-1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			script := filepath.Join(dir, "agent.mock.yaml")
			if err := os.WriteFile(script, []byte(tt.script), 0o644); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var sent []string
			tap := func(d acp.Direction, line []byte, _ time.Time) {
				var m struct {
					Method string `json:"method"`
				}
				if d == acp.Sent && json.Unmarshal(line, &m) == nil && m.Method != "" {
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
			var openedID string
			hs := handshake{cwd: dir, mode: "code", resume: &resumeSpec{sessionID: "old-1"},
				opened: func(ns acp.NewSessionResponse) error { openedID = ns.SessionID; return nil }}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := hs.run(ctx, a.Conn)
			a.CloseAfter(context.Background(), time.Second, time.Second, time.Time{})
			if err != nil {
				t.Fatalf("handshake: %v", err)
			}
			if got.resumed != tt.resumed || (openedID == "old-1") != tt.resumed {
				t.Errorf("resumed %v, opened %q; want resumed %v", got.resumed, openedID, tt.resumed)
			}
			var warning string
			if len(got.warnings) > 0 {
				warning = strings.Join(got.warnings, "\n")
			}
			if warning != tt.warning {
				t.Errorf("warnings %q, want %q", warning, tt.warning)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.sent, sent); diff != "" {
				t.Errorf("methods sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefusedLoadKeepsEarlyUpdates: after a refused session/load, the new
// session's updates that come before session/new answers are its own.
func TestRefusedLoadKeepsEarlyUpdates(t *testing.T) {
	t.Parallel()
	s := &session{}
	s.loading("old-1")
	if h := s.loaded(false); h == nil || len(h.Updates) != 0 {
		t.Errorf("history of a refused load: %+v", h)
	}
	n := chunk(acp.UpdateAgentMessageChunk, "early", "")
	n.SessionID = "new-1"
	s.update(n)
	s.setSessionID("new-1")
	if len(s.violations) > 0 || s.setup.updates["agent_message_chunk"] != 1 {
		t.Errorf("violations %q, setup updates %v", s.violations, s.setup.updates)
	}
}

// TestSecretSessionIDNotSaved: a session id that holds a secret is not
// written to the state file (an output): the entry is left without one,
// the result says why, and the next run starts a new session.
func TestSecretSessionIDNotSaved(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCDEF123456"
	dir := t.TempDir()
	files := map[string]string{
		"agent.mock.yaml": "agentCapabilities: {loadSession: true}\nsessionId: \"sess-" + secret + "\"\n",
		"s.yaml": `name: nightly
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {TOKEN_A: "` + secret + `"}}
permissions: {}
session: {resume: true}
turns: [{prompt: hi}]
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := func() report.Result {
		t.Helper()
		opts := Options{Self: agentBin(t)}
		// Wait, not Fail: the previous run's lock is released when its file
		// is closed, but a process that a parallel test forks at that moment
		// holds a copy of the descriptor, and so the lock, until it execs.
		states, err := OpenStates(t.Context(), opts, scs, sessionstate.Wait, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			for _, f := range states {
				f.Close()
			}
		}()
		opts.States = states
		rep, err := Run(t.Context(), opts, scs)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Scenarios[0]
	}
	for i := range 2 {
		r := run()
		s := r.Session
		if r.Status != report.StatusPassed || s == nil || s.Recorded != "" || s.Method != acp.MethodSessionNew || s.Saved ||
			!strings.Contains(s.SaveError, "holds a secret") || s.SessionID != "sess-"+redact.Marker {
			t.Fatalf("run %d: status %s, session %+v; want a new session, not saved because its id holds a secret", i+1, r.Status, s)
		}
		if len(r.LostOutputs) > 0 {
			t.Errorf("run %d: lost outputs %q; want none: a session id left out on purpose is no output lost", i+1, r.LostOutputs)
		}
		if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "holds a secret") }) {
			t.Errorf("run %d: warnings %q, want one saying the session id holds a secret", i+1, r.Warnings)
		}
		data, err := os.ReadFile(filepath.Join(dir, ".acprun", "state.json"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "ABCDEF") || !strings.Contains(string(data), `"sessionId": ""`) {
			t.Errorf("run %d: state file, want the entry without its session id:\n%s", i+1, data)
		}
	}
}

// stateScenarios loads, from base, one scenario per state file path
// (session.stateFile as given), each continuing its session.
func stateScenarios(t *testing.T, base string, paths ...string) []*scenario.Scenario {
	t.Helper()
	var docs []string
	for i, p := range paths {
		docs = append(docs, fmt.Sprintf("name: s%d\nagent: {command: [agent]}\npermissions: {}\nsession: {resume: true, stateFile: %q}\nturns: [{prompt: hi}]\n", i, p))
	}
	file := filepath.Join(base, "s.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	scs, _, err := scenario.Load([]string{file}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return scs
}

// TestOpenStatesOneFileTwoSpellings: one state file named by two paths
// (one through a symlinked ancestor) is opened and locked once, and both
// spellings find it; locking it a second time would wait for the run
// itself, or in Fail mode name its own pid.
func TestOpenStatesOneFileTwoSpellings(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(base, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(base, "link", "st", "state.json")
	real := filepath.Join(base, "real", "st", "state.json")
	scs := stateScenarios(t, base, viaLink, real)
	for _, mode := range []sessionstate.Mode{sessionstate.Fail, sessionstate.Wait} {
		ctx, cancel := context.WithCancel(t.Context())
		states, err := OpenStates(ctx, Options{}, scs, mode, func(path string, pid int) {
			t.Errorf("%s: waiting for %s (pid %d, this one's %d)", mode, path, pid, os.Getpid())
			cancel()
		})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(states) != 2 || states[viaLink] == nil || states[viaLink] != states[real] {
			t.Errorf("%s: states %v, want both spellings to share one file", mode, states)
		}
		for _, f := range states {
			f.Close()
		}
	}
}

// TestOpenStatesOrderWhateverTheSpelling: two runs lock the state files
// they share in the same order whatever their spellings, so they never
// wait for each other in a circle: a run naming Q through a symlink that
// sorts before P (base/a → base/z) still locks P first, as one naming
// both by their real paths does.
func TestOpenStatesOrderWhateverTheSpelling(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(base, "z"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("z", filepath.Join(base, "a")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(base, "m", "state.json")
	q := filepath.Join(base, "z", "q", "state.json")
	qLink := filepath.Join(base, "a", "q", "state.json")
	// The other run holds both.
	for _, path := range []string{p, q} {
		f, err := sessionstate.Open(t.Context(), path, sessionstate.Fail, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
	}
	for _, paths := range [][]string{{qLink, p}, {q, p}} {
		var first string
		ctx, cancel := context.WithCancel(t.Context())
		_, err := OpenStates(ctx, Options{}, stateScenarios(t, base, paths...), sessionstate.Wait, func(path string, _ int) {
			first = path
			cancel()
		})
		cancel()
		if err == nil || first != p {
			t.Errorf("state files %q: first waited for %q (%v), want %s", paths, first, err, p)
		}
	}
}

// TestSessionNotSavedIsLost: a state file that cannot be written when
// the session is saved (its directory removed during the run, here by
// the scenario's setup) is an output lost, as a transcript is: the
// result names it in LostOutputs (the run exits 4), with the warning and
// session.saveError, and the verdict stays the agent's.
func TestSessionNotSavedIsLost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"agent.mock.yaml": "agentCapabilities: {loadSession: true}\nsessionId: sess-1\n",
		"s.yaml": `name: nightly
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {}
session: {resume: true}
setup: [rm -rf .acprun]
turns: [{prompt: hi}]
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Self: agentBin(t)}
	states, err := OpenStates(t.Context(), opts, scs, sessionstate.Wait, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, f := range states {
			f.Close()
		}
	}()
	opts.States = states
	rep, err := Run(t.Context(), opts, scs)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Scenarios[0]
	path := filepath.Join(dir, ".acprun", "state.json")
	if r.Status != report.StatusPassed || r.Session == nil || r.Session.Saved || !strings.Contains(r.Session.SaveError, "state file "+path) {
		t.Fatalf("status %s, session %+v; want passed, the session not saved", r.Status, r.Session)
	}
	want := []string{"session: " + r.Session.SaveError + "; the session id was not saved: the next run will start a new session"}
	if diff := cmp.Diff(want, r.LostOutputs); diff != "" {
		t.Errorf("lost outputs (-want +got):\n%s", diff)
	}
	if !slices.Contains(r.Warnings, want[0]) {
		t.Errorf("warnings %q, want %q", r.Warnings, want[0])
	}
}

// TestNothingRecordedSaysWhatHappened: the warning that no session was
// recorded to continue says only what the run did: none when the agent
// opened no session, and no promise that the new one is recorded when it
// is not (its id holds a secret), which another warning says.
func TestNothingRecordedSaysWhatHappened(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"auth.mock.yaml":   "agentCapabilities: {loadSession: true}\nauthRequired: true\nauthMethods: [{id: key, name: Key}]\n",
		"secret.mock.yaml": "agentCapabilities: {loadSession: true}\nsessionId: sess-hunter2222\n",
		"auth.yaml":        "name: auth\nagent: {command: [acprun, mock-agent, auth.mock.yaml]}\npermissions: {}\nsession: {resume: true}\nturns: [{prompt: hi}]\n",
		"secret.yaml":      "name: secret\nagent: {command: [acprun, mock-agent, secret.mock.yaml], env: {TOKEN: hunter2222}}\npermissions: {}\nsession: {resume: true}\nturns: [{prompt: hi}]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "auth.yaml"), filepath.Join(dir, "secret.yaml")}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Self: agentBin(t)}
	states, err := OpenStates(t.Context(), opts, scs, sessionstate.Wait, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, f := range states {
			f.Close()
		}
	}()
	opts.States = states
	rep, err := Run(t.Context(), opts, scs)
	if err != nil {
		t.Fatal(err)
	}
	auth, secret := rep.Scenarios[0], rep.Scenarios[1]
	if auth.Status != report.StatusError || len(auth.Warnings) != 0 {
		t.Errorf("no session opened: status %s, warnings %q; want error and none", auth.Status, auth.Warnings)
	}
	state := filepath.Join(dir, ".acprun", "state.json")
	want := []string{
		`session: no session is recorded for "secret @ acprun mock-agent secret.mock.yaml" in ` + state + " yet; started a new session",
		"session: " + errSecretSessionID.Error() + "; the next run will start a new session",
	}
	if diff := cmp.Diff(want, secret.Warnings); diff != "" {
		t.Errorf("a session id not saved: warnings (-want +got):\n%s", diff)
	}
}

// TestNothingRecordedSaysSo: a scenario that continues its session, with
// none recorded for it yet (a first run, or the runs before did not
// continue theirs), starts a new one and says so in a warning, which names
// the key and the state file; the next run continues it, without one.
func TestNothingRecordedSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"agent.mock.yaml": "agentCapabilities: {loadSession: true}\n",
		"s.yaml":          "name: nightly\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {}\nsession: {resume: true}\nturns: [{prompt: hi}]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := func() report.Result {
		t.Helper()
		opts := Options{Self: agentBin(t)}
		states, err := OpenStates(t.Context(), opts, scs, sessionstate.Wait, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			for _, f := range states {
				f.Close()
			}
		}()
		opts.States = states
		rep, err := Run(t.Context(), opts, scs)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Scenarios[0]
	}
	state := filepath.Join(dir, ".acprun", "state.json")
	want := fmt.Sprintf(`session: no session is recorded for "nightly @ acprun mock-agent agent.mock.yaml" in %s yet; started a new session`, state)
	first := run()
	if first.Status != report.StatusPassed || first.Session == nil || first.Session.Resumed || !slices.Contains(first.Warnings, want) {
		t.Errorf("first run: status %s, session %+v, warnings %q; want a new session and %q", first.Status, first.Session, first.Warnings, want)
	}
	second := run()
	if second.Session == nil || !second.Session.Resumed || slices.ContainsFunc(second.Warnings, func(w string) bool { return strings.HasPrefix(w, "session:") }) {
		t.Errorf("second run: session %+v, warnings %q; want it continued, without a warning", second.Session, second.Warnings)
	}
}
