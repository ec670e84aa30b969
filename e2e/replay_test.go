package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// replayAgent is a mock agent whose session has a bit of everything a
// replay must play back: thoughts, text, tool calls, a permission request
// decided by a rule, an fs read and write, a terminal, a garbage line,
// late updates, usage, several turns and stop reasons.
const replayAgent = `
agentInfo: {name: replay-mock, version: "2.0"}
turns:
  - steps:
      - thought: Let me look at the greeting.
      - tool_call: {toolCallId: t_read, title: Read hello.txt, kind: read, locations: [{path: hello.txt}]}
      - read: {path: hello.txt}
      - tool_call_update: {toolCallId: t_read, status: completed}
      - tool_call:
          toolCallId: t_edit
          title: Edit hello.txt
          kind: edit
          content: [{diff: {path: hello.txt, oldText: "helo\n", newText: "hello\n"}}]
          locations: [{path: hello.txt}]
      - permission: {toolCallId: t_edit}
        allowed:
          - write: {path: hello.txt, content: "hello\n"}
          - tool_call_update: {toolCallId: t_edit, status: completed}
        rejected:
          - tool_call_update: {toolCallId: t_edit, status: failed}
      - text: "Fixed the greeting."
    usage: {inputTokens: 1000, outputTokens: 20}
  - steps:
      - tool_call: {toolCallId: t_cat, title: cat hello.txt, kind: execute, rawInput: {command: cat hello.txt}}
      - permission: {toolCallId: t_cat}
        allowed:
          - terminal: {command: cat hello.txt, toolCallId: t_cat, waitForExit: true, output: true, release: true}
          - tool_call_update: {toolCallId: t_cat, status: completed}
      - garbage: "DEBUG: not json"
      - text: " All good."
    after:
      - text: "(late)"
  - steps:
      - text: "This answer is cut"
    stopReason: max_tokens
  - steps: [{text: "over quota"}]
    error: {code: -32000, message: "quota exceeded", data: {retryAfter: 60}}
`

// replayScenario is the scenario recorded; its agent line is replaced to
// replay it.
const replayScenario = `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turnTimeout: 30s
permissions:
  default: deny
  allow:
    - kind: read
    - kind: edit
      path: hello.txt
    - kind: execute
      command: "cat *"
turns:
  - prompt: "Fix hello.txt."
    expect: {text: {contains: Fixed}, toolCalls: {used: [edit]}}
  - prompt: "Check it."
    expect: {text: {contains: good}}
  - prompt: "Explain."
    expect: {stopReason: max_tokens}
  - prompt: "Once more."
    expect: {stopReason: error}
`

// replayRecord runs scenario on script in a new directory with --transcripts
// and returns the directory and the results; the transcript of scenario
// name is dir/tr/NAME.jsonl.
func replayRecord(t *testing.T, script, scenario string, files map[string]string) (string, report.Results) {
	t.Helper()
	dir := realTempDir(t)
	all := map[string]string{"agent.mock.yaml": script, "s.yaml": scenario}
	for k, v := range files {
		all[k] = v
	}
	writeFiles(t, dir, all)
	res := acprun(t, dir, "run", "s.yaml", "-o", "rec.json", "--transcripts", "tr")
	if _, err := os.Stat(filepath.Join(dir, "rec.json")); err != nil {
		t.Fatalf("recording: exit %d, no results\n%s", res.code, res.stderr)
	}
	return dir, readResults(t, filepath.Join(dir, "rec.json"))
}

// replayDir makes a new directory holding files, the transcript (as
// rec/fix.jsonl) and scenario with its mock agent replaced by agent:
// {replay: rec/fix.jsonl}.
func replayDir(t *testing.T, transcript []byte, scenario string, files map[string]string) string {
	t.Helper()
	dir := realTempDir(t)
	all := map[string]string{
		"rec/fix.jsonl": string(transcript),
		"s.yaml":        strings.Replace(scenario, "agent: {command: [acprun, mock-agent, agent.mock.yaml]}", "agent: {replay: rec/fix.jsonl}", 1),
	}
	for k, v := range files {
		all[k] = v
	}
	writeFiles(t, dir, all)
	return dir
}

// replayComparable is a run's scenario results as JSON, without what a replay
// changes by design: durations, transcript paths, the agent's command (and
// the judge's); each pair of moves (old, new) replaces a recorded path by
// the replay's.
func replayComparable(t *testing.T, r report.Results, moves ...string) any {
	t.Helper()
	data, err := json.Marshal(r.Scenarios)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i+1 < len(moves); i += 2 {
		s = strings.ReplaceAll(s, moves[i], moves[i+1])
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "durationMs")
			delete(x, "transcript")
			switch a := x["agent"].(type) {
			case map[string]any:
				delete(a, "command")
			case string: // a judge's: its command, joined
				delete(x, "agent")
			}
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	return v
}

