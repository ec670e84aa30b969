package mockagent_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/mockagent"
)

// TestSessionsOutliveTheAgent plays two agents, one after the other, on
// one sessions: directory: the second loads the first's session, gets its
// history replayed, and its history step says it.
func TestSessionsOutliveTheAgent(t *testing.T) {
	dir := t.TempDir()
	script := "agentCapabilities: {loadSession: true}\nsessions: " + dir + "\n" +
		"turns: [{steps: [{text: 'seen: '}, {history: true}]}]\n"

	c1, _ := runMock(t, script, nil)
	sid := c1.start()
	if sid != "mock-session-1" {
		t.Fatalf("first session id %q", sid)
	}
	if _, err := c1.prompt(sid, "first"); err != nil {
		t.Fatal(err)
	}
	if got := describeAll(c1.drain()); !cmp.Equal(got, []string{"text:seen: ", "text:(no history)"}) {
		t.Errorf("first run's updates: %q", got)
	}

	c2, _ := runMock(t, script, nil)
	c2.initialize()
	if err := c2.call(acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: "/work"}, nil); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	replay := describeAll(c2.drain())
	if diff := cmp.Diff([]string{"user:first", "text:seen: (no history)"}, replay); diff != "" {
		t.Errorf("replayed history (-want +got):\n%s", diff)
	}
	if _, err := c2.prompt(sid, "second"); err != nil {
		t.Fatal(err)
	}
	want := []string{"text:seen: ", "text:user: first\nagent: seen: (no history)"}
	if diff := cmp.Diff(want, describeAll(c2.drain())); diff != "" {
		t.Errorf("second run's updates (-want +got):\n%s", diff)
	}
	if got := c2.newSession("/work"); got != "mock-session-2" {
		t.Errorf("a new session beside a saved one: id %q, want mock-session-2", got)
	}
	var err error
	if err = c2.call(acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: "/elsewhere"}, nil); codeOf(err) != acp.CodeInvalidParams {
		t.Errorf("load in another cwd: %v, want -32602", err)
	}
}

func TestLoadRefusedOrGone(t *testing.T) {
	dir := t.TempDir()
	c, _ := runMock(t, "agentCapabilities: {loadSession: true, sessionCapabilities: {resume: {}}}\nsessions: "+dir+"\n", nil)
	c.initialize()
	for _, m := range []string{acp.MethodSessionLoad, acp.MethodSessionResume} {
		err := c.call(m, acp.LoadSessionRequest{SessionID: "gone", Cwd: "/w"}, nil)
		if codeOf(err) != acp.CodeResourceNotFound {
			t.Errorf("%s of an unknown session: %v, want -32002", m, err)
		}
		err = c.call(m, acp.LoadSessionRequest{SessionID: "../escape", Cwd: "/w"}, nil)
		if codeOf(err) != acp.CodeResourceNotFound {
			t.Errorf("%s of a path-like id: %v, want -32002", m, err)
		}
	}

	c2, _ := runMock(t, "agentCapabilities: {loadSession: true, sessionCapabilities: {resume: {}}}\nloadError: {code: -32603, message: no sessions today}\n", nil)
	c2.initialize()
	for _, m := range []string{acp.MethodSessionLoad, acp.MethodSessionResume} {
		err := c2.call(m, acp.LoadSessionRequest{SessionID: "s", Cwd: "/w"}, nil)
		var e *acp.Error
		if codeOf(err) != -32603 || !errors.As(err, &e) || e.Message != "no sessions today" {
			t.Errorf("%s with loadError: %v", m, err)
		}
	}

	c3, _ := runMock(t, "agentCapabilities: {loadSession: true}\n", nil)
	c3.initialize()
	if err := c3.call(acp.MethodSessionResume, acp.ResumeSessionRequest{SessionID: "s", Cwd: "/w"}, nil); codeOf(err) != acp.CodeMethodNotFound {
		t.Errorf("session/resume without the capability: %v, want -32601", err)
	}
}

// TestResumeSession resumes a saved session: no replay, but the history is
// there.
func TestResumeSession(t *testing.T) {
	dir := t.TempDir()
	script := "agentCapabilities: {sessionCapabilities: {resume: {}}}\nsessions: " + dir + "\nturns: [{steps: [{history: true}]}]\n"
	c1, _ := runMock(t, script, nil)
	sid := c1.start()
	if _, err := c1.prompt(sid, "one"); err != nil {
		t.Fatal(err)
	}
	c1.drain()
	if _, err := os.Stat(filepath.Join(dir, sid+".json")); err != nil {
		t.Fatalf("the session was not saved: %v", err)
	}
	c2, _ := runMock(t, script, nil)
	c2.initialize()
	var res acp.ResumeSessionResponse
	if err := c2.call(acp.MethodSessionResume, acp.ResumeSessionRequest{SessionID: sid, Cwd: "/work"}, &res); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.prompt(sid, "two"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"text:user: one\nagent: (no history)"}, describeAll(c2.drain())); diff != "" {
		t.Errorf("updates after session/resume (-want +got):\n%s", diff)
	}
}

// TestWaitFor holds a turn on a FIFO until the test writes it, and lets a
// cancel end the wait.
func TestWaitFor(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := runMock(t, "turns:\n  - steps: [{waitFor: "+fifo+"}, {text: through}]\n  - steps: [{waitFor: "+fifo+"}, {text: never}]\n", nil)
	sid := c.start()
	done := make(chan acp.PromptResponse, 1)
	go func() {
		res, _ := c.prompt(sid, "one")
		done <- res
	}()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the agent opened the FIFO
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("the turn ended before the FIFO was closed")
	default:
	}
	w.Close()
	if res := <-done; res.StopReason != acp.StopEndTurn {
		t.Errorf("stop reason %q", res.StopReason)
	}
	if got := describeAll(c.drain()); !cmp.Equal(got, []string{"text:through"}) {
		t.Errorf("updates %q", got)
	}

	go func() {
		res, _ := c.prompt(sid, "two")
		done <- res
	}()
	w, err = os.OpenFile(fifo, os.O_WRONLY, 0) // the agent waits on it again
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := c.conn.Notify(testCtx(t), acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.StopReason != acp.StopCancelled {
		t.Errorf("cancelled wait: stop reason %q", res.StopReason)
	}
	w.Close() // the agent's read ends
}

// TestSessionsDirNotWritable: a sessions: directory that cannot be made
// stops the agent before it reads anything, with an error at the script's
// sessions: that names the directory and says what to do; the agent does
// not play on, losing every session it was to keep.
func TestSessionsDirNotWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := mockagent.Parse("m.yaml", []byte("turns: [{steps: [{text: hi}]}]\nsessions: "+file+"/state\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	err = mockagent.Run(t.Context(), s, in, &out, io.Discard)
	want := "m.yaml:2:11: sessions: mkdir " + file + ": not a directory: the agent could not keep its sessions there; give a directory it can write"
	if se, ok := errors.AsType[*srcerr.Error](err); !ok || err.Error() != want {
		t.Errorf("Run = %v (a *srcerr.Error: %v); want %s", err, se != nil, want)
	}
	if out.Len() != 0 {
		t.Errorf("the agent answered %q; want nothing", out.String())
	}
}
