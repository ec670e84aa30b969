package outfile_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/outfile"
)

// TestRealPath: a path is taken as the OS resolves it once its missing
// directories are made, never cleaned lexically: ".." after a symlink
// leads to the parent of the link's target, and after a directory not
// made yet back to where it would be.
func TestRealPath(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, d := range []string{"real/sub", "other"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"link":          "real/sub",           // a directory
		"abs":           dir + "/other",       // an absolute one
		"file.json":     "real/r.json",        // a file's
		"real/sub/up":   "../../other/u.json", // relative to its own directory
		"other/viaLink": "../link/../v.json",  // through a directory's link
		"dangling.json": "gone/d.json",        // to a file not made yet
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ path, want string }{
		{"r.json", dir + "/r.json"},
		{"./a/../r.json", dir + "/r.json"},
		{"nodir/../r.json", dir + "/r.json"},
		{"nodir/deeper/../../r.json", dir + "/r.json"},
		{"link/../r.json", dir + "/real/r.json"},
		{"link/r.json", dir + "/real/sub/r.json"},
		{"nodir/../link/../r.json", dir + "/real/r.json"},
		{"abs/../r.json", dir + "/r.json"},
		{"file.json", dir + "/real/r.json"},
		{"real/sub/up", dir + "/other/u.json"},
		{"link/up", dir + "/other/u.json"},
		{"other/viaLink", dir + "/real/v.json"},
		{"dangling.json", dir + "/gone/d.json"},
		{dir + "/link/../r.json", dir + "/real/r.json"},
	}
	for _, tt := range tests {
		got, err := outfile.RealPath(tt.path)
		if err != nil || got != tt.want {
			t.Errorf("RealPath(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if _, err := outfile.RealPath(""); err != outfile.ErrEmptyPath {
		t.Errorf("RealPath(\"\") = %v; want ErrEmptyPath", err)
	}
}

// TestWriteThroughDotDot: a path through a directory that does not exist
// and "..", or through a symlink and "..", is checked, pinned and written
// where the OS resolves it, the same file every time: a file already
// there is found by the check as by the write (the check no longer passes
// a path the write then cannot open).
func TestWriteThroughDotDot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll("real/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real/sub", "link"); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, file string }{
		{"nodir/../r.json", "r.json"},
		{"link/../r.json", "real/r.json"},
	}
	for _, tt := range tests {
		for run := range 2 { // the second time the file exists
			os.RemoveAll("nodir")
			if err := outfile.Check(t.Context(), tt.path); err != nil {
				t.Errorf("run %d: Check(%q) = %v", run, tt.path, err)
			}
			os.RemoveAll("nodir")
			pin, err := outfile.Pin(t.Context(), tt.path)
			if err != nil {
				t.Fatalf("run %d: Pin(%q) = %v", run, tt.path, err)
			}
			want := tt.path + " " + string(rune('a'+run))
			err = pin.WriteFrom(context.Background(), func(w io.Writer) error { _, err := w.Write([]byte(want)); return err })
			pin.Close()
			if err != nil {
				t.Errorf("run %d: Pinned(%q).WriteFrom = %v", run, tt.path, err)
			}
			if got := read(t, tt.file); got != want {
				t.Errorf("run %d: %s holds %q; want %q", run, tt.file, got, want)
			}
			os.RemoveAll("nodir")
			want += " again"
			if err := outfile.Write(context.Background(), tt.path, []byte(want)); err != nil {
				t.Errorf("run %d: Write(%q) = %v", run, tt.path, err)
			}
			if got := read(t, tt.file); got != want {
				t.Errorf("run %d: %s holds %q after Write; want %q", run, tt.file, got, want)
			}
		}
	}
	for _, p := range []string{"dir/", "nodir/..", "."} {
		if err := outfile.Check(t.Context(), p); err == nil {
			t.Errorf("Check(%q) = nil; want an error: it names a directory", p)
		}
	}
}
