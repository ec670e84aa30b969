package e2e_test

import (
	"strings"
	"testing"
)

// TestUnreadableLineAnswered: a line that is not JSON but says, before
// what breaks it, whom it answers or what it asks is not waited on until
// the turn's timeout: an answer to the prompt with something after its
// object fails the turn at once (stopReason error, not unresponsive), and
// a request cut short is answered -32700 with its id, so the agent goes on;
// an answer the agent's exit cut short is the exit's.
func TestUnreadableLineAnswered(t *testing.T) {
	t.Parallel()
	const scenario = `name: unreadable
agent: {command: [sh, agent.sh]}
permissions: {default: deny}
turnTimeout: 60s
turns:
  - prompt: hi
    expect: {text: {contains: refused}}
`
	t.Run("answer", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"agent.sh": shHandshake + "read -r line\n" + chunk("refused") +
				`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}} x'` + "\nwhile read -r line; do :; done\n",
			"s.yaml": scenario,
		})
		res, out := runResults(t, dir, "s.yaml")
		turn := out.Scenarios[0].Turns[0]
		const want = "session/prompt: invalid answer: invalid JSON: invalid character 'x' after top-level value"
		if res.code != exitFailed || turn.StopReason != "error" || turn.Error != want {
			t.Fatalf("exit %d, stopReason %q, error %q; want exit 1, error %q\nstderr:\n%s", res.code, turn.StopReason, turn.Error, want, res.stderr)
		}
	})
	// One the agent's exit cut short is the exit's: agent_exited, with
	// its code, not an invalid answer.
	t.Run("cut by the exit", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"agent.sh": shHandshake + "read -r line\n" + chunk("refused") +
				`printf '%s' '{"jsonrpc":"2.0","id":3,"result":{"stopRe'` + "\nexit 3\n",
			"s.yaml": scenario,
		})
		res, out := runResults(t, dir, "s.yaml")
		turn := out.Scenarios[0].Turns[0]
		if res.code != exitFailed || turn.StopReason != "agent_exited" || turn.Error != "the agent exited with code 3" {
			t.Fatalf("exit %d, stopReason %q, error %q; want exit 1, agent_exited with code 3\nstderr:\n%s", res.code, turn.StopReason, turn.Error, res.stderr)
		}
	})
	t.Run("request", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"agent.sh": shHandshake + "read -r line\n" +
				`printf '%s\n' '{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"x"'` + "\n" +
				"read -r line\ncase $line in *'\"id\":9'*-32700*) " + strings.TrimSuffix(chunk("refused"), "\n") + ";; esac\n" +
				`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nwhile read -r line; do :; done\n",
			"s.yaml": scenario,
		})
		res, out := runResults(t, dir, "s.yaml")
		const want = `invalid JSON-RPC message: invalid JSON: unexpected end of JSON input; request "fs/read_text_file" (id 9) answered -32700, not handled`
		if v := strings.Join(out.Scenarios[0].Violations, "\n"); res.code != exitOK || !strings.Contains(v, want) {
			t.Fatalf("exit %d, violations %q; want exit 0 and one with %q\nstderr:\n%s", res.code, v, want, res.stderr)
		}
	})
}
