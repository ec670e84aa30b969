package testkit

import (
	"bytes"
	"sync"
)

// BlockedWriter is the writer of a reader that does not read: each Write
// waits until Release is closed. Started is closed when the first one
// begins; Writes counts them, and Buf holds what they wrote.
type BlockedWriter struct {
	Started, Release chan struct{}
	Writes           int
	Buf              bytes.Buffer
	once             sync.Once
}

// NewBlockedWriter returns a BlockedWriter that no Write has begun on.
func NewBlockedWriter() *BlockedWriter {
	return &BlockedWriter{Started: make(chan struct{}), Release: make(chan struct{})}
}

func (w *BlockedWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.Started) })
	<-w.Release
	w.Writes++
	return w.Buf.Write(p)
}
