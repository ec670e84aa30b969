package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/runner"
)

// TestSandboxTerminalPreload: an agent that builds a library and gives it
// as LD_PRELOAD in a terminal's env runs it in the terminal's command,
// inside the sandbox, and nowhere else: not in acprun's sandbox helper,
// nor in bwrap, which run before the sandbox is in force (the dynamic
// loader runs the library in any process started with LD_PRELOAD, before
// its own code). The library writes the name of each process that loads
// it in the cwd, and outside. Needs gcc (for the agent; the test is
// skipped without it); TestSandboxWrapperEnv tests the same without.
func TestSandboxTerminalPreload(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	for _, tc := range []struct {
		backend string
		bwrap   bool
	}{
		{"bubblewrap+landlock", true},
		{"landlock", false},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			dir, outside := realTempDir(t), realTempDir(t)
			env := needSandbox(t, tc.bwrap, realTempDir(t))
			writeFiles(t, dir, map[string]string{
				"evil.c": `#include <fcntl.h>
#include <string.h>
#include <unistd.h>
static void note(const char *path, const char *s) {
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) { write(fd, s, strlen(s)); close(fd); }
}
__attribute__((constructor)) static void loaded(void) {
	char comm[64] = {0};
	int fd = open("/proc/self/comm", O_RDONLY);
	if (fd >= 0) { read(fd, comm, sizeof comm - 1); close(fd); }
	note("` + dir + `/loaded", comm);
	note("` + outside + `/PWNED", comm);
}
`,
				"s.mock.yaml": `turns:
  - steps:
      - spawn: gcc -shared -fPIC -o evil.so evil.c && echo built
      - terminal: {command: "true", env: {LD_PRELOAD: ` + dir + `/evil.so}, waitForExit: true}
`,
				"s.yaml": "name: preload\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\nsandbox: {network: off}\n" +
					"permissions: {default: allow}\nturns: [{prompt: go}]\n",
			})
			res, out := runSandboxed(t, dir, env, "s.yaml")
			if res.code != exitOK {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			if text := out.Scenarios[0].Turns[0].Text; !strings.Contains(text, "spawn: exit 0: built") || !strings.Contains(text, "exit: 0") {
				t.Fatalf("the agent said %q; want the library built, and the terminal's exit 0", text)
			}
			if sb := out.Scenarios[0].Sandbox; sb == nil || sb.Backend != tc.backend {
				t.Errorf("sandbox %+v, want %s", sb, tc.backend)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "loaded")); err != nil || string(b) != "true\n" {
				t.Errorf("the library was loaded by %q (%v); want by the terminal's command (true) only", b, err)
			}
			absent(t, filepath.Join(outside, "PWNED"), "the library, run outside the sandbox")
		})
	}
}

// TestSandboxWrapperEnv: the processes that start a sandboxed terminal's
// command, and its agent, before the sandbox is in force (acprun's
// sandbox helper, and bwrap) never start with the environment the agent
// gives the terminal, LD_PRELOAD included; the command gets it whole. The
// helper (ACPRUN_TEST_SELF) and bwrap (first in the PATH) are scripts that
// record their environment in the cwd, then exec the real ones. Needs no
// compiler.
func TestSandboxWrapperEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		backend string
		bwrap   bool
	}{
		{"bubblewrap+landlock", true},
		{"landlock", false},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			dir, bin := realTempDir(t), realTempDir(t)
			env := needSandbox(t, tc.bwrap, realTempDir(t))
			// Each records its environment as it was at its exec in dir,
			// in a file named for what it is: the helper (its first
			// argument is the helper's), bwrap, or other (the mock agent,
			// the guard).
			script := func(file, name, prog string) {
				src := "#!/bin/sh\nname=" + name + "\nif [ \"$name\" = self ]; then case \"$1\" in " + sandbox.ExecArg + ") name=helper;; *) name=other;; esac; fi\n" +
					"f=$(mktemp \"" + dir + "/record.$name.XXXXXX\" 2>/dev/null) && cat /proc/$$/environ > \"$f\"\nexec " + prog + " \"$@\"\n"
				if err := os.WriteFile(filepath.Join(bin, file), []byte(src), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			script("acprun", "self", acprunBin)
			env = append(env, runner.EnvTestSelf+"="+filepath.Join(bin, "acprun"))
			if tc.bwrap {
				real, err := exec.LookPath("bwrap")
				if err != nil {
					t.Fatal(err)
				}
				script("bwrap", "bwrap", real)
				env = append(env, "PATH="+bin+":"+os.Getenv("PATH"))
			}
			writeFiles(t, dir, map[string]string{
				"s.mock.yaml": `turns:
  - steps:
      - terminal: {command: sh, args: [-c, 'echo "$SBENV_MARKER $LD_PRELOAD"'], env: {SBENV_MARKER: the-terminals, LD_PRELOAD: /nonexistent/sbenv.so}, waitForExit: true, output: true}
`,
				"s.yaml": "name: wrapper env\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\nsandbox: {network: on}\n" +
					"permissions: {default: allow}\nturns: [{prompt: go}]\n",
			})
			res, out := runSandboxed(t, dir, env, "s.yaml")
			if res.code != exitOK {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			if sb := out.Scenarios[0].Sandbox; sb == nil || sb.Backend != tc.backend {
				t.Errorf("sandbox %+v, want %s", sb, tc.backend)
			}
			if text := out.Scenarios[0].Turns[0].Text; !strings.Contains(text, "\nthe-terminals /nonexistent/sbenv.so\n") {
				t.Errorf("the agent said %q; want the terminal's command to see its env", text)
			}
			// The agent's process and the terminal's each start the helper
			// (and, inside bwrap, again) and bwrap.
			want := map[string]int{"helper": 2, "bwrap": 0}
			if tc.bwrap {
				want = map[string]int{"helper": 4, "bwrap": 2}
			}
			for name, n := range want {
				files, err := filepath.Glob(filepath.Join(dir, "record."+name+".*"))
				if err != nil {
					t.Fatal(err)
				}
				if len(files) < n {
					t.Errorf("%d %s records, want at least %d", len(files), name, n)
				}
				for _, f := range files {
					b, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					for kv := range strings.SplitSeq(string(b), "\x00") {
						if strings.HasPrefix(kv, "SBENV_MARKER=") || strings.HasPrefix(kv, "LD_PRELOAD=") {
							t.Errorf("%s started with the terminal's %s", name, kv)
						}
					}
				}
			}
		})
	}
}
