package testkit

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// FIFO makes a named pipe through which the test and a command it starts
// exchange lines, and returns its path, a function that reads a line
// (trimmed; failing the test after Failsafe) and one that writes a line.
// The test holds the pipe open to read and write, so a command's open
// never blocks and a read waits for the command's line, never for an end.
func FIFO(t testing.TB) (path string, read func() string, write func(string)) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r := bufio.NewReader(f)
	read = func() string {
		t.Helper()
		if err := f.SetReadDeadline(time.Now().Add(Failsafe)); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read a line from %s: %v", filepath.Base(path), err)
		}
		return strings.TrimSpace(line)
	}
	write = func(line string) {
		t.Helper()
		if _, err := f.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	return path, read, write
}
