package mockagent_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m, nil) }

// acprun returns the path of the acprun binary, building it on first use
// (so parser tests and fuzz workers do not pay for the build).
func acprun(t *testing.T) string {
	t.Helper()
	bin, err := testkit.BuildStatic("github.com/acprun/acprun", "-trimpath") // as e2e's plain build: one compile for both
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// proc is `acprun mock-agent` running in its own process group.
type proc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer

	waitOnce sync.Once
	waitErr  error
	stderrIn chan struct{} // closed when stderr reached EOF
}

// wait waits for the process to exit and returns its exit code (-1 when a
// signal killed it).
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	p.waitOnce.Do(func() { p.waitErr = p.cmd.Wait() })
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		return 0
	case errors.As(p.waitErr, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("wait: %v", p.waitErr)
	return 0
}

// signal sends sig to the mock alone.
func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
}

// startProcess writes script to a file and runs `acprun mock-agent` on it
// with a client connected to its stdin and stdout. Cleanup kills the whole
// process group (grandchildren included) and waits.
func startProcess(t *testing.T, script string, serve serveFunc) (*client, *proc) {
	t.Helper()
	bin := acprun(t)
	path := filepath.Join(t.TempDir(), "script.mock.yaml")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	// Plain os.Pipes: exec hands files to the child as they are, so no
	// copying goroutine waits on a grandchild that keeps them open.
	inR, inW := mustPipe(t)
	outR, outW := mustPipe(t)
	errR, errW := mustPipe(t)
	cmd := exec.Command(bin, "mock-agent", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	p := &proc{cmd: cmd, stderr: newSyncBuffer(), stderrIn: make(chan struct{})}
	go func() {
		defer close(p.stderrIn)
		_, _ = io.Copy(p.stderr, errR)
	}()
	c := newClient(t, outR, inW, serve)
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group may be gone already
		p.wait(t)
		c.conn.Close()
		<-p.stderrIn
		errR.Close()
	})
	return c, p
}

func mustPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

