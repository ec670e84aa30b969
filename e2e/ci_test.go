// End-to-end tests of what CI sees of acprun: GitHub annotations at the
// failing expectation, ::warning lines, colour and NO_COLOR, the version of
// the build, and -o/--output on every command that writes a file.

package e2e_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/creack/pty"
)

// ciAnnotationScenario fails a turn expectation and a scenario expectation,
// and warns twice: once with a position (a failing teardown command) and
// once without (a line of garbage on the agent's stdout).
const ciAnnotationScenario = `name: annotated
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
teardown:
  - exit 4
expect:
  toolCalls: {used: [edit]}
turns:
  - prompt: hi
    expect: {text: {contains: banana}}
`

// ciCrashScenario's agent exits during its turn.
const ciCrashScenario = "name: crashes\nagent: {command: [acprun, mock-agent, crash.mock.yaml]}\nturns:\n  - prompt: hi\n"

// ghPos turns a file:line:col position into the properties of a workflow
// command: file=F,line=L,col=C.
func ghPos(t *testing.T, pos string) string {
	t.Helper()
	m := regexp.MustCompile(`^(.+):([0-9]+):([0-9]+)$`).FindStringSubmatch(pos)
	if m == nil {
		t.Fatalf("%q is not file:line:col", pos)
	}
	return "file=" + m[1] + ",line=" + m[2] + ",col=" + m[3]
}

// TestCIGitHubAnnotationsAtTheExpectation runs acprun as a GitHub Actions
// step: each failed expectation is annotated at its own line and column (a
// turn's, the scenario's, and the stop reason a turn implicitly expects),
// an agent's crash at the scenario, each
// warning as a ::warning (at its position when it has one), and the step
// summary counts "1 error".
func TestCIGitHubAnnotationsAtTheExpectation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}, {garbage: 'npm WARN deprecated'}]\n",
		"crash.mock.yaml": "turns:\n  - steps: [{exit: 2}]\n",
		"a.yaml":          ciAnnotationScenario,
		"b.yaml":          ciCrashScenario,
	})
	summary := filepath.Join(dir, "step_summary.md")
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_WORKSPACE="}, "run", "a.yaml", "b.yaml", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	turnExpect := posAfter(t, "a.yaml", ciAnnotationScenario, "prompt: hi", "banana")
	used := posAfter(t, "a.yaml", ciAnnotationScenario, "used: [", "edit")
	teardown := posAfter(t, "a.yaml", ciAnnotationScenario, "teardown:", "exit 4")
	want := []string{
		"::error " + ghPos(t, turnExpect) + `,title=acprun%3A annotated failed::turn 1: text does not contain "banana"`,
		"::error " + ghPos(t, used) + `,title=acprun%3A annotated failed::toolCalls.used: no tool call matches "edit"`,
		"::error file=b.yaml,line=1,title=acprun%3A crashes errored::turn 1: the agent exited with code 2%0Astop reasons: agent_exited",
		"::error " + ghPos(t, lineCol("b.yaml", ciCrashScenario, strings.Index(ciCrashScenario, "prompt: hi"))) +
			",title=acprun%3A crashes errored::turn 1: stopReason agent_exited, want end_turn",
		"::warning " + ghPos(t, teardown) + ",title=acprun%3A annotated::teardown `exit 4` exited with code 4",
		"::warning file=a.yaml,line=1,title=acprun%3A annotated::protocol violation: ",
		// Warnings of loading are the scenarios' too.
		"::warning file=a.yaml,line=1,col=1,title=acprun%3A annotated::no permissions: every permission request and terminal command will be denied",
		"::warning file=b.yaml,line=1,col=1,title=acprun%3A crashes::no permissions: ",
	}
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	if len(lines) != len(want) {
		t.Errorf("%d workflow commands, want %d:\n%s", len(lines), len(want), res.stdout)
	}
	for _, w := range want {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, w)
		}
		if !found {
			t.Errorf("no workflow command starting %q in stdout:\n%s", w, res.stdout)
		}
	}
	data, err := os.ReadFile(summary)
	if err != nil {
		t.Fatalf("step summary: %v", err)
	}
	if !strings.Contains(string(data), "**0 passed, 1 failed, 1 error** of 2") {
		t.Errorf("step summary does not count \"1 error\":\n%s", data)
	}
}

