package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
)

// TestVerdictIgnoresLateContent runs 50 copies of scenarios whose agent
// sends a chunk right after its answer, 8 at a time: the late chunk is
// never the turn's text, so every copy gets the same verdict, and each
// failure agrees with the recorded text.
func TestVerdictIgnoresLateContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"agent.mock.yaml": `turns:
  - steps: [{text: "hi"}]
    after: [{text: " LATE1"}, {tool_call: {toolCallId: late1, title: late, kind: read, status: completed}}]
`}
	const copies = 25
	for i := range copies {
		files[fmt.Sprintf("pass%02d.yaml", i)] = fmt.Sprintf(`name: pass%02d
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: one
    expect: {text: {contains: hi, matches: "^hi$"}}
`, i)
		files[fmt.Sprintf("fail%02d.yaml", i)] = fmt.Sprintf(`name: fail%02d
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: one
    expect: {text: {contains: LATE1}}
`, i)
	}
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, ".", "-j", "8")
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (the fail copies fail)\n%s", res.code, res.stderr)
	}
	if len(out.Scenarios) != 2*copies {
		t.Fatalf("%d scenarios, want %d", len(out.Scenarios), 2*copies)
	}
	for _, sc := range out.Scenarios {
		tr := sc.Turns[0]
		want := report.StatusPassed
		if strings.HasPrefix(sc.Name, "fail") {
			want = report.StatusFailed
		}
		if sc.Status != want {
			t.Errorf("%s: status %s, want %s (failures %q, text %q, lateText %q)", sc.Name, sc.Status, want, sc.Failures, tr.Text, tr.LateText)
		}
		if tr.Text != "hi" || tr.LateText != " LATE1" {
			t.Errorf("%s: text %q, lateText %q; want the turn's own text apart from the late one", sc.Name, tr.Text, tr.LateText)
		}
		if want == "failed" && (len(tr.Failures) != 1 || !strings.Contains(tr.Failures[0], `text does not contain "LATE1"`)) {
			t.Errorf("%s: failures %q, want the one about LATE1", sc.Name, tr.Failures)
		}
		if len(tr.ToolCalls) != 1 || !tr.ToolCalls[0].Late {
			t.Errorf("%s: tool calls %+v, want the late one flagged", sc.Name, tr.ToolCalls)
		}
	}
}

// TestCancelIgnoredIsAWarning: an agent that answers session/cancel with
// end_turn is flagged, and the summary says so.
func TestCancelIgnoredIsAWarning(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, "onCancel: end_turn\nturns:\n  - steps: [{waitForCancel: true}]\n", `name: rude
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turnTimeout: 300ms
turns:
  - prompt: one
    expect: {stopReason: end_turn}
`)
	sc := out.Scenarios[0]
	if !strings.Contains(strings.Join(sc.Warnings, "\n"), "cancelIgnored") || !strings.Contains(res.stderr, "cancelIgnored") {
		t.Errorf("warnings %q / stderr do not flag the ignored cancel:\n%s", sc.Warnings, res.stderr)
	}
}

// TestPermissionBeforeFirstTurn: a permission request that comes before
// the first prompt is answered by the rules and recorded with the setup.
func TestPermissionBeforeFirstTurn(t *testing.T) {
	t.Parallel()
	req := `{"jsonrpc":"2.0","id":"early-1","method":"session/request_permission","params":{"sessionId":"mock-session-1","toolCall":{"toolCallId":"warmup","title":"cat README.md","kind":"read"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`
	res, out, dir := runOne(t, fmt.Sprintf("updatesBeforeSessionNew:\n  - garbage: '%s'\nturns:\n  - steps: [{text: hi}]\n", req), `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
turns: [{prompt: go}]
`, "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	sp := out.Scenarios[0].SetupPermissions
	if len(sp) != 1 || sp[0].ToolCallID != "warmup" || sp[0].Decision != "allow" || sp[0].OptionID != "ok" || out.Scenarios[0].Allowed != 1 {
		t.Errorf("setupPermissions = %+v, allowed %d; want warmup allowed with option ok", sp, out.Scenarios[0].Allowed)
	}
	answer := findTranscriptLine(t, filepath.Join(dir, "tr", "s.jsonl"), `"id":"early-1"`, "c2a")
	if !strings.Contains(answer, `"optionId":"ok"`) {
		t.Errorf("answer sent = %s, want option ok selected", answer)
	}
}

// TestTerminalAuthMethodRefused: a type: terminal auth method is never sent
// in authenticate.
func TestTerminalAuthMethodRefused(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, `authMethods: [{id: tui-login, name: Log in, type: terminal}, {id: key, name: API key}]
turns: [{steps: [{text: hi}]}]
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml], auth: tui-login}
turns: [{prompt: go}]
`, "--transcripts", "tr")
	sc := out.Scenarios[0]
	if res.code != 3 || !strings.Contains(sc.Error, `"tui-login" is a terminal login`) {
		t.Errorf("exit %d, error %q; want 3 and the terminal method named", res.code, sc.Error)
	}
	if line := findTranscriptLine(t, filepath.Join(dir, "tr", "s.jsonl"), `"method":"authenticate"`, "c2a"); line != "" {
		t.Errorf("authenticate was sent: %s", line)
	}
}

