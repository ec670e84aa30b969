package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// chunkLine is an agent_message_chunk of session s with text.
func chunkLine(s, text string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + s +
		`","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`
}

// flush waits until every line queued so far is written.
func (t *transcript) flush() { t.q.Flush() }

// testTranscript is a transcript in a file of the test's for secrets, with
// a func that taps it a line, and one that returns what it has written.
func testTranscript(t *testing.T, secrets ...string) (*transcript, func(acp.Direction, string), func() string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := startTranscript(path, f, f, redact.New(secrets...), maxTranscriptHeld)
	tap := func(dir acp.Direction, line string) {
		tr.tap(dir, []byte(line), time.Now())
		if dir == acp.Sent {
			tr.tap(acp.Written, []byte(line), time.Now())
		}
	}
	written := func() string {
		tr.flush()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return tr, tap, written
}

// promptLine is acprun's session/prompt request id of session s.
func promptLine(id int, s string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[]}}`, id, s)
}

// endTurnLine is the agent's answer to the session/prompt request id.
func endTurnLine(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id)
}

// TestTranscriptHoldsChunksThatMayBeginASecret: a secret split between
// chunks is redacted where it starts; a chunk whose end may begin a
// secret, and the lines after it, wait for the next chunk of its stream,
// or for the transcript's end, and no longer.
func TestTranscriptHoldsChunksThatMayBeginASecret(t *testing.T) {
	t.Parallel()
	tr, tap, written := testTranscript(t, "ghp_abcdefghijklmnop1234")
	tap(acp.Sent, promptLine(1, "s1"))
	tap(acp.Received, chunkLine("s1", "the token is ghp_"))
	tap(acp.Sent, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	if got := written(); strings.Contains(got, "the token") || strings.Contains(got, "session/cancel") {
		t.Fatalf("written before the next chunk: %s", got)
	}
	tap(acp.Received, chunkLine("s1", "abcdefghijklmnop1234, done. g"))
	if got := written(); strings.Contains(got, "the token") {
		t.Fatalf("written while the text ends with what may begin a secret: %s", got)
	}
	tap(acp.Received, chunkLine("s1", "ood. g"))
	got := written()
	if !strings.Contains(got, `"text":"the token is [REDACTED]"`) || !strings.Contains(got, `"text":", done. g"`) ||
		strings.Contains(got, "abcdefghijklmnop") {
		t.Errorf("the split secret is not redacted where it starts:\n%s", got)
	}
	if !strings.Contains(got, "session/cancel") || strings.Contains(got, "ood. g") {
		t.Errorf("want every line but the last chunk written (its end may begin a secret):\n%s", got)
	}
	// The transcript's end ends the stream.
	tap(acp.Received, endTurnLine(1))
	if err := tr.close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if got := written(); !strings.Contains(got, `"text":"ood. g"`) || !strings.Contains(got, "end_turn") {
		t.Errorf("the transcript ended, yet lines are held:\n%s", got)
	}
}

// TestTranscriptSecretSplitAcrossTurns: a secret whose beginning ends a
// turn's text and whose rest begins the next turn's is redacted where it
// starts, for the chunks of the two turns follow each other in the file:
// the turn's end does not end the stream, and its lines wait with the
// chunk that may begin a secret.
func TestTranscriptSecretSplitAcrossTurns(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCDEF123456"
	tr, tap, written := testTranscript(t, secret)
	tap(acp.Sent, promptLine(1, "s1"))
	tap(acp.Received, chunkLine("s1", "one sk-live-ABC"))
	tap(acp.Received, endTurnLine(1))
	tap(acp.Sent, promptLine(2, "s1"))
	if got := written(); strings.Contains(got, "one ") || strings.Contains(got, "end_turn") {
		t.Errorf("written before the next turn's chunk tells:\n%s", got)
	}
	tap(acp.Received, chunkLine("s1", "DEF123456 two"))
	tap(acp.Received, endTurnLine(2))
	if err := tr.close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	got := written()
	if msg := testkit.StreamedTexts([]byte(got))["agent_message_chunk"]; msg != "one [REDACTED] two" || strings.Contains(got, "DEF123") {
		t.Errorf("the message's chunks say %q, want %q:\n%s", msg, "one [REDACTED] two", got)
	}
	if strings.Count(got, "session/prompt") != 2 || strings.Count(got, "end_turn") != 2 {
		t.Errorf("want both turns' prompts and answers written:\n%s", got)
	}
}

// TestTranscriptStreamsInterleaved: a secret streamed over chunks with
// other lines between them (a tool call, another stream's chunk) is
// redacted as in the turn's text, each stream on its own, and every line
// stays in its place.
func TestTranscriptStreamsInterleaved(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCDEF123456"
	tr, tap, written := testTranscript(t, secret)
	thought := func(text string) string {
		return strings.Replace(chunkLine("s1", text), "agent_message_chunk", "agent_thought_chunk", 1)
	}
	tap(acp.Sent, promptLine(3, "s1"))
	tap(acp.Received, chunkLine("s1", "E sk-live-ABC"))
	tap(acp.Received, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"between"}}}`)
	if got := written(); strings.Contains(got, "sk-live") || strings.Contains(got, "tool_call") {
		t.Errorf("written before the message's next chunk tells:\n%s", got)
	}
	tap(acp.Received, chunkLine("s1", "DEF123456 F "))
	tap(acp.Received, thought("T1 sk-live-ABCD"))
	tap(acp.Received, chunkLine("s1", "G "))
	tap(acp.Received, thought("EF123456 T2"))
	tap(acp.Received, endTurnLine(3))
	if err := tr.close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	got := written()
	want := map[string]string{"": "", "agent_message_chunk": "E [REDACTED] F G ", "agent_thought_chunk": "T1 [REDACTED] T2", "tool_call": ""}
	if diff := cmp.Diff(want, testkit.StreamedTexts([]byte(got))); diff != "" || strings.Contains(got, "EF123456") {
		t.Errorf("streams joined (-want +got):\n%s\n%s", diff, got)
	}
	at := -1
	for _, w := range []string{"session/prompt", `"E `, "tool_call", ` F "`, `"T1 `, `"G "`, ` T2"`, "end_turn"} {
		i := strings.Index(got, w)
		if i <= at {
			t.Errorf("%s is not after the lines before it:\n%s", w, got)
			break
		}
		at = i
	}
}

