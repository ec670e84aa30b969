package jail_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/jail"
)

// TestJailRefusesHidden reads and writes hidden paths inside the root
// every way there is: each must be refused with ErrHidden, and no hidden
// file read or changed.
func TestJailRefusesHidden(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares the tree under root, after the jail was made, and
		// returns the path to try, relative to root.
		setup func(t *testing.T, root string) string
	}{
		{"the file", func(t *testing.T, root string) string { return "secrets/key" }},
		{"the directory", func(t *testing.T, root string) string { return "secrets" }},
		{"a new file in it", func(t *testing.T, root string) string { return "secrets/new/new.txt" }},
		{"dot dot", func(t *testing.T, root string) string { return "sub/../secrets/key" }},
		{"symlink to the file", func(t *testing.T, root string) string {
			symlink(t, "../secrets/key", filepath.Join(root, "sub", "link"))
			return "sub/link"
		}},
		{"absolute symlink to the directory", func(t *testing.T, root string) string {
			symlink(t, filepath.Join(root, "secrets"), filepath.Join(root, "dir"))
			return "dir/key"
		}},
		{"chain of symlinks", func(t *testing.T, root string) string {
			symlink(t, "secrets", filepath.Join(root, "a"))
			symlink(t, "a/key", filepath.Join(root, "b"))
			return "b"
		}},
		{"hidden file", func(t *testing.T, root string) string { return "token" }},
		{"hard link to a hidden file", func(t *testing.T, root string) string {
			if err := os.Link(filepath.Join(root, "token"), filepath.Join(root, "hard")); err != nil {
				t.Fatal(err)
			}
			return "hard"
		}},
		{"renamed with its parent", func(t *testing.T, root string) string {
			if err := os.Rename(filepath.Join(root, "nested"), filepath.Join(root, "moved")); err != nil {
				t.Fatal(err)
			}
			return "moved/secrets/key"
		}},
		{"created after the jail", func(t *testing.T, root string) string {
			mkdir(t, filepath.Join(root, "later"))
			write(t, filepath.Join(root, "later", "key"), "HIDDEN")
			return "later/key"
		}},
		{"created after the jail through a symlink", func(t *testing.T, root string) string {
			mkdir(t, filepath.Join(root, "real"))
			write(t, filepath.Join(root, "real", "key"), "HIDDEN")
			symlink(t, "real", filepath.Join(root, "later"))
			return "real/key"
		}},
	}
	for _, tt := range tests {
		for _, op := range []string{"read", "write", "resolve"} {
			t.Run(tt.name+"/"+op, func(t *testing.T) {
				tr := newTree(t)
				mkdir(t, filepath.Join(tr.root, "secrets"))
				mkdir(t, filepath.Join(tr.root, "nested", "secrets"))
				key := filepath.Join(tr.root, "secrets", "key")
				nestedKey := filepath.Join(tr.root, "nested", "secrets", "key")
				write(t, key, "HIDDEN")
				write(t, nestedKey, "HIDDEN")
				token := filepath.Join(tr.root, "token")
				write(t, token, "HIDDEN")
				j := newJail(t, []string{tr.root}, jail.WithHidden([]string{
					filepath.Join(tr.root, "secrets"),
					filepath.Join(tr.root, "nested", "secrets"),
					filepath.Join(tr.root, "later"),
					token,
				}))
				path := filepath.Join(tr.root, tt.setup(t, tr.root))
				var err error
				switch op {
				case "read":
					var f *os.File
					if f, err = j.OpenRead(path); err == nil {
						f.Close()
					}
				case "write":
					err = j.WriteFile(path, []byte("pwned"))
				case "resolve":
					_, err = j.Resolve(path)
				}
				if !errors.Is(err, jail.ErrHidden) {
					t.Errorf("%s %s = %v; want %v", op, path, err, jail.ErrHidden)
				}
				for _, k := range []string{key, token, filepath.Join(tr.root, "moved", "secrets", "key"), filepath.Join(tr.root, "real", "key")} {
					if got, err := os.ReadFile(k); err == nil && string(got) != "HIDDEN" {
						t.Errorf("%s = %q; want it unchanged", k, got)
					}
				}
				if _, err := os.Stat(filepath.Join(tr.root, "secrets", "new")); err == nil {
					t.Errorf("secrets/new was created")
				}
			})
		}
	}
}

// TestJailHiddenLeavesTheRest checks that hiding a path refuses nothing
// else: a sibling whose name starts like it, the directory holding it (a
// terminal's cwd), a file beside it; and that a hidden path outside the
// roots is refused as outside them.
func TestJailHiddenLeavesTheRest(t *testing.T) {
	tr := newTree(t)
	mkdir(t, filepath.Join(tr.root, "secrets"))
	write(t, filepath.Join(tr.root, "secrets", "key"), "HIDDEN")
	write(t, filepath.Join(tr.root, "secrets2"), "public")
	j := newJail(t, []string{tr.root}, jail.WithHidden([]string{filepath.Join(tr.root, "secrets"), tr.outside}))

	for _, name := range []string{"secrets2", "file.txt"} {
		f, err := j.OpenRead(filepath.Join(tr.root, name))
		if err != nil {
			t.Errorf("OpenRead(%s) = %v", name, err)
			continue
		}
		f.Close()
	}
	if err := j.WriteFile(filepath.Join(tr.root, "sub", "new.txt"), []byte("x")); err != nil {
		t.Errorf("WriteFile(sub/new.txt) = %v", err)
	}
	if err := openDirErr(j, tr.root); err != nil {
		t.Errorf("OpenDir(root) = %v", err)
	}
	if err := openDirErr(j, filepath.Join(tr.root, "secrets")); !errors.Is(err, jail.ErrHidden) {
		t.Errorf("OpenDir(secrets) = %v; want %v", err, jail.ErrHidden)
	}
	if _, err := j.OpenRead(tr.secret); !errors.Is(err, jail.ErrOutside) {
		t.Errorf("OpenRead(%s) = %v; want %v", tr.secret, err, jail.ErrOutside)
	}
}

// TestJailHiddenNotAbsolute refuses a relative hidden path.
func TestJailHiddenNotAbsolute(t *testing.T) {
	tr := newTree(t)
	j, err := jail.New([]string{tr.root}, jail.WithHidden([]string{"secrets"}))
	if err == nil {
		j.Close()
	}
	if !errors.Is(err, jail.ErrNotAbsolute) {
		t.Errorf("New with hidden path secrets = %v; want %v", err, jail.ErrNotAbsolute)
	}
}