// TestTranscriptNamesUnique: scenarios whose names map to the same file
// name get their own transcripts.
func TestTranscriptNamesUnique(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "default: {steps: [{text: hi}]}\n",
		"s.yaml": `name: "a b"
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns: [{prompt: first}]
---
name: a_b
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns: [{prompt: second}]
`,
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "2", "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	seen := map[string]string{}
	for _, sc := range out.Scenarios {
		if other, ok := seen[sc.Transcript]; ok {
			t.Errorf("%s and %s share transcript %s", other, sc.Name, sc.Transcript)
		}
		seen[sc.Transcript] = sc.Name
		prompt := map[string]string{"a b": "first", "a_b": "second"}[sc.Name]
		if findTranscriptLine(t, filepath.Join(dir, sc.Transcript), `"text":"`+prompt+`"`, "c2a") == "" {
			t.Errorf("%s: transcript %s lacks its prompt %q", sc.Name, sc.Transcript, prompt)
		}
	}
}

// TestBinaryPromptFileIsABlob: a binary file is embedded as a base64 blob
// with its mime type, under an escaped file:// URI.
func TestBinaryPromptFileIsABlob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "agentCapabilities: {promptCapabilities: {embeddedContext: true}}\ndefault: {steps: [{text: hi}]}\n",
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: [{text: look}, {file: "my pic.png"}, {file: notes.txt}]
`,
		"notes.txt": "plain notes\n",
	})
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
	if err := os.WriteFile(filepath.Join(dir, "my pic.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	line := findTranscriptLine(t, filepath.Join(dir, "tr", "s.jsonl"), `"method":"session/prompt"`, "c2a")
	var msg struct {
		Msg struct {
			Params struct {
				Prompt []struct {
					Type     string `json:"type"`
					Resource *struct {
						URI      string  `json:"uri"`
						MimeType string  `json:"mimeType"`
						Text     *string `json:"text"`
						Blob     *string `json:"blob"`
					} `json:"resource"`
				} `json:"prompt"`
			} `json:"params"`
		} `json:"msg"`
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	p := msg.Msg.Params.Prompt
	if len(p) != 3 || p[1].Resource == nil || p[2].Resource == nil {
		t.Fatalf("prompt = %s", line)
	}
	img, txt := p[1].Resource, p[2].Resource
	if img.Blob == nil || img.Text != nil || img.MimeType != "image/png" || !strings.HasSuffix(img.URI, "/my%20pic.png") || !strings.HasPrefix(img.URI, "file:///") {
		t.Errorf("image resource = %+v, want a base64 blob of image/png at an escaped file URI", img)
	}
	if txt.Text == nil || *txt.Text != "plain notes\n" || txt.Blob != nil {
		t.Errorf("text resource = %+v, want the text embedded", txt)
	}
}

// TestCancelledTurnFailsUnlessAllowed: a turn acprun cancelled fails even
// when the agent answered end_turn, unless expect.stopReason says so.
func TestCancelledTurnFailsUnlessAllowed(t *testing.T) {
	t.Parallel()
	script := "onCancel: end_turn\nturns:\n  - steps: [{waitForCancel: true}]\n"
	for _, tc := range []struct {
		expect string
		code   int
		fail   string
	}{
		{"", 1, "did not finish by itself: acprun cancelled it after turnTimeout and the agent answered end_turn"},
		{"\n    expect: {stopReason: end_turn}", 0, ""},
		{"\n    expect: {stopReason: cancelled}", 1, "stopReason end_turn, want cancelled (cancelled by acprun after turnTimeout)"},
	} {
		t.Run(strings.TrimSpace(tc.expect), func(t *testing.T) {
			res, out, _ := runOne(t, script, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turnTimeout: 300ms
turns:
  - prompt: one`+tc.expect+"\n")
			sc := out.Scenarios[0]
			if res.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", res.code, tc.code, res.stderr)
			}
			if got := strings.Join(sc.Failures, "\n"); tc.fail == "" && got != "" || !strings.Contains(got, tc.fail) {
				t.Errorf("failures = %q, want %q", got, tc.fail)
			}
		})
	}
}

// TestEmptyDirectoryIsAnEmptySelection: a directory without scenario files
// is an empty selection (exit 5, or 0 with --allow-empty); a missing path
// is a usage error.
func TestEmptyDirectoryIsAnEmptySelection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "empty", "-o", "out.json"}, 5, "no scenarios selected: empty holds no scenario files"},
		{[]string{"run", "empty", "-o", "out.json", "--allow-empty"}, 0, "0 passed"},
		{[]string{"list", "empty"}, 5, "no scenarios selected"},
		{[]string{"validate", "empty"}, 5, "empty holds no scenario files"},
		{[]string{"run", "nope", "-o", "out.json"}, 2, "nope: no such file or directory"},
	} {
		res := acprun(t, dir, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.msg) {
			t.Errorf("acprun %v: exit %d, stderr %q; want %d and %q", tc.args, res.code, res.stderr, tc.code, tc.msg)
		}
	}
}
