package e2e_test

import (
	"strings"
	"testing"
)

// TestDashIsNoStdinForFiles: "-" reads stdin for --prompt and --request
// alone; given where acprun reads a file (scenarios, results, the
// config), the error says so and what to give, exit 2, with nothing run
// or written, rather than only that "-" does not exist.
func TestDashIsNoStdinForFiles(t *testing.T) {
	t.Parallel()
	const want = "-: no such file or directory; acprun reads this from a file, not from stdin: give the file's path"
	for _, args := range [][]string{
		{"validate", "-"},
		{"run", "-"},
		{"report", "-", "-o", "r.html"},
		{"merge", "-", "-o", "m.json"},
		{"run", "s.yaml", "--rerun-failed", "-"},
		{"run", "s.yaml", "--config", "-"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario})
			res := acprun(t, dir, args...)
			if first, _, _ := strings.Cut(res.stderr, "\n"); res.code != exitUsage || !strings.HasSuffix(first, want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %d and a line ending %q", res.code, res.stderr, exitUsage, want)
			}
			if got := dirNames(t, dir); len(got) != 1 || got[0] != "s.yaml" {
				t.Errorf("the directory holds %q after the command; want nothing run or written", got)
			}
		})
	}
}
