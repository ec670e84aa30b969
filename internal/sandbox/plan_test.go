//go:build linux

package sandbox_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/sandbox"
)

// Hosts made up for Plan, which only reads them (and the paths).
var (
	fullHost  = sandbox.Host{LandlockABI: 7, Self: "/opt/acprun", Bwrap: "/usr/bin/bwrap"}
	bwrapHost = sandbox.Host{Bwrap: "/usr/bin/bwrap", Self: "/opt/acprun", LandlockNote: "not enabled in this kernel"}
	abi3Host  = sandbox.Host{LandlockABI: 3, Self: "/opt/acprun", NoBwrap: "bwrap not found in PATH"}
	abi7Host  = sandbox.Host{LandlockABI: 7, Self: "/opt/acprun", NoBwrap: "bwrap not found in PATH"}
	bareHost  = sandbox.Host{NoBwrap: "bwrap not found in PATH", LandlockNote: "not enabled in this kernel"}
)

// TestWrapConceal: a Conceal directory is hidden but for the Reveal paths
// inside it, bound over it after it (writable when they are write paths),
// with the hidden paths inside those hidden after them, and made
// read-only once they are bound; a Reveal path in a Hide path stays
// hidden, and so does a write path in a Conceal directory not revealed.
// Under Landlock alone nothing is concealed, with no error or warning.
func TestWrapConceal(t *testing.T) {
	_, tmp, outside := dirs(t)
	shared := filepath.Join(outside, "ws")
	own, ownGit, other, base := filepath.Join(shared, "a"), filepath.Join(shared, "a.git", "git"), filepath.Join(shared, "b"), filepath.Join(shared, "a.git", "base")
	secret := filepath.Join(own, ".env")
	hidden := filepath.Join(outside, "hidden")
	inHidden := filepath.Join(hidden, "c")
	for _, d := range []string{own, ownGit, other, base, inHidden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	spec := sandbox.Spec{
		Write:   []string{own, other},
		Hide:    []string{secret, hidden},
		Conceal: []string{shared, filepath.Join(outside, "absent")},
		Reveal:  []string{own, ownGit, inHidden, filepath.Join(outside, "elsewhere")},
		Network: true,
		TempDir: tmp,
	}
	a, err := sandbox.Plan(spec, bwrapHost)
	if err != nil {
		t.Fatal(err)
	}
	argv, _, _, err := a.Wrap([]string{"agent"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"--tmpfs", hidden,
		"--tmpfs", shared,
		"--bind", own, own,
		"--ro-bind", ownGit, ownGit,
		"--ro-bind", "/dev/null", secret,
		"--bind", tmp, tmp,
		"--remount-ro", hidden, "--remount-ro", shared,
	}
	i := slices.Index(argv, "--proc") + 4 // past --remount-ro /proc
	j := i + slices.Index(argv[i:], "--")
	if d := cmp.Diff(want, argv[i:j]); d != "" {
		t.Errorf("bwrap's mounts (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{hidden, shared, secret}, a.Hide, sortStrings); d != "" {
		t.Errorf("hide (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{own, tmp}, a.Write, sortStrings); d != "" {
		t.Errorf("write (-want +got):\n%s", d)
	}
	if !slices.ContainsFunc(a.Warnings, func(w sandbox.Warning) bool { return strings.Contains(w.Msg, other+" is hidden") }) {
		t.Errorf("warnings %+v; want the write path %s said hidden", a.Warnings, other)
	}

	a, err = sandbox.Plan(spec, abi7Host)
	if err == nil || strings.Contains(err.Error(), shared+",") || strings.Contains(err.Error(), shared+")") {
		t.Errorf("Landlock alone: %v; want the Hide paths refused, and the Conceal one not named", err)
	}
	spec.Hide = nil
	if a, err = sandbox.Plan(spec, abi7Host); err != nil || len(a.Hide) > 0 || len(withoutMetadata(a.Warnings, abi7Host)) > 0 {
		t.Errorf("Landlock alone, no Hide: %v, hide %q, warnings %+v; want nothing concealed, and nothing said (but the metadata)", err, a.Hide, a.Warnings)
	}
}

// sortStrings compares string slices in any order.
var sortStrings = cmpopts.SortSlices(func(x, y string) bool { return x < y })

func TestWrapBwrap(t *testing.T) {
	work, tmp, outside := dirs(t)
	hid := filepath.Join(outside, "hid")
	file := filepath.Join(outside, "file")
	if err := os.MkdirAll(filepath.Join(hid, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(outside, "link")
	if err := os.Symlink(work, link); err != nil {
		t.Fatal(err)
	}
	a, err := sandbox.Plan(sandbox.Spec{
		Write:    []string{link, work},
		Hide:     []string{file, filepath.Join(hid, "inner"), hid, filepath.Join(outside, "absent")},
		TempDir:  tmp,
		Loopback: []sandbox.Relay{{Port: 8080, Socket: "/run/gateway.sock"}},
	}, bwrapHost)
	if err != nil {
		t.Fatal(err)
	}
	argv, env, files, err := a.Wrap([]string{"agent", "--acp"}, []string{"TMPDIR=/tmp", "HOME=/home/u"})
	if err != nil || len(files) != 1 {
		t.Fatalf("wrap: %v, files %v; want the environment's only: bubblewrap binds the paths", err, files)
	}
	want := []string{"/opt/acprun", sandbox.ExecArg, `{"ignoreTerm":true}`, "--", "/usr/bin/bwrap",
		"--die-with-parent", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--unshare-net",
		"--ro-bind", "/dev/null", file,
		"--tmpfs", hid,
		"--bind", tmp, tmp, "--bind", work, work,
		"--remount-ro", hid,
		"--", "/opt/acprun", sandbox.ExecArg, `{"relay":[{"port":8080,"socket":"/run/gateway.sock"}],"env":3}`, "--", "agent", "--acp"}
	if d := cmp.Diff(want, argv); d != "" {
		t.Errorf("argv (-want +got):\n%s", d)
	}
	if len(env) != 0 || env == nil {
		t.Errorf("env %q; want an empty one (not nil: the caller's own), never the command's", env)
	}
	if d := cmp.Diff([]string{"HOME=/home/u", "TMPDIR=" + tmp}, commandEnv(t, files)); d != "" {
		t.Errorf("the command's env (-want +got):\n%s", d)
	}
	rec, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	wantRec := `{"backend":"bubblewrap","write":["` + tmp + `","` + work + `"],"hide":["` + file + `","` + hid + `"],"network":"off","level":"required"}`
	if string(rec) != wantRec {
		t.Errorf("record:\n%s\nwant:\n%s", rec, wantRec)
	}
}

// TestWrapBwrapSetpcap: where acprun runs as root (Host.Setpcap),
// bubblewrap keeps CAP_SETPCAP for the helper inside, which empties the
// bounding set bubblewrap leaves a root's command (see TestNoCapabilities).
func TestWrapBwrapSetpcap(t *testing.T) {
	work, tmp, _ := dirs(t)
	h := bwrapHost
	h.Setpcap = true
	a, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, h)
	if err != nil {
		t.Fatal(err)
	}
	argv, _, _, err := a.Wrap([]string{"agent"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/bwrap", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL", "--cap-add", "CAP_SETPCAP", "--ro-bind", "/", "/"}
	if i := slices.Index(argv, "/usr/bin/bwrap"); i < 0 || !slices.Equal(argv[i:i+len(want)], want) {
		t.Errorf("argv %q; want %q in it", argv, want)
	}
}

func TestWrapLandlock(t *testing.T) {
	work, tmp, _ := dirs(t)
	a, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true, Ports: []int{443, 80, 443}, Loopback: []sandbox.Relay{{Port: 8080, Socket: "/run/gateway.sock"}}}, abi7Host)
	if err != nil {
		t.Fatal(err)
	}
	argv, _, files, err := a.Wrap([]string{"agent"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(argv) != 5 || argv[0] != "/opt/acprun" || argv[1] != sandbox.ExecArg || argv[3] != "--" || argv[4] != "agent" {
		t.Fatalf("argv %q", argv)
	}
	if !strings.Contains(argv[2], `"opened":[{"path":"`+tmp+`","fd":3,`) || !strings.Contains(argv[2], `{"path":"`+work+`","fd":4,`) || !strings.HasSuffix(argv[2], `"env":5}`) || len(files) != 3 {
		t.Fatalf("rules %s, %d files; want the two write paths as descriptors 3 and 4, the environment as 5", argv[2], len(files))
	}
	if env := commandEnv(t, files); !slices.Equal(env, []string{"TMPDIR=" + tmp}) {
		t.Errorf("the command's env %q", env)
	}
	for i, f := range files[:2] {
		if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err != nil || p != a.Write[i] {
			t.Errorf("file %d is %s (%v), want %s", i, p, err, a.Write[i])
		}
		f.Close()
	}
	if a.Backend != "landlock" || a.Network != "on" || !slices.Equal(a.Ports, []int{80, 443, 8080}) || !slices.Equal(a.Write, []string{tmp, work}) {
		t.Errorf("applied %+v", a)
	}
}

// commandEnv reads the command's environment from the last of the files
// Wrap returned (see Wrap), and closes them all at the test's end.
func commandEnv(t *testing.T, files []*os.File) []string {
	t.Helper()
	t.Cleanup(func() {
		for _, f := range files {
			f.Close()
		}
	})
	if len(files) == 0 {
		t.Fatal("no files")
	}
	f := files[len(files)-1]
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err == nil {
		t.Error("the environment's file is writable: want it sealed")
	}
	s, ok := strings.CutSuffix(string(b), "\x00")
	if !ok {
		t.Fatalf("environment %q: want a NUL after each entry", b)
	}
	return strings.Split(s, "\x00")
}

// TestWrapNulInEnv: an environment that cannot be exec'd (a NUL in a
// value) is an error that names the variable, not its value.
func TestWrapNulInEnv(t *testing.T) {
	_, tmp, _ := dirs(t)
	a, err := sandbox.Plan(sandbox.Spec{TempDir: tmp, Network: true}, bwrapHost)
	if err != nil {
		t.Fatal(err)
	}
	_, _, files, err := a.Wrap([]string{"agent"}, []string{"TOKEN=s3cret\x00"})
	if err == nil || err.Error() != `sandbox: the command's environment: variable "TOKEN" holds a NUL byte` || files != nil {
		t.Errorf("wrap: %v, files %v", err, files)
	}
}

// TestWrapTempEnv: the variables of TempEnv name the private temporary
// directory as TMPDIR does, in place of their values outside.
func TestWrapTempEnv(t *testing.T) {
	work, tmp, _ := dirs(t)
	a, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, TempEnv: []string{"CLAUDE_CODE_TMPDIR"}, Network: true}, abi7Host)
	if err != nil {
		t.Fatal(err)
	}
	_, _, files, err := a.Wrap([]string{"agent"}, []string{"CLAUDE_CODE_TMPDIR=/tmp", "HOME=/home/u", "TMPDIR=/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"HOME=/home/u", "TMPDIR=" + tmp, "CLAUDE_CODE_TMPDIR=" + tmp}, commandEnv(t, files)); d != "" {
		t.Errorf("env (-want +got):\n%s", d)
	}
}

func TestPlanRequiredRefuses(t *testing.T) {
	work, tmp, outside := dirs(t)
	for _, tc := range []struct {
		name string
		host sandbox.Host
		spec sandbox.Spec
		want string
	}{
		{"no mechanism", bareHost, sandbox.Spec{Network: true},
			"restricting writes needs bubblewrap (bwrap not found in PATH), or Landlock ABI 3 (Linux 6.2; this host has no Landlock: not enabled in this kernel)"},
		{"hide without bwrap", abi7Host, sandbox.Spec{Network: true, Hide: []string{outside}},
			"hiding paths (" + outside + ") needs bubblewrap (bwrap not found in PATH)"},
		{"ports on ABI 3", abi3Host, sandbox.Spec{Network: true, Ports: []int{443}},
			"allowed ports needs Landlock ABI 4 (Linux 6.7; this host has ABI 3)"},
		{"network off on ABI 3", abi3Host, sandbox.Spec{},
			"network off needs bubblewrap (bwrap not found in PATH), or Landlock ABI 4 (Linux 6.7; this host has ABI 3)"},
		{"gateway without bwrap on ABI 3", abi3Host, sandbox.Spec{Loopback: []sandbox.Relay{{Port: 8080, Socket: "/run/gateway.sock"}}},
			"network off needs bubblewrap (bwrap not found in PATH), or Landlock ABI 4 (Linux 6.7; this host has ABI 3)"},
		{"landlock without acprun's executable", sandbox.Host{LandlockABI: 7, NoBwrap: "bwrap not found in PATH"}, sandbox.Spec{Network: true},
			"restricting writes needs bubblewrap"},
		{"bwrap without acprun's executable", sandbox.Host{Bwrap: "/usr/bin/bwrap"}, sandbox.Spec{Network: true},
			"restricting writes needs bubblewrap (acprun's own executable is unknown: it starts bwrap)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, level := range []sandbox.Level{"", sandbox.Required} {
				tc.spec.Level, tc.spec.Write, tc.spec.TempDir = level, []string{work}, tmp
				_, err := sandbox.Plan(tc.spec, tc.host)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("level %q: %v, want it to say %q", level, err, tc.want)
				}
			}
		})
	}
}

func TestPlanBestEffortDegrades(t *testing.T) {
	work, tmp, outside := dirs(t)
	for _, tc := range []struct {
		name     string
		host     sandbox.Host
		spec     sandbox.Spec
		backend  string
		network  string
		hide     []string
		warnings []sandbox.Warning
	}{
		{"nothing", bareHost, sandbox.Spec{Hide: []string{outside}}, "none", "on", nil, []sandbox.Warning{
			{"sandbox (best-effort) not enforced: restricting writes needs bubblewrap (bwrap not found in PATH), or Landlock ABI 3 (Linux 6.2; this host has no Landlock: not enabled in this kernel)", -1, -1},
			{"sandbox (best-effort) not enforced: hiding paths (" + outside + ") needs bubblewrap (bwrap not found in PATH)", -1, -1},
			{"sandbox (best-effort) not enforced: network off needs bubblewrap (bwrap not found in PATH), or Landlock ABI 4 (Linux 6.7; this host has no Landlock: not enabled in this kernel)", -1, -1},
		}},
		{"ports on ABI 3", abi3Host, sandbox.Spec{Network: true, Ports: []int{443}}, "landlock", "on", nil, []sandbox.Warning{
			{"sandbox (best-effort) not enforced: allowed ports needs Landlock ABI 4 (Linux 6.7; this host has ABI 3)", -1, -1},
			{"sandbox (landlock): Landlock restricts writing files, not changing their metadata: outside the write paths the agent can still " +
				"change the mode (but for the setuid bit, which no sandbox sets), times, extended attributes and flags of the files you own (run as root: nearly all), " +
				"with chmod, touch, setfattr or chattr; bubblewrap (bwrap not found in PATH) makes them read-only", -1, -1},
		}},
		{"all there", fullHost, sandbox.Spec{Hide: []string{outside}}, "bubblewrap+landlock", "off", []string{outside}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Level, tc.spec.Write, tc.spec.TempDir = sandbox.BestEffort, []string{work}, tmp
			a, err := sandbox.Plan(tc.spec, tc.host)
			if err != nil {
				t.Fatal(err)
			}
			if a.Backend != tc.backend || a.Network != tc.network || !slices.Equal(a.Hide, tc.hide) || a.Level != sandbox.BestEffort {
				t.Errorf("applied %+v", a)
			}
			if d := cmp.Diff(tc.warnings, a.Warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
			if tc.backend == "none" {
				if a.Write != nil {
					t.Errorf("write %q recorded without a backend", a.Write)
				}
				argv, env, files, err := a.Wrap([]string{"agent"}, nil)
				if err != nil || files != nil || !slices.Equal(argv, []string{"agent"}) || !slices.Equal(env, []string{"TMPDIR=" + tmp}) {
					t.Errorf("wrap: %q %q %v %v", argv, env, files, err)
				}
			}
		})
	}
}

// TestPlanPaths: a write path that does not exist, or is hidden, is a
// warning that says which entry of Spec.Write it is about (the first that
// names it, through a symbolic link too); a hidden path that does not
// exist, one that says which entry of Spec.Hide.
func TestPlanPaths(t *testing.T) {
	work, tmp, outside := dirs(t)
	absent := filepath.Join(outside, "absent")
	inHidden := filepath.Join(outside, "state")
	if err := os.Mkdir(inHidden, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(work, "link")
	if err := os.Symlink(inHidden, link); err != nil {
		t.Fatal(err)
	}
	a, err := sandbox.Plan(sandbox.Spec{Write: []string{work, absent, link, inHidden}, Hide: []string{outside, absent}, TempDir: tmp}, fullHost)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Write, []string{tmp, work}) {
		t.Errorf("write %q", a.Write)
	}
	want := []sandbox.Warning{
		{"sandbox write path " + absent + " does not exist: nothing can be written there (create it before the run)", 1, -1},
		{"sandbox hide path " + absent + " does not exist: nothing is hidden there (check it for a typo)", -1, 1},
		{"sandbox write path " + inHidden + " is hidden: it is neither readable nor writable", 2, -1},
	}
	if d := cmp.Diff(want, a.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// TestPlanDevicesInWritePath: under Landlock alone, a write path that
// holds this host's /dev (a devtmpfs) and /dev/pts (a devpts) is refused
// (required) or warned about (best-effort), as /dev itself is; one inside
// /dev that holds neither (/dev/shm) is not, nor is any under bubblewrap,
// whose binds hold no devices. See TestWritePathHoldsTerminals for other
// mounts.
func TestPlanDevicesInWritePath(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/pts", &st); err != nil || st.Type != unix.DEVPTS_SUPER_MAGIC {
		t.Skip("/dev/pts is no devpts mount here")
	}
	_, tmp, _ := dirs(t)
	const pts = "the terminals of the devpts mount /dev/pts"
	for _, write := range []string{"/dev", "/"} {
		_, err := sandbox.Plan(sandbox.Spec{Write: []string{write}, TempDir: tmp, Network: true}, abi7Host)
		if err == nil || !strings.Contains(err.Error(), pts) || !strings.Contains(err.Error(), "out of the write path "+write+", which holds") {
			t.Errorf("write %s, required: %v; want it refused, saying %q", write, err, pts)
		}
		a, err := sandbox.Plan(sandbox.Spec{Write: []string{"/nonexistent", write}, TempDir: tmp, Network: true, Level: sandbox.BestEffort}, abi7Host)
		if err != nil || !slices.Contains(a.Write, write) || !slices.ContainsFunc(a.Warnings, func(w sandbox.Warning) bool {
			return w.Write == 1 && strings.HasPrefix(w.Msg, "sandbox (best-effort) not enforced: keeping ") && strings.Contains(w.Msg, pts)
		}) {
			t.Errorf("write %s, best-effort: %+v, %v; want it writable, with a warning about entry 1 saying %q", write, a, err, pts)
		}
		for _, h := range []sandbox.Host{fullHost, bwrapHost} {
			if _, err := sandbox.Plan(sandbox.Spec{Write: []string{write}, TempDir: tmp, Network: true}, h); err != nil {
				t.Errorf("write %s under bubblewrap: %v", write, err)
			}
		}
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if _, err := sandbox.Plan(sandbox.Spec{Write: []string{"/dev/shm"}, TempDir: tmp, Network: true}, abi7Host); err != nil {
			t.Errorf("write /dev/shm: %v", err)
		}
	}
}

// TestPlanLoopbackSocketHidden: under bubblewrap, a loopback port whose
// UNIX socket lies in a hidden path is an error: the relay inside could
// not reach it.
func TestPlanLoopbackSocketHidden(t *testing.T) {
	work, tmp, outside := dirs(t)
	sock := filepath.Join(outside, "gw", "gateway.sock")
	_, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, Hide: []string{outside}, Loopback: []sandbox.Relay{{Port: 8080, Socket: sock}}}, fullHost)
	want := "sandbox loopback port 8080: its UNIX socket " + sock + " is in the hidden path " + outside + ", where the relay inside the sandbox cannot reach it: hide less"
	if err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
}

func TestPlanBadSpec(t *testing.T) {
	for _, tc := range []struct {
		spec sandbox.Spec
		want string
	}{
		{sandbox.Spec{Level: "sometimes"}, `sandbox level "sometimes": want "required" or "best-effort"`},
		{sandbox.Spec{Network: true, Ports: []int{0}}, "sandbox port 0: a TCP port is 1 to 65535"},
		{sandbox.Spec{Loopback: []sandbox.Relay{{Port: 65536, Socket: "/run/gateway.sock"}}}, "sandbox port 65536: a TCP port is 1 to 65535"},
		{sandbox.Spec{Loopback: []sandbox.Relay{{Port: 8080}}}, `sandbox loopback port 8080: its UNIX socket "" is not an absolute path`},
		{sandbox.Spec{Ports: []int{443}}, "sandbox ports apply to network on"},
	} {
		if _, err := sandbox.Plan(tc.spec, fullHost); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// TestSeams: the environment variables of the test seams lower what
// Detect finds, never raise it, and Plan names them.
func TestSeams(t *testing.T) {
	real := detected()
	t.Setenv(sandbox.EnvTestNoBwrap, "1")
	t.Setenv(sandbox.EnvTestLandlockABI, "99")
	if h := sandbox.Detect(os.Environ()); h.LandlockABI != real.LandlockABI || h.Bwrap != "" || h.NoBwrap != "ACPRUN_TEST_NO_BWRAP=1" {
		t.Errorf("detected %+v, real %+v", h, real)
	}
	if real.LandlockABI < 4 {
		t.Skip("the kernel has Landlock ABI " + strconv.Itoa(real.LandlockABI) + ": nothing to lower")
	}
	t.Setenv(sandbox.EnvTestLandlockABI, "3")
	h := sandbox.Detect(os.Environ())
	if h.LandlockABI != 3 {
		t.Fatalf("ABI %d, want 3", h.LandlockABI)
	}
	work, tmp, _ := dirs(t)
	_, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp}, h)
	want := "network off needs bubblewrap (ACPRUN_TEST_NO_BWRAP=1), or Landlock ABI 4 (Linux 6.7; this host has ABI 3: lowered from " + strconv.Itoa(real.LandlockABI) + " by ACPRUN_TEST_LANDLOCK_ABI=3)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want it to say %q", err, want)
	}
	t.Setenv(sandbox.EnvTestLandlockABI, "0")
	_, err = sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, sandbox.Detect(os.Environ()))
	want = "restricting writes needs bubblewrap (ACPRUN_TEST_NO_BWRAP=1), or Landlock ABI 3 (Linux 6.2; this host has no Landlock: lowered from " + strconv.Itoa(real.LandlockABI) + " by ACPRUN_TEST_LANDLOCK_ABI=0)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want it to say %q", err, want)
	}
}

