package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
)

// hostileText is agent output that would run script in a page that did
// not escape it: each piece sets window.pwned or opens an alert.
const hostileText = `</script><script>window.pwned=1;alert(1)</script>` +
	`<img src=x onerror="window.pwned=2;alert(2)">` +
	`<a id="jslink" href="javascript:window.pwned=3">click</a>` +
	`<svg onload="window.pwned=4"></svg> & done`

// reportAgent passes "hello" and answers "hostile" with hostile text in
// its thoughts, text, tool call title and diff.
var reportAgent = `
agentInfo: {name: report-mock, version: "1.0"}
turns:
  - match: hello
    steps: [{text: "hello there"}]
  - match: hostile
    steps:
      - thought: 'thinking: ` + hostileText + `'
      - text: 'said: ` + hostileText + `'
      - tool_call:
          toolCallId: c1
          title: 'edit ` + hostileText + `'
          kind: edit
          status: pending
          content: [{diff: {path: notes.txt, oldText: "one\ntwo\n", newText: "one\n` + strings.ReplaceAll(hostileText, `"`, `\"`) + `\n"}}]
      - permission: {toolCallId: c1}
        allowed: [{tool_call_update: {toolCallId: c1, status: completed}}]
        rejected: [{tool_call_update: {toolCallId: c1, status: failed}}]
      - read: {path: notes.txt}
    usage: {inputTokens: 100, outputTokens: 7}
`

const reportPass = `name: greets
tags: [smoke]
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: hello
    expect: {text: {contains: hello}}
`

const reportFail = `name: hostile
tags: [security]
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - kind: edit
turns:
  - prompt: hostile
    expect: {text: {contains: never said}}
`

// reportRun runs the two scenarios with transcripts and an HTML report,
// and returns the directory and the results.
func reportRun(t *testing.T) (string, report.Results) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": reportAgent,
		"a-pass.yaml":     reportPass,
		"b-fail.yaml":     reportFail,
		"notes.txt":       "one\ntwo\n",
	})
	res, out := runResults(t, dir, "a-pass.yaml", "b-fail.yaml", "--transcripts", "tr", "--html", "run.html", "-j", "1")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", res.code, exitFailed, res.stderr)
	}
	if out.Summary.Passed != 1 || out.Summary.Failed != 1 {
		t.Fatalf("summary %+v, want 1 passed and 1 failed", out.Summary)
	}
	return dir, out
}

