package e2e_test

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/vt"
)

// isEmoji says which characters the emulated terminals of these tests
// show two cells wide: a few emoji that Unicode says are (East_Asian_Width
// W, Emoji_Presentation).
func isEmoji(r rune) bool { return strings.ContainsRune("✅🚀⚡🟢", r) }

// TestTTYEmojiName runs a scenario whose name is 50 emoji of two cells
// each (100 cells) on an 80-column terminal: its running line is cut to
// fit, so it never wraps, and no stale copy of it stays above the bar or,
// at the end, above the PASS line.
func TestTTYEmojiName(t *testing.T) {
	underRace(t)
	t.Parallel()
	r, dir, name := startEmojiName(t, 80, 20)
	// A second frame, at least, is drawn over the first.
	r.waitScreen("the running line above the bar, its time moving", `\A  ✅+…  turn 1/1  [1-9]\d*s\n\[ +\] 0/1  1 running  \d+s\z`)
	if n := r.scr.Wraps(); n > 0 {
		t.Errorf("%d lines of the live area wrapped; screen:\n%s", n, strings.Join(r.scr.Screen(), "\n"))
	}
	openGate(t, filepath.Join(dir, "a.gate"))
	if code := r.wait(); code != 0 {
		t.Errorf("exit %d; want 0", code)
	}
	screen := strings.Join(r.scr.Lines(), "\n")
	if !strings.HasPrefix(screen, "PASS "+name[:len("✅")*37]) {
		t.Errorf("the terminal does not start with the PASS line:\n%s", screen)
	}
	noLiveArea(t, screen)
}

// TestTTYNarrowedEmoji runs a scenario whose name is 50 emoji on a
// 100-column terminal, then makes the window 33 columns wide: the
// terminal reflows the running line, each emoji that does not fit at the
// end of a row going whole on the next, and the redraw clears every row of
// it: the screen holds just the new area.
func TestTTYNarrowedEmoji(t *testing.T) {
	underRace(t)
	t.Parallel()
	r, dir, _ := startEmojiName(t, 100, 30)
	r.waitScreen("the running line above the bar, its time moving", `\A  ✅+…  turn 1/1  [1-9]s\n\[ +\] 0/1  1 running  \d+s\z`)
	r.resize(33, 30)
	r.waitScreen("the area redrawn at 33 columns, alone on the screen", `\A  ✅{7}…  turn 1/1  \d+s\n\[ +\] 0/1  1 running  \d+s\z`)
	openGate(t, filepath.Join(dir, "a.gate"))
	if code := r.wait(); code != 0 {
		t.Errorf("exit %d; want 0", code)
	}
	noLiveArea(t, strings.Join(r.scr.Lines(), "\n"))
}

// startEmojiName starts a run of one scenario whose name is 50 emoji of
// two cells each (100 cells), held in its first turn until the test opens
// the gate a.gate in dir, on an emulated terminal of cols×rows that shows
// the emoji two cells wide.
func startEmojiName(t *testing.T, cols, rows int) (r *ttyRun, dir, name string) {
	t.Helper()
	dir = t.TempDir()
	name = strings.Repeat("✅", 50)
	writeFiles(t, dir, map[string]string{
		"s.yaml":      "name: " + name + "\nagent: {name: mock, args: [a.mock.yaml]}\npermissions: {default: allow}\nturns:\n  - prompt: one\n",
		"a.mock.yaml": strings.Replace(gatedMock, "%s", "a.gate", 1),
	})
	mkfifos(t, dir, "a.gate")
	return startOn(t, dir, vt.NewWide(cols, rows, isEmoji), false, "run", "s.yaml", "-o", "out.json"), dir, name
}

// noLiveArea fails the test when a line of the live area is on screen.
func noLiveArea(t *testing.T, screen string) {
	t.Helper()
	if re := regexp.MustCompile(`(?m)turn \d+/\d+  \d+s|running  \d+s|^\[[ =>]*\]`); re.MatchString(screen) {
		t.Errorf("the live area is on the terminal (%q):\n%s", re.FindString(screen), screen)
	}
}

// TestValidateCaretAfterEmoji checks that the caret under an error points
// at the value when emoji of two cells come before it on the line.
func TestValidateCaretAfterEmoji(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":      "name: t\nagent: {name: mock, args: [a.mock.yaml]}\nturns:\n  - {prompt: \"✅🚀\", expect: {stopReason: skipped}}\n",
		"a.mock.yaml": "turns: []\n",
	})
	res := acprun(t, dir, "validate", "s.yaml")
	want := "" +
		"    4 |   - {prompt: \"✅🚀\", expect: {stopReason: skipped}}\n" +
		"      |                                           ^\n"
	if res.code != 2 || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and the caret under skipped:\n%s", res.code, res.stderr, want)
	}
}

