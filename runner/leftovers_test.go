package runner

import (
	"os"
	"strings"
	"testing"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/reap"
)

// TestTerminalKeepsTheScenarioMark: an agent that sets the mark's
// variable in terminal/create's env does not unmark the terminal: it gets
// a mark inside the scenario's, which the scenario's end kills.
func TestTerminalKeepsTheScenarioMark(t *testing.T) {
	root := t.TempDir()
	m := reap.New()
	c := newTestClient(t, ClientConfig{
		Terminal: true, Cwd: root, Roots: []string{root}, Policy: approve.AllowAll(),
		Env: m.Set(os.Environ()),
	})
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{
		Command: `echo "$` + reap.Var + `"`,
		Env:     []acp.EnvVariable{{Name: reap.Var, Value: "forged"}},
	})
	if _, _, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id)); err != nil {
		t.Fatal(err)
	}
	res, _, err := clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := res["output"].(string); !strings.HasPrefix(out, string(m)+".") {
		t.Errorf("the terminal's %s = %q, want a mark inside %q", reap.Var, out, m)
	}
}

func TestShortCommand(t *testing.T) {
	long := strings.Repeat("a", 79) + "éé"
	for _, tt := range []struct{ in, want string }{
		{"", "(no command line)"},
		{"sleep 1000", "sleep 1000"},
		{long, strings.Repeat("a", 79) + "…"},
	} {
		if got := shortCommand(tt.in); got != tt.want {
			t.Errorf("shortCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