// checkReportPage checks what every report must be: self-contained, its
// counts those of the results, failed scenarios first, each failure with
// its file:line, and the transcript viewer when withTranscripts.
func checkReportPage(t *testing.T, path string, out report.Results, withTranscripts bool) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	page := string(data)
	if !strings.HasPrefix(page, "<!DOCTYPE html>") {
		t.Errorf("%s does not start as an HTML page: %.80q", filepath.Base(path), page)
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)`).FindAllString(page, -1); len(m) > 0 {
		t.Errorf("the report refers to the network: %q", m)
	}
	if m := regexp.MustCompile(`(?i)<(link|img|iframe|object|embed)\b|<script\s+src`).FindAllString(page, -1); len(m) > 0 {
		t.Errorf("the report loads resources: %q", m)
	}
	for id, want := range map[string]int{
		"count-scenarios": out.Summary.Scenarios, "count-passed": out.Summary.Passed,
		"count-failed": out.Summary.Failed, "count-errored": out.Summary.Errored,
		"count-allowed": out.Summary.Allowed, "count-denied": out.Summary.Denied,
	} {
		m := regexp.MustCompile(`id="` + id + `" data-count="(\d+)">(\d+)<`).FindStringSubmatch(page)
		if m == nil || m[1] != strconv.Itoa(want) || m[2] != strconv.Itoa(want) {
			t.Errorf("%s on the page: %v, want %d", id, m, want)
		}
	}
	var order []string
	for _, m := range regexp.MustCompile(`<section class="scenario [a-z]+" id="s\d+" data-status="([a-z]+)"`).FindAllStringSubmatch(page, -1) {
		order = append(order, m[1])
	}
	if got := strings.Join(order, ","); got != "failed,passed" {
		t.Errorf("scenarios in order %s, want failed first", got)
	}
	if !strings.Contains(page, "b-fail.yaml:10:") {
		t.Error("the failure is not shown with its file:line")
	}
	if got := strings.Count(page, `<details class="transcript"`); withTranscripts && got != 2 {
		t.Errorf("%d transcript viewers, want 2", got)
	} else if !withTranscripts && got != 0 {
		t.Errorf("%d transcript viewers, want none", got)
	}
	if strings.Count(page, "<script") != 1 || strings.Contains(page, "<img") {
		t.Error("hostile agent text reached the page unescaped")
	}
	return page
}

func TestReportFromRunAndFromResults(t *testing.T) {
	t.Parallel()
	dir, out := reportRun(t)
	page := checkReportPage(t, filepath.Join(dir, "run.html"), out, true)
	for _, want := range []string{"session/prompt", "fs/read_text_file", "<code>allow</code>", "<code>b-fail.yaml:7</code>", "Permission log"} {
		if !strings.Contains(page, want) {
			t.Errorf("the run's report lacks %q", want)
		}
	}

	res := acprun(t, dir, "report", "out.json", "-o", "rep/report.html")
	if res.code != 0 {
		t.Fatalf("report: exit %d\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "report: rep/report.html (2 scenarios: 1 passed, 1 failed, 1 warning)") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	checkReportPage(t, filepath.Join(dir, "rep", "report.html"), out, true)

	// The transcripts moved: --transcripts says where they are now.
	if err := os.Rename(filepath.Join(dir, "tr"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if res := acprun(t, dir, "report", "out.json", "--transcripts", "moved", "-o", "moved.html"); res.code != 0 {
		t.Fatalf("report --transcripts: exit %d\n%s", res.code, res.stderr)
	}
	checkReportPage(t, filepath.Join(dir, "moved.html"), out, true)
	if res := acprun(t, dir, "report", "out.json", "--transcripts", "moved", "-o", "-"); res.code != 0 || !strings.HasPrefix(res.stdout, "<!DOCTYPE html>") {
		t.Errorf("report -o -: exit %d, stdout %.40q\n%s", res.code, res.stdout, res.stderr)
	}

	// A transcript over --transcript-bytes is cut in the middle, and the
	// page says so.
	if res := acprun(t, dir, "report", "out.json", "--transcripts", "moved", "--transcript-bytes", "600", "-o", "cut.html"); res.code != 0 {
		t.Fatalf("report --transcript-bytes: exit %d\n%s", res.code, res.stderr)
	}
	cutPage := checkReportPage(t, filepath.Join(dir, "cut.html"), out, true)
	if !regexp.MustCompile(`\d+ messages \(\d+ bytes\) cut in the middle`).MatchString(cutPage) || !strings.Contains(cutPage, `<tr class="cut">`) {
		t.Error("the page does not say what was cut of the transcripts")
	}
}

// TestReportFindsTranscriptsFromAnywhere: with every output in one
// directory (-o out/results.json --transcripts out/tr, a CI artifact's
// layout), the results record the transcripts relative to the run's
// directory (dir); report finds them from there wherever it runs: in the
// results' directory, or in another.
func TestReportFindsTranscriptsFromAnywhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": reportAgent, "a-pass.yaml": reportPass, "b-fail.yaml": reportFail, "notes.txt": "one\ntwo\n",
	})
	if res := acprun(t, dir, "run", "a-pass.yaml", "b-fail.yaml", "-o", "out/results.json", "--transcripts", "out/tr"); res.code != exitFailed {
		t.Fatalf("run: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	results := filepath.Join(dir, "out", "results.json")
	out := readResults(t, results)
	if sc := out.Scenarios[0]; !strings.HasPrefix(sc.Transcript, "out/tr/") {
		t.Fatalf("the transcript is recorded as %q, want it under out/tr/", sc.Transcript)
	}
	elsewhere := t.TempDir()
	for _, c := range []struct{ wd, results string }{
		{filepath.Join(dir, "out"), "results.json"},
		{elsewhere, results},
	} {
		page := filepath.Join(elsewhere, "report.html")
		if res := acprun(t, c.wd, "report", c.results, "-o", page); res.code != exitOK {
			t.Fatalf("report in %s: exit %d\n%s", c.wd, res.code, res.stderr)
		}
		data := checkReportPage(t, page, out, true)
		if strings.Contains(data, "no such file or directory") || strings.Count(data, `<tr class="m c2a`) < 2 {
			t.Errorf("report in %s: the transcripts are not embedded:\n%s", c.wd, regexp.MustCompile(`errmsg">[^<]*`).FindAllString(data, -1))
		}
	}
}

