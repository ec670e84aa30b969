//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

// landlockABI returns 0: Landlock is Linux's.
func landlockABI() (int, string) { return 0, "Landlock is Linux only" }

// restrictExec fails: Plan never asks for Landlock without it.
func restrictExec(rules, string, []string, []string) error {
	return errors.New("no Landlock on this system: it is Linux only")
}

// openWrite fails: Plan never asks for Landlock without it.
func openWrite([]string) ([]*os.File, []openPath, error) {
	return nil, nil, errors.New("no Landlock on this system: it is Linux only")
}

// deviceMounts returns none: Plan never asks for Landlock off Linux.
func deviceMounts() ([]devMount, error) { return nil, nil }

// filterable reports false: the seccomp filter is Linux's.
func filterable() bool { return false }

// keepsSetpcap reports false: bubblewrap is Linux's.
func keepsSetpcap() bool { return false }

// dropCapabilities does nothing: capabilities are Linux's, and the helper
// never runs elsewhere (Plan finds no backend).
func dropCapabilities() error { return nil }
