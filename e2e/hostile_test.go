package e2e_test

// The catalogue of hostile agents (issue 13): one table of agents that
// crash, hang, send garbage or floods, abuse the client's terminals and
// files, and of hostile input to acprun itself, each row with the exact
// outcome acprun must record, a bound on its wall time derived from the
// scenario's timeouts, and a check that nothing the agent started is left
// running.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// hostileSlack is added to each row's timeouts for its wall-time bound:
// the bound only catches a run that waits for something it should not
// (a 1h sleep, a 10m grace), never a slow machine.
const hostileSlack = 30 * time.Second

// hostileCase is one row of the catalogue.
type hostileCase struct {
	name string
	// The agent: a mock-agent script, or an sh script (sh agent.sh).
	mock, sh string
	// scenario is s.yaml; {{agent}} is replaced by the agent's mapping,
	// which carries the row's orphan marker in its env.
	scenario string
	// files are written next to s.yaml before the run; a value starting
	// with "symlink:" makes a symlink to the rest.
	files map[string]string
	// input replaces the scenario: s.yaml is written by it (acprun's own
	// hostile input); the run must exit 2 with no results.
	input func(dir string) error
	// signals, when set, are sent to acprun mid-turn, each after the
	// transcript shows the line holding its substring (see interruptAt).
	signals []interruptAt

	// The outcome.
	exit   int
	status string   // the scenario's status ("" for input rows)
	stops  []string // each turn's stop reason, in order
	says   string   // a substring of what acprun reports (see report)
	check  func(t *testing.T, out report.Results, res result)
	// timeouts is the sum of the scenario's timeouts and graces that the
	// run may have to wait out; the bound is timeouts + hostileSlack.
	timeouts time.Duration
	// plain runs acprun built without the race detector (volume rows),
	// and maxRSS, when set, bounds its peak resident memory.
	plain  bool
	maxRSS int64 // bytes
}

// exitedWith finds the agent's exit code in a row's says; the results
// must record it too.
var exitedWith = regexp.MustCompile(`the agent exited with code (\d+)`)

// interruptAt is a signal sent once the transcript holds a line with after.
type interruptAt struct {
	after string
	sig   syscall.Signal
}

// report is everything acprun says about a scenario, where a row's says
// is looked for: the scenario's error, warnings and violations, the turns'
// errors, warnings and text (the mock agent says its failed client calls
// as text), and acprun's stderr.
func reported(out report.Results, res result) string {
	var b strings.Builder
	for _, sc := range out.Scenarios {
		fmt.Fprintln(&b, sc.Error)
		fmt.Fprintln(&b, strings.Join(sc.Warnings, "\n"))
		fmt.Fprintln(&b, strings.Join(sc.Violations, "\n"))
		for _, tr := range sc.Turns {
			fmt.Fprintln(&b, tr.Error)
			fmt.Fprintln(&b, strings.Join(tr.Warnings, "\n"))
			fmt.Fprintln(&b, tr.Text)
		}
	}
	b.WriteString(res.stderr)
	return b.String()
}

// shAgentTail answers every session/prompt end_turn, numbering from 3
// as acprun numbers its calls after shHandshake.
const shAgentTail = `id=3
while read -r line; do
  printf '{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}\n' $id
  id=$((id+1))
done
`

// chunk is an sh printf of one agent_message_chunk of text for session s1.
func chunk(text string) string {
	return `printf '%s\n' '` + chunkMessage(text) + `'` + "\n"
}

