package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper installs one seccomp filter in every sandbox, whatever the
// backend (inside bubblewrap too, where it runs before it execs the
// command), and everything the command starts inherits it:
//
//   - no file gets the setuid bit: chmod, fchmod, fchmodat, fchmodat2,
//     open, openat and creat (with O_CREAT or O_TMPFILE) and mknod,
//     mknodat with it in their mode are EPERM. A setuid file the command
//     leaves (in a write path, or under Landlock alone, which does not
//     handle modes, in any file its user owns) would run as its owner,
//     root when acprun runs as root, for whoever runs it next, outside
//     the sandbox. openat2, whose mode is in a struct the filter cannot
//     read, is ENOSYS (programs fall back to openat), and so is io_uring,
//     whose requests open files (and create sockets) without those system
//     calls. The setgid bit is allowed: the filter cannot tell a directory
//     from a file, and tools set it or keep it on directories all the time
//     (tar -x, cp -a, git init --shared, GNU chmod on a directory that has
//     it); with no capability (see dropCapabilities) the command keeps it
//     only on a file of a group it is in (the kernel clears it otherwise,
//     without CAP_FSETID) and gives a file no other group (no CAP_CHOWN),
//     so a setgid file it leaves runs with a group its user already has;
//   - no keystroke is pushed into a terminal: ioctl TIOCSTI and TIOCLINUX
//     (the console's selection pasted) are EPERM;
//   - system calls of another ABI (x32, 32-bit), whose numbers it does
//     not check, are ENOSYS: 32-bit programs do not run;
//   - where Landlock restricts the network (Landlock's network rules see
//     TCP connect(2) only), sockets are those Landlock's rules see:
//     socket(2) creates UNIX and netlink sockets, TCP sockets, and UDP
//     ones only when the network is on (ports restricted: DNS must work);
//     every other socket is EACCES: Multipath TCP (which Landlock's rules
//     do not cover, and programs fall back from to TCP), UDP with the
//     network off, raw and packet sockets, SCTP, VSOCK...

// auditArch is the seccomp architecture of this build's system calls, for
// the little-endian architectures the filter's offsets are right for.
var auditArch = map[string]uint32{
	"amd64":   unix.AUDIT_ARCH_X86_64,
	"arm64":   unix.AUDIT_ARCH_AARCH64,
	"riscv64": unix.AUDIT_ARCH_RISCV64,
	"ppc64le": unix.AUDIT_ARCH_PPC64LE,
	"loong64": unix.AUDIT_ARCH_LOONGARCH64,
}

// Offsets in struct seccomp_data (the low half of each 64-bit argument on
// a little-endian architecture: the kernel reads a mode, open's flags and
// an ioctl's request as 32 bits or less).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

// offArg is the offset of argument i.
func offArg(i int) uint32 { return offArg0 + 8*uint32(i) }

// modeCall is a system call that gives a file a mode: its number, the
// argument that holds the mode, and the one that holds open's flags (-1:
// none, it always creates or changes a file).
type modeCall struct {
	nr          uint32
	mode, flags int
}

// modeCalls are those of every architecture (legacyModeCalls adds the
// older ones of those that have them).
var modeCalls = append([]modeCall{
	{unix.SYS_FCHMOD, 1, -1},
	{unix.SYS_FCHMODAT, 2, -1},
	{unix.SYS_FCHMODAT2, 2, -1},
	{unix.SYS_OPENAT, 3, 2},
	{unix.SYS_MKNODAT, 2, -1},
}, legacyModeCalls...)

// Masks the filter tests: the mode bit it refuses, and the flags with
// which open gives a mode (O_TMPFILE includes O_DIRECTORY: its own bit
// only).
const (
	setUID   = unix.S_ISUID
	openMode = unix.O_CREAT | unix.O_TMPFILE&^unix.O_DIRECTORY
)

// insn is a BPF instruction whose jumps go to labels.
type insn struct {
	label  string // this instruction's, or ""
	code   uint16
	k      uint32
	jt, jf string // labels; "": the next instruction
}

func ld(off uint32) insn { return insn{code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, k: off} }
func jeq(k uint32, jt, jf string) insn {
	return insn{code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, k: k, jt: jt, jf: jf}
}
func jset(k uint32, jt, jf string) insn {
	return insn{code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, k: k, jt: jt, jf: jf}
}
func ret(label string, k uint32) insn {
	return insn{label: label, code: unix.BPF_RET | unix.BPF_K, k: k}
}

// at is in labelled label.
func at(label string, in insn) insn {
	in.label = label
	return in
}

