package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
)

// cliScenarios writes three passing scenarios (tags ta, tb, tc) on the
// mock agent. Their agent first creates the file "started" in dir, so a
// test can tell whether any agent ran.
func cliScenarios(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n"}
	for _, n := range []string{"a", "b", "c"} {
		files[n+".yaml"] = fmt.Sprintf(`name: %s
tags: [t%s]
agent:
  command: [sh, -c, ': > started; exec "$0" mock-agent agent.mock.yaml', %q]
permissions: {default: deny}
turns:
  - prompt: hi
`, n, n, acprunBin)
	}
	writeFiles(t, dir, files)
}

// agentStarted reports whether an agent of cliScenarios ran in dir.
func agentStarted(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "started"))
	return err == nil
}

// charDevice returns a character device that behaves as /dev/null
// (minor 3) or /dev/full (minor 7): as root, a node made in dir, so that
// a regression replacing its output file can never replace the system's
// device; otherwise the system's own, which this process cannot replace.
func charDevice(t *testing.T, dir, name string, minor int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		sys := map[int]string{3: "/dev/null", 7: "/dev/full"}[minor]
		if fi, err := os.Stat(sys); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Skipf("no %s", sys)
		}
		return sys
	}
	path := filepath.Join(dir, name)
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
		t.Skipf("mknod: %v", err)
	}
	return path
}

// assertCharDevice fails the test when path is no longer a character
// device.
func assertCharDevice(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("%s is no longer a character device: %v (%v)", path, fi.Mode(), err)
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestCLIOutputToDevice writes every output to a device that discards
// it (/dev/null): it stays a device, and one device may take several
// outputs.
func TestCLIOutputToDevice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliScenarios(t, dir)
	null := charDevice(t, dir, "null", 3)
	res := acprun(t, dir, "run", "a.yaml", "-o", null, "--junit", null, "--events", null)
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	assertCharDevice(t, null)
	if entries, _ := os.ReadDir(filepath.Dir(null)); slices.ContainsFunc(entries, func(e os.DirEntry) bool {
		return strings.Contains(e.Name(), ".tmp")
	}) {
		t.Errorf("a temporary file was left beside %s", null)
	}
}

// TestCLIOutputThroughSymlinks writes the results through a symlink to an
// existing file (which keeps its mode) and the JUnit report through a
// dangling symlink (its target is created, 0644 less the umask); the
// links stay links. A new results file is 0644 too, not 0600.
func TestCLIOutputThroughSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliScenarios(t, dir)
	writeFiles(t, dir, map[string]string{"real/results.json": "old"})
	if err := os.Chmod(filepath.Join(dir, "real/results.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real/results.json", filepath.Join(dir, "results.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("reports/junit.xml", filepath.Join(dir, "junit.xml")); err != nil { // dangling
		t.Fatal(err)
	}
	old := syscall.Umask(0o022) // the child inherits it
	defer syscall.Umask(old)
	res := acprun(t, dir, "run", "a.yaml", "-o", "results.json", "--junit", "junit.xml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, link := range []string{"results.json", "junit.xml"} {
		if fi, err := os.Lstat(filepath.Join(dir, link)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s was replaced: %v (%v)", link, fi.Mode(), err)
		}
	}
	out := readResults(t, filepath.Join(dir, "real/results.json"))
	if len(out.Scenarios) != 1 {
		t.Errorf("the symlink's target holds %d scenarios, want 1", len(out.Scenarios))
	}
	data, err := os.ReadFile(filepath.Join(dir, "reports/junit.xml"))
	if err != nil || xml.Unmarshal(data, new(struct{})) != nil {
		t.Errorf("the dangling symlink's target is not JUnit XML: %v\n%s", err, data)
	}
	modes := map[string]fs.FileMode{"real/results.json": 0o600, "reports/junit.xml": 0o644}
	res = acprun(t, dir, "run", "a.yaml", "-o", "new/results.json")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	modes["new/results.json"] = 0o644
	for name, want := range modes {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", name, fi.Mode().Perm(), err, want)
		}
	}
}

// openFIFO makes a FIFO at path and opens it for reading and writing, so
// that opening it neither waits nor ends in EOF; reads time out after a
// minute, as a failure, not as synchronisation.
func openFIFO(t *testing.T, path string) *os.File {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	f.SetReadDeadline(time.Now().Add(time.Minute))
	return f
}

// TestCLIOutputToFIFO writes the results and the events into FIFOs: their
// reader gets the JSON, and the FIFOs stay FIFOs.
func TestCLIOutputToFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliScenarios(t, dir)
	resultsFIFO := openFIFO(t, filepath.Join(dir, "results.fifo"))
	eventsFIFO := openFIFO(t, filepath.Join(dir, "events.fifo"))
	type read struct {
		v   any
		err error
	}
	gotResults, gotEvents := make(chan read, 1), make(chan read, 1)
	go func() {
		// One JSON value, not to EOF: the test holds the FIFO open for
		// writing too (openFIFO), so report.Read would never end.
		var out report.Results
		err := json.NewDecoder(resultsFIFO).Decode(&out)
		gotResults <- read{out, err}
	}()
	go func() {
		var events []string
		sc := bufio.NewScanner(eventsFIFO)
		for sc.Scan() {
			var ev progress.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				gotEvents <- read{events, fmt.Errorf("line %q: %w", sc.Text(), err)}
				return
			}
			events = append(events, ev.Event)
			if ev.Event == "scenario_finished" {
				break
			}
		}
		gotEvents <- read{events, sc.Err()}
	}()
	res := acprun(t, dir, "run", "a.yaml", "-o", "results.fifo", "--events", "events.fifo")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if r := <-gotResults; r.err != nil || len(r.v.(report.Results).Scenarios) != 1 {
		t.Errorf("the results FIFO's reader got %+v, %v; want the results of one scenario", r.v, r.err)
	}
	if r := <-gotEvents; r.err != nil || !slices.Contains(r.v.([]string), "scenario_started") {
		t.Errorf("the events FIFO's reader got %q, %v", r.v, r.err)
	}
	for _, name := range []string{"results.fifo", "events.fifo"} {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("%s is no longer a FIFO: %v (%v)", name, fi.Mode(), err)
		}
	}
}

