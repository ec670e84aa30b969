package e2e_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// permissionSteps returns n mock permission steps t<from>…: the even ones
// ask to run "rm -rf" (denied by permFloodRules), the odd ones to read a
// file (allowed by the default). Each says which branch it took.
func permissionSteps(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&b, "      - permission: {toolCallId: t%d, title: rm -rf build%d, kind: execute, rawInput: {command: rm -rf build%d}}\n", i, i, i)
		} else {
			fmt.Fprintf(&b, "      - permission: {toolCallId: t%d, title: cat f%d, kind: read}\n", i, i)
		}
		fmt.Fprintf(&b, "        allowed: [{text: \"A%d \"}]\n        rejected: [{text: \"R%d \"}]\n        cancelled: [{text: \"C%d \"}]\n", i, i, i)
	}
	return b.String()
}

// permFloodRules allows everything but rm -rf; the deny rule is on line 6
// of the scenario file.
const permFloodRules = `permissions:
  default: allow
  deny:
    - command: "rm -rf *"
`

// TestManyPermissionsAnswered: hundreds of permission requests in a row,
// each awaited by the agent, are answered by the policy in order with the
// same record whether acprun answers them at once or after an answer
// delay (which takes the other path through acprun), and each answer
// follows its request in the transcript.
func TestManyPermissionsAnswered(t *testing.T) {
	underRace(t)
	t.Parallel()
	const n = 300
	script := "turns:\n  - steps:\n" + permissionSteps(0, n)
	run := func(delay string) (report.TurnResult, string) {
		rules := permFloodRules
		if delay != "" {
			rules += "  answerDelay: " + delay + "\n"
		}
		res, out, dir := runOne(t, script, "name: flood\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+rules+"turns:\n  - prompt: go\n", "--transcripts", "tr", "-v")
		if res.code != 0 || len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
			t.Fatalf("answerDelay %q: exit %d, results %+v\nstderr:\n%s", delay, res.code, out, res.stderr)
		}
		sc := out.Scenarios[0]
		if sc.Allowed != n/2 || sc.Denied != n/2 {
			t.Errorf("answerDelay %q: allowed/denied = %d/%d, want %d/%d", delay, sc.Allowed, sc.Denied, n/2, n/2)
		}
		// -v tells of every decision, in the order of the requests.
		var told []string
		for line := range strings.Lines(res.stderr) {
			if _, after, ok := strings.Cut(line, "permission "); ok {
				told = append(told, strings.TrimSpace(after))
			}
		}
		if len(told) != n {
			t.Fatalf("answerDelay %q: -v told of %d decisions, want %d:\n%s", delay, len(told), n, res.stderr)
		}
		for i, line := range told {
			want := fmt.Sprintf(`allow: "cat f%d" (read)`, i)
			if i%2 == 0 {
				want = fmt.Sprintf(`deny: "rm -rf build%d" (execute; rule s.yaml:6)`, i)
			}
			if line != want {
				t.Fatalf("answerDelay %q: -v decision %d = %q, want %q", delay, i, line, want)
			}
		}
		return sc.Turns[0], filepath.Join(dir, "tr", "flood.jsonl")
	}
	quick, tr := run("")
	if len(quick.Permissions) != n {
		t.Fatalf("permissions = %d, want %d", len(quick.Permissions), n)
	}
	for i, p := range quick.Permissions {
		want := report.Permission{ToolCallID: fmt.Sprintf("t%d", i), Title: fmt.Sprintf("cat f%d", i), Kind: "read",
			Decision: "allow", OptionID: "allow", Outcome: "selected"}
		if i%2 == 0 {
			want = report.Permission{ToolCallID: fmt.Sprintf("t%d", i), Title: fmt.Sprintf("rm -rf build%d", i), Kind: "execute",
				Commands: []string{fmt.Sprintf("rm -rf build%d", i)}, Decision: "deny", Rule: "s.yaml:6", OptionID: "reject", Outcome: "selected"}
		}
		p.Reason = "" // checked as equal between the runs below
		if diff := cmp.Diff(want, p); diff != "" {
			t.Fatalf("permission %d (-want +got):\n%s", i, diff)
		}
	}
	if want := textSoFar(n); quick.Text != want {
		t.Errorf("text = %.80q…, want %.80q…: each request answered with the option of its decision", quick.Text, want)
	}

	// Each answer is in the transcript after its request and before the
	// next request, with the option of its decision.
	asked, answered := 0, 0
	for _, m := range transcriptMessages(t, tr) {
		switch {
		case m.Dir == "a2c" && m.Msg.Method == "session/request_permission":
			if asked != answered {
				t.Fatalf("request %d came before the answer to request %d", asked, answered)
			}
			asked++
		case m.Dir == "c2a" && m.Msg.Method == "" && len(m.Msg.Result.Outcome.OptionID) > 0:
			want := "allow"
			if answered%2 == 0 {
				want = "reject"
			}
			if m.Msg.Result.Outcome.OptionID != want || answered+1 != asked {
				t.Fatalf("answer %d (%+v) after %d requests, want option %s after %d", answered, m.Msg, asked, want, answered+1)
			}
			answered++
		}
	}
	if asked != n || answered != n {
		t.Errorf("transcript: %d requests, %d answers; want %d each", asked, answered, n)
	}

	delayed, _ := run("1ms")
	if diff := cmp.Diff(quick.Permissions, delayed.Permissions); diff != "" {
		t.Errorf("permissions differ with an answer delay (-quick +delayed):\n%s", diff)
	}
	if quick.Text != delayed.Text {
		t.Errorf("text differs with an answer delay:\n%.200q\n%.200q", quick.Text, delayed.Text)
	}
}

