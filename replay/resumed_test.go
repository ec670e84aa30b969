package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/srcerr"
)

// resumedAdvice ends the refusal of a resumed session's transcript.
const resumedAdvice = ": replay plays a new session, which the replaying client starts with session/new, and cannot play a resumed one (session: {resume: true}, acprun run --resume); record the scenario again without resuming its session"

// resumedTranscript is the transcript of a session resumed with method
// (session/load or session/resume), whose line 3 asks for it.
func resumedTranscript(method string) string {
	return `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}
{"t":2,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}}
{"t":3,"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{"sessionId":"s1","cwd":"/x","mcpServers":[]}}}
{"t":4,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hello"}}}}}
{"t":5,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}
{"t":6,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}}
{"t":7,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
`
}

// TestResumedSessionRefused: a transcript whose one session was resumed
// (session/load, session/resume) cannot be played, the replaying client
// starting a new session: Load refuses it at the method of its request,
// with advice that records one that plays. Walk reads it (acprun explain
// reads a resumed session as any other).
func TestResumedSessionRefused(t *testing.T) {
	dir := t.TempDir()
	for _, method := range []string{"session/load", "session/resume"} {
		t.Run(method, func(t *testing.T) {
			text := resumedTranscript(method)
			want := "t.jsonl:3:59: a resumed session (" + method + ")" + resumedAdvice
			_, err := parse("t.jsonl", strings.NewReader(text), nil)
			if e := (*srcerr.Error)(nil); !errors.As(err, &e) || err.Error() != want {
				t.Errorf("parse = %v\nwant the *srcerr.Error %s", err, want)
			}

			path := filepath.Join(dir, strings.ReplaceAll(method, "/", "_")+".jsonl")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(path); err == nil || err.Error() != path+want[len("t.jsonl"):] {
				t.Errorf("Load = %v, want %s", err, path+want[len("t.jsonl"):])
			}
			var msgs []string
			if _, err := Walk(path, func(m Message) { msgs = append(msgs, string(m.Msg)) }); err != nil || len(msgs) != 7 {
				t.Errorf("Walk = %v, %d messages; want the 7 messages of the resumed session", err, len(msgs))
			}
		})
	}

	// A new session, then a resumed one: the resumed one is refused.
	text := resumedTranscript("session/new") + strings.Replace(strings.SplitAfter(resumedTranscript("session/load"), "\n")[2], `"id":2`, `"id":4`, 1)
	want := "t.jsonl:8:59: a resumed session (session/load)" + resumedAdvice
	if _, err := parse("t.jsonl", strings.NewReader(text), nil); err == nil || err.Error() != want {
		t.Errorf("a new session, then a resumed one: parse = %v\nwant %s", err, want)
	}
}

// TestWalkResumedThenNew: Walk reads a resumed session, but not a new one
// after it (the agent refused to resume): a transcript holds one session.
func TestWalkResumedThenNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	text := resumedTranscript("session/load") + strings.Replace(strings.SplitAfter(resumedTranscript("session/new"), "\n")[2], `"id":2`, `"id":4`, 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + ":8:59: a second session (session/new): replay plays one session per transcript, and cannot play a resumed one (session: {resume: true}, acprun run --resume); record the scenario again without resuming its session"
	if _, err := Walk(path, nil); err == nil || err.Error() != want {
		t.Errorf("Walk = %v\nwant %s", err, want)
	}
}
