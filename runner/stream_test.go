package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/redact"
)

// updateRecorder is an UpdateObserver that records the Updates it gets.
type updateRecorder struct {
	wants   bool
	updates []string
}

func (r *updateRecorder) ScenarioStarted(Ref)               {}
func (r *updateRecorder) TurnStarted(Ref, int)              {}
func (r *updateRecorder) TurnFinished(Ref, TurnResult)      {}
func (r *updateRecorder) Warning(Ref, string)               {}
func (r *updateRecorder) PermissionDecided(Ref, Permission) {}
func (r *updateRecorder) ScenarioFinished(j Ref, res Result) {
	r.updates = append(r.updates, "finished")
}
func (r *updateRecorder) WantsUpdates() bool { return r.wants }
func (r *updateRecorder) Update(j Ref, u Update) {
	s := fmt.Sprintf("%s %d %s: %q", j.Name, u.Turn, u.Kind, u.Text)
	if u.Kind == UpdateToolCall {
		s = fmt.Sprintf("%s %d tool %s %q %s %s", j.Name, u.Turn, u.ToolCallID, u.Title, u.ToolKind, u.Status)
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
// they start and change status; all in arrival order and redacted, a
// secret split between chunks included.
func TestStreamLines(t *testing.T) {
	const secret = "ghp_s3cretvalue"
	rec := &updateRecorder{wants: true}
	o := &observer{o: rec}
	ref := Ref{Name: "s"}
	jo := o.forJob(ref, redact.New(secret))
	status := func(s acp.ToolCallStatus) *acp.ToolCallStatus { return &s }

	jo.update(textChunk("before the first turn\n"))
	jo.turnStarted(1)
	jo.update(thoughtChunk("I should "))
	jo.update(thoughtChunk("look.\n\n"))
	jo.update(textChunk("Hello, "))
	jo.update(textChunk("world.\r\nThe token is ghp_s3c"))
	jo.update(textChunk("retvalue, and "))
	jo.update(textChunk("ghp_s3")) // may begin the secret: held back at the tool call
	jo.update(&acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c1", Title: "cat " + secret, Kind: acp.ToolKind("read")}})
	jo.update(&acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: status(acp.StatusInProgress)}})
	jo.update(&acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Content: []acp.ToolCallContent{}}}) // no new status
	jo.update(&acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: status(acp.StatusCompleted)}})
	jo.update(textChunk("cretvalue again"))
	jo.turn(TurnResult{Index: 1})
	jo.turnStarted(2)
	jo.update(textChunk("late, no line break"))
	o.finished(ref, Result{})

	want := []string{
		`s 0 text: "before the first turn"`,
		`s 1 thought: "I should look."`,
		`s 1 text: "Hello, world."`,
		`s 1 text: "The token is [REDACTED], and "`,
		`s 1 tool c1 "cat [REDACTED]" read pending`,
		`s 1 tool c1 "cat [REDACTED]" read in_progress`,
		`s 1 tool c1 "cat [REDACTED]" read completed`,
		`s 1 text: "[REDACTED] again"`,
		`s 2 text: "late, no line break"`,
		"finished",
	}
	if diff := cmp.Diff(want, rec.updates); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

// TestStreamLongLine checks that a line that never ends is passed on in
// parts of about MaxUpdateLine bytes, none holding a secret cut between
// parts, and that memory stays bounded.
func TestStreamLongLine(t *testing.T) {
	const secret = "ghp_s3cretvalue"
	rec := &updateRecorder{wants: true}
	o := &observer{o: rec}
	jo := o.forJob(Ref{Name: "s"}, redact.New(secret))
	jo.turnStarted(1)
	chunk := strings.Repeat("x", 1000) + secret
	for range 100 {
		for _, c := range []string{chunk[:1005], chunk[1005:]} { // split inside the secret
			jo.update(textChunk(c))
			if n := jo.s.text.b.Len(); n > MaxUpdateLine+len(chunk) {
				t.Fatalf("%d bytes held", n)
			}
		}
	}
	jo.turn(TurnResult{Index: 1})
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
	for _, ob := range []Observer{&updateRecorder{wants: false}, nil} {
		o := &observer{o: ob}
		jo := o.forJob(Ref{Name: "s"}, nil)
		if jo.s != nil {
			t.Errorf("%T: a streamer was made", ob)
		}
		jo.update(textChunk("hi\n")) // must not panic
	}
	var none *jobObserver
	none.update(textChunk("hi\n"))
}
