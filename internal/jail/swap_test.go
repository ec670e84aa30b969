package jail

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestJailSwapAfterCheck swaps a directory checked by Resolve for a symlink
// leading out of the root before the file is opened: the open must not
// follow it.
func TestJailSwapAfterCheck(t *testing.T) {
	tests := []struct {
		name string
		// swap replaces part of the tree under root once the path was
		// checked.
		swap func(t *testing.T, root, outside string)
		path string // under root
	}{
		{"parent dir", func(t *testing.T, root, outside string) {
			replace(t, filepath.Join(root, "sub"), outside)
		}, "sub/file.txt"},
		{"parent dir relative", func(t *testing.T, root, outside string) {
			replace(t, filepath.Join(root, "sub"), "../outside")
		}, "sub/file.txt"},
		{"the file", func(t *testing.T, root, outside string) {
			replace(t, filepath.Join(root, "sub", "file.txt"), filepath.Join(outside, "file.txt"))
		}, "sub/file.txt"},
		{"parent of a new file", func(t *testing.T, root, outside string) {
			replace(t, filepath.Join(root, "sub"), outside)
		}, "sub/new/new.txt"},
		{"to slash", func(t *testing.T, root, outside string) {
			replace(t, filepath.Join(root, "sub"), "/")
		}, "sub/file.txt"},
	}
	for _, tt := range tests {
		for _, op := range []string{"read", "write"} {
			t.Run(tt.name+"/"+op, func(t *testing.T) {
				base, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
				for _, d := range []string{filepath.Join(root, "sub"), outside} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				for p, c := range map[string]string{
					filepath.Join(root, "sub", "file.txt"): "inside",
					filepath.Join(outside, "file.txt"):     "secret",
				} {
					if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				j, err := New([]string{root})
				if err != nil {
					t.Fatal(err)
				}
				defer j.Close()
				swapped := false
				j.afterCheck = func() {
					if !swapped {
						swapped = true
						tt.swap(t, root, outside)
					}
				}
				path := filepath.Join(root, tt.path)
				switch op {
				case "read":
					f, err := j.OpenRead(path)
					if err == nil {
						f.Close()
					}
					if !errors.Is(err, ErrOutside) {
						t.Errorf("OpenRead(%s) = %v; want %v", path, err, ErrOutside)
					}
				case "write":
					if err := j.WriteFile(path, []byte("pwned")); !errors.Is(err, ErrOutside) {
						t.Errorf("WriteFile(%s) = %v; want %v", path, err, ErrOutside)
					}
				}
				if !swapped {
					t.Fatal("the swap never ran")
				}
				got, err := os.ReadFile(filepath.Join(outside, "file.txt"))
				if err != nil || string(got) != "secret" {
					t.Errorf("outside/file.txt = %q, %v; want %q", got, err, "secret")
				}
				if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
					t.Errorf("outside/new was created")
				}
			})
		}
	}
}

// replace renames p away and puts a symlink to target in its place.
func replace(t *testing.T, p, target string) {
	t.Helper()
	if err := os.Rename(p, p+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestJailSwapIntoHidden swaps a checked symlink inside the root for one
// leading into a hidden directory of the root before the file is opened:
// os.Root follows it (it stays inside the root), so the open must be
// checked again, and refused before anything is read or truncated.
func TestJailSwapIntoHidden(t *testing.T) {
	for _, op := range []string{"read", "write"} {
		t.Run(op, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(base, "root")
			for _, d := range []string{"public", "secrets"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, d, "key"), []byte(d), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(root, "link")
			if err := os.Symlink("public", link); err != nil {
				t.Fatal(err)
			}
			j, err := New([]string{root}, WithHidden([]string{filepath.Join(root, "secrets")}))
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			swapped := false
			j.afterCheck = func() {
				if !swapped {
					swapped = true
					if err := os.Remove(link); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink("secrets", link); err != nil {
						t.Fatal(err)
					}
				}
			}
			path := filepath.Join(link, "key")
			switch op {
			case "read":
				f, err := j.OpenRead(path)
				if err == nil {
					f.Close()
				}
				if !errors.Is(err, ErrHidden) {
					t.Errorf("OpenRead(%s) = %v; want %v", path, err, ErrHidden)
				}
			case "write":
				if err := j.WriteFile(path, []byte("pwned")); !errors.Is(err, ErrHidden) {
					t.Errorf("WriteFile(%s) = %v; want %v", path, err, ErrHidden)
				}
			}
			if !swapped {
				t.Fatal("the swap never ran")
			}
			got, err := os.ReadFile(filepath.Join(root, "secrets", "key"))
			if err != nil || string(got) != "secrets" {
				t.Errorf("secrets/key = %q, %v; want %q", got, err, "secrets")
			}
		})
	}
}
