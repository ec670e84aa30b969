package e2e_test

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// watchCreates sends on the channel it returns every file made in dir
// whose name starts with prefix, as inotify(7) tells of it, until the
// test ends.
func watchCreates(t *testing.T, dir, prefix string) <-chan string {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE); err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	names := make(chan string, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			for i := 0; i+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[i]))
				name := strings.TrimRight(string(buf[i+syscall.SizeofInotifyEvent:i+syscall.SizeofInotifyEvent+int(ev.Len)]), "\x00")
				i += syscall.SizeofInotifyEvent + int(ev.Len)
				if strings.HasPrefix(name, prefix) {
					names <- name
				}
			}
		}
	}()
	t.Cleanup(func() { f.Close(); <-done })
	return names
}
