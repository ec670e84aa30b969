//go:build linux

package sandbox_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/sandbox"
)

// envDo, set in a child's environment, makes the test binary do one thing
// (an action, see act) instead of running the tests, and print how it
// went: "ok", or the name of the error number it failed with. Several
// actions, one a line, are done one after the other, each outcome on a
// line of its own (see runEach).
const envDo = "SANDBOX_TEST_DO"

// TestMain makes the test binary double as the sandbox's Landlock helper
// (as acprun's main does) and as the child the tests sandbox.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		code, err := sandbox.Exec(os.Args[2:])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(code)
	}
	if do, ok := os.LookupEnv(envDo); ok {
		for _, do := range strings.Split(do, "\n") {
			fmt.Println(outcome(act(do)))
		}
		os.Exit(0)
	}
	// The children are this binary: under -race, each would otherwise wait
	// a second before it exits.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

// act does what do says, with its own system calls:
//   - write:PATH writes a file; tmp:NAME writes NAME in os.TempDir();
//   - read:PATH reads a file; open:PATH opens it read-only, and reads
//     nothing (a terminal's read would wait for a key);
//   - connect:ADDR opens a TCP connection; recv:ADDR reads what one
//     says; unix:PATH connects to a UNIX socket; bind:ADDR listens on a
//     TCP address (port 0: any);
//   - trace:SOCK opens the memory of the relay to SOCK, as a tracer;
//     relaycaps:SOCK fails when that relay has capabilities (as caps);
//   - socket:FAMILY,TYPE,PROTOCOL creates a socket (numbers);
//   - caps fails when the process has capabilities, in any of its sets
//     (effective, permitted, inheritable, ambient, and bounding when it
//     runs as root);
//   - setcap:PATH gives PATH a file capability (security.capability);
//   - chown:UID,GID,PATH changes PATH's owner and group (-1: unchanged);
//   - rewrite:PATH writes back what a file holds (a kernel setting left
//     as it is, whether the write works or not);
//   - pty opens a new pseudo-terminal and writes to its terminal side;
//   - ctty:PATH makes the terminal PATH, opened read-only, the process's
//     controlling terminal (in a session of its own) and writes to it
//     through /dev/tty;
//   - mode:HOW,MODE,PATH gives PATH the mode MODE (octal) with a system
//     call of its own (see setMode);
//   - sti pushes a byte into the input of its stdin, a terminal, which it
//     makes its controlling terminal (in a session of its own) first
//     (TIOCSTI);
//   - spawn:DO starts the test binary to do DO (a grandchild of the
//     test, when act runs in a child) and fails as it does;
//   - hold starts a grandchild that blocks reading its stdin, with this
//     process's stdout, and returns (the test reads "ok" once it runs);
//   - plan:LEVEL,WRITE,DO plans, with this host's Landlock alone, a
//     sandbox at LEVEL whose write path is WRITE (the network on), then
//     starts the test binary doing DO in it (when DO is not empty): it
//     fails with Plan's error, or with Plan's warnings (but the one about
//     metadata), a line each, then what DO printed.
func act(do string) error {
	verb, arg, _ := strings.Cut(do, ":")
	switch verb {
	case "write":
		return os.WriteFile(arg, []byte("written"), 0o644)
	case "tmp":
		return os.WriteFile(filepath.Join(os.TempDir(), arg), []byte("written"), 0o644)
	case "read":
		_, err := os.ReadFile(arg)
		return err
	case "writeread":
		if err := os.WriteFile(arg, []byte("written"), 0o644); err != nil {
			return err
		}
		_, err := os.ReadFile(arg)
		return err
	case "open":
		f, err := os.Open(arg)
		if err == nil {
			f.Close()
		}
		return err
	case "connect":
		c, err := net.Dial("tcp", arg)
		if err == nil {
			c.Close()
		}
		return err
	case "bind":
		l, err := net.Listen("tcp", arg)
		if err == nil {
			l.Close()
		}
		return err
	case "recv":
		// recv:ADDR reads what a TCP connection to ADDR says, which must be
		// "relayed" (the test's UNIX socket, through the relay).
		c, err := net.Dial("tcp", arg)
		if err != nil {
			return err
		}
		defer c.Close()
		b, err := io.ReadAll(c)
		if err != nil {
			return err
		}
		if string(b) != "relayed\n" {
			return fmt.Errorf("read %q", b)
		}
		return nil
	case "unix":
		// unix:PATH connects to a UNIX socket (@name: an abstract one).
		c, err := net.Dial("unix", arg)
		if err == nil {
			c.Close()
		}
		return err
	case "trace", "relaycaps":
		// trace:SOCK opens the memory of the relay to SOCK, as a tracer
		// would (PTRACE_MODE_ATTACH); relaycaps:SOCK fails when that relay
		// has capabilities (as caps).
		pids, err := filepath.Glob("/proc/[0-9]*/cmdline")
		if err != nil {
			return err
		}
		for _, p := range pids {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), arg) && strings.Contains(string(b), `"serve":true`) {
				if verb == "relaycaps" {
					return hasCaps(filepath.Join(filepath.Dir(p), "status"))
				}
				f, err := os.Open(filepath.Join(filepath.Dir(p), "mem"))
				if err == nil {
					f.Close()
				}
				return err
			}
		}
		return errors.New("no relay found")
	case "socket":
		// socket:FAMILY,TYPE,PROTOCOL in numbers
		var f, ty, proto int
		if _, err := fmt.Sscanf(arg, "%d,%d,%d", &f, &ty, &proto); err != nil {
			return err
		}
		fd, err := unix.Socket(f, ty, proto)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "caps":
		return hasCaps("/proc/self/status")
	case "setcap":
		// setcap:PATH gives PATH a file capability (CAP_SETUID, permitted
		// and effective), as setcap cap_setuid+ep does.
		const revision2, effective = 0x02000000, 0x1 // VFS_CAP_REVISION_2, VFS_CAP_FLAGS_EFFECTIVE
		v := []uint32{revision2 | effective, 1 << unix.CAP_SETUID, 0, 0, 0}
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], x)
		}
		return unix.Setxattr(arg, "security.capability", b, 0)
	case "chown":
		// chown:UID,GID,PATH (-1: unchanged)
		var uid, gid int
		path := ""
		if _, err := fmt.Sscanf(arg, "%d,%d,", &uid, &gid); err != nil {
			return err
		}
		if parts := strings.SplitN(arg, ",", 3); len(parts) == 3 {
			path = parts[2]
		}
		return unix.Lchown(path, uid, gid)
	case "rewrite":
		b, err := os.ReadFile(arg)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(arg, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		return errors.Join(err, f.Close())
	case "pty":
		ptm, pts, err := pty.Open()
		if err != nil {
			return err
		}
		defer ptm.Close()
		_, err = pts.Write([]byte("written\n"))
		return errors.Join(err, pts.Close())
	case "ctty":
		if _, err := unix.Setsid(); err != nil {
			return err
		}
		t, err := os.Open(arg)
		if err != nil {
			return err
		}
		defer t.Close()
		return os.WriteFile("/dev/tty", []byte("written\n"), 0)
	case "mode":
		how, rest, _ := strings.Cut(arg, ",")
		m, path, _ := strings.Cut(rest, ",")
		mode, err := strconv.ParseUint(m, 8, 32)
		if err != nil {
			return err
		}
		return setMode(how, uint32(mode), path)
	case "sti":
		if _, err := unix.Setsid(); err != nil {
			return err
		}
		if err := unix.IoctlSetInt(0, unix.TIOCSCTTY, 0); err != nil {
			return fmt.Errorf("TIOCSCTTY: %w", err)
		}
		b := byte('x')
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&b)))
		if errno != 0 {
			return errno
		}
		return nil
	case "spawn":
		out, err := child(arg).Output()
		if err != nil {
			return err
		}
		if got := strings.TrimSpace(string(out)); got != "ok" {
			return errors.New(got)
		}
		return nil
	case "hold":
		cmd := child("read:/dev/stdin")
		cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
		return cmd.Start()
	case "plan":
		level, rest, _ := strings.Cut(arg, ",")
		write, do, _ := strings.Cut(rest, ",")
		return planAndDo(sandbox.Level(level), write, do)
	}
	return fmt.Errorf("unknown action %q", do)
}

