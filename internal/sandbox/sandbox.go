// Package sandbox contains what an agent does with the operating system,
// whatever it asks: the agent, everything it starts, and the terminals
// acprun runs for it can write only in the paths a Spec names, cannot read
// the paths it hides, and reach the network only as it allows.
//
// Two mechanisms, both unprivileged:
//   - bubblewrap (bwrap from acprun's PATH), when it is there and works:
//     a read-only view of the root, the write paths bound writable over
//     it, an empty read-only tmpfs (a directory) or the null device (a
//     file) over each hidden path, a /dev and a read-only /proc of its
//     own (see bwrapBase), a network namespace of its own for network
//     off, PID and IPC namespaces of its own, no capabilities, and the
//     whole sandbox killed when bwrap dies. bwrap is started with SIGTERM
//     ignored, and the command inside with SIGTERM as it should be (both
//     through the helper below), so that a SIGTERM to the process group
//     reaches the command and not bwrap: the command gets its grace before
//     the SIGKILL that ends the sandbox;
//   - Landlock (Linux 5.13 and later), through a re-executed acprun
//     (ExecArg) that restricts itself and then execs the command, so that
//     the command and everything it starts inherit the restriction: writes
//     only in the write paths (ABI 3, Linux 6.2; not the metadata of files,
//     which Landlock does not handle: Plan warns; and to no terminal, see
//     privateDevices; a write path that holds a mount of devpts or
//     devtmpfs, whose devices Landlock would let it write, is refused
//     under Required: see heldMounts), no terminal of the user's read
//     (see addReadable),
//     TCP connections only to the allowed ports and, with the network
//     off, no TCP port bound (ABI 4, Linux 6.7; a socket that listens
//     unbound still gets a port the kernel picks, which Landlock does not
//     check). Where Landlock
//     restricts the network, the seccomp filter below also keeps sockets
//     to those Landlock's rules see (TCP; UDP only with the network on; no
//     Multipath TCP, raw or other families).
//
// Under either, the helper drops every capability and installs a seccomp
// filter (see installFilter): no file gets the setuid bit, no
// keystroke is pushed into a terminal (TIOCSTI), and no system call of
// another ABI runs. It runs inside bubblewrap too, right before the
// command, whether Landlock is there or not.
//
// Where the host has both, Landlock also restricts writes inside
// bubblewrap: bubblewrap binds the write paths by path, and Landlock holds
// the files acprun opened and checked (see Wrap), so that a path swapped
// for a link in between makes nothing else writable.
//
// The command's environment takes effect inside only: what runs before
// the restriction is in force (the helper, bwrap) starts with an empty
// one, and the command's reaches the last helper in a sealed memfd, which
// it execs the command with once restricted (see Wrap). A variable the
// command is given (LD_PRELOAD, which the dynamic loader acts on in every
// process started with it) runs nothing outside the sandbox.
//
// Hiding needs bubblewrap: Landlock only grants, so it cannot deny reads
// under a hidden path while reads are allowed in the hierarchy above it.
// Allowed TCP ports need Landlock: bubblewrap has no port filter. Network
// off is a network namespace of its own when bubblewrap is there, and
// Landlock's TCP rules otherwise. A port acprun serves the agent on the
// loopback interface (Spec.Loopback: the model gateway) stays reachable
// with the network off: under bubblewrap through a relay inside the
// sandbox's network namespace (see Relay), which reaches nothing else;
// under Landlock alone by allowing the port, on every address (Landlock
// cannot filter by address), which Plan warns about.
//
// Use: Detect what the host can do (once per run), Plan each scenario's
// Spec on it (before anything starts: under Required a host that cannot
// enforce the Spec is an error naming what is missing), then Wrap each
// command the scenario's agent side starts.
//
// Test seams (for acprun's own tests; they can only weaken what Detect
// finds, and Plan says so): ACPRUN_TEST_LANDLOCK_ABI=N lowers the
// Landlock ABI Detect reports to N, ACPRUN_TEST_NO_BWRAP=1 makes it report
// no bubblewrap.
package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Level says what to do when the host cannot enforce a whole Spec.
type Level string

const (
	// Required refuses to plan a Spec the host cannot enforce whole. It is
	// the default (the zero Level).
	Required Level = "required"
	// BestEffort enforces what the host can and warns about the rest.
	BestEffort Level = "best-effort"
)

