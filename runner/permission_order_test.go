package runner

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// permissionLog is an Observer that keeps the permission decisions it is
// told of.
type permissionLog struct {
	updateRecorder
	decided []report.Permission
}

func (l *permissionLog) PermissionDecided(_ Ref, p report.Permission) {
	l.decided = append(l.decided, p)
}

// permissionAsk is the permission request of tool call t<i>: rm -rf for
// an even i, a read for an odd one.
func permissionAsk(i int) *acp.Request {
	title, kind := fmt.Sprintf("cat f%d", i), "read"
	if i%2 == 0 {
		title, kind = fmt.Sprintf("rm -rf b%d", i), "execute"
	}
	params := fmt.Appendf(nil, `{"sessionId":"s1","toolCall":{"toolCallId":"t%d","title":%q,"kind":%q,"rawInput":{"command":%q}},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}`, i, title, kind, title)
	id := acp.ID{}
	_ = json.Unmarshal(fmt.Appendf(nil, "%d", i), &id)
	return &acp.Request{ID: &id, Method: acp.MethodSessionRequestPermission, Params: params}
}

// TestPermissionsToldInOrder: permission requests the agent sends without
// waiting for the answers are recorded in the order they came, whatever
// the answer delay (which answers them concurrently), and each gets the
// answer of its decision; they are told to the Observer in that order too.
func TestPermissionsToldInOrder(t *testing.T) {
	t.Parallel()
	const n = 40
	for _, delay := range []time.Duration{0, time.Millisecond} {
		t.Run(fmt.Sprint(delay), func(t *testing.T) {
			log := &permissionLog{}
			s := &session{sessionID: "s1", act: newActivity(), delay: delay,
				policy: &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "s.yaml:4", Command: []string{"rm -rf *"}}}},
				obs:    (&observer{o: log}).forJob(Ref{Name: "order"}, redact.New())}
			tr := s.startTurn(1, "go", nil, false)
			ours, theirs := net.Pipe()
			conn := acp.NewConn(ours, ours, s, nil)
			defer conn.Close()
			defer theirs.Close()
			go func() {
				for i := range n {
					req := permissionAsk(i)
					fmt.Fprintf(theirs, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`+"\n", req.ID, req.Method, req.Params)
				}
			}()
			answers := map[string]string{}
			sc := bufio.NewScanner(theirs)
			for range n {
				if !sc.Scan() {
					t.Fatal(sc.Err())
				}
				var m struct {
					ID     json.RawMessage
					Result acp.RequestPermissionResponse
				}
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				answers[string(m.ID)] = m.Result.Outcome.OptionID
			}
			conn.Close() // each answer is recorded once its write has returned
			got := s.snapshot(tr).Permissions
			if len(got) != n || len(log.decided) != n {
				t.Fatalf("recorded %d, told %d; want %d each", len(got), len(log.decided), n)
			}
			for i := range n {
				want := "allow"
				if i%2 == 0 {
					want = "reject"
				}
				id := fmt.Sprintf("t%d", i)
				if got[i].ToolCallID != id || got[i].OptionID != want || answers[fmt.Sprint(i)] != want {
					t.Fatalf("request %d: recorded %+v, answered %q; want %s in order, answered %s", i, got[i], answers[fmt.Sprint(i)], id, want)
				}
				if log.decided[i].ToolCallID != id {
					t.Fatalf("Observer told of %+v as decision %d; want %s", log.decided[i], i, id)
				}
			}
		})
	}
}

// TestDecisionIsOnTheCallAsAsked: the policy decides on the tool call as
// the stream told it up to the permission request, whenever the answer is
// made: an update that comes after the request (while the answer waits
// its delay, off the line) does not change it.
func TestDecisionIsOnTheCallAsAsked(t *testing.T) {
	t.Parallel()
	s := &session{sessionID: "s1", act: newActivity(), delay: time.Millisecond, cwd: "/w",
		policy: &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "s.yaml:4", Kind: []string{"edit"}, Path: []string{"src/**"}}}},
		obs:    (&observer{o: &permissionLog{}}).forJob(Ref{Name: "asked"}, redact.New())}
	tr := s.startTurn(1, "go", nil, false)
	ours, theirs := net.Pipe()
	conn := acp.NewConn(ours, ours, s, nil)
	defer conn.Close()
	defer theirs.Close()
	go io.WriteString(theirs, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"e1","title":"Edit","kind":"edit","locations":[{"path":"/w/src/a.go"}]}}}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"e1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`+"\n"+
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"e1","locations":[{"path":"/etc/passwd"}]}}}`+"\n")
	line, err := bufio.NewReader(theirs).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Result acp.RequestPermissionResponse }
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	if got := m.Result.Outcome.OptionID; got != "allow" {
		t.Errorf("answered %q; want allow: the call touched src/a.go when it was asked about", got)
	}
	conn.Close() // the answer is recorded once its write has returned
	if got := s.snapshot(tr).Permissions; len(got) != 1 || !slices.Equal(got[0].Paths, []string{"/w/src/a.go"}) {
		t.Errorf("recorded %+v; want the paths as asked", got)
	}
}

// TestPermToldInOrder: answers written in any order are told in the
// order of their requests, each as soon as those before it have been.
func TestPermToldInOrder(t *testing.T) {
	t.Parallel()
	var p permTold
	seqs := []int{p.take(), p.take(), p.take(), p.take()}
	var told []string
	tell := func(seq int) {
		p.tell(seq, report.Permission{ToolCallID: fmt.Sprint("t", seq)}, func(r report.Permission) { told = append(told, r.ToolCallID) })
	}
	tell(seqs[2])
	tell(seqs[1])
	if len(told) != 0 {
		t.Fatalf("told %q before the first answer was written", told)
	}
	tell(seqs[0])
	if want := []string{"t0", "t1", "t2"}; !slices.Equal(told, want) {
		t.Fatalf("told %q, want %q", told, want)
	}
	tell(seqs[3])
	if want := []string{"t0", "t1", "t2", "t3"}; !slices.Equal(told, want) {
		t.Fatalf("told %q, want %q", told, want)
	}
}

// TestPermissionAnswersWrittenInOrder: permission requests the agent sends
// without waiting for the answers get their answers in the order they
// came, every run, when the answers wait (the answer delay, or a cancel
// that answers every pending one at once) and so are made by goroutines
// that wake together; questions (elicitation/create) among them too,
// which a cancel answers cancelled at the same moment.
func TestPermissionAnswersWrittenInOrder(t *testing.T) {
	t.Parallel()
	const n = 40
	for _, c := range []struct{ cancel, questions bool }{{false, false}, {true, false}, {true, true}} {
		cancel := c.cancel
		t.Run(fmt.Sprintf("cancel=%v,questions=%v", c.cancel, c.questions), func(t *testing.T) {
			delay := time.Millisecond
			if cancel {
				delay = time.Hour // only the cancel answers them
			}
			s := &session{sessionID: "s1", act: newActivity(), delay: delay,
				policy: &approve.Policy{Default: approve.Allow},
				obs:    (&observer{o: &permissionLog{}}).forJob(Ref{Name: "written"}, redact.New())}
			tr := s.startTurn(1, "go", nil, false)
			ours, theirs := net.Pipe()
			conn := acp.NewConn(ours, ours, s, nil)
			defer conn.Close()
			defer theirs.Close()
			go func() {
				for i := range n {
					req := permissionAsk(i)
					if c.questions && i%3 == 1 { // a question among them, answered cancelled too
						req.Method, req.Params = acp.MethodElicitationCreate, json.RawMessage(`{"sessionId":"s1","mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{}}}`)
					}
					fmt.Fprintf(theirs, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`+"\n", req.ID, req.Method, req.Params)
				}
				if cancel {
					// Every request has been read (the pipe's writes
					// return once it has); once handled, each waits.
					if err := conn.WaitHandled(context.Background()); err != nil {
						t.Error(err)
					}
					s.mu.Lock()
					tr.markCancelled()
					s.mu.Unlock()
					s.sentCancel(tr, false)
				}
			}()
			sc := bufio.NewScanner(theirs)
			var ids []string
			for range n {
				if !sc.Scan() {
					t.Fatal(sc.Err())
				}
				var m struct{ ID json.RawMessage }
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, string(m.ID))
			}
			for i, id := range ids {
				if id != fmt.Sprint(i) {
					t.Fatalf("answers written for ids %s; want 0 to %d in order", strings.Join(ids, " "), n-1)
				}
			}
		})
	}
}
