//go:build linux

package proc_test

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/proc"
)

// TestExiting: a write to the input of a process refused (EPIPE) tells a
// process that closed its input and lives on (not exiting) from one that
// exited, whenever the write comes.
func TestExiting(t *testing.T) {
	for _, tt := range []struct {
		line    string
		exiting bool
	}{
		{"exec 0<&- sleep 1000", false},
		{"read -r x; exit 3", true},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		p := start(t, proc.Config{Args: sh(tt.line), Stdin: r})
		for { // until the process's end of the pipe is closed
			if _, err := w.Write([]byte("\n")); errors.Is(err, syscall.EPIPE) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		if got := p.Exiting(); got != tt.exiting {
			t.Errorf("%s: Exiting() = %v once its input refused writes; want %v", tt.line, got, tt.exiting)
		}
		p.Kill()
		await(t, p.Exited(), tt.line)
		if !p.Exiting() {
			t.Errorf("%s: Exiting() = false once it exited", tt.line)
		}
	}
}
