package testkit

import (
	"fmt"
	"syscall"
	"testing"
)

// RefusedURL returns the URL (http://127.0.0.1:PORT) of a local TCP port
// that refuses connections for the rest of the test: a socket bound to
// it, never listening, holds it. A closed server's port will not do: the
// next server that listens, another test's running at the same time, may
// be given it, and get the requests meant to fail.
func RefusedURL(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.CloseOnExec(fd)
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