// replayRead returns the contents of the file at path.
func replayRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReplayGivesTheRecordedResults records a mock run, replays its
// transcript in another directory, and gets the same results, with the
// file written through the client again.
func TestReplayGivesTheRecordedResults(t *testing.T) {
	t.Parallel()
	recDir, rec := replayRecord(t, replayAgent, replayScenario, map[string]string{"hello.txt": "helo\n"})
	if rec.Scenarios[0].Status != "passed" {
		t.Fatalf("recording: %+v", rec.Scenarios[0])
	}
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))

	dir := replayDir(t, transcript, replayScenario, map[string]string{"hello.txt": "helo\n"})
	res, got := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("replay: exit %d, want 0\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff(replayComparable(t, rec, recDir, dir), replayComparable(t, got)); diff != "" {
		t.Errorf("replayed results differ from the recorded ones (-recorded +replayed):\n%s", diff)
	}
	if cmd := got.Scenarios[0].Agent.Command; len(cmd) != 3 || cmd[1] != "replay" || cmd[2] != filepath.Join(dir, "rec", "fix.jsonl") {
		t.Errorf("agent command = %q, want acprun replay and the transcript's absolute path", cmd)
	}
	if data := replayRead(t, filepath.Join(dir, "hello.txt")); string(data) != "hello\n" {
		t.Errorf("hello.txt after the replay = %q, want the recorded write done again", data)
	}
	if tr := got.Scenarios[0].Turns[3]; tr.StopReason != "error" || !strings.Contains(tr.Error, "quota exceeded (code -32000)") {
		t.Errorf("turn 4 = %s %q, want the recorded JSON-RPC error", tr.StopReason, tr.Error)
	}
}

// TestReplayOfAnotherClientsNulls: a transcript recorded by another ACP
// client, whose answers spell an optional field null where acprun leaves
// it out ("signal": null in terminal/wait_for_exit's result), replays
// without a divergence: null and absent say the same.
func TestReplayOfAnotherClientsNulls(t *testing.T) {
	t.Parallel()
	recDir, rec := replayRecord(t, replayAgent, replayScenario, map[string]string{"hello.txt": "helo\n"})
	if rec.Scenarios[0].Status != "passed" {
		t.Fatalf("recording: %+v", rec.Scenarios[0])
	}
	transcript := string(replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl")))
	const answered = `"result":{"exitCode":0}`
	if !strings.Contains(transcript, answered) {
		t.Fatalf("the transcript has no answer %s to edit:\n%s", answered, transcript)
	}
	transcript = strings.ReplaceAll(transcript, answered, `"result":{"exitCode":0,"signal":null}`)
	dir := replayDir(t, []byte(transcript), replayScenario, map[string]string{"hello.txt": "helo\n"})
	res, got := runResults(t, dir, "s.yaml")
	if res.code != 0 || got.Scenarios[0].Status != "passed" {
		t.Errorf("replay: exit %d, status %s, failures %q; want 0 and passed, no divergence\n%s", res.code, got.Scenarios[0].Status, got.Scenarios[0].Failures, res.stderr)
	}
}

// TestReplayInvalidRequestsOfTheAgent: an agent's requests whose method is
// no method's name ("", a number), which acprun answered -32600, are
// recorded, and the transcript replays to the same results, warnings
// included.
func TestReplayInvalidRequestsOfTheAgent(t *testing.T) {
	t.Parallel()
	script := "turns:\n  - steps:\n" +
		"      - garbage: '{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"\"}'\n" +
		"      - garbage: '{\"jsonrpc\":\"2.0\",\"id\":98,\"method\":5}'\n" +
		"      - text: hello\n"
	scenario := "name: fix\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: hello}}}]\n"
	recDir, rec := replayRecord(t, script, scenario, nil)
	if rec.Scenarios[0].Status != "passed" || len(rec.Scenarios[0].Warnings) != 2 {
		t.Fatalf("recording: %+v; want passed, with a warning for each invalid request", rec.Scenarios[0])
	}
	dir := replayDir(t, replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl")), scenario, nil)
	res, got := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("replay: exit %d, want 0\n%s", res.code, res.stderr)
	}
	// The replay sends the requests with ids of its own.
	warnings := func(r report.Results) []string {
		return []string{strings.Split(r.Scenarios[0].Warnings[0], `\"id\"`)[0], strings.Split(r.Scenarios[0].Warnings[1], `\"id\"`)[0]}
	}
	if diff := cmp.Diff(warnings(rec), warnings(got)); diff != "" {
		t.Errorf("replayed warnings differ from the recorded ones (-recorded +replayed):\n%s", diff)
	}
}

// TestReplayReportsADivergence replays a recording whose allowed edit the
// changed rules now deny: the turn fails with the divergence, named on
// stderr and in the results, and nothing recorded after it is played.
func TestReplayReportsADivergence(t *testing.T) {
	t.Parallel()
	recDir, _ := replayRecord(t, replayAgent, replayScenario, map[string]string{"hello.txt": "helo\n"})
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	denyEdits := strings.Replace(replayScenario, "    - kind: edit\n      path: hello.txt\n", "", 1)
	dir := replayDir(t, transcript, denyEdits, map[string]string{"hello.txt": "helo\n"})

	res, got := runResults(t, dir, "s.yaml")
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (a scenario failed)\n%s", res.code, res.stderr)
	}
	sc := got.Scenarios[0]
	want := `replay diverged: turn 1: session/request_permission for "Edit hello.txt" (tool call t_edit): recorded selected "allow" (allow_once), got selected "reject" (reject_once)`
	if sc.Status != "failed" || sc.Turns[0].StopReason != "error" || !strings.Contains(sc.Turns[0].Error, want) {
		t.Errorf("status %s, turn 1 = %s %q; want failed, error holding %q", sc.Status, sc.Turns[0].StopReason, sc.Turns[0].Error, want)
	}
	if !strings.Contains(sc.StderrTail, "rec/fix.jsonl:") || !strings.Contains(sc.StderrTail, want) {
		t.Errorf("agent stderr = %q, want the divergence with the transcript's line", sc.StderrTail)
	}
	if tr := sc.Turns[0]; tr.Text != "read: helo\n" || len(tr.ToolCalls) != 2 || tr.ToolCalls[1].Status != "pending" {
		t.Errorf("turn 1 text %q, tool calls %+v; want what came before the divergence and nothing after", tr.Text, tr.ToolCalls)
	}
	if data := replayRead(t, filepath.Join(dir, "hello.txt")); string(data) != "helo\n" {
		t.Errorf("hello.txt = %q, want it untouched (the recorded write came after the allow)", data)
	}
}