// TestCLIOutputPathsCheckedFirst gives output paths that cannot be
// written: acprun exits 2 naming the flag and the path, and no agent
// starts.
func TestCLIOutputPathsCheckedFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliScenarios(t, dir)
	writeFiles(t, dir, map[string]string{"file": "x"})
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"under /proc", []string{"-o", "/proc/nope/r.json"}, "acprun: -o /proc/nope/r.json: "},
		{"a directory as the results", []string{"--json", "adir"}, "acprun: -o adir: "},
		{"a directory as the JUnit file", []string{"--junit", "adir"}, "acprun: --junit adir: "},
		{"parent is a file", []string{"--events", "file/events.jsonl"}, "acprun: --events file/events.jsonl: "},
		{"transcripts in a file", []string{"--transcripts", "file"}, "acprun: --transcripts file: "},
		{"transcripts on stdout", []string{"--transcripts", "-"}, "acprun: --transcripts -: transcripts need a directory"},
		{"two outputs on stdout", []string{"-o", "-", "--events", "-"}, "acprun: -o - and --events -: only one output can go to stdout"},
		{"one file twice", []string{"-o", "same.xml", "--junit", "./same.xml"}, "acprun: -o same.xml and --junit ./same.xml: both write the same file"},
		{"the events and the results in one file", []string{"--events", "same.json", "-o", "same.json"}, "acprun: -o same.json and --events same.json: both write the same file"},
	}
	if os.Geteuid() != 0 {
		if err := os.Mkdir(filepath.Join(dir, "ro"), 0o555); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name string
			args []string
			want string
		}{"no permission", []string{"-o", "ro/r.json"}, "acprun: -o ro/r.json: "})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "started"))
			res := acprun(t, dir, append([]string{"run", "a.yaml"}, tt.args...)...)
			if res.code != exitUsage {
				t.Errorf("exit %d, want %d\n%s", res.code, exitUsage, res.stderr)
			}
			if !strings.Contains(res.stderr, tt.want) {
				t.Errorf("stderr does not contain %q:\n%s", tt.want, res.stderr)
			}
			if agentStarted(dir) {
				t.Errorf("an agent started before the output paths were checked")
			}
		})
	}
}