// TestReportTranscriptBytes: --transcript-bytes 0 embeds no transcript
// message, and each viewer says so; a negative value is a usage error
// naming the flag, and nothing is written.
func TestReportTranscriptBytes(t *testing.T) {
	t.Parallel()
	dir, out := reportRun(t)
	if res := acprun(t, dir, "report", "out.json", "--transcript-bytes", "0", "-o", "none.html"); res.code != exitOK {
		t.Fatalf("report --transcript-bytes 0: exit %d\n%s", res.code, res.stderr)
	}
	page := checkReportPage(t, filepath.Join(dir, "none.html"), out, true)
	if n := strings.Count(page, `<tr class="m `); n != 0 {
		t.Errorf("--transcript-bytes 0 embedded %d transcript messages, want none", n)
	}
	if n := strings.Count(page, "not embedded (--transcript-bytes 0)"); n != 2 {
		t.Errorf("%d viewers say why nothing is embedded, want 2", n)
	}
	for _, arg := range []string{"--transcript-bytes=-1", "--transcript-bytes"} {
		args := []string{"report", "out.json", arg, "-o", "neg.html"}
		if !strings.Contains(arg, "=") {
			args = slices.Insert(args, 3, "-1")
		}
		res := acprun(t, dir, args...)
		want := "acprun: --transcript-bytes: \"-1\": want a number of bytes, 0 or more\nsee 'acprun report --help'\n"
		if res.code != exitUsage || res.stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", args, res.code, res.stderr, exitUsage, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "neg.html")); err == nil {
			t.Errorf("%q wrote the report", args)
		}
	}
}

// TestReportEmbedsOnlyTranscripts: results may come from anywhere (a CI
// artifact), and name any file as a scenario's transcript; report embeds
// only a transcript, and of any other file warns naming it, and writes
// the page without it.
func TestReportEmbedsOnlyTranscripts(t *testing.T) {
	t.Parallel()
	dir, _ := reportRun(t)
	secret := filepath.Join(dir, "secret.txt")
	writeFiles(t, dir, map[string]string{"secret.txt": "root:x:0:0:SECRET-LINE:/root:/bin/sh\n"})
	var doc map[string]any
	readJSON(t, filepath.Join(dir, "out.json"), &doc)
	scs := doc["scenarios"].([]any)
	scs[0].(map[string]any)["transcript"] = secret // the other keeps its own
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"evil.json": string(data)})
	res := acprun(t, dir, "report", "evil.json", "-o", "evil.html")
	if res.code != exitOK {
		t.Fatalf("report: exit %d, want %d\n%s", res.code, exitOK, res.stderr)
	}
	if want := "acprun: report: warning: " + secret + ": line 1: not a JSON object: not a transcript"; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
	}
	page := readFiles(t, dir, "evil.html")["evil.html"]
	if bytes.Contains(page, []byte("SECRET-LINE")) {
		t.Error("the page embeds a file that is not a transcript")
	}
	if n := bytes.Count(page, []byte(`<tr class="m `)); n == 0 {
		t.Error("the other scenario's transcript is not embedded")
	}
}

func TestReportWithoutTranscripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": reportAgent, "a-pass.yaml": reportPass, "b-fail.yaml": reportFail, "notes.txt": "one\ntwo\n",
	})
	res, out := runResults(t, dir, "a-pass.yaml", "b-fail.yaml", "--html", "run.html")
	if res.code != exitFailed {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	checkReportPage(t, filepath.Join(dir, "run.html"), out, false)
}

