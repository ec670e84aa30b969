package testkit

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// envBound marks the test binary that PermissionsBind started again.
const envBound = "ACPRUN_TEST_PERMISSIONS_BIND"

// setprivArgs are the arguments of setpriv that drop the capabilities
// that let root pass file permissions, so that a command it runs (and
// everything that command starts) is held by them as any user is.
var setprivArgs = []string{
	"--inh-caps=-dac_override,-dac_read_search",
	"--bounding-set=-dac_override,-dac_read_search",
}

// PermissionsBind makes file permissions bind the rest of t (a file of
// mode 000 cannot be read). For a user other than root, and in the test
// binary it started again, it returns true at once. For root, it starts
// the test binary again under setpriv (see BoundCommand), running t
// alone, fails t when that run fails, and returns false: t is done. t is
// skipped when setpriv cannot be run.
func PermissionsBind(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(envBound) == "1" {
		return true
	}
	var run []string
	for part := range strings.SplitSeq(t.Name(), "/") {
		run = append(run, "^"+regexp.QuoteMeta(part)+"$")
	}
	name, args := BoundCommand(t, os.Args[0], "-test.run="+strings.Join(run, "/"), "-test.v")
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), envBound+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Errorf("%s run again where permissions bind: %v\n%s", t.Name(), err, out)
	}
	return false
}

// BoundCommand is the command line that runs name with args so that file
// permissions bind it and everything it starts: as it is for a user other
// than root; for root, under setpriv, without the capabilities that let
// root pass them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH). t is skipped
// when root and setpriv cannot be found.
func BoundCommand(t testing.TB, name string, args ...string) (string, []string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return name, args
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("root passes file permissions, and setpriv, which would drop the capabilities that let it, is not installed")
	}
	return setpriv, append(append(append([]string{}, setprivArgs...), "--", name), args...)
}