// TestReplayPromptDivergence: a prompt changed since the recording is a
// divergence of that turn.
func TestReplayPromptDivergence(t *testing.T) {
	t.Parallel()
	recDir, _ := replayRecord(t, replayAgent, replayScenario, map[string]string{"hello.txt": "helo\n"})
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	dir := replayDir(t, transcript, strings.Replace(replayScenario, `"Check it."`, `"Check it twice."`, 1), map[string]string{"hello.txt": "helo\n"})

	res, got := runResults(t, dir, "s.yaml")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	turns := got.Scenarios[0].Turns
	want := `replay diverged: turn 2: session/prompt: recorded "Check it.", got "Check it twice."`
	if turns[0].StopReason != "end_turn" || turns[1].StopReason != "error" || !strings.Contains(turns[1].Error, want) {
		t.Errorf("turns = %s, %s %q; want end_turn, then error %q", turns[0].StopReason, turns[1].StopReason, turns[1].Error, want)
	}
}

// TestReplayDivergenceFailsAnErrorTurn: a turn that expects the recorded
// error (stopReason error) does not pass on the replay's divergence error:
// the turn fails with the divergence alone, and so does the scenario.
func TestReplayDivergenceFailsAnErrorTurn(t *testing.T) {
	t.Parallel()
	recDir, _ := replayRecord(t, replayAgent, replayScenario, map[string]string{"hello.txt": "helo\n"})
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	dir := replayDir(t, transcript, strings.Replace(replayScenario, `"Once more."`, `"Once again."`, 1), map[string]string{"hello.txt": "helo\n"})

	res, got := runResults(t, dir, "s.yaml")
	sc := got.Scenarios[0]
	want := `replay diverged: turn 4: session/prompt: recorded "Once more.", got "Once again."`
	if res.code != exitFailed || sc.Status != "failed" {
		t.Fatalf("exit %d, status %s; want 1, failed\n%s", res.code, sc.Status, res.stderr)
	}
	if f := sc.Turns[3].Failures; len(f) != 1 || f[0] != want {
		t.Errorf("turn 4 failures %q, want only %q", f, want)
	}
	if !strings.Contains(res.stderr, want) {
		t.Errorf("stderr = %q, want the divergence", res.stderr)
	}
}

// TestReplayOfATimedOutTurn: the recorded turn was cancelled by its
// timeout; the replay waits for the cancel where the recording has it, so
// the turn times out again, with what the agent sent after the cancel.
func TestReplayOfATimedOutTurn(t *testing.T) {
	t.Parallel()
	scenario := `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 300ms
turns:
  - prompt: one
    expect: {stopReason: cancelled}
`
	recDir, rec := replayRecord(t, waitingAgent, scenario, nil)
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	dir := replayDir(t, transcript, scenario, nil)

	res, got := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff(replayComparable(t, rec, recDir, dir), replayComparable(t, got)); diff != "" {
		t.Errorf("replayed results differ (-recorded +replayed):\n%s", diff)
	}
	if tr := got.Scenarios[0].Turns[0]; tr.StopReason != "cancelled" || tr.CancelCause != "turnTimeout" {
		t.Errorf("turn = %s (%s), want cancelled by turnTimeout", tr.StopReason, tr.CancelCause)
	}
}

