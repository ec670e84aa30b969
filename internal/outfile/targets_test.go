package outfile_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/outfile"
)

// TestIsStdout: "-" always; another name of stdout's file only when
// stdout is a file that is not a character device.
func TestIsStdout(t *testing.T) {
	dir := t.TempDir()
	redirected := filepath.Join(dir, "out.txt")
	f, err := os.Create(redirected)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(redirected, link); err != nil {
		t.Fatal(err)
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	tests := []struct {
		name   string
		stdout io.Writer
		path   string
		want   bool
	}{
		{"dash, a buffer", &bytes.Buffer{}, "-", true},
		{"a file, a buffer", &bytes.Buffer{}, redirected, false},
		{"the redirected file", f, redirected, true},
		{"a symlink to it", f, link, true},
		{"another file", f, filepath.Join(dir, "other"), false},
		{"/dev/null as stdout", devNull, os.DevNull, false},
	}
	for _, tt := range tests {
		if got := outfile.IsStdout(tt.stdout, tt.path); got != tt.want {
			t.Errorf("%s: IsStdout(%s) = %t, want %t", tt.name, tt.path, got, tt.want)
		}
	}
}

// TestCheckTargets: one file for two outputs is refused, through symlinks
// and relative paths too; devices take any number; stdout takes one.
func TestCheckTargets(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Symlink("results.json", "link.json"); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "results.json")
	tests := []struct {
		name    string
		targets []outfile.Target
		want    string
	}{
		{"none", nil, ""},
		{"distinct files", []outfile.Target{{"-o", "a.json"}, {"--junit", "a.xml"}, {"--events", "-"}}, ""},
		{"one file twice", []outfile.Target{{"-o", "results.json"}, {"--junit", abs}},
			"-o results.json and --junit " + abs + ": both write the same file; give each its own"},
		{"through a dangling symlink", []outfile.Target{{"-o", "link.json"}, {"--events", "./results.json"}},
			"-o link.json and --events ./results.json: both write the same file; give each its own"},
		{"a device twice", []outfile.Target{{"-o", os.DevNull}, {"--junit", os.DevNull}, {"--events", os.DevNull}}, ""},
		{"stdout twice", []outfile.Target{{"-o", "-"}, {"--junit", "x.xml"}, {"--events", "-"}},
			"-o - and --events -: only one output can go to stdout; give the others a file"},
	}
	for _, tt := range tests {
		err := outfile.CheckTargets(&bytes.Buffer{}, tt.targets)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: CheckTargets = %q, want %q", tt.name, got, tt.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("CheckTargets wrote files: %v", entries)
	}
}
