package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCancelSentBeforePermissionAnswers: on a timeout acprun writes
// session/cancel before the cancelled answers of the pending permission
// requests, every time (an agent such as the Go SDK's example that reads
// the answer first takes it for a refusal and ends its turn end_turn).
func TestCancelSentBeforePermissionAnswers(t *testing.T) {
	res, out, dir := runOne(t, `
turns:
  - steps:
      - tool_call: {toolCallId: a, title: first, kind: edit, status: pending}
      - tool_call: {toolCallId: b, title: second, kind: edit, status: pending}
      - permission: {toolCallId: a, title: first, kind: edit}
        cancelled: [{text: "a cancelled"}]
`, `
name: order
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow, answerDelay: 1h}
turnTimeout: 200ms
turns:
  - prompt: one
    expect: {stopReason: cancelled}
`, "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	turn := out.Scenarios[0].Turns[0]
	if turn.StopReason != "cancelled" || len(turn.Permissions) != 1 || turn.Permissions[0].Outcome != "cancelled" {
		t.Fatalf("turn = %+v, want cancelled with its permission answered cancelled", turn)
	}
	tr := readTranscript(t, filepath.Join(dir, out.Scenarios[0].Transcript))
	var sent []string
	for _, l := range tr.lines {
		if l.Dir != "c2a" || l.Method == "session/prompt" || l.Method == "initialize" || l.Method == "session/new" {
			continue
		}
		if l.Method != "" {
			sent = append(sent, l.Method)
		} else {
			sent = append(sent, "answer "+string(l.Result))
		}
	}
	want := []string{"session/cancel", `answer {"outcome":{"outcome":"cancelled"}}`}
	if !slices.Equal(sent, want) {
		t.Errorf("acprun sent %q after the prompt, want %q", sent, want)
	}
}

// transcriptLine is one decoded transcript line.
type transcriptLine struct {
	Dir    string
	ID     string // raw JSON
	Method string
	Params json.RawMessage
	Result json.RawMessage
}

type transcript struct{ lines []transcriptLine }

func readTranscript(t *testing.T, path string) transcript {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	defer f.Close()
	var tr transcript
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Dir string `json:"dir"`
			Msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
			} `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		tr.lines = append(tr.lines, transcriptLine{Dir: line.Dir, ID: string(line.Msg.ID), Method: line.Msg.Method, Params: line.Msg.Params, Result: line.Msg.Result})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tr
}
