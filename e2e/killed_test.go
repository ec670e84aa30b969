package e2e_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/testkit"
)

// TestAgentDiesWithAcprun: when acprun is killed with SIGKILL mid-turn
// (a CI job's timeout, the OOM killer), which it cannot catch to stop its
// agent, the agent goes with it, although it ignores the end of its input,
// SIGTERM and the cancel, and runs in a process group of its own: without
// a sandbox, inside Landlock alone (acprun's helper execs the agent) and
// inside bubblewrap where the host has it.
func TestAgentDiesWithAcprun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, sandbox string
		env           []string
	}{
		{"no sandbox", "", nil},
		{"landlock", "sandbox: {level: best-effort}\n", []string{sandbox.EnvTestNoBwrap + "=1"}},
		{"bubblewrap", "sandbox: {level: best-effort}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			marker := fmt.Sprintf("killed-%d-%s", os.Getpid(), strings.ReplaceAll(tc.name, " ", "-"))
			writeFiles(t, dir, map[string]string{
				"stubborn.mock.yaml": "onCancel: ignore\nignoreSigterm: true\nignoreEOF: true\nturns:\n  - steps: [{text: working}, {hang: true}]\n",
				"s.yaml": "name: k\nagent: {command: [acprun, mock-agent, stubborn.mock.yaml], env: {KILLED_MARKER: " + marker + "}}\n" +
					tc.sandbox + "turnTimeout: 1h\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
			})
			ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
			defer cancel()
			run := startWatchedEnv(t, ctx, dir, tc.env, "run", "s.yaml", "-o", "out.json", "-v")
			run.waitLine("[k] turn 1 started") // the agent runs, and will hang
			pids := testkit.Processes(t, testkit.WithEnv("KILLED_MARKER="+marker))
			if len(pids) == 0 {
				t.Fatal("no process carries the agent's marker")
			}
			var waits []func() bool
			for _, pid := range pids {
				waits = append(waits, testkit.Watch(t, pid))
			}
			if err := run.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			run.cmd.Wait()
			for i, exited := range waits {
				if !exited() {
					t.Errorf("process %d (%s) still runs %v after acprun was killed", pids[i], testkit.Cmdline(pids[i]), testkit.Failsafe)
				}
			}
			testkit.Leftovers(t, testkit.WithEnv("KILLED_MARKER="+marker)) // killed at the test's end
		})
	}
}
