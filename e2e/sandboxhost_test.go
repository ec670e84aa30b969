package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/runner"
)

// needBwrapAlone skips the test when this host lacks bubblewrap (and fails
// it instead under ACPRUN_BWRAP_REQUIRED=1), and returns the environment
// that makes acprun see the host without Landlock (bubblewrap alone),
// with HOME in home.
func needBwrapAlone(t *testing.T, home string) []string {
	t.Helper()
	if h := sandbox.Detect(); h.Bwrap == "" {
		if os.Getenv("ACPRUN_BWRAP_REQUIRED") == "1" {
			t.Fatal(h.NoBwrap)
		}
		t.Skip(h.NoBwrap)
	}
	return []string{"HOME=" + home, runner.EnvTestNoPasswd + "=1", sandbox.EnvTestLandlockABI + "=0"}
}

// TestSandboxKernelSettingsReadOnly: under bubblewrap alone, an agent run
// by root (who owns the kernel's settings, and keeps owning them with no
// capability) cannot write the host's: /proc/sys is read-only in the
// sandbox. The agent writes back what the setting holds, so that the
// host's stays as it is whatever happens.
func TestSandboxKernelSettingsReadOnly(t *testing.T) {
	t.Parallel()
	const setting = "/proc/sys/kernel/domainname"
	testkit.KernelSetting(t, setting)
	dir := realTempDir(t)
	env := needBwrapAlone(t, realTempDir(t))
	writeFiles(t, dir, map[string]string{
		"ws/a.txt": "a\n",
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: "v=$(cat ` + setting + `) && printf '%s\\n' \"$v\" > ` + setting + ` && echo SETTING-WRITTEN"
`,
		"s.yaml": "name: sysctl\nagent: {command: [acprun, mock-agent, " + filepath.Join(dir, "agent.mock.yaml") + "]}\nworkspace: {from: ws}\n" +
			"permissions: {default: allow}\nsandbox: {network: off}\nturns: [{prompt: hi}]\n",
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if sc.Sandbox == nil || sc.Sandbox.Backend != "bubblewrap" {
		t.Fatalf("sandbox %+v; want bubblewrap", sc.Sandbox)
	}
	if text := sc.Turns[0].Text; strings.Contains(text, "SETTING-WRITTEN") || !strings.Contains(text, setting+": Read-only file system") {
		t.Errorf("the agent said %q; want its write to %s refused as a read-only file system", text, setting)
	}
}

// TestSandboxUsersTerminals: under Landlock alone the agent cannot write
// to a terminal of the user's (one the test holds open, standing for the
// one acprun runs in), nor read it (the keys the user types), nor push
// keystrokes into it (TIOCSTI, with perl, where the kernel allows it), nor
// open a pseudo-terminal of its own.
func TestSandboxUsersTerminals(t *testing.T) {
	t.Parallel()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	defer ptm.Close()
	defer pts.Close()
	dir := realTempDir(t)
	env := needSandbox(t, false, realTempDir(t))
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: "printf 'FORGED: 12 passed\\n' > ` + pts.Name() + ` && echo TERMINAL-WRITTEN"
      - spawn: "exec 3<>/dev/ptmx && echo PTY-OPENED"
      - spawn: "exec 3<` + pts.Name() + ` && echo TERMINAL-READ"
      - spawn: "perl -MPOSIX -e 'open(my $t, \"<\", $ARGV[0]) or die \"open: $!\\n\"; POSIX::setsid(); ioctl($t, ` +
			strconv.Itoa(unix.TIOCSCTTY) + `, 0); my $c = \"x\"; ioctl($t, ` + strconv.Itoa(unix.TIOCSTI) + `, $c) or die \"TIOCSTI: $!\\n\"; print \"KEY-PUSHED\\n\"' ` + pts.Name() + `"
`,
		"s.yaml": "name: tty\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nsandbox: {}\nturns: [{prompt: hi}]\n",
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	text := out.Scenarios[0].Turns[0].Text
	wants := []string{pts.Name() + ": Permission denied", "/dev/ptmx: Permission denied"}
	if _, err := exec.LookPath("perl"); err == nil {
		wants = append(wants, "open: Permission denied")
	}
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("the agent said %q; want %q in it", text, want)
		}
	}
	if strings.Contains(text, "-WRITTEN") || strings.Contains(text, "-OPENED") || strings.Contains(text, "-READ") || strings.Contains(text, "-PUSHED") {
		t.Errorf("the agent said %q; want no terminal written, read, opened or pushed into", text)
	}
}

