package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
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
// Executing, listing, device ioctls and connecting to UNIX sockets are
// not handled, so they stay allowed everywhere; reading files is handled
// by Landlock alone only, and allowed everywhere but in the terminals
// (see addReadable).
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
// redirections): writable in every sandbox, when they exist.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// privateDevices are writable besides in bubblewrap's /dev, which is the
// sandbox's own (PrivateDev): its shared memory, and its terminals, which
// are the pseudo-terminals the sandbox opens, none of the user's. Landlock
// alone denies them (and reading them: see addReadable): the host's
// /dev/pts holds every terminal of the user's (the one acprun runs in,
// where a write would forge its output), which Landlock cannot tell from
// a new one, and /dev/tty is the controlling terminal a command can make
// one of them.
var privateDevices = []string{"/dev/shm", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// addReadable adds to the ruleset rs, which handles reading files, rules
// that allow it beneath everything but the terminals (see unreadable; ms
// are deviceMounts'): Landlock alone reads no terminal of the user's
// (where the command would read what the user types), and everything else
// as before. Landlock rules only allow, so this is the way to deny reading
// the terminals alone (see addBeneathBut).
func addReadable(rs int, ms []devMount) error {
	out, err := unreadable(ms)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return addBeneathBut(rs, out)
}

// unreadable returns the paths that hold the user's terminals: the
// terminals of /dev (see terminal), and, of the mounts ms (deviceMounts',
// those that may hold a terminal), every one but /dev itself, wherever it
// is: a chroot's (schroot, sbuild and arch-chroot bind /dev and /dev/pts
// into it), whose terminals are the same under other names.
func unreadable(ms []devMount) ([]string, error) {
	var out []string
	entries, err := os.ReadDir("/dev")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if terminal(e.Name()) {
			out = append(out, "/dev/"+e.Name())
		}
	}
	for _, m := range ms {
		if m.fstype == "devpts" || m.point != "/dev" {
			out = append(out, m.point)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// deviceMounts returns every mount of devpts and of devtmpfs (/dev's
// included) that /proc/self/mountinfo lists and that may hold a terminal
// (see holdsTerminals): the mounts of acprun's mount namespace now, which
// the helper shares. A mount made since is not in it.
func deviceMounts() ([]devMount, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("the mounts that may hold terminals: %w", err)
	}
	var ms []devMount
	for line := range strings.Lines(string(b)) {
		// ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE SOURCE OPTIONS
		fields := strings.Fields(line)
		sep := slices.Index(fields, "-")
		if sep < 6 || sep+1 >= len(fields) {
			return nil, fmt.Errorf("/proc/self/mountinfo: unexpected line %q", strings.TrimSpace(line))
		}
		if fstype := fields[sep+1]; fstype == "devpts" || fstype == "devtmpfs" {
			m := devMount{point: unescapeMount(fields[4]), fstype: fstype}
			if m.holdsTerminals(unescapeMount(fields[3])) {
				ms = append(ms, m)
			}
		}
	}
	return ms, nil
}

// heldSince fails when a write path of r holds a mount of ms (see
// heldMounts) that Plan did not let through (r.DevMounts): one mounted
// since Plan looked (setup may mount, and so may another scenario's,
// running at the same time).
func heldSince(r rules, ms []devMount) error {
	for _, o := range r.Opened {
		for _, m := range heldMounts(o.Path, ms) {
			if !slices.Contains(r.DevMounts, m.point) {
				what := "its terminals"
				if m.fstype == "devtmpfs" {
					what = "its devices (terminals among them)"
				}
				return fmt.Errorf("write path %s holds the %s mount %s, mounted since the sandbox was planned: "+
					"Landlock alone would let the command write %s there (install bubblewrap, choose a write path without it, or unmount it)", o.Path, m.fstype, m.point, what)
			}
		}
	}
	return nil
}

// unescapeMount is a path of /proc/self/mountinfo as it is: the kernel
// writes space, tab, newline and backslash as \NNN (octal).
func unescapeMount(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+4 <= len(p) {
			if n, err := strconv.ParseUint(p[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// addBeneathBut adds to rs rules that allow reading files beneath
// everything but the paths out (absolute, canonical): a rule beneath
// each entry of /, but for out's paths, which get none, and for their
// ancestors, which get none either, their entries getting rules instead,
// the same way, down to out's paths. Symbolic links get no rule: what they
// lead to is read as itself, by its own path (/dev/stdin, /dev/fd, /bin).
// It goes from / down by descriptor, never following a link: a directory
// on the way that cannot be listed gets no rule, and nothing beneath it is
// readable.
func addBeneathBut(rs int, out []string) error {
	excluded, split := map[string]bool{}, map[string]bool{}
	for _, p := range out {
		excluded[p] = true
		for d := p; d != "/"; {
			d = filepath.Dir(d)
			split[d] = true
		}
	}
	if excluded["/"] {
		return nil
	}
	root, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	defer unix.Close(root)
	return addBeneath(rs, root, "/", excluded, split)
}

// addBeneath adds addBeneathBut's rules for the entries of dir, opened as
// dirFD.
func addBeneath(rs, dirFD int, dir string, excluded, split map[string]bool) error {
	fd, err := unix.Openat(dirFD, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ENOENT):
		return nil // nothing readable beneath it
	case err != nil:
		return fmt.Errorf("landlock: list %s: %w", dir, err)
	}
	d := os.NewFile(uintptr(fd), dir)
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return fmt.Errorf("landlock: list %s: %w", dir, err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if excluded[p] || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		fd, err := unix.Openat(dirFD, e.Name(), unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue // gone since
		}
		if err == nil {
			if split[p] {
				err = addBeneath(rs, fd, p, excluded, split)
			} else if err = ll.LandlockAddPathBeneathRule(rs, &ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: ll.AccessFSReadFile}, 0); err != nil {
				err = fmt.Errorf("landlock_add_rule (reading %s): %w", p, err)
			}
			unix.Close(fd)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// addOpened adds to the ruleset rs a rule that allows writing beneath
// each write path Wrap opened, and reading there too with read (rs
// handles reading: see addReadable, whose rules may stop short of a write
// path that holds a mount of devices, as best-effort lets it, and would
// leave the command's new files there unreadable), and closes their
// descriptors: the command does not inherit them. A descriptor that is
// not the file Wrap opened is an error: the helper was not given what
// Wrap opened.
func addOpened(rs int, opened []openPath, read bool) error {
	for _, o := range opened {
		var st unix.Stat_t
		if err := unix.Fstat(o.FD, &st); err != nil || uint64(st.Dev) != o.Dev || uint64(st.Ino) != o.Ino {
			return fmt.Errorf("write path %s: descriptor %d is not it (%v)", o.Path, o.FD, err)
		}
		access := fileWrite
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			access = dirWrite
		}
		if read {
			access |= landlock.AccessFSSet(ll.AccessFSReadFile)
		}
		if err := ll.LandlockAddPathBeneathRule(rs, &ll.PathBeneathAttr{ParentFd: o.FD, AllowedAccess: uint64(access)}, 0); err != nil {
			return fmt.Errorf("landlock_add_rule (write path %s): %w", o.Path, err)
		}
		unix.Close(o.FD)
	}
	return nil
}

// restrictExec restricts the calling thread by r and execs path from it:
// the program inherits the restriction (Landlock applies to the thread
// that asked, and exec keeps only that thread), and everything it starts
// inherits it in turn. The thread, locked and without capabilities (see
// Exec), keeps them so for good (no_new_privs), and gets the seccomp
// filter (see installFilter), which restricts sockets too with network
// rules. Rules without FS and Net (inside bubblewrap, which enforces the
// rest) only do that.
func restrictExec(r rules, path string, argv, env []string) error {
	var ms []devMount // the mounts of devices, under Landlock alone
	if r.FS && !r.PrivateDev {
		var err error
		if ms, err = deviceMounts(); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
		if err := heldSince(r, ms); err != nil {
			return err
		}
	}
	cfg := landlock.Config{}
	var rs []landlock.Rule
	if r.FS {
		cfg.HandledAccessFS = dirWrite
		if !r.PrivateDev {
			cfg.HandledAccessFS |= landlock.AccessFSSet(ll.AccessFSReadFile) // see addReadable
		}
		var dirs, files []string
		devs := devices
		if r.PrivateDev {
			devs = slices.Concat(devices, privateDevices)
		}
		for _, d := range devs {
			switch fi, err := os.Stat(d); {
			case err != nil:
			case d == "/dev/shm" && fi.IsDir():
				dirs = append(dirs, d)
			case fi.IsDir():
				rs = append(rs, landlock.PathAccess(fileWrite, d))
			default:
				files = append(files, d)
			}
		}
		rs = append(rs, landlock.PathAccess(dirWrite, dirs...), landlock.PathAccess(fileWrite, files...))
	}
	if r.Net {
		cfg.HandledAccessNet = landlock.AccessNetSet(ll.AccessNetConnectTCP)
		if r.offline() { // with no bind rule: no port, on no address
			cfg.HandledAccessNet |= landlock.AccessNetSet(ll.AccessNetBindTCP)
		}
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
		if err := addOpened(fd, r.Opened, r.FS && !r.PrivateDev); err != nil {
			unix.Close(fd)
			return err
		}
		if r.FS && !r.PrivateDev {
			if err := addReadable(fd, ms); err != nil {
				unix.Close(fd)
				return err
			}
		}
	}
	// From here on this goroutine keeps its thread: the restriction is the
	// thread's, and exec must run on it.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := installFilter(r.Net, r.UDP); err != nil {
		return err
	}
	if fd >= 0 {
		if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
			return fmt.Errorf("landlock_restrict_self: %w", err)
		}
		unix.Close(fd)
	}
	return fmt.Errorf("exec %s: %w", path, syscall.Exec(path, argv, env))
}

// offline reports whether r are the rules of network off under Landlock
// alone (Plan allows UDP only with the network on): then no TCP port may
// be bound either, so that nothing outside connects in (Landlock cannot
// filter by address: a port bound on the loopback interface is as
// reachable from the host's other processes).
func (r rules) offline() bool { return r.Net && !r.UDP }

// openWrite opens the canonical write paths (O_PATH), each checked to be
// the file its path names, for a command that gets them as descriptors
// 3, 4, …: a path that leads elsewhere through a link put in its way
// since Plan resolved it is an error.
func openWrite(paths []string) ([]*os.File, []openPath, error) {
	files := make([]*os.File, 0, len(paths))
	opened := make([]openPath, 0, len(paths))
	fail := func(err error) ([]*os.File, []openPath, error) {
		for _, f := range files {
			f.Close()
		}
		return nil, nil, err
	}
	for _, p := range paths {
		f, err := os.OpenFile(p, unix.O_PATH, 0)
		if err != nil {
			return fail(fmt.Errorf("sandbox write path: %w", err))
		}
		files = append(files, f)
		now, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
		if err != nil {
			return fail(fmt.Errorf("sandbox write path %s: %w", p, err))
		}
		if now != p {
			return fail(fmt.Errorf("sandbox write path %s leads to %s now: a symbolic link was put in its way since the sandbox was planned, which acprun does not follow", p, now))
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			return fail(fmt.Errorf("sandbox write path %s: %w", p, err))
		}
		opened = append(opened, openPath{Path: p, FD: 3 + len(opened), Dev: uint64(st.Dev), Ino: uint64(st.Ino)})
	}
	return files, opened, nil
}
