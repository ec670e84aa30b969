package e2e_test

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/sandbox"
)

// sandboxHost is this host as Detect finds it with the built binary as
// the Landlock helper; without bubblewrap when noBwrap. The test is
// skipped when the host lacks Landlock ABI 4 (or bubblewrap), and fails
// instead under ACPRUN_LANDLOCK_REQUIRED=1 (ACPRUN_BWRAP_REQUIRED=1).
func sandboxHost(t *testing.T, noBwrap bool) sandbox.Host {
	t.Helper()
	h := sandbox.Detect()
	if h.LandlockABI < 4 {
		msg := "Landlock ABI " + strconv.Itoa(h.LandlockABI) + " " + h.LandlockNote + ": the test needs 4"
		if os.Getenv("ACPRUN_LANDLOCK_REQUIRED") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	h.Self = acprunBin
	if noBwrap {
		h.Bwrap = ""
		h.NoBwrap = "left out by the test"
	} else if h.Bwrap == "" {
		if os.Getenv("ACPRUN_BWRAP_REQUIRED") == "1" {
			t.Fatal(h.NoBwrap)
		}
		t.Skip(h.NoBwrap)
	}
	return h
}

// TestSandboxHelper: the built binary's hidden __sandbox-exec entry
// restricts the command it execs and everything that command starts, alone
// and inside bubblewrap.
func TestSandboxHelper(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash (for /dev/tcp) not found")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		name    string
		noBwrap bool
		backend string
		denied  string
	}{
		{"landlock", true, "landlock", "Permission denied"},
		{"bubblewrap+landlock", false, "bubblewrap+landlock", "Read-only file system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := realTempDir(t)
			work, tmp, outside := filepath.Join(root, "work"), filepath.Join(root, "tmp"), filepath.Join(root, "outside")
			for _, d := range []string{work, tmp, outside} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// Ports 1 and the listener's: a connection to the listener
			// works; the same without its port in the list is denied.
			for _, ports := range [][]int{{1, port}, {1}} {
				a, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true, Ports: ports}, sandboxHost(t, tc.noBwrap))
				if err != nil {
					t.Fatal(err)
				}
				if a.Backend != tc.backend {
					t.Fatalf("backend %s", a.Backend)
				}
				script := `echo in > "$WORK/in"; echo tmp > "$TMPDIR/tmp"; ` +
					`echo out > "$OUTSIDE/out"; bash -c 'echo out > "$OUTSIDE/grandchild"'; ` +
					`if exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(port) + `; then echo connected; fi`
				argv, env := a.Wrap([]string{"bash", "-c", script}, append(os.Environ(), "WORK="+work, "OUTSIDE="+outside))
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env = env
				out, _ := cmd.CombinedOutput()
				if got := strings.Count(string(out), "/outside/out: "+tc.denied) + strings.Count(string(out), "/outside/grandchild: "+tc.denied); got != 2 {
					t.Errorf("ports %v: %d writes denied, want 2:\n%s", ports, got, out)
				}
				if connected := strings.Contains(string(out), "connected"); connected != (len(ports) == 2) {
					t.Errorf("ports %v: connected %v:\n%s", ports, connected, out)
				}
				for _, f := range []string{filepath.Join(work, "in"), filepath.Join(tmp, "tmp")} {
					if _, err := os.Stat(f); err != nil {
						t.Errorf("ports %v: %v\n%s", ports, err, out)
					}
				}
				for _, f := range []string{"out", "grandchild"} {
					if _, err := os.Stat(filepath.Join(outside, f)); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("ports %v: %s written outside (%v)", ports, f, err)
					}
				}
			}
		})
	}
}
