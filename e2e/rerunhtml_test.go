package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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

// TestReportShownCountsScenarios: the HTML report of a scenario that passed
// on its retry says it shows 1 scenario of 1, as the summary counts them,
// its rerun card counted apart, in the file and in a browser, where the
// status filter changes the counts with what it shows.
func TestReportShownCountsScenarios(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": flakyScenario(dir, "")})
	res, out := runResults(t, dir, "s.yaml", "--html", "run.html")
	if res.code != 0 || out.Summary.Scenarios != 1 || out.Summary.Retried != 1 {
		t.Fatalf("exit %d, summary %+v; want 0, one scenario and one rerun\n%s", res.code, out.Summary, res.stderr)
	}
	page := string(readFiles(t, dir, "run.html")["run.html"])
	if want := `<span id="shown" aria-live="polite">1 of 1 scenario shown, 1 of 1 rerun</span>`; !strings.Contains(page, want) {
		t.Errorf("the page lacks %s", want)
	}

	browser, driver := findChromium()
	if browser == "" || driver == "" {
		if os.Getenv(envChromiumRequired) == "1" {
			t.Fatal("chromium or chromedriver not found, and " + envChromiumRequired + "=1 requires the browser tests")
		}
		t.Skip("chromium or chromedriver not found: the browser part is skipped")
	}
	path, err := filepath.Abs(filepath.Join(dir, "run.html"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	wd := startWebDriver(t, ctx, driver, browser)
	wd.open(path)
	for _, tt := range []struct{ status, want string }{
		{"", "1 of 1 scenario shown, 1 of 1 rerun"},
		{"rerun", "0 of 1 scenario shown, 1 of 1 rerun"},
		{"passed", "1 of 1 scenario shown, 0 of 1 rerun"},
	} {
		var got string
		wd.script(`
			var f = document.getElementById("f-status");
			f.value = "`+tt.status+`";
			f.dispatchEvent(new Event("input"));
			return document.getElementById("shown").textContent;`, &got)
		if got != tt.want {
			t.Errorf("status filter %q: the page says %q, want %q", tt.status, got, tt.want)
		}
	}
}

// TestReportNotRunCountedApart: the HTML report of a run stopped at its
// first failure counts the scenarios it never started as not run, as the
// summary's totals line does, not as interrupted (none was cut short):
// in its title, its counts and its cards.
func TestReportNotRunCountedApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios("fail", "pass", "pass")})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--fail-fast", "--html", "run.html")
	if res.code != exitFailed || out.Summary.NotRun != 2 || !strings.Contains(res.stderr, "\n0 passed, 1 failed, 2 not run in ") {
		t.Fatalf("exit %d, summary %+v; want 1 failed, 2 not run\n%s", res.code, out.Summary, res.stderr)
	}
	page := string(readFiles(t, dir, "run.html")["run.html"])
	for _, want := range []string{
		"<title>acprun report: 0 passed, 1 failed, 0 errored, 2 not run</title>",
		`id="count-not-run" data-count="2"`,
		`<section class="scenario not-run" id="s2" data-status="not-run"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, "count-interrupted") || strings.Contains(page, `data-status="interrupted"`) {
		t.Error("the page counts or shows scenarios never started as interrupted")
	}
}
