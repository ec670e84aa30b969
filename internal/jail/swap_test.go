package jail

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestJailRefusedWriteLeavesNothing: a write refused because a swap made
// between the check and the open led it into a hidden directory leaves
// nothing there, no file and no directory, and removes no file that was
// there before. The swap puts a symlink to the hidden directory in the
// place of a directory checked, or exchanges the two directories.
func TestJailRefusedWriteLeavesNothing(t *testing.T) {
	swaps := []struct {
		name string
		swap func(t *testing.T, root string)
		// hidden is where the hidden directory is after the swap.
		hidden string
		// why is in the error: what found the swap.
		why string
	}{
		{"symlink", func(t *testing.T, root string) {
			replace(t, filepath.Join(root, "d"), "secrets")
		}, "secrets", "in a hidden path"},
		{"exchange", func(t *testing.T, root string) {
			d, secrets, tmp := filepath.Join(root, "d"), filepath.Join(root, "secrets"), filepath.Join(root, "tmp")
			for _, mv := range [][2]string{{secrets, tmp}, {d, secrets}, {tmp, d}} {
				if err := os.Rename(mv[0], mv[1]); err != nil {
					t.Fatal(err)
				}
			}
		}, "d", "it changed while being opened, and led into a hidden path"},
	}
	for _, sw := range swaps {
		for _, path := range []string{"d/new.txt", "d/key", "d/new/dir/new.txt"} {
			t.Run(sw.name+"/"+path, func(t *testing.T) {
				base, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				root := filepath.Join(base, "root")
				for d, c := range map[string]string{"d": "public", "secrets": "secret"} {
					if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(root, d, "key"), []byte(c), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				hidden := filepath.Join(root, "secrets")
				j, err := New([]string{root}, WithHidden([]string{hidden}))
				if err != nil {
					t.Fatal(err)
				}
				defer j.Close()
				swapped := false
				j.afterCheck = func() {
					if !swapped {
						swapped = true
						sw.swap(t, root)
					}
				}
				if err := j.WriteFile(filepath.Join(root, path), []byte("pwned")); !errors.Is(err, ErrHidden) || !strings.Contains(err.Error(), sw.why) {
					t.Errorf("WriteFile(%s) = %v; want %v, %q", path, err, ErrHidden, sw.why)
				}
				if !swapped {
					t.Fatal("the swap never ran")
				}
				hidden = filepath.Join(root, sw.hidden)
				entries, err := os.ReadDir(hidden)
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) != 1 || entries[0].Name() != "key" {
					t.Errorf("the hidden directory holds %v; want only key", entries)
				}
				got, err := os.ReadFile(filepath.Join(hidden, "key"))
				if err != nil || string(got) != "secret" {
					t.Errorf("the hidden key = %q, %v; want %q", got, err, "secret")
				}
			})
		}
	}
}

// TestJailWriteChangedPath: without hidden paths, a write whose resolved
// path had a directory replaced by a symlink (even one inside the root)
// or by a file since the check fails with ErrChanged and writes nothing:
// it follows no symlink the check did not.
func TestJailWriteChangedPath(t *testing.T) {
	for name, swap := range map[string]func(t *testing.T, d string){
		"symlink": func(t *testing.T, d string) { replace(t, d, "e") },
		"file": func(t *testing.T, d string) {
			if err := os.Rename(d, d+".moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(d, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(base, "root")
			for _, d := range []string{"d", "e"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			j, err := New([]string{root})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			j.afterCheck = func() { swap(t, filepath.Join(root, "d")) }
			if err := j.WriteFile(filepath.Join(root, "d", "new", "f.txt"), []byte("x")); !errors.Is(err, ErrChanged) {
				t.Errorf("WriteFile = %v; want %v", err, ErrChanged)
			}
			if entries, err := os.ReadDir(filepath.Join(root, "e")); err != nil || len(entries) != 0 {
				t.Errorf("e holds %v, %v; want nothing", entries, err)
			}
		})
	}
}

// TestJailResolveLinkChanged: a symlink that is a directory again by the
// time it is read (an agent exchanging the two) is looked at again, not
// an error: the path resolves through the directory.
func TestJailResolveLinkChanged(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	d, link := filepath.Join(root, "d"), filepath.Join(root, "link")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("e", link); err != nil {
		t.Fatal(err)
	}
	j, err := New([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	beforeReadlink = func(string) {
		beforeReadlink = nil
		// What an exchange does: the link's name becomes the directory.
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(d, link); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { beforeReadlink = nil }()
	p := filepath.Join(link, "f.txt")
	if got, err := j.Resolve(p); err != nil || got != p {
		t.Errorf("Resolve(%s) = %q, %v; want it as it is", p, got, err)
	}
}
