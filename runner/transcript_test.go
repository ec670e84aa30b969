package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/redact"
)

// TestTranscriptFIFOWithoutReader: a FIFO at a transcript's place that no
// process reads is waited for until the run's context ends, and not at
// all once it has: an interrupt never leaves a scenario stuck opening it.
// A regular file there is created as before.
func TestTranscriptFIFOWithoutReader(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "s.jsonl"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	opts := &Options{Transcripts: dir}
	interrupted := errors.New("interrupted")
	var nr *outfile.NoReaderError

	ctx, cancel := context.WithCancelCause(context.Background())
	waited := false
	wctx := outfile.WithWaitNotice(ctx, func(string) { waited = true; cancel(interrupted) })
	if _, err := newTranscript(wctx, opts, "s.jsonl", redact.New()); !waited || !errors.As(err, &nr) || !errors.Is(err, interrupted) {
		t.Errorf("interrupted while waiting: waited %t, %v; want a NoReaderError caused by the interrupt", waited, err)
	}
	waited = false
	if _, err := newTranscript(wctx, opts, "s.jsonl", redact.New()); waited || !errors.As(err, &nr) || nr.Path != filepath.Join(dir, "s.jsonl") {
		t.Errorf("after the interrupt: waited %t, %v; want a NoReaderError for s.jsonl at once", waited, err)
	}

	tr, err := newTranscript(context.Background(), opts, "r.jsonl", redact.New())
	if err != nil {
		t.Fatalf("a new transcript: %v", err)
	}
	tr.close()
	if fi, err := os.Lstat(filepath.Join(dir, "r.jsonl")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("r.jsonl: %v, %v; want a regular file", fi, err)
	}
}
