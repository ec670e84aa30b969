package jail_test

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/jail"
	"github.com/google/go-cmp/cmp"
)

// tree is a test layout: base/root is the jail's root, base/outside holds
// a secret the agent must not reach.
type tree struct {
	base, root, outside, secret string
}

func newTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	// t.TempDir may itself lie under a symlink (macOS /tmp); work on the
	// resolved path so expectations are simple.
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{
		base:    base,
		root:    filepath.Join(base, "root"),
		outside: filepath.Join(base, "outside"),
		secret:  filepath.Join(base, "outside", "secret.txt"),
	}
	mkdir(t, tr.root)
	mkdir(t, tr.outside)
	mkdir(t, filepath.Join(tr.root, "sub"))
	write(t, tr.secret, "secret")
	write(t, filepath.Join(tr.root, "file.txt"), "inside")
	return tr
}

func mkdir(t testing.TB, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func newJail(t *testing.T, roots []string, opts ...jail.Option) *jail.Jail {
	t.Helper()
	j, err := jail.New(roots, opts...)
	if err != nil {
		t.Fatalf("New(%v) = %v", roots, err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// TestJailRefusesEscapes tries every way out of the root for reading and
// for writing; each must be refused with ErrOutside (or ErrNotAbsolute),
// and no write may land outside.
func TestJailRefusesEscapes(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares the tree after the jail was made and returns the
		// path the agent asks for.
		setup func(t *testing.T, tr tree) string
		want  error
	}{
		{"dot-dot", func(t *testing.T, tr tree) string {
			return tr.root + "/../outside/secret.txt"
		}, jail.ErrOutside},
		{"dot-dot deep", func(t *testing.T, tr tree) string {
			return tr.root + "/sub/../../outside/secret.txt"
		}, jail.ErrOutside},
		{"dot-dot through a missing dir", func(t *testing.T, tr tree) string {
			return tr.root + "/missing/../../outside/secret.txt"
		}, jail.ErrOutside},
		{"absolute outside", func(t *testing.T, tr tree) string {
			return tr.secret
		}, jail.ErrOutside},
		{"etc passwd", func(t *testing.T, tr tree) string {
			return "/etc/passwd"
		}, jail.ErrOutside},
		{"sibling with root as prefix", func(t *testing.T, tr tree) string {
			mkdir(t, tr.root+"-evil")
			write(t, tr.root+"-evil/secret.txt", "secret")
			return tr.root + "-evil/secret.txt"
		}, jail.ErrOutside},
		{"relative", func(t *testing.T, tr tree) string {
			return "file.txt"
		}, jail.ErrNotAbsolute},
		{"symlink to slash", func(t *testing.T, tr tree) string {
			symlink(t, "/", filepath.Join(tr.root, "slash"))
			return filepath.Join(tr.root, "slash", tr.secret)
		}, jail.ErrOutside},
		{"relative symlink out", func(t *testing.T, tr tree) string {
			symlink(t, "../outside", filepath.Join(tr.root, "rel"))
			return filepath.Join(tr.root, "rel", "secret.txt")
		}, jail.ErrOutside},
		{"symlink to the file outside", func(t *testing.T, tr tree) string {
			symlink(t, tr.secret, filepath.Join(tr.root, "s.txt"))
			return filepath.Join(tr.root, "s.txt")
		}, jail.ErrOutside},
		{"symlink then dot-dot", func(t *testing.T, tr tree) string {
			// sub/deep → ../.. : lexically root/sub/deep/.. is root/sub,
			// physically it is base.
			symlink(t, tr.outside+"/x", filepath.Join(tr.root, "sub", "deep"))
			mkdir(t, tr.outside+"/x")
			return filepath.Join(tr.root, "sub", "deep") + "/../secret.txt"
		}, jail.ErrOutside},
		{"symlinked parent for a new file", func(t *testing.T, tr tree) string {
			symlink(t, tr.outside, filepath.Join(tr.root, "out"))
			return filepath.Join(tr.root, "out", "new", "new.txt")
		}, jail.ErrOutside},
		{"dangling symlink", func(t *testing.T, tr tree) string {
			symlink(t, filepath.Join(tr.outside, "created.txt"), filepath.Join(tr.root, "dangling"))
			return filepath.Join(tr.root, "dangling")
		}, jail.ErrOutside},
		{"dangling symlink parent", func(t *testing.T, tr tree) string {
			symlink(t, filepath.Join(tr.outside, "newdir"), filepath.Join(tr.root, "dangdir"))
			return filepath.Join(tr.root, "dangdir", "f.txt")
		}, jail.ErrOutside},
		{"chain of symlinks", func(t *testing.T, tr tree) string {
			symlink(t, "b", filepath.Join(tr.root, "a"))
			symlink(t, "c", filepath.Join(tr.root, "b"))
			symlink(t, "../outside", filepath.Join(tr.root, "c"))
			return filepath.Join(tr.root, "a", "secret.txt")
		}, jail.ErrOutside},
		{"magic link", func(t *testing.T, tr tree) string {
			symlink(t, "/proc/self/root", filepath.Join(tr.root, "proc"))
			return filepath.Join(tr.root, "proc", tr.secret)
		}, jail.ErrOutside},
		{"root replaced by a symlink", func(t *testing.T, tr tree) string {
			if err := os.Rename(tr.root, tr.root+".orig"); err != nil {
				t.Fatal(err)
			}
			symlink(t, tr.outside, tr.root)
			return filepath.Join(tr.root, "secret.txt")
		}, jail.ErrOutside},
		{"root replaced by a symlink to slash", func(t *testing.T, tr tree) string {
			if err := os.Rename(tr.root, tr.root+".orig"); err != nil {
				t.Fatal(err)
			}
			symlink(t, "/", tr.root)
			return tr.root + tr.secret
		}, jail.ErrOutside},
		{"symlink loop", func(t *testing.T, tr tree) string {
			symlink(t, "loop2", filepath.Join(tr.root, "loop1"))
			symlink(t, "loop1", filepath.Join(tr.root, "loop2"))
			return filepath.Join(tr.root, "loop1", "x")
		}, syscall.ELOOP},
	}
	for _, tt := range tests {
		for _, op := range []string{"read", "write", "resolve"} {
			t.Run(tt.name+"/"+op, func(t *testing.T) {
				tr := newTree(t)
				j := newJail(t, []string{tr.root})
				path := tt.setup(t, tr)
				before := listTree(t, tr.outside)
				var err error
				switch op {
				case "read":
					var f *os.File
					f, err = j.OpenRead(path)
					if f != nil {
						f.Close()
					}
				case "write":
					err = j.WriteFile(path, []byte("pwned"))
				case "resolve":
					_, err = j.Resolve(path)
				}
				if !errors.Is(err, tt.want) {
					t.Errorf("%s %s: err = %v; want %v", op, path, err, tt.want)
				}
				if diff := cmp.Diff(before, listTree(t, tr.outside)); diff != "" {
					t.Errorf("outside changed (-before +after):\n%s", diff)
				}
				if got := read(t, tr.secret); got != "secret" {
					t.Errorf("secret = %q; want %q", got, "secret")
				}
			})
		}
	}
}

// listTree returns every path under dir with its content.
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			out[p] = read(t, p)
		} else {
			out[p] = fi.Mode().Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func read(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestJailAllows checks what stays inside the roots works, symlinks
// inside the roots included.
func TestJailAllows(t *testing.T) {
	tr := newTree(t)
	second := filepath.Join(tr.base, "second")
	mkdir(t, second)
	symlink(t, tr.root, filepath.Join(tr.base, "rootlink"))
	j := newJail(t, []string{filepath.Join(tr.base, "rootlink"), second})
	if diff := cmp.Diff([]string{tr.root, second}, j.Roots()); diff != "" {
		t.Errorf("Roots() (-want +got):\n%s", diff)
	}
	symlink(t, "sub", filepath.Join(tr.root, "sublink"))
	symlink(t, "file.txt", filepath.Join(tr.root, "filelink"))
	symlink(t, "sub/target.txt", filepath.Join(tr.root, "dangling-inside"))

	t.Run("read", func(t *testing.T) {
		for _, p := range []string{
			filepath.Join(tr.root, "file.txt"),
			filepath.Join(tr.base, "rootlink", "file.txt"),
			filepath.Join(tr.root, "sub", "..", "file.txt"),
			filepath.Join(tr.root, "filelink"),
		} {
			f, err := j.OpenRead(p)
			if err != nil {
				t.Errorf("OpenRead(%s) = %v", p, err)
				continue
			}
			buf := make([]byte, 100)
			n, _ := f.Read(buf)
			f.Close()
			if got := string(buf[:n]); got != "inside" {
				t.Errorf("OpenRead(%s) read %q; want %q", p, got, "inside")
			}
		}
	})
	t.Run("write", func(t *testing.T) {
		tests := []struct{ path, lands string }{
			{filepath.Join(tr.root, "new", "dir", "a.txt"), filepath.Join(tr.root, "new", "dir", "a.txt")},
			{filepath.Join(tr.root, "sublink", "b.txt"), filepath.Join(tr.root, "sub", "b.txt")},
			{filepath.Join(tr.root, "dangling-inside"), filepath.Join(tr.root, "sub", "target.txt")},
			{filepath.Join(tr.root, "file.txt"), filepath.Join(tr.root, "file.txt")},
			{filepath.Join(second, "c.txt"), filepath.Join(second, "c.txt")},
		}
		for _, tt := range tests {
			if err := j.WriteFile(tt.path, []byte("written")); err != nil {
				t.Errorf("WriteFile(%s) = %v", tt.path, err)
				continue
			}
			if got := read(t, tt.lands); got != "written" {
				t.Errorf("after WriteFile(%s), %s = %q; want %q", tt.path, tt.lands, got, "written")
			}
		}
	})
	t.Run("resolve", func(t *testing.T) {
		tests := []struct{ path, want string }{
			{filepath.Join(tr.base, "rootlink", "sublink", "x", "..", "y"), filepath.Join(tr.root, "sub", "y")},
			{filepath.Join(tr.base, "rootlink"), tr.root},
			{filepath.Join(tr.root, "dangling-inside"), filepath.Join(tr.root, "sub", "target.txt")},
		}
		for _, tt := range tests {
			got, err := j.Resolve(tt.path)
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		}
	})
}

// TestJailErrors covers refusals and failures that are not escapes.
func TestJailErrors(t *testing.T) {
	tr := newTree(t)
	fifo := filepath.Join(tr.root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(tr.root, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	j := newJail(t, []string{tr.root})
	ro := newJail(t, []string{tr.root}, jail.WithReadOnly(true))
	tests := []struct {
		name string
		do   func() error
		want error
	}{
		{"read missing", func() error { return readErr(j, filepath.Join(tr.root, "missing.txt")) }, jail.ErrNotFound},
		{"read under a file", func() error { return readErr(j, filepath.Join(tr.root, "file.txt", "x")) }, syscall.ENOTDIR},
		{"read a directory", func() error { return readErr(j, filepath.Join(tr.root, "sub")) }, jail.ErrNotRegular},
		{"read a fifo", func() error { return readErr(j, fifo) }, jail.ErrNotRegular},
		{"write a fifo", func() error { return j.WriteFile(fifo, []byte("x")) }, jail.ErrNotRegular},
		{"read a socket", func() error { return readErr(j, sock) }, jail.ErrNotRegular},
		{"write a socket", func() error { return j.WriteFile(sock, []byte("x")) }, jail.ErrNotRegular},
		{"write a directory", func() error { return j.WriteFile(filepath.Join(tr.root, "sub"), []byte("x")) }, jail.ErrNotRegular},
		{"write the root", func() error { return j.WriteFile(tr.root, []byte("x")) }, jail.ErrNotRegular},
		{"write read-only", func() error { return ro.WriteFile(filepath.Join(tr.root, "file.txt"), []byte("x")) }, jail.ErrReadOnly},
		{"read-only still reads", func() error { return readErr(ro, filepath.Join(tr.root, "file.txt")) }, nil},
		{"dir of a file", func() error { return openDirErr(j, filepath.Join(tr.root, "file.txt")) }, syscall.ENOTDIR},
		{"dir outside", func() error { return openDirErr(j, tr.outside) }, jail.ErrOutside},
		{"dir missing", func() error { return openDirErr(j, filepath.Join(tr.root, "missing")) }, jail.ErrNotFound},
		{"dir inside", func() error { return openDirErr(j, filepath.Join(tr.root, "sub")) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("err = %v; want %v", err, tt.want)
			}
		})
	}
	if got := read(t, filepath.Join(tr.root, "file.txt")); got != "inside" {
		t.Errorf("file.txt = %q after a read-only write; want %q", got, "inside")
	}
}

// TestJailFollowsTheKernel: a path the kernel would not follow to its
// end fails as the kernel would, naming where it stops, rather than being
// resolved as written: a file followed by more of the path or by a final
// /, a missing directory followed by "..". Where it stops is named only
// inside the roots: a path that stops outside them is outside them.
func TestJailFollowsTheKernel(t *testing.T) {
	tr := newTree(t)
	symlink(t, tr.outside, filepath.Join(tr.root, "out"))
	j := newJail(t, []string{tr.root})
	file := filepath.Join(tr.root, "file.txt")
	tests := []struct {
		name string
		do   func() error
		want error
		at   string // the *fs.PathError's path, when it stops
	}{
		{"read a file/", func() error { return readErr(j, file+"/") }, syscall.ENOTDIR, file},
		{"read a file/..", func() error { return readErr(j, file+"/..") }, syscall.ENOTDIR, file},
		{"write a file/x", func() error { return j.WriteFile(filepath.Join(file, "b"), []byte("x")) }, syscall.ENOTDIR, file},
		{"write new/", func() error { return j.WriteFile(filepath.Join(tr.root, "new.txt")+"/", []byte("x")) }, jail.ErrNotRegular, ""},
		{"read missing/..", func() error { return readErr(j, filepath.Join(tr.root, "missing")+"/../file.txt") }, jail.ErrNotFound, filepath.Join(tr.root, "missing")},
		{"write missing/..", func() error { return j.WriteFile(filepath.Join(tr.root, "missing")+"/../x.txt", []byte("x")) }, jail.ErrNotFound, filepath.Join(tr.root, "missing")},
		{"cwd a file/", func() error { return openDirErr(j, file+"/") }, syscall.ENOTDIR, file},
		{"read through an existing dir/..", func() error { return readErr(j, filepath.Join(tr.root, "sub")+"/../file.txt") }, nil, ""},
		{"dir/ is a directory", func() error { return openDirErr(j, filepath.Join(tr.root, "sub")+"/") }, nil, ""},
		{"stops outside", func() error { return readErr(j, filepath.Join(tr.root, "out", "secret.txt")+"/x") }, jail.ErrOutside, ""},
		{"stops outside, ends inside", func() error {
			return readErr(j, filepath.Join(tr.root, "out", "secret.txt")+"/../../root/file.txt")
		}, jail.ErrOutside, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("err = %v; want %v", err, tt.want)
			}
			var stop *fs.PathError
			if errors.As(err, &stop) != (tt.at != "") || tt.at != "" && stop.Path != tt.at {
				t.Errorf("err = %v (%#v); want it to stop at %q", err, stop, tt.at)
			}
		})
	}
	if got := read(t, file); got != "inside" {
		t.Errorf("file.txt = %q; want it unchanged", got)
	}
	for _, p := range []string{"new.txt", "x.txt", "missing"} {
		if _, err := os.Lstat(filepath.Join(tr.root, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}

func readErr(j *jail.Jail, path string) error { return closed(j.OpenRead(path)) }

func openDirErr(j *jail.Jail, path string) error { return closed(j.OpenDir(path)) }

// closed closes the file an open returned, if any, and returns its error.
func closed(f *os.File, err error) error {
	if f != nil {
		f.Close()
	}
	return err
}

func TestJailNewErrors(t *testing.T) {
	tr := newTree(t)
	tests := []struct {
		name  string
		roots []string
	}{
		{"none", nil},
		{"relative", []string{"root"}},
		{"missing", []string{filepath.Join(tr.base, "missing")}},
		{"a file", []string{filepath.Join(tr.root, "file.txt")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if j, err := jail.New(tt.roots); err == nil {
				j.Close()
				t.Errorf("New(%v) = nil error; want one", tt.roots)
			}
		})
	}
}

// TestJailClosed: after Close every access fails, and not as an escape.
func TestJailClosed(t *testing.T) {
	tr := newTree(t)
	j, err := jail.New([]string{tr.root})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	path := filepath.Join(tr.root, "file.txt")
	if err := readErr(j, path); err == nil || errors.Is(err, jail.ErrOutside) {
		t.Errorf("OpenRead after Close = %v; want an error, not %v", err, jail.ErrOutside)
	}
	if err := j.WriteFile(path, []byte("x")); err == nil || errors.Is(err, jail.ErrOutside) {
		t.Errorf("WriteFile after Close = %v; want an error, not %v", err, jail.ErrOutside)
	}
}

// TestResolvePath: ResolvePath resolves as Resolve does, outside the roots
// too, and fails on a relative path and a symlink loop.
func TestResolvePath(t *testing.T) {
	tr := newTree(t)
	symlink(t, "../outside", filepath.Join(tr.root, "out"))
	symlink(t, "loop", filepath.Join(tr.root, "loop"))
	for _, tt := range []struct{ path, want string }{
		{filepath.Join(tr.root, "out", "secret.txt"), tr.secret},
		{tr.root + "/out/../root/./new.txt", filepath.Join(tr.base, "root", "new.txt")},
		{tr.root + "/out/../outside/x", filepath.Join(tr.base, "outside", "x")},
		{tr.root + "//sub/../file.txt", filepath.Join(tr.root, "file.txt")},
	} {
		if got, err := jail.ResolvePath(tt.path); err != nil || got != tt.want {
			t.Errorf("ResolvePath(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if _, err := jail.ResolvePath("root/x"); !errors.Is(err, jail.ErrNotAbsolute) {
		t.Errorf("ResolvePath(relative) = %v; want ErrNotAbsolute", err)
	}
	if _, err := jail.ResolvePath(filepath.Join(tr.root, "loop", "x")); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("ResolvePath(loop) = %v; want ELOOP", err)
	}
}