// chunkMessage is the message of one agent_message_chunk of text (JSON
// string content) for session s1.
func chunkMessage(text string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`
}

const oneTurn = "turns:\n  - prompt: one\n"
const twoTurns = "turns:\n  - prompt: one\n  - prompt: two\n"

func hostileCases() []hostileCase {
	longPath := strings.Repeat("d/", 3000) + "f.txt"
	line160 := strings.Repeat("0123456789abcdef", 10)
	return []hostileCase{
		// --- crash at each phase ---
		{name: "crash before initialize exit 0", sh: "exit 0\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, says: "the agent exited with code 0", timeouts: 30 * time.Second},
		{name: "crash before initialize exit 5", sh: "exit 5\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, says: "the agent exited with code 5", timeouts: 30 * time.Second},
		{name: "crash after initialize exit 0", sh: "read -r line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'` + "\nexit 0\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, says: "the agent exited with code 0", timeouts: 30 * time.Second},
		{name: "crash after initialize exit 6", sh: "read -r line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'` + "\nexit 6\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, says: "the agent exited with code 6", timeouts: 30 * time.Second},
		{name: "no protocolVersion", sh: "read -r line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"agentCapabilities":{}}}'` + "\nwhile read -r line; do :; done\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, says: "initialize: the agent gave no protocolVersion (acprun speaks version 1); acprun sent it nothing more", timeouts: 30 * time.Second},
		{name: "crash during session/new exit 0", mock: "updatesBeforeSessionNew: [{text: starting}, {exit: 0}]\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, says: "the agent exited with code 0", timeouts: 30 * time.Second},
		{name: "crash during session/new exit 7", mock: "updatesBeforeSessionNew: [{text: starting}, {exit: 7}]\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, says: "the agent exited with code 7", timeouts: 30 * time.Second},
		{name: "crash mid-turn after chunks exit 0", mock: "turns:\n  - steps: [{text: [a, b, c]}, {exit: 0}]\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"agent_exited", "skipped"}, says: "code 0",
			check: func(t *testing.T, out report.Results, _ result) {
				if got := out.Scenarios[0].Turns[0].Text; got != "abc" {
					t.Errorf("turn 1 text = %q, want the chunks before the crash", got)
				}
			}, timeouts: 30 * time.Second},
		{name: "crash mid-turn after chunks exit 9", mock: "turns:\n  - steps: [{text: [a, b, c]}, {stderr: 'panic: boom'}, {exit: 9}]\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"agent_exited", "skipped"}, says: "code 9",
			check: func(t *testing.T, out report.Results, _ result) {
				sc := out.Scenarios[0]
				if sc.Turns[0].Text != "abc" || !strings.Contains(sc.StderrTail, "panic: boom") {
					t.Errorf("turn 1 text %q, stderr tail %q: want the chunks and the agent's last words", sc.Turns[0].Text, sc.StderrTail)
				}
			}, timeouts: 30 * time.Second},
		{name: "crash after the answer exit 0", mock: "turns:\n  - steps: [{text: done}]\n    after: [{exit: 0}]\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"end_turn", "agent_exited"}, says: "code 0", timeouts: 30 * time.Second},
		{name: "crash after the answer exit 4", mock: "turns:\n  - steps: [{text: done}]\n    after: [{exit: 4}]\n",
			scenario: "{{agent}}\ntimeout: 30s\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"end_turn", "agent_exited"}, says: "code 4", timeouts: 30 * time.Second},

		// --- hang at each phase ---
		{name: "never answers initialize", sh: "exec sleep 3600\n",
			scenario: "{{agent}}\ntimeout: 1s\ncancelGrace: 500ms\nkillGrace: 500ms\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, timeouts: 2500 * time.Millisecond,
			says: "initialize: not answered before the scenario's timeout passed; acprun sent $/cancel_request and the agent did not answer within cancelGrace (500ms): it is hung or dead"},
		{name: "never answers session/new", sh: "read -r line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'` + "\nexec sleep 3600\n",
			scenario: "{{agent}}\ntimeout: 1s\ncancelGrace: 500ms\nkillGrace: 500ms\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, timeouts: 2500 * time.Millisecond,
			says: "session/new: not answered before the scenario's timeout passed; acprun sent $/cancel_request and the agent did not answer within cancelGrace (500ms): it is hung or dead"},
		{name: "never answers the prompt", mock: "turns:\n  - steps: [{text: thinking}, {hang: true}]\n",
			scenario: "{{agent}}\nturnTimeout: 500ms\ncancelGrace: 500ms\nkillGrace: 500ms\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"unresponsive", "skipped"}, says: "no answer to session/cancel within 500ms; the agent was stopped", timeouts: 2 * time.Second},
		{name: "ignores cancel and keeps streaming", sh: shHandshake + "read -r line\nwhile :; do " + strings.TrimSuffix(chunk("more"), "\n") + "; sleep 0.05; done\n",
			scenario: "{{agent}}\nturnTimeout: 500ms\ncancelGrace: 1s\nkillGrace: 500ms\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"unresponsive", "skipped"}, says: "no answer to session/cancel within 1s; the agent was stopped", timeouts: 3 * time.Second},
		{name: "ignores cancel and goes silent", mock: "onCancel: ignore\nturns:\n  - steps: [{text: working}, {waitForCancel: true}, {hang: true}]\n",
			scenario: "{{agent}}\nturnTimeout: 500ms\ncancelGrace: 500ms\nkillGrace: 500ms\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"unresponsive", "skipped"}, says: "no answer to session/cancel within 500ms; the agent was stopped", timeouts: 2 * time.Second},
		{name: "ignores the end of stdin and SIGTERM", mock: "ignoreSigterm: true\nturns:\n  - steps: [{text: done}]\n    after: [{hang: true}]\n",
			scenario: "{{agent}}\nkillGrace: 1s\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "the agent did not exit within killGrace (1s) of the end of its input, nor of SIGTERM; it was killed (SIGKILL)", timeouts: 2 * time.Second},
		{name: "ignores the end of stdin and SIGTERM after a clean end", mock: "agentCapabilities: {sessionCapabilities: {close: true}}\nignoreSigterm: true\nignoreEOF: true\nturns:\n  - steps: [{text: done}]\n",
			scenario: "{{agent}}\nkillGrace: 1s\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "the agent did not exit within 50ms of the end of its input (the scenario had ended cleanly), nor within killGrace (1s) of SIGTERM; it was killed (SIGKILL)", timeouts: 1050 * time.Millisecond},
		{name: "closes its input and lives on", sh: shHandshake + "read -r line\n" + chunk("one") +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nexec 0<&- sleep 3600\n",
			scenario: "{{agent}}\nturnTimeout: 5s\ncancelGrace: 1s\nkillGrace: 1s\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"end_turn", "unresponsive"}, says: "turn 2: the agent stopped reading its input; it was stopped", timeouts: 7 * time.Second},
		{name: "ignores cancel and SIGTERM", mock: "ignoreSigterm: true\nturns:\n  - steps: [{text: working}, {hang: true}]\n",
			scenario: "{{agent}}\nturnTimeout: 500ms\ncancelGrace: 500ms\nkillGrace: 1m\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"unresponsive", "skipped"}, says: "no answer to session/cancel within 500ms; the agent was stopped", timeouts: 2 * time.Second},

		// --- garbage ---
		{name: "non-JSON lines between messages", mock: "turns:\n  - steps: [{text: a}, {garbage: 'npm WARN deprecated'}, {text: b}, {garbage: '{not json'}]\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "npm WARN deprecated",
			check: func(t *testing.T, out report.Results, _ result) {
				if sc := out.Scenarios[0]; len(sc.Violations) != 2 || sc.Turns[0].Text != "ab" {
					t.Errorf("violations %q, text %q: want both lines flagged and the text around them kept", sc.Violations, sc.Turns[0].Text)
				}
			}},
		{name: "a 50 MiB line", sh: shHandshake + "read -r line\nhead -c 52428800 /dev/zero | tr '\\0' x; echo\n" + chunk("after") + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" + shAgentTail,
			scenario: "{{agent}}\ntimeout: 2m\n" + oneTurn, timeouts: 2 * time.Minute,
			exit: 0, status: "passed", stops: []string{"end_turn"}, says: "protocol violation: invalid JSON-RPC message: not a JSON object",
			check: func(t *testing.T, out report.Results, _ result) {
				if sc := out.Scenarios[0]; len(sc.Violations) != 1 || sc.Turns[0].Text != "after" || !strings.HasSuffix(sc.Violations[0], "(52428800 bytes)") || len(sc.Violations[0]) > 4096 {
					t.Errorf("violations %d (first %d bytes), text %q: want the line flagged (shortened) and the next message read", len(sc.Violations), len(strings.Join(sc.Violations, "")), sc.Turns[0].Text)
				}
			}},
		{name: "invalid UTF-8", sh: shHandshake + "read -r line\n" + `printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"bad \377\376 bytes"}}}}\n'` + "\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" + shAgentTail,
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "invalid UTF-8 replaced with U+FFFD",
			check: func(t *testing.T, out report.Results, _ result) {
				if got := out.Scenarios[0].Turns[0].Text; got != "bad \uFFFD bytes" {
					t.Errorf("text = %q, want the bad bytes replaced", got)
				}
			}},
		{name: "a batch array", mock: "turns:\n  - steps: [{garbage: '[{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{}}]'}, {text: ok}]\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "JSON-RPC batches are not supported",
		},
		// Each request waits for its answer, which the agent says back as
		// text: unanswered, it would hold the turn until the timeout. The
		// request with method null carries the pending prompt's id and a
		// result: it must not end the turn.
		{name: "requests with an unreadable id or no method", sh: shHandshake + `say() { printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%s\\n"}}}}\n' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"; }
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":{"n":1},"method":"fs/read_text_file","params":{"sessionId":"s1","path":"a.txt"}}'
read -r a; say "$a"
printf '%s\n' '{"jsonrpc":"2.0","method":""}' '{"jsonrpc":"2.0","id":"e1","method":""}'
read -r a; say "$a"
printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":null,"result":{"stopReason":"refusal"}}'
read -r a; say "$a"
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'
` + shAgentTail,
			scenario: "{{agent}}\ntimeout: 30s\n" + oneTurn, timeouts: 30 * time.Second,
			exit: 0, status: "passed", stops: []string{"end_turn"}, says: "protocol violation: invalid request: id: want a number, a string or null, got an object",
			check: func(t *testing.T, out report.Results, _ result) {
				sc := out.Scenarios[0]
				want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id: want a number, a string or null, got an object"}}
{"jsonrpc":"2.0","id":"e1","error":{"code":-32600,"message":"invalid request: method: empty"}}
{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: method: want a string, got null"}}
`
				if diff := cmp.Diff(want, sc.Turns[0].Text); diff != "" {
					t.Errorf("acprun's answers, as the agent says them (-want +got):\n%s", diff)
				}
				if len(sc.Violations) != 3 || len(sc.Turns[0].ClientRequests) != 0 {
					t.Errorf("violations %q, client requests %+v: want the three requests flagged and none served", sc.Violations, sc.Turns[0].ClientRequests)
				}
			}},
		{name: "a response with an unknown id", mock: "turns:\n  - steps: [{garbage: '{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}'}, {text: ok}]\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "protocol violation: response to unknown id 999"},
		{name: "a duplicate response", sh: shHandshake + "read -r line\n" + chunk("once") +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"refusal"}}'` + "\nid=4\n" + shAgentTail[len("id=3\n"):],
			scenario: "{{agent}}\n" + twoTurns,
			exit:     0, status: "passed", stops: []string{"end_turn", "end_turn"}, says: "protocol violation: response to unknown id 3"},
		{name: "a reused request id while another is pending", sh: shHandshake + "read -r line\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"'"$PWD"'/a.txt"}}' '{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"'"$PWD"'/b.txt"}}'` + "\nread -r a; read -r b\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" + shAgentTail,
			files:    map[string]string{"a.txt": "A\n", "b.txt": "B\n"},
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: `protocol violation: request "fs/read_text_file" reuses id 7, that of a request not answered yet`,
			check: func(t *testing.T, out report.Results, _ result) {
				crs := out.Scenarios[0].Turns[0].ClientRequests
				if len(crs) != 2 || crs[0].Refused != "" || crs[1].Refused != "" || crs[0].Error != "" || crs[1].Error != "" {
					t.Errorf("client requests = %+v, want both served, each once", crs)
				}
			}},
		{name: "a numeric stopReason", sh: shHandshake + "read -r line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":5}}'` + "\nid=4\n" + shAgentTail[len("id=3\n"):],
			scenario: "{{agent}}\n" + oneTurn,
			exit:     1, status: "failed", stops: []string{"error"}, says: "(session/prompt: invalid answer: stopReason: want a string, got number 5)"},
		// An answer without "jsonrpc":"2.0" fails the call it answers at
		// once, as any other malformed answer: it is no reason to wait for
		// another.
		{name: "a prompt answer without jsonrpc", sh: shHandshake + "read -r line\n" + `printf '%s\n' '{"id":3,"result":{"stopReason":"end_turn"}}'` + "\nid=4\n" + shAgentTail[len("id=3\n"):],
			scenario: "{{agent}}\n" + oneTurn,
			exit:     1, status: "failed", stops: []string{"error"}, says: `(session/prompt: invalid answer: missing "jsonrpc":"2.0")`},
		{name: "an initialize answer with jsonrpc 2.1", sh: `read -r line; printf '%s\n' '{"jsonrpc":"2.1","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'` + "\nwhile read -r line; do :; done\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     3, status: "error", stops: []string{"skipped"}, says: `initialize: acp: initialize: invalid answer: jsonrpc: want "2.0", got string "2.1"`},
		{name: "malformed optional handshake fields", sh: `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":"x","authMethods":{},"agentCapabilities":{"loadSession":"yes","sessionCapabilities":{"close":true},"promptCapabilities":{"image":"yes"},"mcpCapabilities":"x"}}}'
read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1","modes":"x","configOptions":"x"}}'
read -r line
` + chunk("ok") + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nid=4\n" + shAgentTail[len("id=3\n"):],
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "protocol violation: initialize: agentCapabilities.sessionCapabilities.close: want an object, got boolean true; the field took its default",
			check: func(t *testing.T, out report.Results, _ result) {
				w := strings.Join(out.Scenarios[0].Warnings, "\n")
				for _, want := range []string{`initialize: agentInfo: want an object, got string "x"`, "initialize: authMethods: want an array", "initialize: agentCapabilities.loadSession:",
					"initialize: agentCapabilities.promptCapabilities.image:", "initialize: agentCapabilities.mcpCapabilities:", `session/new: modes: want an object, got string "x"`, "session/new: configOptions:"} {
					if !strings.Contains(w, want) {
						t.Errorf("warnings = %q, want %q", w, want)
					}
				}
			}},
		{name: "an update for an unknown session", mock: "turns:\n  - steps: [{garbage: '{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"nope\",\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"stray\"}}}}'}, {text: ok}]\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: `protocol violation: session/update for unknown session "nope"`,
			check: func(t *testing.T, out report.Results, _ result) {
				if got := out.Scenarios[0].Turns[0].Text; got != "ok" {
					t.Errorf("text = %q, want the stray update not recorded as the session's", got)
				}
			}},
		// Requests sent before session/new's answer (before initialize's,
		// here) wait for the session's id: those for another session are
		// then refused, violations, and never served.
		{name: "requests for an unknown session before the session opens",
			sh: `printf '{"jsonrpc":"2.0","id":"w","method":"fs/write_text_file","params":{"sessionId":"nope","path":"%s/planted.txt","content":"x"}}\n' "$PWD"` + "\n" +
				`printf '%s\n' '{"jsonrpc":"2.0","id":"t","method":"terminal/create","params":{"sessionId":"nope","command":"touch","args":["planted2.txt"]}}'` + "\n" +
				shHandshake + "while read -r line; do case $line in *session/prompt*) break;; esac; done\n" + chunk("ok") + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nid=4\n" + shAgentTail[len("id=3\n"):],
			scenario: "{{agent}}\nclient: {fs: true, terminal: true}\npermissions: {default: allow}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: `protocol violation: fs/write_text_file for unknown session "nope"`,
			check: func(t *testing.T, out report.Results, _ result) {
				sc := out.Scenarios[0]
				want := []string{`fs/write_text_file for unknown session "nope"; refused`, `terminal/create for unknown session "nope"; refused`}
				if !slices.Equal(sc.Violations, want) || len(sc.SetupClientRequests) != 0 || sc.Allowed != 0 {
					t.Errorf("violations %q, setup client requests %+v, allowed %d; want %q, none served", sc.Violations, sc.SetupClientRequests, sc.Allowed, want)
				}
				for _, f := range []string{"planted.txt", "planted2.txt"} {
					if _, err := os.Stat(filepath.Join(filepath.Dir(sc.File), f)); err == nil {
						t.Errorf("%s was written by a request for an unknown session", f)
					}
				}
			}},
		// An update the schema does not allow is a violation said in its
		// words, not Go's, and no update of kind "".
		{name: "session updates without an update or a string kind", sh: shHandshake + "read -r line\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1"}}' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":5}}}'` + "\n" + chunk("ok") + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nid=4\n" + shAgentTail[len("id=3\n"):],
			scenario: "{{agent}}\n" + oneTurn,
			// A missing required field fails the scenario (results.md).
			exit: 1, status: "failed", stops: []string{"end_turn"}, says: "protocol violation: session/update: update.sessionUpdate: want a string, got number 5",
			check: func(t *testing.T, out report.Results, _ result) {
				sc := out.Scenarios[0]
				want := []string{"session/update: update is required", "session/update: update.sessionUpdate: want a string, got number 5"}
				if diff := cmp.Diff(want, sc.Violations); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				if tr := sc.Turns[0]; len(tr.Updates) != 1 || tr.Updates["agent_message_chunk"] != 1 || len(tr.UnknownUpdates) != 0 {
					t.Errorf("updates %v, unknown updates %s: want only the chunk", tr.Updates, tr.UnknownUpdates)
				}
			}},
		{name: "an unknown update kind", mock: "turns:\n  - steps: [{update: {sessionUpdate: brand_new_kind, payload: 1}}, {text: ok}]\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "",
			check: func(t *testing.T, out report.Results, _ result) {
				if got := out.Scenarios[0].Turns[0].Updates["brand_new_kind"]; got != 1 {
					t.Errorf("updates = %v, want brand_new_kind counted", out.Scenarios[0].Turns[0].Updates)
				}
				raw := out.Scenarios[0].Turns[0].UnknownUpdates
				var u map[string]any
				if len(raw) != 1 || json.Unmarshal(raw[0], &u) != nil || u["sessionUpdate"] != "brand_new_kind" || u["payload"] != 1.0 {
					t.Errorf("unknownUpdates = %s, want the update kept raw", raw)
				}
			}},
		{name: "updates for unannounced tool calls", mock: "turns:\n  - steps: [{tool_call_update: {toolCallId: ghost, status: completed, title: ghost call}}, {text: ok}]\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "",
			check: func(t *testing.T, out report.Results, _ result) {
				if tc := out.Scenarios[0].Turns[0].ToolCalls; len(tc) != 1 || tc[0].ID != "ghost" {
					t.Errorf("tool calls = %+v, want the unannounced call recorded", tc)
				}
			}},
		{name: "a permission request after cancel", mock: "onCancel: ignore\nturns:\n  - steps:\n      - waitForCancel: true\n      - permission: {toolCallId: late, title: rm -rf /, kind: execute}\n        allowed: [{text: allowed}]\n        rejected: [{text: rejected}]\n        cancelled: [{text: cancelled}]\n      - stop: cancelled\n",
			scenario: "{{agent}}\npermissions: {default: allow}\nturnTimeout: 500ms\ncancelGrace: 10s\n" + oneTurn,
			exit:     1, status: "failed", stops: []string{"cancelled"}, says: "cancelled",
			check: func(t *testing.T, out report.Results, _ result) {
				if p := out.Scenarios[0].Turns[0].Permissions; len(p) != 1 || p[0].Outcome != "cancelled" {
					t.Errorf("permissions = %+v, want the late request answered cancelled", p)
				}
			}, timeouts: 11 * time.Second},
		{name: "a permission request with no options", sh: shHandshake + "read -r line\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"ls","kind":"read"},"options":[]}}'` +
			"\nread -r answer\necho \"$answer\" >&2\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" + shAgentTail,
			scenario: "{{agent}}\npermissions: {default: allow}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "",
			check: func(t *testing.T, out report.Results, _ result) {
				if p := out.Scenarios[0].Turns[0].Permissions; len(p) != 1 || p[0].Outcome != "cancelled" {
					t.Errorf("permissions = %+v, want the request with nothing to select answered cancelled", p)
				}
			}},
		{name: "a permission request with no reject option", mock: "turns:\n  - steps:\n      - permission: {toolCallId: t1, title: rm -rf build, kind: delete}\n        options: [{optionId: yes, name: Yes, kind: allow_once}]\n        allowed: [{text: allowed}]\n        rejected: [{text: rejected}]\n        cancelled: [{text: cancelled}]\n",
			scenario: "{{agent}}\npermissions: {default: deny}\n" + oneTurn,
			exit:     1, status: "failed", stops: []string{"cancelled"}, says: "stopReason cancelled, want end_turn",
			check: func(t *testing.T, out report.Results, _ result) {
				tr := out.Scenarios[0].Turns[0]
				if tr.Text != "cancelled" || len(tr.Permissions) != 1 || tr.Permissions[0].Outcome != "cancelled" ||
					!strings.Contains(tr.Permissions[0].Reason, "no reject option offered; answered cancelled") {
					t.Errorf("text %q, permissions %+v: a denied request with no reject option is answered cancelled", tr.Text, tr.Permissions)
				}
			}},

		// --- volume ---
		// A quarter of a million chunks peak at about 26 MB (a million, at
		// 28 MB): 64 MiB leaves no room for 150 bytes kept a message. The
		// race-enabled binary would take a minute: this row runs acprun
		// built without it. (bench/ measures a million 64-byte chunks.)
		{name: "250k small chunks, memory bounded", mock: "turns:\n  - steps: [{flood: {count: 250000, text: x}}]\n",
			scenario: "{{agent}}\ntimeout: 5m\n" + oneTurn, timeouts: 5 * time.Minute, plain: true, maxRSS: 64 << 20,
			exit: 0, status: "passed", stops: []string{"end_turn"}, says: "",
			check: func(t *testing.T, out report.Results, _ result) {
				tr := out.Scenarios[0].Turns[0]
				if len(tr.Text) != 250000 || tr.Updates["agent_message_chunk"] != 250000 {
					t.Errorf("text %d bytes, %d chunks; want all 250000 counted", len(tr.Text), tr.Updates["agent_message_chunk"])
				}
			}},
		// Large updates sent back to back (200 plans of 4 MB, 800 MB in
		// all) are read only as fast as they are handled: the reader stops
		// once 16 MiB of lines wait, so the peak stays 115 to 140 MiB
		// (before, what was sent waited: 680 to 750 MiB). Only the last
		// plan is kept. The bound is over twice the peak, for loaded
		// machines; the agent's file and cat keep its own memory small.
		{name: "200 plans of 4 MB back to back, memory bounded",
			sh: shHandshake + "read -r line\nplan=$(mktemp)\n{\n" +
				`printf '%s' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"'` + "\n" +
				"head -c 4000000 /dev/zero | tr '\\0' x\n" +
				`printf '%s\n' '"},{"content":"last","priority":"high","status":"completed"}]}}}'` + "\n} >\"$plan\"\n" +
				"i=0\nwhile [ $i -lt 200 ]; do cat \"$plan\"; i=$((i+1)); done\nrm -f \"$plan\"\n" +
				`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" + shAgentTail,
			scenario: "{{agent}}\ntimeout: 5m\n" + oneTurn, timeouts: 5 * time.Minute, plain: true, maxRSS: 320 << 20,
			exit: 0, status: "passed", stops: []string{"end_turn"}, says: "",
			check: func(t *testing.T, out report.Results, _ result) {
				p := out.Scenarios[0].Turns[0].Plan
				if len(p) != 2 || len(p[0].Content) != 4000000 || p[1].Content != "last" || out.Scenarios[0].Turns[0].Updates["plan"] != 200 {
					t.Errorf("plan of %d entries, %d updates; want the last of all 200 plans kept", len(p), out.Scenarios[0].Turns[0].Updates["plan"])
				}
			}},
		// fs/* requests are served one at a time, in order: those that
		// wait for their turn wait in acprun's bounded queue of what it
		// read, not each in a goroutine of its own (a peak of 620 MB here,
		// 7.5 GB for a million), however fast the agent sends them. It
		// reads its answers meanwhile (fd 3: a background job's stdin is
		// /dev/null). The results keep every request (short relative paths,
		// refused: their records are small), about 230 MB.
		{name: "100k file requests back to back, memory bounded",
			sh: shHandshake + "read -r line\nexec 3<&0\ncat <&3 >/dev/null &\n" +
				`awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"fs/read_text_file\",\"params\":{\"sessionId\":\"s1\",\"path\":\"m%d\"}}\n", 100+i, i }'` + "\n" +
				`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nwait\n",
			scenario: "{{agent}}\ntimeout: 5m\n" + oneTurn, timeouts: 5 * time.Minute, plain: true, maxRSS: 480 << 20,
			exit: 0, status: "passed", stops: []string{"end_turn"}, says: "",
			check: func(t *testing.T, out report.Results, _ result) {
				crs := out.Scenarios[0].Turns[0].ClientRequests
				if len(crs) != 100000 || crs[0].Path != "m0" || crs[99999].Path != "m99999" || crs[99999].Refused == "" {
					t.Errorf("%d client requests recorded; want all 100000, in order", len(crs))
				}
			}},
		// A long text costs its length once: it waits in a temporary file
		// while it streams in, is read back into one string, and is written
		// into the results a piece at a time (with the text in growing
		// blocks in the heap this peak was about three times the text).
		{name: "a 16 MB text kept whole, memory bounded", // yes and head keep the agent's own memory small
			sh:       shHandshake + "read -r line\n" + chunk("BEGIN") + "yes '" + chunkMessage(line160+`\n`) + "' | head -n 100000\n" + chunk("END") + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" + shAgentTail,
			scenario: "{{agent}}\ntimeout: 5m\nturns:\n  - prompt: go\n    expect: {text: {matches: '(?s)^BEGIN" + line160 + "\\n.*" + line160 + "\\nEND$'}}\n", timeouts: 5 * time.Minute, plain: true, maxRSS: (16 + 32) << 20,
			exit: 0, status: "passed", stops: []string{"end_turn"}, says: "",
			check: func(t *testing.T, out report.Results, _ result) {
				want := "BEGIN" + strings.Repeat(line160+"\n", 100000) + "END"
				if tr := out.Scenarios[0].Turns[0]; tr.Text != want {
					t.Errorf("text %d bytes, want the %d bytes sent, in order", len(tr.Text), len(want))
				}
			}},
		{name: "100 MB of stderr", sh: shHandshake + "read -r line\nhead -c 100000000 /dev/zero | tr '\\0' e >&2\necho 'LAST WORDS' >&2\nexit 3\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     1, status: "error", stops: []string{"agent_exited"}, says: "the agent exited with code 3",
			check: func(t *testing.T, out report.Results, _ result) {
				if tail := out.Scenarios[0].StderrTail; !strings.Contains(tail, "LAST WORDS") || len(tail) > 1<<20 {
					t.Errorf("stderr tail %d bytes (ends %q), want a bounded tail with the last words", len(tail), tail[max(0, len(tail)-40):])
				}
			}},
		{name: "stdout closed while the process lives", sh: shHandshake + "read -r line\nexec 1>&-\nexec sleep 3600\n",
			scenario: "{{agent}}\nturnTimeout: 30s\nkillGrace: 500ms\n" + twoTurns,
			exit:     1, status: "error", stops: []string{"agent_exited", "skipped"}, says: "turn 1: the agent closed its output", timeouts: 31 * time.Second},
		// Its exit is waited for (killGrace) before it is said to have
		// closed its output: the same outcome every run, however soon after
		// closing it exits.
		{name: "stdout closed just before the exit", sh: shHandshake + "read -r line\nexec 1>&-\nsleep 0.2\nexit 2\n",
			scenario: "{{agent}}\nkillGrace: 1h\n" + oneTurn,
			exit:     1, status: "error", stops: []string{"agent_exited"}, says: "turn 1: the agent exited with code 2"},
		// Its input closed, the prompt's write fails before it exits: it
		// is waited for too, not said to have stopped reading.
		{name: "stdin closed just before the exit", sh: shHandshake + "exec 0<&-\nsleep 0.2\nexit 2\n",
			scenario: "{{agent}}\nkillGrace: 1h\n" + oneTurn,
			exit:     1, status: "error", stops: []string{"agent_exited"}, says: "turn 1: the agent exited with code 2"},
		// An agent that ends after its last turn gets the same result
		// whether acprun saw the end before it sent session/close or
		// after (the agent's pipe took the line, or refused it).
		{name: "exits instead of answering session/close", sh: shHandshakeClose + "read -r line\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nread -r line\nexit 0\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "", check: noSessionClose},
		{name: "closes its input after the last turn, then exits", sh: shHandshakeClose + "read -r line\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nexec 0<&-\nsleep 1\nexit 0\n",
			scenario: "{{agent}}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "", check: noSessionClose},
		{name: "a grandchild holding the pipe", mock: "turns:\n  - steps: [{spawnGrandchild: true}, {text: done}]\n",
			scenario: "{{agent}}\nkillGrace: 2s\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "", timeouts: 4 * time.Second},

		// --- terminal abuse ---
		{name: "100 MB of terminal output against outputByteLimit", mock: "turns:\n  - steps:\n      - terminal: {command: sh, args: [-c, \"head -c 100000000 /dev/zero | tr '\\\\0' y\"], outputByteLimit: 1000, waitForExit: true, output: true, release: true}\n",
			scenario: "{{agent}}\npermissions: {default: allow}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "exit: 0",
			check: func(t *testing.T, out report.Results, _ result) {
				text := out.Scenarios[0].Turns[0].Text
				i := strings.Index(text, "output (truncated), exit 0: ")
				if i < 0 || strings.Count(text[i:], "y") > 1000 || strings.Count(text[i:], "y") < 1 {
					t.Errorf("text = %.200q, want at most outputByteLimit bytes of output", text)
				}
			}},
		{name: "a terminal cwd outside the roots", mock: "turns:\n  - steps: [{terminal: {command: pwd, cwd: /etc, waitForExit: true}}]\n",
			scenario: "{{agent}}\npermissions: {default: allow}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: "error: terminal/create: ",
			check: func(t *testing.T, out report.Results, _ result) {
				if text := out.Scenarios[0].Turns[0].Text; !strings.Contains(text, "outside the allowed roots") {
					t.Errorf("text = %q, want the cwd refused", text)
				}
			}},

		// --- fs abuse ---
		fsRefused("fs ..", "read: {path: ../outside.txt}"),
		{name: "a terminal cwd with a NUL byte", mock: "turns:\n  - steps: [{terminal: {command: pwd, cwd: \"/etc\\0x\", waitForExit: true}}]\n",
			scenario: "{{agent}}\npermissions: {default: allow}\n" + oneTurn,
			exit:     0, status: "passed", stops: []string{"end_turn"}, says: `error: terminal/create: cwd contains a NUL byte: `},
		fsRefused("fs absolute path outside", "read: {path: /etc/passwd}"),
		fsRefused("fs write outside", "write: {path: ../../escaped.txt, content: pwned}"),
		fsRefusedWith("fs symlinked file pointing out", "read: {path: link.txt}", "outside the allowed roots", map[string]string{"link.txt": "symlink:/etc/passwd"}),
		fsRefusedWith("fs symlinked dir pointing out", "read: {path: linkdir/passwd}", "outside the allowed roots", map[string]string{"linkdir": "symlink:/etc"}),
		fsRefusedWith("fs write through a symlinked dir", "write: {path: linkdir/new.txt, content: pwned}", "outside the allowed roots", map[string]string{"linkdir": "symlink:/tmp"}),
		fsRefused("fs NUL byte climbing out", `read: {path: "a.txt\0/../../etc/passwd"}`),
		fsRefusedWith("fs NUL byte", `read: {path: "a.txt\0.png"}`, "error: fs/read_text_file: path contains a NUL byte: ", map[string]string{"a.txt": "inside\n"}),
		fsRefusedWith("fs write with a NUL byte", `write: {path: "new.txt\0.png", content: x}`, "error: fs/write_text_file: path contains a NUL byte: ", nil),
		fsRefusedAny("fs very long path", "read: {path: "+longPath+"}", "error: fs/read_text_file: "),
		fsRefused("fs very long path climbing out", "read: {path: "+strings.Repeat("d/../", 2000)+"../etc/passwd}"),
		fsRefused("fs /proc/self/environ", "read: {path: /proc/self/environ}"),

		// --- acprun's own input ---
		inputRow("a 10 MB scenario file", "s.yaml: the file is 10.0 MiB; a scenario file may hold at most 4 MiB", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("name: big\nagent: {command: [acprun, mock-agent, x.yaml]}\n"+oneTurn+"#"+strings.Repeat("x", 10<<20)+"\n"), 0o644)
		}),
		inputRow("a YAML alias bomb", "mcpServers is nested too deeply or repeats too many aliases", func(dir string) error {
			// The _meta of an MCP server is passed on as written: the one
			// place where acprun expands what it reads.
			var b strings.Builder
			b.WriteString("name: bomb\nagent:\n  command: [acprun, mock-agent, x.yaml]\n  mcpServers:\n    - &a0 {name: lol, command: lol, _meta: {l: [lol, lol, lol, lol, lol, lol, lol, lol, lol]}}\n")
			for i := 1; i < 10; i++ {
				fmt.Fprintf(&b, "    - &a%d {name: lol, command: lol, _meta: {l: [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]}}\n", i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
			}
			b.WriteString(oneTurn)
			return os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(b.String()), 0o644)
		}),
		inputRow("deep nesting", "YAML syntax: exceeded max depth", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("name: deep\nagent: {command: [acprun, mock-agent, x.yaml]}\n"+oneTurn+"description: "+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+"\n"), 0o644)
		}),
		inputRow("10,000 turns", "s.yaml:4:3: 10000 turns; a scenario may have at most 1000", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("name: many\nagent: {command: [acprun, mock-agent, x.yaml]}\nturns:\n"+strings.Repeat("  - prompt: again\n", 10000)), 0o644)
		}),
		inputRow("a binary file named .yaml", "s.yaml:1:1: YAML syntax: control characters are not allowed", func(dir string) error {
			data := make([]byte, 4096)
			for i := range data {
				data[i] = byte(i*7 + i/3)
			}
			return os.WriteFile(filepath.Join(dir, "s.yaml"), data, 0o644)
		}),

		// --- interruption ---
		{name: "SIGINT mid-turn", mock: waitingAgent,
			scenario: "{{agent}}\ncancelGrace: 10s\nkillGrace: 10s\n" + twoTurns,
			signals:  []interruptAt{{`"text":"working"`, syscall.SIGINT}},
			exit:     130, stops: []string{"cancelled", "skipped"}, status: "interrupted", timeouts: 20 * time.Second},
		{name: "SIGTERM mid-turn", mock: waitingAgent,
			scenario: "{{agent}}\ncancelGrace: 10s\nkillGrace: 10s\n" + twoTurns,
			signals:  []interruptAt{{`"text":"working"`, syscall.SIGTERM}},
			exit:     130, stops: []string{"cancelled", "skipped"}, status: "interrupted", timeouts: 20 * time.Second},
		// A closed terminal or a dropped ssh connection: handled as SIGTERM,
		// the grandchild killed too.
		{name: "SIGHUP mid-turn", mock: "turns:\n  - steps: [{spawnGrandchild: true}, {text: working}, {waitForCancel: true}]\n  - steps: [{text: second}]\n",
			scenario: "{{agent}}\ncancelGrace: 10s\nkillGrace: 10s\n" + twoTurns,
			signals:  []interruptAt{{`"text":"working"`, syscall.SIGHUP}},
			exit:     130, stops: []string{"cancelled", "skipped"}, status: "interrupted", timeouts: 20 * time.Second},
		{name: "a second SIGINT", mock: "onCancel: ignore\nignoreSigterm: true\nturns:\n  - steps: [{text: working}, {waitForCancel: true}, {hang: true}]\n",
			scenario: "{{agent}}\ncancelGrace: 10m\nkillGrace: 10m\n" + twoTurns,
			signals:  []interruptAt{{`"text":"working"`, syscall.SIGINT}, {`"method":"session/cancel"`, syscall.SIGINT}},
			exit:     130, stops: []string{"unresponsive", "skipped"}, status: "interrupted", says: "no answer to session/cancel before a second interrupt; the agent was stopped", timeouts: 0},
	}
}

// shHandshakeClose is shHandshake for an agent that offers session/close.
var shHandshakeClose = strings.Replace(shHandshake, `"agentCapabilities":{}`, `"agentCapabilities":{"sessionCapabilities":{"close":{}}}`, 1)

// noSessionClose checks that a row's agent, which ended after its last
// turn, has no sessionClose recorded and no warning.
func noSessionClose(t *testing.T, out report.Results, _ result) {
	if sc := out.Scenarios[0]; sc.SessionClose != nil || len(sc.Warnings) != 0 {
		t.Errorf("sessionClose %+v, warnings %q; want none: the agent ended after its last turn", sc.SessionClose, sc.Warnings)
	}
}

// fsRefused is a row whose agent asks for a file outside the roots in
// one step and says what it got; acprun refuses and the turn goes on.
func fsRefused(name, step string) hostileCase {
	return fsRefusedAny(name, step, "outside the allowed roots")
}

func fsRefusedWith(name, step, says string, files map[string]string) hostileCase {
	c := fsRefusedAny(name, step, says)
	c.files = files
	return c
}

func fsRefusedAny(name, step, says string) hostileCase {
	return hostileCase{name: name, mock: "turns:\n  - steps: [{" + step + "}, {text: ' then on'}]\n",
		scenario: "{{agent}}\nclient: {roots: [.]}\n" + oneTurn,
		exit:     0, status: "passed", stops: []string{"end_turn"}, says: says,
		check: func(t *testing.T, out report.Results, _ result) {
			tr := out.Scenarios[0].Turns[0]
			if !strings.HasPrefix(tr.Text, "error: ") || !strings.HasSuffix(tr.Text, " then on") || strings.Contains(tr.Text, "root:") || strings.Contains(tr.Text, "HOSTILE_MARKER") {
				t.Errorf("text = %.300q, want the request refused and nothing from outside", tr.Text)
			}
			for _, cr := range tr.ClientRequests {
				if cr.Refused == "" && cr.Error == "" {
					t.Errorf("client request %s %.80s… recorded as served (error %q)", cr.Method, cr.Path, cr.Error)
				}
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(out.Scenarios[0].File)), "escaped.txt")); err == nil {
				t.Errorf("a file was written outside the roots")
			}
		}}
}

// inputRow is a row of hostile input to acprun itself: a quick exit 2
// with a message holding says, and no results.
func inputRow(name, says string, write func(dir string) error) hostileCase {
	return hostileCase{name: name, input: write, exit: 2, says: says}
}

func TestHostileAgents(t *testing.T) {
	underRace(t)
	t.Parallel()
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runHostile(t, c)
		})
	}
}

func runHostile(t *testing.T, c hostileCase) {
	dir := realTempDir(t)
	marker := fmt.Sprintf("hostile-%d-%s", os.Getpid(), strings.NewReplacer(" ", "-", "/", "-", ",", "").Replace(c.name))
	if c.input != nil {
		if err := c.input(dir); err != nil {
			t.Fatal(err)
		}
	} else {
		agent := fmt.Sprintf("name: hostile\nagent: {command: [acprun, mock-agent, agent.mock.yaml], env: {HOSTILE_MARKER: %s}}", marker)
		files := map[string]string{"agent.mock.yaml": c.mock}
		if c.sh != "" {
			agent = fmt.Sprintf("name: hostile\nagent: {command: [sh, agent.sh], env: {HOSTILE_MARKER: %s}}", marker)
			files = map[string]string{"agent.sh": c.sh}
		}
		if !strings.Contains(c.scenario, "permissions:") {
			agent += "\npermissions: {default: deny}"
		}
		files["s.yaml"] = strings.Replace(c.scenario, "{{agent}}", agent, 1)
		for name, content := range c.files {
			if target, ok := strings.CutPrefix(content, "symlink:"); ok {
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			files[name] = content
		}
		writeFiles(t, dir, files)
	}

	bound := c.timeouts + hostileSlack
	start := time.Now()
	var res result
	var out report.Results
	if c.signals != nil {
		ctx, cancel := context.WithTimeout(t.Context(), bound+30*time.Second)
		defer cancel()
		run := runFollowingTranscript(t, ctx, dir, "hostile")
		for _, s := range c.signals {
			run.waitFor(s.after, s.after)
			if err := run.cmd.Process.Signal(s.sig); err != nil {
				t.Fatal(err)
			}
		}
		out = run.waitInterrupted() // fails the test unless acprun exited 130
		res = result{code: 130, stderr: run.stderr.String()}
		if !out.Interrupted {
			t.Errorf("results not marked interrupted")
		}
	} else {
		bin := acprunFor(t)
		if c.plain {
			var err error
			if bin, err = plainBinary(); err != nil {
				t.Fatal(err)
			}
		}
		if c.maxRSS > 0 {
			var peak int64
			res, peak = runMeasured(t, bin, dir, "run", "s.yaml", "-o", "out.json")
			t.Logf("acprun's peak resident memory: %d MiB", peak>>20)
			if peak > c.maxRSS {
				t.Errorf("acprun's peak resident memory %d MiB, want at most %d MiB", peak>>20, c.maxRSS>>20)
			}
		} else {
			res, _ = runBinary(t, bin, dir, nil, "run", "s.yaml", "-o", "out.json")
		}
		if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
			out = readResults(t, filepath.Join(dir, "out.json"))
		} else if c.input == nil {
			t.Fatalf("exit %d and no results\nstderr:\n%s", res.code, res.stderr)
		}
	}
	elapsed := time.Since(start)

	if c.input != nil {
		if len(out.Scenarios) != 0 {
			t.Errorf("results written for bad input: %+v", out.Scenarios)
		}
		if !strings.Contains(res.stderr, "s.yaml") || strings.Contains(res.stderr, "panic") {
			t.Errorf("stderr does not say which file:\n%.2000s", res.stderr)
		}
	}
	if res.code != c.exit {
		t.Errorf("exit %d, want %d\nstderr:\n%.3000s", res.code, c.exit, res.stderr)
	}
	if c.input == nil {
		if len(out.Scenarios) != 1 {
			t.Fatalf("scenarios = %d, want 1\nstderr:\n%.3000s", len(out.Scenarios), res.stderr)
		}
		sc := out.Scenarios[0]
		var stops []string
		for _, tr := range sc.Turns {
			stops = append(stops, tr.StopReason)
		}
		if string(sc.Status) != c.status || strings.Join(stops, ",") != strings.Join(c.stops, ",") {
			t.Errorf("status %s, turns %q; want %s, %q\nerror: %s\nfailures: %q\nturns: %+v", sc.Status, stops, c.status, c.stops, sc.Error, sc.Failures, sc.Turns)
		}
	}
	if c.says != "" && !strings.Contains(reported(out, res), c.says) {
		t.Errorf("nothing reported says %q:\n%.3000s", c.says, reported(out, res))
	}
	if m := exitedWith.FindStringSubmatch(c.says); m != nil && len(out.Scenarios) == 1 {
		if got := out.Scenarios[0].ExitCode; got == nil || strconv.Itoa(*got) != m[1] {
			t.Errorf("exitCode recorded %v, want %s", got, m[1])
		}
	}
	if c.check != nil && len(out.Scenarios) == 1 {
		c.check(t, out, res)
	}
	if elapsed > bound {
		t.Errorf("took %s, over the bound %s (timeouts %s + slack)", elapsed, bound, c.timeouts)
	}
	assertNoProcessWithMarker(t, marker)
}

// assertNoProcessWithMarker fails when a live process carries
// HOSTILE_MARKER=marker in its environment (zombies and processes on
// their way out count as gone), and kills it when the test ends.
func assertNoProcessWithMarker(t *testing.T, marker string) {
	t.Helper()
	for _, p := range testkit.Leftovers(t, testkit.WithEnv("HOSTILE_MARKER="+marker)) {
		t.Errorf("process %s still running with the agent's marker", p)
	}
}

// TestViolationsInStreamOrder: the agent's protocol violations are
// recorded in the order it sent them, each in its place among its
// messages: an update for an unknown session (found as the update is
// handled) before a line that is not JSON (found as it is read) stays
// first, however far acprun's reading is ahead of its handling. A flood
// of updates before them keeps the reading ahead.
func TestViolationsInStreamOrder(t *testing.T) {
	t.Parallel()
	script := `turns:
  - steps:
      - flood: {count: 2000, text: "chunk "}
      - garbage: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"nope","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}'
      - garbage: "not json"
      - text: done
`
	res, out, _ := runOne(t, script, "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: go\n")
	if res.code != exitOK || len(out.Scenarios) != 1 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	want := []string{
		`session/update for unknown session "nope"`,
		`invalid JSON-RPC message: not a JSON object: "not json" (8 bytes)`,
	}
	if got := out.Scenarios[0].Violations; !slices.Equal(got, want) {
		t.Errorf("violations %q; want %q, in the order the agent sent them", got, want)
	}
}