// planAndDo is act's plan:LEVEL,WRITE,DO.
func planAndDo(level sandbox.Level, write, do string) error {
	h := sandbox.Detect(os.Environ())
	h.Bwrap, h.NoBwrap = "", "left out by the test"
	a, err := sandbox.Plan(sandbox.Spec{Write: []string{write}, Network: true, Level: level}, h)
	if err != nil {
		return err
	}
	var lines []string
	for _, w := range a.Warnings {
		if w.Msg != sandbox.MetadataWarning(h) {
			lines = append(lines, fmt.Sprintf("warning %d: %s", w.Write, w.Msg))
		}
	}
	if do != "" {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, envDo+"=") }) // the first wins
		argv, env, files, err := a.Wrap([]string{self}, append(env, envDo+"="+do))
		if err != nil {
			return err
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env, cmd.ExtraFiles = append(env, "GORACE="+os.Getenv("GORACE")), files
		out, err := cmd.CombinedOutput()
		for _, f := range files {
			f.Close()
		}
		if err != nil {
			return fmt.Errorf("%s in the sandbox: %v\n%s", do, err, out)
		}
		lines = append(lines, strings.TrimSpace(string(out)))
	}
	if len(lines) == 0 {
		return nil
	}
	return errors.New(strings.Join(lines, "\n"))
}

