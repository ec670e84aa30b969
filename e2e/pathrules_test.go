package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestPathRulesFailClosed: a deny path rule cannot be walked around by a
// command acprun runs itself through terminal/create: not with a
// redirection to ~/… or $HOME/… (which acprun cannot resolve, so every
// deny path rule matches it), not through a symbolic link in the cwd
// (rules see the path as the OS resolves it), and not by writing a .env
// outside the cwd ("**/.env" in a deny rule matches anywhere). None of
// the files is written, while an allowed echo runs; explain answers as
// run does and shows the resolved path.
func TestPathRulesFailClosed(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"secret/.keep": "",
		"other/.keep":  "",
		"ws/.keep":     "",
		"m.mock.yaml": `turns:
  - steps:
      - terminal: {command: "echo pwned > ~/secret/tilde", env: {HOME: "` + dir + `"}, waitForExit: true}
      - terminal: {command: "echo pwned > $HOME/secret/dollar", env: {HOME: "` + dir + `"}, waitForExit: true}
      - terminal: {command: "echo pwned > lnk/vialink", waitForExit: true}
      - terminal: {command: "echo KEY=x > ../other/.env", waitForExit: true}
      - terminal: {command: "echo ok > ok.txt", waitForExit: true}
`,
		"s.yaml": `name: paths
agent: {command: [acprun, mock-agent, m.mock.yaml], cwd: ./ws}
permissions:
  default: deny
  allow:
    - kind: execute
      command: ["echo *"]
    - kind: edit
      path: "**"
  deny:
    - path: ["` + dir + `/secret/**", "**/.env"]
turns:
  - prompt: hi
`,
	})
	if err := os.Symlink("../secret", filepath.Join(dir, "ws", "lnk")); err != nil {
		t.Fatal(err)
	}
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	for _, f := range []string{"secret/tilde", "secret/dollar", "secret/vialink", "other/.env"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a denied command ran: %s exists", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ws", "ok.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	var creates []report.ClientRequest
	for _, r := range out.Scenarios[0].Turns[0].ClientRequests {
		if r.Method == "terminal/create" {
			creates = append(creates, r)
		}
	}
	if len(creates) != 5 {
		t.Fatalf("terminal/create requests %+v, want 5", creates)
	}
	for _, r := range creates[:4] {
		if r.Decision != "deny" || r.Rule != "s.yaml:11" || r.TerminalID != "" {
			t.Errorf("terminal/create of %q recorded as %+v, want denied by s.yaml:11", r.Command, r)
		}
	}

	wsDir := filepath.Join(dir, "ws")
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--kind", "edit", "--path", "lnk/edit"}, []string{
			`paths:    "` + wsDir + `/lnk/edit", "` + dir + `/secret/edit"`,
			`path "` + dir + `/secret/edit" ("` + wsDir + `/lnk/edit" with its links resolved) matches "` + dir + `/secret/**"`,
		}},
		{[]string{"--kind", "execute", "--command", "echo x > ~/.bashrc"}, []string{
			`path "~/.bashrc" (unresolvable: it matches every deny path pattern and no allow one) matches "` + dir + `/secret/**"`,
		}},
		{[]string{"--kind", "read", "--path", "/srv/app/.env"}, []string{`path "/srv/app/.env" matches "**/.env"`}},
		{[]string{"--kind", "execute", "--command", "cat < ../other/.env"}, []string{`path "` + dir + `/other/.env" matches "**/.env"`}},
	} {
		res := acprun(t, dir, append([]string{"explain", "s.yaml"}, tt.args...)...)
		if res.code != 1 || !strings.Contains(res.stdout, "decision: DENY by deny rule s.yaml:11") {
			t.Errorf("explain %q: exit %d, want 1, denied by s.yaml:11\nstdout:\n%s\nstderr:\n%s", tt.args, res.code, res.stdout, res.stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(res.stdout, w) {
				t.Errorf("explain %q: stdout lacks %q:\n%s", tt.args, w, res.stdout)
			}
		}
	}
}