// TestCLIOutputsIgnoreSymlinksAgentsPlant: an agent that can write where
// the outputs go (its cwd, here the scenario's directory) cannot have
// acprun write them elsewhere by putting symlinks in their place while it
// runs: the results, the HTML report and a later scenario's transcript
// replace the symlinks, and the files they point at are left alone.
func TestCLIOutputsIgnoreSymlinksAgentsPlant(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	plant := "ln -sf " + outside + "/results r.json; ln -sf " + outside + "/html report.html; ln -sf " + outside + "/transcript tr/b@mock.jsonl; mkdir -p out; ln -sf " + outside + "/junit out/j.xml"
	writeFiles(t, dir, map[string]string{
		"plant.mock.yaml": "turns: [{steps: [{spawn: '" + plant + "'}, {text: planted}]}]\n",
		"ok.mock.yaml":    "turns: [{steps: [{text: hello}]}]\n",
		"a.yaml":          "name: a\nagent: {name: mock, args: [plant.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n",
		"b.yaml":          "name: b\nagent: {name: mock, args: [ok.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n",
	})
	for _, victim := range []string{"results", "html", "transcript", "junit"} {
		if err := os.WriteFile(filepath.Join(outside, victim), []byte("the user's own\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := acprun(t, dir, "run", "a.yaml", "b.yaml", "-j", "1", "-o", "r.json", "--html", "report.html", "--junit", "out/j.xml", "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for _, victim := range []string{"results", "html", "transcript", "junit"} {
		if got, err := os.ReadFile(filepath.Join(outside, victim)); err != nil || string(got) != "the user's own\n" {
			t.Errorf("%s outside the run: %q (%v); acprun wrote through the agent's symlink", victim, got, err)
		}
	}
	for _, out := range []string{"r.json", "report.html", "tr/b@mock.jsonl", "out/j.xml"} {
		fi, err := os.Lstat(filepath.Join(dir, out))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			t.Errorf("%s: %v, %v; want the output, a regular file", out, fi, err)
		}
	}
	if got := readResults(t, filepath.Join(dir, "r.json")); len(got.Scenarios) != 2 {
		t.Errorf("results of %d scenarios, want 2", len(got.Scenarios))
	}
}

// TestCLIStdoutOutputs sends one machine output at a time to stdout ("-"):
// stdout holds it alone, GitHub annotations go to stderr, and no
// "results:" line names stdout.
func TestCLIStdoutOutputs(t *testing.T) {
	dir := t.TempDir()
	outputScenarios(t, dir) // alpha passes, beta fails
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	const annotation = "::error file=b.yaml,line=5,col=31,title=acprun%3A beta failed::"
	t.Run("junit", func(t *testing.T) {
		res := acprun(t, dir, "run", "a.yaml", "b.yaml", "--junit", "-", "-o", "out.json")
		if res.code != exitFailed {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		var doc struct {
			Tests int `xml:"tests,attr"`
		}
		if err := xml.Unmarshal([]byte(res.stdout), &doc); err != nil || doc.Tests != 2 {
			t.Errorf("stdout is not the JUnit report of 2 tests (%v):\n%s", err, res.stdout)
		}
		if _, err := os.Stat(filepath.Join(dir, "-")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a file named - was written")
		}
		if !strings.Contains(res.stderr, annotation) || !strings.Contains(res.stderr, "results: out.json\n") {
			t.Errorf("stderr lacks the annotation or the results line:\n%s", res.stderr)
		}
	})
	t.Run("events", func(t *testing.T) {
		res := acprun(t, dir, "run", "a.yaml", "b.yaml", "--events", "-", "-o", "out.json")
		if res.code != exitFailed {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		var finished []string
		for _, line := range strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n") {
			var ev struct{ Event, Scenario string }
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("stdout line %q is not an event: %v", line, err)
			}
			if ev.Event == "scenario_finished" {
				finished = append(finished, ev.Scenario)
			}
		}
		slices.Sort(finished)
		if diff := cmp.Diff([]string{"alpha", "beta"}, finished); diff != "" {
			t.Errorf("scenario_finished events on stdout (-want +got):\n%s", diff)
		}
		if !strings.Contains(res.stderr, annotation) {
			t.Errorf("stderr lacks the annotation:\n%s", res.stderr)
		}
	})
	t.Run("results", func(t *testing.T) {
		res := acprun(t, dir, "run", "a.yaml", "b.yaml", "-o", "-", "--junit", "junit.xml")
		if res.code != exitFailed {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		if out, err := report.Read(strings.NewReader(res.stdout)); err != nil || len(out.Scenarios) != 2 {
			t.Errorf("stdout is not the results alone (%v):\n%s", err, res.stdout)
		}
		if !strings.Contains(res.stderr, annotation) || strings.Contains(res.stderr, "results:") {
			t.Errorf("stderr: want the annotation and no results line:\n%s", res.stderr)
		}
	})
}

// TestCLIEmptySelection selects nothing: exit 5 with the filter that
// emptied the selection named, unless --allow-empty.
func TestCLIEmptySelection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliScenarios(t, dir)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"tag", []string{"run", "a.yaml", "b.yaml", "c.yaml", "--tag", "nosuch"},
			"acprun: no scenarios selected: --tag nosuch matched none of 3 scenarios (--allow-empty accepts an empty run)\n"},
		{"run typo", []string{"run", "a.yaml", "b.yaml", "c.yaml", "--run", "^d"},
			"acprun: no scenarios selected: --run ^d matched none of 3 scenarios"},
		{"run then tag", []string{"run", "a.yaml", "b.yaml", "c.yaml", "--run", "a|b", "--tag", "tc"},
			"acprun: no scenarios selected: --tag tc matched none of the 2 scenarios selected by --run 'a|b'"},
		{"empty shard", []string{"run", "a.yaml", "b.yaml", "--shard", "3/3"},
			"acprun: no scenarios selected: shard 3/3 is empty: the selection has 2 scenarios for 3 shards"},
		{"dry run", []string{"run", "a.yaml", "--tag", "nosuch", "--dry-run"},
			"acprun: no scenarios selected: --tag nosuch matched none of 1 scenario"},
		{"list", []string{"list", "a.yaml", "b.yaml", "--tag", "nosuch"},
			"acprun: no scenarios selected: --tag nosuch matched none of 2 scenarios"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args[0] == "run" {
				args = append(slices.Clone(args), "-o", "out.json")
			}
			res := acprun(t, dir, args...)
			if res.code != exitEmpty {
				t.Errorf("exit %d, want %d\n%s", res.code, exitEmpty, res.stderr)
			}
			if !strings.Contains(res.stderr, tt.want) {
				t.Errorf("stderr does not contain %q:\n%s", tt.want, res.stderr)
			}
			if res.stdout != "" {
				t.Errorf("stdout: %q, want nothing", res.stdout)
			}
			if _, err := os.Stat(filepath.Join(dir, "out.json")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("results were written for a run that ran nothing")
			}
		})
	}
	if agentStarted(dir) {
		t.Errorf("an agent started")
	}

	t.Run("allow empty", func(t *testing.T) {
		res := acprun(t, dir, "run", "a.yaml", "--tag", "nosuch", "--allow-empty", "-o", "empty.json")
		if res.code != exitOK {
			t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
		}
		out := readResults(t, filepath.Join(dir, "empty.json"))
		// The raw summary, to see summary.scenarios written as 0, not left out.
		var raw struct {
			Summary map[string]json.RawMessage `json:"summary"`
		}
		readJSON(t, filepath.Join(dir, "empty.json"), &raw)
		if out.Scenarios == nil || len(out.Scenarios) != 0 || string(raw.Summary["scenarios"]) != "0" {
			t.Errorf("results of an empty run: %+v", out)
		}
		if list := acprun(t, dir, "list", "a.yaml", "--tag", "nosuch", "--allow-empty"); list.code != exitOK || list.stdout != "" {
			t.Errorf("list --allow-empty: exit %d, stdout %q; want 0 and nothing", list.code, list.stdout)
		}
	})
}

