package report_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/google/go-cmp/cmp"
)

// TestByStopReasonNamesAgentAndAttempt checks that byStopReason entries
// of a matrix and repeated run are told apart, and that the plain
// scenario's entry leaves agent and attempt out of the JSON.
func TestByStopReasonNamesAgentAndAttempt(t *testing.T) {
	res := report.NewResults(reporttest.Matrix())
	if diff := cmp.Diff(reporttest.MatrixRefs(), res.ByStopReason); diff != "" {
		t.Errorf("byStopReason (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, reporttest.Matrix()); err != nil {
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
		"matrix": {reporttest.Matrix(), 6},
		"sample": {reporttest.Sample(), 1},
		"none":   {report.Report{SchemaVersion: report.SchemaVersion}, 0},
	} {
		if got := report.Summarize(tt.rep).Warnings; got != tt.want {
			t.Errorf("%s: Summary.Warnings = %d, want %d", name, got, tt.want)
		}
		var buf bytes.Buffer
		if err := report.Write(&buf, tt.rep); err != nil {
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

// TestJSONLongTexts: the results, written a field at a time and the long
// texts of turns a piece at a time, come out byte for byte as marshalling
// and indenting them gives, whatever the strings hold (escapes, control
// characters, U+2028, invalid UTF-8, runes across the pieces they are
// written in, something like a token, brackets, commas and colons), and
// whatever the values nested in them (empty and nested arrays and
// objects, raw JSON, a nil list of turns); and the report is not
// modified.
func TestJSONLongTexts(t *testing.T) {
	long := func(seed string, n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(seed)
		}
		return b.String()
	}
	rep := reporttest.Sample()
	rep.Scenarios = append(rep.Scenarios, reporttest.Complete(report.Result{
		Name: "flood", File: "flood.yaml", Line: 1, Status: report.StatusPassed,
		Turns: []report.TurnResult{
			{Index: 1, Prompt: "a", StopReason: "end_turn",
				Text:     long("héllo \"wörld\"\\ <a&b>\n\t\x01\u2028\u2029 日本語 🎉 ", 200<<10),
				Thoughts: long("x\xff\xfey\xe6\x97", 100<<10) + "\xe6",
				LateText: "short", LateThoughts: long("é", 64<<10)},
			{Index: 2, Prompt: "b", StopReason: "end_turn", Text: "\x00acprun-text:00:0 " + long("z", 70<<10)},
			{Index: 3, Prompt: `quote " backslash \ brace { } [ ] , : \" end\\`, StopReason: "end_turn", Text: "small",
				Updates: map[string]int{"": 1, "{[,:]}": 2, "é\u2028<>&\n\t": 3},
				UnknownUpdates: []json.RawMessage{
					json.RawMessage(`{"a": [], "b": {}, "c": [1, "x", null, true, 2.5], "nested": {"k": [{"z": "v"}]}, "": ""}`),
					json.RawMessage(`[[[]], {"": ""}]`),
				}},
		},
	}), report.Result{Name: "no turns", Tags: []string{}, Agent: report.AgentInfo{Command: []string{}}})
	before := report.NewResults(rep)
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
	if err := report.Write(&got, rep); err != nil {
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
	if diff := cmp.Diff(before, report.NewResults(rep)); diff != "" {
		t.Errorf("the report changed:\n%.2000s", diff)
	}
}

// TestWriteStreamsTexts: the texts of turns reach the writer a piece at a
// time, not marshalled whole with the rest of the results (which would
// cost another copy of them in memory, and, while its buffer grows, two).
func TestWriteStreamsTexts(t *testing.T) {
	text := strings.Repeat("a line of text, \"quoted\" <b>\n", 1<<17) // 4 MiB
	rep := reporttest.Sample()
	rep.Scenarios[0].Turns[0].Text = text
	rep.Scenarios[0].Turns[0].LateThoughts = text
	var w writeSizes
	if err := report.Write(&w, rep); err != nil {
		t.Fatal(err)
	}
	if w.total < 2*len(text) || w.largest > 256<<10 {
		t.Errorf("%d bytes written, the largest write %d bytes; want %d MiB of text in pieces", w.total, w.largest, 2*len(text)>>20)
	}
}

// writeSizes counts the bytes written to it and the largest write.
type writeSizes struct{ total, largest int }

func (w *writeSizes) Write(p []byte) (int, error) {
	w.total += len(p)
	w.largest = max(w.largest, len(p))
	return len(p), nil
}

// TestReadVersion1: results of schemaVersion 1 are read as the
// current version writes them: a scenario not run, or cut short by a
// cancel for an interrupt, the run's --timeout or --fail-fast (even one
// version 1 called passed), is interrupted, and the summary counts it so.
func TestReadVersion1(t *testing.T) {
	doc := `{"schemaVersion": 1, "summary": {"scenarios": 4, "passed": 2, "errored": 2, "notRun": 1}, "scenarios": [
		{"name": "cut", "file": "s.yaml", "line": 1, "status": "passed", "turns": [
			{"index": 1, "stopReason": "cancelled", "cancelCause": "runTimeout"}, {"index": 2, "stopReason": "skipped"}]},
		{"name": "timed", "file": "s.yaml", "line": 5, "status": "passed", "turns": [
			{"index": 1, "stopReason": "cancelled", "cancelCause": "turnTimeout"}]},
		{"name": "start", "file": "s.yaml", "line": 9, "status": "error", "startFailed": true, "error": "initialize: context canceled", "turns": [
			{"index": 1, "stopReason": "skipped", "cancelCause": "failFast"}]},
		{"name": "never", "file": "s.yaml", "line": 13, "status": "error", "notRun": true, "error": "not run: interrupted first", "turns": [
			{"index": 1, "stopReason": "skipped"}]}]}`
	res, err := report.Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Status      report.Status
		Error       string
		StartFailed bool
	}
	var gots []got
	for _, sc := range res.Scenarios {
		gots = append(gots, got{sc.Status, sc.Error, sc.StartFailed})
	}
	want := []got{
		{report.StatusInterrupted, "acprun cancelled turn 1 after runTimeout", false},
		{report.StatusPassed, "", false},
		{report.StatusInterrupted, "acprun cancelled turn 1 after failFast (initialize: context canceled)", false},
		{report.StatusInterrupted, "not run: interrupted first", false},
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("scenarios read (-want +got):\n%s", diff)
	}
	s := res.Summary
	if res.SchemaVersion != report.SchemaVersion || s.Passed != 1 || s.Errored != 0 || s.Interrupted != 3 || s.NotRun != 1 {
		t.Errorf("schemaVersion %d, summary %+v; want %d, 1 passed, 3 interrupted (1 not run)", res.SchemaVersion, s, report.SchemaVersion)
	}
}

// TestReadTypeErrorsInTheFilesTerms: a value of the wrong type in a
// results file is said by its path in the file and the JSON it wants,
// never by Go type names; the error still carries json's offset.
func TestReadTypeErrorsInTheFilesTerms(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{`{"schemaVersion":"3","scenarios":[]}`, "not acprun results: schemaVersion: want a whole number, got string"},
		{`{"schemaVersion":3,"scenarios":[{"name":"x","status":5}]}`, "not acprun results: scenarios.0.status: want a string, got number"},
		{`{"schemaVersion":3,"scenarios":{}}`, "not acprun results: scenarios: want a list, got object"},
		{`[]`, "not acprun results: the file: want an object, got array"},
		{`{"schemaVersion":3,"scenarios":[{"name":"x","durationMs":9.5}]}`, "not acprun results: scenarios.0.durationMs: want a whole number, got number 9.5"},
	} {
		_, err := report.Read(strings.NewReader(tt.data))
		var typ *json.UnmarshalTypeError
		if err == nil || err.Error() != tt.want || !errors.As(err, &typ) || typ.Offset == 0 {
			t.Errorf("Read(%s) = %v; want %q, wrapping json's error with its offset", tt.data, err, tt.want)
		}
	}
}

// TestIsOutcome: acprun's outcomes are reserved, ACP's stop reasons and
// unknown ones are not (those are kept verbatim).
func TestIsOutcome(t *testing.T) {
	for _, tt := range []struct {
		stopReason string
		want       bool
	}{
		{report.OutcomeError, true},
		{report.OutcomeAgentExited, true},
		{report.OutcomeUnresponsive, true},
		{report.OutcomeSkipped, true},
		{"end_turn", false},
		{"max_tokens", false},
		{"max_turn_requests", false},
		{"refusal", false},
		{"cancelled", false},
		{"interrupted", false},
		{"paused", false},
		{"", false},
	} {
		if got := report.IsOutcome(tt.stopReason); got != tt.want {
			t.Errorf("IsOutcome(%q) = %v; want %v", tt.stopReason, got, tt.want)
		}
	}
}

// TestStartedAtIsUTC: startedAt is written in UTC ("…Z"), whatever the
// time zone of the machine that ran, as docs/results.md says: CI logs of
// shards in different zones read alike.
func TestStartedAtIsUTC(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*60*60)
	rep := report.Report{StartedAt: time.Date(2026, 3, 14, 18, 26, 53, 589e6, tokyo)}
	if got, want := report.NewResults(rep).StartedAt, "2026-03-14T09:26:53.589Z"; got != want {
		t.Errorf("startedAt %q, want %q", got, want)
	}
}

// TestUnknownStartedAtIsLeftOut: results with no startedAt (written by
// hand), read and written again (merge, report), have none either, rather
// than year 1; merged with a shard that has one, they have its.
func TestUnknownStartedAtIsLeftOut(t *testing.T) {
	const hand = `{"schemaVersion": 3, "scenarios": [{"name": "a", "status": "passed", "file": "s.yaml", "line": 1}]}`
	res, err := report.Read(strings.NewReader(hand))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, res.Report()); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); strings.Contains(got, "startedAt") {
		t.Errorf("written again, the results hold a startedAt:\n%s", got)
	}
	if got := report.NewResults(report.Report{}).StartedAt; got != "" {
		t.Errorf("NewResults of a report with no start: startedAt %q, want none", got)
	}
	dir := t.TempDir()
	handPath := filepath.Join(dir, "hand.json")
	if err := os.WriteFile(handPath, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 14, 9, 26, 53, 589e6, time.UTC)
	other := report.Report{SchemaVersion: report.SchemaVersion, StartedAt: start,
		Scenarios: []report.Result{{Name: "b", Status: report.StatusPassed, File: "s.yaml", Line: 2}}}
	rep, err := report.MergeFiles([]string{handPath, writeJSON(t, dir, "other.json", other)})
	if err != nil {
		t.Fatalf("MergeFiles: %v", err)
	}
	if got, want := report.NewResults(rep).StartedAt, "2026-03-14T09:26:53.589Z"; got != want {
		t.Errorf("merged startedAt %q, want the other shard's %q", got, want)
	}
}
