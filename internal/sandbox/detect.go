package sandbox

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Environment variables of the test seams: they can only weaken what
// Detect finds.
const (
	// EnvTestLandlockABI lowers the Landlock ABI Detect reports to its
	// value (a number; 0: no Landlock).
	EnvTestLandlockABI = "ACPRUN_TEST_LANDLOCK_ABI"
	// EnvTestNoBwrap, set to 1, makes Detect report no bubblewrap.
	EnvTestNoBwrap = "ACPRUN_TEST_NO_BWRAP"
)

// Host is what a host can enforce. Tests may change it (lower the ABI,
// drop bubblewrap) before they Plan on it.
type Host struct {
	// LandlockABI is the Landlock ABI version the kernel offers, 0 for
	// none.
	LandlockABI int
	// LandlockNote says why LandlockABI is what it is when that is not
	// simply what the kernel offers ("not enabled in this kernel", "lowered
	// from 7 by ACPRUN_TEST_LANDLOCK_ABI=3").
	LandlockNote string
	// Self is acprun's own executable, the helper that applies Landlock
	// and starts bubblewrap (re-executed with ExecArg); "" when it is
	// unknown: then neither mechanism is used.
	Self string
	// Bwrap is the path of a bubblewrap that works here, "" when there is
	// none.
	Bwrap string
	// NoBwrap says why Bwrap is "": not found, or how it failed.
	NoBwrap string
	// Setpcap says that acprun runs as root with CAP_SETPCAP: bubblewrap,
	// which leaves a root's command the bounding set, keeps that
	// capability for the helper inside, which empties the bounding set
	// with it and drops it before the command (see bwrapBase).
	Setpcap bool
}

// Detect finds what this host can enforce: the Landlock ABI of the kernel,
// and whether bubblewrap (bwrap in the PATH) is there and can create the
// sandbox Wrap asks for (it runs it once). Self is os.Executable (a caller
// whose acprun is another executable sets it). It honours the test seams
// EnvTestLandlockABI and EnvTestNoBwrap, read from environ (NAME=value
// entries, the last one of a name winning): the environment a run was
// given (the process's, os.Environ, unless its caller says otherwise),
// which its tests set instead of the process's.
func Detect(environ []string) Host {
	getenv := func(name string) (value string, ok bool) {
		for _, kv := range environ {
			if v, found := strings.CutPrefix(kv, name+"="); found {
				value, ok = v, true
			}
		}
		return value, ok
	}
	var h Host
	h.LandlockABI, h.LandlockNote = landlockABI()
	self, err := os.Executable()
	if err != nil {
		h.LandlockABI, h.LandlockNote = 0, fmt.Sprintf("acprun's own executable is unknown (%v)", err)
		h.NoBwrap = h.LandlockNote
		return h
	}
	h.Self = self
	if v, ok := getenv(EnvTestLandlockABI); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < h.LandlockABI {
			h.LandlockNote = fmt.Sprintf("lowered from %d by %s=%s", h.LandlockABI, EnvTestLandlockABI, v)
			h.LandlockABI = n
		}
	}
	if v, _ := getenv(EnvTestNoBwrap); v == "1" {
		h.NoBwrap = EnvTestNoBwrap + "=1"
		return h
	}
	h.Setpcap = keepsSetpcap()
	h.Bwrap, h.NoBwrap = findBwrap(h.Setpcap)
	return h
}

// findBwrap returns the path of bwrap when it runs a sandbox here, or why
// not; setpcap is Host's.
func findBwrap(setpcap bool) (path, why string) {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return "", "bwrap not found in PATH (Debian and Ubuntu: apt-get install bubblewrap)"
	}
	// The mounts and namespaces Wrap asks for; the command inside is bwrap
	// itself, which is there whatever else is.
	args := append(bwrapBase(true, setpcap), "--", path, "--version")
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		msg := cmp.Or(strings.TrimSpace(string(out)), err.Error())
		return "", fmt.Sprintf("%s cannot create a sandbox here: %s", path, msg)
	}
	return path, ""
}

// bwrapWhy says what is missing without bubblewrap.
func (h Host) bwrapWhy() string {
	switch {
	case h.Bwrap == "":
		return "bubblewrap (" + h.NoBwrap + ")"
	case h.Self == "":
		return "bubblewrap (acprun's own executable is unknown: it starts bwrap)"
	}
	return "bubblewrap"
}

// landlockWhy says what is missing without Landlock ABI abi.
func (h Host) landlockWhy(abi int) string {
	kernel := map[int]string{abiWrite: "Linux 6.2", abiTCP: "Linux 6.7"}[abi]
	have := fmt.Sprintf("this host has ABI %d", h.LandlockABI)
	if h.LandlockABI == 0 {
		have = "this host has no Landlock"
	}
	if h.LandlockNote != "" {
		have += ": " + h.LandlockNote
	}
	return fmt.Sprintf("Landlock ABI %d (%s; %s)", abi, kernel, have)
}
