//go:build linux

package sandbox_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/testkit"
)

// These tests run real sandboxes: the kernel's Landlock, and bubblewrap.
// A test that needs what this host lacks is skipped, unless
// ACPRUN_LANDLOCK_REQUIRED=1 or ACPRUN_BWRAP_REQUIRED=1 says that the host
// has it (CI): then it fails.

var detected = sync.OnceValue(func() sandbox.Host { return sandbox.Detect(os.Environ()) })

// landlockOnly returns this host without bubblewrap: Landlock does it all.
func landlockOnly(t *testing.T, abi int) sandbox.Host {
	t.Helper()
	h := detected()
	if h.LandlockABI < abi {
		msg := "this host has Landlock ABI " + strconv.Itoa(h.LandlockABI) + " " + h.LandlockNote + ", the test needs " + strconv.Itoa(abi)
		if os.Getenv("ACPRUN_LANDLOCK_REQUIRED") == "1" {
			t.Fatal(msg + " (ACPRUN_LANDLOCK_REQUIRED=1)")
		}
		t.Skip(msg)
	}
	h.Bwrap, h.NoBwrap = "", "left out by the test"
	return h
}

// bwrapOnly returns this host without Landlock: bubblewrap does it all.
func bwrapOnly(t *testing.T) sandbox.Host {
	t.Helper()
	h := withBwrap(t)
	h.LandlockABI, h.LandlockNote = 0, "left out by the test"
	return h
}

// bwrapAndLandlock returns this host, which must have bubblewrap, and
// Landlock ABI 3 (or the test is skipped as landlockOnly skips it).
func bwrapAndLandlock(t *testing.T) sandbox.Host {
	t.Helper()
	landlockOnly(t, 3)
	return withBwrap(t)
}

// withBwrap returns this host, which must have bubblewrap.
func withBwrap(t *testing.T) sandbox.Host {
	t.Helper()
	h := detected()
	if h.Bwrap == "" {
		if os.Getenv("ACPRUN_BWRAP_REQUIRED") == "1" {
			t.Fatal(h.NoBwrap + " (ACPRUN_BWRAP_REQUIRED=1)")
		}
		t.Skip(h.NoBwrap)
	}
	return h
}

// backends are the ways to restrict writes, with the error a write
// outside the write paths gets.
var backends = []struct {
	name   string
	host   func(*testing.T) sandbox.Host
	denied string
}{
	{"landlock", func(t *testing.T) sandbox.Host { return landlockOnly(t, 3) }, "EACCES"},
	{"bubblewrap", bwrapOnly, "EROFS"},
}

// plan plans spec on h, which must enforce it whole (but the metadata of
// files under Landlock alone, which its warning says).
func plan(t *testing.T, spec sandbox.Spec, h sandbox.Host) sandbox.Applied {
	t.Helper()
	a, err := sandbox.Plan(spec, h)
	if err != nil {
		t.Fatal(err)
	}
	if a.Warnings = withoutMetadata(a.Warnings, h); len(a.Warnings) > 0 {
		t.Fatalf("warnings: %+v", a.Warnings)
	}
	return a
}

// withoutMetadata is ws without the warning of Landlock alone on h about
// the metadata of files (sandbox.MetadataWarning).
func withoutMetadata(ws []sandbox.Warning, h sandbox.Host) []sandbox.Warning {
	return slices.DeleteFunc(ws, func(w sandbox.Warning) bool { return w.Msg == sandbox.MetadataWarning(h) })
}

// command is the command that runs argv with env in the sandbox a
// applies, its files (see Wrap) given; they are closed at the test's end.
// The helper gets the test's GORACE as acprun's own variables (its reap
// mark): the relay, this binary, exits without lingering under -race.
func command(t *testing.T, a sandbox.Applied, argv, env []string) *exec.Cmd {
	t.Helper()
	argv, env, files, err := a.Wrap(argv, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range files {
			f.Close()
		}
	})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.ExtraFiles = append(env, "GORACE="+os.Getenv("GORACE")), files
	return cmd
}

// dirs returns a new directory for the write paths, one for the temporary
// directory, and one outside both.
func dirs(t *testing.T) (work, tmp, outside string) {
	root := t.TempDir()
	for _, d := range []string{"work", "tmp", "outside"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "work"), filepath.Join(root, "tmp"), filepath.Join(root, "outside")
}

func TestWriteOutsideIsDenied(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			work, tmp, outside := dirs(t)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, b.host(t))
			for _, do := range []string{"write:", "spawn:write:"} {
				file := filepath.Join(outside, "escaped")
				if got := run(t, a, do+file); got != b.denied {
					t.Errorf("%s%s: %s, want %s", do, file, got, b.denied)
				}
				if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s%s: the file is there (%v)", do, file, err)
				}
			}
		})
	}
}

func TestWriteInsideWorks(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			work, tmp, _ := dirs(t)
			if err := os.Mkdir(filepath.Join(work, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, b.host(t))
			for do, file := range map[string]string{
				"write:" + filepath.Join(work, "sub", "a"): filepath.Join(work, "sub", "a"),
				"spawn:write:" + filepath.Join(work, "b"):  filepath.Join(work, "b"),
				"tmp:c":           filepath.Join(tmp, "c"),
				"spawn:tmp:d":     filepath.Join(tmp, "d"),
				"write:/dev/null": "/dev/null",
				"spawn:write:" + filepath.Join(work, "sub", "e"): filepath.Join(work, "sub", "e"),
			} {
				if got := run(t, a, do); got != "ok" {
					t.Errorf("%s: %s", do, got)
				}
				if file == "/dev/null" {
					continue
				}
				if b, err := os.ReadFile(file); err != nil || string(b) != "written" {
					t.Errorf("%s: %q, %v", do, b, err)
				}
			}
		})
	}
}