// TestTranscriptSecretSplitBetweenMessageAndThoughts: a secret an agent
// spreads over a chunk of its message and one of its thoughts is redacted
// where it starts and dropped from the other, as one split in its own
// stream is; the chunk that may begin it waits for the next chunk of
// either.
func TestTranscriptSecretSplitBetweenMessageAndThoughts(t *testing.T) {
	t.Parallel()
	const secret = "ghp_Interleave1234567890abcdefXYZ"
	tr, tap, written := testTranscript(t, secret)
	tap(acp.Sent, promptLine(1, "s1"))
	tap(acp.Received, chunkLine("s1", "key "+secret[:19]))
	tap(acp.Received, strings.Replace(chunkLine("s1", secret[19:]+" rest"), "agent_message_chunk", "agent_thought_chunk", 1))
	tap(acp.Received, chunkLine("s1", " more words"))
	tap(acp.Received, endTurnLine(1))
	if err := tr.close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	got := written()
	want := map[string]string{"": "", "agent_message_chunk": "key [REDACTED] more words", "agent_thought_chunk": " rest"}
	if diff := cmp.Diff(want, testkit.StreamedTexts([]byte(got))); diff != "" || partOf(secret, got) != "" {
		t.Errorf("streams (-want +got):\n%s\n%s", diff, got)
	}
}

// TestTranscriptHoldsNoMoreThanMaxHeld: past maxHeld bytes of lines held
// behind a chunk that waits, the chunk is written with the end of its text
// that may begin a secret redacted, and the stream's next chunks are
// redacted with that end: no part of the secret is written.
func TestTranscriptHoldsNoMoreThanMaxHeld(t *testing.T) {
	t.Parallel()
	tr, tap, written := testTranscript(t, "sk-live-ABCDEF123456")
	tap(acp.Sent, promptLine(1, "s1"))
	tap(acp.Received, chunkLine("s1", "x sk-live-ABC"))
	long := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"` +
		strings.Repeat("a", maxHeld/2) + `"}}}`
	tap(acp.Received, long)
	if got := written(); strings.Contains(got, "x sk-") || strings.Contains(got, "tool_call") {
		t.Fatalf("written before maxHeld bytes were held:\n%.200s", got)
	}
	tap(acp.Received, long)
	if got := written(); !strings.Contains(got, `"text":"x [REDACTED]"`) || strings.Count(got, "tool_call") != 2 {
		t.Fatalf("past maxHeld, want every line written, the chunk's end redacted:\n%.200s", got)
	}
	tap(acp.Received, chunkLine("s1", "DEF123456 y"))
	tap(acp.Received, endTurnLine(1))
	if err := tr.close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if got := testkit.StreamedTexts([]byte(written()))["agent_message_chunk"]; got != "x [REDACTED] y" {
		t.Errorf("the message's chunks say %q, want %q", got, "x [REDACTED] y")
	}
}

