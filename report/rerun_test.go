package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestRerunMatchesFileNameAndAgent checks what --rerun-failed picks: the
// scenarios whose last try failed or errored, by file (however it is
// spelt), name and named agent, whatever their attempt.
func TestRerunMatchesFileNameAndAgent(t *testing.T) {
	t.Chdir(t.TempDir())
	res := func(name, agent string, attempt int, status report.Status, retried bool) report.Result {
		return report.Result{Name: name, File: "./suite/a.yaml", Agent: report.AgentInfo{Name: agent}, Attempt: attempt, Status: status, Retried: retried}
	}
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		res("login", "claude", 1, report.StatusPassed, false),
		res("login", "claude", 2, report.StatusFailed, false), // one failed attempt: rerun
		res("login", "codex", 1, report.StatusPassed, false),
		res("flaky", "", 0, report.StatusFailed, true), // retried, then passed
		res("flaky", "", 0, report.StatusPassed, false),
		res("crash", "", 0, report.StatusError, false),
	}}
	f, err := os.Create("prev.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Write(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()
	set, err := report.ReadRerun("prev.json")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("suite/a.yaml")
	sc := func(file, name, agent string) *scenario.Scenario {
		return &scenario.Scenario{Name: name, File: file, Agent: scenario.Agent{Name: agent}}
	}
	var got []string
	for _, s := range set.Filter([]*scenario.Scenario{
		sc("suite/a.yaml", "login", "claude"), sc("suite/a.yaml", "login", "codex"),
		sc(abs, "flaky", ""), sc(abs, "crash", ""), sc("suite/b.yaml", "crash", ""),
	}) {
		got = append(got, s.File+" "+s.Name+" "+s.Agent.Name)
	}
	if diff := cmp.Diff([]string{"suite/a.yaml login claude", abs + " crash "}, got); diff != "" {
		t.Errorf("rerun (-want +got):\n%s", diff)
	}
}
