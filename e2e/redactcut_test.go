package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// cutKey is a secret longer than any cut of a message.
const cutKey = "sk-proj-Q3vZp9LmT2xWc8RkY6nBh4JdF1sGa7UeXo5MiPq0Vt3LzKw9NbCyHs2Dg6Rf8Tj1Yu4Ie7Oa0Pl5Mk9"

// showsPartOf reports whether out shows 8 bytes or more of secret.
func showsPartOf(out, secret string) bool {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+8]) {
			return true
		}
	}
	return false
}

// TestCutMessagesRedacted: failure messages that quote only a part of an
// agent's text (notMatches, notContains, notices.max, a protocol
// violation's line) show no part of a
// secret the cut goes through, in stderr, the results, JUnit, the GitHub
// annotations and step summary and the HTML report.
func TestCutMessagesRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.yaml": `turns:
  - steps:
      - text: "Here is the key: ` + cutKey + ` and more."
      - garbage: "` + strings.Repeat("0", 170) + ` token=` + cutKey + `"
      - notice: {severity: error, title: "leak", description: "` + strings.Repeat("x", 100) + ` ` + cutKey + ` somewhere"}
`,
		"s.yaml": `name: cut
agent:
  command: [acprun, mock-agent, m.yaml]
  env: {OPENAI_API_KEY: ` + cutKey + `}
permissions: {default: deny}
turns:
  - prompt: hi
    expect:
      text: {notMatches: "sk-[A-Za-z0-9-]+", notContains: "key:"}
      notices: {max: info}
`,
	})
	summary := filepath.Join(dir, "summary.md")
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_WORKSPACE="},
		"run", "s.yaml", "-o", "r.json", "--junit", "j.xml", "--html", "r.html")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	outs := map[string]string{"stderr": res.stderr, "stdout (annotations)": res.stdout}
	for name, data := range readFiles(t, dir, "r.json", "j.xml", "r.html", "summary.md") {
		outs[name] = string(data)
	}
	for name, out := range outs {
		if showsPartOf(out, cutKey) {
			t.Errorf("%s shows a part of the key:\n%s", name, out)
		}
	}
	for _, want := range []string{`matches /sk-[A-Za-z0-9-]+/: "[REDACTED]…"`, `contains "key:", at line 1, column 13: "Here is the key: [REDACTED]…"`, `error "leak" (` + strings.Repeat("x", 100) + ` [REDACTED]…)`, ` token=[REDACTED]"… (264 bytes)`} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %s:\n%s", want, res.stderr)
		}
	}
}

// TestProbeFirstLineRedacted: acprun probe's summary of what an agent
// printed that is not JSON, its first line cut, shows no part of a
// secret the cut goes through.
func TestProbeFirstLineRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"MY_TOKEN=" + cutKey}
	res := acprunEnv(t, dir, env, "probe", "--", "sh", "-c", `printf "%0170d token=$MY_TOKEN\n" 0`)
	if showsPartOf(res.stdout+res.stderr, cutKey) {
		t.Errorf("probe shows a part of the token:\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout+res.stderr, "token=[REDACTED]…") {
		t.Errorf("probe does not show the line cut and redacted:\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	}
}

// TestCompactionSummarySecretRedacted: a secret an agent streams over the
// chunks of a compaction's summary is redacted in the transcript and the
// HTML report where it starts and dropped from the chunk after; the
// results keep the summary whole, redacted, and where a summary is cut at
// 64 KiB through the secret, what is left of it is [REDACTED].
func TestCompactionSummarySecretRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.yaml": `turns:
  - steps:
      - compaction: {compactionId: c1, status: in_progress}
      - compaction: {compactionId: c1, chunk: "sum sk-live-ABCd"}
      - compaction: {compactionId: c1, chunk: "ef123XYZ end"}
      - compaction: {compactionId: c2, chunk: "` + strings.Repeat("x", 64<<10-12) + `"}
      - compaction: {compactionId: c2, chunk: "sum sk-live-ABCdef123XYZ end"}
      - text: done
`,
		"s.yaml": `name: sum
agent:
  command: [acprun, mock-agent, m.yaml]
  env: {MY_SECRET: sk-live-ABCdef123XYZ}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "r.json", "--transcripts", "tr", "--html", "r.html")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	tr := filepath.Join("tr", "sum.jsonl")
	files := readFiles(t, dir, "r.json", tr, "r.html")
	for name, data := range files {
		if strings.Contains(string(data), "ABCd") || strings.Contains(string(data), "ef123XYZ") || strings.Contains(string(data), "sk-live") {
			t.Errorf("%s shows a part of the secret:\n%s", name, data)
		}
	}
	for _, want := range []string{`"text":"sum [REDACTED]"`, `"text":" end"`} {
		if !strings.Contains(string(files[tr]), want) {
			t.Errorf("the transcript lacks %s:\n%s", want, files[tr])
		}
	}
	cs := readResults(t, filepath.Join(dir, "r.json")).Scenarios[0].Turns[0].Compactions
	if len(cs) != 2 || cs[0].Summary != "sum [REDACTED] end" || !strings.HasSuffix(cs[1].Summary, "xsum [REDACTED]") || !cs[1].SummaryTruncated {
		var ends []string
		for _, c := range cs {
			ends = append(ends, c.Summary[max(0, len(c.Summary)-30):])
		}
		t.Errorf("results: compactions ending %q, want c1 summary %q, c2's cut and ending %q", ends, "sum [REDACTED] end", "xsum [REDACTED]")
	}
}