func TestHiddenPathsAreUnreadable(t *testing.T) {
	t.Parallel()
	work, tmp, outside := dirs(t)
	secrets := filepath.Join(outside, "secrets")
	if err := os.Mkdir(secrets, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(secrets, "key"), filepath.Join(outside, "netrc"), filepath.Join(outside, "public")} {
		if err := os.WriteFile(f, []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, err := sandbox.Plan(sandbox.Spec{
		Write:   []string{work},
		Hide:    []string{secrets, filepath.Join(outside, "netrc"), filepath.Join(outside, "absent")},
		TempDir: tmp,
		Network: true,
	}, bwrapOnly(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []sandbox.Warning{{Msg: "sandbox hide path " + filepath.Join(outside, "absent") + " does not exist: nothing is hidden there (check it for a typo)", Write: -1, Hide: 2}}
	if d := cmp.Diff(want, a.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	for do, want := range map[string]string{
		"read:" + filepath.Join(secrets, "key"):          "ENOENT", // an empty directory
		"spawn:read:" + filepath.Join(secrets, "key"):    "ENOENT",
		"read:" + filepath.Join(outside, "netrc"):        "EACCES", // the null device, on a nodev mount
		"write:" + filepath.Join(secrets, "new"):         "EROFS",
		"read:" + filepath.Join(outside, "public"):       "ok",
		"spawn:read:" + filepath.Join(outside, "public"): "ok",
	} {
		if got := run(t, a, do); got != want {
			t.Errorf("%s: %s, want %s", do, got, want)
		}
	}
}

func TestNetwork(t *testing.T) {
	t.Parallel()
	allowedAddr, allowed := listen(t)
	otherAddr, _ := listen(t)
	type connect struct {
		addr string
		ok   bool
	}
	for _, tc := range []struct {
		name     string
		host     func(*testing.T) sandbox.Host
		spec     sandbox.Spec
		backend  string
		connects []connect
	}{
		{"off/bubblewrap", bwrapOnly, sandbox.Spec{}, "bubblewrap", []connect{{allowedAddr, false}}},
		{"off/landlock", func(t *testing.T) sandbox.Host { return landlockOnly(t, 4) }, sandbox.Spec{}, "landlock", []connect{{allowedAddr, false}}},
		{"on/bubblewrap", bwrapOnly, sandbox.Spec{Network: true}, "bubblewrap", []connect{{allowedAddr, true}, {otherAddr, true}}},
		{"on/landlock", func(t *testing.T) sandbox.Host { return landlockOnly(t, 3) }, sandbox.Spec{Network: true}, "landlock", []connect{{allowedAddr, true}}},
		{"ports/landlock", func(t *testing.T) sandbox.Host { return landlockOnly(t, 4) },
			sandbox.Spec{Network: true, Ports: []int{allowed}}, "landlock", []connect{{allowedAddr, true}, {otherAddr, false}}},
		{"ports/bubblewrap+landlock", withBwrap,
			sandbox.Spec{Network: true, Ports: []int{allowed}}, "bubblewrap+landlock", []connect{{allowedAddr, true}, {otherAddr, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.host(t)
			if tc.backend == "bubblewrap+landlock" && h.LandlockABI < 4 {
				h = landlockOnly(t, 4) // skips or fails
			}
			work, tmp, _ := dirs(t)
			tc.spec.Write, tc.spec.TempDir = []string{work}, tmp
			a := plan(t, tc.spec, h)
			if a.Backend != tc.backend {
				t.Fatalf("backend %s, want %s", a.Backend, tc.backend)
			}
			var dos []string
			ok := map[string]bool{}
			for _, c := range tc.connects {
				for _, do := range []string{"connect:", "spawn:connect:"} {
					dos = append(dos, do+c.addr)
					ok[do+c.addr] = c.ok
				}
			}
			for do, got := range runEach(t, a, dos) {
				if ok[do] != (got == "ok") {
					t.Errorf("%s: %s, want success %v", do, got, ok[do])
				}
			}
		})
	}
}

// TestBindNetworkOff: with the network off, nothing outside can connect
// to the sandbox: under Landlock alone no TCP port can be bound, on any
// address, loopback ones and the gateway's included; under bubblewrap a
// port is bound in the sandbox's own network namespace, out of reach.
// With the network on, ports are bound as usual.
func TestBindNetworkOff(t *testing.T) {
	t.Parallel()
	_, port := listen(t)
	binds := []string{"bind:127.0.0.1:0", "bind:0.0.0.0:0", "bind:[::]:0"}
	landlock4 := func(t *testing.T) sandbox.Host { return landlockOnly(t, 4) }
	for _, tc := range []struct {
		name    string
		host    func(*testing.T) sandbox.Host
		spec    sandbox.Spec
		backend string
		want    string
	}{
		{"off/landlock", landlock4, sandbox.Spec{}, "landlock", "EACCES"},
		{"off+loopback/landlock", landlock4, sandbox.Spec{Loopback: []sandbox.Relay{{Port: port, Socket: "/nowhere"}}}, "landlock", "EACCES"},
		{"off/bubblewrap", bwrapOnly, sandbox.Spec{}, "bubblewrap", "ok"},
		{"on/landlock", landlock4, sandbox.Spec{Network: true}, "landlock", "ok"},
		{"ports/landlock", landlock4, sandbox.Spec{Network: true, Ports: []int{443}}, "landlock", "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.host(t)
			work, tmp, _ := dirs(t)
			tc.spec.Write, tc.spec.TempDir = []string{work}, tmp
			a, err := sandbox.Plan(tc.spec, h)
			if err != nil {
				t.Fatal(err)
			}
			if a.Backend != tc.backend {
				t.Fatalf("backend %s, want %s", a.Backend, tc.backend)
			}
			var dos []string
			for _, do := range binds {
				dos = append(dos, do, "spawn:"+do)
			}
			for do, got := range runEach(t, a, dos) {
				if got != tc.want {
					t.Errorf("%s: %s, want %s", do, got, tc.want)
				}
			}
		})
	}
}

// TestLoopbackLandlockOnly: under Landlock alone, a loopback port stays
// reachable with the network off as a port allowed on every address (the
// loopback one here), which Plan warns about; other ports are not.
func TestLoopbackLandlockOnly(t *testing.T) {
	t.Parallel()
	allowedAddr, allowed := listen(t)
	otherAddr, _ := listen(t)
	h := landlockOnly(t, 4)
	work, tmp, _ := dirs(t)
	a, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, Loopback: []sandbox.Relay{{Port: allowed, Socket: "/nowhere"}}}, h)
	if err != nil {
		t.Fatal(err)
	}
	if a.Backend != "landlock" || a.Network != "off" || !slices.Equal(a.Ports, []int{allowed}) {
		t.Errorf("applied %+v; want landlock, network off, ports [%d]", a, allowed)
	}
	want := []sandbox.Warning{{Msg: "sandbox network off: Landlock alone cannot filter by address, so the loopback port " + strconv.Itoa(allowed) +
		" is open on every host, not only on the loopback interface (bubblewrap (left out by the test) keeps the agent to acprun's port)", Write: -1, Hide: -1}, {Msg: sandbox.MetadataWarning(h), Write: -1, Hide: -1}}
	if d := cmp.Diff(want, a.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	for addr, want := range map[string]string{allowedAddr: "ok", otherAddr: "EACCES"} {
		if got := run(t, a, "connect:"+addr); got != want {
			t.Errorf("connect:%s: %s, want %s", addr, got, want)
		}
	}
}

// TestLoopbackRelay: under bubblewrap, a sandbox with the network off and
// a loopback port keeps its own network namespace: the port reaches the
// UNIX socket acprun serves it on, through the relay acprun starts inside,
// and nothing else is reachable: not a host's address on the same port,
// not an abstract UNIX socket of the host's. Under Landlock too, the
// command cannot trace the relay; and the relay ends with the sandbox.
func TestLoopbackRelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		host    func(*testing.T) sandbox.Host
		backend string
	}{
		{"bubblewrap", bwrapOnly, "bubblewrap"},
		{"bubblewrap+landlock", bwrapAndLandlock, "bubblewrap+landlock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.host(t)
			work, tmp, _ := dirs(t)
			// A socket's path holds at most 107 bytes: the relay reaches
			// one in a directory of a longer path.
			sock := filepath.Join(t.TempDir(), strings.Repeat("d", 120), "gateway.sock")
			if err := os.Mkdir(filepath.Dir(sock), 0o755); err != nil {
				t.Fatal(err)
			}
			serveUnix(t, sock, "relayed\n")
			abstract := "@acprun-test-" + strconv.Itoa(os.Getpid()) + "-" + tc.name
			serveUnix(t, abstract, "abstract\n")
			// A listener on the same port on an address of the host's
			// other than the loopback one, standing for another host.
			hostAddr, port := "", 0
			if ip := hostIP(); ip != "" {
				l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
				if err != nil {
					t.Fatal(err)
				}
				l.Close()
				port = l.Addr().(*net.TCPAddr).Port
				hostAddr = l.Addr().String()
				serveTCP(t, hostAddr, "escaped\n")
			} else {
				_, port = listen(t)
			}
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Loopback: []sandbox.Relay{{Port: port, Socket: sock}}}, h)
			if a.Backend != tc.backend || a.Network != "off" || a.Ports != nil {
				t.Errorf("applied %+v; want %s, network off, no ports", a, tc.backend)
			}
			loopback := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			want := map[string]string{
				"recv:" + loopback:       "ok",
				"spawn:recv:" + loopback: "ok",
				"unix:" + abstract:       "ECONNREFUSED",
			}
			if hostAddr != "" {
				want["recv:"+hostAddr] = "ENETUNREACH"
			}
			if tc.backend == "bubblewrap+landlock" {
				want["trace:"+sock] = "EACCES"
			}
			want["relaycaps:"+sock] = "ok"
			for do, got := range runEach(t, a, slices.Collect(maps.Keys(want))) {
				if got != want[do] {
					t.Errorf("%s: %s, want %s", do, got, want[do])
				}
			}
			// run waited for the sandbox: its relays are gone.
			if pids := relays(t, sock); len(pids) > 0 {
				t.Errorf("relays left behind: %v", pids)
			}
		})
	}
}

