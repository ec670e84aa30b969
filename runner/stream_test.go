package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// updateRecorder is an UpdateObserver that records the Updates it gets.
type updateRecorder struct {
	wants   bool
	updates []string
}

func (r *updateRecorder) ScenarioStarted(Ref)                      {}
func (r *updateRecorder) TurnStarted(Ref, int)                     {}
func (r *updateRecorder) TurnFinished(Ref, report.TurnResult)      {}
func (r *updateRecorder) Warning(Ref, string)                      {}
func (r *updateRecorder) PermissionDecided(Ref, report.Permission) {}
func (r *updateRecorder) ScenarioFinished(j Ref, res report.Result) {
	r.updates = append(r.updates, "finished")
}
func (r *updateRecorder) WantsUpdates() bool { return r.wants }
func (r *updateRecorder) Update(j Ref, u Update) {
	kind := u.Kind
	if u.Late {
		kind = "late " + kind
	}
	s := fmt.Sprintf("%s %d %s: %q", j.Name, u.Turn, kind, u.Text)
	if u.Kind == UpdateToolCall {
		s = fmt.Sprintf("%s %d tool %s %q [%s] %s %s", j.Name, u.Turn, u.ToolCallID, u.Title, u.ToolName, u.ToolKind, u.Status)
	}
	r.updates = append(r.updates, s)
}

func textChunk(s string) *acp.SessionUpdate {
	return &acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(s)}}
}

func thoughtChunk(s string) *acp.SessionUpdate {
	return &acp.SessionUpdate{AgentThoughtChunk: &acp.ContentChunk{Content: acp.TextBlock(s)}}
}

// TestStreamLines checks how what the agent sends becomes Updates: text
// joined into lines, sent at a line break, when the agent moves on to
// something else and at the end of the turn and of the job; tool calls as
// they start and change status, in a later turn too (with what their turn
// said of them), an update without an id ignored; all in arrival order and
// redacted, a secret split between chunks included.
func TestStreamLines(t *testing.T) {
	t.Parallel()
	const secret = "ghp_s3cretvalue"
	rec := &updateRecorder{wants: true}
	o := &observer{o: rec}
	ref := Ref{Name: "s"}
	jo := o.forJob(ref, redact.New(secret))
	status := func(s acp.ToolCallStatus) *acp.ToolCallStatus { return &s }
	sess := &session{}
	update := func(u *acp.SessionUpdate) { jo.update(u, sess) }

	update(textChunk("before the first turn\n"))
	t1 := sess.startTurn(1, "one", nil, false)
	update(thoughtChunk("I should "))
	update(thoughtChunk("look.\n\n"))
	update(textChunk("Hello, "))
	update(textChunk("world.\r\nThe token is ghp_s3c"))
	update(textChunk("retvalue, and "))
	update(textChunk("ghp_s3")) // may begin the secret: held back at the tool call
	update(&acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c1", Title: "cat " + secret, Name: "Read", Kind: acp.ToolKind("read")}})
	update(&acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: status(acp.StatusInProgress)}})
	name := "Bash " + secret
	update(&acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Name: &name, Content: []acp.ToolCallContent{}}}) // no new status
	update(&acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: status(acp.StatusCompleted)}})
	update(textChunk("cretvalue again"))
	t1.answered = true
	update(textChunk("late, "))
	jo.turn(report.TurnResult{Index: 1}) // sends the turn's own text, not the late one
	update(textChunk("no line break"))
	sess.startTurn(2, "two", nil, false)
	update(textChunk("second turn"))
	// Turn 1's call, then a call without an id and an update of no call.
	update(&acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: status(acp.StatusFailed)}})
	update(&acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "", Title: "no id", Kind: acp.ToolKind("read")}})
	update(&acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "", Status: status(acp.StatusFailed)}})
	jo.flush() // the job's end
	o.call(func(ob Observer) { ob.ScenarioFinished(ref, report.Result{}) })

	want := []string{
		`s 0 text: "before the first turn"`,
		`s 1 thought: "I should look."`,
		`s 1 text: "Hello, world."`,
		`s 1 text: "The token is [REDACTED], and "`,
		`s 1 tool c1 "cat [REDACTED]" [Read] read pending`,
		`s 1 tool c1 "cat [REDACTED]" [Read] read in_progress`,
		`s 1 tool c1 "cat [REDACTED]" [Bash [REDACTED]] read completed`,
		`s 1 text: "[REDACTED] again"`,
		`s 1 late text: "late, no line break"`,
		`s 2 text: "second turn"`,
		`s 2 tool c1 "cat [REDACTED]" [Bash [REDACTED]] read failed`,
		`s 2 tool  "no id" [] read pending`,
		"finished",
	}
	if diff := cmp.Diff(want, rec.updates); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

