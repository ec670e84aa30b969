package e2e_test

import (
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/scenario"
)

// TestExamplesLoad loads every example scenario, the real-agent ones too
// (with their API keys faked), so that none can rot.
func TestExamplesLoad(t *testing.T) {
	t.Parallel()
	fakeEnv := func(name string) (string, bool) { return "fake-" + name, true }
	for _, dir := range []string{filepath.Join(root, "examples"), filepath.Join(root, "examples", "_real-agents")} {
		scs, _, err := scenario.Load([]string{dir}, scenario.LoadOptions{LookupEnv: fakeEnv})
		if err != nil {
			t.Errorf("load %s:\n%v", dir, err)
			continue
		}
		if len(scs) == 0 {
			t.Errorf("load %s: no scenarios", dir)
		}
	}
}