// serveUnix serves each connection to the UNIX socket path (@name: an
// abstract one) with reply until the test ends. It binds through the
// directory's descriptor, as the gateway does: path may be long.
func serveUnix(t *testing.T, path, reply string) {
	t.Helper()
	bind := path
	if !strings.HasPrefix(path, "@") {
		dir, err := os.Open(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		defer dir.Close()
		bind = fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(path))
	}
	l, err := net.Listen("unix", bind)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false) // in the test's directory
	serve(t, l, reply)
}

// serveTCP serves each connection to addr with reply until the test ends.
func serveTCP(t *testing.T, addr, reply string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, l, reply)
}

// serve answers each connection to l with reply, until the test ends.
func serve(t *testing.T, l net.Listener, reply string) {
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, reply)
			c.Close()
		}
	}()
}

// hostIP is an IPv4 address of this host other than a loopback one, ""
// when it has none.
func hostIP() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}

// relays lists the processes (as this PID namespace sees them) that relay
// to the UNIX socket sock.
func relays(t *testing.T, sock string) []string {
	t.Helper()
	var pids []string
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), sock) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestBwrapDeathKillsTheSandbox: once bwrap is killed, no process of the
// sandbox is left, whatever it started.
func TestBwrapDeathKillsTheSandbox(t *testing.T) {
	t.Parallel()
	work, tmp, _ := dirs(t)
	a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp}, bwrapOnly(t))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(t, a, []string{self}, append(os.Environ(), envDo+"=hold"))
	stdin, err := cmd.StdinPipe() // never closed before the end: the grandchild would read its end
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if _, err := stdout.Read(buf); err != nil || string(buf) != "ok\n" {
		t.Fatalf("hold: %q, %v", buf, err)
	}
	cmd.Process.Kill()
	// The grandchild holds stdout: it ends once the grandchild is dead. The
	// deadline only turns a sandbox that outlives bwrap into a failure
	// rather than a hang.
	stdout.(*os.File).SetReadDeadline(time.Now().Add(time.Minute))
	if rest := readAll(t, stdout); rest != "" {
		t.Errorf("after ok: %q", rest)
	}
	cmd.Wait()
}