// TestTranscriptCutOutputs: acprun's answers to terminal/output are
// written with a secret redacted where the output cuts it: at its
// beginning (truncated) and at its end while the command still runs (no
// exitStatus: what follows may finish it); the whole output of a command
// that exited is redacted as any text. A long secret wrapped over lines is
// redacted in any of them.
func TestTranscriptCutOutputs(t *testing.T) {
	t.Parallel()
	const secret = "supersecretvalue123"
	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := startTranscript(path, f, f, redact.New(secret), maxTranscriptHeld)
	answers := map[string]string{
		"running":               `{"output":"tok=supersecretv","truncated":false}`,
		"running and truncated": `{"output":"ecretvalue123 tok=supersecretv","truncated":true}`,
		"truncated, exited":     `{"output":"ecretvalue123 done","truncated":true,"exitStatus":{"exitCode":0}}`,
		"whole, exited":         `{"output":"tok=supersecretv","truncated":false,"exitStatus":{"exitCode":0}}`,
		"wrapped, exited":       `{"output":"tok=supersec\nretvalue123\ndone","truncated":false,"exitStatus":{"exitCode":0}}`,
		"wrapped, truncated":    `{"output":"lue123 tok=supe\r\nrsecretvalue123\n","truncated":true}`,
	}
	want := map[string]string{
		"running":               "tok=[REDACTED]",
		"running and truncated": "[REDACTED] tok=[REDACTED]",
		"truncated, exited":     "[REDACTED] done",
		"whole, exited":         "tok=supersecretv", // no secret: the command said no more
		"wrapped, exited":       "tok=[REDACTED]\ndone",
		"wrapped, truncated":    "[REDACTED] tok=[REDACTED]\n",
	}
	ids := map[int]string{}
	id := 0
	for name, result := range answers {
		id++
		ids[id] = name
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result)
		tr.tap(acp.Sent, []byte(line), time.Now())
		tr.tap(acp.Written, nil, time.Now())
	}
	if err := tr.close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for l := range strings.Lines(string(data)) {
		var rec struct {
			Msg struct {
				ID     int `json:"id"`
				Result struct {
					Output string `json:"output"`
				} `json:"result"`
			} `json:"msg"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		got[ids[rec.Msg.ID]] = rec.Msg.Result.Output
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs in the transcript (-want +got):\n%s", diff)
	}
}

// TestTranscriptKeepsOnlyWhatWasWritten: a line acprun writes waits,
// with the agent's lines after it, until its write has ended; then it is
// written in its place when the agent got it, and left out when the write
// failed (the agent had closed its input): a prompt, an answer to a
// permission request, a session/cancel alike.
func TestTranscriptKeepsOnlyWhatWasWritten(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := startTranscript(path, f, f, redact.New(), maxTranscriptHeld)
	tap := func(dir acp.Direction, line string) { tr.tap(dir, []byte(line), time.Now()) }
	methods := func() []string {
		tr.flush()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for l := range strings.Lines(string(data)) {
			var rec struct {
				Dir string `json:"dir"`
				Msg struct {
					ID     int    `json:"id"`
					Method string `json:"method"`
				} `json:"msg"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			got = append(got, fmt.Sprintf("%s %d %s", rec.Dir, rec.Msg.ID, rec.Msg.Method))
		}
		return got
	}
	check := func(when string, want ...string) {
		t.Helper()
		if diff := cmp.Diff(want, methods()); diff != "" {
			t.Errorf("%s: transcript (-want +got):\n%s", when, diff)
		}
	}

	prompt := `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`
	tap(acp.Sent, prompt)
	tap(acp.Received, `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`)
	check("while the prompt is written")
	tap(acp.Written, prompt)
	check("once it was", "c2a 1 session/prompt", "a2c 1 ")

	perm := `{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`
	tap(acp.Sent, perm)
	tap(acp.Received, chunkLine("s1", "gone"))
	tap(acp.Unsent, perm)
	prompt2 := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`
	tap(acp.Sent, prompt2)
	tap(acp.Unsent, prompt2)
	cancel := `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`
	tap(acp.Sent, cancel)
	tap(acp.Unsent, cancel)
	if err := tr.close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	check("after writes that failed", "c2a 1 session/prompt", "a2c 1 ", "a2c 0 session/update")
}

// TestTranscriptNotWritten: a transcript that cannot be made, or whose
// file goes while it is written, is a warning that names the file, and is
// recorded as lost (the run exits 4); one written whole is neither. A
// FIFO given up for want of a reader is only a warning.
func TestTranscriptNotWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := &Options{Transcripts: dir}
	var res report.Result
	_, err := newTranscript(context.Background(), opts, "d.jsonl", redact.New())
	if err == nil {
		t.Fatal("a transcript where a directory is: no error")
	}
	lost(&res, err, "the transcript")
	path := filepath.Join(dir, "d.jsonl")
	want := []string{"open " + path + ": is a directory; the transcript was not written"}
	if diff := cmp.Diff(want, res.LostTranscripts); diff != "" {
		t.Errorf("lost transcripts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"transcript: open " + path + ": is a directory"}, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	res = report.Result{}
	kept, err := newTranscript(context.Background(), opts, "kept.jsonl", redact.New())
	if err != nil {
		t.Fatal(err)
	}
	gone, err := newTranscript(context.Background(), opts, "gone.jsonl", redact.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*transcript{kept, gone} {
		tr.tap(acp.Sent, []byte(`{"jsonrpc":"2.0","method":"x"}`), time.Now())
	}
	if err := os.Remove(filepath.Join(dir, "gone.jsonl")); err != nil {
		t.Fatal(err)
	}
	incomplete(&res, kept, "the transcript")
	incomplete(&res, gone, "the transcript of the judge")
	want = []string{"write " + filepath.Join(dir, "gone.jsonl") + ": the file was removed while it was written; the transcript of the judge was lost"}
	if diff := cmp.Diff(want, res.LostTranscripts); diff != "" {
		t.Errorf("lost transcripts (-want +got):\n%s", diff)
	}

	res = report.Result{}
	lost(&res, &outfile.NoReaderError{Path: path, Cause: errors.New("interrupted")}, "the transcript")
	if len(res.LostTranscripts) != 0 || len(res.Warnings) != 1 {
		t.Errorf("a FIFO given up: lost %q, warnings %q; want one warning only", res.LostTranscripts, res.Warnings)
	}
}

// TestTranscriptSlowWriter: a transcript whose file is not read (a FIFO's
// reader that waits) never holds up the runner's taps, however many
// lines wait; once it reads, every line is written, in order, each in one
// Write call. In a synctest bubble the guard's minute passes only if the
// taps are blocked for good.
func TestTranscriptSlowWriter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := testkit.NewBlockedWriter()
		tr := startTranscript(path, f, w, redact.New(), maxTranscriptHeld)
		const n = 5000 // far more than a pipe holds
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range n {
				tr.tap(acp.Received, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"x","params":{"n":%d}}`, i), time.Now())
			}
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Error("the taps waited for a writer that was blocked")
		}
		close(w.Release)
		<-done
		if err := tr.close(); err != nil {
			t.Fatal(err)
		}
		var got, want []int
		for l := range strings.Lines(w.Buf.String()) {
			var rec struct {
				Msg struct {
					Params struct {
						N int `json:"n"`
					} `json:"params"`
				} `json:"msg"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			got = append(got, rec.Msg.Params.N)
		}
		for i := range n {
			want = append(want, i)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d lines written, in order: %v; want the %d tapped, in order", len(got), slices.IsSorted(got), n)
		}
		if w.Writes != n {
			t.Errorf("%d Write calls for %d lines; want one each", w.Writes, n)
		}
	})
}

// TestStuckTranscriptDoesNotHoldUpTheCancel: the transcript's reader does
// not read (a FIFO's reader that stopped) while the agent streams more
// than the transcript keeps for it; at the turn's deadline acprun's
// session/cancel goes out all the same, exactly then (the bubble's clock),
// and the turn ends cancelled as usual. Once the reader reads, the
// transcript is valid JSONL whose lines past the limit were dropped, a
// record saying how many in their place, and the result warns of it.
func TestStuckTranscriptDoesNotHoldUpTheCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := startInBubble(t, `
turns:
  - steps:
      - flood: {count: 200, text: "some line of text"}
      - waitForCancel: true
`, `name: stuck
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 1s
turns:
  - prompt: one
    expect: {stopReason: cancelled}
`)
		path := filepath.Join(t.TempDir(), "t.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := testkit.NewBlockedWriter()
		tr := startTranscript(path, f, w, redact.New(), 4<<10) // 200 chunks are far more
		var prompted, cancelled time.Time                      // when each went out
		b.onLine = func(dir acp.Direction, line []byte) {
			tr.tap(dir, line, time.Now())
			switch {
			case dir != acp.Written:
			case bytes.Contains(line, []byte(`"`+acp.MethodSessionPrompt+`"`)):
				prompted = time.Now()
			case bytes.Contains(line, []byte(`"`+acp.MethodSessionCancel+`"`)):
				cancelled = time.Now()
			}
		}
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		<-w.Started // the writer is blocked still: nothing released it
		if got := cancelled.Sub(prompted); cancelled.IsZero() || got != time.Second {
			t.Errorf("session/cancel went out %v after the prompt (sent: %t); want at the turn's timeout, 1s", got, !cancelled.IsZero())
		}
		close(w.Release)
		res := b.finish(t, false)
		if tt := res.Turns[0]; tt.StopReason != "cancelled" || tt.CancelCause != "turnTimeout" {
			t.Errorf("turn = %+v, want cancelled by turnTimeout", tt)
		}
		incomplete(&res, tr, "the transcript")
		dropped := 0
		for l := range strings.Lines(w.Buf.String()) {
			var rec struct {
				Dropped int             `json:"dropped"`
				Msg     json.RawMessage `json:"msg"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Dropped == 0 && len(rec.Msg) == 0 {
				t.Fatalf("line %q: %v; want a message or a record of lines dropped", l, err)
			}
			dropped += rec.Dropped
		}
		if dropped == 0 {
			t.Error("no record of lines dropped in the transcript")
		}
		want := fmt.Sprintf(`transcript: %s: %d lines dropped: its reader did not keep up (records {"dropped": n} mark where)`, path, dropped)
		lost := fmt.Sprintf("%s: %d lines dropped; the transcript is incomplete", path, dropped)
		if !slices.Contains(res.Warnings, want) || !slices.Equal(res.LostTranscripts, []string{lost}) {
			t.Errorf("warnings %q, lost %q; want the warning %q, lost %q (the run exits 4)", res.Warnings, res.LostTranscripts, want, lost)
		}
	})
}

