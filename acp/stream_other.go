//go:build !linux

package acp

import (
	"io"
	"syscall"
)

// pipeConn returns nil: outside Linux a pipe is read as any reader is, and
// what waits in it is not known (see Conn.CatchUp).
func pipeConn(io.Reader) syscall.RawConn { return nil }

// readPipe is never called: pipeConn returns nil.
func (s *stream) readPipe(p []byte) (int, error) { return s.r.Read(p) }

// unread returns 0: what waits in a pipe is not known here.
func (s *stream) unread() int64 { return 0 }
