package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// landlockABI returns the Landlock ABI version of the kernel, or 0 and why
// there is none.
func landlockABI() (int, string) {
	v, err := ll.LandlockGetABIVersion()
	switch {
	case err == nil:
		return v, ""
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, "Landlock is not enabled in this kernel (it is not in the lsm= boot parameter)"
	default:
		return 0, fmt.Sprintf("this kernel has no Landlock (%v; it needs Linux 5.13 or later)", err)
	}
}

// Write access rights: what the sandbox denies outside the write paths.
// Reading, executing, listing, device ioctls and connecting to UNIX
// sockets are not handled, so they stay allowed everywhere.
const (
	// fileWrite are the rights a write path that is a file gets.
	fileWrite = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSTruncate)
	// dirWrite are those a write path that is a directory gets: the
	// handled ones (ABI 3).
	dirWrite = fileWrite | landlock.AccessFSSet(ll.AccessFSRemoveDir|ll.AccessFSRemoveFile|
		ll.AccessFSMakeChar|ll.AccessFSMakeDir|ll.AccessFSMakeReg|ll.AccessFSMakeSock|
		ll.AccessFSMakeFifo|ll.AccessFSMakeBlock|ll.AccessFSMakeSym|ll.AccessFSRefer)
)

// devices are written to by programs that write nowhere else (shell
// redirections, terminals): writable in every sandbox, when they exist.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// restrictExec restricts the calling thread by r and execs path from it:
// the program inherits the restriction (Landlock applies to the thread
// that asked, and exec keeps only that thread), and everything it starts
// inherits it in turn. The thread also loses its capabilities (for good:
// no_new_privs), and, with network rules, gets the socket filter (see
// filterSockets). Rules without FS and Net (inside bubblewrap, which
// enforces the rest) only do that.
func restrictExec(r rules, path string, argv, env []string) error {
	cfg := landlock.Config{}
	var rs []landlock.Rule
	if r.FS {
		cfg.HandledAccessFS = dirWrite
		var dirs, files []string
		for _, p := range r.Write {
			fi, err := os.Stat(p)
			if err != nil {
				return fmt.Errorf("write path: %w", err)
			}
			if fi.IsDir() {
				dirs = append(dirs, p)
			} else {
				files = append(files, p)
			}
		}
		for _, d := range devices {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				rs = append(rs, landlock.PathAccess(fileWrite, d))
			} else if err == nil {
				files = append(files, d)
			}
		}
		rs = append(rs, landlock.PathAccess(dirWrite, dirs...), landlock.PathAccess(fileWrite, files...))
	}
	if r.Net {
		cfg.HandledAccessNet = landlock.AccessNetSet(ll.AccessNetConnectTCP)
		for _, p := range r.Connect {
			rs = append(rs, landlock.ConnectTCP(uint16(p)))
		}
	}
	fd, flags := -1, uint32(0)
	if r.FS || r.Net {
		var err error
		if fd, flags, err = cfg.NewRulesetFD(rs...); err != nil {
			return err
		}
		if fd < 0 {
			return errors.New("landlock: nothing to restrict") // Plan never asks for that
		}
	}
	// From here on this goroutine keeps its thread: the restriction is the
	// thread's, and exec must run on it.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if r.Net {
		if err := filterSockets(r.UDP); err != nil {
			return err
		}
	}
	if fd >= 0 {
		if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
			return fmt.Errorf("landlock_restrict_self: %w", err)
		}
		unix.Close(fd)
	}
	return fmt.Errorf("exec %s: %w", path, syscall.Exec(path, argv, env))
}
