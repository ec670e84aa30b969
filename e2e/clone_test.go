package e2e_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSchemaTestsNeedNothingBesideTheModule runs the tests that validate
// against the official ACP schema and the recorded transcripts in a copy of
// the module's files that has nothing beside it, as a user's clone has: what
// they read must be in the module, not in a parent folder.
func TestSchemaTestsNeedNothingBesideTheModule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the schema tests of a copy of the module")
	}
	clone := filepath.Join(t.TempDir(), "acprun")
	for _, name := range []string{"go.mod", "go.sum", "acp", filepath.Join("internal", "acpschema"), filepath.Join("internal", "raceexit")} {
		copyTree(t, filepath.Join(root, name), filepath.Join(clone, name))
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "Schema|Transcript|Validate", "./internal/acpschema/", "./acp/")
	cmd.Dir = clone
	// -trimpath: the copy's packages compile to what the build cache has
	// from the last run, wherever the copy is.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly -buildvcs=false -trimpath")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test in a copy of the module with nothing beside it: %v\n%s", err, out)
	}
}

// copyTree copies the regular file or the directory tree src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