// sigIgnored reports whether pid ignores SIGTERM, from /proc.
func sigIgnored(t *testing.T, pid int) bool {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := regexp.MustCompile(`(?m)^SigIgn:\s*([0-9a-f]+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no SigIgn in /proc/%d/status", pid)
	}
	mask, err := strconv.ParseUint(string(m[1]), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return mask&(1<<(uint(syscall.SIGTERM)-1)) != 0
}

// textsOf returns the agent text chunks of updates.
func textsOf(ns []acp.SessionNotification) []string {
	var out []string
	for _, n := range ns {
		if n.Update.Kind == acp.UpdateAgentMessageChunk {
			out = append(out, n.Update.AgentMessageChunk.Content.Text)
		}
	}
	return out
}

// TestProcess drives every script feature through a real `acprun
// mock-agent` process over its stdin and stdout.
func TestProcess(t *testing.T) {
	tests := []struct {
		name   string
		script string
		serve  func(t *testing.T) serveFunc
		run    func(t *testing.T, c *client, p *proc)
	}{
		{
			name: "handshake, updates and late updates",
			script: `protocolVersion: 1
agentInfo: {name: proc-mock, title: Process mock, version: "2.0"}
agentCapabilities:
  loadSession: true
  promptCapabilities: {image: true, audio: false, embeddedContext: true}
authMethods: [{id: key, name: API key}]
sessionId: sess-a
modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}
updatesBeforeSessionNew:
  - update: {sessionUpdate: available_commands_update, availableCommands: [{name: init, description: Write AGENTS.md}]}
turns:
  - steps:
      - thought: Let me look.
      - text: "Hello, world"
        chunks: 3
      - plan: [{content: Edit, priority: high, status: in_progress}]
      - tool_call:
          toolCallId: call_1
          title: Edit src/main.go
          kind: edit
          rawInput: {file_path: src/main.go, old_string: a, new_string: b}
          content: [{diff: {path: src/main.go, oldText: a, newText: b}}]
          locations: [{path: src/main.go, line: 4}]
      - tool_call_update: {toolCallId: call_1, status: completed}
      - tool_call_update: {toolCallId: never_announced, status: failed}
      - update: {sessionUpdate: agent_error, message: rate limited}
      - usage_update: {used: 100, size: 1000}
    usage: {inputTokens: 30, outputTokens: 12}
    after:
      - text: late
`,
			run: func(t *testing.T, c *client, p *proc) {
				init := c.initialize()
				if init.ProtocolVersion != 1 || init.AgentInfo.Name != "proc-mock" || !init.AgentCapabilities.LoadSession ||
					!init.AgentCapabilities.PromptCapabilities.Image || len(init.AuthMethods) != 1 {
					t.Errorf("initialize = %+v", init)
				}
				c.newSession("/home/u/proj")
				if got := describeAll(c.drain()); !cmp.Equal(got, []string{"update:available_commands_update"}) {
					t.Errorf("updates before the session/new answer = %q; want available_commands_update", got)
				}
				if err := c.call(acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: "sess-a", ModeID: "code"}, nil); err != nil {
					t.Errorf("set_mode: %v", err)
				}
				res, err := c.prompt("sess-a", "hi")
				if err != nil || res.StopReason != acp.StopEndTurn || res.Usage == nil || res.Usage.TotalTokens != 42 {
					t.Fatalf("prompt = %+v, %v; want end_turn with 42 tokens", res, err)
				}
				want := []string{
					"thought:Let me look.", "text:Hell", "text:o, w", "text:orld", "plan",
					"tool_call:call_1:", "tool_call_update:call_1:completed", "tool_call_update:never_announced:failed",
					"update:agent_error", "usage_update", "text:late",
				}
				var got []string
				for range want { // the late update may come after the response
					got = append(got, describe(c.next().Update))
				}
				if diff := cmp.Diff(got, want); diff != "" {
					t.Errorf("updates (-got +want):\n%s", diff)
				}
				lines := strings.Join(c.wire(), "\n")
				for _, sub := range []string{
					`"content":[{"type":"diff","path":"/home/u/proj/src/main.go","oldText":"a","newText":"b"}]`,
					`"locations":[{"path":"/home/u/proj/src/main.go","line":4}]`,
					`"rawInput":{"file_path":"src/main.go","old_string":"a","new_string":"b"}`,
					`"update":{"sessionUpdate":"agent_error","message":"rate limited"}`,
				} {
					if !strings.Contains(lines, sub) {
						t.Errorf("wire lacks %s", sub)
					}
				}
			},
		},
		{
			name: "permission branches",
			script: `turns:
  - steps: &ask
      - tool_call: {toolCallId: t, title: rm -rf build, kind: execute, rawInput: {command: rm -rf build, description: Clean}}
      - permission: {toolCallId: t, title: rm -rf build, kind: execute, rawInput: {command: rm -rf build, description: Clean}}
        allowed: [{text: ran it}]
        rejected: [{text: skipped it}]
        cancelled: [{text: stopped}]
      - text: next
  - steps: *ask
  - steps: *ask
  - steps:
      - permission: {toolCallId: t2, title: curl example.com}
        options: [{optionId: ok, name: OK, kind: allow_once}]
        allowed: [{text: fetched}]
`,
			serve: func(t *testing.T) serveFunc {
				answers := []string{"allow", "reject", "cancel", "ok"}
				var mu sync.Mutex
				return func(ctx context.Context, req *acp.Request) (any, error) {
					var p acp.RequestPermissionRequest
					if err := json.Unmarshal(req.Params, &p); err != nil {
						return nil, err
					}
					mu.Lock()
					a := answers[0]
					answers = answers[1:]
					mu.Unlock()
					if a == "cancel" {
						return acp.Cancelled(), nil
					}
					if a == "ok" && len(p.Options) != 1 {
						t.Errorf("options = %+v; want only ok", p.Options)
					}
					return acp.Selected(a), nil
				}
			},
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				wants := []struct {
					stop  acp.StopReason
					texts []string
				}{
					{acp.StopEndTurn, []string{"ran it", "next"}},
					{acp.StopEndTurn, []string{"skipped it", "next"}},
					{acp.StopCancelled, []string{"stopped"}},
					{acp.StopEndTurn, []string{"fetched"}},
				}
				for i, w := range wants {
					res, err := c.prompt(sid, "go")
					if err != nil || res.StopReason != w.stop {
						t.Fatalf("prompt %d = %+v, %v; want %s", i+1, res, err, w.stop)
					}
					if diff := cmp.Diff(textsOf(c.drain()), w.texts); diff != "" {
						t.Errorf("prompt %d texts (-got +want):\n%s", i+1, diff)
					}
				}
			},
		},
		{
			name: "fs and terminal",
			script: `turns:
  - steps:
      - read: {path: a.txt, line: 1, limit: 10}
      - read: {path: missing.txt}
      - write: {path: b.txt, content: new}
      - terminal: {command: make, toolCallId: t1, waitForExit: true, output: true, kill: true, release: true}
`,
			serve: func(t *testing.T) serveFunc { return (&fakeFS{}).serve },
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				if _, err := c.prompt(sid, "go"); err != nil {
					t.Fatal(err)
				}
				want := []string{
					"read: contents of /work/a.txt",
					"error: fs/read_text_file: Resource not found: /work/missing.txt (-32002)",
					"write: ok", "terminal: term_1", "exit: 0", "output (truncated), exit 0: ok\n", "kill: ok", "release: ok",
				}
				if diff := cmp.Diff(textsOf(c.drain()), want); diff != "" {
					t.Errorf("texts (-got +want):\n%s", diff)
				}
			},
		},
		{
			name: "stop reasons and errors",
			script: `turns:
  - stopReason: max_tokens
  - stopReason: refusal
  - stopReason: max_turn_requests
  - steps: [{stop: something_new}]
  - error: {code: -32603, message: model overloaded}
  - steps: [{error: {code: -32000, message: Authentication required}}]
`,
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				for _, want := range []acp.StopReason{acp.StopMaxTokens, acp.StopRefusal, acp.StopMaxTurnRequests, "something_new"} {
					if res, err := c.prompt(sid, "go"); err != nil || res.StopReason != want {
						t.Errorf("prompt = %+v, %v; want %s", res, err, want)
					}
				}
				for _, want := range []int{-32603, acp.CodeAuthRequired} {
					if _, err := c.prompt(sid, "go"); codeOf(err) != want {
						t.Errorf("prompt error = %v; want code %d", err, want)
					}
				}
				if res, err := c.prompt(sid, "go"); err != nil || res.StopReason != acp.StopEndTurn {
					t.Errorf("prompt past the turns = %+v, %v; want end_turn", res, err)
				}
			},
		},
		{
			name:   "auth required",
			script: "authRequired: true\nauthMethods: [{id: key, name: Key}]\n",
			run: func(t *testing.T, c *client, p *proc) {
				c.initialize()
				if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, nil); codeOf(err) != acp.CodeAuthRequired {
					t.Errorf("session/new = %v; want -32000", err)
				}
				if err := c.call(acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: "key"}, nil); err != nil {
					t.Fatal(err)
				}
				c.newSession("/w")
				if err := c.call("x/unknown", nil, nil); codeOf(err) != acp.CodeMethodNotFound {
					t.Errorf("unknown method = %v; want -32601", err)
				}
			},
		},
		{
			name: "cancel: cancelled, then end_turn",
			script: `turns:
  - steps: [{tool_call: {toolCallId: t, title: make, status: in_progress}}, {text: waiting}, {waitForCancel: true}, {text: no}]
  - onCancel: end_turn
    steps: [{text: waiting}, {sleep: 1h}]
`,
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				ctx := testCtx(t)
				wants := []struct {
					stop    acp.StopReason
					updates []string
				}{
					{acp.StopCancelled, []string{"tool_call_update:t:failed"}},
					{acp.StopEndTurn, nil},
				}
				for _, want := range wants {
					call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "go"))
					for waiting := false; !waiting; {
						waiting = describe(c.next().Update) == "text:waiting"
					}
					if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
						t.Fatal(err)
					}
					var res acp.PromptResponse
					if err := call.Await(ctx, &res); err != nil || res.StopReason != want.stop {
						t.Errorf("prompt = %+v, %v; want %s", res, err, want.stop)
					}
					if got := describeAll(c.drain()); !cmp.Equal(got, want.updates, cmpopts.EquateEmpty()) {
						t.Errorf("updates after the cancel = %q; want %q", got, want.updates)
					}
				}
			},
		},
		{
			name:   "garbage, flood and stderr",
			script: "turns: [{steps: [{garbage: 'Debugger listening on ws://127.0.0.1:9229'}, {flood: {count: 2000, text: x}}, {stderr: 'warn: slow model'}]}]\n",
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				if _, err := c.prompt(sid, "go"); err != nil {
					t.Fatal(err)
				}
				select {
				case v := <-c.violations:
					if !strings.Contains(v.Msg, "Debugger listening") {
						t.Errorf("violation = %q", v.Msg)
					}
				default:
					t.Error("garbage line not reported as a violation")
				}
				if got := len(textsOf(c.drain())); got != 2000 {
					t.Errorf("got %d chunks; want 2000", got)
				}
				p.stderr.waitFor(t, "warn: slow model\n")
			},
		},
		{
			name:   "exit code",
			script: "turns: [{steps: [{text: bye}, {exit: 3}, {text: never}]}]\n",
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				if _, err := c.prompt(sid, "go"); !errors.Is(err, acp.ErrClosed) {
					t.Errorf("prompt = %v; want the connection closed", err)
				}
				if code := p.wait(t); code != 3 {
					t.Errorf("exit code %d; want 3", code)
				}
				if got := describeAll(c.drain()); !cmp.Equal(got, []string{"text:bye"}) {
					t.Errorf("updates = %q; want only text:bye", got)
				}
			},
		},
		{
			name:   "end of stdin ends the agent",
			script: "",
			run: func(t *testing.T, c *client, p *proc) {
				c.start()
				c.conn.Close()
				if code := p.wait(t); code != 0 {
					t.Errorf("exit code %d; want 0", code)
				}
			},
		},
		{
			name:   "ignoreEOF: the end of stdin does not end the agent, SIGTERM does",
			script: "ignoreEOF: true\n",
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				if _, err := c.prompt(sid, "go"); err != nil {
					t.Fatal(err)
				}
				c.conn.Close()
				p.signal(t, syscall.SIGTERM)
				if code := p.wait(t); code != 130 {
					t.Errorf("exit code %d; want 130 (SIGTERM), not 0 (the end of stdin)", code)
				}
			},
		},
		{
			name:   "SIGTERM ends the agent",
			script: "turns: [{steps: [{text: busy}, {sleep: 1h}]}]\n",
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				call := c.conn.Call(testCtx(t), acp.MethodSessionPrompt, promptReq(sid, "go"))
				c.waitText("busy")
				if sigIgnored(t, p.cmd.Process.Pid) {
					t.Error("SIGTERM ignored without ignoreSigterm")
				}
				p.signal(t, syscall.SIGTERM)
				if code := p.wait(t); code != 130 {
					t.Errorf("exit code %d; want 130", code)
				}
				if err := call.Await(testCtx(t), nil); !errors.Is(err, acp.ErrClosed) {
					t.Errorf("prompt = %v; want the connection closed", err)
				}
			},
		},
		{
			name:   "hang ignores cancel; ignoreSigterm",
			script: "ignoreSigterm: true\nturns: [{steps: [{text: stuck}, {hang: true}, {text: never}]}]\n",
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				ctx := testCtx(t)
				call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "go"))
				c.waitText("stuck")
				p.stderr.waitFor(t, "mock-agent: hanging")
				if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
					t.Fatal(err)
				}
				other := c.conn.Call(ctx, acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sid, ModeID: "x"})
				if !sigIgnored(t, p.cmd.Process.Pid) {
					t.Error("SIGTERM not ignored with ignoreSigterm: true")
				}
				p.signal(t, syscall.SIGTERM) // ignored
				p.signal(t, syscall.SIGKILL)
				if code := p.wait(t); code != -1 {
					t.Errorf("exit code %d; want death by SIGKILL", code)
				}
				for _, cl := range []*acp.Call{call, other} {
					if err := cl.Await(ctx, nil); !errors.Is(err, acp.ErrClosed) {
						t.Errorf("call after hang = %v; want no answer before the connection closed", err)
					}
				}
				if got := describeAll(c.drain()); len(got) != 0 {
					t.Errorf("updates after the hang: %q", got)
				}
			},
		},
		{
			name:   "grandchild holds stdout and ignores SIGTERM",
			script: "turns: [{steps: [{spawnGrandchild: true}, {text: spawned}]}]\n",
			run: func(t *testing.T, c *client, p *proc) {
				sid := c.start()
				if _, err := c.prompt(sid, "go"); err != nil {
					t.Fatal(err)
				}
				p.stderr.waitFor(t, "grandchild pid ")
				m := regexp.MustCompile(`grandchild pid (\d+)`).FindStringSubmatch(p.stderr.String())
				pid, _ := strconv.Atoi(m[1])
				if !sigIgnored(t, pid) {
					t.Error("the grandchild does not ignore SIGTERM")
				}
				mockOut, err1 := os.Readlink(fmt.Sprintf("/proc/%d/fd/1", p.cmd.Process.Pid))
				childOut, err2 := os.Readlink(fmt.Sprintf("/proc/%d/fd/1", pid))
				if err1 != nil || err2 != nil || mockOut != childOut || !strings.HasPrefix(mockOut, "pipe:") {
					t.Errorf("stdout of mock %q (%v), of grandchild %q (%v); want the same pipe", mockOut, err1, childOut, err2)
				}
				pgid, err := syscall.Getpgid(pid)
				if err != nil || pgid != p.cmd.Process.Pid {
					t.Errorf("grandchild process group %d (%v); want the mock's, %d", pgid, err, p.cmd.Process.Pid)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var serve serveFunc
			if tt.serve != nil {
				serve = tt.serve(t)
			}
			c, p := startProcess(t, tt.script, serve)
			tt.run(t, c, p)
		})
	}
}

func TestCommand(t *testing.T) {
	acprunBin := acprun(t)
	t.Run("help documents the format", func(t *testing.T) {
		out, err := exec.Command(acprunBin, "mock-agent", "--help").CombinedOutput()
		if err != nil {
			t.Fatalf("mock-agent --help: %v\n%s", err, out)
		}
		for _, want := range []string{"waitForCancel", "spawnGrandchild", "permission:", "Example"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("help lacks %q", want)
			}
		}
	})
	t.Run("bad script", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "bad.mock.yaml")
		if err := os.WriteFile(path, []byte("turns:\n  - stepz: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(acprunBin, "mock-agent", path)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("exit = %v; want code 2", err)
		}
		if want := path + `:2:5: unknown key "stepz" in turn`; !strings.Contains(string(out), want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	})
}