// filter returns the filter for arch; net restricts sockets, udp allows
// UDP ones.
func filter(arch uint32, net, udp bool) []unix.SockFilter {
	prog := []insn{
		ld(offArch),
		jeq(arch, "", "nosys"),
		ld(offNr),
		{code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, k: 0x40000000, jt: "nosys"}, // x32
		jeq(unix.SYS_IO_URING_SETUP, "nosys", ""),
		jeq(unix.SYS_OPENAT2, "nosys", ""),
		jeq(unix.SYS_IOCTL, "ioctl", ""),
	}
	for i, c := range modeCalls {
		prog = append(prog, jeq(c.nr, fmt.Sprintf("mode%d", i), ""))
	}
	if net {
		prog = append(prog, jeq(unix.SYS_SOCKET, "socket", ""))
	}
	prog = append(prog,
		ret("", unix.SECCOMP_RET_ALLOW),
		at("ioctl", ld(offArg(1))),
		jeq(unix.TIOCSTI, "eperm", ""),
		jeq(unix.TIOCLINUX, "eperm", "allow"),
	)
	for i, c := range modeCalls {
		label := fmt.Sprintf("mode%d", i)
		if c.flags >= 0 {
			prog = append(prog, at(label, ld(offArg(c.flags))), jset(openMode, "", "allow"))
			label = ""
		}
		prog = append(prog, at(label, ld(offArg(c.mode))), jset(setUID, "eperm", "allow"))
	}
	if net {
		dgram := "deny"
		if udp {
			dgram = "udp"
		}
		prog = append(prog,
			at("socket", ld(offArg(0))),
			jeq(unix.AF_UNIX, "allow", ""),
			jeq(unix.AF_NETLINK, "allow", ""),
			jeq(unix.AF_INET, "inet", ""),
			jeq(unix.AF_INET6, "inet", "deny"),
			at("inet", ld(offArg(1))),
			insn{code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, k: 0xf}, // without SOCK_CLOEXEC, SOCK_NONBLOCK
			jeq(unix.SOCK_STREAM, "tcp", ""),
			jeq(unix.SOCK_DGRAM, dgram, "deny"),
			at("tcp", ld(offArg(2))),
			jeq(0, "allow", ""),
			jeq(unix.IPPROTO_TCP, "allow", "deny"),
			at("udp", ld(offArg(2))),
			jeq(0, "allow", ""),
			jeq(unix.IPPROTO_UDP, "allow", "deny"),
			ret("deny", unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES)),
		)
	}
	prog = append(prog,
		ret("allow", unix.SECCOMP_RET_ALLOW),
		ret("eperm", unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM)),
		ret("nosys", unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS)),
	)
	return assemble(prog)
}

// assemble resolves prog's labels. A jump must go forward, and at most
// 255 instructions: a program that breaks that is a bug of filter's.
func assemble(prog []insn) []unix.SockFilter {
	where := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			where[in.label] = i
		}
	}
	jump := func(i int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := where[label]
		if d := to - i - 1; !ok || d < 0 || d > 255 {
			panic(fmt.Sprintf("seccomp filter: instruction %d jumps to %q, %d ahead", i, label, d))
		}
		return uint8(to - i - 1)
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		out[i] = unix.SockFilter{Code: in.code, K: in.k, Jt: jump(i, in.jt), Jf: jump(i, in.jf)}
	}
	return out
}

// installFilter installs the filter on the calling thread (which must keep
// it: the caller has locked it, and sets no_new_privs first); net and udp
// are filter's. On an architecture it has no filter for it fails where
// net says, and does nothing otherwise: Plan says what is missing there.
func installFilter(net, udp bool) error {
	arch, ok := auditArch[runtime.GOARCH]
	switch {
	case !ok && net:
		return fmt.Errorf("no socket filter for %s: network rules are not available there", runtime.GOARCH)
	case !ok:
		return nil
	}
	f := filter(arch, net, udp)
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

// filterable reports whether this architecture has the seccomp filter.
func filterable() bool {
	_, ok := auditArch[runtime.GOARCH]
	return ok
}

// dropCapabilities empties the calling thread's capability sets (acprun
// may run as root), its bounding set included where it can (it has
// CAP_SETPCAP: run as root): with no_new_privs, what it execs gains none
// either, not even as root, and with an empty bounding set a root that
// execs regains none even without it. A process that is not root cannot
// empty its bounding set, and needs not: its execs gain nothing from it.
// Under bubblewrap, which leaves the bounding set to a root's command,
// acprun run as root has bubblewrap keep CAP_SETPCAP for the helper (see
// bwrapBase), which empties it here.
func dropCapabilities() error {
	var data [2]unix.CapUserData
	if err := unix.Capget(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		for c := 0; c < 64; c++ {
			err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
			if errors.Is(err, unix.EINVAL) {
				break // past the last capability of this kernel
			}
			if err != nil {
				return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}

// keepsSetpcap reports whether acprun runs as root with CAP_SETPCAP: then
// the helper inside bubblewrap needs it to empty the bounding set (see
// dropCapabilities), and bubblewrap, run by root, can keep it.
func keepsSetpcap() bool {
	var data [2]unix.CapUserData
	if os.Geteuid() != 0 || unix.Capget(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0]) != nil {
		return false
	}
	return data[0].Effective&(1<<unix.CAP_SETPCAP) != 0
}