func TestReportMergesShards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": reportAgent, "a-pass.yaml": reportPass, "b-fail.yaml": reportFail, "notes.txt": "one\ntwo\n",
	})
	for i, sc := range []string{"a-pass.yaml", "b-fail.yaml"} {
		acprun(t, dir, "run", sc, "-o", fmt.Sprintf("shard%d.json", i+1))
	}
	res := acprun(t, dir, "report", "shard1.json", "shard2.json", "-o", "merged.html")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	merged := acprun(t, dir, "merge", "shard1.json", "shard2.json", "-o", "merged.json")
	if merged.code != exitFailed {
		t.Fatalf("merge: exit %d\n%s", merged.code, merged.stderr)
	}
	page := checkReportPage(t, filepath.Join(dir, "merged.html"), readResults(t, filepath.Join(dir, "merged.json")), false)
	if !strings.Contains(page, "<code>shard1.json</code>, <code>shard2.json</code>") {
		t.Error("the page does not name its results files")
	}
}

func TestReportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"syntax.json": "{\n  \"schemaVersion\": 1,\n  \"scenarios\": [\n    {\"name\": \"x\",}\n  ]\n}\n",
		"type.json":   "{\"schemaVersion\": 1, \"scenarios\": \"no\"}",
		"accent.json": "{\"schemaVersion\": 1,\n  \"scenarios\": [ü]}",
		"v9.json":     `{"schemaVersion": 9, "scenarios": []}`,
		"empty.json":  "",
		"ok.json":     `{"schemaVersion": 1, "scenarios": []}`,
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"syntax.json"}, "syntax.json:4:18: not acprun results: invalid character '}'"},
		{[]string{"type.json"}, "type.json:1:35: not acprun results: scenarios: want a list, got string"},
		// At the character json stopped at, not at its second byte.
		{[]string{"accent.json"}, "accent.json:2:17: not acprun results: invalid character 'ü' looking for beginning of value"},
		{[]string{"ok.json", "v9.json"}, "v9.json:1:19: schemaVersion 9 is not supported (want 1 to 3): a newer acprun wrote it; read it with that version"},
		{[]string{"empty.json"}, "empty.json: empty file, not acprun results"},
		{[]string{"missing.json"}, "missing.json: no such file or directory"},
		{[]string{"ok.json", "--transcripts", "nowhere"}, "acprun: report: --transcripts nowhere: no such file or directory"},
	} {
		res := acprun(t, dir, append([]string{"report", "-o", "r.html"}, c.args...)...)
		if res.code != exitUsage || !strings.Contains(res.stderr, c.want) || strings.Contains(res.stderr, "panic") {
			t.Errorf("report %v: exit %d, want %d and %q in stderr:\n%s", c.args, res.code, exitUsage, c.want, res.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
			t.Fatalf("report %v wrote r.html", c.args)
		}
	}
	writeFiles(t, dir, map[string]string{"adir/x": ""})
	if res := acprun(t, dir, "report", "ok.json", "-o", "adir"); res.code != exitUsage || !strings.Contains(res.stderr, "-o adir") {
		t.Errorf("report -o DIR: exit %d\n%s", res.code, res.stderr)
	}
}

func TestReportRunHTMLCheckedFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	writeFiles(t, dir, map[string]string{
		"s.yaml":   "name: s\nagent: {command: [sh, -c, 'touch " + marker + "']}\nturns: [{prompt: hi}]\n",
		"adir/x":   "",
		"out.json": "",
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--html", "adir"}, "--html adir"},
		{[]string{"--html", "-", "-o", "-"}, "--html -"},
		{[]string{"--html", "out.json", "-o", "out.json"}, "--html out.json"},
	} {
		res := acprun(t, dir, append([]string{"run", "s.yaml"}, c.args...)...)
		if res.code != exitUsage || !strings.Contains(res.stderr, c.want) {
			t.Errorf("run %v: exit %d, want %d and %q\n%s", c.args, res.code, exitUsage, c.want, res.stderr)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the agent started before the output paths were checked")
	}
}

// envChromiumRequired makes the browser test fail instead of skipping
// where Chromium is missing (.ci/run sets it when it installed Chromium).
const envChromiumRequired = "ACPRUN_CHROMIUM_REQUIRED"

// TestReportInChromium opens a report with hostile agent text in a real
// headless Chromium through chromedriver's WebDriver API: the page renders
// (its script sets data-rendered), logs nothing to the console, runs none
// of the agent's text, shows it literally, shows the results' counts, and
// its status filter works. The screenshot goes to the test's artifact
// directory (go test -artifacts -outputdir DIR keeps it).
func TestReportInChromium(t *testing.T) {
	t.Parallel()
	browser, driver := findChromium()
	if browser == "" || driver == "" {
		const missing = "chromium or chromedriver not found (apt-get install chromium chromium-driver)"
		if os.Getenv(envChromiumRequired) == "1" {
			t.Fatal(missing + ", and " + envChromiumRequired + "=1 requires the browser test of the HTML report")
		}
		t.Skip(missing + ": the browser test of the HTML report is skipped")
	}
	dir, out := reportRun(t)
	page, err := filepath.Abs(filepath.Join(dir, "run.html"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel) // after the session's and chromedriver's cleanups
	wd := startWebDriver(t, ctx, driver, browser)

	wd.open(page)

	var state struct {
		Counts   map[string]string `json:"counts"`
		Pwned    any               `json:"pwned"`
		Imgs     int               `json:"imgs"`
		Scripts  int               `json:"scripts"`
		Text     string            `json:"text"`
		JSLink   bool              `json:"jsLink"`
		Sections []string          `json:"sections"`
	}
	wd.script(`
		var counts = {};
		document.querySelectorAll("[id^=count-]").forEach(function (e) { counts[e.id] = e.innerText; });
		return {
			counts: counts,
			pwned: window.pwned === undefined ? null : window.pwned,
			imgs: document.images.length,
			scripts: document.scripts.length,
			text: document.getElementById("scenarios").textContent,
			jsLink: document.getElementById("jslink") !== null,
			sections: Array.prototype.map.call(document.querySelectorAll("section.scenario"), function (s) { return s.dataset.status; })
		};`, &state)
	if state.Pwned != nil || state.Imgs != 0 || state.Scripts != 1 || state.JSLink {
		t.Errorf("agent text ran or became elements: pwned=%v, %d images, %d scripts, javascript: link %v", state.Pwned, state.Imgs, state.Scripts, state.JSLink)
	}
	for _, want := range []string{"said: " + hostileText, "thinking: " + hostileText, "edit " + hostileText, "+" + hostileText} {
		if !strings.Contains(state.Text, want) {
			t.Errorf("the page does not show %q literally", want)
		}
	}
	for id, want := range map[string]int{
		"count-scenarios": out.Summary.Scenarios, "count-passed": out.Summary.Passed,
		"count-failed": out.Summary.Failed, "count-errored": out.Summary.Errored,
	} {
		if got := state.Counts[id]; got != strconv.Itoa(want) {
			t.Errorf("%s shows %q, want %d (the JSON's)", id, got, want)
		}
	}
	if got := strings.Join(state.Sections, ","); got != "failed,passed" {
		t.Errorf("sections %s, want failed first", got)
	}

	// The status filter hides what does not match.
	var visible int
	wd.script(`
		var f = document.getElementById("f-status");
		f.value = "passed";
		f.dispatchEvent(new Event("input"));
		return Array.prototype.filter.call(document.querySelectorAll("section.scenario"), function (s) { return !s.hidden; }).length;`, &visible)
	if visible != out.Summary.Passed {
		t.Errorf("%d scenarios shown with status=passed, want %d", visible, out.Summary.Passed)
	}
	wd.script(`
		var f = document.getElementById("f-status");
		f.value = "";
		f.dispatchEvent(new Event("input"));
		var q = document.getElementById("f-search");
		q.value = "WINDOW.PWNED";
		q.dispatchEvent(new Event("input"));
		var n = Array.prototype.filter.call(document.querySelectorAll("section.scenario"), function (s) { return !s.hidden; }).length;
		q.value = "";
		q.dispatchEvent(new Event("input"));
		return n;`, &visible)
	if visible != 1 {
		t.Errorf("%d scenarios shown when searching for the hostile text, want 1", visible)
	}

	// The method filter of a transcript shows that method's messages only.
	var filtered struct {
		Shown, Want, All int
	}
	wd.script(`
		var tr = document.querySelector("details.transcript");
		tr.open = true;
		var sel = tr.querySelector("select.t-method");
		sel.value = "session/prompt";
		sel.dispatchEvent(new Event("change"));
		var rows = tr.querySelectorAll("tr.m");
		return {
			Shown: Array.prototype.filter.call(rows, function (r) { return !r.hidden; }).length,
			Want: tr.querySelectorAll('tr.m[data-method="session/prompt"]').length,
			All: rows.length
		};`, &filtered)
	if filtered.Want != 2 || filtered.Shown != filtered.Want || filtered.All <= filtered.Want {
		t.Errorf("transcript filtered by session/prompt: %d rows shown of %d, want the request and its response (%d)", filtered.Shown, filtered.All, filtered.Want)
	}

	var shot string
	wd.get("screenshot", &shot)
	png, err := base64.StdEncoding.DecodeString(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot: not a PNG (%v)", err)
	}
	shotPath := filepath.Join(t.ArtifactDir(), "report.png")
	if err := os.WriteFile(shotPath, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shotPath)

	var logs []struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	}
	wd.post("se/log", map[string]any{"type": "browser"}, &logs)
	for _, l := range logs {
		if l.Level == "SEVERE" || l.Level == "WARNING" {
			t.Errorf("console %s: %s", l.Level, l.Message)
		}
	}
}

// findChromium returns the paths of chromium and chromedriver, or "".
func findChromium() (browser, driver string) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	driver, _ = exec.LookPath("chromedriver")
	return browser, driver
}

