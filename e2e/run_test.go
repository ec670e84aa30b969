package e2e_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/acpschema"
	"github.com/acprun/acprun/report"
	"github.com/google/go-cmp/cmp"
)

// multiTurnAgent ends its turns with every stop reason and an error, and
// reports text, thoughts, a plan, tool calls and usage on the first.
const multiTurnAgent = `
agentInfo: {name: multi-mock, version: "2.0"}
updatesBeforeSessionNew:
  - update: {sessionUpdate: available_commands_update, availableCommands: [{name: plan, description: Make a plan}]}
turns:
  - steps:
      - thought: "Reading the file first."
      - plan:
          - {content: Read, priority: high, status: completed}
          - {content: Answer, priority: low, status: in_progress}
      - tool_call: {toolCallId: c1, title: Read notes.txt, kind: read, status: pending, locations: [{path: notes.txt}]}
      - tool_call_update: {toolCallId: c1, status: completed}
      - tool_call_update: {toolCallId: ghost, status: completed, title: never announced}
      - text: ["fixed ", "3 ", "vet warnings"]
      - usage_update: {used: 100, size: 1000}
    usage: {inputTokens: 10, outputTokens: 5}
  - steps: [{text: "partial"}]
    stopReason: max_tokens
  - steps: [{text: "no"}]
    stopReason: refusal
  - stopReason: max_turn_requests
  - error: {code: -32603, message: "model overloaded"}
`

const multiTurnScenario = `
name: multi
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {SECRET_TOKEN: "${E2E_SECRET}"}
permissions: {default: deny}
turns:
  - prompt: "fix vet"
    expect: {stopReason: end_turn, text: {contains: vet, matches: "fixed \\d+"}}
  - prompt: "two"
    expect: {stopReason: max_tokens}
  - prompt: "three"
    expect: {stopReason: refusal}
  - prompt: "four"
    expect: {stopReason: max_turn_requests}
  - prompt: "five"
    expect: {stopReason: error}
`

func TestRunMultiTurnScenario(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": multiTurnAgent,
		"multi.yaml":      multiTurnScenario,
	})
	t.Setenv("E2E_SECRET", "s3cr3t-value-42")
	res, out := runResults(t, dir, "multi.yaml", "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	if out.SchemaVersion != report.SchemaVersion {
		t.Errorf("schemaVersion = %d, want %d", out.SchemaVersion, report.SchemaVersion)
	}
	wantBy := map[string][]report.TurnRef{
		"end_turn":          {{Scenario: "multi", Turn: 1}},
		"max_tokens":        {{Scenario: "multi", Turn: 2}},
		"refusal":           {{Scenario: "multi", Turn: 3}},
		"max_turn_requests": {{Scenario: "multi", Turn: 4}},
		"error":             {{Scenario: "multi", Turn: 5}},
	}
	if diff := cmp.Diff(wantBy, out.ByStopReason); diff != "" {
		t.Errorf("byStopReason (-want +got):\n%s", diff)
	}
	if len(out.Scenarios) != 1 || out.Scenarios[0].Status != "passed" {
		t.Fatalf("scenarios = %+v, want one passed", out.Scenarios)
	}
	if got := out.Scenarios[0].SetupUpdates["available_commands_update"]; got != 1 {
		t.Errorf("setupUpdates = %v, want the update sent before the session/new answer", out.Scenarios[0].SetupUpdates)
	}
	t1, t5 := out.Scenarios[0].Turns[0], out.Scenarios[0].Turns[4]
	if t1.Text != "fixed 3 vet warnings" {
		t.Errorf("turn 1 text = %q, want the joined chunks", t1.Text)
	}
	if t1.Thoughts != "Reading the file first." {
		t.Errorf("turn 1 thoughts = %q", t1.Thoughts)
	}
	if len(t1.Plan) != 2 || t1.Plan[1].Status != "in_progress" {
		t.Errorf("turn 1 plan = %+v, want the last plan's two entries", t1.Plan)
	}
	if len(t1.ToolCalls) != 2 {
		t.Fatalf("turn 1 tool calls = %+v, want 2", t1.ToolCalls)
	}
	c1, ghost := t1.ToolCalls[0], t1.ToolCalls[1]
	if c1.ID != "c1" || c1.Status != "completed" || !c1.Announced || c1.Title != "Read notes.txt" ||
		len(c1.Locations) != 1 || c1.Locations[0] != filepath.Join(dir, "notes.txt") {
		t.Errorf("tool call c1 = %+v, want completed, announced, with its absolute location", c1)
	}
	if ghost.ID != "ghost" || ghost.Announced || ghost.Status != "completed" {
		t.Errorf("tool call ghost = %+v, want recorded though never announced", ghost)
	}
	if t1.Usage == nil || t1.Usage.InputTokens != 10 || t1.Usage.OutputTokens != 5 || t1.Usage.ContextUsed != 100 {
		t.Errorf("turn 1 usage = %+v, want prompt usage and the usage_update", t1.Usage)
	}
	if !strings.Contains(t5.Error, "model overloaded") {
		t.Errorf("turn 5 error = %q, want the JSON-RPC error message", t5.Error)
	}

	// The transcript: every client→agent message validates against the
	// official schema, and the agent's env value never appears.
	trPath := filepath.Join(dir, out.Scenarios[0].Transcript)
	data, err := os.ReadFile(trPath)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	if strings.Contains(string(data), "s3cr3t-value-42") {
		t.Errorf("transcript contains the secret env value")
	}
	validateTranscript(t, trPath)
}