// Spec is the sandbox a scenario asks for.
type Spec struct {
	// Write lists the paths, directories or files, the sandboxed commands
	// may write in; everything else is read-only. A path that does not
	// exist is left out (with a warning): nothing can be bound there.
	Write []string
	// Hide lists the paths the sandboxed commands cannot read at all. A
	// path that does not exist has nothing to hide and is left out.
	Hide []string
	// Conceal lists directories hidden as Hide's are, but for the Reveal
	// paths inside them, where the host can hide paths (bubblewrap): a
	// directory that other workspaces are made in, before the command
	// starts or while it runs. Where the host cannot hide, they are left
	// readable, with no error or warning: Hide is what says what must be
	// hidden (and what the host cannot hide), and what Conceal covers
	// holds nothing to hide but copies of what Hide names. A path that
	// does not exist is left out.
	Conceal []string
	// Reveal lists paths inside the Conceal directories that stay as they
	// are outside: readable, writable when Write names them, with the
	// Hide paths inside them hidden. One inside a Hide path stays hidden.
	Reveal []string
	// Network on allows connections (to Ports only, when it lists some);
	// off allows none but to the Loopback ports.
	Network bool
	// Ports, with Network on, are the only TCP ports connections may go to
	// (any address). Empty: all.
	Ports []int
	// Loopback lists the ports acprun itself serves the agent on, on the
	// loopback interface (a model gateway): reachable whatever Network
	// says (see Relay).
	Loopback []Relay
	// Level is Required ("" too) or BestEffort.
	Level Level
	// TempDir is the private temporary directory of the scenario: writable,
	// and TMPDIR in the environment Wrap returns. "": none.
	TempDir string
	// TempEnv lists the variables besides TMPDIR that Wrap sets to
	// TempDir, for commands that read their temporary directory from
	// their own (Claude Code writes under /tmp unless CLAUDE_CODE_TMPDIR
	// says otherwise).
	TempEnv []string
	// Pinned, when set, maps absolute paths to where they led, symbolic
	// links resolved, at an earlier time (when the run started, before any
	// agent ran): a write or hidden path it maps that exists and leads
	// elsewhere now is an error (a link was put in its way since). It is
	// a check, not part of the sandbox: left out of the Spec's JSON (the
	// runner's pool key), where it would hold every path of the run.
	Pinned map[string]string `json:"-"`
}

// Applied is what a Plan enforces: what a scenario's results record. Its
// Wrap method wraps the commands to run inside.
type Applied struct {
	// Backend is "bubblewrap", "landlock", "bubblewrap+landlock", or
	// "none" when nothing is enforced.
	Backend string `json:"backend"`
	// Write lists the paths writable inside (canonical: absolute, with no
	// symbolic link), nil when writes are not restricted (backend none).
	Write []string `json:"write"`
	// Hide lists the paths hidden inside (canonical).
	Hide []string `json:"hide"`
	// Network is "off" when connections are restricted to Ports (or to
	// none but the Spec's loopback ones, relayed: see Relay), "on"
	// otherwise.
	Network string `json:"network"`
	// Ports lists the only TCP ports connections may go to, when Landlock
	// restricts them (on any address); nil when they are not restricted by
	// port.
	Ports []int `json:"ports,omitempty"`
	// Level is the Spec's level.
	Level Level `json:"level"`
	// Warnings says what BestEffort left out, which write paths did not
	// exist or are hidden, which hidden paths did not exist, and what
	// network off with loopback ports lets through under Landlock alone;
	// the runner reports them with the scenario's warnings.
	Warnings []Warning `json:"-"`

	self       string   // acprun, re-executed with ExecArg; "": backend none
	bwrap      string   // bubblewrap's path; "": not used
	unshareNet bool     // bwrap --unshare-net
	setpcap    bool     // bwrap keeps CAP_SETPCAP for the helper (Host.Setpcap)
	hides      []hidden // what bwrap hides, and reveals again inside
	rules      rules    // what the helper inside enforces (Landlock)
	tempDir    string
	tempEnv    []string
}

// Warning is one of what a Plan says it does not enforce as asked.
type Warning struct {
	Msg string
	// Write is the index in Spec.Write of the write path it is about (the
	// first that names it), so that it can be reported where that path is
	// given; -1 when it is about none of them.
	Write int
	// Hide is the same for Spec.Hide: the index of the hidden path it is
	// about, -1 for none.
	Hide int
}

