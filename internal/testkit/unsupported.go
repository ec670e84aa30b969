//go:build !linux

package testkit

import "testing"

// Watch skips the test: it needs Linux's pidfds (see the Linux version).
func Watch(t testing.TB, pid int) (exited func() bool) {
	t.Helper()
	t.Skip("testkit.Watch needs Linux")
	return nil
}

// Exited skips the test: it needs Linux's pidfds (see the Linux version).
func Exited(t testing.TB, pid int) bool {
	t.Helper()
	t.Skip("testkit.Exited needs Linux")
	return false
}

// ReadOnlyDir skips the test: it needs Linux (see the Linux version).
func ReadOnlyDir(t testing.TB, dir string) {
	t.Helper()
	t.Skip("testkit.ReadOnlyDir needs Linux")
}

// SmallDisk skips the test: it needs Linux's tmpfs (see the Linux
// version).
func SmallDisk(t testing.TB, size string) string {
	t.Helper()
	t.Skip("testkit.SmallDisk needs Linux")
	return ""
}
