package testkit

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/outfile"
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

// TempsOf returns a context, already ended, whose outfile.WithTemps hooks
// fail the test when told to keep a file that is there already (they must
// be told before the file is made) or to forget one that is still there,
// and check, to call once path is written with it: check fails the test
// unless the hooks were told to keep one temporary file, beside path and
// named after it, that is gone now, and to forget it since.
func TempsOf(t testing.TB, path string) (ctx context.Context, check func()) {
	var temps, forgotten []string
	ctx, cancel := context.WithCancel(outfile.WithTemps(t.Context(), func(tmp string) {
		if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("told of %s once it was there (%v)", tmp, err)
		}
		temps = append(temps, tmp)
	}, func(tmp string) {
		if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("told to forget %s while it is there (%v)", tmp, err)
		}
		forgotten = append(forgotten, tmp)
	}))
	cancel()
	return ctx, func() {
		t.Helper()
		dir, base := filepath.Split(path)
		if len(temps) != 1 || filepath.Dir(temps[0]) != filepath.Clean(dir) || !strings.HasPrefix(filepath.Base(temps[0]), "."+base+".tmp") {
			t.Fatalf("told of %q, want one .%s.tmp* in %s", temps, base, dir)
		}
		if _, err := os.Lstat(temps[0]); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is there once written (%v)", temps[0], err)
		}
		if len(forgotten) != 1 || forgotten[0] != temps[0] {
			t.Errorf("told to forget %q; want %s, the one written", forgotten, temps[0])
		}
	}
}
