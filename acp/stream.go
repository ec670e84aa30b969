package acp

import (
	"io"
	"sync"
	"syscall"
)

// stream is the incoming stream a Conn reads, counted: n is how many bytes
// were read from it. When r is a pipe (an *os.File whose descriptor says
// how many bytes wait in it, FIONREAD, and is read without blocking, as
// os.Pipe's are) it is read through its descriptor, with mu held for each
// read, so that written can take the bytes read and those still waiting at
// one instant: none is in neither count, however the reads are scheduled.
type stream struct {
	r  io.Reader
	rc syscall.RawConn // r's descriptor, read through it; nil: r is read as it is
	mu sync.Mutex      // guards n; held for each read through rc
	n  int64
}

// newStream returns the stream of r (see pipeConn).
func newStream(r io.Reader) *stream {
	return &stream{r: r, rc: pipeConn(r)}
}

// Read reads from the stream and counts what it read.
func (s *stream) Read(p []byte) (int, error) {
	if s.rc != nil {
		return s.readPipe(p)
	}
	n, err := s.r.Read(p)
	s.mu.Lock()
	s.n += int64(max(n, 0))
	s.mu.Unlock()
	return n, err
}

// read returns how many bytes were read from the stream.
func (s *stream) read() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// written returns how many bytes of the stream its writer had written by
// the call, as far as can be told: the bytes read from it and, for a pipe,
// those still waiting in it. For any other reader what waits is not known,
// and the bytes read are all it says.
func (s *stream) written() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n + s.unread()
}