// TestCIGitHubAnnotationCap: past the 10 error annotations GitHub shows for
// a step, acprun writes one ::notice with the count left out.
func TestCIGitHubAnnotationCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var words []string
	for _, w := range strings.Fields("a1 b2 c3 d4 e5 f6 g7 h8 i9 j10 k11 l12") {
		words = append(words, "zz"+w)
	}
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"s.yaml": "name: many\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns:\n  - prompt: hi\n" +
			"    expect: {text: {contains: [" + strings.Join(words, ", ") + "]}}\n",
	})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE="}, "run", "s.yaml", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	if n := strings.Count(res.stdout, "::error "); n != 10 {
		t.Errorf("%d ::error commands, want 10:\n%s", n, res.stdout)
	}
	if strings.Contains(res.stdout, "zzk11") || !strings.Contains(res.stdout, "zzj10") {
		t.Errorf("want the first 10 failures annotated, not the 11th:\n%s", res.stdout)
	}
	notice := "::notice title=acprun%3A more failures and errors::2 more failures and errors not annotated (GitHub shows 10 error annotations per step)"
	if !strings.Contains(res.stdout, notice) {
		t.Errorf("no %q in stdout:\n%s", notice, res.stdout)
	}
}

// ciColourResults writes results.json (one failed scenario) in dir, for
// merge to summarise in colour or not.
func ciColourResults(t *testing.T, dir string) {
	t.Helper()
	outputScenarios(t, dir)
	if res := acprun(t, dir, "run", "b.yaml", "-o", "results.json"); res.code != exitFailed {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
}

// onTerminal runs the acprun binary with stderr on a pseudo-terminal and
// env (NAME=value) replacing what the test's environment says of colour,
// and returns what the terminal showed and acprun's exit code.
func onTerminal(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(acprunFor(t), args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append([]string{"TERM=xterm-256color", "GORACE=atexit_sleep_ms=0"}, env...)...)
	cmd.Stderr = tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child has its own copy; reads end when it exits
	var out bytes.Buffer
	readErr := make(chan error, 1)
	go func() {
		_, err := io.Copy(&out, ptmx)
		readErr <- err
	}()
	waitErr := cmd.Wait()
	if err := <-readErr; err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		t.Fatal(waitErr)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// colourSGR matches an ANSI colour sequence (a foreground colour, as the
// summary's FAIL and counts use).
var colourSGR = regexp.MustCompile("\x1b\\[[0-9;]*3[0-7][0-9;]*m")

// anySGR matches any ANSI SGR sequence.
var anySGR = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestCINoColor: on a terminal, the summary is coloured unless NO_COLOR
// holds a value; an empty NO_COLOR= does not turn colour off
// (no-color.org). --color always colours through a pipe, and never wins
// over a terminal.
func TestCINoColor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ciColourResults(t, dir)
	merge := []string{"merge", "results.json", "-o", "merged.json"}
	tests := []struct {
		name  string
		env   []string
		args  []string
		tty   bool
		color bool
	}{
		{"terminal, NO_COLOR unset", nil, merge, true, true},
		{"terminal, NO_COLOR empty", []string{"NO_COLOR="}, merge, true, true},
		{"terminal, NO_COLOR=1", []string{"NO_COLOR=1"}, merge, true, false},
		{"terminal, --color never", nil, append([]string{"--color", "never"}, merge...), true, false},
		{"terminal, --color=always after the command", nil, append(merge, "--color=always"), true, true},
		{"pipe, NO_COLOR empty", []string{"NO_COLOR=", "TERM=xterm"}, merge, false, false},
		{"pipe, --color always", []string{"NO_COLOR="}, append(merge, "--color", "always"), false, true},
		{"pipe, --color always beats NO_COLOR=1", []string{"NO_COLOR=1"}, append(merge, "--color", "always"), false, true},
		{"terminal, --color always beats NO_COLOR=1", []string{"NO_COLOR=1"}, append(merge, "--color=always"), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			if tt.tty {
				got, _ = onTerminal(t, dir, tt.env, tt.args...)
			} else {
				got = acprunEnv(t, dir, tt.env, tt.args...).stderr
			}
			if !strings.Contains(anySGR.ReplaceAllString(got, ""), "0 passed, 1 failed") {
				t.Fatalf("no summary in:\n%q", got)
			}
			if colourSGR.MatchString(got) != tt.color {
				t.Errorf("coloured = %t, want %t:\n%q", !tt.color, tt.color, got)
			}
		})
	}
}

