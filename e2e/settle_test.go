package e2e_test

import (
	"fmt"
	"strings"
	"testing"
)

// The tests of this file give acprun more of the agent's output at once
// than it handles at once, through the -race binary, while the other
// tests run: what the agent sent before a prompt must be recorded where
// it belongs (the setup's, or the last turn's late), however far behind
// acprun's handling is.

// updateLine is a session/update line of session s1.
func updateLine(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + u + `}}`
}

// shUpdate is a session/update line of session s1, quoted for sh.
func shUpdate(u string) string {
	return "'" + updateLine(u) + "'"
}

// chunkUpdate is an agent_message_chunk of text.
func chunkUpdate(text string) string {
	return `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}`
}

// shChunk is an agent_message_chunk of text, quoted for sh.
func shChunk(text string) string {
	return shUpdate(chunkUpdate(text))
}

// floodFile is n session/update lines of the update u, for an agent to
// cat: one process writing large blocks, so that the flood reaches acprun
// as fast as it reads, however loaded the machine (yes | head wrote it in
// small blocks from two processes, which a loaded machine can starve for
// longer than acprun's settle waits for an agent that keeps talking).
func floodFile(u string, n int) string {
	return strings.Repeat(updateLine(u)+"\n", n)
}

// shAnswer is the answer to acprun's request id with result, quoted for sh.
func shAnswer(id int, result string) string {
	return fmt.Sprintf(`'{"jsonrpc":"2.0","id":%d,"result":%s}'`, id, result)
}

// TestUpdatesAfterSessionNewAreSetup: an agent that sends an error notice
// and a burst of available_commands_update right after its session/new
// answer (claude-agent-acp sends its commands there) has them recorded as
// the setup's, in order, every run: the notice is no turn's, so the
// result is not made invalid by it.
func TestUpdatesAfterSessionNewAreSetup(t *testing.T) {
	underRace(t)
	t.Parallel()
	const burst = 3000
	notice := shUpdate(`{"sessionUpdate":"notice","severity":"error","title":"MCP server unavailable","description":"github: rate limit exceeded"}`)
	commands := floodFile(`{"sessionUpdate":"available_commands_update","availableCommands":[]}`, burst)
	agent := strings.Join([]string{
		"read -r line; printf '%s\\n' " + shAnswer(1, `{"protocolVersion":1,"agentCapabilities":{}}`),
		"read -r line; { printf '%s\\n' " + shAnswer(2, `{"sessionId":"s1"}`) + " " + notice + "; cat commands.jsonl; }",
		"read -r line; printf '%s\\n' " + shChunk("hi") + " " + shAnswer(3, `{"stopReason":"end_turn"}`),
		"read -r line",
	}, "\n") + "\n"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.sh": agent, "commands.jsonl": commands, "s.yaml": `name: postnew
agent: {command: [sh, agent.sh]}
killGrace: 1s
turns:
  - prompt: one
    expect: {text: {matches: "^hi$"}}
`})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != 0 || sc.Status != "passed" {
		t.Fatalf("exit %d, status %s (%+v, %q); want passed\n%s", res.code, sc.Status, sc.Invalid, sc.Failures, res.stderr)
	}
	if sc.SetupUpdates["notice"] != 1 || sc.SetupUpdates["available_commands_update"] != burst || len(sc.SetupNotices) != 1 {
		t.Errorf("setupUpdates = %v, setupNotices = %+v; want the notice and the %d commands updates", sc.SetupUpdates, sc.SetupNotices, burst)
	}
	if u := sc.Turns[0].Updates; len(u) != 1 || u["agent_message_chunk"] != 1 {
		t.Errorf("turn 1's updates = %v; want its one chunk", u)
	}
}

// TestLateFloodStaysWithItsTurn: an agent that answers turn 1, then sends
// 20000 more chunks, and only then reads the second prompt: they are turn
// 1's late updates, every run, however long acprun takes to handle them,
// and turn 2 is only its own.
func TestLateFloodStaysWithItsTurn(t *testing.T) {
	underRace(t)
	t.Parallel()
	const flood = 20000
	agent := strings.Join([]string{
		"read -r line; printf '%s\\n' " + shAnswer(1, `{"protocolVersion":1,"agentCapabilities":{}}`),
		"read -r line; printf '%s\\n' " + shAnswer(2, `{"sessionId":"s1"}`),
		"read -r line; printf '%s\\n' " + shChunk("one") + " " + shAnswer(3, `{"stopReason":"end_turn"}`),
		"cat flood.jsonl",
		"read -r line; printf '%s\\n' " + shChunk("two") + " " + shAnswer(4, `{"stopReason":"end_turn"}`),
		"read -r line",
	}, "\n") + "\n"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.sh": agent, "flood.jsonl": floodFile(chunkUpdate("z"), flood), "s.yaml": `name: lateflood
agent: {command: [sh, agent.sh]}
killGrace: 1s
turns:
  - prompt: one
    expect: {text: {matches: "^one$"}}
  - prompt: two
    expect: {text: {matches: "^two$"}}
`})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != 0 || sc.Status != "passed" {
		t.Fatalf("exit %d, status %s (%q); want passed\n%s", res.code, sc.Status, sc.Failures, res.stderr)
	}
	if t1 := sc.Turns[0]; t1.LateUpdates != flood || len(t1.LateText) != flood {
		t.Errorf("turn 1: %d late updates, %d bytes of late text; want %d of each", t1.LateUpdates, len(t1.LateText), flood)
	}
	if u := sc.Turns[1].Updates; len(u) != 1 || u["agent_message_chunk"] != 1 {
		t.Errorf("turn 2's updates = %v; want its one chunk", u)
	}
}
