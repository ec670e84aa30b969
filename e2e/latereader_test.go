package e2e_test

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"
)

// lateReaderArg, as the only argument of the test binary, makes it the
// late-reader agent instead of running tests (see testAgents).
const lateReaderArg = "acprun-e2e-late-reader-agent"

// lateReader plays an agent that, once it answered session/new, reads
// nothing for 2s (as an agent busy starting up does), then reads on; it
// answers session/cancel by answering the prompt cancelled.
func lateReader(in io.Reader, out io.Writer) int {
	send, sc := agentLines(in, out)
	var pending json.RawMessage
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}}})
		case "session/new":
			send(map[string]any{"id": m.ID, "result": map[string]any{"sessionId": "late-reader-1"}})
			time.Sleep(2 * time.Second)
		case "session/prompt":
			pending = m.ID
		case "session/cancel":
			send(map[string]any{"id": pending, "result": map[string]any{"stopReason": "cancelled"}})
		}
	}
	return 0
}

// TestBigPromptToLateReaderGetsCancelGrace: an agent that is not reading
// when its turn's deadline passes, and reads again within cancelGrace, is
// cancelled whatever its prompt's size: the rest of a prompt larger than
// the pipe holds, then session/cancel, are written within cancelGrace, and
// the agent answers cancelled. (Were the deadline to pass once the agent
// reads again, the outcome would be the same.)
func TestBigPromptToLateReaderGetsCancelGrace(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files = map[string]string{}
	for name, prompt := range map[string]string{"small": "hi", "big": strings.Repeat("x", 256<<10)} {
		files[name+".yaml"] = fmt.Sprintf(`name: %s
agent: {command: [%q, %s]}
turnTimeout: 1s
cancelGrace: 1m
permissions: {default: deny}
turns:
  - prompt: %s
    expect: {stopReason: cancelled, cancelCause: turnTimeout}
`, name, self, lateReaderArg, prompt)
	}
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, "small.yaml", "big.yaml")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for _, s := range out.Scenarios {
		if len(s.Turns) != 1 || s.Turns[0].StopReason != "cancelled" {
			t.Errorf("%s: %s, error %q; want its turn cancelled", s.Name, s.Status, s.Error)
		}
	}
}