// summaryChunkLine is a compaction_summary_chunk of compaction c of
// session s with text.
func summaryChunkLine(s, c, text string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + s +
		`","update":{"sessionUpdate":"compaction_summary_chunk","compactionId":"` + c + `","content":{"type":"text","text":"` + text + `"}}}}`
}

// TestTranscriptCompactionSummaryStreamed: the chunks of a compaction's
// summary are a stream as a message's are: a secret split between them is
// redacted where it starts and dropped from the chunks after, whatever
// comes between them; another compaction's summary is a text of its own.
func TestTranscriptCompactionSummaryStreamed(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCdef123XYZ"
	tr, tap, written := testTranscript(t, secret)
	tap(acp.Sent, promptLine(1, "s1"))
	tap(acp.Received, summaryChunkLine("s1", "c1", "sum sk-live-ABCd"))
	tap(acp.Received, chunkLine("s1", "hello"))
	tap(acp.Received, summaryChunkLine("s1", "c2", "ef123XYZ other"))
	tap(acp.Received, summaryChunkLine("s1", "c1", "ef123XYZ end"))
	tap(acp.Received, endTurnLine(1))
	if err := tr.close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	got := written()
	for _, want := range []string{`"text":"sum [REDACTED]"`, `"text":" end"`, `"text":"ef123XYZ other"`, `"text":"hello"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the transcript lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "ABCd") {
		t.Errorf("the transcript shows the start of the secret:\n%s", got)
	}
}
