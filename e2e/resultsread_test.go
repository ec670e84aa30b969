package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badResults are results files acprun never writes, each with what every
// reader of results says of it, after the file's name.
var badResults = []struct{ name, data, want string }{
	{"type.json", "{\"schemaVersion\":1,\n\"scenarios\":[{\"name\":1}]}",
		":2:22: not acprun results: scenarios.0.name: want a string, got number"},
	{"null.json", `{"schemaVersion":1,"scenarios":[null,{"name":"x","status":""}]}`,
		":1:33: not acprun results: scenarios.0: want an object (a scenario's result), got null"},
	{"status.json", "{\"schemaVersion\":3,\n\"scenarios\":[{\"name\":\"a\",\"file\":\"a.yaml\",\"line\":1,\"status\":\"bogus\"}]}",
		`:2:60: not acprun results: scenarios.0.status: "bogus" is not a status acprun writes (passed, failed, error, interrupted, invalid)`},
	{"v1status.json", "{\"schemaVersion\":1,\n\"scenarios\":[{\"name\":\"a\",\"file\":\"a.yaml\",\"status\":\"bogus\"}]}",
		`:2:51: not acprun results: scenarios.0.status: "bogus" is not a status acprun writes in schemaVersion 1 (passed, failed, error)`},
	{"noname.json", "{\"schemaVersion\": 3, \"scenarios\": [\n  {\"name\": \"\", \"file\": \"a.yaml\", \"line\": 1, \"status\": \"passed\"}]}",
		`:2:12: not acprun results: scenarios.0.name: want a scenario's name, got ""`},
	{"nofile.json", "{\"schemaVersion\": 3, \"scenarios\": [\n  {\"name\": \"a\", \"line\": 1, \"status\": \"passed\"}]}",
		`:2:3: not acprun results: scenarios.0: no "file"; acprun writes the name, status, file and line of every scenario's result`},
	{"turn.json", "{\"schemaVersion\": 3, \"scenarios\": [\n  {\"name\": \"a\", \"file\": \"a.yaml\", \"line\": 1, \"status\": \"passed\", \"turns\": [null]}]}",
		":2:76: not acprun results: scenarios.0.turns.0: want an object (a turn), got null"},
	{"passatk.json", "{\"schemaVersion\": 3, \"scenarios\": [],\n  \"summary\": {\"passRates\": [{\"passAtK\": \"high\"}]}}",
		`:2:41: not acprun results: summary.passRates.0.passAtK: want an object keyed by k ("1", "2"…), got string`},
	{"passhatk.json", "{\"schemaVersion\": 3, \"scenarios\": [],\n  \"summary\": {\"passRates\": [{\"passHatK\": {\"x\": 1}}]}}",
		`:2:42: not acprun results: summary.passRates.0.passHatK: key "x": want k, "1" to "1"`},
	{"v9.json", `{"schemaVersion": 9, "scenarios": []}`,
		":1:19: schemaVersion 9 is not supported (want 1 to 3): a newer acprun wrote it; read it with that version"},
}

// TestResultsReadersRefuseTheSameWay: report, merge, run --rerun-failed
// and run --balance-from read a results file one way: each refuses a file
// acprun never writes with exit 2 and the same message, at its line and
// column, and writes nothing (no report, no results), runs nothing.
func TestResultsReadersRefuseTheSameWay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	files := map[string]string{"s.yaml": "name: s\nagent: {command: [sh, -c, 'touch " + marker + "']}\nturns: [{prompt: hi}]\n" +
		"---\nname: t\nagent: {command: [sh, -c, 'touch " + marker + "']}\nturns: [{prompt: hi}]\n"}
	for _, b := range badResults {
		files[b.name] = b.data
	}
	writeFiles(t, dir, files)
	for _, b := range badResults {
		for _, c := range []struct {
			prefix string
			args   []string
		}{
			{"report: ", []string{"report", b.name, "-o", "out.html"}},
			{"merge: ", []string{"merge", b.name, "-o", "out.json"}},
			{"--rerun-failed ", []string{"run", "s.yaml", "--rerun-failed", b.name, "-o", "out.json", "--html", "out.html"}},
			{"--balance-from ", []string{"run", "s.yaml", "--shard", "1/2", "--balance-from", b.name, "-o", "out.json", "--html", "out.html"}},
		} {
			res := acprunEnv(t, dir, noShardEnv, c.args...)
			if want := "acprun: " + c.prefix + b.name + b.want + "\n"; res.code != exitUsage || res.stderr != want {
				t.Errorf("%s: exit %d, stderr\n%s\nwant %d and\n%s", strings.Join(c.args, " "), res.code, res.stderr, exitUsage, want)
			}
			for _, out := range []string{"out.html", "out.json", "started"} {
				if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
					t.Fatalf("%s wrote %s", strings.Join(c.args, " "), out)
				}
			}
		}
	}
}

// TestResultsReadersTakeAOneShotRun: the results of a run without a
// scenario file ("file": "", "line": 0) are acprun's, and every reader
// takes them.
func TestResultsReadersTakeAOneShotRun(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, nil)
	if res := acprun(t, dir, "run", "--agent", "mock1", "--prompt", "crash", "-o", "r.json"); res.code != exitFailed {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	if sc := readResults(t, filepath.Join(dir, "r.json")).Scenarios[0]; sc.File != "" || sc.Line != 0 {
		t.Fatalf("the one-shot result is at %q line %d, want \"\" and 0", sc.File, sc.Line)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"merge", "r.json", "-o", "m.json"}, exitFailed},
		{[]string{"report", "r.json", "-o", "r.html"}, exitOK},
		{[]string{"run", "--agent", "mock1", "--prompt", "hi", "--rerun-failed", "r.json", "-o", "r2.json"}, exitOK},
	} {
		if res := acprun(t, dir, c.args...); res.code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", strings.Join(c.args, " "), res.code, c.code, res.stderr)
		}
	}
}

// TestRerunRefusesAResultTwice: run --rerun-failed refuses a results file
// that holds one result twice, as report and merge do (exit 2, nothing
// run): replacing it, the rerun would have kept the earlier result twice.
func TestRerunRefusesAResultTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	entry := `{"name": "s", "file": "s.yaml", "line": 1, "status": "failed"}`
	writeFiles(t, dir, map[string]string{
		"s.yaml":     "name: s\nagent: {command: [sh, -c, 'touch " + marker + "']}\nturns: [{prompt: hi}]\n",
		"twice.json": `{"schemaVersion": 3, "scenarios": [` + entry + ", " + entry + "]}",
	})
	const same = `: scenarios.0 and scenarios.1 are the same result, of scenario "s" (s.yaml:1): acprun writes each result once`
	for _, c := range []struct {
		prefix string
		args   []string
	}{
		{"merge: ", []string{"merge", "twice.json", "-o", "out.json"}},
		{"--rerun-failed ", []string{"run", "s.yaml", "--rerun-failed", "twice.json", "-o", "twice.json"}},
	} {
		res := acprun(t, dir, c.args...)
		if want := "acprun: " + c.prefix + "twice.json" + same + "\n"; res.code != exitUsage || res.stderr != want {
			t.Errorf("acprun %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), res.code, res.stderr, exitUsage, want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the agent was started")
	}
}
