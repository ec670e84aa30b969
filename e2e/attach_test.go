package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// promptResource is a content block of a session/prompt as a test reads it.
type promptResource struct {
	Type     string `json:"type"`
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Resource *struct {
		URI      string  `json:"uri"`
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	} `json:"resource"`
}

// sentPrompt returns the blocks of the first session/prompt in transcript.
func sentPrompt(t *testing.T, transcript string) []promptResource {
	t.Helper()
	line := findTranscriptLine(t, transcript, `"method":"session/prompt"`, "c2a")
	var msg struct {
		Msg struct {
			Params struct {
				Prompt []promptResource `json:"prompt"`
			} `json:"params"`
		} `json:"msg"`
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return msg.Msg.Params.Prompt
}

// TestPromptFileFormFromBytes: an attached file's form and mime type come
// from acprun's own table and the file's bytes, not from the host's mime
// database (where .ts may be a Qt translation or an MPEG stream): the
// same scenario sends the same prompt on every machine. UTF-16 text, full
// of NULs, goes as a blob, not as text/plain.
func TestPromptFileFormFromBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "agentCapabilities: {promptCapabilities: {embeddedContext: true}}\ndefault: {steps: [{text: hi}]}\n",
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: [{file: a.ts}, {file: utf16.log}, {file: ansi.log}]
`,
		"a.ts":      "export const a: number = 1\n",
		"utf16.log": "\xff\xfeh\x00i\x00\n\x00",
		"ansi.log":  "\x1b[31mFAIL\x1b[0m\n",
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	p := sentPrompt(t, filepath.Join(dir, "tr", "s.jsonl"))
	if len(p) != 3 || p[0].Resource == nil || p[1].Resource == nil || p[2].Resource == nil {
		t.Fatalf("prompt = %+v", p)
	}
	if r := p[0].Resource; r.Text == nil || r.MimeType != "text/x-typescript" {
		t.Errorf("a.ts sent as %+v, want text/x-typescript text", *r)
	}
	if r := p[1].Resource; r.Blob == nil || r.Text != nil || r.MimeType != "application/octet-stream" {
		t.Errorf("utf16.log sent as %+v, want an application/octet-stream blob", *r)
	}
	if r := p[2].Resource; r.Text == nil || *r.Text != "\x1b[31mFAIL\x1b[0m\n" || r.MimeType != "text/plain" {
		t.Errorf("ansi.log sent as %+v, want text/plain text", *r)
	}
}

// TestPromptAttachmentSizeAsSent: the 6 MiB a prompt may attach count
// the bytes as sent: a 5.5 MiB UTF-16 log (NULs: a blob, base64) is an
// error at its part before anything runs, exit 2.
func TestPromptAttachmentSizeAsSent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":    "name: s\nagent: {command: [acprun, mock-agent]}\nturns:\n  - prompt: [{text: read it}, {file: utf16.log}]\n",
		"utf16.log": strings.Repeat("h\x00", 11<<18),
	})
	res := acprun(t, dir, "validate", "s.yaml")
	want := "s.yaml:4:38: utf16.log: the files and images of this prompt take 7.3 MiB in its message, more than the 6 MiB"
	if res.code != 2 || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", res.code, res.stderr, want)
	}
}

// TestPromptImageTypeFromBytes: an image goes with the type its bytes
// say (a JPEG named .png is image/jpeg); a file that is no image is an
// error at its part before anything runs.
func TestPromptImageTypeFromBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "agentCapabilities: {promptCapabilities: {image: true}}\ndefault: {steps: [{text: hi}]}\n",
		"s.yaml":          "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns:\n  - prompt: [{text: look}, {image: shot.png}]\n",
		"bad.yaml":        "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns:\n  - prompt: [{text: look}, {image: fake.png}]\n",
		"shot.png":        "\xff\xd8\xff\xe0 a JPEG",
		"fake.png":        "png",
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if p := sentPrompt(t, filepath.Join(dir, "tr", "s.jsonl")); len(p) != 2 || p[1].Type != "image" || p[1].MimeType != "image/jpeg" {
		t.Errorf("prompt = %+v, want the image as image/jpeg", p)
	}
	res = acprun(t, dir, "validate", "bad.yaml")
	want := `bad.yaml:4:36: image "fake.png" is not a PNG, JPEG, GIF or WEBP image (by its first bytes)`
	if res.code != 2 || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", res.code, res.stderr, want)
	}
}

// TestPromptFileLinkReadable: a file sent as a resource_link (the agent
// takes no embedded context) can be read through fs/read_text_file even
// outside the roots (here beside the scenario, with a workspace as the
// session cwd): the scenario gave it to the agent. A file beside it
// cannot.
func TestPromptFileLinkReadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec, other := filepath.Join(dir, "spec.md"), filepath.Join(dir, "other.md")
	writeFiles(t, dir, map[string]string{
		"spec.md":         "the spec: greet in French\n",
		"other.md":        "not given\n",
		"project/a.txt":   "x\n",
		"link.mock.yaml":  "agentCapabilities: {promptCapabilities: {embeddedContext: false}}\ndefault: {steps: [{read: {path: " + spec + "}}]}\n",
		"other.mock.yaml": "agentCapabilities: {promptCapabilities: {embeddedContext: false}}\ndefault: {steps: [{read: {path: " + other + "}}]}\n",
		"s.yaml": `name: link
agent: {command: [acprun, mock-agent, link.mock.yaml]}
workspace: {from: project}
permissions: {default: allow}
turns:
  - prompt: [{text: "Implement the attached spec."}, {file: spec.md}]
    expect: {text: {contains: "greet in French"}}
`,
		"o.yaml": `name: other
agent: {command: [acprun, mock-agent, other.mock.yaml]}
workspace: {from: project}
permissions: {default: allow}
turns:
  - prompt: [{text: "Implement the attached spec."}, {file: spec.md}]
`,
	})
	if res := acprun(t, dir, "run", "s.yaml", "-o", "out.json"); res.code != 0 {
		t.Errorf("the attached file: exit %d, want 0\n%s", res.code, res.stderr)
	}
	res := acprun(t, dir, "run", "o.yaml", "-o", "o.json")
	out, err := os.ReadFile(filepath.Join(dir, "o.json"))
	if err != nil {
		t.Fatalf("exit %d: %v\n%s", res.code, err, res.stderr)
	}
	if !strings.Contains(string(out), other+" is outside the allowed roots") {
		t.Errorf("a file beside it: not refused outside the roots\n%s", out)
	}
}

// TestPromptFileServedOnlyAsGiven: the client serves an attached file
// only from the turn whose prompt gives it, and only as the prompt gave
// it: a turn before it reads nothing, and a file the agent replaced since
// is refused, not served as the agent left it.
func TestPromptFileServedOnlyAsGiven(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	notes := filepath.Join(dir, "other", "NOTES.md")
	writeFiles(t, dir, map[string]string{
		"ws/a.txt":        "x\n",
		"other/NOTES.md":  "the answer key\n",
		"early.mock.yaml": "turns:\n  - steps: [{read: {path: " + notes + "}}]\n  - steps: [{text: ok}]\n",
		"swap.mock.yaml":  "turns:\n  - steps: [{spawn: \"rm " + notes + " && echo planted > " + notes + "\"}, {read: {path: " + notes + "}}]\n",
		"s.yaml": `name: early
agent: {command: [acprun, mock-agent, early.mock.yaml], cwd: ws}
client: {fs: true}
permissions: {default: allow}
turns:
  - prompt: hello
  - prompt: [{text: see}, {file: other/NOTES.md}]
---
name: swap
agent: {command: [acprun, mock-agent, swap.mock.yaml], cwd: ws}
client: {fs: true}
permissions: {default: allow}
turns:
  - prompt: [{text: see}, {file: other/NOTES.md}]
`,
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--run", "^early$")
	if tr := out.Scenarios[0].Turns[0]; strings.Contains(tr.Text, "answer key") || len(tr.ClientRequests) != 1 || !strings.Contains(tr.ClientRequests[0].Refused, "outside the allowed roots") {
		t.Errorf("a read in the turn before the prompt that gives the file: text %q, requests %+v; want refused\n%s", tr.Text, tr.ClientRequests, res.stderr)
	}
	res, out = runResults(t, dir, "s.yaml", "--run", "^swap$")
	if tr := out.Scenarios[0].Turns[0]; strings.Contains(tr.Text, "planted") || len(tr.ClientRequests) != 1 || !strings.Contains(tr.ClientRequests[0].Refused, "the attached file has changed since its prompt gave it") {
		t.Errorf("a read of the file the agent replaced: text %q, requests %+v; want refused\n%s", tr.Text, tr.ClientRequests, res.stderr)
	}
}