// TestSeamsOfAnEnvironment: Detect reads the seams from the environment
// it is given, the last entry of a name winning, and not from the
// process's: a run's tests give them in Options.Environ.
func TestSeamsOfAnEnvironment(t *testing.T) {
	t.Parallel()
	real := detected()
	h := sandbox.Detect([]string{sandbox.EnvTestNoBwrap + "=0", sandbox.EnvTestNoBwrap + "=1", sandbox.EnvTestLandlockABI + "=0"})
	if h.Bwrap != "" || h.NoBwrap != "ACPRUN_TEST_NO_BWRAP=1" || h.LandlockABI != 0 {
		t.Errorf("Detect with the seams: %+v; want no bubblewrap, no Landlock", h)
	}
	if real.LandlockABI > 0 && !strings.Contains(h.LandlockNote, "lowered from") {
		t.Errorf("Landlock note %q; want it to say it was lowered", h.LandlockNote)
	}
	if h := sandbox.Detect(nil); h.LandlockABI != real.LandlockABI || h.Bwrap != real.Bwrap {
		t.Errorf("Detect without seams: %+v; want what the host has, %+v", h, real)
	}
}

// TestBestEffortRunsWithWhatThereIs: on a host that lacks the network
// rules, best-effort still restricts writes, and connects anywhere.
func TestBestEffortRunsWithWhatThereIs(t *testing.T) {
	h := landlockOnly(t, 4)
	h.LandlockABI = 3
	addr, _ := listen(t)
	work, tmp, outside := dirs(t)
	a, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true, Ports: []int{1}, Level: sandbox.BestEffort}, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(withoutMetadata(a.Warnings, h)) != 1 || a.Backend != "landlock" {
		t.Fatalf("applied %+v", a)
	}
	if got := run(t, a, "write:"+filepath.Join(outside, "f")); got != "EACCES" {
		t.Errorf("write outside: %s", got)
	}
	if got := run(t, a, "connect:"+addr); got != "ok" {
		t.Errorf("connect: %s", got)
	}
}

