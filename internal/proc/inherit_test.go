package proc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/proc"
)

// TestCloseInheritedOnExec: a descriptor open without close-on-exec, as
// one inherited across exec is, reaches a child until
// CloseInheritedOnExec (or its fallback for kernels before Linux 5.11)
// has run, and no longer after; the process itself still writes to it.
func TestCloseInheritedOnExec(t *testing.T) {
	fdDir := "/proc/self/fd"
	if runtime.GOOS != "linux" {
		fdDir = "/dev/fd"
	}
	for _, tc := range []struct {
		name string
		mark func() error
	}{
		{"CloseInheritedOnExec", proc.CloseInheritedOnExec},
		{"fallback", func() error { return proc.CloexecListed(fdDir) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fd, err := unix.Dup(int(f.Fd())) // dup(2): not close-on-exec
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			child := func(line string) {
				t.Helper()
				out, err := exec.Command("/bin/sh", "-c", "echo "+line+" >&"+strconv.Itoa(fd)).CombinedOutput()
				t.Logf("child writing %s: %v %s", line, err, out)
			}
			child("before")
			if err := tc.mark(); err != nil {
				t.Fatal(err)
			}
			child("after")
			if _, err := unix.Write(fd, []byte("itself\n")); err != nil {
				t.Errorf("the process writing to its descriptor: %v", err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(b), "before\nitself\n"; got != want {
				t.Errorf("the file holds %q, want %q: a child started after marking got the descriptor", got, want)
			}
		})
	}
}