// TestSocketFilter: where Landlock restricts TCP connections, no other
// socket goes round it: not Multipath TCP (which Landlock does not see),
// not UDP with the network off, not raw sockets.
func TestSocketFilter(t *testing.T) {
	t.Parallel()
	h := landlockOnly(t, 4)
	socket := func(family, typ, proto int) string {
		return "socket:" + strconv.Itoa(family) + "," + strconv.Itoa(typ) + "," + strconv.Itoa(proto)
	}
	tcp := socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	mptcp := socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
	udp := socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK, 0)
	local := socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	raw := socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_TCP)
	vsock := socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
	for _, tc := range []struct {
		name string
		spec sandbox.Spec
		want map[string]string
	}{
		{"off", sandbox.Spec{}, map[string]string{tcp: "ok", local: "ok", mptcp: "EACCES", udp: "EACCES", raw: "EACCES", vsock: "EACCES"}},
		{"ports", sandbox.Spec{Network: true, Ports: []int{443}}, map[string]string{tcp: "ok", local: "ok", mptcp: "EACCES", udp: "ok", raw: "EACCES"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, tmp, _ := dirs(t)
			tc.spec.Write, tc.spec.TempDir = []string{work}, tmp
			a := plan(t, tc.spec, h)
			var dos []string
			for do := range tc.want {
				dos = append(dos, do, "spawn:"+do)
			}
			for do, got := range runEach(t, a, dos) {
				if want := tc.want[strings.TrimPrefix(do, "spawn:")]; got != want {
					t.Errorf("%s: %s, want %s", do, got, want)
				}
			}
		})
	}
}

// TestNoCapabilities: a sandboxed process has no capabilities, even when
// acprun runs as root: none in any set, the bounding set included (as
// root: its execs regain none), so it cannot give a file capabilities
// (setcap), nor a group it is not in (chown), nor keep the setgid bit on a
// file of such a group (the kernel clears it without CAP_FSETID): the
// setgid bit it may set names a group it is in.
func TestNoCapabilities(t *testing.T) {
	t.Parallel()
	for _, b := range everyBackend {
		t.Run(b.name, func(t *testing.T) {
			work, tmp, _ := dirs(t)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, b.host(t))
			file := filepath.Join(work, "tool")
			if err := os.WriteFile(file, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"caps": "ok", "spawn:caps": "ok", "setcap:" + file: "EPERM", "spawn:setcap:" + file: "EPERM"}
			if os.Geteuid() == 0 {
				// Another user's file, and a group the process is not in.
				other := filepath.Join(work, "other")
				if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chown(other, 4242, 4242); err != nil {
					t.Fatal(err)
				}
				want["chown:-1,4243,"+file] = "EPERM"
				want["chown:0,-1,"+other] = "EPERM"
				want["mode:chmod,2755,"+other] = "EPERM" // not its owner
				groupOnly := filepath.Join(work, "group")
				if err := os.WriteFile(groupOnly, []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chown(groupOnly, 0, 4242); err != nil {
					t.Fatal(err)
				}
				want["mode:chmod,2755,"+groupOnly] = "ok"
				defer func() {
					if fi, err := os.Stat(groupOnly); err != nil || fi.Mode() != 0o755 {
						t.Errorf("chmod 2755 of a file of group 4242: the file is %v (%v), want -rwxr-xr-x (the setgid bit cleared)", fi.Mode(), err)
					}
				}()
			}
			for do, got := range runEach(t, a, slices.Collect(maps.Keys(want))) {
				if got != want[do] {
					t.Errorf("%s: %s, want %s", do, got, want[do])
				}
			}
			if _, err := unix.Getxattr(file, "security.capability", make([]byte, 64)); err == nil {
				t.Errorf("%s has a file capability", file)
			}
		})
	}
}

// TestSigtermReachesTheCommand: a SIGTERM to the process group of a
// sandboxed command (what acprun sends an agent it stops) reaches the
// command, which then has all the time it needs to exit by itself, as
// unsandboxed: bubblewrap does not die of it and take the sandbox with it.
// The command's TERM trap answers "term" and waits for a line from the
// test before it writes it down and exits 7; a sandbox killed at SIGTERM
// never gets the line.
func TestSigtermReachesTheCommand(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			work, tmp, _ := dirs(t)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, b.host(t))
			got := filepath.Join(work, "got")
			script := `trap 'echo term; read line; echo "$line" > "$GOT"; exit 7' TERM; echo ready; while :; do sleep 1; done`
			cmd := command(t, a, []string{"/bin/sh", "-c", script}, append(os.Environ(), "GOT="+got))
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // as acprun starts agents
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := bufio.NewScanner(stdout)
			if !lines.Scan() || lines.Text() != "ready" {
				t.Fatalf("before SIGTERM: %q, %v", lines.Text(), lines.Err())
			}
			if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if !lines.Scan() || lines.Text() != "term" {
				t.Fatalf("after SIGTERM: %q, %v", lines.Text(), lines.Err())
			}
			if _, err := io.WriteString(stdin, "graceful\n"); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 7 {
				t.Errorf("exit: %v, want code 7 (the trap's)", err)
			}
			if data, err := os.ReadFile(got); string(data) != "graceful\n" {
				t.Errorf("the trap wrote %q, %v", data, err)
			}
		})
	}
}

// swap moves dir aside (to dir.moved) and puts a symbolic link to target
// in its place, as an agent that can write dir's parent could: relative,
// as bubblewrap follows one (an absolute one leads nowhere in its new
// root while it sets up, and its start fails).
func swap(t *testing.T, dir, target string) {
	t.Helper()
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(filepath.Dir(dir), target)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, dir); err != nil {
		t.Fatal(err)
	}
}

// TestPinnedPathsChecked: a write or hidden path that Spec.Pinned maps and
// that leads elsewhere when Plan looks is an error.
func TestPinnedPathsChecked(t *testing.T) {
	t.Parallel()
	for _, what := range []string{"write", "hide"} {
		t.Run(what, func(t *testing.T) {
			work, tmp, outside := dirs(t)
			spec := sandbox.Spec{TempDir: tmp, Network: true, Level: sandbox.BestEffort, Pinned: map[string]string{work: work}}
			if what == "write" {
				spec.Write = []string{work}
			} else {
				spec.Hide = []string{work}
			}
			if _, err := sandbox.Plan(spec, landlockOnly(t, 3)); err != nil {
				t.Fatalf("nothing changed: %v", err)
			}
			swap(t, work, outside)
			want := "sandbox " + what + " path " + work + " led to " + work + " when the run started and leads to " + outside + " now"
			if _, err := sandbox.Plan(spec, landlockOnly(t, 3)); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("after the swap: %v; want %s…", err, want)
			}
		})
	}
}