// validateTranscript checks every c2a message of a transcript against the
// ACP schema; responses are checked against the method they answer.
func validateTranscript(t *testing.T, path string) {
	t.Helper()
	v := acpschema.Load(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	methods := map[string]string{} // agent request id → method
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		var line struct {
			T   *int64          `json:"t"`
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		if line.T == nil || (line.Dir != "c2a" && line.Dir != "a2c") {
			t.Errorf("transcript line %q: want t and dir c2a|a2c", sc.Text())
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(line.Msg, &env)
		switch {
		case line.Dir == "a2c" && env.Method != "" && len(env.ID) > 0:
			methods[string(env.ID)] = env.Method
		case line.Dir == "c2a" && env.Method != "":
			n++
			if err := v.ValidateClientMessage(line.Msg); err != nil {
				t.Errorf("client message %s: %v", line.Msg, err)
			}
		case line.Dir == "c2a":
			n++
			if err := v.ValidateClientResponse(methods[string(env.ID)], line.Msg); err != nil {
				t.Errorf("client response %s: %v", line.Msg, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("transcript %s has no client messages", path)
	}
}

func TestRunFailedExpectationExitsOne(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, "turns:\n  - steps: [{text: hello}]\n    stopReason: max_tokens\n", `name: wants-end-turn
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
`)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if sc.Status != "failed" || len(sc.Failures) != 1 || !strings.Contains(sc.Failures[0], "stopReason max_tokens, want end_turn") {
		t.Errorf("scenario = %+v, want failed on its stop reason", sc)
	}
	if !strings.Contains(res.stderr, "FAIL wants-end-turn") {
		t.Errorf("stderr lacks the FAIL line:\n%s", res.stderr)
	}
}

func TestValidateReportsEveryMistake(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bad.yaml": `name: bad
agent:
  command: []
turnTimeout: 5 minutes
turns:
  - promt: hello
`,
	})
	for _, cmd := range []string{"validate", "run"} {
		res := acprun(t, dir, cmd, "bad.yaml")
		if res.code != 2 {
			t.Errorf("%s: exit %d, want 2", cmd, res.code)
		}
		re := regexp.MustCompile(`(?m)^bad\.yaml:\d+:\d+: [^w].+$`) // errors, not warnings
		got := re.FindAllString(res.stderr, -1)
		sort.Strings(got)
		if len(got) != 3 {
			t.Errorf("%s: %d positioned errors, want 3:\n%s", cmd, len(got), res.stderr)
		}
		for _, want := range []string{"bad.yaml:3:12:", "bad.yaml:4:14:", "bad.yaml:6:5:"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", cmd, want, res.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "acprun-results.json")); err == nil {
		t.Errorf("run wrote results although nothing ran")
	}
}

// TestExamplesRunOnTheMockAgent runs README's first command; the eval
// example passes every check, its judge's included.
func TestExamplesRunOnTheMockAgent(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out.json")
	res := acprun(t, root, "run", "examples/", "-o", out)
	if res.code != 0 {
		t.Fatalf("examples: exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	rep := readResults(t, out)
	evals := 0
	for _, r := range rep.Scenarios {
		if r.File != filepath.Join("examples", "evals", "fix-greeting.yaml") {
			continue
		}
		evals++
		if r.Status != "passed" || r.Judge == nil || !r.Judge.Passed || !strings.HasPrefix(r.Judge.Text, "PASS") || r.Judge.StopReason != "end_turn" {
			t.Errorf("%s: status %s, failures %q, judge %+v; want it passed with its judge's PASS", r.Name, r.Status, r.Failures, r.Judge)
		}
		if r.Workspace == nil || !slices.Equal(r.Workspace.Created, []string{"done.txt"}) || !slices.Equal(r.Workspace.Modified, []string{"greeting.txt"}) || r.Workspace.Kept {
			t.Errorf("%s: workspace %+v, want done.txt created, greeting.txt modified, and removed after passing", r.Name, r.Workspace)
		}
	}
	if evals != 1 {
		t.Errorf("%d results from examples/evals/fix-greeting.yaml, want 1", evals)
	}
}

func TestLateUpdatesStayWithTheirTurn(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - steps: [{text: "hi"}]
    after:
      - flood: {count: 300, text: x}
      - plan: [{content: late plan, priority: low, status: pending}]
      - text: "LATE1"
      - tool_call: {toolCallId: late1, title: late call, kind: read, status: completed}
`, `name: late
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
`)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	t1 := out.Scenarios[0].Turns[0]
	if t1.Text != "hi" || t1.LateText != strings.Repeat("x", 300)+"LATE1" || t1.LateUpdates != 303 ||
		len(t1.Plan) != 0 || len(t1.LatePlan) != 1 || len(t1.ToolCalls) != 1 || !t1.ToolCalls[0].Late {
		t.Errorf("turn = text %q, %d bytes of late text, lateUpdates %d, plan %+v, late plan %+v, tool calls %+v; want every late update recorded apart and marked late",
			t1.Text, len(t1.LateText), t1.LateUpdates, t1.Plan, t1.LatePlan, t1.ToolCalls)
	}
}

func TestGarbageOnStdoutIsAViolationNotAnEnd(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, "turns:\n  - steps: [{garbage: 'npm WARN deprecated something'}, {text: fine}]\n", "name: noisy\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0: a garbage line does not end the session\n%s", res.code, res.stderr)
	}
	if v := out.Scenarios[0].Violations; len(v) != 1 || !strings.Contains(v[0], `npm WARN deprecated`) {
		t.Errorf("violations = %q, want the quoted garbage line", v)
	}
	if !strings.Contains(res.stderr, "protocol violation") {
		t.Errorf("summary does not mention the violation:\n%s", res.stderr)
	}
}

func TestSchemaCommand(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"schema"}, {"schema", "--config"}} {
		res := acprun(t, root, args...)
		var doc map[string]any
		if res.code != 0 || json.Unmarshal([]byte(res.stdout), &doc) != nil || doc["properties"] == nil {
			t.Errorf("acprun %v: exit %d, want a JSON Schema with properties:\n%.200s", args, res.code, res.stdout)
		}
	}
}

func TestLateUpdatesBetweenTurns(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - steps: [{text: "one"}]
    after:
      - text: " LATE1"
      - tool_call: {toolCallId: late1, title: late call, kind: read, status: completed}
  - steps: [{text: "two"}]
`, "name: late\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nturns:\n  - prompt: one\n  - prompt: two\n")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	turns := out.Scenarios[0].Turns
	if len(turns) != 2 {
		t.Fatalf("%d turns, want 2", len(turns))
	}
	if turns[0].Text != "one" || turns[0].LateText != " LATE1" || turns[0].LateUpdates != 2 || len(turns[0].ToolCalls) != 1 {
		t.Errorf("turn 1 = %+v, want its late text and tool call", turns[0])
	}
	if turns[1].Text != "two" || len(turns[1].ToolCalls) != 0 || turns[1].LateUpdates != 0 {
		t.Errorf("turn 2 = %+v, want only its own updates", turns[1])
	}
}
