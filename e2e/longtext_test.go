package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// longLine is a line of a long text: the mock agent floods copies of it.
var longLine = strings.Repeat("the quick brown fox jumps over the lazy dog, é 日本 🎉, \"quoted\" \\ <tag> & more; ", 20) + "\n"

// longTextTurn is a turn of an agent script that says a text of about
// 2 MB, longer than what acprun keeps in memory while a turn runs: BEGIN,
// 1000 lines, and a line with a secret.
var longTextTurn = "  - steps: [{text: \"BEGIN\\n\"}, {flood: {count: 1000, text: " + strconv.Quote(longLine) + "}}, {text: \"token sk-e2e-0123456789 END\"}"

// longTextWant is the text of such a turn, as the results keep it.
var longTextWant = "BEGIN\n" + strings.Repeat(longLine, 1000) + "token [REDACTED] END"

// TestLongTextSpilled: a turn's text longer than acprun holds in memory
// reaches the results, the expectations, the JUnit excerpt and the HTML
// report byte for byte, redacted, and the temporary files it waited in are
// gone when acprun exits.
func TestLongTextSpilled(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n" + longTextTurn + "]\n" + longTextTurn + "]\n",
		"s.yaml": `name: long
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {API_TOKEN: sk-e2e-0123456789}}
turns:
  - prompt: one
    expect: {text: {contains: "0123456789 END", matches: '(?s)^BEGIN\n(the quick[^\n]*\n)+token \S+ END$'}}
  - prompt: two
    expect: {text: {contains: nowhere}}
`,
	})
	bin, err := plainBinary() // 4 MB of text: several seconds through the race detector
	if err != nil {
		t.Fatal(err)
	}
	res, _ := runBinary(t, bin, dir, []string{"TMPDIR=" + tmp}, "run", "s.yaml", "-o", "out.json", "--junit", "junit.xml", "--html", "report.html")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (turn 2 fails)\nstderr:\n%.3000s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	sc := out.Scenarios[0]
	if len(sc.Turns) != 2 || len(sc.Failures) != 1 || !strings.Contains(sc.Failures[0], "turn 2: ") {
		t.Fatalf("failures %q; want turn 2's alone", sc.Failures)
	}
	for _, tr := range sc.Turns {
		if tr.Text != longTextWant {
			t.Errorf("turn %d: text %d bytes, want the %d bytes sent, in order, redacted", tr.Index, len(tr.Text), len(longTextWant))
		}
	}
	junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(junit), "turn 2 text (1002 lines):") || !strings.Contains(string(junit), "token [REDACTED] END") {
		t.Errorf("the JUnit excerpt does not show turn 2's text:\n%.3000s", junit)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(html), "BEGIN\nthe quick brown fox"); n != 2 || !strings.Contains(string(html), "token [REDACTED] END") {
		t.Errorf("the HTML report shows the texts %d times, or not their ends; want both", n)
	}
	for _, f := range []string{"out.json", "junit.xml", "report.html"} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		if strings.Contains(string(data), "sk-e2e-") || strings.Contains(string(data), tmp) || strings.Contains(string(data), "acprun-text-") {
			t.Errorf("%s names the secret or a temporary file", f)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in the temporary directory: %v", entries)
	}
}

// TestLongTextSpilledInterrupted: interrupted while a turn's long text
// waits in its temporary file, acprun writes it into the results, whole,
// and leaves nothing behind.
func TestLongTextSpilledInterrupted(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // runFollowingTranscript runs acprun with the test's environment
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n" + longTextTurn + ", {hang: true}]\n",
		"s.yaml": `name: hostile
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {API_TOKEN: sk-e2e-0123456789}}
cancelGrace: 100ms
killGrace: 100ms
turns:
  - prompt: one
`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := runFollowingTranscript(t, ctx, dir, "hostile")
	run.waitFor("the text's end", "END")
	run.interrupt()
	out := run.waitInterrupted()
	if tr := out.Scenarios[0].Turns[0]; tr.Text != longTextWant {
		t.Errorf("text %d bytes, want the %d bytes sent, in order, redacted", len(tr.Text), len(longTextWant))
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in the temporary directory: %v", entries)
	}
}

// TestLongStopReasonCutOnItsLine: an agent that answers session/prompt
// with a stop reason of 100 KB has it cut on the FAIL line, as it ends
// and in the summary, and in the totals, as an excerpt's line is (200
// characters and "…"), where it was printed whole, and so do the failure
// that quotes it (in the results and under the FAIL line) and the verbose
// turn line; the turn's stopReason keeps it whole.
func TestLongStopReasonCutOnItsLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("x", 100_000)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n    stopReason: " + long + "\n",
		"s.yaml":          "name: long\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	res, out := runResults(t, dir, "s.yaml", "-v")
	cut := strings.Repeat("x", 200) + "…"
	var lines, totals int
	for _, l := range strings.Split(res.stderr, "\n") {
		switch {
		case strings.HasPrefix(l, "FAIL long ("):
			lines++
			if !strings.HasPrefix(l, "FAIL long ("+cut+", ") || len(l) > 300 {
				t.Errorf("the FAIL line (%d bytes) does not cut the stop reason: %.300q", len(l), l)
			}
		case strings.HasPrefix(l, "0 passed, 1 failed"):
			totals++
			if !strings.Contains(l, "; turns: "+cut+" 1") || len(l) > 300 {
				t.Errorf("the totals (%d bytes) do not cut the stop reason: %.300q", len(l), l)
			}
		}
	}
	if res.code != exitFailed || lines != 2 || totals != 1 {
		t.Errorf("exit %d, %d FAIL lines and %d totals; want %d, 2 and 1:\n%.2000s", res.code, lines, totals, exitFailed, res.stderr)
	}
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 || out.Scenarios[0].Turns[0].StopReason != long {
		t.Fatalf("the results do not keep the whole stop reason")
	}
	want := "s.yaml:4:9: stopReason " + cut + ", want end_turn"
	if f := out.Scenarios[0].Turns[0].Failures; len(f) != 1 || f[0] != want {
		t.Errorf("the turn's failures are %.500q, want [%q]", f, want)
	}
	for _, l := range strings.Split(res.stderr, "\n") {
		if len(l) > 400 {
			t.Errorf("a line of %d bytes quotes the stop reason whole: %.300q", len(l), l)
		}
	}
}
