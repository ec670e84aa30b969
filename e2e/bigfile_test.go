package e2e_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChangesOfHugeFiles: files the agent made huge (sparse: reading one
// would take hours) are listed as changes from their sizes, without
// being read: the run ends at once, workspace.protect and files.unchanged
// see them.
func TestChangesOfHugeFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"proj/data.txt": "data\n",
		"proj/keep.txt": "keep\n",
		"huge.mock.yaml": `turns:
  - steps:
      - spawn: 'truncate -s 1T big.bin && truncate -s 1T data.txt'
      - text: done
`,
		"s.yaml": `name: protect
agent: {command: [acprun, mock-agent, huge.mock.yaml]}
workspace: {from: proj, protect: [data.txt]}
permissions: {default: deny}
turns:
  - prompt: hi
---
name: unchanged
agent: {command: [acprun, mock-agent, huge.mock.yaml]}
workspace: {from: proj}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {files: {unchanged: [big.bin, keep.txt]}}
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != exitInvalid {
		t.Errorf("exit %d, want %d (protect was tampered with)\n%s", res.code, exitInvalid, res.stderr)
	}
	for _, name := range []string{"protect", "unchanged"} {
		w := workspaceOf(t, scenarioNamed(t, out, name))
		if diff := cmp.Diff([][]string{{"big.bin"}, {"data.txt"}, {}}, [][]string{w.Created, w.Modified, w.Deleted}); diff != "" {
			t.Errorf("%s: created, modified, deleted (-want +got):\n%s", name, diff)
		}
	}
	if p := scenarioNamed(t, out, "protect"); p.Status != "invalid" || p.Invalid == nil || !cmp.Equal([]string{"data.txt"}, p.Invalid.Files) {
		t.Errorf("protect: status %s, invalid %+v; want invalid, the agent changed data.txt", p.Status, p.Invalid)
	}
	u := scenarioNamed(t, out, "unchanged")
	if u.Status != "failed" || len(u.Turns) != 1 || !strings.Contains(strings.Join(u.Turns[0].Failures, "\n"), `"big.bin" was changed: big.bin`) {
		t.Errorf("unchanged: status %s, turns %+v; want failed, big.bin changed", u.Status, u.Turns)
	}
}
