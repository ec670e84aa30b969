package runner

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMergeSettings: the project settings are merged into the file there
// is (made when missing); a file that is not a regular one (a FIFO), too
// large or not a JSON object is an error said without its path, and is
// left as it was; a symbolic link out of the copy (to /dev/zero, to a
// file or a directory of the user's, to a file not there yet) is an
// error, and nothing outside is read, changed or made.
func TestMergeSettings(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	if err := syscall.Mkfifo(path("fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", path("zero.json")); err != nil {
		t.Fatal(err)
	}
	// Links out of the copy: to a JSON file, to a directory, and to a
	// file that is not there yet.
	outside := t.TempDir()
	outsideFile := filepath.Join(outside, "target.json")
	if err := os.WriteFile(outsideFile, []byte(`{"keep": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out.json": outsideFile, "outdir": outside, "dangling.json": filepath.Join(outside, "new.json")} {
		if err := os.Symlink(target, path(link)); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"have.json": `{"ask": ["Bash"], "model": "x"}`, "list.json": "[1]", "huge.json": ""} {
		if err := os.WriteFile(path(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Truncate(path("huge.json"), maxSettingsBytes+1); err != nil { // sparse
		t.Fatal(err)
	}
	const add = `{"ask": ["Edit"]}`
	const escapes = "a symbolic link leads out of the workspace copy, and acprun does not follow it: remove the link from the workspace's source"
	for _, tt := range []struct{ name, wantErr, wantFile string }{
		{"new/settings.json", "", "{\n  \"ask\": [\n    \"Edit\"\n  ]\n}\n"},
		{"have.json", "", "{\n  \"ask\": [\n    \"Bash\",\n    \"Edit\"\n  ],\n  \"model\": \"x\"\n}\n"},
		{"fifo.json", "not a regular file (a FIFO): give a file", ""},
		{"zero.json", escapes, ""},
		{"out.json", escapes, ""},
		{"outdir/settings.json", escapes, ""},
		{"outdir/new/settings.json", escapes, ""},
		{"dangling.json", escapes, ""},
		{"huge.json", "larger than 4 MiB, the most acprun reads of it", ""},
		{"list.json", "not a JSON object, so the settings could not be added to it: json: cannot unmarshal array into Go value of type map[string]interface {}", "[1]"},
	} {
		got := ""
		if err := mergeSettings(dir, tt.name, add); err != nil {
			got = err.Error()
		}
		if got != tt.wantErr {
			t.Errorf("%s: mergeSettings = %q, want %q", tt.name, got, tt.wantErr)
		}
		if tt.wantFile == "" {
			continue
		}
		if data, _ := os.ReadFile(path(tt.name)); string(data) != tt.wantFile {
			t.Errorf("%s: the file holds %q, want %q", tt.name, data, tt.wantFile)
		}
	}
	if data, _ := os.ReadFile(outsideFile); string(data) != `{"keep": true}` {
		t.Errorf("the file outside the copy was changed: %q", data)
	}
	if left, _ := os.ReadDir(outside); len(left) != 1 {
		t.Errorf("files were made outside the copy: %v", left)
	}
}