// TestReplayOfAnInterruptedRecording: a run interrupted (^C) in turn 2
// records acprun's session/cancel with its cause; replayed, turn 1 plays
// as recorded and turn 2 ends at once where the recording was interrupted,
// with an error saying so, instead of waiting for a cancel that no
// replaying run sends until its turnTimeout passes.
func TestReplayOfAnInterruptedRecording(t *testing.T) {
	t.Parallel()
	scenario := `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 30s
turns:
  - prompt: one
  - prompt: two
`
	recDir := realTempDir(t)
	writeFiles(t, recDir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n  - steps: [{text: working}, {waitForCancel: true}]\n",
		"s.yaml":          scenario,
	})
	// The transcript is a FIFO: it says when turn 2 is under way, and
	// what it holds is kept for the replay.
	run := runFollowingTranscript(t, t.Context(), recDir, "fix")
	var transcript strings.Builder
	for run.lines.Scan() {
		line := run.lines.Text()
		transcript.WriteString(line + "\n")
		if allIn(line, []string{`"dir":"a2c"`, `"text":"working"`}) {
			run.interrupt()
		}
	}
	rec := run.waitInterrupted()
	if tr := rec.Scenarios[0].Turns[1]; tr.CancelCause != "interrupt" {
		t.Fatalf("recording: turn 2 cancelled after %q, want interrupt", tr.CancelCause)
	}
	if !strings.Contains(transcript.String(), `"method":"session/cancel","params":{"sessionId":"mock-session-1","_meta":{"acprun/cancelCause":"interrupt"}}`) {
		t.Errorf("transcript holds no session/cancel saying its cause:\n%s", transcript.String())
	}

	dir := replayDir(t, []byte(transcript.String()), scenario, nil)
	res, got := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Errorf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	sc := got.Scenarios[0]
	if tr := sc.Turns[0]; tr.StopReason != "end_turn" || tr.Text != "hi" {
		t.Errorf("turn 1 = %s %q, want it played as recorded", tr.StopReason, tr.Text)
	}
	want := "replay: the recorded run was interrupted during turn 2 (cancelCause interrupt): the recording cannot be replayed past that point"
	if tr := sc.Turns[1]; tr.StopReason != "error" || tr.CancelCause != "" || !strings.Contains(tr.Error, want) {
		t.Errorf("turn 2 = %s (cancelCause %q) %q, want an error saying %q", tr.StopReason, tr.CancelCause, tr.Error, want)
	}
	if !strings.Contains(sc.StderrTail, "rec/fix.jsonl:") {
		t.Errorf("stderr = %q, want the transcript's line of the cancel", sc.StderrTail)
	}
}

// TestReplayCancelledByTheClient: the client cancels while the replay
// waits for its answer to a permission request (held by answerDelay); the
// replay stops and answers cancelled, as a well-behaved agent does.
func TestReplayCancelledByTheClient(t *testing.T) {
	t.Parallel()
	recDir, _ := replayRecord(t, replayAgent, replayScenario, map[string]string{"hello.txt": "helo\n"})
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	slow := strings.Replace(replayScenario, "turnTimeout: 30s\npermissions:\n", "turnTimeout: 300ms\npermissions:\n  answerDelay: 1h\n", 1)
	slow = strings.Replace(slow, `expect: {text: {contains: Fixed}, toolCalls: {used: [edit]}}`, `expect: {stopReason: cancelled}`, 1)
	dir := replayDir(t, transcript, slow, map[string]string{"hello.txt": "helo\n"})

	res, got := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Errorf("exit %d, want %d (turn 1 expects cancelled; the rest did not run, so fails)\n%s", res.code, exitFailed, res.stderr)
	}
	for _, f := range got.Scenarios[0].Failures {
		if !strings.Contains(f, "not run: turn 1 was cancelled after turnTimeout") {
			t.Errorf("failure %q, want only turns not run", f)
		}
	}
	tr := got.Scenarios[0].Turns[0]
	if tr.StopReason != "cancelled" || tr.CancelCause != "turnTimeout" || tr.CancelIgnored {
		t.Errorf("turn 1 = %s (cause %s, ignored %v), want cancelled by turnTimeout", tr.StopReason, tr.CancelCause, tr.CancelIgnored)
	}
	if len(tr.Permissions) != 1 || tr.Permissions[0].Outcome != "cancelled" {
		t.Errorf("permissions = %+v, want the pending one answered cancelled", tr.Permissions)
	}
	if strings.Contains(got.Scenarios[0].StderrTail, "diverged") {
		t.Errorf("stderr = %q, want no divergence for a cancel", got.Scenarios[0].StderrTail)
	}
}