// TestHelperFailsClosed: when the helper cannot restrict (it was not
// given the write paths' descriptors), has no environment for the command
// (it was not given its descriptor, or a descriptor that is not it), or
// cannot exec, the command does not run.
func TestHelperFailsClosed(t *testing.T) {
	work, tmp, outside := dirs(t)
	a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, landlockOnly(t, 3))
	marker := filepath.Join(outside, "ran")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv  []string
		files func([]*os.File) []*os.File // those given, of Wrap's
		code  int
		say   string
	}{
		{[]string{self}, func(fs []*os.File) []*os.File { return []*os.File{fs[1], fs[0], fs[2]} }, 126, ": descriptor 3 is not it"},
		{[]string{self}, func(fs []*os.File) []*os.File { return fs[:2] }, 126, "descriptor 5 is not the command's environment"},
		{[]string{self}, func(fs []*os.File) []*os.File { return []*os.File{fs[0], fs[1], fs[0]} }, 126, "descriptor 5 is not the command's environment"},
		{[]string{filepath.Join(outside, "absent")}, func(fs []*os.File) []*os.File { return fs }, 127, "no such file"},
	} {
		cmd := command(t, a, tc.argv, append(os.Environ(), envDo+"=write:"+marker))
		cmd.ExtraFiles = tc.files(cmd.ExtraFiles)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code || !strings.Contains(string(out), tc.say) {
			t.Errorf("%q: %v, %q; want exit %d saying %q", tc.argv, err, out, tc.code, tc.say)
		}
		if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the command ran: %v", err)
		}
	}
	// And acprun's usage of the helper is its own: a bad command line
	// runs nothing.
	out, err := exec.Command(self, sandbox.ExecArg, "{}", self).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 126 || !strings.Contains(string(out), "usage") {
		t.Errorf("no --: %v, %q", err, out)
	}
}

// TestSpecJSONLeavesPinnedOut: a Spec's JSON (the runner keys its pool of
// agent processes by it) is the sandbox, not the run's pinned paths.
func TestSpecJSONLeavesPinnedOut(t *testing.T) {
	b, err := json.Marshal(sandbox.Spec{Write: []string{"/w"}, Pinned: map[string]string{"/pinned": "/pinned"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "pinned") || !strings.Contains(string(b), "/w") {
		t.Errorf("JSON %s; want the write path, not the pinned one", b)
	}
}