// TestSandboxMetadataOutside: bubblewrap makes the files outside the
// write paths read-only, their metadata too (chmod fails); Landlock alone
// restricts writing them, not changing their metadata, and each sandboxed
// scenario's warnings say so, at its sandbox.
func TestSandboxMetadataOutside(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, bwrap bool) {
		dir, outside := realTempDir(t), realTempDir(t)
		env := needSandbox(t, bwrap, realTempDir(t))
		victim := filepath.Join(outside, "victim")
		writeFiles(t, outside, map[string]string{"victim": "precious\n"})
		if err := os.Chmod(victim, 0o600); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": "turns:\n  - steps:\n      - spawn: \"chmod 644 " + victim + " && echo CHMODDED\"\n",
			"s.yaml":          "name: meta\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nsandbox: {}\nturns: [{prompt: hi}]\n",
		})
		res, out := runSandboxed(t, dir, env, "s.yaml")
		if res.code != exitOK {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		sc := out.Scenarios[0]
		warned := slices.ContainsFunc(sc.Warnings, func(w string) bool {
			return strings.HasPrefix(w, "s.yaml:4:10: sandbox (landlock): Landlock restricts writing files, not changing their metadata: ") &&
				strings.HasSuffix(w, "; bubblewrap (ACPRUN_TEST_NO_BWRAP=1) makes them read-only")
		})
		text := sc.Turns[0].Text
		if bwrap {
			if warned || !strings.Contains(text, "Read-only file system") {
				t.Errorf("warnings %q, the agent said %q; want no warning, and chmod refused", sc.Warnings, text)
			}
		} else if !warned || !strings.Contains(text, "CHMODDED") || !strings.Contains(res.stderr, "sandbox (landlock): Landlock restricts writing files") {
			t.Errorf("warnings %q, the agent said %q; want the chmod done, and warned about (on stderr too)\n%s", sc.Warnings, text, res.stderr)
		}
	})
}

// TestSandboxHideMadeBySetup: a sandbox.hide path inside the workspace
// that setup makes in the copy (as docs/sandbox.md suggests for a secret
// the repository must not hold) is hidden from the agent, and no warning
// says it does not exist; one missing from the copy too is warned about.
func TestSandboxHideMadeBySetup(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	writeFiles(t, dir, map[string]string{
		"ws/a.txt":        "a\n",
		"agent.mock.yaml": "turns:\n  - steps:\n      - spawn: \"cat secrets/key .env\"\n",
		"s.yaml": "name: made\nagent: {command: [acprun, mock-agent, " + filepath.Join(dir, "agent.mock.yaml") + "]}\nworkspace: {from: ws}\n" +
			"setup: [\"mkdir secrets && echo TOPSECRET > secrets/key && echo TOPSECRET2 > .env\"]\n" +
			"sandbox: {hide: [./ws/secrets, ./ws/.env, ./ws/typo]}\npermissions: {default: allow}\nturns: [{prompt: hi}]\n",
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if text := sc.Turns[0].Text; strings.Contains(text, "TOPSECRET") {
		t.Errorf("the agent said %q; want the secrets setup made hidden", text)
	}
	var got []string
	for _, w := range sc.Warnings {
		if strings.Contains(w, "does not exist") {
			got = append(got, w)
		}
	}
	want := []string{"s.yaml:5:43: sandbox hide path " + filepath.Join(dir, "ws", "typo") + " does not exist: nothing is hidden there (check it for a typo)"}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q; want %q", got, want)
	}
}

// TestSandboxNoSetuidFiles: under every backend, with the network on, the
// agent cannot give a file the setuid or setgid bit, in its cwd (a write
// path) or, under Landlock alone, outside it in a file the user owns
// (acprun run as root: a setuid file it leaves runs as root for whoever
// runs it next); other modes it sets as usual.
func TestSandboxNoSetuidFiles(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, bwrap bool) {
		dir, outside := realTempDir(t), realTempDir(t)
		env := needSandbox(t, bwrap, realTempDir(t))
		victim := filepath.Join(outside, "victim")
		writeFiles(t, outside, map[string]string{"victim": "#!/bin/sh\n"})
		if err := os.Chmod(victim, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": `turns:
  - steps:
      - spawn: "cp /bin/true tool && chmod 700 tool && echo CHMOD-700 && chmod u+s tool && echo SETUID"
      - spawn: "chmod g+s tool && echo SETGID"
      - spawn: "install -m 4755 /bin/true tool2 && echo INSTALLED"
      - spawn: "chmod u+s ` + victim + ` && echo VICTIM"
`,
			"s.yaml": "name: setuid\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nsandbox: {network: on}\nturns: [{prompt: hi}]\n",
		})
		res, out := runSandboxed(t, dir, env, "s.yaml")
		if res.code != exitOK {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		text := out.Scenarios[0].Turns[0].Text
		if !strings.Contains(text, "CHMOD-700") || strings.Contains(text, "SETUID") || strings.Contains(text, "SETGID") ||
			strings.Contains(text, "INSTALLED") || strings.Contains(text, "VICTIM") || !strings.Contains(text, "Operation not permitted") {
			t.Errorf("the agent said %q; want chmod 700 done, and every setuid and setgid bit refused", text)
		}
		for file, want := range map[string]os.FileMode{filepath.Join(dir, "tool"): 0o700, victim: 0o755} {
			if fi, err := os.Stat(file); err != nil || fi.Mode() != want {
				t.Errorf("%s is %v (%v); want %v", file, fi.Mode(), err, want)
			}
		}
		if fi, err := os.Stat(filepath.Join(dir, "tool2")); err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Errorf("tool2 is %v", fi.Mode())
		}
	})
}