// hasCaps fails when the process whose status file is status has
// capabilities, in any of its sets (the bounding set only when it runs as
// root: another cannot empty it, lacking CAP_SETPCAP, and with
// no_new_privs gains none of it).
func hasCaps(status string) error {
	b, err := os.ReadFile(status)
	if err != nil {
		return err
	}
	root := false
	var have []string
	for line := range strings.Lines(string(b)) {
		name, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		if name == "Uid" {
			root = strings.Fields(v)[1] == "0" // the effective one
		}
		if strings.HasPrefix(name, "Cap") && (name != "CapBnd" || root) && strings.Trim(v, "0") != "" {
			have = append(have, name+" "+v)
		}
	}
	if len(have) > 0 {
		return errors.New("capabilities " + strings.Join(have, ", "))
	}
	return nil
}

// setMode gives path mode, as how says:
//   - chmod, fchmod (on a descriptor opened read-only), fchmodat2 (with
//     AT_SYMLINK_NOFOLLOW): an existing file;
//   - create (open with O_CREAT), tmpfile (open with O_TMPFILE in the
//     directory path, then linked there as tmpfile), mknod (a regular
//     file), openat2 (O_CREAT): a new file;
//   - legacy:NAME, on the architectures that have them: chmod, open (with
//     O_CREAT), creat and mknod, the older system calls without "at".
func setMode(how string, mode uint32, path string) error {
	switch how {
	case "chmod":
		return unix.Fchmodat(unix.AT_FDCWD, path, mode, 0)
	case "fchmodat2":
		return unix.Fchmodat(unix.AT_FDCWD, path, mode, unix.AT_SYMLINK_NOFOLLOW)
	case "fchmod":
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Fchmod(fd, mode)
	case "create":
		fd, err := unix.Open(path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, mode)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "tmpfile":
		fd, err := unix.Open(path, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, mode)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Linkat(fd, "", unix.AT_FDCWD, filepath.Join(path, "tmpfile"), unix.AT_EMPTY_PATH)
	case "mknod":
		return unix.Mknod(path, unix.S_IFREG|mode, 0)
	case "openat2":
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_CREAT | unix.O_WRONLY | unix.O_CLOEXEC, Mode: uint64(mode)})
		if err == nil {
			unix.Close(fd)
		}
		return err
	}
	if name, ok := strings.CutPrefix(how, "legacy:"); ok {
		nr, ok := legacyCalls[name]
		if !ok {
			return fmt.Errorf("no system call %s on %s", name, runtime.GOARCH)
		}
		p, err := unix.BytePtrFromString(path)
		if err != nil {
			return err
		}
		args := [3]uintptr{uintptr(unsafe.Pointer(p)), uintptr(mode), 0}
		if name == "open" {
			args = [3]uintptr{uintptr(unsafe.Pointer(p)), unix.O_CREAT | unix.O_WRONLY | unix.O_CLOEXEC, uintptr(mode)}
		}
		if name == "mknod" {
			args[1] |= unix.S_IFREG
		}
		r, _, errno := unix.Syscall(nr, args[0], args[1], args[2])
		if errno != 0 {
			return errno
		}
		if name == "open" || name == "creat" {
			unix.Close(int(r))
		}
		return nil
	}
	return fmt.Errorf("unknown way to set a mode %q", how)
}

// legacyCalls are the numbers of the system calls setMode's legacy:NAME
// makes, on the architectures that have them (see legacy_test.go).
var legacyCalls map[string]uintptr

// child returns the command of the test binary doing do.
func child(do string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envDo+"="+do)
	return cmd
}

// outcome is what a child prints for err: "ok", the name of its error
// number ("EACCES"), or its text.
func outcome(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	default:
		return err.Error()
	}
}

// runEach runs the test binary inside the sandbox a applies once, doing
// each of dos in turn, and returns the outcome of each: one sandbox for a
// table of actions whose outcomes do not depend on one another (each
// start of the test binary is a race-detector start).
func runEach(t *testing.T, a sandbox.Applied, dos []string) map[string]string {
	t.Helper()
	got := strings.Split(run(t, a, strings.Join(dos, "\n")), "\n")
	if len(got) != len(dos) {
		t.Fatalf("%d outcomes of %d actions in the sandbox (%s): %q", len(got), len(dos), a.Backend, got)
	}
	outcomes := map[string]string{}
	for i, do := range dos {
		outcomes[do] = got[i]
	}
	return outcomes
}

// run runs the test binary doing do inside the sandbox a applies, and
// returns what it printed.
func run(t *testing.T, a sandbox.Applied, do string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(t, a, []string{self}, append(os.Environ(), envDo+"="+do))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s in the sandbox (%s): %v\n%s", do, a.Backend, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// listen returns a TCP listener on the loopback interface that accepts
// and closes connections until the test ends, and its port.
func listen(t *testing.T) (addr string, port int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().String(), l.Addr().(*net.TCPAddr).Port
}

// readAll reads r to its end.
func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
