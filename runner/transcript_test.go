package runner

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
)

// chunkLine is an agent_message_chunk of session s with text.
func chunkLine(s, text string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + s +
		`","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`
}

// TestTranscriptHoldsChunksThatMayBeginASecret: a secret split between
// chunks is redacted where it starts; a chunk whose end may begin a
// secret, and the lines after it, wait for the next chunk, or for the
// agent's next line that is not a chunk, and no longer.
func TestTranscriptHoldsChunksThatMayBeginASecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := &transcript{path: path, start: time.Now(), red: redact.New("ghp_abcdefghijklmnop1234"), f: f, w: bufio.NewWriter(f)}
	written := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tap := func(dir acp.Direction, line string) { tr.tap(dir, []byte(line), time.Now()) }

	tap(acp.Received, chunkLine("s1", "the token is ghp_"))
	tap(acp.Sent, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	if got := written(); got != "" {
		t.Fatalf("written before the next chunk: %s", got)
	}
	tap(acp.Received, chunkLine("s1", "abcdefghijklmnop1234, done. g"))
	if got := written(); got != "" {
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
	// The agent's next line that is not a chunk ends the stream.
	tap(acp.Received, `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`)
	if got := written(); !strings.Contains(got, `"text":"ood. g"`) || !strings.Contains(got, "end_turn") {
		t.Errorf("the stream ended, yet lines are held:\n%s", got)
	}
	tr.close()
}
