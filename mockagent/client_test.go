package mockagent_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"go.uber.org/goleak"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/mockagent"
)

// serveFunc answers the agent's requests to the client (permission, fs,
// terminal). nil answers everything with -32601.
type serveFunc func(ctx context.Context, req *acp.Request) (any, error)

// client is the test's side of the connection: a scripted ACP client.
type client struct {
	t          *testing.T
	conn       *acp.Conn
	updates    chan acp.SessionNotification
	violations chan acp.Violation

	mu    sync.Mutex
	lines []string // every line both ways, in wire order: "> " sent, "< " received
}

// newClient connects a client to an agent reading from r and writing to w.
func newClient(t *testing.T, r io.Reader, w io.Writer, serve serveFunc) *client {
	t.Helper()
	c := &client{
		t:          t,
		updates:    make(chan acp.SessionNotification, 100_000),
		violations: make(chan acp.Violation, 100),
	}
	h := acp.HandlerFunc(func(ctx context.Context, req *acp.Request) (any, error) {
		if req.ID == nil || serve == nil {
			return nil, acp.MethodNotFound(req.Method)
		}
		acp.Async(ctx) // served concurrently, as acprun does: serve may block
		return serve(ctx, req)
	})
	c.conn = acp.NewConn(r, w, h, &acp.Options{
		Peer:        "agent",
		OnViolation: func(v acp.Violation) { c.violations <- v },
		// Updates are taken from the tap, which sees lines in wire order
		// before any of them is dispatched: once a prompt's answer is in,
		// every update sent before it is in c.updates.
		// The line is logged before its update is passed on: once a test
		// has taken an update, wire holds its line.
		Tap: func(dir acp.Direction, line []byte, _ time.Time) {
			prefix := "< "
			switch dir {
			case acp.Written, acp.Unsent: // the end of a write of a line logged Sent
				return
			case acp.Sent:
				prefix = "> "
			}
			c.mu.Lock()
			c.lines = append(c.lines, prefix+string(line))
			c.mu.Unlock()
			if dir == acp.Received && bytes.Contains(line, []byte(`"session/update"`)) {
				var m struct {
					Method string                  `json:"method"`
					Params acp.SessionNotification `json:"params"`
				}
				if err := json.Unmarshal(line, &m); err != nil {
					t.Errorf("bad session/update %s: %v", line, err)
				} else if m.Method == acp.MethodSessionUpdate {
					c.updates <- m.Params
				}
			}
		},
	})
	return c
}

// wire returns the lines seen so far.
func (c *client) wire() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

// ctx returns a context that gives up well before the test deadline, so a
// hung agent fails the test instead of stalling it.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (c *client) call(method string, params, result any) error {
	ctx := testCtx(c.t)
	return c.conn.Call(ctx, method, params).Await(ctx, result)
}

func (c *client) initialize() acp.InitializeResponse {
	c.t.Helper()
	var res acp.InitializeResponse
	if err := c.call(acp.MethodInitialize, acp.InitializeRequest{
		ProtocolVersion:    1,
		ClientCapabilities: acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true},
		ClientInfo:         &acp.Implementation{Name: "mockagent-test", Version: "0"},
	}, &res); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	return res
}

func (c *client) newSession(cwd string) string {
	c.t.Helper()
	var res acp.NewSessionResponse
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: cwd}, &res); err != nil {
		c.t.Fatalf("session/new: %v", err)
	}
	return res.SessionID
}

// start does initialize and session/new in /work.
func (c *client) start() string {
	c.t.Helper()
	c.initialize()
	return c.newSession("/work")
}

func promptReq(sid, text string) acp.PromptRequest {
	return acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}
}

// prompt sends a prompt and waits for its answer. The updates of the turn
// are then all in c.updates (the Conn handles notifications in order).
func (c *client) prompt(sid, text string) (acp.PromptResponse, error) {
	var res acp.PromptResponse
	err := c.call(acp.MethodSessionPrompt, promptReq(sid, text), &res)
	return res, err
}

// drain returns the updates received so far.
func (c *client) drain() []acp.SessionNotification {
	var out []acp.SessionNotification
	for {
		select {
		case n := <-c.updates:
			out = append(out, n)
		default:
			return out
		}
	}
}

// next waits for the next update.
func (c *client) next() acp.SessionNotification {
	c.t.Helper()
	select {
	case n := <-c.updates:
		return n
	case <-testCtx(c.t).Done():
		c.t.Fatal("no session/update arrived")
		return acp.SessionNotification{}
	}
}

// waitText waits for the agent text chunk want, failing on anything else.
func (c *client) waitText(want string) {
	c.t.Helper()
	n := c.next()
	if got := describe(n.Update); got != "text:"+want {
		c.t.Fatalf("got update %s; want text:%s", got, want)
	}
}

// describe summarises an update in one short string, for comparisons.
func describe(u acp.SessionUpdate) string {
	switch u.Kind {
	case acp.UpdateAgentMessageChunk:
		return "text:" + u.AgentMessageChunk.Content.Text
	case acp.UpdateAgentThoughtChunk:
		return "thought:" + u.AgentThoughtChunk.Content.Text
	case acp.UpdateUserMessageChunk:
		return "user:" + u.UserMessageChunk.Content.Text
	case acp.UpdateToolCall:
		return "tool_call:" + u.ToolCall.ToolCallID + ":" + string(u.ToolCall.Status)
	case acp.UpdateToolCallUpdate:
		s := "tool_call_update:" + u.ToolCallUpdate.ToolCallID
		if u.ToolCallUpdate.Status != nil {
			s += ":" + string(*u.ToolCallUpdate.Status)
		}
		return s
	case acp.UpdatePlan:
		return "plan"
	case acp.UpdateUsageUpdate:
		return "usage_update"
	}
	return "update:" + u.Kind
}

func describeAll(ns []acp.SessionNotification) []string {
	out := []string{}
	for _, n := range ns {
		out = append(out, describe(n.Update))
	}
	return out
}

// codeOf returns the JSON-RPC error code of err, or 0.
func codeOf(err error) int {
	var e *acp.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// syncBuffer is a bytes.Buffer safe for concurrent use, with a way to wait
// for content.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{changed: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the buffer contains sub.
func (s *syncBuffer) waitFor(t *testing.T, sub string) {
	t.Helper()
	ctx := testCtx(t)
	for !bytes.Contains([]byte(s.String()), []byte(sub)) {
		select {
		case <-s.changed:
		case <-ctx.Done():
			t.Fatalf("stderr %q never contained %q", s.String(), sub)
		}
	}
}

// mock is an in-process agent.
type mock struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	stderr *syncBuffer
}

// wait returns Run's result.
func (m *mock) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-m.done:
		return m.err
	case <-testCtx(t).Done():
		t.Fatal("mockagent.Run did not return")
		return nil
	}
}

// runMock parses script and runs it in-process over net.Pipe, with a client
// connected. Cleanup closes the client, stops the agent and checks that no
// goroutine leaked.
func runMock(t *testing.T, script string, serve serveFunc) (*client, *mock) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	s, err := mockagent.Parse("test.yaml", []byte(script))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	agentSide, clientSide := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	m := &mock{cancel: cancel, done: make(chan struct{}), stderr: newSyncBuffer()}
	go func() {
		defer close(m.done)
		m.err = mockagent.Run(ctx, s, agentSide, agentSide, m.stderr)
	}()
	c := newClient(t, clientSide, clientSide, serve)
	t.Cleanup(func() {
		c.conn.Close()
		cancel()
		<-m.done
		agentSide.Close()
	})
	return c, m
}