// textSoFar is the text the permission steps 0…n-1 give under
// permFloodRules.
func textSoFar(n int) string {
	var b strings.Builder
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&b, "R%d ", i)
		} else {
			fmt.Fprintf(&b, "A%d ", i)
		}
	}
	return b.String()
}

// transcriptMessage is what the permission tests read of a transcript line.
type transcriptMessage struct {
	Dir string `json:"dir"`
	Msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result struct {
			Outcome struct {
				Outcome  string `json:"outcome"`
				OptionID string `json:"optionId"`
			} `json:"outcome"`
		} `json:"result"`
	} `json:"msg"`
}

// transcriptMessages reads a transcript's lines in order.
func transcriptMessages(t *testing.T, path string) []transcriptMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	defer f.Close()
	var out []transcriptMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m transcriptMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Bytes(), err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPermissionsAfterCancelAnsweredCancelled: once a turn is cancelled,
// the permission requests the agent goes on asking are answered cancelled,
// every one after session/cancel on the wire, while those before the
// cancel got the policy's answer.
func TestPermissionsAfterCancelAnsweredCancelled(t *testing.T) {
	underRace(t)
	t.Parallel()
	const before, after = 40, 40
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "onCancel: ignore\nturns:\n  - steps:\n" + permissionSteps(0, before) +
			"      - waitForCancel: true\n" + permissionSteps(before, after),
		"s.yaml": "name: cancel\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n" + permFloodRules + "turns:\n  - prompt: go\n",
	})
	// The transcript is a FIFO: the answer to the last request before the
	// agent waits tells the test when to cancel (^C), with no timing.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	run := runFollowingTranscript(t, ctx, dir, "cancel")
	var messages []transcriptMessage
	lastBefore := fmt.Sprintf(`"id":%d,"result"`, before)
	interrupted := false
	for run.lines.Scan() { // to the transcript's end, when the scenario ends
		line := run.lines.Bytes()
		var m transcriptMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("transcript line %q: %v", line, err)
		}
		messages = append(messages, m)
		if !interrupted && m.Dir == "c2a" && strings.Contains(string(line), lastBefore) {
			run.interrupt()
			interrupted = true
		}
	}
	if !interrupted {
		t.Fatalf("the transcript ended before the answer to request %d\n%s", before, run.stderr)
	}
	out := run.waitInterrupted()
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
		t.Fatalf("results %+v", out)
	}
	turn := out.Scenarios[0].Turns[0]
	if turn.CancelCause != "interrupt" {
		t.Fatalf("turn = %+v, want cancelled by the interrupt", turn)
	}
	if len(turn.Permissions) != before+after {
		t.Fatalf("permissions = %d, want %d", len(turn.Permissions), before+after)
	}
	for i, p := range turn.Permissions {
		switch {
		case i < before && p.Outcome != "selected":
			t.Errorf("permission %d = %+v, want the policy's answer (before the cancel)", i, p)
		case i >= before && (p.Outcome != "cancelled" || p.Decision != "cancelled" || p.ToolCallID != fmt.Sprintf("t%d", i)):
			t.Errorf("permission %d = %+v, want answered cancelled (after the cancel)", i, p)
		}
	}
	wantText := textSoFar(before)
	for i := before; i < before+after; i++ {
		wantText += fmt.Sprintf("C%d ", i)
	}
	if turn.Text != wantText {
		t.Errorf("text = %q, want %q", turn.Text, wantText)
	}
	cancelSeen, cancelledAnswers := false, 0
	for _, m := range messages {
		switch {
		case m.Dir == "c2a" && m.Msg.Method == "session/cancel":
			cancelSeen = true
		case m.Dir == "c2a" && m.Msg.Result.Outcome.Outcome == "cancelled":
			if !cancelSeen {
				t.Fatalf("a cancelled answer (%+v) went out before session/cancel", m.Msg)
			}
			cancelledAnswers++
		case m.Dir == "c2a" && m.Msg.Result.Outcome.Outcome == "selected" && cancelSeen:
			t.Fatalf("a selected answer (%+v) went out after session/cancel", m.Msg)
		}
	}
	if cancelledAnswers != after {
		t.Errorf("cancelled answers in the transcript = %d, want %d", cancelledAnswers, after)
	}
	assertNoProcessesIn(t, dir)
}

