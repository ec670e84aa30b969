package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/workspace"
	"github.com/google/go-cmp/cmp"
)

// huge is the size of the sparse files the agent makes below: reading one
// would take hours.
const huge = 1 << 40

// TestChangesDoNotReadWhatTheSizeTells: a file the agent created, or made
// a size its baseline did not have, is a change whatever it holds: it is
// never read, however big the agent made it.
func TestChangesDoNotReadWhatTheSizeTells(t *testing.T) {
	src := filepath.Join(tempDir(t), "src")
	write(t, filepath.Join(src, "grown.txt"), "small\n", 0o644)
	write(t, filepath.Join(src, "same.txt"), "same\n", 0o644)
	write(t, filepath.Join(src, "sameSize.txt"), "aaaa\n", 0o644)
	w := create(t, workspace.Spec{From: src}, tempDir(t))
	must(t, os.Truncate(filepath.Join(w.Dir, "grown.txt"), huge))
	write(t, filepath.Join(w.Dir, "big.bin"), "", 0o644)
	must(t, os.Truncate(filepath.Join(w.Dir, "big.bin"), huge))
	write(t, filepath.Join(w.Dir, "sameSize.txt"), "bbbb\n", 0o644)

	want := changes{Created: []string{"big.bin"}, Modified: []string{"grown.txt", "sameSize.txt"}, Deleted: []string{}}
	if diff := cmp.Diff(want, changesOf(t, w)); diff != "" {
		t.Errorf("Changes() (-want +got):\n%s", diff)
	}
}

// TestChangesStopAtCancel: a cancelled listing says so; its changes are
// unknown, not none, and so are the source repository's.
func TestChangesStopAtCancel(t *testing.T) {
	repo, _, _ := newRepo(t)
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	write(t, filepath.Join(w.Dir, "new.txt"), "n\n", 0o644)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, _, err := w.Changes(ctx); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("Changes(cancelled) = %v; want it stopped by the cancel", err)
	}
	if _, err := w.RepoChanges(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("RepoChanges(cancelled) = %v; want it stopped by the cancel", err)
	}
}

// TestChangesHashStopsAtCancel: the cancel reaches the hashing of a file
// the baseline read, which is as long as the baseline made it.
func TestChangesHashStopsAtCancel(t *testing.T) {
	src := filepath.Join(tempDir(t), "src")
	write(t, filepath.Join(src, "a.txt"), "a\n", 0o644)
	w := create(t, workspace.Spec{From: src}, tempDir(t))
	// Setup makes a big file; the agent rewrites its last byte.
	big := filepath.Join(w.Dir, "data.bin")
	write(t, big, "", 0o644)
	must(t, os.Truncate(big, 64<<20))
	must(t, w.Snapshot(t.Context()))
	f, err := os.OpenFile(big, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt([]byte{1}, 64<<20-1)
	must(t, err)
	must(t, f.Close())
	// The walk looks at its context once per entry (the root, a.txt,
	// data.bin), the hashing once per chunk (a.txt has one) and once after
	// it: this one ends after data.bin's first chunk, the last look left.
	ctx := &endingCtx{Context: t.Context(), left: 6}
	if _, _, _, err := w.Changes(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Changes() cancelled while hashing = %v; want it stopped by the cancel", err)
	}
	if got := changesOf(t, w); !cmp.Equal(got, changes{Created: []string{}, Modified: []string{"data.bin"}, Deleted: []string{}}) {
		t.Errorf("Changes() = %+v; want data.bin modified", got)
	}
}

// endingCtx is a context whose Err is nil for its first left calls, then
// context.Canceled.
type endingCtx struct {
	context.Context
	left int
}

func (c *endingCtx) Err() error {
	if c.left > 0 {
		c.left--
		return nil
	}
	return context.Canceled
}