// versionLine matches what --version prints: acprun, the module version,
// then the commit (+dirty) and its date when the build recorded them.
var versionLine = regexp.MustCompile(`^acprun (\S+)(?: \(([0-9a-f]{7})(\+dirty)?(?:, ([0-9]{4}-[0-9]{2}-[0-9]{2}))?\))?\n$`)

// TestCIVersionOfTheTestBinary: the suite's binary (built with or without
// VCS information, as the machine's go env says) prints a version line of
// the documented form, never the old "dev", with the commit that `go
// version -m` reads from it.
func TestCIVersionOfTheTestBinary(t *testing.T) {
	t.Parallel()
	res := acprun(t, t.TempDir(), "--version")
	m := versionLine.FindStringSubmatch(res.stdout)
	if res.code != 0 || m == nil || m[1] == "dev" {
		t.Fatalf("--version: exit %d, %q; want %s", res.code, res.stdout, versionLine)
	}
	out, err := exec.Command("go", "version", "-m", acprunBin).Output()
	if err != nil {
		t.Skipf("go version -m: %v", err)
	}
	rev := regexp.MustCompile(`(?m)^\s+build\s+vcs\.revision=([0-9a-f]+)$`).FindSubmatch(out)
	dirty := regexp.MustCompile(`(?m)^\s+build\s+vcs\.modified=true$`).Match(out)
	switch {
	case rev == nil:
		if m[2] != "" {
			t.Errorf("--version says commit %s; the build info has none", m[2])
		}
	case m[2] == "" || !strings.HasPrefix(string(rev[1]), m[2]) || (m[3] != "") != dirty:
		t.Errorf("--version = %q; the build info says commit %s, modified %t", res.stdout, rev[1], dirty)
	}
}

