package output_test

import (
	"fmt"
	"testing"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
)

// TestKept checks the line a rerun's summary ends with when it kept
// earlier results in the file it replaced: each scenario once, by name
// and named agent, with the status of its first attempt that did not
// pass ("not run" for one that never started), names printable, the
// first ten named and the rest counted; nothing when nothing was kept.
func TestKept(t *testing.T) {
	if got := output.Kept("last.json", nil); got != "" {
		t.Errorf("nothing kept: %q, want none", got)
	}
	retried := report.Result{Name: "crash", File: "a.yaml", Status: report.StatusInvalid, Retried: true}
	notRun := report.Result{Name: "late", File: "a.yaml", Status: report.StatusInterrupted, NotRun: true}
	kept := []report.Result{
		{Name: "login", File: "a.yaml", Agent: report.AgentInfo{Name: "claude"}, Attempt: 1, Status: report.StatusPassed},
		{Name: "login", File: "a.yaml", Agent: report.AgentInfo{Name: "claude"}, Attempt: 2, Status: report.StatusFailed},
		{Name: "login", File: "a.yaml", Agent: report.AgentInfo{Name: "claude"}, Attempt: 3, Status: report.StatusError},
		retried,
		{Name: "crash", File: "a.yaml", Status: report.StatusError},
		notRun,
		{Name: "evil\x1b[2J", File: "b.yaml", Status: report.StatusFailed},
	}
	want := "4 scenarios not selected, kept in last.json for the next --rerun-failed: login [claude] (failed), crash (error), late (not run), evil\\x1b[2J (failed)\n"
	if got := output.Kept("last.json", kept); got != want {
		t.Errorf("Kept:\n got %q\nwant %q", got, want)
	}
	var many []report.Result
	for i := range 12 {
		many = append(many, report.Result{Name: fmt.Sprintf("s%d", i+1), File: "a.yaml", Status: report.StatusFailed})
	}
	want = "12 scenarios not selected, kept in r.json for the next --rerun-failed: s1 (failed), s2 (failed), s3 (failed), s4 (failed), s5 (failed), " +
		"s6 (failed), s7 (failed), s8 (failed), s9 (failed), s10 (failed) and 2 more\n"
	if got := output.Kept("r.json", many); got != want {
		t.Errorf("Kept of 12:\n got %q\nwant %q", got, want)
	}
	if got, want := output.Kept("r.json", many[:1]), "1 scenario not selected, kept in r.json for the next --rerun-failed: s1 (failed)\n"; got != want {
		t.Errorf("Kept of 1:\n got %q\nwant %q", got, want)
	}
}

// TestKeptNotRun checks the line a rerun's summary ends with when it kept
// the earlier results of scenarios it never started in the file it
// replaced: named as Kept names them, with their earlier status; nothing
// when nothing was kept.
func TestKeptNotRun(t *testing.T) {
	if got := output.KeptNotRun("last.json", nil); got != "" {
		t.Errorf("nothing kept: %q, want none", got)
	}
	kept := []report.Result{
		{Name: "f2", File: "f2.yaml", Status: report.StatusFailed},
		{Name: "f3", File: "f3.yaml", Agent: report.AgentInfo{Name: "claude"}, Status: report.StatusError},
	}
	want := "2 scenarios not run, their earlier results kept in last.json for the next --rerun-failed: f2 (failed), f3 [claude] (error)\n"
	if got := output.KeptNotRun("last.json", kept); got != want {
		t.Errorf("KeptNotRun:\n got %q\nwant %q", got, want)
	}
	want = "1 scenario not run, its earlier results kept in last.json for the next --rerun-failed: f2 (failed)\n"
	if got := output.KeptNotRun("last.json", kept[:1]); got != want {
		t.Errorf("KeptNotRun of 1:\n got %q\nwant %q", got, want)
	}
}
