//go:build !linux

package e2e_test

import "testing"

// watchCreates skips the test: it needs Linux's inotify (see the Linux
// version).
func watchCreates(t *testing.T, dir, prefix string) <-chan string {
	t.Helper()
	t.Skip("watchCreates needs inotify")
	return nil
}