// hidden is a path bwrap hides, or reveals inside one it hides.
type hidden struct {
	path   string
	dir    bool
	reveal bool // bound over the hidden directory it is in, as it is outside
}

// Landlock ABI versions the rules need.
const (
	// abiWrite restricts writes, truncation (truncate(2), O_TRUNC) and
	// linking or renaming across directories included.
	abiWrite = 3
	// abiTCP restricts TCP connect(2) by port.
	abiTCP = 4
)

// Plan decides how spec is enforced on host: the mechanisms, and what they
// enforce. Under Required, a spec the host cannot enforce whole is an
// error that names what is missing; under BestEffort, Plan leaves out what
// the host cannot enforce and says so in the warnings. Bad values in spec
// (an unknown level, a port out of range) are errors under either level.
//
// Plan looks at the paths (whether they exist, which are directories,
// where symbolic links lead): call it right before the commands start,
// once the write paths and the temporary directory exist.
func Plan(spec Spec, host Host) (Applied, error) {
	level := cmp.Or(spec.Level, Required)
	if level != Required && level != BestEffort {
		return Applied{}, fmt.Errorf("sandbox level %q: want %q or %q", level, Required, BestEffort)
	}
	if len(spec.Ports) > 0 && !spec.Network {
		return Applied{}, errors.New("sandbox ports apply to network on: with network off no port but the loopback ones is reachable")
	}
	loopback := make([]int, len(spec.Loopback))
	for i, l := range spec.Loopback {
		loopback[i] = l.Port
	}
	for _, p := range slices.Concat(spec.Ports, loopback) {
		if p < 1 || p > 65535 {
			return Applied{}, fmt.Errorf("sandbox port %d: a TCP port is 1 to 65535", p)
		}
	}
	a := Applied{Level: level, Network: "on", tempDir: spec.TempDir, tempEnv: slices.Clone(spec.TempEnv)}

	write, err := canonical(append(slices.Clone(spec.Write), spec.TempDir), "write", spec.Pinned)
	if err != nil {
		return Applied{}, err
	}
	// about is the index in spec.Write of the first entry that names p.
	about := func(p string) int {
		if i := write.first[p]; i < len(spec.Write) {
			return i
		}
		return -1 // the temporary directory
	}
	for _, p := range write.missing {
		a.Warnings = append(a.Warnings, Warning{fmt.Sprintf("sandbox write path %s does not exist: nothing can be written there (create it before the run)", p), about(p), -1})
	}
	hide, err := canonical(spec.Hide, "hide", spec.Pinned)
	if err != nil {
		return Applied{}, err
	}
	for _, p := range hide.missing {
		a.Warnings = append(a.Warnings, Warning{fmt.Sprintf("sandbox hide path %s does not exist: nothing is hidden there (check it for a typo)", p), -1, hide.first[p]})
	}

	var missing []string
	lack := func(what, why string) { missing = append(missing, what+" needs "+why) }
	bwrap := host.Bwrap != "" && host.Self != ""
	landlock := func(abi int) bool { return host.Self != "" && host.LandlockABI >= abi }
	useBwrap, useLandlock := false, false

	// Writes: bubblewrap binds the write paths by path; Landlock, when
	// the host has it, also holds them by descriptor (see Wrap), under
	// bubblewrap too, so that a link put in a write path's way between
	// acprun's check and bubblewrap's bind makes nothing else writable.
	switch {
	case bwrap:
		useBwrap = true
		if landlock(abiWrite) {
			useLandlock, a.rules.FS, a.rules.PrivateDev = true, true, true
		}
	case landlock(abiWrite):
		useLandlock, a.rules.FS = true, true
	default:
		lack("restricting writes", host.bwrapWhy()+", or "+host.landlockWhy(abiWrite))
	}
	if useBwrap || useLandlock {
		a.Write = write.paths
	}
	// Devices: under Landlock alone a write path that holds a mount of
	// devpts or devtmpfs (a chroot's /dev and /dev/pts) would let the
	// command write the terminals there (see heldMounts). The helper
	// checks the mounts again (see restrictExec): they may change before
	// it runs.
	if a.rules.FS && !a.rules.PrivateDev {
		ms, err := deviceMounts()
		if err != nil {
			return Applied{}, fmt.Errorf("sandbox: %w", err)
		}
		for _, w := range write.paths {
			held := heldMounts(w, ms)
			if len(held) == 0 {
				continue
			}
			what, why := keepOut(w, held, host)
			if level == Required {
				lack(what, why)
				continue
			}
			a.Warnings = append(a.Warnings, Warning{"sandbox (best-effort) not enforced: " + what + " needs " + why, about(w), -1})
			for _, m := range held {
				a.rules.DevMounts = append(a.rules.DevMounts, m.point)
			}
		}
	}

	// Hidden paths.
	conceal, err := canonical(spec.Conceal, "hide", spec.Pinned)
	if err != nil {
		return Applied{}, err
	}
	reveal, err := canonical(spec.Reveal, "reveal", spec.Pinned)
	if err != nil {
		return Applied{}, err
	}
	switch {
	case bwrap && len(hide.paths)+len(conceal.paths) > 0:
		useBwrap = true
		a.hides, a.Hide, a.Write = hides(hide.paths, conceal.paths, reveal.paths, a.Write)
		for _, w := range write.paths {
			if !slices.Contains(a.Write, w) {
				a.Warnings = append(a.Warnings, Warning{fmt.Sprintf("sandbox write path %s is hidden: it is neither readable nor writable", w), about(w), -1})
			}
		}
	case len(hide.paths) > 0:
		lack("hiding paths ("+strings.Join(hide.paths, ", ")+")", host.bwrapWhy())
	}

	a.rules.Write = a.Write

	// Network.
	var connect []int // the TCP ports Landlock allows, when it must
	tcp := false
	switch {
	case spec.Network && len(spec.Ports) > 0:
		tcp, connect = true, slices.Concat(spec.Ports, loopback)
	case !spec.Network && bwrap:
		useBwrap, a.unshareNet, a.Network = true, true, "off"
		a.rules.Relay = slices.Clone(spec.Loopback)
		for _, l := range spec.Loopback {
			if !filepath.IsAbs(l.Socket) {
				return Applied{}, fmt.Errorf("sandbox loopback port %d: its UNIX socket %q is not an absolute path", l.Port, l.Socket)
			}
			if i := slices.IndexFunc(a.Hide, func(h string) bool { return within(canonicalDir(l.Socket), h) }); i >= 0 {
				return Applied{}, fmt.Errorf("sandbox loopback port %d: its UNIX socket %s is in the hidden path %s, where the relay inside the sandbox cannot reach it: hide less", l.Port, l.Socket, a.Hide[i])
			}
		}
	case !spec.Network:
		tcp, connect = true, loopback
	}
	if tcp {
		if landlock(abiTCP) {
			useLandlock = true
			slices.Sort(connect)
			connect = slices.Compact(connect)
			a.rules.Net, a.rules.Connect, a.rules.UDP, a.Ports = true, connect, spec.Network, connect
			if !spec.Network {
				a.Network = "off"
				for _, p := range loopback {
					a.Warnings = append(a.Warnings, Warning{fmt.Sprintf("sandbox network off: Landlock alone cannot filter by address, so the loopback port %d "+
						"is open on every host, not only on the loopback interface (%s keeps the agent to acprun's port)", p, host.bwrapWhy()), -1, -1})
				}
			}
		} else {
			what, why := "allowed ports", host.landlockWhy(abiTCP)
			if !spec.Network {
				what, why = "network off", host.bwrapWhy()+", or "+why
			}
			lack(what, why)
		}
	}

	if (useBwrap || useLandlock) && !filterable() {
		lack("refusing setuid files", "a seccomp filter for "+runtime.GOARCH+", which acprun has not (it has one for amd64, arm64, riscv64, ppc64le and loong64)")
	}
	if len(missing) > 0 && level == Required {
		return Applied{}, fmt.Errorf("this host cannot enforce the sandbox: %s (level %s; best-effort runs with what the host can do)", strings.Join(missing, "; "), Required)
	}
	for _, m := range missing {
		a.Warnings = append(a.Warnings, Warning{"sandbox (best-effort) not enforced: " + m, -1, -1})
	}
	if useLandlock && !useBwrap && a.rules.FS {
		a.Warnings = append(a.Warnings, Warning{MetadataWarning(host), -1, -1})
	}
	switch {
	case useBwrap && useLandlock:
		a.Backend = "bubblewrap+landlock"
	case useBwrap:
		a.Backend = "bubblewrap"
	case useLandlock:
		a.Backend = "landlock"
	default:
		a.Backend = "none"
	}
	if useBwrap {
		a.bwrap, a.setpcap = host.Bwrap, host.Setpcap
	}
	if useBwrap || useLandlock {
		a.self = host.Self
	}
	return a, nil
}