// TestAgentFloodingPermissionsWithoutReading: an agent that asks thousands
// of permission requests and never reads its stdin (so that acprun's
// answers fill the pipe) cannot make acprun stop reading it, which would
// leave both sides waiting for each other: every request is recorded, in
// order, and the turn ends with the agent's answer. Every answer is the
// policy's (allowed, and counted), those the pipe took before the agent
// exited and those it could not take alike: how many it took is a race,
// which the results must not show.
func TestAgentFloodingPermissionsWithoutReading(t *testing.T) {
	underRace(t)
	t.Parallel()
	const n = 5000 // answers of about 80 bytes: far more than a pipe holds
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + "read -r line\ni=1\nwhile [ $i -le " + fmt.Sprint(n) + " ]; do\n" +
			`  printf '{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t%d","title":"cat f","kind":"read"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}\n' $i $i` +
			"\n  i=$((i+1))\ndone\n" + chunk("done") +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n",
		"s.yaml": "name: deaf-asker\nagent: {command: [sh, agent.sh]}\npermissions: {default: allow}\nturnTimeout: 1m\nturns:\n  - prompt: go\n",
	})
	out, _ := runWithin(t, dir, time.Minute, "acprun stuck with an agent that asks and does not read")
	res := readResults(t, filepath.Join(dir, "out.json"))
	tr := res.Scenarios[0].Turns[0]
	if tr.StopReason != "end_turn" || tr.Text != "done" || len(tr.Permissions) != n {
		t.Fatalf("turn: stop %q, text %q, %d permissions; want end_turn, done, %d\n%s", tr.StopReason, tr.Text, len(tr.Permissions), n, out)
	}
	for i, p := range tr.Permissions {
		if p.ToolCallID != fmt.Sprintf("t%d", i+1) || p.Decision != "allow" || p.OptionID != "allow" || p.Outcome != "selected" {
			t.Fatalf("permission %d = %+v, want t%d allowed", i, p, i+1)
		}
	}
	if sc := res.Scenarios[0]; sc.Allowed != n || sc.Denied != 0 {
		t.Errorf("allowed %d, denied %d; want %d, 0", sc.Allowed, sc.Denied, n)
	}
	assertNoProcessesIn(t, dir)
}
