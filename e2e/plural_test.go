package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCountsOfOneAreSingular checks the wording of counts of one wherever
// acprun prints them: a failure message, a warning of the results, the
// summary, and the HTML report's counts and chart.
func TestCountsOfOneAreSingular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// Four lines that are not JSON-RPC: three warnings name one each,
		// a fourth says how many more there are.
		"four.mock.yaml": "turns:\n  - steps:\n" + strings.Repeat("      - garbage: \"not json\"\n", 4) +
			"      - permission: {toolCallId: c1, title: Read x, kind: read}\n      - text: done\n",
		"one.mock.yaml": "turns:\n  - steps: [{garbage: \"not json\"}, {text: done}]\n",
		"four.yaml": "name: four\nagent: {command: [acprun, mock-agent, four.mock.yaml]}\npermissions: {default: deny}\n" +
			"expect: {denied: 0}\nturns: [{prompt: hi}]\n",
		"one.yaml": "name: one\nagent: {command: [acprun, mock-agent, one.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})

	res, out := runResults(t, dir, "four.yaml")
	if res.code != 1 || len(out.Scenarios) != 1 {
		t.Fatalf("exit %d, %d scenarios\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	sc := out.Scenarios[0]
	if f := strings.Join(sc.Failures, "\n"); !strings.Contains(f, "four.yaml:4:18: 1 permission request denied, want 0") {
		t.Errorf("failures:\n%s\nwant one saying 1 permission request denied", f)
	}
	if w := strings.Join(sc.Warnings, "\n"); !strings.Contains(w, "\n1 more protocol violation (see violations)") {
		t.Errorf("warnings:\n%s\nwant one saying 1 more protocol violation", w)
	}

	res = acprun(t, dir, "run", "one.yaml", "-o", "one.json", "--html", "one.html")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "\n1 passed, 0 failed, 1 warning in ") {
		t.Errorf("summary:\n%s\nwant 1 warning", res.stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "one.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`>1</span> scenario</div>`, `>1</span> warning</div>`, `<title>end_turn: 1 turn</title>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML report does not hold %s", want)
		}
	}
	for _, bad := range []string{`>1</span> scenarios<`, `>1</span> warnings<`, `: 1 turns<`} {
		if strings.Contains(string(page), bad) {
			t.Errorf("the HTML report holds %s", bad)
		}
	}
}