// TestWideTextTables checks that the pass-rate table of a repeated run and
// probe's lines are aligned by the cells their text takes on a terminal:
// CJK and emoji two each, a combining mark none.
func TestWideTextTables(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	var scenarios []string
	for _, name := range []string{"日本語", "e\u0301te\u0301", "✅ok", "🚀rocket"} {
		scenarios = append(scenarios, "name: "+name+"\nagent: {name: mock, args: [a.mock.yaml]}\nturns: [{prompt: go}]\n")
	}
	writeFiles(t, dir, map[string]string{
		"s.yaml":      strings.Join(scenarios, "---\n"),
		"a.mock.yaml": "modes: {currentModeId: ✅ok, availableModes: [{id: 日本語模式, name: Japanese}, {id: ✅ok, name: Check}]}\nturns:\n  - steps: [{text: done}]\n",
	})
	res, _ := runResults(t, dir, "s.yaml", "--repeat", "2")
	row := "  2/2 (100%) pass@2=1.00 pass^2=1.00\n"
	for _, want := range []string{"\n日本語  " + row, "\ne\u0301te\u0301     " + row, "\n✅ok    " + row, "\n🚀rocket" + row} {
		if !strings.Contains(res.stdout+res.stderr, want) {
			t.Errorf("the pass-rate table lacks %q:\n%s", want, res.stdout+res.stderr)
		}
	}

	probe := acprun(t, dir, "probe", "--", acprunBin, "mock-agent", "a.mock.yaml")
	col := regexp.MustCompile(`(?m)^session: +`).FindString(probe.stdout)
	for _, want := range []string{
		"\n  日本語模式" + strings.Repeat(" ", len(col)-2-10) + "Japanese\n",
		"\n  ✅ok" + strings.Repeat(" ", len(col)-2-4) + "Check\n",
	} {
		if col == "" || !strings.Contains(probe.stdout, want) {
			t.Errorf("probe's output lacks %q:\n%s", want, probe.stdout)
		}
	}
}

// TestDotsVerbose runs two scenarios one after the other with --format
// dots and -v: the second's verbose lines start a line of their own after
// the first's dot.
func TestDotsVerbose(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	scenario := "agent: {name: mock, args: [a.mock.yaml]}\nturns: [{prompt: go}]\n"
	writeFiles(t, dir, map[string]string{
		"s.yaml":      "name: one\n" + scenario + "---\nname: two\n" + scenario,
		"a.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
	})
	res := acprun(t, dir, "run", "s.yaml", "-j", "1", "--format", "dots", "-v", "-o", "out.json")
	if res.code != 0 || !strings.Contains(res.stderr, ".\n[two@mock] turn 1 started\n") || strings.Contains(res.stderr, ".[") {
		t.Errorf("exit %d; want 0, and two's lines apart from one's dot:\n%s", res.code, res.stderr)
	}
}

// TestQuietVerboseRefused: -v with -q (or --format quiet) is a usage error
// before anything runs: the one silences what the other streams, and -v
// was dropped without a word.
func TestQuietVerboseRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":      "name: one\nagent: {name: mock, args: [a.mock.yaml]}\nturns: [{prompt: go}]\n",
		"a.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
	})
	res := acprun(t, dir, "run", "s.yaml", "-q", "-v", "-o", "out.json")
	want := "acprun: -v (--verbose) streams what the agents do on stderr, and -q prints nothing there but the summary: leave one of them out\n"
	if res.code != exitUsage || !strings.HasPrefix(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and %q", res.code, res.stderr, exitUsage, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("a run refused ran: out.json was written")
	}
}

// TestTTYEventsOnStdout runs with --events - and stdout on stderr's
// terminal, in the lines format and in the dots format: no live area is
// drawn between the events, nor dots written before them; the result
// lines are printed, and every event is a whole line on the screen.
func TestTTYEventsOnStdout(t *testing.T) {
	underRace(t)
	t.Parallel()
	for _, format := range []string{"lines", "dots"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			scenario := "agent: {name: mock, args: [a.mock.yaml]}\npermissions: {default: allow}\nturns: [{prompt: go}]\n"
			writeFiles(t, dir, map[string]string{
				"s.yaml":      "name: one\n" + scenario + "---\nname: two\n" + scenario + "---\nname: three\n" + scenario,
				"a.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
			})
			r := startOn(t, dir, vt.New(2000, 100), true, "run", "s.yaml", "-j", "2", "--format", format, "--events", "-", "-o", "out.json")
			if code := r.wait(); code != 0 {
				t.Errorf("exit %d; want 0", code)
			}
			screen := strings.Join(r.scr.Lines(), "\n")
			events, passed := 0, 0
			for _, line := range r.scr.Lines() {
				if strings.HasPrefix(line, "PASS ") {
					passed++
				}
				if !strings.Contains(line, "{") {
					continue
				}
				events++
				if !json.Valid([]byte(line)) {
					t.Errorf("a line that is not a whole event: %q", line)
				}
			}
			if events < 6 || passed != 3 {
				t.Errorf("%d events and %d PASS lines on the terminal; want one event per start and end at least, and 3 PASS lines:\n%s", events, passed, screen)
			}
			noLiveArea(t, screen)
		})
	}
}

// TestTTYTranscriptsFIFONotice runs with a transcript that is a FIFO no
// process reads yet: the notice that the run waits for its reader is a
// line of its own above the live area, which is drawn below it.
func TestTTYTranscriptsFIFONotice(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"s.yaml":      "name: s\nagent: {name: mock, args: [m.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n",
	})
	mkfifos(t, dir, "tr/s@mock.jsonl")
	r := startTTY(t, dir, 100, 20, "run", "s.yaml", "-o", "r.json", "--transcripts", "tr")
	r.waitScreen("the notice above the live area",
		`^acprun: --transcripts tr: waiting for a reader of the FIFO tr/s@mock\.jsonl \(Ctrl-C stops the run\)\n  s@mock  starting  \d+s\n\[ +\] 0/1  1 running  \d+s\z`)
	f, err := os.Open(filepath.Join(dir, "tr/s@mock.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	go io.Copy(io.Discard, f)
	if code := r.wait(); code != 0 {
		t.Errorf("exit %d; want 0", code)
	}
	if !strings.Contains(strings.Join(r.scr.Lines(), "\n"), "\nPASS s [mock] (") {
		t.Errorf("no PASS line:\n%s", strings.Join(r.scr.Lines(), "\n"))
	}
}