// TestLandlockHoldsWhatWrapOpened: under Landlock (alone, or under
// bubblewrap), a write path swapped for a link after Plan is refused by
// Wrap; after Wrap, nothing is written where the link leads (bubblewrap
// binds it, Landlock refuses it); the write path where it is now stays
// writable under Landlock alone, and read-only under bubblewrap, which
// bound the link's target in its place.
func TestLandlockHoldsWhatWrapOpened(t *testing.T) {
	t.Parallel()
	for _, b := range []struct {
		name  string
		host  func(*testing.T) sandbox.Host
		moved string
	}{
		{"landlock", func(t *testing.T) sandbox.Host { return landlockOnly(t, 3) }, "ok"},
		{"bubblewrap+landlock", bwrapAndLandlock, "EROFS"},
	} {
		t.Run(b.name, func(t *testing.T) {
			h := b.host(t)
			work, tmp, outside := dirs(t)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, h)
			if a.Backend != b.name {
				t.Fatalf("backend %s, want %s", a.Backend, b.name)
			}
			swap(t, work, outside)
			if _, _, _, err := a.Wrap([]string{"true"}, nil); err == nil || !strings.Contains(err.Error(), "sandbox write path "+work+" leads to "+outside+" now") {
				t.Errorf("Wrap after the swap: %v; want it refused", err)
			}

			work, tmp, outside = dirs(t)
			a = plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, h)
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			through := command(t, a, []string{self}, append(os.Environ(), envDo+"=write:"+filepath.Join(work, "f")))
			moved := command(t, a, []string{self}, append(os.Environ(), envDo+"=write:"+filepath.Join(work+".moved", "f")))
			swap(t, work, outside) // after Wrap, before the helper runs
			for _, tc := range []struct {
				what string
				cmd  *exec.Cmd
				want string
			}{{"through the link", through, "EACCES"}, {"where the write path is now", moved, b.moved}} {
				var stderr strings.Builder
				tc.cmd.Stderr = &stderr
				out, err := tc.cmd.Output()
				if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
					t.Errorf("write %s: %q, %v; want %s\n%s", tc.what, got, err, tc.want, stderr.String())
				}
			}
			if _, err := os.Stat(filepath.Join(outside, "f")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("written through the link: %v", err)
			}
		})
	}
}

// TestConcealHidesWhatComesLater: a Conceal directory is hidden but for
// its Reveal paths, which stay readable and, as write paths, writable,
// with their hidden paths hidden; what is made in it once the command
// runs (another workspace) is hidden too. Under bubblewrap, with Landlock
// inside and without.
func TestConcealHidesWhatComesLater(t *testing.T) {
	t.Parallel()
	for name, host := range map[string]func(*testing.T) sandbox.Host{"bubblewrap": bwrapOnly, "bubblewrap+landlock": bwrapAndLandlock} {
		t.Run(name, func(t *testing.T) {
			_, tmp, outside := dirs(t)
			shared := filepath.Join(outside, "ws")
			own, other, later := filepath.Join(shared, "own"), filepath.Join(shared, "other"), filepath.Join(shared, "later")
			for _, d := range []string{own, other} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, ".env"), []byte("SECRET\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			a := plan(t, sandbox.Spec{Write: []string{own}, Hide: []string{filepath.Join(own, ".env")}, Conceal: []string{shared},
				Reveal: []string{own}, TempDir: tmp, Network: true}, host(t))
			script := `echo ready; read x; echo mine > "$1/own/made"; ls -A "$1"; ls -A "$1/own"; cat "$1/own/.env" "$1/other/.env" "$1/later/.env" 2>&1; echo end`
			cmd := command(t, a, []string{"/bin/sh", "-c", script, "sh", shared}, os.Environ())
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stdout)
			if line, err := r.ReadString('\n'); line != "ready\n" {
				t.Fatalf("read %q, %v; want ready", line, err)
			}
			// Another workspace, made while the command runs.
			if err := os.MkdirAll(later, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(later, ".env"), []byte("SECRET\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			stdin.Write([]byte("go\n"))
			stdin.Close()
			rest, _ := io.ReadAll(r)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v\n%s", err, rest)
			}
			got := string(rest)
			if strings.Contains(got, "SECRET") || strings.Contains(got, "other\n") || strings.Contains(got, "later\n") ||
				!strings.HasPrefix(got, "own\n.env\nmade\n") || !strings.HasSuffix(got, "end\n") {
				t.Errorf("the command said %q; want only its own directory seen, and no .env read", got)
			}
			if b, err := os.ReadFile(filepath.Join(own, "made")); err != nil || string(b) != "mine\n" {
				t.Errorf("own/made: %q, %v; want the command's write", b, err)
			}
		})
	}
}

// TestKernelSettingsReadOnly: the kernel's settings (/proc/sys) stay
// read-only in the sandbox, for a command run by root too, who owns them
// and would change the host's (kernel.core_pattern runs a program as root
// outside): bubblewrap's /proc has them read-only (EROFS), Landlock
// denies writing them (EACCES). The command writes back what the setting
// holds: the host's stays as it is, whether the write works or not.
func TestKernelSettingsReadOnly(t *testing.T) {
	t.Parallel()
	const setting = "/proc/sys/kernel/domainname"
	testkit.KernelSetting(t, setting)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			work, tmp, _ := dirs(t)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, b.host(t))
			for _, do := range []string{"rewrite:" + setting, "spawn:rewrite:" + setting} {
				if got := run(t, a, do); got != b.denied {
					t.Errorf("%s: %s, want %s", do, got, b.denied)
				}
			}
		})
	}
}

