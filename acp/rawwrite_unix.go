//go:build unix

package acp

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// nonBlocking returns the raw connection of w when w is a file in
// non-blocking mode that the runtime polls (os.Pipe, exec pipes, sockets):
// one write(2) on it returns at once, with EAGAIN when the peer's input is
// full. It returns nil for anything else (io.Pipe, a blocking terminal or
// regular file), which is then only ever written the usual way.
func nonBlocking(w io.Writer) syscall.RawConn {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nb := false
	if err := rc.Control(func(fd uintptr) {
		flags, ferr := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nb = ferr == nil && flags&unix.O_NONBLOCK != 0
	}); err != nil || !nb {
		return nil
	}
	return rc
}

// writeOnce makes one write(2) of buf on rc, which never blocks (see
// nonBlocking), and returns how many bytes went out. Anything short of the
// whole line (a full pipe, an interrupted or failed write, a closed file)
// is left to the usual write, which waits, or fails the way it does. The
// file's mode is checked again first, since os.File.Fd puts a file in
// blocking mode: then nothing is written here.
func writeOnce(rc syscall.RawConn, buf []byte) int {
	n := 0
	_ = rc.Write(func(fd uintptr) bool {
		if flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK == 0 {
			return true
		}
		m, err := syscall.Write(int(fd), buf)
		if err == nil && m > 0 {
			n = m
		}
		return true // never wait for the file to be writable
	})
	return n
}
