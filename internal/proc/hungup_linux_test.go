package proc_test

import (
	"os"
	"testing"

	process "github.com/acprun/acprun/internal/proc"
)

// TestPipeHungUp: a pipe is hung up once its last writer closed it, with
// or without bytes left to read, and not before; a closed read end is not.
func TestPipeHungUp(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if process.PipeHungUp(r) {
		t.Error("hung up while its writer is open")
	}
	if _, err := w.WriteString("left\n"); err != nil {
		t.Fatal(err)
	}
	if process.PipeHungUp(r) {
		t.Error("hung up with bytes to read and its writer open")
	}
	w.Close()
	if !process.PipeHungUp(r) {
		t.Error("not hung up once its writer closed, with bytes left to read")
	}
	if _, err := r.Read(make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if !process.PipeHungUp(r) {
		t.Error("not hung up once its writer closed and it was read")
	}
	r.Close()
	if process.PipeHungUp(r) {
		t.Error("hung up once its read end is closed")
	}
}
