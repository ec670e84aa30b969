package runner

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// quickSession is a session in its first turn under a policy that denies
// rm -rf and allows the rest.
func quickSession(delay time.Duration) (*session, *turnState, *permissionLog, *observer) {
	log := &permissionLog{}
	o := &observer{o: log}
	s := &session{sessionID: "s1", act: newActivity(), delay: delay,
		policy: &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "s.yaml:4", Command: []string{"rm -rf *"}}}},
		obs:    o.forJob(Ref{Name: "quick"}, redact.New())}
	t := s.startTurn(1, "go", nil, false)
	return s, t, log, o
}

func permissionAsk(i int) *acp.Request {
	title, kind := fmt.Sprintf("cat f%d", i), "read"
	if i%2 == 0 {
		title, kind = fmt.Sprintf("rm -rf b%d", i), "execute"
	}
	params := fmt.Appendf(nil, `{"sessionId":"s1","toolCall":{"toolCallId":"t%d","title":%q,"kind":%q,"rawInput":{"command":%q}},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}`, i, title, kind, title)
	return &acp.Request{ID: &acp.ID{}, Method: acp.MethodSessionRequestPermission, Params: params}
}

// TestHandleQuickIsHandle: a permission request answered by HandleQuick
// gets the answer, the record and the Observer's call Handle gives it.
func TestHandleQuickIsHandle(t *testing.T) {
	quick, qt, qlog, _ := quickSession(0)
	slow, st, slog, _ := quickSession(0)
	ctx := context.Background()
	for i := range 6 {
		req := permissionAsk(i)
		quick.Received(req)
		qr, ok, qerr := quick.HandleQuick(req)
		if !ok {
			t.Fatalf("request %d declined; want it answered at once", i)
		}
		req = permissionAsk(i)
		slow.Received(req)
		sr, serr := slow.Handle(ctx, req)
		if diff := cmp.Diff(sr, qr); diff != "" || fmt.Sprint(qerr) != fmt.Sprint(serr) {
			t.Errorf("request %d: answer (-Handle +HandleQuick):\n%s\nerrors %v, %v", i, diff, serr, qerr)
		}
	}
	if diff := cmp.Diff(slow.snapshot(st), quick.snapshot(qt)); diff != "" {
		t.Errorf("turn record (-Handle +HandleQuick):\n%s", diff)
	}
	if diff := cmp.Diff(slog.decided, qlog.decided); diff != "" || len(qlog.decided) != 6 {
		t.Errorf("Observer told (-Handle +HandleQuick):\n%s", diff)
	}
	if quick.allowed != 3 || quick.denied != 3 {
		t.Errorf("allowed/denied = %d/%d; want 3/3", quick.allowed, quick.denied)
	}
	if len(quick.arrivals) != 0 {
		t.Errorf("%d arrivals left; want none", len(quick.arrivals))
	}
}

// TestHandleQuickDeclines: with an answer delay, in a cancelled turn, and
// while the Observer is busy, HandleQuick declines without recording
// anything, and Handle then answers as usual.
func TestHandleQuickDeclines(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, s *session, tr *turnState, log *permissionLog, prepare, after func(), wantOutcome string) {
		t.Helper()
		req := permissionAsk(1)
		s.Received(req)
		prepare()
		if _, ok, _ := s.HandleQuick(req); ok {
			t.Fatal("HandleQuick answered; want it declined")
		}
		if got := s.snapshot(tr).Permissions; len(got) != 0 || len(log.decided) != 0 {
			t.Fatalf("declined, yet recorded %+v, told %+v", got, log.decided)
		}
		after()
		resp, err := s.Handle(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.(acp.RequestPermissionResponse).Outcome.Outcome; got != wantOutcome {
			t.Errorf("Handle answered %q; want %q", got, wantOutcome)
		}
		if got := s.snapshot(tr).Permissions; len(got) != 1 || got[0].Outcome != wantOutcome || len(log.decided) != 1 {
			t.Errorf("recorded %+v, told %+v; want one %s", got, log.decided, wantOutcome)
		}
	}
	t.Run("answer delay", func(t *testing.T) {
		s, tr, log, _ := quickSession(time.Nanosecond)
		check(t, s, tr, log, func() {}, func() {}, acp.OutcomeSelected)
	})
	t.Run("cancelled turn", func(t *testing.T) {
		s, tr, log, _ := quickSession(0)
		check(t, s, tr, log, func() { s.cancelTurn(tr) }, func() { s.sentCancel(tr) }, acp.OutcomeCancelled)
	})
	t.Run("busy observer", func(t *testing.T) {
		s, tr, log, o := quickSession(0)
		check(t, s, tr, log, func() { o.mu.Lock() }, func() { o.mu.Unlock() }, acp.OutcomeSelected)
	})
}

// TestDecisionIsOnTheCallAsAsked: the policy decides on the tool call as
// the stream told it up to the permission request, whenever the answer is
// made: an update that comes after the request (while the answer waits
// its delay, on another goroutine) does not change it.
func TestDecisionIsOnTheCallAsAsked(t *testing.T) {
	s := &session{sessionID: "s1", act: newActivity(), delay: time.Nanosecond, cwd: "/w",
		policy: &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "s.yaml:4", Kind: []string{"edit"}, Path: []string{"src/**"}}}},
		obs:    (&observer{o: &permissionLog{}}).forJob(Ref{Name: "asked"}, redact.New())}
	tr := s.startTurn(1, "go", nil, false)
	update := func(js string) {
		t.Helper()
		n, err := acp.DecodeSessionNotification([]byte(`{"sessionId":"s1","update":` + js + `}`))
		if err != nil {
			t.Fatal(err)
		}
		s.update(n)
	}
	update(`{"sessionUpdate":"tool_call","toolCallId":"e1","title":"Edit","kind":"edit","locations":[{"path":"/w/src/a.go"}]}`)
	req := &acp.Request{ID: &acp.ID{}, Method: acp.MethodSessionRequestPermission,
		Params: []byte(`{"sessionId":"s1","toolCall":{"toolCallId":"e1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}`)}
	s.Received(req)
	update(`{"sessionUpdate":"tool_call_update","toolCallId":"e1","locations":[{"path":"/etc/passwd"}]}`)
	resp, err := s.Handle(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.(acp.RequestPermissionResponse).Outcome.OptionID; got != "allow" {
		t.Errorf("answered %q; want allow: the call touched src/a.go when it was asked about", got)
	}
	if got := s.snapshot(tr).Permissions; len(got) != 1 || !slices.Equal(got[0].Paths, []string{"/w/src/a.go"}) {
		t.Errorf("recorded %+v; want the paths as asked", got)
	}
}