// TestCLIExitCodes checks every exit code but 130 (see
// TestInterruptWritesPartialResults) through the binary, and that an
// output acprun could not write beats a failed scenario.
func TestCLIExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir) // a.yaml passes, b.yaml fails
	full := charDevice(t, dir, "full", 7)
	writeFiles(t, dir, map[string]string{
		"bad.yaml": "name: bad\nturns: 3\n",
		"nostart.yaml": `name: nostart
agent: {command: [/nonexistent/agent]}
turns:
  - prompt: hi
`,
		// The agent turns the results directory into a file: the check
		// before the run passed, the write after it fails.
		"breaks.yaml": fmt.Sprintf(`name: breaks
agent:
  command: [sh, -c, 'rm -rf out; echo > out; exec "$0" mock-agent agent.mock.yaml', %q]
turns:
  - prompt: hi
`, acprunBin),
	})
	tests := []struct {
		name string
		args []string
		want int
		in   []string // in stderr
	}{
		{"passed", []string{"a.yaml"}, exitOK, []string{"1 passed, 0 failed"}},
		{"failed", []string{"a.yaml", "b.yaml"}, exitFailed, []string{"1 passed, 1 failed"}},
		{"bad scenario file", []string{"bad.yaml"}, exitUsage, []string{"bad.yaml:2:"}},
		{"agent did not start", []string{"a.yaml", "nostart.yaml"}, exitAgent, []string{"nostart"}},
		{"results not written", []string{"a.yaml", "b.yaml", "-o", full}, exitOutput, []string{
			"1 passed, 1 failed", // the summary is still there
			"acprun: -o " + full + ": write " + full + ": no space left on device; the results were not written\n",
		}},
		{"events not written", []string{"a.yaml", "--events", full}, exitOutput, []string{
			"1 passed, 0 failed",
			"acprun: --events " + full + ": write " + full + ": no space left on device",
		}},
		{"output lost after the run", []string{"breaks.yaml", "-o", "out/r.json", "--junit", "out/j.xml"}, exitOutput, []string{
			"1 passed, 0 failed",
			"acprun: -o out/r.json: ", "; the results were not written",
			"acprun: --junit out/j.xml: ", "; the JUnit report was not written",
		}},
		{"nothing selected", []string{"a.yaml", "--tag", "nosuch"}, exitEmpty, []string{"no scenarios selected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run"}, tt.args...)
			if !slices.Contains(args, "-o") { // -o is given once
				args = append(args, "-o", "out.json")
			}
			res := acprun(t, dir, args...)
			if res.code != tt.want {
				t.Errorf("exit %d, want %d\n%s", res.code, tt.want, res.stderr)
			}
			for _, s := range tt.in {
				if !strings.Contains(res.stderr, s) {
					t.Errorf("stderr does not contain %q:\n%s", s, res.stderr)
				}
			}
			if tt.want == exitOutput && strings.Contains(res.stderr, "results: ") && !strings.Contains(tt.name, "events") {
				t.Errorf("stderr names a results file that was not written:\n%s", res.stderr)
			}
		})
	}
	if os.Geteuid() == 0 {
		assertCharDevice(t, full)
	}

	t.Run("merge", func(t *testing.T) {
		writeFiles(t, dir, map[string]string{
			"shard.json": shardJSON(t, "2026-03-14T09:26:53.589Z", 10, false, shardScenario{name: "alpha", file: "a.yaml", line: 1, status: "failed"}),
		})
		res := acprun(t, dir, "merge", "shard.json", "-o", full)
		if res.code != exitOutput {
			t.Errorf("merge to a full device: exit %d, want %d\n%s", res.code, exitOutput, res.stderr)
		}
		for _, s := range []string{"0 passed, 1 failed", "acprun: merge: -o " + full + ": write " + full + ": no space left on device; the merged results were not written"} {
			if !strings.Contains(res.stderr, s) {
				t.Errorf("merge stderr does not contain %q:\n%s", s, res.stderr)
			}
		}
		if res := acprun(t, dir, "merge", "shard.json", "-o", "/proc/nope/all.json"); res.code != exitUsage || !strings.Contains(res.stderr, "-o /proc/nope/all.json: ") {
			t.Errorf("merge -o under /proc: exit %d, want %d\n%s", res.code, exitUsage, res.stderr)
		}
	})
}