// MetadataWarning is the warning of every Plan on host that restricts
// writes with Landlock alone: Landlock handles writing files, not changing
// what they are (chmod, chown, utimensat, setxattr and the inode flags'
// ioctl are none of its access rights), so the command still changes
// those of files outside the write paths that its user owns (but for the
// setuid bit, which the seccomp filter refuses everywhere).
func MetadataWarning(host Host) string {
	return "sandbox (landlock): Landlock restricts writing files, not changing their metadata: outside the write paths the agent can still " +
		"change the mode (but for the setuid bit, which no sandbox sets), times, extended attributes and flags of the files you own (run as root: nearly all), " +
		"with chmod, touch, setfattr or chattr; " + host.bwrapWhy() + " makes them read-only"
}

// paths are canonical paths, sorted, and those that do not exist.
type paths struct {
	paths   []string
	missing []string
	// first maps each path of paths and missing to the index of the first
	// entry given to canonical that names it.
	first map[string]int
}

// canonical makes ps absolute and resolves their symbolic links, so that
// both mechanisms see the file itself; "" entries are skipped, and
// duplicates removed. A path that does not exist goes to missing. A path
// that leads elsewhere than pinned says is an error; what names the list
// in it ("write").
func canonical(ps []string, what string, pinned map[string]string) (paths, error) {
	out := paths{first: map[string]int{}}
	for i, p := range ps {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return paths{}, fmt.Errorf("sandbox path %s: %w", p, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			real = abs
			out.missing = append(out.missing, abs)
		case err != nil:
			return paths{}, fmt.Errorf("sandbox path %s: %w", p, err)
		default:
			if then, ok := pinned[abs]; ok && then != real {
				return paths{}, fmt.Errorf("sandbox %s path %s led to %s when the run started and leads to %s now: "+
					"a symbolic link was put in its way since, which acprun does not follow", what, abs, then, real)
			}
			out.paths = append(out.paths, real)
		}
		if _, ok := out.first[real]; !ok {
			out.first[real] = i
		}
	}
	slices.Sort(out.paths)
	out.paths = slices.Compact(out.paths)
	return out, nil
}