// webDriver is one WebDriver session of a chromedriver the test started.
type webDriver struct {
	t       *testing.T
	ctx     context.Context
	base    string // http://127.0.0.1:PORT/session/ID/
	session string
}

// startWebDriver starts chromedriver on a port of its choosing and opens a
// headless Chromium session with the browser's console log kept. Both end
// with the test.
func startWebDriver(t *testing.T, ctx context.Context, driver, browser string) *webDriver {
	t.Helper()
	cmd := exec.Command(driver, "--port=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromedriver: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// chromedriver says the port it listens on, then keeps writing its
	// log to stdout: read it to the end so that it never blocks.
	portc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`started successfully on port (\d+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case portc <- m[1]:
				default:
				}
			}
		}
		close(portc)
	}()
	var port string
	select {
	case p, ok := <-portc:
		if !ok {
			t.Fatal("chromedriver exited without saying its port")
		}
		port = p
	case <-ctx.Done():
		t.Fatal("chromedriver did not start")
	}
	wd := &webDriver{t: t, ctx: ctx, base: "http://127.0.0.1:" + port + "/"}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	wd.do(http.MethodPost, "session", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{
			"binary": browser,
			"args": []string{
				"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(), "--window-size=1280,2000",
			},
		},
		"goog:loggingPrefs": map[string]string{"browser": "ALL"},
	}}}, &created)
	if created.SessionID == "" {
		t.Fatal("chromedriver opened no session")
	}
	wd.session = created.SessionID
	t.Cleanup(func() { wd.do(http.MethodDelete, "session/"+wd.session, nil, nil) })
	return wd
}

// open loads the report at path (absolute) and waits until its script
// has run to its end (it sets data-rendered).
func (wd *webDriver) open(path string) {
	wd.t.Helper()
	wd.post("url", map[string]any{"url": (&url.URL{Scheme: "file", Path: path}).String()}, nil)
	// Navigation returns once the page has loaded, so the first poll
	// usually finds the marker; the later ones are spaced out.
	var rendered string
	deadline := time.Now().Add(time.Minute)
	for poll := time.NewTicker(50 * time.Millisecond); ; <-poll.C {
		wd.script(`return document.body.dataset.rendered || ""`, &rendered)
		if rendered == "1" {
			poll.Stop()
			return
		}
		if time.Now().After(deadline) {
			wd.t.Fatal("the page never set data-rendered: its script did not run to its end")
		}
	}
}

// post and get call an endpoint of the session; script runs JavaScript in
// the page and decodes what it returns into v.
func (wd *webDriver) post(endpoint string, body, v any) {
	wd.t.Helper()
	wd.do(http.MethodPost, "session/"+wd.session+"/"+endpoint, body, v)
}

func (wd *webDriver) get(endpoint string, v any) {
	wd.t.Helper()
	wd.do(http.MethodGet, "session/"+wd.session+"/"+endpoint, nil, v)
}

func (wd *webDriver) script(js string, v any) {
	wd.t.Helper()
	wd.post("execute/sync", map[string]any{"script": js, "args": []any{}}, v)
}

// do sends one WebDriver command and decodes its "value" into v; a
// WebDriver error (an alert the page opened among them) fails the test.
func (wd *webDriver) do(method, path string, body, v any) {
	wd.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			wd.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(wd.ctx, method, wd.base+path, rd)
	if err != nil {
		wd.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		wd.t.Fatalf("webdriver %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var reply struct {
		Value json.RawMessage `json:"value"`
	}
	data, err := io.ReadAll(resp.Body)
	if err == nil {
		err = json.Unmarshal(data, &reply)
	}
	if err != nil {
		wd.t.Fatalf("webdriver %s %s: %v\n%s", method, path, err, data)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		json.Unmarshal(reply.Value, &e)
		wd.t.Fatalf("webdriver %s %s: %s: %s", method, path, e.Error, firstLine(e.Message))
	}
	if v != nil {
		if err := json.Unmarshal(reply.Value, v); err != nil {
			wd.t.Fatalf("webdriver %s %s: %v\n%s", method, path, err, reply.Value)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func TestReportRepeatPassRates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": reportAgent, "a-pass.yaml": reportPass, "b-fail.yaml": reportFail, "notes.txt": "one\ntwo\n",
	})
	res, out := runResults(t, dir, "a-pass.yaml", "b-fail.yaml", "--repeat", "2", "--html", "run.html")
	if res.code != exitFailed {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if len(out.Summary.PassRates) != 2 {
		t.Fatalf("pass rates %+v", out.Summary.PassRates)
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{
		`<table id="pass-rates"`, `<td class="ok">2/2 (100%)<br><small>pass@2 1.00 · pass^2 1.00</small>`,
		`<td class="bad">0/2 (0%)<br><small>pass@2 0.00 · pass^2 0.00</small>`, "attempt 2",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestReportRedactsTheEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const secret = "ghp_reportsecret12345678"
	writeFiles(t, dir, map[string]string{"r.json": `{"schemaVersion": 1, "scenarios": [{"name": "s", "file": "s.yaml", "line": 1,
		"agent": {"command": ["x"]}, "status": "passed", "durationMs": 1,
		"turns": [{"index": 1, "prompt": "p", "stopReason": "end_turn", "durationMs": 1, "text": "the token is ` + secret + `"}]}]}`})
	res := acprunEnv(t, dir, []string{"REPORT_TEST_TOKEN=" + secret}, "report", "r.json", "-o", "r.html")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(secret)) || !bytes.Contains(data, []byte("the token is [REDACTED]")) {
		t.Error("the value of REPORT_TEST_TOKEN is not redacted in the report")
	}
}

func TestReportHTMLNotWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": reportAgent,
		// The agent makes out/ a file, so the report checked before the
		// run cannot be written after it; the results still are.
		"breaks.yaml": fmt.Sprintf(`name: breaks
agent:
  command: [sh, -c, 'rm -rf out; echo > out; exec "$0" mock-agent agent.mock.yaml', %q]
turns:
  - prompt: hello
`, acprunBin),
	})
	res := acprun(t, dir, "run", "breaks.yaml", "-o", "r.json", "--html", "out/r.html")
	if res.code != exitOutput || !strings.Contains(res.stderr, "acprun: --html out/r.html: ") || !strings.Contains(res.stderr, "; the HTML report was not written") {
		t.Errorf("exit %d, want %d and the lost report named\n%s", res.code, exitOutput, res.stderr)
	}
	if got := readResults(t, filepath.Join(dir, "r.json")); got.Summary.Passed != 1 {
		t.Errorf("results %+v, want the passed run", got.Summary)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		res := acprun(t, dir, "report", "r.json", "-o", "/dev/full")
		if res.code != exitOutput || !strings.Contains(res.stderr, "report: -o /dev/full: ") || !strings.Contains(res.stderr, "the report was not written") {
			t.Errorf("report -o /dev/full: exit %d, want %d\n%s", res.code, exitOutput, res.stderr)
		}
	}
}

func TestReportAgentMatrix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "agentInfo: {name: agent-a, version: '1'}\nturns:\n  - steps: [{text: from a}]\n",
		"b.mock.yaml": "agentInfo: {name: agent-b, version: '1'}\nturns:\n  - steps: [{text: from b}]\n    stopReason: refusal\n",
		"acprun.yaml": "agents:\n  alpha: {command: [acprun, mock-agent, a.mock.yaml]}\n  beta: {command: [acprun, mock-agent, b.mock.yaml]}\n",
		"s.yaml":      "name: greet\nagent: alpha\npermissions: {default: deny}\nturns:\n  - prompt: hi\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--agent", "alpha", "--agent", "beta", "--repeat", "2", "--transcripts", "tr", "--html", "run.html")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1 (beta refuses)\n%s", res.code, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{
		`<thead><tr><th>scenario</th><th>alpha</th><th>beta</th></tr></thead>`,
		`<td class="ok">2/2 (100%)`, `<td class="bad">0/2 (0%)`,
		`<option value="alpha">alpha</option>`, `<option value="beta">beta</option>`,
		`data-agent="beta"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}

	// Results that do not record their transcripts: --transcripts finds
	// them by the names run gives them (NAME@AGENT#ATTEMPT.jsonl).
	for i := range out.Scenarios {
		out.Scenarios[i].Transcript = ""
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, out.Report()); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"bare.json": buf.String()})
	if res := acprun(t, dir, "report", "bare.json", "--transcripts", "tr", "-o", "bare.html"); res.code != 0 {
		t.Fatalf("report: exit %d\n%s", res.code, res.stderr)
	}
	data, err = os.ReadFile(filepath.Join(dir, "bare.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"greet@alpha#1", "greet@alpha#2", "greet@beta#1", "greet@beta#2"} {
		if !strings.Contains(string(data), `data-path="`+filepath.Join("tr", name+".jsonl")+`"`) {
			t.Errorf("no transcript viewer for %s", name)
		}
	}
}

