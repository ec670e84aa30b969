package workspace_test

import (
	"context"
	"errors"
	"fmt"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestGitDiffLeavesOutWhatItCannotAfford: git reads all of a file to diff
// it, so the files the agent made a size the baseline did not have are
// given to git smallest first, within a read budget: one it made huge,
// created or tracked, is left out of the diff (the run would wait hours
// for git to read it), which says so in its first line; the changes still
// list it. A file the baseline had at that size is diffed whatever its size.
func TestGitDiffLeavesOutWhatItCannotAfford(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	// Setup: a file as big as the budget; the agent rewrites a byte of it.
	setupBig := filepath.Join(w.Dir, "setup.bin")
	write(t, setupBig, "", 0o644)
	must(t, os.Truncate(setupBig, workspace.DiffReadBudget))
	must(t, w.Snapshot(t.Context()))
	f, err := os.OpenFile(setupBig, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt([]byte{1}, 0)
	must(t, err)
	must(t, f.Close())
	// The agent.
	const gib = 1 << 30
	for name, size := range map[string]int64{
		"b.txt":   4 * gib, // tracked
		"big.bin": 4 * gib, // created
		// Each takes more than half of the budget: the first by path
		// goes in, the other is left out.
		"m1.bin": workspace.DiffReadBudget/2 + 1,
		"m2.bin": workspace.DiffReadBudget/2 + 1,
	} {
		p := filepath.Join(w.Dir, name)
		if _, err := os.Stat(p); err != nil {
			write(t, p, "", 0o644)
		}
		must(t, os.Truncate(p, size))
	}
	write(t, filepath.Join(w.Dir, "a.txt"), "two\nthree\n", 0o644)
	write(t, filepath.Join(w.Dir, "new.txt"), "new\n", 0o644)

	diff, total, truncated, err := w.Diff(t.Context(), 0)
	if err != nil {
		t.Fatalf("Diff() = %v", err)
	}
	if total != len(diff) || truncated {
		t.Errorf("Diff() total, truncated = %d, %v; want %d, false", total, truncated, len(diff))
	}
	first, rest, _ := strings.Cut(diff, "\n")
	wantFirst := fmt.Sprintf("acprun: left out of this diff, as git reads at most %d MiB of the files whose size changed, smallest first (the changes list them): "+
		`"b.txt" (%d bytes), "big.bin" (%d bytes), "m2.bin" (%d bytes)`, workspace.DiffReadBudget>>20, 4*gib, 4*gib, workspace.DiffReadBudget/2+1)
	if first != wantFirst {
		t.Errorf("Diff()'s first line = %q; want %q", first, wantFirst)
	}
	var files []string
	for _, l := range strings.Split(rest, "\n") {
		if name, ok := strings.CutPrefix(l, "diff --git a/"); ok {
			files = append(files, strings.Fields(name)[0])
		}
	}
	if d := cmp.Diff([]string{"a.txt", "m1.bin", "new.txt", "setup.bin"}, files); d != "" {
		t.Errorf("files in Diff() (-want +got):\n%s", d)
	}
	want := changes{Created: []string{"big.bin", "m1.bin", "m2.bin", "new.txt"}, Modified: []string{"a.txt", "b.txt", "setup.bin"}, Deleted: []string{}}
	if d := cmp.Diff(want, changesOf(t, w)); d != "" {
		t.Errorf("Changes() (-want +got):\n%s", d)
	}
}

// TestGitDiffLeftOutNote: the note names the first files left out by
// path, quoted so that no name ends its line, and counts the rest.
func TestGitDiffLeftOutNote(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	names := []string{"e\ndiff --git a/x b/x"}
	for i := range 12 {
		names = append(names, fmt.Sprintf("f%02d", i))
	}
	for i, name := range names {
		p := filepath.Join(w.Dir, name)
		write(t, p, "", 0o644)
		size := int64(workspace.DiffReadBudget/2 + 1)
		if i == 0 {
			size++ // the biggest: it is left out, as all the f's but f00
		}
		must(t, os.Truncate(p, size))
	}
	diff, _, _, err := w.Diff(t.Context(), 0)
	must(t, err)
	var named []string
	for i := range 10 {
		named = append(named, fmt.Sprintf("%q (%d bytes)", names[i+1], workspace.DiffReadBudget/2+1))
	}
	named[0] = fmt.Sprintf(`"e\ndiff --git a/x b/x" (%d bytes)`, workspace.DiffReadBudget/2+2)
	first, rest, _ := strings.Cut(diff, "\n")
	if want := ": " + strings.Join(named, ", ") + ", and 2 more"; !strings.HasPrefix(first, "acprun: left out of this diff") || !strings.HasSuffix(first, want) {
		t.Errorf("Diff()'s first line = %q; want it to end with %q", first, want)
	}
	if !strings.HasPrefix(rest, "diff --git a/f00 b/f00\n") || strings.Count(rest, "diff --git") != 1 {
		t.Errorf("Diff() after its note = %q; want the diff of f00 alone", rest)
	}
}
