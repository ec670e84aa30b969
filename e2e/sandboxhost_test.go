//go:build linux

package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// needBwrapAlone skips the test when this host lacks bubblewrap (and fails
// it instead under ACPRUN_BWRAP_REQUIRED=1), and returns the environment
// that makes acprun see the host without Landlock (bubblewrap alone),
// with HOME in home.
func needBwrapAlone(t *testing.T, home string) []string {
	t.Helper()
	if h := sandbox.Detect(os.Environ()); h.Bwrap == "" {
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

// TestSandboxTerminalsElsewhere: under Landlock alone the agent cannot
// read a terminal of the user's through another mount of devpts or
// devtmpfs outside /dev (a chroot's, which schroot, sbuild and arch-chroot
// bind there), while the chroot's other files read as usual. acprun runs
// as root in a mount namespace of the test's own, where the test binds
// them (the host's mounts stay as they are).
func TestSandboxTerminalsElsewhere(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting in a mount namespace of its own needs root")
	}
	if _, err := exec.LookPath("mount"); err != nil {
		t.Skip(err)
	}
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	defer ptm.Close()
	defer pts.Close()
	dir, outside := realTempDir(t), realTempDir(t)
	env := needSandbox(t, false, realTempDir(t))
	chroot := filepath.Join(outside, "chroot")
	writeFiles(t, chroot, map[string]string{"etc/hostname": "chrooted\n", "dev/pts/.keep": "", "dev2/.keep": ""})
	n := filepath.Base(pts.Name())
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: "exec 3<` + chroot + `/dev/pts/` + n + ` && echo PTS-READ"
      - spawn: "exec 3<` + chroot + `/dev2/tty && echo DEV-READ"
      - spawn: "cat ` + chroot + `/etc/hostname"
      - spawn: "true </dev/null && echo NULL-OPENED"
`,
		"s.yaml": "name: chroot\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nsandbox: {}\nturns: [{prompt: hi}]\n",
	})
	// /dev/null bound as containers bind it (rootless Podman and Docker,
	// Flatpak, Apptainer): a mount of devtmpfs that holds no terminal.
	cmd := exec.Command("/bin/sh", "-c", `mount --bind /dev/pts "$1/dev/pts" && mount --bind /dev "$1/dev2" && mount --bind /dev/null /dev/null && shift && exec "$@"`,
		"sh", chroot, acprunFor(t), "run", "s.yaml", "-o", "out.json")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS} // private: Go makes / MS_REC|MS_PRIVATE
	res, _ := runCommand(t, cmd)
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	text := out.Scenarios[0].Turns[0].Text
	for _, want := range []string{chroot + "/dev/pts/" + n + ": Permission denied", chroot + "/dev2/tty: Permission denied", "chrooted", "NULL-OPENED"} {
		if !strings.Contains(text, want) {
			t.Errorf("the agent said %q; want %q in it", text, want)
		}
	}
	if strings.Contains(text, "-READ") {
		t.Errorf("the agent said %q; want no terminal read", text)
	}
}

// TestSandboxWritePathHoldsTerminals: under Landlock alone, a write path
// that holds a chroot's bound /dev/pts and /dev (the scenario's cwd, or a
// sandbox.write entry) would make the user's terminals writable through
// it: level required ends the scenario with exit 3 before its agent
// starts, naming the write path, the mounts and what to do; best-effort
// runs it with a warning at the entry, and the agent writes the terminal
// there (and still reads none). acprun runs as root in a mount namespace
// of the test's own, where the test binds them.
func TestSandboxWritePathHoldsTerminals(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting in a mount namespace of its own needs root")
	}
	if _, err := exec.LookPath("mount"); err != nil {
		t.Skip(err)
	}
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	defer ptm.Close()
	defer pts.Close()
	dir, outside := realTempDir(t), realTempDir(t)
	env := needSandbox(t, false, realTempDir(t))
	chroot := filepath.Join(outside, "chroot")
	writeFiles(t, chroot, map[string]string{"etc/hostname": "chrooted\n", "dev/pts/.keep": "", "dev2/.keep": ""})
	n := filepath.Base(pts.Name())
	started := filepath.Join(dir, "started")
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: "printf 'FORGED: 12 passed\\n' > ` + chroot + `/dev/pts/` + n + ` && echo PTS-WRITTEN"
      - spawn: "exec 3<` + chroot + `/dev/pts/` + n + ` && echo PTS-READ"
      - spawn: "echo mine > ` + chroot + `/etc/new && cat ` + chroot + `/etc/new"
`,
		"agent.sh": "touch " + started + "\nexec " + acprunBin + " mock-agent " + filepath.Join(dir, "agent.mock.yaml") + "\n",
	})
	run := func(scenario string) (result, report.Result) {
		t.Helper()
		writeFiles(t, dir, map[string]string{"s.yaml": scenario})
		cmd := exec.Command("/bin/sh", "-c", `mount --bind /dev/pts "$1/dev/pts" && mount --bind /dev "$1/dev2" && shift && exec "$@"`,
			"sh", chroot, acprunFor(t), "run", "s.yaml", "-o", "out.json")
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS} // private: Go makes / MS_REC|MS_PRIVATE
		res, _ := runCommand(t, cmd)
		return res, readResults(t, filepath.Join(dir, "out.json")).Scenarios[0]
	}
	held := "keeping the terminals of the devpts mount " + chroot + "/dev/pts and the devices (terminals among them) of the devtmpfs mount " + chroot + "/dev2 " +
		"out of the write path " + chroot + ", which holds them, needs bubblewrap (ACPRUN_TEST_NO_BWRAP=1), whose binds have no devices, " +
		"or a write path without those mounts, or them unmounted"

	// Required (the default): the scenario's cwd is the chroot.
	res, sc := run("name: required\nagent: {command: [sh, " + filepath.Join(dir, "agent.sh") + "], cwd: " + chroot + "}\npermissions: {default: allow}\nsandbox: {}\nturns: [{prompt: hi}]\n")
	if res.code != exitAgent || sc.Status != report.StatusError || !sc.StartFailed {
		t.Errorf("required: exit %d, status %s, startFailed %v; want 3, error, true\n%s", res.code, sc.Status, sc.StartFailed, res.stderr)
	}
	want := "s.yaml:4:10: this host cannot enforce the sandbox: " + held + " (level required; best-effort runs with what the host can do)"
	if !strings.Contains(sc.Error, want) || !strings.Contains(res.stderr, want) {
		t.Errorf("required: error %q, want it (and stderr) to say %q\nstderr:\n%s", sc.Error, want, res.stderr)
	}
	absent(t, started, "required: the agent started")

	// Best-effort: the chroot is a write entry.
	line := "sandbox: {level: best-effort, write: [" + chroot + "]}"
	res, sc = run("name: best-effort\nagent: {command: [sh, agent.sh]}\npermissions: {default: allow}\n" + line + "\nturns: [{prompt: hi}]\n")
	if res.code != exitOK || sc.Status != report.StatusPassed {
		t.Fatalf("best-effort: exit %d, status %s: %s\n%s", res.code, sc.Status, sc.Error, res.stderr)
	}
	warning := "s.yaml:4:" + strconv.Itoa(strings.Index(line, chroot)+1) + ": sandbox (best-effort) not enforced: " + held
	if !slices.Contains(sc.Warnings, warning) || !strings.Contains(res.stderr, warning) {
		t.Errorf("best-effort: warnings %q, want %q (on stderr too)\nstderr:\n%s", sc.Warnings, warning, res.stderr)
	}
	text := sc.Turns[0].Text
	if !strings.Contains(text, "PTS-WRITTEN") || !strings.Contains(text, "PTS-READ") || !strings.Contains(text, "mine") {
		t.Errorf("best-effort: the agent said %q; want the terminal written and read through the chroot (the warning's price), and its own new file read", text)
	}
}