// TestCIVersionFromGit builds acprun from a git clone of this source tree,
// tagged v0.9.7: --version names the tag, the commit and its date, and
// +dirty once the tree has a change; initialize sends the same string as
// clientInfo.version.
func TestCIVersionFromGit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds acprun twice")
	}
	src, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Run(); err != nil {
		t.Skipf("the source is not a git checkout: %v", err)
	}
	// plainBinary's build leaves acprun's packages compiled with -trimpath,
	// as the builds below ask: they only link.
	if _, err := plainBinary(); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "src")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", clone}, args...)...)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "clone", "-q", "--no-hardlinks", src, clone).CombinedOutput(); err != nil {
		t.Skipf("cannot clone the source tree (a shallow or odd checkout?): %v\n%s", err, out)
	}
	git("tag", "v0.9.7")
	rev := git("rev-parse", "--short=7", "HEAD")
	date := git("log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%d")
	build := func(name string) string {
		t.Helper()
		bin := filepath.Join(filepath.Dir(clone), name)
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build in a git clone: %v\n%s", err, out)
		}
		return bin
	}
	dir := t.TempDir()
	clean, _ := runBinary(t, build("acprun-clean"), dir, nil, "--version")
	if want := "acprun v0.9.7 (" + rev + ", " + date + ")\n"; clean.stdout != want {
		t.Errorf("--version of a tagged clean build = %q, want %q", clean.stdout, want)
	}
	if err := os.WriteFile(filepath.Join(clone, "uncommitted.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirtyBin := build("acprun-dirty")
	dirty, _ := runBinary(t, dirtyBin, dir, nil, "--version")
	wantVersion := "v0.9.7 (" + rev + "+dirty, " + date + ")"
	if want := "acprun " + wantVersion + "\n"; dirty.stdout != want {
		t.Errorf("--version of a dirty build = %q, want %q", dirty.stdout, want)
	}
	if after, _ := runBinary(t, dirtyBin, dir, nil, "list", "--version"); after.stdout != dirty.stdout {
		t.Errorf("list --version = %q; want what --version prints, %q", after.stdout, dirty.stdout)
	}

	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"s.yaml":          "name: hello\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns:\n  - prompt: hi\n",
	})
	run, _ := runBinary(t, dirtyBin, dir, nil, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr")
	if run.code != 0 {
		t.Fatalf("run: exit %d\n%s", run.code, run.stderr)
	}
	line := findTranscriptLine(t, filepath.Join(dir, "tr", "hello.jsonl"), `"initialize"`, "c2a")
	var rec struct {
		Msg struct {
			Params struct {
				ClientInfo struct{ Name, Version string } `json:"clientInfo"`
			} `json:"params"`
		} `json:"msg"`
	}
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("initialize in the transcript: %v\n%s", err, line)
	}
	if ci := rec.Msg.Params.ClientInfo; ci.Name != "acprun" || ci.Version != wantVersion {
		t.Errorf("clientInfo = %+v, want acprun %q", ci, wantVersion)
	}
}

// TestCIOutputFlag: -o/--output names the file every command that writes
// one writes; run still takes --json FILE, and probe --json stays a switch.
func TestCIOutputFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir)
	for _, flag := range []string{"-o", "--output", "--output=", "--json"} {
		name := "res" + strings.Trim(flag, "-=") + ".json"
		args := []string{"run", "a.yaml", flag, name}
		if strings.HasSuffix(flag, "=") {
			args = []string{"run", "a.yaml", flag + name}
		}
		if res := acprun(t, dir, args...); res.code != 0 || !strings.Contains(res.stderr, "results: "+name) {
			t.Errorf("run %s %s: exit %d\n%s", flag, name, res.code, res.stderr)
		}
		readResults(t, filepath.Join(dir, name))
	}
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"merge", "reso.json", "--output", "merged.json"}, "results: merged.json\n"},
		{[]string{"report", "reso.json", "--output", "report.html"}, "report: report.html (1 scenario: 1 passed, 0 failed, 1 warning)\n"},
		{[]string{"schema", "-o", "schema/acprun.schema.json"}, ""},
		{[]string{"schema", "--config", "--output", "config.schema.json"}, ""},
	} {
		if res := acprun(t, dir, c.args...); res.code != 0 || !strings.HasSuffix(res.stderr, c.stderr) || c.stderr == "" && res.stderr != "" {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant 0 and a stderr ending %q", c.args, res.code, res.stderr, c.stderr)
		}
	}
	readResults(t, filepath.Join(dir, "merged.json"))
	files := readFiles(t, dir, "report.html", "schema/acprun.schema.json", "config.schema.json")
	if !bytes.Contains(files["report.html"], []byte("<html")) {
		t.Errorf("report --output: not an HTML page")
	}
	for _, f := range []string{"schema/acprun.schema.json", "config.schema.json"} {
		if !json.Valid(files[f]) || !bytes.Contains(files[f], []byte(`"$schema"`)) {
			t.Errorf("schema -o %s: not a JSON Schema:\n%.200s", f, files[f])
		}
	}
	stdoutSchema := acprun(t, dir, "schema")
	if stdoutSchema.stdout != string(files["schema/acprun.schema.json"]) {
		t.Errorf("schema -o wrote other bytes than schema prints")
	}
	if res := acprun(t, dir, "schema", "-o", "/proc/no/such/dir/x.json"); res.code != exitUsage || !strings.Contains(res.stderr, "-o /proc/no/such/dir/x.json") {
		t.Errorf("schema -o into /proc: exit %d, stderr %q; want %d naming -o", res.code, res.stderr, exitUsage)
	}

	// probe -o FILE: the JSON goes to FILE, the text stays on stdout.
	probe := acprun(t, dir, "probe", "-o", "probe/caps.json", "--", acprunBin, "mock-agent", "agent.mock.yaml")
	if probe.code != 0 || !strings.Contains(probe.stdout, "agentInfo") && !strings.Contains(probe.stdout, "protocol") || json.Valid([]byte(probe.stdout)) {
		t.Errorf("probe -o: exit %d, stdout (want the text):\n%s\nstderr:\n%s", probe.code, probe.stdout, probe.stderr)
	}
	var caps map[string]any
	readJSON(t, filepath.Join(dir, "probe/caps.json"), &caps)
	if _, ok := caps["protocolVersion"]; !ok {
		t.Errorf("probe -o wrote %v; want the JSON probe --json prints", caps)
	}
	for _, args := range [][]string{{"probe", "-o", "-"}, {"probe", "--json"}} {
		res := acprun(t, dir, append(args, "--", acprunBin, "mock-agent", "agent.mock.yaml")...)
		var got map[string]any
		if res.code != 0 || json.Unmarshal([]byte(res.stdout), &got) != nil || got["protocolVersion"] == nil {
			t.Errorf("%v: exit %d; want the JSON on stdout:\n%s", args, res.code, res.stdout)
		}
	}
	if res := acprun(t, dir, "probe", "-o", "/proc/no/such/dir/x.json", "--", acprunBin, "mock-agent", "agent.mock.yaml"); res.code != exitUsage || !strings.Contains(res.stderr, "-o /proc/no/such/dir/x.json") {
		t.Errorf("probe -o into /proc: exit %d, stderr %q; want %d before the agent starts", res.code, res.stderr, exitUsage)
	}
}

