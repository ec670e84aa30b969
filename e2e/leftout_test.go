package e2e_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFilesLeftOutOfTheCopySaySo: a FIFO of a workspace's source, which
// the copy leaves out, fails files.exists saying that the source has it
// but as a FIFO a copy leaves out, by its path and by a glob, rather than
// only that it does not exist.
func TestFilesLeftOutOfTheCopySaySo(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	scenario := `name: fifo
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
expect:
  files:
    exists: [pipes/in, "pipes/*", a.txt]
turns:
  - prompt: hi
`
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":   "a\n",
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"s.yaml":          scenario,
	})
	if err := os.Mkdir(filepath.Join(dir, "fixture", "pipes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fixture", "pipes", "in"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	sc := scenarioNamed(t, out, "fifo")
	const why = "the workspace's source has it, but as a FIFO, which a copy leaves out"
	want := []string{
		posAfter(t, "s.yaml", scenario, "exists:", "pipes/in") + `: files.exists: "pipes/in" does not exist: ` + why,
		posAfter(t, "s.yaml", scenario, "exists:", `"pipes/*"`) + `: files.exists: "pipes/*" matches no path of the workspace: the workspace's source has pipes/in, but as a FIFO, which a copy leaves out`,
	}
	if diff := cmp.Diff(want, sc.Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}