// TestReplayTruncatedTranscript: a transcript cut inside turn 2 (its last
// line half written) plays turn 1, and turn 2 fails saying the recording
// ends there.
func TestReplayTruncatedTranscript(t *testing.T) {
	t.Parallel()
	recDir, _ := replayRecord(t, replayAgent, replayScenario, map[string]string{"hello.txt": "helo\n"})
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	lines := strings.SplitAfter(string(transcript), "\n")
	cut := -1
	for i, l := range lines {
		if strings.Contains(l, `"Check it."`) {
			cut = i + 2 // the prompt and one update of turn 2
			break
		}
	}
	if cut < 0 {
		t.Fatalf("no turn 2 in the transcript:\n%s", transcript)
	}
	truncated := strings.Join(lines[:cut], "") + lines[cut][:len(lines[cut])/2]
	dir := replayDir(t, []byte(truncated), replayScenario, map[string]string{"hello.txt": "helo\n"})

	res, got := runResults(t, dir, "s.yaml")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	sc := got.Scenarios[0]
	if sc.Turns[0].StopReason != "end_turn" || sc.Turns[0].Failures != nil {
		t.Errorf("turn 1 = %s %v, want it played as recorded", sc.Turns[0].StopReason, sc.Turns[0].Failures)
	}
	if tr := sc.Turns[1]; tr.StopReason != "error" || !strings.Contains(tr.Error, "the recording ends before the agent answered session/prompt (turn 2)") {
		t.Errorf("turn 2 = %s %q, want an error saying the recording ends", tr.StopReason, tr.Error)
	}
	if !strings.Contains(sc.StderrTail, "the last line is cut short") {
		t.Errorf("stderr = %q, want a note about the cut last line", sc.StderrTail)
	}
}

