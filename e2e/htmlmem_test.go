package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongTextReportsMemoryBounded: the outputs of a run with 15 MB of
// agent text, in lines with quotes and markup, cost memory as the run's
// results do. The HTML page streams into its file as it is rendered, each
// long text escaped straight into it (run --html and report), merge
// streams its results into the file it replaces, and the results file
// they read is read into one buffer of its size: run --html stays within
// the run's bound, the text and 32 MiB (it took 8 times the text), and
// report and merge within three times the text (the file, the JSON
// decoder's unescaped copy of a text and the string it makes of it) and
// 32 MiB (they took 8 and 5.5 times). The agent is sh, whose memory stays
// small. Built without the race detector, whose memory would count.
func TestLongTextReportsMemoryBounded(t *testing.T) {
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	line := strings.Repeat("0123456789abcdef", 9) + `<b> & "q" é` // escaped in the page
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + "read -r line\n" + chunk("BEGIN") + "yes '" + chunkMessage(strings.ReplaceAll(line, `"`, `\"`)+`\n`) + "' | head -n 100000\n" + chunk("END") +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" + shAgentTail,
		"s.yaml": "name: long\nagent: {command: [sh, agent.sh]}\npermissions: {default: deny}\ntimeout: 5m\nturns:\n  - prompt: go\n",
	})
	text := "BEGIN" + strings.Repeat(line+"\n", 100000) + "END"
	const mib = 1 << 20
	for _, c := range []struct {
		args  []string
		bound int64
		out   string // the output that must hold the text
	}{
		{[]string{"run", "s.yaml", "-o", "out.json", "--html", "out.html", "-q"}, 2*int64(len(text)) + 32*mib, "out.html"},
		{[]string{"report", "out.json", "-o", "r.html"}, 3*int64(len(text)) + 32*mib, "r.html"},
		{[]string{"merge", "out.json", "-o", "m.json"}, 3*int64(len(text)) + 32*mib, "m.json"},
	} {
		res, peak := runMeasured(t, bin, dir, c.args...)
		if res.code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.args[0], res.code, res.stderr)
		}
		if peak > c.bound {
			t.Errorf("%s: acprun's peak resident memory %d MiB for %d MiB of text; want at most %d MiB", strings.Join(c.args, " "), peak/mib, len(text)/mib, c.bound/mib)
		}
		data, err := os.ReadFile(filepath.Join(dir, c.out))
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(c.out) {
		case ".html":
			want := "<pre>BEGIN" + strings.Repeat(strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;", `"`, "&#34;").Replace(line)+"\n", 100000) + "END</pre>"
			if !strings.Contains(string(data), want) {
				t.Errorf("%s does not hold the text whole, escaped", c.out)
			}
		default:
			if got := readResults(t, filepath.Join(dir, c.out)); len(got.Scenarios) != 1 || len(got.Scenarios[0].Turns) != 1 || got.Scenarios[0].Turns[0].Text != text {
				t.Errorf("%s does not hold the text whole", c.out)
			}
		}
	}
}
