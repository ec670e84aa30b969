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
