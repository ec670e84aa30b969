package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock's network rules see TCP connect(2) only. Where they restrict
// the network, a seccomp filter makes sure TCP is the only way out: it
// lets socket(2) create UNIX and netlink sockets, TCP sockets, and UDP
// ones only when the network is on (ports restricted: DNS must work);
// every other socket is EACCES: Multipath TCP (which Landlock's rules do
// not cover, and programs fall back from to TCP), UDP with the network
// off, raw and packet sockets, SCTP, VSOCK... It also refuses io_uring,
// whose requests create sockets without socket(2), and system calls of
// another ABI (x32, 32-bit) whose numbers it does not check.

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
// a little-endian architecture).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
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
func ret(label string, k uint32) insn {
	return insn{label: label, code: unix.BPF_RET | unix.BPF_K, k: k}
}

// socketFilter returns the filter for arch; udp allows UDP sockets.
func socketFilter(arch uint32, udp bool) []unix.SockFilter {
	dgram := "deny"
	if udp {
		dgram = "udp"
	}
	prog := []insn{
		ld(offArch),
		jeq(arch, "", "nosys"),
		ld(offNr),
		{code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, k: 0x40000000, jt: "nosys"}, // x32
		jeq(unix.SYS_IO_URING_SETUP, "nosys", ""),
		jeq(unix.SYS_SOCKET, "", "allow"),
		ld(offArg0),
		jeq(unix.AF_UNIX, "allow", ""),
		jeq(unix.AF_NETLINK, "allow", ""),
		jeq(unix.AF_INET, "inet", ""),
		jeq(unix.AF_INET6, "inet", "deny"),
		{label: "inet", code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, k: offArg1},
		{code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, k: 0xf}, // without SOCK_CLOEXEC, SOCK_NONBLOCK
		jeq(unix.SOCK_STREAM, "tcp", ""),
		jeq(unix.SOCK_DGRAM, dgram, "deny"),
		{label: "tcp", code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, k: offArg2},
		jeq(0, "allow", ""),
		jeq(unix.IPPROTO_TCP, "allow", "deny"),
		{label: "udp", code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, k: offArg2},
		jeq(0, "allow", ""),
		jeq(unix.IPPROTO_UDP, "allow", "deny"),
		ret("allow", unix.SECCOMP_RET_ALLOW),
		ret("deny", unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES)),
		ret("nosys", unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS)),
	}
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	jump := func(i int, label string) uint8 {
		if label == "" {
			return 0
		}
		return uint8(at[label] - i - 1) // forward only, and short
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		out[i] = unix.SockFilter{Code: in.code, K: in.k, Jt: jump(i, in.jt), Jf: jump(i, in.jf)}
	}
	return out
}

// filterSockets installs the filter on the calling thread (which must keep
// it: the caller has locked it, and sets no_new_privs first).
func filterSockets(udp bool) error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("no socket filter for %s: network rules are not available there", runtime.GOARCH)
	}
	f := socketFilter(arch, udp)
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

// dropCapabilities empties the calling thread's capability sets (acprun
// may run as root): with no_new_privs, what it execs gains none either,
// not even as root.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	var data [2]unix.CapUserData
	if err := unix.Capset(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