// TestSandboxSharedMemory: as docs/sandbox.md says, Python's
// multiprocessing (a Lock: a POSIX semaphore in /dev/shm) fails under
// Landlock alone, which keeps the host's /dev/shm read-only, and works
// under bubblewrap, whose /dev/shm is the sandbox's own.
func TestSandboxSharedMemory(t *testing.T) {
	t.Parallel()
	// The interpreter itself, not a shim that reads the caller's HOME
	// (pyenv's).
	python, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("python3: ", err)
	}
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skip("no /dev/shm here")
	}
	eachBackend(t, func(t *testing.T, bwrap bool) {
		dir := realTempDir(t)
		env := needSandbox(t, bwrap, realTempDir(t))
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": "turns:\n  - steps:\n      - spawn: \"" + strings.TrimSpace(string(python)) + " -c 'import multiprocessing; multiprocessing.Lock()' && echo LOCKED\"\n",
			"s.yaml":          "name: shm\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nsandbox: {}\nturns: [{prompt: hi}]\n",
		})
		res, out := runSandboxed(t, dir, env, "s.yaml")
		if res.code != exitOK {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		text := out.Scenarios[0].Turns[0].Text
		if bwrap && !strings.Contains(text, "LOCKED") {
			t.Errorf("the agent said %q; want the Lock made in bubblewrap's /dev/shm", text)
		}
		if !bwrap && (strings.Contains(text, "LOCKED") || !strings.Contains(text, "Permission denied")) {
			t.Errorf("the agent said %q; want the Lock refused (Permission denied)", text)
		}
	})
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
// agent cannot give a file the setuid bit, in its cwd (a write path) or,
// under Landlock alone, outside it in a file the user owns (acprun run as
// root: a setuid file it leaves runs as root for whoever runs it next);
// other modes it sets as usual, the setgid bit included.
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
		if !strings.Contains(text, "CHMOD-700") || strings.Contains(text, "SETUID") || !strings.Contains(text, "SETGID") ||
			strings.Contains(text, "INSTALLED") || strings.Contains(text, "VICTIM") || !strings.Contains(text, "Operation not permitted") {
			t.Errorf("the agent said %q; want chmod 700 and g+s done, and every setuid bit refused", text)
		}
		for file, want := range map[string]os.FileMode{filepath.Join(dir, "tool"): os.ModeSetgid | 0o700, victim: 0o755} {
			if fi, err := os.Stat(file); err != nil || fi.Mode() != want {
				t.Errorf("%s is %v (%v); want %v", file, fi.Mode(), err, want)
			}
		}
		if fi, err := os.Stat(filepath.Join(dir, "tool2")); err == nil && fi.Mode()&os.ModeSetuid != 0 {
			t.Errorf("tool2 is %v", fi.Mode())
		}
	})
}