// TestCLIUnwritableStdoutExits4: a command whose output to stdout cannot
// be written (a full device) says so and exits 4, "acprun could not write
// its output or failed internally": never 1, which says a scenario failed
// or a request was denied, nor 2 or 0 for help and the version. A pipe
// whose reader has gone (acprun agents | head -1, head gone first) is no
// such failure: the reader had what it wanted, and acprun ends quietly
// with exit 0, as ripgrep does (no SIGPIPE death, exit 141, either).
func TestCLIUnwritableStdoutExits4(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliScenarios(t, dir)
	full := charDevice(t, dir, "full", 7)
	for _, args := range [][]string{
		{"list", "a.yaml"},
		{"list", "--json", "a.yaml"},
		{"run", "--dry-run", "a.yaml"},
		{"validate", "a.yaml"},
		{"agents"},
		{"schema"},
		{"explain", "a.yaml", "--kind", "read"}, // denied: exit 1 were it written
		{"probe", "--", acprunBin, "mock-agent", "agent.mock.yaml"},
		{"--help"},
		{"run", "--help"},
		{"--version"},
	} {
		for _, out := range []struct {
			name, want string // want "": exit 0, nothing on stderr
			open       func() *os.File
		}{
			{full, ": no space left on device\n", func() *os.File {
				f, err := os.OpenFile(full, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}},
			{"a closed pipe", "", func() *os.File { return closedPipe(t) }},
		} {
			stdout := out.open()
			cmd := exec.Command(acprunFor(t), args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
			var stderr strings.Builder
			cmd.Stdout, cmd.Stderr = stdout, &stderr
			err := cmd.Run()
			stdout.Close()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if out.want == "" {
				if code != exitOK || stderr.Len() != 0 {
					t.Errorf("acprun %s > %s: exit %d, stderr %q; want 0 and nothing", strings.Join(args, " "), out.name, code, stderr.String())
				}
				continue
			}
			if code != exitOutput || !strings.HasPrefix(stderr.String(), "acprun: write ") || !strings.HasSuffix(stderr.String(), out.want) {
				t.Errorf("acprun %s > %s: exit %d, stderr %q; want %d and acprun: write …%s", strings.Join(args, " "), out.name, code, stderr.String(), exitOutput, out.want)
			}
		}
	}
	if agentStarted(dir) {
		t.Error("an agent of the scenarios ran")
	}
}

// TestCLIRepeatedRunTellsAttemptsApart runs one scenario twice with a
// warning each time: every event and every byStopReason entry names its
// attempt, and the summaries count both warnings.
func TestCLIRepeatedRunTellsAttemptsApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{permission: {toolCallId: c1, title: Read x, kind: read}}, {text: done}]\n",
		"s.yaml": `name: plan
agent: {command: [acprun, mock-agent, agent.mock.yaml], mode: plan}
permissions: {allow: [{kind: read}]}
turns:
  - prompt: hi
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "--repeat", "2", "-j", "2", "--events", "events.jsonl", "-o", "out.json")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	byAttempt := map[int][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var ev progress.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		byAttempt[ev.Attempt] = append(byAttempt[ev.Attempt], ev.Event)
	}
	// The runner reports a scenario's warnings when it ends.
	want := []string{"scenario_started", "turn_started", "permission", "turn_finished", "warning", "scenario_finished"}
	for _, a := range []int{1, 2} {
		got := slices.Clone(byAttempt[a])
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events of attempt %d (-want +got):\n%s", a, diff)
		}
	}
	if evs, ok := byAttempt[0]; ok {
		t.Errorf("events without an attempt: %q", evs)
	}

	out := readResults(t, filepath.Join(dir, "out.json"))
	var refs []string
	for _, r := range out.ByStopReason["end_turn"] {
		refs = append(refs, fmt.Sprintf("%s#%d turn %d", r.Scenario, r.Attempt, r.Turn))
	}
	if diff := cmp.Diff([]string{"plan#1 turn 1", "plan#2 turn 1"}, refs); diff != "" {
		t.Errorf("byStopReason.end_turn (-want +got):\n%s", diff)
	}
	if out.Summary.Warnings != 2 {
		t.Errorf("summary.warnings = %v, want 2", out.Summary.Warnings)
	}
	if last := lastLine(strings.TrimSuffix(res.stderr, "results: out.json\n")); !strings.HasPrefix(last, "2 passed, 0 failed, 2 warnings in ") {
		t.Errorf("last summary line %q; want it to count 2 warnings", last)
	}
}

// TestCLIOutputToProcFD writes the results through a symlink to
// /proc/self/fd/1 (as /dev/stdout is) and the JUnit report through one to
// /proc/self/fd/2: they land on acprun's stdout and stderr, pipes that
// have no path of their own. (The links are made in a temporary
// directory, so that a regression cannot replace the system's
// /dev/stdout.)
func TestCLIOutputToProcFD(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/fd/1"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	dir := t.TempDir()
	cliScenarios(t, dir)
	for name, fd := range map[string]string{"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(fd, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	res := acprun(t, dir, "run", "a.yaml", "-o", "stdout", "--junit", "stderr")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if out, err := report.Read(strings.NewReader(res.stdout)); err != nil || len(out.Scenarios) != 1 {
		t.Errorf("stdout is not the results (%v):\n%s", err, res.stdout)
	}
	if !strings.Contains(res.stderr, `<testsuites name="acprun" tests="1"`) {
		t.Errorf("stderr lacks the JUnit report:\n%s", res.stderr)
	}
	for _, name := range []string{"stdout", "stderr"} {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s was replaced", name)
		}
	}
	// A name of stdout is stdout: with "-", that is two outputs there.
	res = acprun(t, dir, "run", "a.yaml", "-o", "-", "--events", "stdout")
	if want := "acprun: -o - and --events stdout: only one output can go to stdout"; res.code != exitUsage || !strings.Contains(res.stderr, want) {
		t.Errorf("-o - --events stdout: exit %d, want %d and %q\n%s", res.code, exitUsage, want, res.stderr)
	}
}

// TestCLIMatrixByStopReasonSurvivesMerge runs two scenarios against two
// named agents twice each, in two shards, and merges them: every
// byStopReason entry names its agent and attempt, so none is a duplicate.
func TestCLIMatrixByStopReasonSurvivesMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"acprun.yaml": `agents:
  alpha: {command: [acprun, mock-agent, agent.mock.yaml]}
  beta: {command: [acprun, mock-agent, agent.mock.yaml]}
`,
		"s.yaml": "name: one\nagent: alpha\npermissions: {default: deny}\nturns:\n  - prompt: hi\n---\nname: two\nagent: alpha\npermissions: {default: deny}\nturns:\n  - prompt: hi\n",
	})
	for _, shard := range []string{"1/2", "2/2"} {
		out := "shard" + shard[:1] + ".json"
		if res := acprun(t, dir, "run", "s.yaml", "--agent", "alpha", "--agent", "beta", "--repeat", "2", "--shard", shard, "-o", out); res.code != exitOK {
			t.Fatalf("shard %s: exit %d\n%s", shard, res.code, res.stderr)
		}
	}
	if res := acprun(t, dir, "merge", "shard2.json", "shard1.json", "-o", "all.json"); res.code != exitOK {
		t.Fatalf("merge: exit %d\n%s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "all.json"))
	var got []string
	for _, r := range out.ByStopReason["end_turn"] {
		got = append(got, fmt.Sprintf("%s@%s#%d/%d", r.Scenario, r.Agent, r.Attempt, r.Turn))
	}
	want := []string{
		"one@alpha#1/1", "one@alpha#2/1", "one@beta#1/1", "one@beta#2/1",
		"two@alpha#1/1", "two@alpha#2/1", "two@beta#1/1", "two@beta#2/1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged byStopReason.end_turn (-want +got):\n%s", diff)
	}
}

// snippetLine matches the lines under an error that show its source
// line and the caret: "    4 | text" and "      |   ^".
var snippetLine = regexp.MustCompile(`^    (\d+ | +)\| `)

// errorLines returns the lines of stderr without the source lines and
// carets shown under the errors.
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if !snippetLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// TestCLIUsageErrorsPointAtHelp checks that a command-line error says
// which help to read: that of the command it was given to, or acprun's
// own for an unknown command. Nothing runs (exit 2).
func TestCLIUsageErrorsPointAtHelp(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "acprun: expected \"<file> ...\"\nsee 'acprun report --help'\n"},
		{[]string{"frobnicate"}, "acprun: unexpected argument frobnicate\nsee 'acprun --help'\n"},
		{[]string{"run", "--bogus", "x.yaml"}, "acprun: unknown flag --bogus\nsee 'acprun run --help'\n"},
		{[]string{"mock-agent", "a.yaml", "b.yaml"}, "acprun: unexpected argument b.yaml\nsee 'acprun mock-agent --help'\n"},
	} {
		res := acprun(t, t.TempDir(), tt.args...)
		if res.code != exitUsage || res.stderr != tt.want {
			t.Errorf("acprun %s: exit %d, stderr:\n%s\nwant %d and:\n%s", strings.Join(tt.args, " "), res.code, res.stderr, exitUsage, tt.want)
		}
	}
}

// TestCLIErrorsShowTheSourceLine checks that each positioned error of a
// scenario or config file is followed by its source line and a caret
// under the column, in every command that loads scenarios, while the
// error's own line stays "file:line:col: message".
func TestCLIErrorsShowTheSourceLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// A multi-byte character and a tab before the column.
		"s.yaml":          "name: s\nagent: {command: [a], cwd: \"é\t${NOPE\"}\npermissions: {default: deny}\nturns:\n  - prompt: héllo wörld\n    expect: {stopReasn: end_turn}\n",
		"cfg/acprun.yaml": "agents:\n  x: {comand: [a]}\n",
	})
	want := "" +
		"s.yaml:2:31: unterminated variable reference \"${NOPE\": missing }\n" +
		"    2 | agent: {command: [a], cwd: \"é   ${NOPE\"}\n" +
		"      |                                 ^\n" +
		"s.yaml:6:14: unknown key \"stopReasn\" (did you mean \"stopReason\"?)\n" +
		"    6 |     expect: {stopReasn: end_turn}\n" +
		"      |              ^\n"
	for _, args := range [][]string{
		{"validate", "s.yaml"},
		{"run", "s.yaml"},
		{"list", "s.yaml"},
		{"explain", "s.yaml", "--kind", "read"},
	} {
		res := acprun(t, dir, args...)
		if res.code != exitUsage || res.stderr != want {
			t.Errorf("acprun %s: exit %d, stderr:\n%s\nwant %d and:\n%s", strings.Join(args, " "), res.code, res.stderr, exitUsage, want)
		}
	}

	res := acprun(t, filepath.Join(dir, "cfg"), "agents")
	want = "" +
		"acprun.yaml:2:7: unknown key \"comand\" (did you mean \"command\"?)\n" +
		"    2 |   x: {comand: [a]}\n" +
		"      |       ^\n"
	if res.code != exitUsage || res.stderr != want {
		t.Errorf("acprun agents with a bad config: exit %d, stderr:\n%s\nwant %d and:\n%s", res.code, res.stderr, exitUsage, want)
	}

	// An error without a line has nothing to show.
	res = acprun(t, dir, "validate", "--config", "nope.yaml", "s.yaml")
	if got := errorLines(res.stderr); res.code != exitUsage || len(got) != 1 || got[0] != res.stderr[:len(res.stderr)-1] {
		t.Errorf("acprun validate --config nope.yaml: exit %d, stderr:\n%s\nwant %d and one line", res.code, res.stderr, exitUsage)
	}
}

// --version alone prints the version line, and so does --version after a
// command.
func TestVersionAloneMatchesAfterACommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alone := acprun(t, dir, "--version")
	after := acprun(t, dir, "list", "--version")
	if alone.code != 0 || after.code != 0 || alone.stdout != after.stdout || alone.stdout == "" || alone.stderr != "" {
		t.Errorf("--version: exit %d, %q, stderr %q; list --version: exit %d, %q; want both exit 0 with the same version line",
			alone.code, alone.stdout, alone.stderr, after.code, after.stdout)
	}
}

// TestCLIOutputIsNotAnInput: an output flag naming one of the command's
// inputs (a scenario file, the config file, a mock agent script, a
// --prompt file, the results --balance-from or --rerun-failed reads, the
// results report and merge read, a transcript report embeds; probe's
// config file and its agent's script or transcript), by its path or
// through a symlink or a hard link, exits 2 before anything runs, and the
// input is left as it was. Only run -o may replace the results
// --rerun-failed reads.
func TestCLIOutputIsNotAnInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: s
agent: {name: mock, args: [m.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {text: {contains: bye}}
`,
		"m.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"acprun.yaml": "agents: {}\n",
		"p.txt":       "hi again\n",
	})
	if err := os.Symlink("s.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "s.yaml"), filepath.Join(dir, "hard.yaml")); err != nil {
		t.Fatal(err)
	}
	if res := acprun(t, dir, "run", "s.yaml", "-o", "r.json", "-q", "--transcripts", "tr"); res.code != exitFailed {
		t.Fatalf("first run: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	inputs := []string{"s.yaml", "m.mock.yaml", "acprun.yaml", "p.txt", "r.json", "tr/s@mock.jsonl"}
	before := readFiles(t, dir, inputs...)
	tests := []struct {
		args []string
		want string // stderr
	}{
		{[]string{"run", "s.yaml", "-o", "s.yaml"}, "acprun: -o s.yaml: it is a scenario file of this run; give the results another file\n"},
		{[]string{"run", "s.yaml", "--junit", "link.yaml"}, "acprun: --junit link.yaml: it is a scenario file of this run; give the JUnit report another file\n"},
		{[]string{"run", "s.yaml", "--html", "hard.yaml"}, "acprun: --html hard.yaml: it is a scenario file of this run; give the HTML report another file\n"},
		{[]string{"run", "s.yaml", "--events", "s.yaml"}, "acprun: --events s.yaml: it is a scenario file of this run; give the events another file\n"},
		{[]string{"run", "s.yaml", "-o", "acprun.yaml"}, "acprun: -o acprun.yaml: it is the config file of this run; give the results another file\n"},
		{[]string{"run", "s.yaml", "-o", "m.mock.yaml"}, "acprun: -o m.mock.yaml: it is a mock agent script of this run; give the results another file\n"},
		{[]string{"run", "s.yaml", "--prompt", "p.txt", "--junit", "p.txt"}, "acprun: --junit p.txt: it is a --prompt file of this run; give the JUnit report another file\n"},
		{[]string{"run", "s.yaml", "--shard", "1/2", "--balance-from", "r.json", "-o", "r.json"}, "acprun: -o r.json: it is the results file --balance-from reads; give the results another file\n"},
		{[]string{"run", "s.yaml", "--rerun-failed", "r.json", "--junit", "r.json"}, "acprun: --junit r.json: it is the results file --rerun-failed reads; give the JUnit report another file\n"},
		{[]string{"report", "r.json", "-o", "r.json"}, "acprun: report: -o r.json: it is a results file report reads; give the report another file\n"},
		{[]string{"merge", "r.json", "-o", "r.json"}, "acprun: merge: -o r.json: it is a results file merge reads; give the merged results another file\n"},
		{[]string{"report", "r.json", "-o", "tr/s@mock.jsonl"}, "acprun: report: -o tr/s@mock.jsonl: it is a transcript the report embeds; give the report another file\n"},
		{[]string{"probe", "-o", "acprun.yaml", "--", "acprun", "mock-agent", "m.mock.yaml"}, "acprun: -o acprun.yaml: it is the config file of this probe; give the probe's JSON another file\n"},
		{[]string{"probe", "--config", "acprun.yaml", "-o", "acprun.yaml", "--", "acprun", "mock-agent", "m.mock.yaml"}, "acprun: -o acprun.yaml: it is the config file of this probe; give the probe's JSON another file\n"},
		{[]string{"probe", "-o", "m.mock.yaml", "--", "acprun", "mock-agent", "m.mock.yaml"}, "acprun: -o m.mock.yaml: it is a mock agent script of this probe; give the probe's JSON another file\n"},
		{[]string{"probe", "-o", "tr/s@mock.jsonl", "--", "acprun", "replay", "tr/s@mock.jsonl"}, "acprun: -o tr/s@mock.jsonl: it is a replay transcript of this probe; give the probe's JSON another file\n"},
		// acprun named by its path: the script is still the agent's input.
		{[]string{"probe", "-o", "m.mock.yaml", "--", acprunBin, "mock-agent", "m.mock.yaml"}, "acprun: -o m.mock.yaml: it is a file the probed command names (m.mock.yaml); give the probe's JSON another file\n"},
		{[]string{"probe", "-o", "p.txt", "--", "sh", "p.txt"}, "acprun: -o p.txt: it is a file the probed command names (p.txt); give the probe's JSON another file\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			res := acprun(t, dir, tt.args...)
			if res.code != exitUsage || res.stderr != tt.want {
				t.Errorf("exit %d, stderr:\n%s\nwant %d and:\n%s", res.code, res.stderr, exitUsage, tt.want)
			}
			for name, data := range readFiles(t, dir, inputs...) {
				if !bytes.Equal(data, before[name]) {
					t.Errorf("%s was changed:\n%s", name, data)
				}
			}
		})
	}
	// The rerun's results replace those it reran.
	res := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "r.json", "-o", "r.json", "-q")
	if res.code != exitFailed {
		t.Fatalf("rerun -o r.json: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	if after := readFiles(t, dir, "r.json")["r.json"]; bytes.Equal(after, before["r.json"]) {
		t.Error("rerun -o r.json: r.json was not replaced")
	}
	readResults(t, filepath.Join(dir, "r.json"))
}

