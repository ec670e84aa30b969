package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestAuthEnv: each variable the agent expects its credentials in is said
// set or not set, agent.env over the environment, an empty value as not
// set, and no value ever shown.
func TestAuthEnv(t *testing.T) {
	t.Parallel()
	a := scenario.Agent{AuthEnv: []string{"A_KEY", "B_KEY", "C_KEY", "D_KEY"}, Env: map[string]string{"B_KEY": "from-env", "C_KEY": ""}}
	got := AuthEnv(a, []string{"A_KEY=sk-secret", "C_KEY=shadowed", "D_KEY="})
	want := []string{"A_KEY (set)", "B_KEY (set)", "C_KEY (not set)", "D_KEY (not set)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AuthEnv (-want +got):\n%s", diff)
	}
	if got := AuthEnv(scenario.Agent{}, []string{"A_KEY=x"}); got != nil {
		t.Errorf("AuthEnv of an agent with no auth env = %q, want none", got)
	}
}