// everySandbox runs f under each backend: Landlock alone, bubblewrap
// alone and bubblewrap+landlock, with the environment that makes acprun
// use it (HOME in a new directory) and the backend's name, which the
// results must record.
func everySandbox(t *testing.T, f func(t *testing.T, env []string, backend string)) {
	for _, backend := range []string{"landlock", "bubblewrap", "bubblewrap+landlock"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			var env []string
			switch backend {
			case "landlock":
				env = needSandbox(t, false, realTempDir(t))
			case "bubblewrap":
				env = needBwrapAlone(t, realTempDir(t))
			default:
				env = needSandbox(t, true, realTempDir(t))
			}
			f(t, env, backend)
		})
	}
}

// TestSandboxSetgidTools: under every backend the tools that set or keep
// the setgid bit of directories work in the sandbox (tar -x and cp -a of
// a tree with a setgid directory, git init --shared=group, chmod of a
// setgid directory the workspace copy kept from its source), while the
// agent has no capability, even as root (none in /proc/self/status, the
// bounding set included, and setcap fails), so the bit names a group it is
// in. A tree that holds a setuid file is what the setuid refusal breaks
// (tar -x as root; chmod of the file to a mode that keeps the bit): it is
// extracted and copied with the documented workarounds (tar
// --no-same-permissions, cp -r), and chmod works once the mode drops the
// bit (chmod u-s).
func TestSandboxSetgidTools(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	everySandbox(t, func(t *testing.T, env []string, backend string) {
		dir := realTempDir(t)
		writeFiles(t, dir, map[string]string{"ws/share/a.txt": "a\n", "ws/bin/tool": "#!/bin/sh\n"})
		if err := os.Chmod(filepath.Join(dir, "ws/share"), os.ModeSetgid|0o775); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "ws/bin/tool"), os.ModeSetuid|0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": `turns:
  - steps:
      - spawn: "chmod 755 share && chmod -R u+w share && echo CHMOD-DONE"
      - spawn: "tar -cf \"$TMPDIR/a.tar\" share && mkdir x && tar -xf \"$TMPDIR/a.tar\" -C x && stat -c 'TAR-X %A' x/share"
      - spawn: "cp -a share copied && stat -c 'CP-A %A' copied"
      - spawn: "git init -q --shared=group repo && stat -c 'GIT-INIT %A' repo/.git/objects"
      - spawn: "grep '^Cap' /proc/self/status"
      - spawn: "cp /bin/true tool && (setcap cap_setuid+ep tool && echo SETCAP-DONE || echo SETCAP-REFUSED)"
      - spawn: "stat -c 'SOURCE %A' bin/tool; tar -cf \"$TMPDIR/b.tar\" bin && mkdir y z && (tar -xf \"$TMPDIR/b.tar\" -C y; echo \"TAR-PLAIN $?\")"
      - spawn: "tar -xf \"$TMPDIR/b.tar\" --no-same-permissions -C z && stat -c 'TAR-NSP %A' z/bin/tool"
      - spawn: "cp -r bin rcopied && stat -c 'CP-R %A' rcopied/tool"
      - spawn: "chmod -R u+w bin; echo \"CHMOD-SUID $?\"; chmod u-s,u+w bin/tool && echo CHMOD-U-S"
`,
			"s.yaml": "name: setgid\nagent: {command: [acprun, mock-agent, " + filepath.Join(dir, "agent.mock.yaml") + "]}\nworkspace: {from: ws}\n" +
				"permissions: {default: allow}\nsandbox: {network: on}\nturns: [{prompt: hi}]\n",
		})
		res, out := runSandboxed(t, dir, env, "s.yaml")
		if res.code != exitOK {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		sc := out.Scenarios[0]
		if sc.Sandbox == nil || sc.Sandbox.Backend != backend {
			t.Fatalf("sandbox %+v; want %s", sc.Sandbox, backend)
		}
		text := sc.Turns[0].Text
		for _, want := range []string{"CHMOD-DONE", "TAR-X drwxr-sr-x", "CP-A drwxr-sr-x", "GIT-INIT drwxrwsr-x",
			"CHMOD-SUID 1", "CHMOD-U-S", "SOURCE -rwsr-xr-x", "TAR-NSP -rwxr-xr-x", "CP-R -rwxr-xr-x",
			"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000", "CapAmb:\t0000000000000000"} {
			if !strings.Contains(text, want) {
				t.Errorf("the agent said %q; want %q in it", text, want)
			}
		}
		if os.Geteuid() == 0 && !strings.Contains(text, "CapBnd:\t0000000000000000") {
			t.Errorf("the agent said %q; want an empty bounding set (acprun runs as root)", text)
		}
		if _, err := exec.LookPath("setcap"); err == nil && !strings.Contains(text, "SETCAP-REFUSED") {
			t.Errorf("the agent said %q; want setcap refused", text)
		}
		// tar -x restores modes as root only (the setuid bit refused).
		if os.Geteuid() == 0 && (!strings.Contains(text, "Cannot change mode to rwsr-xr-x: Operation not permitted") || !strings.Contains(text, "TAR-PLAIN 2")) {
			t.Errorf("the agent said %q; want tar -x of the setuid file to fail, as root", text)
		}
	})
}

// TestSandboxHostIPC: under bubblewrap the agent has an IPC namespace of
// its own: it cannot remove (nor read or write) a System V shared memory
// segment of the host's, one the test makes, standing for another program
// of the user's.
func TestSandboxHostIPC(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ipcrm"); err != nil {
		t.Skip("ipcrm not found")
	}
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skip("System V shared memory: ", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - spawn: \"ipcrm -m " + strconv.Itoa(id) + " && echo REMOVED\"\n",
		"s.yaml":          "name: ipc\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nsandbox: {}\nturns: [{prompt: hi}]\n",
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if text := out.Scenarios[0].Turns[0].Text; strings.Contains(text, "REMOVED") {
		t.Errorf("the agent said %q; want the host's segment out of its reach", text)
	}
	var ds unix.SysvShmDesc
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &ds); err != nil {
		t.Errorf("the host's segment after the run: %v", err)
	}
}