// TestReplayGarbageTranscript: a transcript that acprun replay would
// refuse stops run and validate before any agent starts (exit 2, no
// results: the scenario before it does not run either), at the word of
// each scenario's agent that names it, saying what acprun replay says of
// it after its place.
func TestReplayGarbageTranscript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenarios := "name: first\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns: [{prompt: go}]\n" +
		"---\nname: fix\nagent: {replay: rec/fix.jsonl}\nturns: [{prompt: go}]\n" +
		"---\nname: command\nagent: {command: [acprun, replay, --timing, rec/fix.jsonl]}\nturns: [{prompt: go}]\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"rec/fix.jsonl":   "{\"t\":0,\"dir\":\"c2a\",\"msg\":{}}\nthis is not json\n",
		"s.yaml":          scenarios,
	})
	problem := "not a JSON object (a transcript has one JSON object per line); record it again with acprun run --transcripts DIR"
	first := strings.Index(scenarios, "rec/fix.jsonl")
	want := []string{
		lineCol("s.yaml", scenarios, first) + ": agent: replay transcript rec/fix.jsonl: line 2, column 1: " + problem,
		lineCol("s.yaml", scenarios, first+1+strings.Index(scenarios[first+1:], "rec/fix.jsonl")) +
			": agent: replay transcript rec/fix.jsonl: line 2, column 1: " + problem,
	}
	for _, args := range [][]string{{"run", "-j", "1", "s.yaml", "-o", "out.json"}, {"validate", "s.yaml"}} {
		res := acprun(t, dir, args...)
		if res.code != exitUsage || res.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want 2 and nothing", args[0], res.code, res.stdout)
		}
		for _, w := range want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], w, res.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); !os.IsNotExist(err) {
		t.Errorf("out.json: %v; want no results from a run that did not start", err)
	}
	if r := acprun(t, dir, "replay", "rec/fix.jsonl"); r.code != exitUsage || !strings.Contains(r.stderr, "rec/fix.jsonl:2:1: "+problem) {
		t.Errorf("replay: exit %d, stderr %q; want 2 and the same problem at rec/fix.jsonl:2:1", r.code, r.stderr)
	}

	// The command itself says the same and exits 2 before writing a byte.
	for _, tc := range []struct{ content, want string }{
		{"this is not json\n", "bad.jsonl:1:1: not a JSON object"},
		{`{"t":0,"dir":"a2c","raw":"banner"}` + "\n", "bad.jsonl: no initialize request from the client"},
		{`{"t":0,"dir":"sideways","raw":"x"}` + "\n", `bad.jsonl:1:14: "dir" is "sideways"`},
		{"", "bad.jsonl: the transcript is empty"},
	} {
		writeFiles(t, dir, map[string]string{"bad.jsonl": tc.content})
		r := acprun(t, dir, "replay", "bad.jsonl")
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("replay of %q: exit %d, stdout %q, stderr %q; want 2, nothing, %q", tc.content, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	if r := acprun(t, dir, "replay", "missing.jsonl"); r.code != 2 || !strings.Contains(r.stderr, "missing.jsonl: no such file") {
		t.Errorf("replay of a missing file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestReplayValidate: validate checks that the transcript exists, and that
// replay does not go with command or name.
func TestReplayValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := "name: a\nagent: {replay: rec/missing.jsonl}\nturns: [{prompt: hi}]\n"
	both := "name: b\nagent: {replay: rec/b.jsonl, command: [x]}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{"a.yaml": missing, "b.yaml": both, "rec/b.jsonl": "{}\n"})
	res := acprun(t, dir, "validate", "a.yaml", "b.yaml")
	if res.code != 2 {
		t.Errorf("exit %d, want 2", res.code)
	}
	for _, want := range []string{
		lineCol("a.yaml", missing, strings.Index(missing, "rec/missing")) + `: replay transcript "rec/missing.jsonl" does not exist`,
		lineCol("b.yaml", both, strings.Index(both, "replay")) + ": use either replay (a recorded transcript) or command, not both",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}

// TestReplayWorkspaceAndJudge records the eval example (a workspace copy,
// a verify command, a judge agent with its own transcript) and replays
// both transcripts, the scenario's and the judge's, in another directory:
// the paths of the recorded workspace copy are moved to the new copy, and
// the results are the same.
func TestReplayWorkspaceAndJudge(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for _, name := range []string{
		"evals/fix-greeting.yaml", "evals/fixture/README.md", "evals/fixture/greeting.txt",
		"evals/fixture/notes/keep.txt", "evals/golden/greeting.txt",
		"agents/fix-greeting.mock.yaml", "agents/judge.mock.yaml",
	} {
		files[name] = string(replayRead(t, filepath.Join(root, "examples", name)))
	}
	recDir := realTempDir(t)
	writeFiles(t, recDir, files)
	res := acprun(t, filepath.Join(recDir, "evals"), "run", "fix-greeting.yaml", "-o", "../rec.json", "--transcripts", "../tr")
	if res.code != 0 {
		t.Fatalf("recording: exit %d\n%s", res.code, res.stderr)
	}
	rec := readResults(t, filepath.Join(recDir, "rec.json"))

	dir := realTempDir(t)
	scenario := strings.Replace(files["evals/fix-greeting.yaml"],
		"command: [acprun, mock-agent, ../agents/fix-greeting.mock.yaml]", "replay: ../tr/fix-greeting.jsonl", 1)
	scenario = strings.Replace(scenario,
		"agent: {command: [acprun, mock-agent, ../agents/judge.mock.yaml]}", "agent: {replay: ../tr/fix-greeting.judge.jsonl}", 1)
	if !strings.Contains(scenario, "fix-greeting.judge.jsonl") || !strings.Contains(scenario, "tr/fix-greeting.jsonl") {
		t.Fatalf("the example changed; the test's replacements no longer apply:\n%s", scenario)
	}
	files["evals/fix-greeting.yaml"] = scenario
	delete(files, "agents/fix-greeting.mock.yaml") // the replay needs no agent
	delete(files, "agents/judge.mock.yaml")
	writeFiles(t, dir, files)
	for _, name := range []string{"fix-greeting.jsonl", "fix-greeting.judge.jsonl"} {
		writeFiles(t, dir, map[string]string{"tr/" + name: string(replayRead(t, filepath.Join(recDir, "tr", name)))})
	}
	res = acprun(t, filepath.Join(dir, "evals"), "run", "fix-greeting.yaml", "-o", "../out.json")
	if res.code != 0 {
		t.Fatalf("replay: exit %d\n%s", res.code, res.stderr)
	}
	got := readResults(t, filepath.Join(dir, "out.json"))
	rs, gs := rec.Scenarios[0], got.Scenarios[0]
	if rs.Workspace == nil || gs.Workspace == nil || rs.Workspace.Path == gs.Workspace.Path {
		t.Fatalf("workspaces %+v and %+v: want one copy for each run", rs.Workspace, gs.Workspace)
	}
	if gs.Judge == nil || !gs.Judge.Passed || gs.Judge.Text != rs.Judge.Text {
		t.Errorf("judge = %+v, want the recorded verdict %+v", gs.Judge, rs.Judge)
	}
	want := replayComparable(t, rec, rs.Workspace.Path, gs.Workspace.Path, recDir, dir)
	if diff := cmp.Diff(want, replayComparable(t, got)); diff != "" {
		t.Errorf("replayed results differ (-recorded +replayed):\n%s", diff)
	}
}

// TestReplayOfAnAgentIgnoringCancel: the recorded agent never answered its
// cancelled prompt; the replay stays as silent, so acprun finds it
// unresponsive again, with the same results.
func TestReplayOfAnAgentIgnoringCancel(t *testing.T) {
	t.Parallel()
	scenario := `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
cancelGrace: 300ms
turns:
  - prompt: one
  - prompt: two
`
	recDir, rec := replayRecord(t, "turns:\n  - steps: [{text: busy}, {hang: true}]\n", scenario, nil)
	if tr := rec.Scenarios[0].Turns[0]; tr.StopReason != "unresponsive" {
		t.Fatalf("recording: turn 1 %s, want unresponsive", tr.StopReason)
	}
	dir := replayDir(t, replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl")), scenario, nil)
	res, got := runResults(t, dir, "s.yaml")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	gs := got.Scenarios[0]
	if gs.Turns[0].StopReason != "unresponsive" || gs.Turns[1].StopReason != "skipped" || gs.Status != "error" {
		t.Errorf("turns %s, %s, status %s; want unresponsive, skipped, error", gs.Turns[0].StopReason, gs.Turns[1].StopReason, gs.Status)
	}
	if !strings.Contains(gs.StderrTail, "never answered the cancelled prompt") {
		t.Errorf("stderr = %q, want the replay saying why it is silent", gs.StderrTail)
	}
}

// TestReplayRefusesLinesThatDoNotPairUp: a transcript holding an answer to
// a request it does not record (the request's line removed), or an id that
// is no string or number, stops validate and run with exit 2 before
// anything runs, at its line, and acprun replay with it. Played, the
// recorded answer would race the replay's own to the client, and the
// verdict would change from run to run. So is a request of the agent left
// unanswered although the client went on (the answer's line removed):
// played, the replayed agent would go on as recorded whatever the client
// answers.
func TestReplayRefusesLinesThatDoNotPairUp(t *testing.T) {
	t.Parallel()
	scenario := `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
turns: [{prompt: hi, expect: {text: {contains: "package main"}}}, {prompt: again}]
`
	files := map[string]string{"main.go": "package main\n"}
	recDir, _ := replayRecord(t, "turns: [{steps: [{read: {path: main.go}}]}, {steps: [{text: ok}]}]\n", scenario, files)
	recorded := strings.SplitAfter(string(replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))), "\n")

	tests := []struct {
		name   string
		drop   string // the line holding it is removed
		edit   [2]string
		bad    string // the line refused holds it
		at     string // the column is that of the value after it
		reason string
	}{
		{name: "the client's request removed", drop: `"method":"session/new"`,
			bad: `"id":2,"result"`, at: `"id":`,
			reason: "the agent answers id 2, but the transcript holds no unanswered request of the client with that id"},
		{name: "the agent's request removed", drop: `"method":"fs/read_text_file"`,
			bad: `"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"result"`, at: `"id":`,
			reason: "the client answers id 1, but the transcript holds no unanswered request of the agent with that id"},
		{name: "the client's answer removed", drop: `"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"result"`,
			bad: `"method":"fs/read_text_file"`, at: `"id":`,
			reason: "the agent's request id 1 (fs/read_text_file) has no answer of the client, which went on to send session/prompt at line AGAIN (was a line removed?)"},
		{name: "an object id", edit: [2]string{`"id":1,"method":"initialize"`, `"id":{"x":1},"method":"initialize"`},
			bad: `"method":"initialize"`, at: `"id":`,
			reason: `"id" is a JSON object: a JSON-RPC id is a string or a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var lines []string
			for _, l := range recorded {
				if tt.drop != "" && strings.Contains(l, tt.drop) {
					continue
				}
				if tt.edit[0] != "" {
					l = strings.Replace(l, tt.edit[0], tt.edit[1], 1)
				}
				lines = append(lines, l)
			}
			transcript := strings.Join(lines, "")
			off := strings.Index(transcript, tt.bad)
			if off < 0 {
				t.Fatalf("no %s in the transcript:\n%s", tt.bad, transcript)
			}
			off = strings.LastIndexByte(transcript[:off], '\n') + 1
			off += strings.Index(transcript[off:], tt.at) + len(tt.at)
			place := lineCol("rec/fix.jsonl", transcript, off)
			line, col, _ := strings.Cut(strings.TrimPrefix(place, "rec/fix.jsonl:"), ":")
			again := strings.Count(transcript[:strings.Index(transcript, `"text":"again"`)], "\n") + 1
			problem := strings.Replace(tt.reason, "AGAIN", strconv.Itoa(again), 1) + "; record it again with acprun run --transcripts DIR"

			dir := replayDir(t, []byte(transcript), scenario, files)
			sc := string(replayRead(t, filepath.Join(dir, "s.yaml")))
			want := lineCol("s.yaml", sc, strings.Index(sc, "rec/fix.jsonl")) +
				": agent: replay transcript rec/fix.jsonl: line " + line + ", column " + col + ": " + problem
			for _, args := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
				res := acprun(t, dir, args...)
				if res.code != exitUsage || !strings.Contains(res.stderr, want) {
					t.Errorf("%s: exit %d, stderr:\n%s\nwant 2 and %q", args[0], res.code, res.stderr, want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "out.json")); !os.IsNotExist(err) {
				t.Errorf("out.json: %v; want no results from a run that did not start", err)
			}
			if r := acprun(t, dir, "replay", "rec/fix.jsonl"); r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, place+": "+problem) {
				t.Errorf("replay: exit %d, stdout %q, stderr %q; want 2, nothing, %q", r.code, r.stdout, r.stderr, place+": "+problem)
			}
		})
	}
}

// TestReplayRedactedHidesNoChange: a prompt that held agent.env values
// records them as [REDACTED]; replayed, a marker matches the value the
// replaying run redacts in its place (its own token, of another value,
// too), and no other text: a prompt changed around it diverges.
func TestReplayRedactedHidesNoChange(t *testing.T) {
	t.Parallel()
	scenario := func(prompt, token string) string {
		return strings.ReplaceAll(`name: fix
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {SUITE: kestrel, API_TOKEN: TOKEN}
turns:
  - prompt: "`+prompt+`"
    expect: {stopReason: end_turn}
`, "TOKEN", token)
	}
	const same = "Run the kestrel suite with TOKEN."
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": "turns:\n  - steps:\n      - text: done\n", "s.yaml": scenario(same, "ghp_RecordingMachine0123")})
	if res := acprun(t, dir, "run", "s.yaml", "--transcripts", "tr"); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	transcript := replayRead(t, filepath.Join(dir, "tr", "fix.jsonl"))
	if !strings.Contains(string(transcript), `"text":"Run the [REDACTED] suite with [REDACTED]."`) {
		t.Fatalf("the transcript does not hold the redacted prompt:\n%s", transcript)
	}
	for _, c := range []struct{ prompt, want string }{
		{same, ""}, // the replaying machine's token has another value
		{"Run the migration that drops every table, then the kestrel suite with TOKEN.",
			`replay diverged: turn 1: session/prompt: recorded "Run the [REDACTED] suite with [REDACTED].", got "Run the migration that drops every table, then the [REDACTED] suite with [REDACTED]."`},
		{"Run the frobnicate suite with TOKEN.",
			`replay diverged: turn 1: session/prompt: recorded "Run the [REDACTED] suite with [REDACTED].", got "Run the frobnicate suite with [REDACTED]."`},
	} {
		rdir := realTempDir(t)
		writeFiles(t, rdir, map[string]string{"rec/fix.jsonl": string(transcript),
			"s.yaml": strings.Replace(scenario(c.prompt, "ghp_ReplayingMachine4567"), "command: [acprun, mock-agent, agent.mock.yaml]", "replay: rec/fix.jsonl", 1)})
		res, got := runResults(t, rdir, "s.yaml")
		turn := got.Scenarios[0].Turns[0]
		if c.want == "" {
			if res.code != exitOK {
				t.Errorf("%q: exit %d, want 0: %s\n%s", c.prompt, res.code, turn.Error, res.stderr)
			}
			continue
		}
		if res.code != exitFailed || !strings.Contains(turn.Error, c.want) {
			t.Errorf("%q: exit %d, error %q; want the divergence %q\n%s", c.prompt, res.code, turn.Error, c.want, res.stderr)
		}
	}
}

// TestReplayStderrEscaped: what acprun replay says on stderr of what its
// client sent (a line that is not JSON-RPC, a method the recording lacks)
// has control characters and "##[" escaped; the client's escape sequences
// reached the terminal.
func TestReplayStderrEscaped(t *testing.T) {
	t.Parallel()
	transcript, err := filepath.Abs(filepath.Join(root, "examples", "replay", "recorded", "permissions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(acprunFor(t), "replay", transcript)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	cmd.Stdin = strings.NewReader("gar\x1b[31mbage ##[error]x\n" + `{"jsonrpc":"2.0","id":1,"method":"f\u001b[31moo","params":{}}` + "\n")
	r, _ := runCommand(t, cmd)
	want := "acprun replay: ignoring a line from the client that is not JSON-RPC: gar\\x1b[31mbage #\\x23[error]x\n" +
		"acprun replay: " + transcript + ": replay diverged: f\\x1b[31moo: recorded no f\\x1b[31moo request, got a f\\x1b[31moo request\n"
	if r.code != 0 || r.stderr != want {
		t.Errorf("acprun replay: exit %d, stderr %q; want 0 and %q", r.code, r.stderr, want)
	}
}
