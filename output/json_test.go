package output_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/google/go-cmp/cmp"
)

// matrixReport is one scenario run twice (--repeat 2) against two named
// agents (--agent), plus one plain scenario: four results whose turns
// only their agent and attempt tell apart.
func matrixReport() report.Report {
	rep := report.Report{SchemaVersion: report.SchemaVersion, StartedAt: sampleReport().StartedAt, Duration: ms(100)}
	for _, agent := range []string{"claude", "codex"} {
		for attempt := 1; attempt <= 2; attempt++ {
			rep.Scenarios = append(rep.Scenarios, result(report.Result{
				Name: "login", File: "login.yaml", Line: 1, Attempt: attempt,
				Agent:    report.AgentInfo{Name: agent, Command: []string{agent}},
				Status:   report.StatusPassed,
				Warnings: []string{"mode \"plan\" not offered by the agent; not set"},
				Turns:    []report.TurnResult{{Index: 1, Prompt: "log in", StopReason: "end_turn", Duration: ms(10)}},
			}))
		}
	}
	rep.Scenarios = append(rep.Scenarios, result(report.Result{
		Name: "plain", File: "plain.yaml", Line: 1,
		Agent:    report.AgentInfo{Command: []string{"agent"}},
		Status:   report.StatusPassed,
		Warnings: []string{"turn 1: the agent cannot take images; part 2 not sent", "protocol violation: line 3: not JSON"},
		Turns:    []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn", Duration: ms(10)}},
	}))
	return rep
}

// wantMatrixRefs is byStopReason of matrixReport.
var wantMatrixRefs = map[string][]output.TurnRef{"end_turn": {
	{Scenario: "login", Agent: "claude", Attempt: 1, Turn: 1},
	{Scenario: "login", Agent: "claude", Attempt: 2, Turn: 1},
	{Scenario: "login", Agent: "codex", Attempt: 1, Turn: 1},
	{Scenario: "login", Agent: "codex", Attempt: 2, Turn: 1},
	{Scenario: "plain", Turn: 1},
}}

// TestByStopReasonNamesAgentAndAttempt checks that byStopReason entries
// of a matrix and repeated run are told apart, and that the plain
// scenario's entry leaves agent and attempt out of the JSON.
func TestByStopReasonNamesAgentAndAttempt(t *testing.T) {
	res := output.NewResults(matrixReport())
	if diff := cmp.Diff(wantMatrixRefs, res.ByStopReason); diff != "" {
		t.Errorf("byStopReason (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := output.WriteResults(&buf, res); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ByStopReason map[string][]map[string]any `json:"byStopReason"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"scenario": "login", "agent": "claude", "attempt": 1.0, "turn": 1.0},
		{"scenario": "login", "agent": "claude", "attempt": 2.0, "turn": 1.0},
		{"scenario": "login", "agent": "codex", "attempt": 1.0, "turn": 1.0},
		{"scenario": "login", "agent": "codex", "attempt": 2.0, "turn": 1.0},
		{"scenario": "plain", "turn": 1.0},
	}
	if diff := cmp.Diff(want, doc.ByStopReason["end_turn"]); diff != "" {
		t.Errorf("byStopReason.end_turn in the JSON (-want +got):\n%s", diff)
	}
}

// TestSummaryCountsWarnings checks summary.warnings, in the JSON too.
func TestSummaryCountsWarnings(t *testing.T) {
	for name, tt := range map[string]struct {
		rep  report.Report
		want int
	}{
		"matrix": {matrixReport(), 6},
		"sample": {sampleReport(), 1},
		"none":   {reports()["empty"], 0},
	} {
		if got := output.Summarize(tt.rep).Warnings; got != tt.want {
			t.Errorf("%s: Summary.Warnings = %d, want %d", name, got, tt.want)
		}
		var buf bytes.Buffer
		if err := output.JSON(&buf, tt.rep); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Summary map[string]any `json:"summary"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if got, ok := doc.Summary["warnings"]; !ok || got != float64(tt.want) {
			t.Errorf("%s: summary.warnings in the JSON = %v (present %v), want %d", name, got, ok, tt.want)
		}
	}
}

// TestTextSummaryCountsWarnings checks the last line of the text summary
// and the Markdown totals: "N warnings" when there are any.
func TestTextSummaryCountsWarnings(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	if err := output.Text(&buf, matrixReport()); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	last := string(lines[len(lines)-1])
	if !regexpMatch(`^5 passed, 0 failed, 6 warnings in 100ms;`, last) {
		t.Errorf("last summary line %q; want it to count 6 warnings", last)
	}
	if md := output.Markdown(matrixReport()); !regexpMatch(`\*\*5 passed, 0 failed, 0 errors\*\* of 5, 6 warnings in 100ms`, md) {
		t.Errorf("Markdown totals do not count 6 warnings:\n%s", md)
	}
	buf.Reset()
	if err := output.Text(&buf, reports()["empty"]); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("warning")) {
		t.Errorf("a run without warnings mentions warnings:\n%s", buf.String())
	}
}

// TestJSONLongTexts: the long texts of turns, written from the strings
// themselves, come out byte for byte as marshalling them gives, whatever
// they hold (escapes, control characters, U+2028, invalid UTF-8, runes
// across the pieces they are written in, a forged token), and the report
// is not modified.
func TestJSONLongTexts(t *testing.T) {
	long := func(seed string, n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(seed)
		}
		return b.String()
	}
	rep := sampleReport()
	rep.Scenarios = append(rep.Scenarios, result(report.Result{
		Name: "flood", File: "flood.yaml", Line: 1, Status: report.StatusPassed,
		Turns: []report.TurnResult{
			{Index: 1, Prompt: "a", StopReason: "end_turn",
				Text:     long("héllo \"wörld\"\\ <a&b>\n\t\x01\u2028\u2029 日本語 🎉 ", 200<<10),
				Thoughts: long("x\xff\xfey\xe6\x97", 100<<10) + "\xe6",
				LateText: "short", LateThoughts: long("é", 64<<10)},
			{Index: 2, Prompt: "b", StopReason: "end_turn", Text: "\x00acprun-text:00:0 " + long("z", 70<<10)},
			{Index: 3, Prompt: "c", StopReason: "end_turn", Text: "small"},
		},
	}))
	before := output.NewResults(rep)
	var want, compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(before); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := output.JSON(&got, rep); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		g, w := got.String(), want.String()
		i := 0
		for i < min(len(g), len(w)) && g[i] == w[i] {
			i++
		}
		t.Fatalf("output differs from marshalling at byte %d of %d/%d: got %q, want %q", i, len(g), len(w), g[max(0, i-40):min(len(g), i+40)], w[max(0, i-40):min(len(w), i+40)])
	}
	if diff := cmp.Diff(before, output.NewResults(rep)); diff != "" {
		t.Errorf("the report changed:\n%.2000s", diff)
	}
}
