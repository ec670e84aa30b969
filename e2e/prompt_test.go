package e2e_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// promptAgent answers a prompt that mentions "nightly" with what it
// understood, and any other with a refusal, so that a result shows which
// prompt the agent got.
const promptAgent = `turns:
  - match: '(?s)^Nightly maintenance:.*\$\{DEPS\}.*\n$'
    steps: [{text: "nightly prompt seen, unexpanded, whole"}]
default:
  steps: [{text: "not the nightly prompt"}]
  stopReason: refusal
`

// nightlyPrompt is the text of the prompt files of these tests: ${DEPS}
// stays as it is (prompts are not interpolated) and the final newline is
// sent.
const nightlyPrompt = "Nightly maintenance:\nupdate ${DEPS} and fix what breaks.\n"

// promptWithStdin runs the built binary in dir with stdin and returns
// what it did.
func promptWithStdin(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	return promptWithStdinEnv(t, dir, stdin, nil, args...)
}

// promptWithStdinEnv is promptWithStdin with env (NAME=value) added to the
// environment.
func promptWithStdinEnv(t *testing.T, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(acprunFor(t), args...)
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	r, _ := runCommand(t, cmd)
	return r
}

// promptTurnSummary is each turn of each scenario as name#turn prompt → stop
// reason: text.
func promptTurnSummary(out report.Results) []string {
	var got []string
	for _, sc := range out.Scenarios {
		for _, tr := range sc.Turns {
			got = append(got, sc.Name+"@"+sc.Agent.Name+" "+tr.Prompt+" → "+tr.StopReason+": "+tr.Text)
		}
	}
	return got
}

// TestPromptFromFile: prompt: {file: PATH} sends the file's text, read
// relative to the scenario file whatever the working directory; validate
// and --dry-run show it, since it is read when the file is loaded.
func TestPromptFromFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"cron/agent.mock.yaml":       promptAgent,
		"cron/prompts/nightly.md":    nightlyPrompt,
		"cron/nightly.yaml":          "name: nightly\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: {file: prompts/nightly.md}\n",
		"cron/prompts/not-there.txt": "",
	})
	res, out := runResults(t, dir, "cron/nightly.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	want := []string{"nightly@ " + nightlyPrompt + " → end_turn: nightly prompt seen, unexpanded, whole"}
	if diff := cmp.Diff(want, promptTurnSummary(out)); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	plan := acprun(t, dir, "run", "cron/nightly.yaml", "--dry-run")
	if plan.code != exitOK || !strings.Contains(plan.stdout, `"Nightly maintenance:\nupdate ${DEPS} and fix`) {
		t.Errorf("--dry-run: exit %d, want the file's text in the plan:\n%s%s", plan.code, plan.stdout, plan.stderr)
	}
}

// TestPromptFileErrors: a prompt file that is missing or cannot be a
// prompt fails validate and run alike, at file:line:col with the source
// line, before any agent starts.
func TestPromptFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": promptAgent,
		"empty.md":        "\n",
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: {file: prompts/missing.md}
  - prompt: {file: empty.md}
`,
	})
	for _, args := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}, {"run", "s.yaml", "--dry-run"}} {
		res := acprun(t, dir, args...)
		for _, want := range []string{
			`s.yaml:5:20: prompt file "prompts/missing.md" does not exist`,
			`s.yaml:6:20: prompt file "empty.md" is empty`,
			"  - prompt: {file: prompts/missing.md}",
		} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, res.stderr)
			}
		}
		if res.code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, res.code)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "out.json")); len(files) > 0 {
		t.Error("run wrote results")
	}
}

// TestPromptFlag: --prompt - and --prompt FILE replace the turns of the
// one selected scenario (against every --agent) with one turn of that
// text; its scenario-level settings stay.
func TestPromptFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": promptAgent,
		"acprun.yaml":     "agents:\n  one: {command: [acprun, mock-agent, agent.mock.yaml]}\n  two: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
		"prompt.md":       nightlyPrompt,
		"s.yaml": `name: a
agent: one
permissions: {default: deny}
turns:
  - prompt: first turn, replaced
  - prompt: second turn, replaced
    expect: {stopReason: refusal}
