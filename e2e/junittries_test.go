package e2e_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestJUnitTimeCountsRetries: a scenario whose every try errored
// (retries: 2) is one testcase, whose time, and its suite's, is that of
// all three tries, as the results record them (durationMs of each), not
// of its last try alone.
func TestJUnitTimeCountsRetries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios("error") + "retries: 2\n"})
	res, out := runResults(t, dir, "s.yaml", "--junit", "out.xml")
	if res.code != 1 || len(out.Scenarios) != 3 {
		t.Fatalf("exit %d and %d results, want 1 and 3 tries\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	var tries int64
	for _, r := range out.Scenarios {
		tries += r.DurationMs
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Suites []struct {
			Time  string `xml:"time,attr"`
			Cases []struct {
				Time string `xml:"time,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &got); err != nil || len(got.Suites) != 1 || len(got.Suites[0].Cases) != 1 {
		t.Fatalf("parse: %v, want one suite of one testcase\n%s", err, data)
	}
	// Each time is cut to the millisecond: the tries' sum may be 2 ms
	// more than their durationMs added up.
	for what, s := range map[string]string{"testcase": got.Suites[0].Cases[0].Time, "suite": got.Suites[0].Time} {
		secs, err := strconv.ParseFloat(s, 64)
		ms := int64(secs*1000 + 0.5)
		if err != nil || ms < tries || ms > tries+2 {
			t.Errorf("%s time %q, want the 3 tries' %d ms (+2 at most)", what, s, tries)
		}
	}
}