// TestCLINegativeFlagValues: -j -1, --repeat -1 and --turn-timeout -1s
// exit 2 saying what values the flag takes, before any agent starts.
func TestCLINegativeFlagValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliScenarios(t, dir)
	for args, want := range map[string]string{
		"-j -1":              `acprun: --jobs: "-1": want how many scenarios run at once, 1 or more`,
		"--repeat -1":        "acprun: --repeat -1: want at least 1 attempt per scenario",
		"--turn-timeout -1s": `acprun: --turn-timeout: "-1s" is not a positive duration`,
	} {
		res := acprun(t, dir, append([]string{"run", "a.yaml"}, strings.Fields(args)...)...)
		if res.code != exitUsage || !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "perhaps try") || agentStarted(dir) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q, no agent started", args, res.code, res.stderr, exitUsage, want)
		}
	}
}

// TestCLIFlagWithoutItsValue: a flag given without its value, as an
// unquoted empty variable leaves it in a shell script (-o $OUT --junit
// j.xml), exits 2 before any agent starts or any file is written, with an
// error that names the flag as typed, says what value it needs, and does
// not offer the next flag as its value (--output="--junit").
func TestCLIFlagWithoutItsValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		script string // run by sh with $0 the acprun binary
		want   string
	}{
		{`OUT=; "$0" run a.yaml -o $OUT --junit j.xml`,
			`acprun: -o needs a file name, but the next word is the flag --junit (an empty variable? quote it: -o "$VAR")`},
		{`OUT=; "$0" run a.yaml --json $OUT`,
			`acprun: --json needs a file name, but the command line ends after it (an empty variable? quote it: --json "$VAR")`},
		{`T=; "$0" run a.yaml --timeout $T -q`,
			`acprun: --timeout needs a duration (e.g. 5m), but the next word is the flag -q (an empty variable? quote it: --timeout "$VAR")`},
		{`"$0" run a.yaml -j`,
			`acprun: -j needs a number, but the command line ends after it (an empty variable? quote it: -j "$VAR")`},
		{`"$0" run a.yaml --run -a`,
			`acprun: --run needs a regular expression, but the next word, -a, starts with "-": if it is the value, write --run=-a`},
	} {
		t.Run(tt.script, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cliScenarios(t, dir)
			before := dirNames(t, dir)
			cmd := exec.Command("sh", "-c", tt.script, acprunFor(t))
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
			res, _ := runCommand(t, cmd)
			want := tt.want + "\nsee 'acprun run --help'\n"
			if res.code != exitUsage || res.stderr != want {
				t.Errorf("exit %d, stderr:\n%s\nwant %d and:\n%s", res.code, res.stderr, exitUsage, want)
			}
			if got := dirNames(t, dir); !slices.Equal(got, before) || agentStarted(dir) {
				t.Errorf("the directory holds %q after the command; want %q: nothing run or written", got, before)
			}
		})
	}
}