// TestTerminals: the sandbox writes to no terminal of the user's, such as
// the one acprun runs in (where it could forge acprun's output), nor reads
// one (the keys the user types): under Landlock alone no terminal is
// writable or readable, not by its path, not as the controlling terminal
// (/dev/tty) of a session the command makes, and no new pseudo-terminal
// can be opened (Landlock cannot tell a new one from the user's), while
// other files read as usual; under bubblewrap /dev/pts is the sandbox's
// own: the user's are not there, and new ones work.
func TestTerminals(t *testing.T) {
	t.Parallel()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	defer ptm.Close()
	defer pts.Close()
	name := pts.Name()
	for _, tc := range []struct {
		name string
		host func(*testing.T) sandbox.Host
		want map[string]string
	}{
		{"landlock", func(t *testing.T) sandbox.Host { return landlockOnly(t, 3) }, map[string]string{
			"write:" + name: "EACCES", "spawn:write:" + name: "EACCES", "ctty:" + name: "EACCES", "pty": "EACCES", "spawn:pty": "EACCES",
			"open:" + name: "EACCES", "spawn:open:" + name: "EACCES", "open:/dev/ptmx": "EACCES", "open:/dev/tty": "EACCES",
			"open:/dev/console": absentOr("/dev/console", "EACCES"), "open:/dev/tty0": absentOr("/dev/tty0", "EACCES"),
			"open:/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(int(pts.Fd())): "EACCES", // the test's, through its link
			"read:/etc/passwd": "ok", "spawn:read:/etc/passwd": "ok", "read:/proc/self/status": "ok", "read:/dev/null": "ok", "open:/dev/zero": "ok",
		}},
		{"bubblewrap", bwrapOnly, map[string]string{"write:" + name: "EACCES", "ctty:" + name: "ENOENT", "pty": "ok", "spawn:pty": "ok", "open:" + name: "ENOENT"}},
		{"bubblewrap+landlock", bwrapAndLandlock, map[string]string{"write:" + name: "EACCES", "ctty:" + name: "ENOENT", "pty": "ok", "spawn:pty": "ok", "open:" + name: "ENOENT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, tmp, _ := dirs(t)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, tc.host(t))
			for do, want := range tc.want {
				if got := run(t, a, do); got != want {
					t.Errorf("%s: %s, want %s", do, got, want)
				}
			}
		})
	}
}

// inMountNamespace returns the command of runIn: sh runs setup (shell
// commands, with $D the directory dir) as root in a mount namespace of its
// own, private (what it mounts stays there), then execs the command of the
// test binary doing do in the sandbox a, in that namespace. The test is
// skipped where it cannot do that without touching the host: not root, or
// no mount(8).
func inMountNamespace(t *testing.T, a sandbox.Applied, dir, setup, do string) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting in a mount namespace of its own needs root")
	}
	for _, tool := range []string{"sh", "mount", "mknod"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inner := command(t, a, []string{self}, append(os.Environ(), envDo+"="+do))
	cmd := exec.Command("/bin/sh", append([]string{"-c", setup + ` && exec "$@"`, "sh"}, inner.Args...)...)
	cmd.Env, cmd.ExtraFiles = append(inner.Env, "D="+dir), inner.ExtraFiles
	// Go makes the new namespace's mounts private (MS_REC|MS_PRIVATE on /)
	// before it runs sh.
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	return cmd
}

