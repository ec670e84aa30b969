package testkit

import (
	"os"
	"testing"
)

// KernelSetting is for a test that has a sandboxed command try to write
// setting, a file under /proc/sys, back with the value it holds: it skips
// the test unless it runs as root (for anyone else the settings are not
// writable anyway) and setting can be read, and when the test ends it
// fails it and puts the value back if the host's setting changed.
func KernelSetting(t testing.TB, setting string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: the kernel's settings are not writable anyway")
	}
	before, err := os.ReadFile(setting)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if now, err := os.ReadFile(setting); err == nil && string(now) != string(before) {
			t.Errorf("%s was %q and is %q: restored", setting, before, now)
			_ = os.WriteFile(setting, before, 0)
		}
	})
}