// hides returns what bwrap hides for the canonical paths hide and
// conceal, and reveals again of reveal; the paths it hides (those inside
// another hidden path are hidden with it, unless revealed); and the write
// paths that stay writable, those not hidden (hiding wins). A reveal path
// is revealed when it lies inside a conceal path, and no hide path holds
// it.
func hides(hide, conceal, reveal, write []string) (hs []hidden, applied, writable []string) {
	type op struct {
		path string
		kind int // the order at the same path: hide, conceal, reveal
	}
	const (
		opHide = iota
		opConceal
		opReveal
	)
	var ops []op
	for kind, ps := range [][]string{hide, conceal, reveal} {
		for _, p := range ps {
			ops = append(ops, op{p, kind})
		}
	}
	// Parents before what they hold.
	slices.SortStableFunc(ops, func(x, y op) int { return cmp.Or(strings.Compare(x.path, y.path), x.kind-y.kind) })
	var done []op
	// under is the innermost op done that holds p (kind -1 for none).
	under := func(p string) int {
		kind, depth := -1, -1
		for _, d := range done {
			if within(p, d.path) && len(d.path) > depth {
				kind, depth = d.kind, len(d.path)
			}
		}
		return kind
	}
	for _, o := range ops {
		in := under(o.path)
		hiddenNow := in == opHide || in == opConceal
		switch {
		case o.kind == opReveal && in != opConceal:
			continue // outside what Conceal hides, or in a Hide path
		case o.kind != opReveal && hiddenNow:
			continue // hidden with what holds it
		}
		fi, err := os.Stat(o.path)
		hs = append(hs, hidden{path: o.path, dir: err == nil && fi.IsDir(), reveal: o.kind == opReveal})
		if o.kind != opReveal {
			applied = append(applied, o.path)
		}
		done = append(done, o)
	}
	for _, w := range write {
		if in := under(w); in != opHide && in != opConceal {
			writable = append(writable, w)
		}
	}
	slices.Sort(applied)
	return hs, applied, writable
}

// canonicalDir is p with the symbolic links of its directory resolved, as
// far as they resolve.
func canonicalDir(p string) string {
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

// within reports whether the canonical path p is dir or inside it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