// runIn runs inMountNamespace's command and returns what it printed.
func runIn(t *testing.T, a sandbox.Applied, dir, setup, do string) string {
	t.Helper()
	cmd := inMountNamespace(t, a, dir, setup, do)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s in the sandbox (%s), in a mount namespace: %v\n%s", do, a.Backend, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// TestTerminalsElsewhere: under Landlock alone the user's terminals stay
// unreadable through another mount of devpts or devtmpfs outside /dev (a
// chroot's: schroot, sbuild and arch-chroot bind /dev and /dev/pts into
// it), while what lies beside those mounts reads as usual; and the
// terminals of /dev whose names are not tty*: hvc* (hypervisor consoles),
// lxc/ (an LXC container's console and ttys), 3270/. The mounts are made
// in a mount namespace of the test's own, as root.
func TestTerminalsElsewhere(t *testing.T) {
	t.Parallel()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	defer ptm.Close()
	defer pts.Close()
	n := filepath.Base(pts.Name())
	work, tmp, outside := dirs(t)
	a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, landlockOnly(t, 3))
	chroot := filepath.Join(outside, "chroot")
	for _, d := range []string{"dev/pts", "dev2", "etc", "mnt/pts", "a b\\c/pts"} {
		if err := os.MkdirAll(filepath.Join(chroot, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"etc/hostname", "dev/keep"} {
		if err := os.WriteFile(filepath.Join(chroot, f), []byte("read\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Containers (rootless Podman and Docker, Flatpak, Apptainer,
	// bubblewrap's --dev) bind single devices of devtmpfs, /dev/null the
	// first, which every spawn opens: they hold no terminal.
	if err := os.WriteFile(filepath.Join(chroot, "etc/null"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	binds := `mount --bind /dev/pts "$D/chroot/dev/pts" && mount --bind /dev/pts "$D/chroot/mnt/pts" && mount --bind /dev "$D/chroot/dev2" && mount --bind /dev/pts "$D/chroot/a b\\c/pts"` +
		` && mount --bind /dev/null /dev/null && mount --bind /dev/urandom /dev/urandom && mount --bind /dev/null "$D/chroot/etc/null"`
	for do, want := range map[string]string{
		"open:" + chroot + "/dev/pts/" + n: "EACCES", "spawn:open:" + chroot + "/mnt/pts/" + n: "EACCES",
		"write:" + chroot + "/mnt/pts/" + n: "EACCES", "open:" + chroot + "/a b\\c/pts/" + n: "EACCES", "open:" + chroot + "/dev/pts/ptmx": "EACCES",
		"open:" + chroot + "/dev2/ptmx": "EACCES", "open:" + chroot + "/dev2/tty": "EACCES",
		"open:" + chroot + "/dev2/console": absentOr("/dev/console", "EACCES"), "open:" + chroot + "/dev2/tty0": absentOr("/dev/tty0", "EACCES"),
		"read:" + chroot + "/etc/hostname": "ok", "read:" + chroot + "/dev/keep": "ok", "spawn:read:" + chroot + "/etc/hostname": "ok",
		"read:/etc/passwd": "ok", "read:/dev/null": "ok", "open:/dev/urandom": "ok", "spawn:read:/dev/null": "ok", "read:" + chroot + "/etc/null": "ok",
	} {
		if got := runIn(t, a, outside, binds, do); got != want {
			t.Errorf("%s: %s, want %s", do, got, want)
		}
	}
	// A /dev of the namespace's own (a tmpfs), with terminals of other
	// names: regular files stand for them.
	dev := `mount -t tmpfs tmpfs /dev && mknod -m 666 /dev/null c 1 3 && mkdir /dev/lxc /dev/3270 && ` +
		`for f in hvc0 lxc/console lxc/tty1 3270/tty1 3270/tub other; do echo read > /dev/$f; done`
	for do, want := range map[string]string{
		"read:/dev/hvc0": "EACCES", "read:/dev/lxc/console": "EACCES", "read:/dev/lxc/tty1": "EACCES", "read:/dev/3270/tty1": "EACCES",
		"read:/dev/3270/tub": "EACCES", "read:/dev/other": "ok", "read:/dev/null": "ok",
	} {
		if got := runIn(t, a, outside, dev, do); got != want {
			t.Errorf("%s: %s, want %s", do, got, want)
		}
	}
}

// TestWritePathHoldsTerminals: under Landlock alone a write path that
// holds a mount of devpts or devtmpfs (a chroot's, which schroot, sbuild
// and arch-chroot bind there) would let the command write the terminals
// in it, as a Landlock rule covers everything beneath its path: Plan
// refuses it under required (the default) and names the write path, the
// mount and what to do; under best-effort it warns, at the write path's
// entry, and the command reads and writes them there, and its own new files. A write
// path beside such a mount plans as usual. When the mount is made after
// Plan (setup may mount in between), the helper refuses to run the
// command. Plan runs in a mount namespace of the test's own, as root.
func TestWritePathHoldsTerminals(t *testing.T) {
	t.Parallel()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	defer ptm.Close()
	defer pts.Close()
	n := filepath.Base(pts.Name())
	h := landlockOnly(t, 3)
	_, tmp, outside := dirs(t)
	chroot := filepath.Join(outside, "chroot")
	for _, d := range []string{"dev/pts", "dev2", "etc"} {
		if err := os.MkdirAll(filepath.Join(chroot, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	binds := `mount --bind /dev/pts "$D/chroot/dev/pts" && mount --bind /dev "$D/chroot/dev2"`
	const why = "bubblewrap (left out by the test), whose binds have no devices"
	both := "keeping the terminals of the devpts mount " + chroot + "/dev/pts and the devices (terminals among them) of the devtmpfs mount " + chroot + "/dev2 " +
		"out of the write path " + chroot + ", which holds them, needs " + why + ", or a write path without those mounts, or them unmounted"
	refused := "this host cannot enforce the sandbox: " + both + " (level required; best-effort runs with what the host can do)"
	for do, want := range map[string]string{
		"plan:required," + chroot + ",": refused,
		"plan:," + chroot + ",":         refused,
		"plan:required," + chroot + "/dev/pts,": "this host cannot enforce the sandbox: keeping the terminals of the devpts mount " + chroot + "/dev/pts out of the write path " +
			chroot + "/dev/pts, which holds it, needs " + why + ", or a write path without that mount, or the mount unmounted (level required; best-effort runs with what the host can do)",
		"plan:required," + chroot + "/etc,write:" + chroot + "/etc/hostname":     "ok",
		"plan:best-effort," + chroot + ",write:" + chroot + "/dev/pts/" + n:      "warning 0: sandbox (best-effort) not enforced: " + both + "\nok",
		"plan:best-effort," + chroot + ",spawn:open:" + chroot + "/dev/pts/" + n: "warning 0: sandbox (best-effort) not enforced: " + both + "\nok",
		"plan:best-effort," + chroot + ",writeread:" + chroot + "/etc/new":       "warning 0: sandbox (best-effort) not enforced: " + both + "\nok",
	} {
		if got := runIn(t, sandbox.Applied{}, outside, binds, do); got != want {
			t.Errorf("%s:\n got %s\nwant %s", do, got, want)
		}
	}
	// Planned before the mounts: the helper, which sees them, refuses.
	a := plan(t, sandbox.Spec{Write: []string{chroot}, TempDir: tmp, Network: true}, h)
	cmd := inMountNamespace(t, a, outside, binds, "write:"+chroot+"/dev/pts/"+n)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	want := "sandbox: write path " + chroot + " holds the devpts mount " + chroot + "/dev/pts, mounted since the sandbox was planned: " +
		"Landlock alone would let the command write its terminals there (install bubblewrap, choose a write path without it, or unmount it)"
	if !errors.As(err, &ee) || ee.ExitCode() != 126 || !strings.Contains(string(out), want) {
		t.Errorf("planned before the mounts: %v, %q; want exit 126 saying %q", err, out, want)
	}
}

// TestSharedMemory: under Landlock alone /dev/shm, the host's, shared
// with every process of the user's, is not writable (as docs/sandbox.md
// says: shared memory fails); under bubblewrap it is the sandbox's own,
// writable, and what is written there stays inside.
func TestSharedMemory(t *testing.T) {
	t.Parallel()
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skip("no /dev/shm here")
	}
	for _, b := range everyBackend {
		t.Run(b.name, func(t *testing.T) {
			work, tmp, _ := dirs(t)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, b.host(t))
			file := "/dev/shm/acprun-sandbox-test-" + strconv.Itoa(os.Getpid()) + "-" + strings.ReplaceAll(b.name, "+", "-")
			t.Cleanup(func() { os.Remove(file) })
			want := "ok"
			if b.name == "landlock" {
				want = "EACCES"
			}
			if got := run(t, a, "write:"+file); got != want {
				t.Errorf("write:%s: %s, want %s", file, got, want)
			}
			if _, err := os.Lstat(file); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s is in the host's /dev/shm (%v)", file, err)
			}
		})
	}
}

// absentOr is want when path exists, ENOENT otherwise.
func absentOr(path, want string) string {
	if _, err := os.Lstat(path); err != nil {
		return "ENOENT"
	}
	return want
}

// everyBackend are the three backends, each with the host that makes it.
var everyBackend = []struct {
	name string
	host func(*testing.T) sandbox.Host
}{
	{"landlock", func(t *testing.T) sandbox.Host { return landlockOnly(t, 4) }},
	{"bubblewrap", bwrapOnly},
	{"bubblewrap+landlock", bwrapAndLandlock},
}

// TestNoSetuidFiles: no sandboxed process gives a file the setuid bit, in
// the write paths or (under Landlock alone, which does not handle modes)
// outside them, whatever the system call, with the network on or off: a
// setuid file the agent leaves would run as its owner (root, when acprun
// runs as root) for whoever runs it next, outside the sandbox. Other
// modes are set as usual, the setgid bit included (on a file of the
// process's group: see TestNoCapabilities for another group's), as tools
// set it on directories (tar -x, cp -a, git init --shared).
func TestNoSetuidFiles(t *testing.T) {
	t.Parallel()
	hows := []string{"chmod", "fchmod", "fchmodat2"}
	creates := []string{"create", "tmpfile", "mknod"}
	for name := range legacyCalls {
		if name == "chmod" {
			hows = append(hows, "legacy:"+name)
		} else {
			creates = append(creates, "legacy:"+name)
		}
	}
	for _, b := range everyBackend {
		for _, network := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/network=%t", b.name, network), func(t *testing.T) {
				t.Parallel()
				work, tmp, outside := dirs(t)
				a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: network}, b.host(t))
				files := []string{filepath.Join(work, "tool")}
				if b.name == "landlock" {
					files = append(files, filepath.Join(outside, "tool"))
				}
				// Every attempt is refused, so that none of them changes what
				// the next one finds: one sandboxed process makes them all.
				var dos []string
				for _, file := range files {
					if err := os.WriteFile(file, []byte("#!/bin/sh\n"), 0o755); err != nil {
						t.Fatal(err)
					}
					for _, how := range hows {
						for _, mode := range []string{"4755", "6755", "4700"} {
							do := "mode:" + how + "," + mode + "," + file
							dos = append(dos, do, "spawn:"+do)
						}
					}
				}
				made := map[string]string{} // the file each create would make
				for i, how := range creates {
					file, path := filepath.Join(work, "new"+strconv.Itoa(i)), filepath.Join(work, "new"+strconv.Itoa(i))
					if how == "tmpfile" {
						file, path = filepath.Join(work, "tmpfile"), work
					}
					do := "mode:" + how + ",4755," + path
					dos, made[do] = append(dos, do), file
				}
				for do, got := range runEach(t, a, dos) {
					if got != "EPERM" {
						t.Errorf("%s: %s, want EPERM", do, got)
					}
				}
				for _, file := range files {
					if fi, err := os.Stat(file); err != nil || fi.Mode() != 0o755 {
						t.Errorf("%s is %v (%v) after the setuid attempts, want -rwxr-xr-x", file, fi.Mode(), err)
					}
				}
				for do, file := range made {
					if _, err := os.Lstat(file); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s: the file is there (%v)", do, err)
					}
				}
				// openat2 is refused whatever it asks: its mode is in a struct
				// the filter cannot read, and programs fall back to openat.
				if got := run(t, a, "mode:openat2,644,"+filepath.Join(work, "new")); got != "ENOSYS" {
					t.Errorf("openat2: %s, want ENOSYS", got)
				}
				// Other modes are set as usual, the setgid bit included.
				sub := filepath.Join(work, "sub")
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				for _, do := range []string{"mode:chmod,700," + files[0], "mode:fchmod,1777," + work, "mode:create,755," + filepath.Join(work, "plain"), "mode:tmpfile,600," + work,
					"mode:create,2755," + filepath.Join(work, "sgid"), "mode:chmod,2775," + sub} {
					if got := run(t, a, do); got != "ok" {
						t.Errorf("%s: %s", do, got)
					}
				}
				want := map[string]fs.FileMode{files[0]: 0o700, filepath.Join(work, "sgid"): fs.ModeSetgid | 0o755, sub: fs.ModeDir | fs.ModeSetgid | 0o775}
				for _, dir := range []string{work, outside}[:len(files)] {
					shared := filepath.Join(dir, "shared")
					if err := os.WriteFile(shared, []byte("#!/bin/sh\n"), 0o755); err != nil {
						t.Fatal(err)
					}
					for i, how := range hows {
						mode := []string{"2750", "2755"}[i%2]
						if got := run(t, a, "mode:"+how+","+mode+","+shared); got != "ok" {
							t.Errorf("%s %s %s: %s", how, mode, shared, got)
						}
					}
					want[shared] = fs.ModeSetgid | []fs.FileMode{0o750, 0o755}[(len(hows)-1)%2]
				}
				for file, want := range want {
					if fi, err := os.Stat(file); err != nil || fi.Mode() != want {
						t.Errorf("%s is %v (%v), want %v", file, fi.Mode(), err, want)
					}
				}
			})
		}
	}
}

// TestNoKeystrokesPushed: no sandboxed process pushes keystrokes into a
// terminal (TIOCSTI, where the kernel still allows it), not even into its
// own controlling terminal: the one it has here (a terminal it inherits,
// made its controlling terminal in a session of its own) stands for one
// of the user's, whose shell would run what it pushes.
func TestNoKeystrokesPushed(t *testing.T) {
	t.Parallel()
	for _, b := range everyBackend {
		t.Run(b.name, func(t *testing.T) {
			ptm, pts, err := pty.Open()
			if err != nil {
				t.Skip(err)
			}
			defer ptm.Close()
			defer pts.Close()
			work, tmp, _ := dirs(t)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, b.host(t))
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			for _, do := range []string{"sti"} {
				cmd := command(t, a, []string{self}, append(os.Environ(), envDo+"="+do))
				var stderr strings.Builder
				cmd.Stdin, cmd.Stderr = pts, &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%s: %v\n%s", do, err, stderr.String())
				}
				if got := strings.TrimSpace(string(out)); got != "EPERM" {
					t.Errorf("%s: %s, want EPERM", do, got)
				}
			}
		})
	}
}
