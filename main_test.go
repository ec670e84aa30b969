package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/testkit"
)

// TestStdoutKeepsItsNames: acprun's stdout, a writer in front of the file
// it was given, is still known by that file's other names: -o naming the
// file stdout was redirected to is a second output on stdout beside
// --events -.
func TestStdoutKeepsItsNames(t *testing.T) {
	redirected := filepath.Join(t.TempDir(), "out.txt")
	f, err := os.Create(redirected)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stderr bytes.Buffer
	code := run([]string{"run", "s.yaml", "-o", redirected, "--events", "-"}, strings.NewReader(""), f, &stderr)
	want := "acprun: -o " + redirected + " and --events -: only one output can go to stdout; give the others a file\n"
	if code != exitUsage || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), exitUsage, want)
	}
}

// noticeWriter is a stderr that calls at when a line holding substr is
// written to it.
type noticeWriter struct {
	bytes.Buffer
	substr string
	at     func()
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.substr) {
		w.at()
	}
	return w.Buffer.Write(p)
}

// TestWriteFileGivesUpAFIFOAtTheInterrupt: an output FIFO without a reader
// is waited for, saying so on stderr, until the interrupt, and not at all
// once it has come; either way its error names the FIFO and exits as
// interrupted, where another failure to write exits 4.
func TestWriteFileGivesUpAFIFOAtTheInterrupt(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "r.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	target := outfile.Target{Flag: "-o", Path: fifo, What: "the results"}
	format := func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }
	waiting := "acprun: -o " + fifo + ": waiting for a reader of the FIFO (Ctrl-C gives up the results)\n"
	lost := "no reader on FIFO " + fifo + ": interrupted"

	ctx, interrupt := context.WithCancelCause(context.Background())
	stderr := &noticeWriter{substr: "waiting for a reader", at: func() { interrupt(errInterrupted) }}
	g := &globals{Stdout: &bytes.Buffer{}, Stderr: stderr}
	err := g.writeFile(ctx, g.Stderr, target, nil, true, termtext.JSONEscapes, format)
	if err == nil || err.Error() != lost || writeExit(err) != exitInterrupted || stderr.String() != waiting {
		t.Errorf("interrupted while waiting: %v (exit %d), stderr %q; want %q, exit %d, after %q", err, writeExit(err), stderr.String(), lost, exitInterrupted, waiting)
	}

	stderr.Reset()
	err = g.writeFile(ctx, g.Stderr, target, nil, true, termtext.JSONEscapes, format) // after the interrupt
	if err == nil || err.Error() != lost || writeExit(err) != exitInterrupted || stderr.Len() != 0 {
		t.Errorf("after the interrupt: %v (exit %d), stderr %q; want %q, exit %d, without waiting", err, writeExit(err), stderr.String(), lost, exitInterrupted)
	}

	err = g.writeFile(context.Background(), g.Stderr, outfile.Target{Flag: "-o", Path: t.TempDir()}, nil, true, termtext.JSONEscapes, format)
	if err == nil || writeExit(err) != exitOutput {
		t.Errorf("a directory: %v (exit %d); want exit %d", err, writeExit(err), exitOutput)
	}
}

// tempBytes is how many bytes the temporary files beside path hold.
func tempBytes(t *testing.T, path string) int64 {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp*"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestWriteFileStreamsAWholeOutputToAFile: an output that a failing
// format must not leave half-written (an HTML page, JUnit XML) still
// streams into the temporary file that replaces a regular file once
// format has succeeded, pinned or not: it is not made in memory first.
// A format that fails leaves the file as it was.
func TestWriteFileStreamsAWholeOutputToAFile(t *testing.T) {
	chunk := strings.Repeat("x", 256<<10)
	for _, pinned := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "r.html")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		var pin *outfile.Pinned
		if pinned {
			var err error
			if pin, err = outfile.Pin(t.Context(), path); err != nil {
				t.Fatal(err)
			}
		}
		g := &globals{Stdout: &bytes.Buffer{}, Stderr: io.Discard}
		target := outfile.Target{Flag: "--html", Path: path}
		var streamed int64
		err := g.writeFile(t.Context(), io.Discard, target, pin, true, termtext.MarkupEscapes, func(w io.Writer) error {
			if _, err := io.WriteString(w, chunk); err != nil {
				return err
			}
			streamed = tempBytes(t, path)
			_, err := io.WriteString(w, chunk)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if streamed == 0 {
			t.Errorf("pinned %v: nothing reached the file while the output was made: it was held in memory", pinned)
		}
		if data, _ := os.ReadFile(path); len(data) != 2*len(chunk) {
			t.Errorf("pinned %v: the file holds %d bytes; want %d", pinned, len(data), 2*len(chunk))
		}

		failed := errors.New("format failed")
		err = g.writeFile(t.Context(), io.Discard, target, pin, true, termtext.MarkupEscapes, func(w io.Writer) error {
			io.WriteString(w, chunk)
			return failed
		})
		if !errors.Is(err, failed) {
			t.Errorf("pinned %v: %v; want %v", pinned, err, failed)
		}
		if data, _ := os.ReadFile(path); len(data) != 2*len(chunk) || tempBytes(t, path) != 0 {
			t.Errorf("pinned %v: a failed format left the file with %d bytes and a temporary file; want it as it was", pinned, len(data))
		}
		pin.Close()
	}
}

// TestWriteFileWritesNothingOnStdoutWhenFormatFails: stdout, written in
// place, gets an output made whole in memory first: a format that fails
// writes nothing on it.
func TestWriteFileWritesNothingOnStdoutWhenFormatFails(t *testing.T) {
	var stdout bytes.Buffer
	g := &globals{Stdout: &stdout, Stderr: io.Discard}
	target := outfile.Target{Flag: "-o", Path: outfile.Stdout}
	failed := errors.New("format failed")
	err := g.writeFile(context.Background(), io.Discard, target, nil, true, termtext.MarkupEscapes, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("x", 256<<10))
		return failed
	})
	if !errors.Is(err, failed) || stdout.Len() != 0 {
		t.Errorf("%v, %d bytes on stdout; want %v and none", err, stdout.Len(), failed)
	}
	err = g.writeFile(context.Background(), io.Discard, target, nil, true, termtext.MarkupEscapes, func(w io.Writer) error {
		_, err := io.WriteString(w, "page")
		return err
	})
	if err != nil || stdout.String() != "page" {
		t.Errorf("%v, stdout %q; want page", err, stdout.String())
	}
}

