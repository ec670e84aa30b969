package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestPermissionAnswersInRequestOrder: an agent that sends its permission
// requests without waiting for the answers gets the answers in the order
// it asked, every run, when they wait: for the answer delay, or for the
// turn's cancel, which answers every pending one at once; and so do the
// questions (elicitation/create) among them, which wait for no delay but
// for the answers before theirs. The mock agent
// sends the requests raw (garbage:), which it does not wait for.
func TestPermissionAnswersInRequestOrder(t *testing.T) {
	underRace(t)
	t.Parallel()
	const n = 30
	var script strings.Builder
	script.WriteString("turns:\n  - steps:\n")
	for i := range n {
		if i%3 == 1 { // a question among them
			fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"p%d","method":"elicitation/create","params":{"sessionId":"mock-session-1","mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{}}}}'`+"\n", i)
			continue
		}
		fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"p%d","method":"session/request_permission","params":{"sessionId":"mock-session-1","toolCall":{"toolCallId":"t%d","title":"cat f%d","kind":"read"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}'`+"\n", i, i, i)
	}
	script.WriteString("      - waitForCancel: true\n")
	dir := t.TempDir()
	scenario := `name: %s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow, answerDelay: %s}
turns:
  - prompt: go
    timeout: 1s
    expect: {stopReason: cancelled}
`
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": script.String(),
		"delay.yaml":      fmt.Sprintf(scenario, "delay", "1ms"),
		"cancel.yaml":     fmt.Sprintf(scenario, "cancel", "1h"),
	})
	res, out := runResults(t, dir, "delay.yaml", "cancel.yaml", "--transcripts", "tr")
	if res.code != 0 || len(out.Scenarios) != 2 {
		t.Fatalf("exit %d with %d results, want 0 with 2\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	for _, sc := range out.Scenarios {
		var ids []string
		for _, l := range readTranscript(t, filepath.Join(dir, sc.Transcript)).lines {
			if l.Dir == "c2a" && strings.HasPrefix(string(l.ID), `"p`) {
				ids = append(ids, strings.Trim(string(l.ID), `"`))
			}
		}
		for i, id := range ids {
			if id != fmt.Sprint("p", i) || len(ids) != n {
				t.Fatalf("%s: answers written for %s; want p0 to p%d in order", sc.Name, strings.Join(ids, " "), n-1)
			}
		}
	}
}
