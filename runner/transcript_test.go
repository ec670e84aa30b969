package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
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

// TestTranscriptNotWritten: a transcript that cannot be made, or whose
// file goes while it is written, is a warning that names the file, and is
// recorded as lost (the run exits 4); one written whole is neither. A
// FIFO given up for want of a reader is only a warning.
func TestTranscriptNotWritten(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := &Options{Transcripts: dir}
	var res report.Result
	_, err := newTranscript(context.Background(), opts, "d.jsonl", redact.New())
	if err == nil {
		t.Fatal("a transcript where a directory is: no error")
	}
	lost(&res, err, "the transcript")
	path := filepath.Join(dir, "d.jsonl")
	want := []string{"open " + path + ": is a directory; the transcript was not written"}
	if diff := cmp.Diff(want, res.LostTranscripts); diff != "" {
		t.Errorf("lost transcripts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"transcript: open " + path + ": is a directory"}, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	res = report.Result{}
	kept, err := newTranscript(context.Background(), opts, "kept.jsonl", redact.New())
	if err != nil {
		t.Fatal(err)
	}
	gone, err := newTranscript(context.Background(), opts, "gone.jsonl", redact.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*transcript{kept, gone} {
		tr.tap(acp.Sent, []byte(`{"jsonrpc":"2.0","method":"x"}`), time.Now())
	}
	if err := os.Remove(filepath.Join(dir, "gone.jsonl")); err != nil {
		t.Fatal(err)
	}
	incomplete(&res, kept, "the transcript")
	incomplete(&res, gone, "the transcript of the judge")
	want = []string{"write " + filepath.Join(dir, "gone.jsonl") + ": the file was removed while it was written; the transcript of the judge was lost"}
	if diff := cmp.Diff(want, res.LostTranscripts); diff != "" {
		t.Errorf("lost transcripts (-want +got):\n%s", diff)
	}

	res = report.Result{}
	lost(&res, &outfile.NoReaderError{Path: path, Cause: errors.New("interrupted")}, "the transcript")
	if len(res.LostTranscripts) != 0 || len(res.Warnings) != 1 {
		t.Errorf("a FIFO given up: lost %q, warnings %q; want one warning only", res.LostTranscripts, res.Warnings)
	}
}
