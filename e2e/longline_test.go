package e2e_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
)

// longLinerArg, as the only argument of the test binary, makes it the
// long-liner agent instead of running tests (see testAgents).
const longLinerArg = "acprun-e2e-long-liner-agent"

// longLinePad is how many bytes of x a long line of longLiner holds: more
// than acprun reads of a line.
const longLinePad = acp.DefaultMaxLineBytes + 1<<20

// longLiner plays an ACP agent whose lines are longer than acprun reads:
// at its first prompt it asks fs/write_text_file for big.txt with that
// long a content, waits for the answer and answers the prompt end_turn
// after a text chunk of the answer's error message; its second prompt's
// answer is that long. It writes the long lines without holding them.
func longLiner(in io.Reader, out io.Writer) int {
	send, sc := agentLines(in, out)
	long := func(head, tail string) {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		_, err := io.WriteString(out, head)
		for n := longLinePad; n > 0 && err == nil; n -= len(chunk) {
			_, err = out.Write(chunk[:min(n, len(chunk))])
		}
		if err == nil {
			_, err = io.WriteString(out, tail+"\n")
		}
		if err != nil {
			os.Exit(3)
		}
	}
	const session = "long-liner-1"
	var cwd string
	var prompt json.RawMessage // the first prompt's id, until it is answered
	prompts := 0
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cwd string `json:"cwd"`
			} `json:"params"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue // a notification, or noise
		}
		switch m.Method {
		case "":
			if string(m.ID) != `"write"` || prompt == nil {
				continue
			}
			text := "written"
			if m.Error != nil {
				text = m.Error.Message
			}
			send(map[string]any{"method": "session/update", "params": map[string]any{"sessionId": session,
				"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}}})
			send(map[string]any{"id": prompt, "result": map[string]any{"stopReason": "end_turn"}})
			prompt = nil
		case "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}}})
		case "session/new":
			cwd = m.Params.Cwd
			send(map[string]any{"id": m.ID, "result": map[string]any{"sessionId": session}})
		case "session/prompt":
			if prompts++; prompts == 1 {
				prompt = m.ID
				path, _ := json.Marshal(cwd + "/big.txt")
				long(fmt.Sprintf(`{"jsonrpc":"2.0","id":"write","method":"fs/write_text_file","params":{"sessionId":%q,"path":%s,"content":"`, session, path), `"}}`)
				continue
			}
			long(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn","_meta":{"pad":"`, m.ID), `"}}}`)
		default:
			send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found: " + m.Method}})
		}
	}
	return 0
}

// TestLongLinesAnswered: an agent's request on a line longer than acprun
// reads is refused at once, -32600, and the turn goes on; its answer to a
// prompt on such a line ends the turn at once, with an error that says
// so, not after the turn's timeout as unresponsive. Both are protocol
// violations.
func TestLongLinesAnswered(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": fmt.Sprintf(`name: long-lines
agent: {command: [%q, %s]}
permissions: {default: allow}
turnTimeout: 10m
turns:
  - prompt: write a big file
  - prompt: answer at length
`, self, longLinerArg)})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 2 {
		t.Fatalf("results %+v, want one scenario of two turns\n%s", out.Scenarios, res.stderr)
	}
	r := out.Scenarios[0]
	writeSize := len(`{"jsonrpc":"2.0","id":"write","method":"fs/write_text_file","params":{"sessionId":"long-liner-1","path":,"content":""}}`) +
		len(fmt.Sprintf("%q", dir+"/big.txt")) + longLinePad
	t1, t2 := r.Turns[0], r.Turns[1]
	if want := fmt.Sprintf("invalid request: its line of %d bytes exceeds the limit of %d bytes", writeSize, acp.DefaultMaxLineBytes); t1.StopReason != "end_turn" || t1.Text != want {
		t.Errorf("turn 1: stopReason %q, text %q; want end_turn, %q", t1.StopReason, t1.Text, want)
	}
	answerSize := len(`{"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn","_meta":{"pad":""}}}`) + longLinePad
	if want := fmt.Sprintf("session/prompt: invalid answer: its line of %d bytes exceeds the limit of %d bytes", answerSize, acp.DefaultMaxLineBytes); t2.StopReason != "error" || t2.Error != want {
		t.Errorf("turn 2: stopReason %q, error %q; want error, %q", t2.StopReason, t2.Error, want)
	}
	if _, err := os.Stat(dir + "/big.txt"); err == nil {
		t.Error("big.txt was written")
	}
	wantViolations := []string{
		fmt.Sprintf(`line exceeds %d bytes; request "fs/write_text_file" (id "write") answered -32600, not handled: "{\"jsonrpc\"`, acp.DefaultMaxLineBytes),
		fmt.Sprintf(`line exceeds %d bytes; the answer to session/prompt (id 4) fails it: "{\"jsonrpc\"`, acp.DefaultMaxLineBytes),
	}
	if len(r.Violations) != len(wantViolations) {
		t.Fatalf("violations %q; want %d", r.Violations, len(wantViolations))
	}
	for i, want := range wantViolations {
		if !strings.HasPrefix(r.Violations[i], want) {
			t.Errorf("violation %d: %q; want it to start with %q", i+1, r.Violations[i], want)
		}
	}
}
