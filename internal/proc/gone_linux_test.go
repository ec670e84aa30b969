package proc_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/testkit"
)

// TestGroupIsKilledWhenTheLeaderExits: a background child in the group
// does not outlive the leader, with or without Reap.
func TestGroupIsKilledWhenTheLeaderExits(t *testing.T) {
	for _, reap := range []bool{false, true} {
		out, err := proc.NewOutput(100)
		if err != nil {
			t.Fatal(err)
		}
		// The child closes stdout so that only the leader's exit ends it.
		p := start(t, proc.Config{Args: sh("sleep 1000 >/dev/null & echo $!"), Stdout: out.File(), Readers: []proc.Reader{out}, Reap: reap})
		await(t, p.Done(), "Done")
		child, err := strconv.Atoi(strings.TrimSpace(string(out.Tail().Bytes())))
		if err != nil {
			t.Fatal(err)
		}
		if !testkit.Exited(t, child) {
			t.Errorf("process %d still runs %v after its leader exited", child, testkit.Failsafe)
		}
	}
}
