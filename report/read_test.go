package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
)

// result is one scenario's result in a results document of these tests,
// with members to add.
func result(members string) string {
	return `{"name": "a", "file": "a.yaml", "line": 1, "status": "passed"` + members + `}`
}

// TestReadRefusesWhatAcprunNeverWrites: a scenario's result that is null,
// lacks its name, status, file or line or has one null, has an empty
// name, or a status acprun does not write in the document's
// schemaVersion, and a null turn, are refused, said by their path in the
// document.
func TestReadRefusesWhatAcprunNeverWrites(t *testing.T) {
	for _, tt := range []struct {
		version   string
		scenarios string
		want      string
	}{
		{"3", `null`, "scenarios.0: want an object (a scenario's result), got null"},
		{"3", result("") + `, null`, "scenarios.1: want an object (a scenario's result), got null"},
		{"3", `{"file": "a.yaml", "line": 1, "status": "passed"}`, `scenarios.0: no "name"; acprun writes the name, status, file and line of every scenario's result`},
		{"3", `{"name": null, "file": "a.yaml", "line": 1, "status": "passed"}`, "scenarios.0.name: want a string, got null"},
		{"3", `{"name": "", "file": "a.yaml", "line": 1, "status": "passed"}`, `scenarios.0.name: want a scenario's name, got ""`},
		{"3", `{"name": "a", "file": "a.yaml", "line": 1}`, `scenarios.0: no "status"; acprun writes`},
		{"3", `{"name": "a", "file": "a.yaml", "line": 1, "status": null}`, "scenarios.0.status: want a string, got null"},
		{"3", `{"name": "a", "file": "a.yaml", "line": 1, "status": ""}`, `scenarios.0.status: "" is not a status acprun writes (passed, failed, error, interrupted, invalid)`},
		{"3", `{"name": "a", "file": "a.yaml", "line": 1, "status": "bogus"}`, `scenarios.0.status: "bogus" is not a status acprun writes (passed, failed, error, interrupted, invalid)`},
		{"2", `{"name": "a", "file": "a.yaml", "line": 1, "status": "invalid"}`, `scenarios.0.status: "invalid" is not a status acprun writes in schemaVersion 2 (passed, failed, error, interrupted)`},
		{"1", `{"name": "a", "file": "a.yaml", "line": 1, "status": "interrupted"}`, `scenarios.0.status: "interrupted" is not a status acprun writes in schemaVersion 1 (passed, failed, error)`},
		{"3", `{"name": "a", "line": 1, "status": "passed"}`, `scenarios.0: no "file"; acprun writes`},
		{"3", `{"name": "a", "file": null, "line": 1, "status": "passed"}`, "scenarios.0.file: want a string, got null"},
		{"3", `{"name": "a", "file": "a.yaml", "status": "passed"}`, `scenarios.0: no "line"; acprun writes`},
		{"3", `{"name": "a", "file": "a.yaml", "line": null, "status": "passed"}`, "scenarios.0.line: want a whole number, got null"},
		{"3", result(`, "turns": [{"index": 1, "stopReason": "end_turn"}, null]`), "scenarios.0.turns.1: want an object (a turn), got null"},
		{"3", result("") + `, {"name": "b", "file": "a.yaml", "status": "bogus"}`, `scenarios.1.status: "bogus" is not a status`},
	} {
		doc := `{"schemaVersion": ` + tt.version + `, "scenarios": [` + tt.scenarios + `]}`
		_, err := report.Read(strings.NewReader(doc))
		if err == nil || !strings.HasPrefix(err.Error(), "not acprun results: "+tt.want) {
			t.Errorf("Read(%s) = %v; want %q", doc, err, "not acprun results: "+tt.want)
		}
	}
}

// TestReadTakesWhatAcprunWrites: what acprun writes reads, the results
// of a run without a scenario file (an empty file, line 0) and every
// status of each schemaVersion included, as does every sample.
func TestReadTakesWhatAcprunWrites(t *testing.T) {
	docs := []string{
		`{"schemaVersion": 3, "scenarios": [{"name": "prompt", "file": "", "line": 0, "status": "passed", "turns": [{"index": 1, "stopReason": ""}]}]}`,
		`{"schemaVersion": 3, "scenarios": [` + result("") + `, {"name": "b", "file": "b.yaml", "line": 0, "status": "invalid", "turns": null}]}`,
		`{"schemaVersion": 2, "scenarios": [{"name": "a", "file": "a.yaml", "line": 1, "status": "interrupted", "turns": []}]}`,
		`{"schemaVersion": 1, "scenarios": [{"name": "a", "file": "a.yaml", "line": 1, "status": "error"}, {"name": "b", "file": "", "line": 0, "status": "failed"}]}`,
		`{"schemaVersion": 3, "scenarios": []}`,
	}
	for _, rep := range []report.Report{reporttest.Sample(), reporttest.Matrix(), reporttest.Retried()} {
		var buf bytes.Buffer
		if err := report.Write(&buf, rep); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, buf.String())
	}
	docs = append(docs, "\ufeff"+docs[len(docs)-1]) // as an editor may save it
	for _, doc := range docs {
		if _, err := report.Read(strings.NewReader(doc)); err != nil {
			t.Errorf("Read(%.200s) = %v", doc, err)
		}
	}
}