// TestStreamSecretSplitBetweenTextAndThoughts: a secret an agent spreads
// over its text and its thoughts is redacted in the lines of the one where
// it starts, and dropped from the other's.
func TestStreamSecretSplitBetweenTextAndThoughts(t *testing.T) {
	t.Parallel()
	const secret = "ghp_Interleave1234567890abcdefXYZ"
	rec := &updateRecorder{wants: true}
	o := &observer{o: rec}
	jo := o.forJob(Ref{Name: "s"}, redact.New(secret))
	sess := &session{}
	sess.startTurn(1, "one", nil, false)
	jo.update(textChunk("key "+secret[:19]), sess)
	jo.update(thoughtChunk(secret[19:]+" rest"), sess)
	jo.update(textChunk(" more words"), sess)
	jo.flush()
	want := []string{`s 1 text: "key [REDACTED]"`, `s 1 thought: " rest"`, `s 1 text: " more words"`}
	if diff := cmp.Diff(want, rec.updates); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

// TestStreamLongLine checks that a line that never ends is passed on in
// parts of about MaxUpdateLine bytes, none holding a secret cut between
// parts, and that memory stays bounded.
func TestStreamLongLine(t *testing.T) {
	t.Parallel()
	const secret = "ghp_s3cretvalue"
	rec := &updateRecorder{wants: true}
	o := &observer{o: rec}
	jo := o.forJob(Ref{Name: "s"}, redact.New(secret))
	sess := &session{}
	sess.startTurn(1, "one", nil, false)
	chunk := strings.Repeat("x", 1000) + secret
	for range 100 {
		for _, c := range []string{chunk[:1005], chunk[1005:]} { // split inside the secret
			jo.update(textChunk(c), sess)
			if n := jo.s.text.b.Len(); n > MaxUpdateLine+len(chunk) {
				t.Fatalf("%d bytes held", n)
			}
		}
	}
	jo.turn(report.TurnResult{Index: 1})
	var all strings.Builder
	for _, u := range rec.updates {
		if strings.Contains(u, "ghp_") || strings.Contains(u, "s3cret") {
			t.Errorf("a part holds (part of) the secret: %.200q", u)
		}
		all.WriteString(u)
	}
	if len(rec.updates) < 5 {
		t.Errorf("%d updates; want the line in parts", len(rec.updates))
	}
	if got := strings.Count(all.String(), redact.Marker); got != 100 {
		t.Errorf("%d markers; want 100", got)
	}
}

// TestStreamOff checks that nothing is streamed, nor kept, when the
// Observer does not want Updates.
func TestStreamOff(t *testing.T) {
	t.Parallel()
	for _, ob := range []Observer{&updateRecorder{wants: false}, nil} {
		o := &observer{o: ob}
		jo := o.forJob(Ref{Name: "s"}, nil)
		if jo.s != nil {
			t.Errorf("%T: a streamer was made", ob)
		}
		jo.update(textChunk("hi\n"), &session{}) // must not panic
	}
	var none *jobObserver
	none.update(textChunk("hi\n"), nil)
}
