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
		{"distinct files", []outfile.Target{{Flag: "-o", Path: "a.json"}, {Flag: "--junit", Path: "a.xml"}, {Flag: "--events", Path: "-"}}, ""},
		{"one file twice", []outfile.Target{{Flag: "-o", Path: "results.json"}, {Flag: "--junit", Path: abs}},
			"-o results.json and --junit " + abs + ": both write the same file; give each its own"},
		{"through a dangling symlink", []outfile.Target{{Flag: "-o", Path: "link.json"}, {Flag: "--events", Path: "./results.json"}},
			"-o link.json and --events ./results.json: both write the same file; give each its own"},
		{"a device twice", []outfile.Target{{Flag: "-o", Path: os.DevNull}, {Flag: "--junit", Path: os.DevNull}, {Flag: "--events", Path: os.DevNull}}, ""},
		{"stdout twice", []outfile.Target{{Flag: "-o", Path: "-"}, {Flag: "--junit", Path: "x.xml"}, {Flag: "--events", Path: "-"}},
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

// TestCheckInputs: an output that is an input, by its path, a symlink or a
// hard link, is refused, naming the flag and what the input is; new
// files, other files, devices and stdout are not. Replaces tells the same.
func TestCheckInputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"s.yaml", "other.json"} {
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("s.yaml", "link.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link("s.yaml", "hard.yaml"); err != nil {
		t.Fatal(err)
	}
	inputs := []outfile.Input{{Path: "", What: "nothing"}, {Path: os.DevNull, What: "a device"}, {Path: "./s.yaml", What: "a scenario file of this run"}}
	tests := []struct {
		name   string
		target outfile.Target
		want   string
	}{
		{"a new file", outfile.Target{Flag: "-o", Path: "r.json"}, ""},
		{"another file", outfile.Target{Flag: "-o", Path: "other.json"}, ""},
		{"stdout", outfile.Target{Flag: "-o", Path: "-"}, ""},
		{"a device", outfile.Target{Flag: "-o", Path: os.DevNull}, ""},
		{"the input", outfile.Target{Flag: "-o", Path: "s.yaml", What: "the results"},
			"-o s.yaml: it is a scenario file of this run; give the results another file"},
		{"through a symlink", outfile.Target{Flag: "--junit", Path: "link.yaml", What: "the JUnit report"},
			"--junit link.yaml: it is a scenario file of this run; give the JUnit report another file"},
		{"a hard link", outfile.Target{Flag: "--events", Path: filepath.Join(dir, "hard.yaml")},
			"--events " + filepath.Join(dir, "hard.yaml") + ": it is a scenario file of this run; give the output another file"},
	}
	for _, tt := range tests {
		err := outfile.CheckInputs(&bytes.Buffer{}, []outfile.Target{tt.target}, inputs)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: CheckInputs = %q, want %q", tt.name, got, tt.want)
		}
		// Replaces says the same of one input (run -o and --rerun-failed).
		if got := outfile.Replaces(&bytes.Buffer{}, tt.target.Path, inputs[2]); got != (tt.want != "") {
			t.Errorf("%s: Replaces = %v, want %v", tt.name, got, tt.want != "")
		}
	}
	if outfile.Replaces(&bytes.Buffer{}, "s.yaml", outfile.Input{}) || outfile.Replaces(&bytes.Buffer{}, "", outfile.Input{Path: "s.yaml"}) {
		t.Error("Replaces: an empty path is said to be replaced")
	}
	if data, err := os.ReadFile("s.yaml"); err != nil || string(data) != "x" {
		t.Errorf("s.yaml = %q, %v; want it left alone", data, err)
	}
}

// TestCheckInputsWritten: an input the command writes too (a session state
// file) is refused as an output by the path it will have, before it
// exists, as once it does; a device in its place is no input's.
func TestCheckInputsWritten(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("real", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", "link"); err != nil {
		t.Fatal(err)
	}
	inputs := []outfile.Input{{Path: filepath.Join(dir, "real", ".acprun", "state.json"), What: `the session state file of scenario "n"`, Output: true}}
	tests := []struct {
		name, path, want string
	}{
		{"not made yet", "real/.acprun/state.json", `-o real/.acprun/state.json: it is the session state file of scenario "n"; give the results another file`},
		{"through a symlink and ..", "link/../real/.acprun/state.json", `-o link/../real/.acprun/state.json: it is the session state file of scenario "n"; give the results another file`},
		{"beside it", "real/.acprun/other.json", ""},
	}
	for _, tt := range tests {
		err := outfile.CheckInputs(&bytes.Buffer{}, []outfile.Target{{Flag: "-o", Path: tt.path, What: "the results"}}, inputs)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: CheckInputs = %q, want %q", tt.name, got, tt.want)
		}
	}
	if _, err := os.Stat("real/.acprun"); err == nil {
		t.Errorf("CheckInputs made the state file's directory")
	}
}
