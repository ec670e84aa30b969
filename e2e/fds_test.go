package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInheritedFDsStayOut: a descriptor acprun inherits open (not
// close-on-exec, as a make jobserver's, flock 9>file's or a CI runner's
// are) reaches neither the agent, nor what the agent spawns, nor the
// terminals acprun runs for it: unsandboxed, under bubblewrap and under
// Landlock alone. acprun itself still writes its events to another one,
// given as /dev/fd/4.
func TestInheritedFDsStayOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		sandbox bool
		bwrap   bool
	}{
		{"no sandbox", false, false},
		{"bubblewrap", true, true},
		{"landlock", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, out := realTempDir(t), realTempDir(t)
			env := []string{"HOME=" + realTempDir(t)}
			sb := ""
			if tc.sandbox {
				env = needSandbox(t, tc.bwrap, env[0][len("HOME="):])
				sb = "sandbox: {network: on}\n"
			}
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": `turns:
  - steps:
      - spawn: "echo agent >&3"
      - terminal: {command: sh, args: [-c, "echo terminal >&3"], waitForExit: true, output: true}
      - text: done
`,
				"s.yaml": "name: fds\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n" +
					"permissions: {default: allow}\n" + sb + "turns: [{prompt: hi}]\n",
			})
			var files []*os.File
			for _, name := range []string{"fdlog", "events"} {
				f, err := os.OpenFile(filepath.Join(out, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				files = append(files, f)
			}
			cmd := exec.Command(acprunFor(t), "run", "s.yaml", "-o", "out.json", "--events", "/dev/fd/4")
			cmd.Dir = dir
			cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
			cmd.ExtraFiles = files // fds 3 and 4, not close-on-exec
			res, _ := runCommand(t, cmd)
			if res.code != exitOK {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			text := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0].Turns[0].Text
			if strings.Contains(text, "spawn: exit 0") || strings.Contains(text, "exit: 0") ||
				strings.Count(text, "Bad file descriptor") != 2 || !strings.HasSuffix(text, "done") {
				t.Errorf("the agent said %q, want its child and its terminal to fail on fd 3 (Bad file descriptor)", text)
			}
			got := readFiles(t, out, "fdlog", "events")
			if len(got["fdlog"]) != 0 {
				t.Errorf("the agent's side wrote to acprun's inherited fd 3: %q", got["fdlog"])
			}
			if !strings.Contains(string(got["events"]), `"event":"scenario_finished"`) {
				t.Errorf("--events /dev/fd/4 holds %q, want acprun's events", got["events"])
			}
		})
	}
}