// TestCIGitHubWorkspaceRelative: run in a subdirectory of the checkout,
// acprun names annotated files relative to $GITHUB_WORKSPACE, where GitHub
// looks for them.
func TestCIGitHubWorkspaceRelative(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	dir := filepath.Join(ws, "tests")
	outputScenarios(t, dir)
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE=" + ws}, "run", "b.yaml", "-o", "out.json")
	want := "::error file=tests/b.yaml,line=5,col=31,title=acprun%3A beta failed::turn 1: text does not contain \"bye\"%0A  turn 1 text (1 line):%0A  | hello\n" +
		"::warning file=tests/b.yaml,line=1,col=1,title=acprun%3A beta::no permissions: every permission request and terminal command will be denied (add permissions to allow some)\n"
	if res.code != exitFailed || res.stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant %d and:\n%s", res.code, res.stdout, exitFailed, want)
	}
}

// TestCIStepSummaryNotRun: the step summary of a run stopped at its first
// failure shows the scenarios it never started as not run, in its rows as
// in its totals, not as interrupted (none was cut short).
func TestCIStepSummaryNotRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios("fail", "pass")})
	summary := filepath.Join(dir, "summary.md")
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_WORKSPACE="}, "run", "s.yaml", "-j", "1", "--fail-fast", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	md := string(readFiles(t, dir, "summary.md")["summary.md"])
	for _, want := range []string{"**0 passed, 1 failed, 1 not run** of 2", "| ⏭️ not run | s2-pass | `s.yaml:8` | no turn ran |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the step summary lacks %s:\n%s", want, md)
		}
	}
	if strings.Contains(md, "interrupted") {
		t.Errorf("the step summary says interrupted, though nothing was cut short:\n%s", md)
	}
}
