//go:build linux

package sandbox_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/sandbox"
)

// envBackends are the backends whose wrapper stage (the helper, and
// bubblewrap) runs before the restriction is in force.
var envBackends = []struct {
	name  string
	host  func(*testing.T) sandbox.Host
	bwrap bool
}{
	{"landlock", func(t *testing.T) sandbox.Host { return landlockOnly(t, 3) }, false},
	{"bubblewrap", bwrapOnly, true},
	{"bubblewrap+landlock", bwrapAndLandlock, true},
}

// recorder writes in dir an executable shell script that records the
// environment it was started with (its /proc/PID/environ, as it was at
// its exec) in a new file of dir named NAME.*, then execs prog with its
// arguments. A record it cannot write (inside the sandbox, outside the
// write paths) is left out.
func recorder(t *testing.T, dir, name, prog string) string {
	t.Helper()
	script := filepath.Join(dir, name+".sh")
	src := "#!/bin/sh\nf=$(mktemp '" + dir + "/" + name + ".XXXXXX' 2>/dev/null) && cat /proc/$$/environ > \"$f\"\nexec '" + prog + "' \"$@\"\n"
	if err := os.WriteFile(script, []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// records reads the environments recorder's scripts recorded in dir under
// name.
func records(t *testing.T, dir, name string) [][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, name+".*"))
	if err != nil {
		t.Fatal(err)
	}
	var envs [][]string
	for _, f := range files {
		if strings.HasSuffix(f, ".sh") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		envs = append(envs, strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"))
	}
	return envs
}

// TestWrapperStageEnv: the processes that run before the sandbox is in
// force (acprun's helper, and bwrap) start with an environment of acprun's,
// never with the one the command is given, which may hold LD_PRELOAD (the
// dynamic loader would run the library it names in them, unrestricted);
// the command gets its own whole, LD_PRELOAD included. The helper and
// bwrap are scripts that record their environment, then exec the real
// ones.
func TestWrapperStageEnv(t *testing.T) {
	t.Parallel()
	for _, b := range envBackends {
		t.Run(b.name, func(t *testing.T) {
			work, tmp, _ := dirs(t)
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			h := b.host(t)
			h.Self = recorder(t, work, "helper", self)
			if b.bwrap {
				h.Bwrap = recorder(t, work, "bwrap", h.Bwrap)
			}
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, h)
			env := append(os.Environ(), "SBENV_MARKER=the command's", "LD_PRELOAD=/nonexistent/sbenv.so", "TMPDIR=/elsewhere")
			cmd := command(t, a, []string{"/bin/sh", "-c", `printf '%s|%s|%s\n' "$SBENV_MARKER" "$LD_PRELOAD" "$TMPDIR"`}, env)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if got, want := string(out), "the command's|/nonexistent/sbenv.so|"+tmp+"\n"; got != want {
				t.Errorf("the command saw %q, want %q: its environment as given, TMPDIR the sandbox's", got, want)
			}
			helpers, bwraps := records(t, work, "helper"), records(t, work, "bwrap")
			want := map[bool][2]int{false: {1, 0}, true: {2, 1}}[b.bwrap]
			if len(helpers) != want[0] || len(bwraps) != want[1] {
				t.Fatalf("%d helpers and %d bwraps recorded, want %d and %d", len(helpers), len(bwraps), want[0], want[1])
			}
			for _, e := range slices.Concat(helpers, bwraps) {
				for _, kv := range e {
					if strings.HasPrefix(kv, "SBENV_MARKER=") || strings.HasPrefix(kv, "LD_PRELOAD=") {
						t.Errorf("a wrapper stage started with the command's %s", kv)
					}
				}
			}
		})
	}
}

// TestPreloadStaysInside: a command given LD_PRELOAD runs the library
// inside the sandbox, and no process outside it does: the library, built
// with gcc, records the name of each process that loads it in the work
// directory, and tries to write outside. Skipped without gcc.
func TestPreloadStaysInside(t *testing.T) {
	t.Parallel()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found")
	}
	for _, b := range envBackends {
		t.Run(b.name, func(t *testing.T) {
			work, tmp, outside := dirs(t)
			lib := preloadLib(t, gcc, work, outside)
			a := plan(t, sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true}, b.host(t))
			cmd := command(t, a, []string{"/bin/true"}, append(os.Environ(), "LD_PRELOAD="+lib))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if loaded, err := os.ReadFile(filepath.Join(work, "loaded")); err != nil || strings.TrimSpace(string(loaded)) != "true" {
				t.Errorf("loaded by %q (%v), want by the command only (true)", loaded, err)
			}
			if escaped, err := os.ReadFile(filepath.Join(outside, "escaped")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the library ran outside the sandbox, in %q (%v)", escaped, err)
			}
		})
	}
}

// preloadLib builds with gcc a library whose constructor appends the name
// of the process that loads it to inside/loaded and to outside/escaped.
func preloadLib(t *testing.T, gcc, inside, outside string) string {
	t.Helper()
	dir := t.TempDir()
	src := `#include <fcntl.h>
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
	note(INSIDE "/loaded", comm);
	note(OUTSIDE "/escaped", comm);
}
`
	if err := os.WriteFile(filepath.Join(dir, "preload.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "preload.so")
	cmd := exec.Command(gcc, "-shared", "-fPIC", "-o", lib, `-DINSIDE="`+inside+`"`, `-DOUTSIDE="`+outside+`"`, "preload.c")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return lib
}
