package e2e_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocsScaleOutBlock runs the "Scale out" block of docs/ci.md line by
// line, with sh and the built acprun first in PATH, on a suite of five
// scenarios: each line is one shard, so the merge must hold every
// scenario exactly once, and the report must be written.
func TestDocsScaleOutBlock(t *testing.T) {
	underRace(t)
	t.Parallel()
	lines := docsBlock(t, "docs/ci.md", "## Scale out", "```sh")
	if len(lines) < 4 {
		t.Fatalf("the Scale out block has %d lines: %q", len(lines), lines)
	}
	dir := t.TempDir()
	files := map[string]string{"agent.mock.yaml": "turns:\n  - steps: [{text: done}]\n"}
	var want []string
	for _, name := range []string{"s1", "s2", "s3", "s4", "s5"} {
		files["suite/"+name+".yaml"] = "name: " + name + "\nagent: {command: [acprun, mock-agent, ../agent.mock.yaml]}\n" +
			"permissions: {default: deny}\nturns: [{prompt: hi}]\n"
		want = append(want, name)
	}
	writeFiles(t, dir, files)
	path := filepath.Dir(acprunFor(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, line := range lines {
		res, _ := runBinary(t, "sh", dir, []string{"PATH=" + path}, "-c", line)
		if res.code != 0 {
			t.Fatalf("%s\nexit %d\n%s%s", line, res.code, res.stdout, res.stderr)
		}
	}
	var got []string
	for _, r := range readResults(t, filepath.Join(dir, "all.json")).Scenarios {
		got = append(got, r.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the merged results hold %q; want every scenario of the suite once: %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
}

// docsBlock returns the lines of the first code block opened by fence
// after the line heading of the Markdown file path (relative to the
// module's root), skipping blank ones.
func docsBlock(t *testing.T, path, heading, fence string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	state := 0 // 0 before the heading, 1 before the block, 2 in it
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case state == 0 && line == heading:
			state = 1
		case state == 1 && line == fence:
			state = 2
		case state == 2 && line == "```":
			return lines
		case state == 2 && strings.TrimSpace(line) != "":
			lines = append(lines, line)
		}
	}
	t.Fatalf("%s has no %s block after %q", path, fence, heading)
	return nil
}
