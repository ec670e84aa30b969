package runner

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// modeRecording is a transcript of a session set to mode code whose one
// turn the agent answered with an error.
const modeRecording = `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}}
{"t":2,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}}
{"t":3,"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/rec","mcpServers":[]}}}
{"t":4,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1","modes":{"currentModeId":"ask","availableModes":[{"id":"ask","name":"Ask"},{"id":"code","name":"Code"}]}}}}
{"t":5,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"code"}}}
{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{}}}
{"t":7,"dir":"c2a","msg":{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}}
{"t":8,"dir":"a2c","msg":{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"the tool crashed"}}}
`

// TestReplayDivergenceFailsTheTurn: a replay's divergence at a prompt (a
// setting recorded before it not made, a changed prompt) fails the turn
// whatever it expects: a turn that expects the recorded error does not
// pass on the replay's error. A setting made otherwise is an error of the
// scenario's setup. Replayed as recorded, the turn passes.
func TestReplayDivergenceFailsTheTurn(t *testing.T) {
	t.Parallel()
	scenario := func(mode, prompt string) string {
		return "name: r\nagent: {replay: rec.jsonl" + mode + "}\npermissions: {default: deny}\n" +
			"turns: [{prompt: " + prompt + ", expect: {stopReason: error}}]\n"
	}
	tests := []struct {
		name, src string
		status    report.Status
		want      string // the turn's only failure, or the scenario's error
	}{
		{"as recorded", scenario(", mode: code", "hi"), report.StatusPassed, ""},
		{"mode removed", scenario("", "hi"), report.StatusFailed,
			`replay diverged: turn 1: session/prompt: recorded session/set_mode {"modeId":"code"} before it, got the prompt without it`},
		{"prompt changed", scenario(", mode: code", "bye"), report.StatusFailed,
			`replay diverged: turn 1: session/prompt: recorded "hi", got "bye"`},
		{"mode changed", scenario(", mode: ask", "hi"), report.StatusError,
			`replay diverged: session/set_mode: recorded {"modeId":"code"}, got {"modeId":"ask"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := runScenarios(t, Options{}, tt.src, map[string]string{"rec.jsonl": modeRecording}).Scenarios[0]
			if sc.Status != tt.status {
				t.Fatalf("status %s, want %s\n%+v", sc.Status, tt.status, sc)
			}
			switch tt.status {
			case report.StatusFailed:
				if f := sc.Turns[0].Failures; len(f) != 1 || f[0] != tt.want {
					t.Errorf("turn 1 failures %q, want only %q", f, tt.want)
				}
			case report.StatusError:
				if !strings.Contains(sc.Error, tt.want) {
					t.Errorf("error %q, want it to hold %q", sc.Error, tt.want)
				}
			}
		})
	}
}
