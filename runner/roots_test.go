package runner

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRootWarnings: each client root that is no directory is warned of at
// its place, named as the scenario gives it: in the workspace's source
// for a root the copy lacks, not the copy's temporary path.
func TestRootWarnings(t *testing.T) {
	t.Parallel()
	rep := runScenarios(t, Options{}, "name: roots\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\nworkspace: {from: ./repo}\n"+
		"client: {roots: [./repo, ./repo/missing, ./repo/a.txt]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		map[string]string{"repo/a.txt": "a\n", "ok.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"})
	r := rep.Scenarios[0]
	dir := filepath.Dir(r.File)
	var got []string
	for _, w := range r.Warnings {
		got = append(got, strings.ReplaceAll(w, dir, "DIR"))
	}
	want := []string{
		"DIR/s.yaml:4:26: client.roots: root DIR/repo/missing does not exist in the workspace copy: the agent's file and terminal requests will fail",
		"DIR/s.yaml:4:42: client.roots: root DIR/repo/a.txt is not a directory in the workspace copy: the agent's file and terminal requests will fail",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
