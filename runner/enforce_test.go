package runner

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMergeSettings: the project settings are merged into the file there
// is (made when missing); a file that is not a regular one (a FIFO, a
// link to /dev/zero), too large or not a JSON object is an error said
// without its path, and is left as it was.
func TestMergeSettings(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	if err := syscall.Mkfifo(path("fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", path("zero.json")); err != nil {
		t.Fatal(err)
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
	for _, tt := range []struct{ name, wantErr, wantFile string }{
		{"new/settings.json", "", "{\n  \"ask\": [\n    \"Edit\"\n  ]\n}\n"},
		{"have.json", "", "{\n  \"ask\": [\n    \"Bash\",\n    \"Edit\"\n  ],\n  \"model\": \"x\"\n}\n"},
		{"fifo.json", "not a regular file (a FIFO): give a file", ""},
		{"zero.json", "not a regular file (a character device): give a file", ""},
		{"huge.json", "larger than 4 MiB, the most acprun reads of it", ""},
		{"list.json", "not a JSON object, so the settings could not be added to it: json: cannot unmarshal array into Go value of type map[string]interface {}", "[1]"},
	} {
		got := ""
		if err := mergeSettings(path(tt.name), add); err != nil {
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
}