---
name: b
agent: one
permissions: {default: deny}
turns: [{prompt: b}]
`,
	})
	res := promptWithStdin(t, dir, nightlyPrompt, "run", "s.yaml", "--run", "^a$", "--prompt", "-", "-o", "stdin.json")
	if res.code != exitOK {
		t.Fatalf("--prompt -: exit %d\n%s", res.code, res.stderr)
	}
	want := []string{"a@one " + nightlyPrompt + " → end_turn: nightly prompt seen, unexpanded, whole"}
	if diff := cmp.Diff(want, promptTurnSummary(readResults(t, filepath.Join(dir, "stdin.json")))); diff != "" {
		t.Errorf("--prompt -: turns (-want +got):\n%s", diff)
	}

	res = acprun(t, dir, "run", "s.yaml", "--run", "^a$", "--prompt", "prompt.md", "--agent", "one", "--agent", "two", "-o", "file.json")
	if res.code != exitOK {
		t.Fatalf("--prompt FILE: exit %d\n%s", res.code, res.stderr)
	}
	want = []string{
		"a@one " + nightlyPrompt + " → end_turn: nightly prompt seen, unexpanded, whole",
		"a@two " + nightlyPrompt + " → end_turn: nightly prompt seen, unexpanded, whole",
	}
	if diff := cmp.Diff(want, promptTurnSummary(readResults(t, filepath.Join(dir, "file.json")))); diff != "" {
		t.Errorf("--prompt FILE --agent one --agent two: turns (-want +got):\n%s", diff)
	}

	// The replaced turn expects end_turn: a refusal fails, named after
	// where the prompt came from.
	res = promptWithStdin(t, dir, "something else\n", "run", "s.yaml", "--run", "^a$", "--prompt", "-", "-o", "refused.json")
	out := readResults(t, filepath.Join(dir, "refused.json"))
	if res.code != exitFailed || len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 ||
		!promptAnyContains(out.Scenarios[0].Turns[0].Failures, "--prompt -: stopReason refusal, want end_turn") {
		t.Errorf("a refused --prompt -: exit %d, results %+v, want exit 1 and the failure at --prompt -", res.code, out.Scenarios)
	}
}

// TestPromptFileUTF16: a prompt file saved as UTF-16 with a byte order
// mark (PowerShell's > saves so), which a scenario file may be, is sent as
// its text, without the mark, from --prompt FILE, --prompt - and prompt:
// {file: PATH}, where it was refused as not UTF-8 text.
func TestPromptFileUTF16(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var le, be []byte
	le, be = append(le, 0xff, 0xfe), append(be, 0xfe, 0xff)
	for _, r := range nightlyPrompt { // ASCII: one unit each
		le, be = append(le, byte(r), 0), append(be, 0, byte(r))
	}
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": promptAgent,
		"le.md":           string(le),
		"be.md":           string(be),
		"s.yaml":          "name: a\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: replaced}]\n",
		"f.yaml":          "name: f\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: {file: be.md}}]\n",
	})
	for _, tt := range []struct {
		name, stdin string
		args        []string
	}{
		{"--prompt le.md", "", []string{"s.yaml", "--prompt", "le.md"}},
		{"--prompt -", string(be), []string{"s.yaml", "--prompt", "-"}},
		{"prompt: {file: be.md}", "", []string{"f.yaml"}},
	} {
		res := promptWithStdin(t, dir, tt.stdin, append(append([]string{"run"}, tt.args...), "-o", "out.json")...)
		if res.code != exitOK {
			t.Errorf("%s: exit %d, want 0\n%s", tt.name, res.code, res.stderr)
			continue
		}
		out := readResults(t, filepath.Join(dir, "out.json"))
		want := []string{out.Scenarios[0].Name + "@ " + nightlyPrompt + " → end_turn: nightly prompt seen, unexpanded, whole"}
		if diff := cmp.Diff(want, promptTurnSummary(out)); diff != "" {
			t.Errorf("%s: turns (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestPromptFlagErrors: --prompt with several scenarios selected, an empty
// stdin or a file that is not there is a usage error (exit 2) that says
// what to do, and nothing runs.
func TestPromptFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": promptAgent,
		"a.yaml":          "name: a\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: a}]\n",
		"b.yaml":          "name: b\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: b}]\n",
	})
	tests := []struct {
		stdin string
		args  []string
		want  string
	}{
		{nightlyPrompt, []string{"a.yaml", "b.yaml", "--prompt", "-"},
			"--prompt replaces the turns of one scenario, and 2 are selected (a, b): choose one with --run, --tag or by naming its file"},
		{"", []string{"a.yaml", "--prompt", "-"}, "--prompt -: stdin is empty"},
		{"caf\xe9", []string{"a.yaml", "--prompt", "-"}, "--prompt -: stdin is not UTF-8 text"},
		{"", []string{"a.yaml", "--prompt", "fix the tests"},
			"--prompt 'fix the tests': the file does not exist (with a scenario file, --prompt takes a file holding the prompt, or - to read it from stdin; " +
				"the text itself only without one: acprun run --agent NAME --prompt TEXT)"},
		{"", []string{"a.yaml", "--prompt", "."}, "--prompt .: the file is not a regular file (a directory): give a file"},
	}
	for _, tt := range tests {
		for _, extra := range [][]string{{"-o", "out.json"}, {"--dry-run"}} {
			args := append(append([]string{"run"}, tt.args...), extra...)
			res := promptWithStdin(t, dir, tt.stdin, args...)
			if res.code != exitUsage || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 and %q", args, res.code, res.stderr, tt.want)
			}
			if res.stdout != "" {
				t.Errorf("%v: printed a plan:\n%s", args, res.stdout)
			}
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "out.json")); len(files) > 0 {
		t.Error("a run with a bad --prompt wrote results")
	}
}

// promptAnyContains reports whether some element of list contains s.
func promptAnyContains(list []string, s string) bool {
	for _, l := range list {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestImageOnlyPromptToAgentWithoutImages: a prompt of images alone, to an
// agent that does not accept images, goes as a resource_link to each
// image's file (which every agent accepts), with a warning at the part,
// never as an empty prompt.
func TestImageOnlyPromptToAgentWithoutImages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "default: {steps: [{text: hi}]}\n",
		"s.yaml":          "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns:\n  - prompt:\n      - image: shot.png\n",
		"shot.png":        "\x89PNG\r\n\x1a\nxxxx",
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	warning := "s.yaml:5:16: the agent does not accept images (promptCapabilities.image); image shot.png sent as a link"
	if !strings.Contains(res.stderr, warning) {
		t.Errorf("stderr lacks %q:\n%s", warning, res.stderr)
	}
	line := findTranscriptLine(t, filepath.Join(dir, "tr", "s.jsonl"), `"method":"session/prompt"`, "c2a")
	var msg struct {
		Msg struct {
			Params struct {
				Prompt []map[string]any `json:"prompt"`
			} `json:"params"`
		} `json:"msg"`
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	want := []map[string]any{{"type": "resource_link", "uri": "file://" + filepath.Join(dir, "shot.png"), "name": "shot.png", "mimeType": "image/png"}}
	if diff := cmp.Diff(want, msg.Msg.Params.Prompt); diff != "" {
		t.Errorf("prompt (-want +got):\n%s", diff)
	}
}

// TestPromptAttachmentsTooLarge: a prompt whose files and images hold more
// than a message to an agent can carry is an error at the part, in
// validate and before run starts anything (exit 2), not a 12 MB line the
// agent drops.
func TestPromptAttachmentsTooLarge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "default: {steps: [{text: hi}]}\n",
		"s.yaml":          "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns:\n  - prompt:\n      - text: read\n      - file: ./big.txt\n",
		"big.txt":         strings.Repeat(strings.Repeat("x", 99)+"\n", 120000),
	})
	want := "s.yaml:6:15: big.txt: the files and images of this prompt take at least 11.4 MiB in its message, more than the 6 MiB a prompt may attach"
	for _, args := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, want) {
			t.Errorf("%s: exit %d, want %d and %q\n%s", args[0], res.code, exitUsage, want, res.stderr)
		}
	}
}
