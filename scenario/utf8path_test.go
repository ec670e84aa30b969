package scenario_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/acprun/acprun/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestLoadRefusesPathsNotUTF8: a scenario file whose path is not valid
// UTF-8 (a Latin-1 name, say), found by a directory walk or a glob or
// named, is an error naming it with the bad byte escaped, not a file
// loaded under a name the results would record with U+FFFD (which
// --rerun-failed then never matched), nor a file skipped in silence.
func TestLoadRefusesPathsNotUTF8(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	for i, f := range []string{"ok.yaml", "caf\xe9.yaml", "d\xe9j\xe0/a.yaml", "notes\xe9.txt"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		content := "name: s" + strconv.Itoa(i) + "\nagent: {command: [a]}\npermissions: {}\nturns: [{prompt: hi}]\n"
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const why = ": the path is not valid UTF-8, which results (JSON) cannot record: rename "
	for _, tt := range []struct {
		paths []string
		errs  []string
	}{
		{[]string{"."}, []string{`caf\xe9.yaml` + why + `caf\xe9.yaml`, `d\xe9j\xe0/a.yaml` + why + `d\xe9j\xe0`}},
		{[]string{"*.yaml"}, []string{`caf\xe9.yaml` + why + `caf\xe9.yaml`}},
		{[]string{"**/*.yaml"}, []string{`caf\xe9.yaml` + why + `caf\xe9.yaml`, `d\xe9j\xe0/a.yaml` + why + `d\xe9j\xe0`}},
		{[]string{"*"}, []string{`caf\xe9.yaml` + why + `caf\xe9.yaml`, `d\xe9j\xe0/a.yaml` + why + `d\xe9j\xe0`}},
		{[]string{"caf\xe9.yaml"}, []string{`caf\xe9.yaml` + why + `caf\xe9.yaml`}},
		{[]string{"ok.yaml", "*.txt"}, nil},
	} {
		_, _, err := scenario.Load(tt.paths, opts)
		if diff := cmp.Diff(tt.errs, errorLines(t, err)); diff != "" {
			t.Errorf("Load(%q) errors (-want +got):\n%s", tt.paths, diff)
		}
	}
}
