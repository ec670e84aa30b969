package e2e_test

import (
	"strings"
	"testing"
)

// TestSessionUpdateSentAsRequest: an agent that sends its session/update
// as a request (with an id) gets -32601 and its text is not recorded; the
// results say why, as a protocol violation, instead of an empty turn text
// with no word.
func TestSessionUpdateSentAsRequest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + "read -r line\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":5,"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}}'` + "\n" +
			"read -r line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nwhile read -r line; do :; done\n",
		"s.yaml": "name: asrequest\nagent: {command: [sh, agent.sh]}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	const want = `request "session/update" (id 5): session/update is a notification, to be sent without an id; answered -32601, not handled`
	if res.code != exitOK || !strings.Contains(res.stderr, "warning: protocol violation: "+want) {
		t.Fatalf("exit %d; want 0 and the warning %q\nstderr:\n%s", res.code, want, res.stderr)
	}
	if v := out.Scenarios[0].Violations; len(v) != 1 || v[0] != want {
		t.Errorf("violations %q; want [%q]", v, want)
	}
}
