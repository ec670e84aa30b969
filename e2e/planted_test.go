package e2e_test

// Links an agent plants: an agent runs in a directory acprun reads from
// too (the scenario's, by default), and may put a symlink to a file of
// the user's where acprun will read a file of its own later in the run.
// acprun refuses such a link rather than copy the file it points at into
// a prompt, the results, the transcripts or the report.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedContent is the content of the victim file: words no redaction
// hides.
const plantedContent = "only the user may read this line"

// plantedVictim is a file of the user's that the agents of these tests
// point their links at.
func plantedVictim(t *testing.T) string {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(victim, []byte(plantedContent+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return victim
}

// noSecret fails the test when a file under dir holds the victim's
// content.
func noSecret(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if data, _ := os.ReadFile(p); strings.Contains(string(data), plantedContent) {
			t.Errorf("%s holds the content of the file the agent's link points at", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPlantedAttachment: in its first turn the agent replaces the file
// the second turn's prompt attaches with a symlink to a file of the
// user's. The file it points at is not read into the prompt (nor the
// transcript): the attachment is sent as a link, with a warning.
func TestPlantedAttachment(t *testing.T) {
	t.Parallel()
	victim := plantedVictim(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": fmt.Sprintf(`agentCapabilities: {promptCapabilities: {embeddedContext: true}}
turns:
  - steps:
      - spawn: "ln -s %s planted && mv -f planted spec.md"
      - text: ok
  - steps: [{text: two}]
`, victim),
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
  - prompt: [{text: read this}, {file: spec.md}]
`,
		"spec.md": "the spec\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	if res.code != exitOK || out.Scenarios[0].Turns[0].Text != "spawn: exit 0: ok" {
		t.Fatalf("exit %d, turns %+v (want the link planted)\n%s", res.code, out.Scenarios[0].Turns, res.stderr)
	}
	noSecret(t, dir)
	want := "s.yaml:6:40: " + filepath.Join(dir, "spec.md") + ": replaced by a symbolic link since the run started, which acprun does not follow (an agent may have put it there); sent as a link"
	if w := out.Scenarios[0].Turns[1].Warnings; len(w) != 1 || w[0] != want {
		t.Errorf("turn 2's warnings %q, want %q", w, want)
	}
}

// TestPlantedGolden: the agent replaces the golden file its output is
// compared with by a symlink to a file of the user's. The file it points
// at is not read, so no line of it is quoted in the failure: the golden
// file cannot be read.
func TestPlantedGolden(t *testing.T) {
	t.Parallel()
	victim := plantedVictim(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": fmt.Sprintf(`turns:
  - steps:
      - spawn: "echo out > out.txt && ln -s %s planted && mv -f planted golden.txt"
      - text: ok
`, victim),
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {files: {golden: {out.txt: golden.txt}}}
`,
		"golden.txt": "want\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--junit", "j.xml", "--html", "r.html")
	if res.code != exitFailed || out.Scenarios[0].Turns[0].Text != "spawn: exit 0: ok" {
		t.Fatalf("exit %d, turns %+v (want the link planted and a failure)\n%s", res.code, out.Scenarios[0].Turns, res.stderr)
	}
	noSecret(t, dir)
	if strings.Contains(res.stderr, plantedContent) {
		t.Errorf("stderr quotes the file the link points at:\n%s", res.stderr)
	}
	want := "s.yaml:6:40: files.golden: cannot read the golden file: " + filepath.Join(dir, "golden.txt") + ": replaced by a symbolic link since the run started"
	if f := out.Scenarios[0].Turns[0].Failures; len(f) != 1 || !strings.HasPrefix(f[0], want) {
		t.Errorf("failures %q, want %q…", f, want)
	}
}

// TestPlantedTranscript: the second scenario's agent, whose cwd holds the
// transcripts directory, replaces the first scenario's finished
// transcript with a symlink to a file of the user's. Neither run --html
// nor report embeds the file it points at: the page says the transcript
// is a link.
func TestPlantedTranscript(t *testing.T) {
	t.Parallel()
	victim := plantedVictim(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns:\n  - steps: [{text: one}]\n",
		"b.mock.yaml": fmt.Sprintf(`turns:
  - steps:
      - spawn: "ln -s %s tr/planted && mv -f tr/planted tr/a.jsonl"
      - text: ok
`, victim),
		"a.yaml": "name: a\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"b.yaml": "name: b\nagent: {command: [acprun, mock-agent, b.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	res, out := runResults(t, dir, "a.yaml", "b.yaml", "-j", "1", "--transcripts", "tr", "--html", "run.html")
	if res.code != exitOK || out.Scenarios[1].Turns[0].Text != "spawn: exit 0: ok" {
		t.Fatalf("exit %d, scenarios %+v (want the link planted)\n%s", res.code, out.Scenarios, res.stderr)
	}
	if rep := acprun(t, dir, "report", "out.json", "-o", "report.html"); rep.code != exitOK {
		t.Fatalf("report: exit %d\n%s", rep.code, rep.stderr)
	}
	noSecret(t, dir)
	for _, page := range []string{"run.html", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		if want := "a.jsonl: a symbolic link, not a transcript acprun wrote"; !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q", page, want)
		}
	}
}