// TestWriteFileGivesUpAnUnreadStdoutAtTheNextInterrupt: -o - on a pipe
// whose reader never reads, written after an interrupt that cut the run
// short, is waited for, not given up at once; the next interrupt gives
// up the rest, with an error of the interrupt that exits as interrupted.
// A write that waited for good would make the guard's minute pass.
func TestWriteFileGivesUpAnUnreadStdoutAtTheNextInterrupt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only on Linux is a stdout pipe's reader given up (outfile.ReopenPipe)")
	}
	g := &globals{Stdout: testkit.UnreadPipe(t), Stderr: io.Discard, next: make(chan struct{})}
	interrupt, cancel := context.WithCancelCause(context.Background())
	g.signalled(1) // the interrupt that cut the run short
	cancel(errInterrupted)
	final, stop := g.untilNextInterrupt(interrupt)
	defer stop()
	if final.Err() != nil {
		t.Fatal("the final outputs' context ended at the interrupt before it")
	}
	target := outfile.Target{Flag: "-o", Path: outfile.Stdout, What: "the results"}
	done := make(chan error, 1)
	go func() {
		done <- g.writeFile(final, g.Stderr, target, nil, false, termtext.JSONEscapes, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Repeat("x", 1<<20)) // more than a pipe holds
			return err
		})
	}()
	g.signalled(2)
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("-o - waited for its reader after the next interrupt")
	}
	if _, ok := errors.AsType[*outfile.UnreadError](err); !ok || writeExit(err) != exitInterrupted {
		t.Errorf("writeFile: %v (exit %d); want an *UnreadError of the interrupt, exit %d", err, writeExit(err), exitInterrupted)
	}
}

// TestThirdInterruptExits: the first of stopSignals cancels the command's
// context, the second closes abort, and the third calls exit (acprun then
// exits at once, whatever still holds it up); each is told to each first,
// in order.
func TestThirdInterruptExits(t *testing.T) {
	sigs := make(chan os.Signal)
	told := make(chan int)
	exited := make(chan struct{})
	ctx, abort, stop := onInterrupts(sigs, func(n int) { told <- n }, func() { close(exited) })
	defer stop()
	for n, sig := range []os.Signal{syscall.SIGHUP, os.Interrupt, syscall.SIGTERM} {
		sigs <- sig
		if got := <-told; got != n+1 {
			t.Fatalf("signal %d told as %d", n+1, got)
		}
		switch n + 1 {
		case 1:
			<-ctx.Done()
			if context.Cause(ctx) != errInterrupted {
				t.Errorf("the first signal: cause %v; want %v", context.Cause(ctx), errInterrupted)
			}
		case 2:
			<-abort
		case 3:
			select {
			case <-exited:
			case <-time.After(time.Minute):
				t.Fatal("the third signal did not exit")
			}
		}
	}
}

// TestIgnoredStopSignalsAreNotCaught: a stop signal that acprun was
// started with ignored (nohup's SIGHUP) is not caught, so it stays
// ignored; the others are.
func TestIgnoredStopSignalsAreNotCaught(t *testing.T) {
	got := caught(stopSignals, func(s os.Signal) bool { return s == syscall.SIGHUP })
	if want := []os.Signal{os.Interrupt, syscall.SIGTERM}; !slices.Equal(got, want) {
		t.Errorf("caught %v; want %v", got, want)
	}
	if got := caught(stopSignals, func(os.Signal) bool { return false }); !slices.Equal(got, stopSignals) {
		t.Errorf("none ignored: caught %v; want %v", got, stopSignals)
	}
}

// TestCommandExitRedactsTheEnvironment: a command's error, with an exit
// code of its own or not, is printed with the values of the
// environment's secret-looking variables redacted.
func TestCommandExitRedactsTheEnvironment(t *testing.T) {
	const secret = "supersecretvalue123"
	t.Setenv("MY_API_TOKEN", secret)
	for _, c := range []struct {
		err  error
		code int
	}{
		{exitError{code: exitUsage, err: errors.New("--junit /proc/" + secret + ".xml: no such file or directory")}, exitUsage},
		{errors.New("write /tmp/" + secret + ": no space left on device"), exitOutput},
	} {
		var b bytes.Buffer
		if code := commandExit(&globals{}, c.err, &b); code != c.code || strings.Contains(b.String(), secret) || !strings.Contains(b.String(), "[REDACTED]") {
			t.Errorf("commandExit(%v) = %d, printed %q; want %d, the secret redacted", c.err, code, b.String(), c.code)
		}
	}
}
