package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles writes files (slash path relative to dir → content) under
// dir, making their directories, and fails the test when it cannot.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
