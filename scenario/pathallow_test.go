package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestPathOnlyAllowWarns: an allow rule with a path and no kind, command
// or tool also allows any command whose redirections stay under it: a
// warning says so, at its path. Deny rules and rules with a kind, command
// or tool are not warned about.
func TestPathOnlyAllowWarns(t *testing.T) {
	src := `name: x
agent: {command: [a]}
permissions:
  allow:
    - path: "src/**"
    - {kind: [read, edit], path: "src/**"}
    - {command: "echo *", path: "src/**"}
    - {tool: Edit, path: "src/**"}
  deny:
    - path: "**/.env"
turns:
  - prompt: hi
`
	_, warns, err := scenario.LoadBytes("w.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.Pos.String()+": "+w.Msg)
	}
	want := []string{
		"w.yaml:5:7: an allow rule with a path and no kind, command or tool also allows any command whose redirections stay under it (`rm -rf ~ > src/log`); add kind: [read, edit] or a command",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