// TestHTMLVerifyVerdicts: the HTML report, written by run and again by
// report, says a failed verify command failed (it said passed).
func TestHTMLVerifyVerdicts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml": "turns:\n  - steps: [{text: fine}]\n",
		"vf.yaml": `name: verify-fails
agent: {command: [acprun, mock-agent, ok.mock.yaml]}
permissions: {default: deny}
verify: ["false", "true"]
turns:
  - prompt: hi
`,
	})
	if r := acprun(t, dir, "run", "vf.yaml", "-o", "r.json", "--html", "r.html"); r.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitFailed, r.stderr)
	}
	if r := acprun(t, dir, "report", "r.json", "-o", "rep.html"); r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	rows := regexp.MustCompile(`<tr[^>]*><td>\d+</td><td><code>(?:true|false)</code></td><td>exit \d+ · [^<]*`)
	for _, name := range []string{"r.html", "rep.html"} {
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got := rows.FindAllString(string(page), -1)
		if len(got) != 2 || !strings.HasPrefix(got[0], `<tr class="deny">`) || !strings.HasSuffix(got[0], "· failed") ||
			!strings.HasPrefix(got[1], "<tr><td>") || !strings.HasSuffix(got[1], "· passed") {
			t.Errorf("%s: verify rows %q, want false failed (a denial) and true passed", name, got)
		}
	}
}

// TestHTMLWorkspaceUnchanged: the card of an attempt whose agent changed
// no file of its workspace says so, in run --html's page and in report's
// from the results (whose empty lists mean that, where null ones mean
// not known); the page showed nothing, as for changes not listed.
func TestHTMLWorkspaceUnchanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml":  "turns:\n  - steps: [{text: fine}]\n",
		"fixture/a.txt": "a\n",
		"s.yaml": `name: reads-only
agent: {command: [acprun, mock-agent, ok.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
turns:
  - prompt: hi
`,
	})
	if r := acprun(t, dir, "run", "s.yaml", "-o", "r.json", "--html", "r.html"); r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	if r := acprun(t, dir, "report", "r.json", "-o", "rep.html"); r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	for _, name := range []string{"r.html", "rep.html"} {
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), "<p class=\"meta\">No file was created, modified or deleted.</p>") {
			t.Errorf("%s: the workspace's card does not say that no file changed", name)
		}
	}
}
