package acp

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeConn returns the descriptor of r to read it through, when r is an
// *os.File that is read without blocking (os.Pipe's are: Go's poller waits
// for them) and tells how many bytes wait in it (FIONREAD, TIOCINQ); nil otherwise.
func pipeConn(r io.Reader) syscall.RawConn {
	f, ok := r.(*os.File)
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	ok = false
	if rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil || flags&unix.O_NONBLOCK == 0 {
			return
		}
		_, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ)
		ok = err == nil
	}) != nil || !ok {
		return nil
	}
	return rc
}

// readPipe reads from the pipe's descriptor as os.File.Read does (the
// poller waits while it is empty, a read deadline or Close ends the
// wait), counting the bytes read with s.mu held across each read(2), which
// never blocks.
func (s *stream) readPipe(p []byte) (int, error) {
	var n int
	var err error
	rerr := s.rc.Read(func(fd uintptr) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for {
			n, err = unix.Read(int(fd), p)
			if err != unix.EINTR {
				break
			}
		}
		if n > 0 {
			s.n += int64(n)
		}
		return err != unix.EAGAIN
	})
	switch {
	case rerr != nil:
		return 0, &os.PathError{Op: "read", Path: s.r.(*os.File).Name(), Err: rerr}
	case err != nil:
		return 0, &os.PathError{Op: "read", Path: s.r.(*os.File).Name(), Err: err}
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// unread returns how many bytes wait in the pipe (FIONREAD, which Linux
// calls TIOCINQ); 0 for any other reader, or once the pipe is closed.
// s.mu is held.
func (s *stream) unread() int64 {
	if s.rc == nil {
		return 0
	}
	n := 0
	var err error
	if s.rc.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }) != nil || err != nil {
		return 0
	}
	return int64(n)
}