// TestFlagsNotAcceptedSilently: --shards 0 in an Indexed Job, where it
// would read as --shards left out and run the whole suite in every pod,
// --max-failures 0, which would read as no limit, the results file
// named twice (-o and its older name --json), where only the last would
// be written, and -o= (-o=$OUT with OUT unset), which wrote a file named
// "=", are usage errors: nothing runs, nothing is written.
func TestFlagsNotAcceptedSilently(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--shards=0"}, `acprun: --shards: "0": want the number of shards, 1 or more (leave --shards out not to shard by JOB_COMPLETION_INDEX)`},
		{[]string{"--shards", "-1"}, `acprun: --shards: "-1": want the number of shards, 1 or more (leave --shards out not to shard by JOB_COMPLETION_INDEX)`},
		{[]string{"--max-failures=0"}, `acprun: --max-failures: "0": want how many failures stop the run, 1 or more (leave --max-failures out to run every scenario)`},
		{[]string{"-o", "a.json", "--json", "b.json"}, "acprun: -o/--output (or --json) given 2 times: it takes a file, and only the last would count; give it once"},
		{[]string{"-o="}, `acprun: -o/--output "": the path is empty (is the variable that gives it unset?): give a file, or leave the flag out`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario})
			res := acprunEnv(t, dir, []string{"JOB_COMPLETION_INDEX=1"}, append([]string{"run", "s.yaml"}, tt.args...)...)
			if first, _, _ := strings.Cut(res.stderr, "\n"); res.code != exitUsage || first != tt.want {
				t.Errorf("exit %d, stderr:\n%s\nwant %d and %q", res.code, res.stderr, exitUsage, tt.want)
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{"s.yaml"}) {
				t.Errorf("the directory holds %q after the command; want nothing run or written", got)
			}
		})
	}
}

// TestShortOutputFlagWithEquals: -o=out.json writes out.json, as
// --output=out.json does, not a file named "=out.json".
func TestShortOutputFlagWithEquals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": ranScenario})
	res := acprun(t, dir, "run", "s.yaml", "-o=out.json")
	if got := dirNames(t, dir); !slices.Contains(got, "out.json") || slices.Contains(got, "=out.json") {
		t.Errorf("exit %d, the directory holds %q; want out.json\n%s", res.code, got, res.stderr)
	}
}
