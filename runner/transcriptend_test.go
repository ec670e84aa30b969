package runner

import (
	"os"
	"strings"
	"testing"
)

// TestTranscriptRecordsTheAgentsExit: an agent that exits on its own
// during the scenario (here between turns, with code 3) has its exit as
// its transcript's last line, {"t": ms, "dir": "a2c", "exit": {"code": 3}},
// so that a replay ends where it did; an agent acprun stops at the end has
// none.
func TestTranscriptRecordsTheAgentsExit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script, want string
	}{
		{"exited", "turns:\n  - steps: [{text: done}]\n    after: [{exit: 3}]\n  - steps: [{text: never}]\n", `"dir":"a2c","exit":{"code":3}}`},
		{"stopped", "turns:\n  - steps: [{text: done}]\n  - steps: [{text: two}]\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			rep := runScenarios(t, Options{Transcripts: dir}, "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n  - prompt: two\n",
				map[string]string{"agent.mock.yaml": tc.script})
			data, err := os.ReadFile(rep.Scenarios[0].Transcript)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			last := lines[len(lines)-1]
			switch {
			case tc.want != "" && !strings.HasSuffix(last, tc.want):
				t.Errorf("last line %s, want it to end %s", last, tc.want)
			case tc.want == "" && strings.Contains(string(data), `"exit"`):
				t.Errorf("transcript holds an exit:\n%s", data)
			}
		})
	}
}
