package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopySwapped: a directory or file of the source swapped for a
// symlink (out of the source, or to another file in it) once the copy has
// looked at it and before it copies it (an agent writing in the source
// while it is copied) fails the copy: what the link leads to is never
// copied. It sets the package's copying hook, which every copy reads: it
// runs alone (not in parallel), before the parallel tests start.
func TestCopySwapped(t *testing.T) {
	for _, tc := range []struct {
		name, swap string // the path swapped, relative to the source
		to         func(src, outside string) string
	}{
		{"directory out", "sub", func(_, outside string) string { return outside }},
		{"file out", "sub/a.txt", func(_, outside string) string { return filepath.Join(outside, "id_rsa") }},
		{"file to another", "sub/a.txt", func(src, _ string) string { return filepath.Join(src, "b.txt") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, outside, dst := t.TempDir(), t.TempDir(), t.TempDir()
			for p, data := range map[string]string{
				filepath.Join(src, "sub", "a.txt"): "a\n", filepath.Join(src, "b.txt"): "other\n",
				filepath.Join(outside, "id_rsa"): "SECRET\n", filepath.Join(outside, "a.txt"): "SECRET\n",
			} {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			copying = func(rel string) {
				if rel == tc.swap {
					p := filepath.Join(src, filepath.FromSlash(rel))
					if err := os.Rename(p, p+".moved"); err != nil {
						t.Error(err)
					}
					if err := os.Symlink(tc.to(src, outside), p); err != nil {
						t.Error(err)
					}
				}
			}
			defer func() { copying = nil }()
			if _, _, err := copyTree(t.Context(), src, src, dst); err == nil {
				t.Error("the copy of a source swapped while it was copied succeeded")
			}
			filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					if data, _ := os.ReadFile(p); strings.Contains(string(data), "SECRET") {
						t.Errorf("%s: the copy holds what the link leads to", p)
					}
				}
				return nil
			})
			if data, _ := os.ReadFile(filepath.Join(dst, "sub", "a.txt")); string(data) == "other\n" {
				t.Error("sub/a.txt of the copy holds the file its link leads to")
			}
		})
	}
}
