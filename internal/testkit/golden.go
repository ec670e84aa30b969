package testkit

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test binary that imports testkit.
var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Golden compares got with the golden file at path byte for byte and
// fails the test with their difference; with -update it writes got to
// path instead, for the change to be reviewed in the diff.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		WriteFiles(t, filepath.Dir(path), map[string]string{filepath.Base(path): string(got)})
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file; -update rewrites it if the change is intended (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}
