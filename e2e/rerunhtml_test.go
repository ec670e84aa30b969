package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportRerunCardIsNoVerdict: in the HTML report of a scenario that
// passed on its retry, the try that errored and ran again is a rerun card,
// as its line (RERUN) and the step summary say: filtering the cards by
// status error shows as many as the page counts errored (none), by run
// and by acprun report alike.
func TestReportRerunCardIsNoVerdict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": flakyScenario(dir, "")})
	res, out := runResults(t, dir, "s.yaml", "--html", "run.html")
	if res.code != 0 || out.Summary.Errored != 0 || out.Summary.Retried != 1 {
		t.Fatalf("exit %d, summary %+v; want 0, no error and one rerun\n%s", res.code, out.Summary, res.stderr)
	}
	if res := acprun(t, dir, "report", "out.json", "-o", "report.html"); res.code != 0 {
		t.Fatalf("report: exit %d\n%s", res.code, res.stderr)
	}
	status := regexp.MustCompile(`<section class="scenario [a-z]+" id="s\d+" data-status="([a-z]+)"`)
	for _, name := range []string{"run.html", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var cards []string
		for _, m := range status.FindAllStringSubmatch(string(data), -1) {
			cards = append(cards, m[1])
		}
		if got := strings.Join(cards, ","); got != "rerun,passed" {
			t.Errorf("%s: cards %s, want rerun,passed (the errored try ran again: no verdict)", name, got)
		}
		if !strings.Contains(string(data), `id="count-errored" data-count="0"`) {
			t.Errorf("%s: the errored count is not 0", name)
		}
	}
}