// TestReadersSayWhere: merge, --rerun-failed and --balance-from read a
// results file one way: the same error for each file, naming it, at the
// line and column of the value that is wrong (in characters, from 1), or
// about the whole file when no value is.
func TestReadersSayWhere(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ data, want string }{
		{"{\"schemaVersion\":1,\n\"scenarios\":[{\"name\":1}]}", "2:22: not acprun results: scenarios.0.name: want a string, got number"},
		{`{"schemaVersion":1,"scenarios":[null,{"name":"x","status":""}]}`, "1:33: not acprun results: scenarios.0: want an object (a scenario's result), got null"},
		{"{\"schemaVersion\":1,\n\"scenarios\":[{\"name\":\"a\",\"file\":\"a.yaml\",\"status\":\"bogus\"}]}", `2:51: not acprun results: scenarios.0.status: "bogus" is not a status acprun writes in schemaVersion 1 (passed, failed, error)`},
		{"{\"schemaVersion\": 3,\n  \"scenarios\": [\n    {\"name\": \"é\", \"status\": \"passed\",\n     \"file\": \"a.yaml\"}]}", `3:5: not acprun results: scenarios.0: no "line"`},
		{"{\"schemaVersion\": 3, \"scenarios\": [{\"name\": \"ü\", \"file\": \"a.yaml\", \"line\": 1, \"status\": \"passed\", \"turns\": [null]}]}", "1:109: not acprun results: scenarios.0.turns.0: want an object (a turn), got null"},
		{"{\n  \"schemaVersion\": 1,\n  \"scenarios\": [\n    {\"name\": \"x\",}\n  ]\n}\n", "4:18: not acprun results: invalid character '}'"},
		{"{\"schemaVersion\": 1, é}", "1:22: not acprun results: invalid character 'é'"},
		{`{"schemaVersion": 9, "scenarios": []}`, "1:19: schemaVersion 9 is not supported (want 1 to 3)"},
		{`{"schemaVersion": 3, "startedAt": "yesterday"}`, `1:35: not acprun results: startedAt: "yesterday" is not a time`},
		{`[]`, "1:1: not acprun results: the file: want an object, got array"},
		{"{\"schemaVersion\": 3,\n\"summary\": {\"passRates\": [{\"passAtK\": \"high\"}]}}", `2:39: not acprun results: summary.passRates.0.passAtK: want an object keyed by k ("1", "2"…), got string`},
		{"{\"schemaVersion\": 3,\n\"summary\": {\"passRates\": [{\"passHatK\": {\"x\": 1}}]}}", `2:40: not acprun results: summary.passRates.0.passHatK: key "x": want k, "1" to "1"`},
		{"{\"schemaVersion\": 3,\n\"summary\": {\"passRates\": [{}, {\"passAtK\": {\"1\": 1, \"2\": true}}]}}", `2:57: not acprun results: summary.passRates.1.passAtK.2: want a number, got bool`},
		{"\ufeff{\"schemaVersion\": 1, é}", "1:22: not acprun results: invalid character 'é'"}, // a byte order mark is no column
		{`{"scenarios": []}`, " not acprun results: no schemaVersion"},
		{" \n", " empty file, not acprun results"},
		// Saved as UTF-16 (PowerShell's > writes it): said so, not as an
		// invalid character '\xff'.
		{"\xff\xfe{\x00}\x00", " the file is UTF-16 (as PowerShell's > writes it), not UTF-8: save it as UTF-8, or have acprun write it (-o FILE)"},
		{"\xfe\xff\x00{\x00}", " the file is UTF-16 (as PowerShell's > writes it), not UTF-8: save it as UTF-8, or have acprun write it (-o FILE)"},
	} {
		path := filepath.Join(dir, "r.json")
		if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		want := path + ":" + tt.want
		_, merr := report.MergeFiles([]string{path})
		_, rerr := report.ReadRerun(path)
		_, derr := report.ReadDurations(path)
		for name, err := range map[string]error{"MergeFiles": merr, "ReadRerun": rerr, "ReadDurations": derr} {
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s(%q) = %v; want %q", name, tt.data, err, want)
			}
		}
	}
}
