package jail_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/jail"
)

// TestJailWritesOnlyInWritable: with WithWritable, WriteFile writes in the
// writable paths that lie in the roots, and refuses the rest of the roots
// with ErrNotWritable (symlinks resolved), leaving them as they were;
// reads are not restricted.
func TestJailWritesOnlyInWritable(t *testing.T) {
	base := t.TempDir()
	work, other := filepath.Join(base, "work"), filepath.Join(base, "other")
	mkdir(t, filepath.Join(work, "sub"))
	mkdir(t, other)
	write(t, filepath.Join(other, "file.txt"), "orig")
	write(t, filepath.Join(base, "state.json"), "{}")
	symlink(t, "../other", filepath.Join(work, "toOther"))
	symlink(t, "../state.json", filepath.Join(work, "toState"))
	j, err := jail.New([]string{work, other, base}, jail.WithWritable([]string{work, filepath.Join(base, "state.json"), filepath.Join(base, "missing")}))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()

	for _, p := range []string{
		filepath.Join(work, "a.txt"),
		filepath.Join(work, "sub", "new", "b.txt"),
		filepath.Join(base, "state.json"),
		filepath.Join(work, "toState"),
	} {
		if err := j.WriteFile(p, []byte("ok")); err != nil {
			t.Errorf("WriteFile(%s) = %v; want it written", p, err)
		}
	}
	for _, p := range []string{
		filepath.Join(other, "file.txt"),
		filepath.Join(other, "new.txt"),
		filepath.Join(work, "toOther", "file.txt"),
		filepath.Join(work, "..", "other", "file.txt"),
		filepath.Join(base, "new.txt"),
		filepath.Join(base, "missing", "x.txt"),
	} {
		if err := j.WriteFile(p, []byte("written")); !errors.Is(err, jail.ErrNotWritable) {
			t.Errorf("WriteFile(%s) = %v; want ErrNotWritable", p, err)
		}
	}
	if got := read(t, filepath.Join(other, "file.txt")); got != "orig" {
		t.Errorf("other/file.txt = %q; want it unchanged", got)
	}
	for _, p := range []string{filepath.Join(other, "new.txt"), filepath.Join(base, "new.txt"), filepath.Join(base, "missing")} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists (%v); want nothing created", p, err)
		}
	}
	f, err := j.OpenRead(filepath.Join(other, "file.txt"))
	if err != nil {
		t.Fatalf("OpenRead(other/file.txt) = %v; want reads unrestricted", err)
	}
	f.Close()
}

// TestJailWritableNoneGiven: WithWritable with no paths makes nothing
// writable; without it every root is.
func TestJailWritableNoneGiven(t *testing.T) {
	root := t.TempDir()
	j, err := jail.New([]string{root}, jail.WithWritable(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.WriteFile(filepath.Join(root, "a.txt"), []byte("x")); !errors.Is(err, jail.ErrNotWritable) {
		t.Errorf("WriteFile = %v; want ErrNotWritable", err)
	}
}
