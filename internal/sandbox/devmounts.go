package sandbox

import (
	"slices"
	"strings"
)

// devMount is a mount of a filesystem of devices, as
// /proc/self/mountinfo lists it: devpts (pseudo-terminals) or devtmpfs
// (every device of the host, its terminals among them).
type devMount struct {
	point  string // where it is mounted (canonical)
	fstype string // "devpts" or "devtmpfs"
}

// terminal reports whether name, an entry of /dev, is a terminal: one of
// the user's (its pseudo-terminals in pts, virtual consoles and serial
// lines tty*, hypervisor consoles hvc*, the console, an LXC container's
// console and ttys in lxc, IBM 3270 terminals in 3270), the controlling
// terminal (tty), the opener of new ones (ptmx), or a virtual console's
// screen (vcs*).
func terminal(name string) bool {
	switch name {
	case "console", "ptmx", "pts", "lxc", "3270":
		return true
	}
	return strings.HasPrefix(name, "tty") || strings.HasPrefix(name, "vcs") || strings.HasPrefix(name, "hvc")
}

// holdsTerminals reports whether m, whose root in its filesystem is
// root (mountinfo's fourth field), may hold a terminal: any mount of
// devpts, a whole devtmpfs (root "/", as /dev and a chroot's bind of it
// are), or a part of one that is a terminal or holds some (/tty1, /pts,
// /lxc: see terminal). A bind of one other device, as containers make
// /dev/null, /dev/urandom or a GPU's node (rootless Podman and Docker,
// Flatpak, Apptainer, bubblewrap's --dev), holds none: it stays readable,
// and a write path may hold it.
func (m devMount) holdsTerminals(root string) bool {
	if m.fstype == "devpts" {
		return true
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(root, "/"), "/")
	return first == "" || terminal(first)
}

// heldMounts returns the mounts of ms at or beneath the canonical path w,
// sorted by mount point, each once: under Landlock alone, a write path
// that holds one lets the command write the devices in it, as a Landlock
// rule allows everything beneath its path and cannot leave part of it
// out (bubblewrap binds the write paths without devices).
func heldMounts(w string, ms []devMount) []devMount {
	var held []devMount
	for _, m := range ms {
		if within(m.point, w) {
			held = append(held, m)
		}
	}
	slices.SortFunc(held, func(x, y devMount) int {
		if c := strings.Compare(x.point, y.point); c != 0 {
			return c
		}
		return strings.Compare(x.fstype, y.fstype)
	})
	return slices.Compact(held)
}

// keepOut says what Plan cannot enforce under Landlock alone for the
// write path w, which holds the mounts held, and what it needs instead
// on host: as a "what needs why" of Plan's.
func keepOut(w string, held []devMount, host Host) (what, why string) {
	parts := make([]string, len(held))
	for i, m := range held {
		parts[i] = "the devices (terminals among them) of the devtmpfs mount " + m.point
		if m.fstype == "devpts" {
			parts[i] = "the terminals of the devpts mount " + m.point
		}
	}
	list := parts[len(parts)-1]
	if len(parts) > 1 {
		list = strings.Join(parts[:len(parts)-1], ", ") + " and " + list
	}
	it, mount, unmounted := "it", "that mount", "the mount"
	if len(held) > 1 {
		it, mount, unmounted = "them", "those mounts", "them"
	}
	return "keeping " + list + " out of the write path " + w + ", which holds " + it + ",",
		host.bwrapWhy() + ", whose binds have no devices, or a write path without " + mount + ", or " + unmounted + " unmounted"
}
