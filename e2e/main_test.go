// Package e2e_test holds acprun's end-to-end tests: they run the acprun
// binary, built once in TestMain, as a user does, in temporary
// directories; paths into the checkout (examples/, docs/) go through root.
package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

var (
	// acprunBin is acprun built once for the end-to-end tests, without
	// the race detector: the runs of most tests, and the agents acprun
	// starts as "acprun" (mock agents, replays).
	acprunBin string
	// raceBin is acprun built once with -race, for the tests that call
	// underRace and, with ACPRUN_E2E_RACE=1, for every test.
	raceBin string
	// racedTests holds the names of the top-level tests that called
	// underRace.
	racedTests sync.Map
)

// underRace makes t, and its subtests, run acprun built with the race
// detector. The tests that call it drive the paths where acprun's
// packages run concurrently together: signals and cancels, parallel
// scenarios, the output streams and their readers, pools, the gateway.
// Each package's own tests run under -race too, so the plain build
// serves the rest (it halves the package's CPU).
func underRace(t *testing.T) { racedTests.Store(t.Name(), true) }

// acprunFor is the acprun binary t runs: the race build when t (or the
// top-level test it belongs to) called underRace or ACPRUN_E2E_RACE is
// 1, the plain build otherwise.
func acprunFor(t testing.TB) string {
	testkit.DependOnSources() // the binary was built before the tests ran
	name, _, _ := strings.Cut(t.Name(), "/")
	if _, raced := racedTests.Load(name); raced || os.Getenv("ACPRUN_E2E_RACE") == "1" {
		return raceBin
	}
	return acprunBin
}

// root is the module's root directory, where examples/, docs/ and README.md
// are; the tests run in e2e/.
const root = ".."

// acprun's exit codes, as its help and docs/results.md document them.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitAgent       = 3
	exitOutput      = 4
	exitEmpty       = 5
	exitInvalid     = 7
	exitInterrupted = 130
)

// TestMain builds acprun once with -race and once without (see
// acprunFor); the agents acprun starts as "acprun" run the plain build
// (see runner.EnvTestSelf).
func TestMain(m *testing.M) {
	testkit.Main(m, func() error {
		// The two builds at once: on a cold cache each compiles every
		// package its own way.
		plain := make(chan error, 1)
		go func() {
			// The agents acprun starts as "acprun" (mock agents,
			// replays) run the plain build: mockagent's and replay's own
			// tests run them under the race detector.
			var err error
			acprunBin, err = plainBinary()
			plain <- err
		}()
		var err error
		raceBin, err = testkit.Build("github.com/acprun/acprun", "-race")
		if perr := <-plain; err == nil {
			err = perr
		}
		if err != nil {
			return err
		}
		os.Setenv(runner.EnvTestSelf, acprunBin)
		// The suite may itself run as one shard of a CI job (a Kubernetes
		// Indexed Job, GitLab's parallel:): the binaries it starts must not
		// shard their selections by the job's index. Tests that want
		// sharding set these themselves.
		for _, v := range []string{"JOB_COMPLETION_INDEX", "CI_NODE_INDEX", "CI_NODE_TOTAL"} {
			os.Unsetenv(v)
		}
		return err
	})
}

// result is what one acprun invocation produced.
type result struct {
	code   int
	stdout string
	stderr string
}

// acprun runs the built binary in dir with args and returns what it did.
func acprun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return acprunEnv(t, dir, nil, args...)
}

// acprunEnv is acprun with env (NAME=value) added to the environment.
func acprunEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	res, _ := runBinary(t, acprunFor(t), dir, env, args...)
	return res
}

// runBinary runs bin (an acprun binary) in dir with env added to the
// test's environment, and returns what it did and how its process ended.
func runBinary(t *testing.T, bin, dir string, env []string, args ...string) (result, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
	return runCommand(t, cmd)
}

// runCommand runs an acprun command made by the caller (runBinary's, or
// one with its own stdin) and checks that the race detector stayed quiet.
func runCommand(t *testing.T, cmd *exec.Cmd) (result, *os.ProcessState) {
	t.Helper()
	args := cmd.Args[1:]
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run acprun %v: %v", args, err)
	}
	if strings.Contains(stderr.String(), "WARNING: DATA RACE") {
		t.Errorf("acprun %v: the race detector fired:\n%s", args, stderr.String())
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}, cmd.ProcessState
}

// maxRSSLauncher is testdata/maxrss, built on first use: it runs a
// command and reports its peak resident memory, measured without the test
// binary's own (see its doc).
func maxRSSLauncher() (string, error) { return testkit.Build("./testdata/maxrss") }

// runMeasured is runBinary through maxRSSLauncher: it also returns the
// command's peak resident memory in bytes.
func runMeasured(t *testing.T, bin, dir string, args ...string) (result, int64) {
	t.Helper()
	launcher, err := maxRSSLauncher()
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "maxrss")
	res, _ := runBinary(t, launcher, dir, nil, append([]string{report, bin}, args...)...)
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no peak memory reported: %v\n%s", err, res.stderr)
	}
	kib, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		t.Fatalf("peak memory %q: %v", data, err)
	}
	return res, kib << 10
}

// plainBinary is acprun built without the race detector, for the runs whose
// volume the race detector would slow past CI's budget; built on first use.
// Built static (CGO_ENABLED=0) as the README builds it, and with -trimpath
// as a release is: its compiled packages do not depend on where the source
// is, so TestCIVersionFromGit's builds in a clone only link (mockagent's
// tests build acprun the same way).
func plainBinary() (string, error) {
	return testkit.BuildStatic("github.com/acprun/acprun", "-trimpath")
}

// realTempDir is a new test directory with its symlinks resolved, as
// the paths acprun records (workspaces, client requests) are.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeFiles writes name → content files under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readFiles reads the files names under dir, failing the test when one
// is missing.
func readFiles(t *testing.T, dir string, names ...string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files[name] = data
	}
	return files
}

// readJSON decodes the JSON file at path into v. The results are read with
// readResults; readJSON is for a test that checks their raw shape (a key
// written or left out) with a small struct of its own.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", filepath.Base(path), err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v\n%s", filepath.Base(path), err, data)
	}
}

// readResults reads the JSON results file at path as acprun merge does
// (report.Read: the product's own types, schemaVersion checked).
func readResults(t *testing.T, path string) report.Results {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("read results: %v", err)
	}
	defer f.Close()
	out, err := report.Read(f)
	if err != nil {
		data, _ := os.ReadFile(path)
		t.Fatalf("%s: %v\n%s", filepath.Base(path), err, data)
	}
	return out
}

// runResults runs `acprun run ARGS -o out.json` in dir and reads the
// results.
func runResults(t *testing.T, dir string, args ...string) (result, report.Results) {
	t.Helper()
	res := acprun(t, dir, append(append([]string{"run"}, args...), "-o", "out.json")...)
	path := filepath.Join(dir, "out.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("acprun run %v: exit %d and no results (%v)\nstderr:\n%s", args, res.code, err, res.stderr)
	}
	return res, readResults(t, path)
}

// runWithin runs `acprun run s.yaml -o out.json` in dir for an agent that
// tries to make it hang, and fails the test with stuck (and what acprun
// printed) when it has not ended within limit. It returns what acprun
// printed and how it ended.
func runWithin(t *testing.T, dir string, limit time.Duration, stuck string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, acprunFor(t), "run", "s.yaml", "-o", "out.json")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s\n%s", stuck, out)
	}
	return out, err
}

// runOne runs s.yaml on agent.mock.yaml in a new directory and returns
// what acprun did, the results and the directory.
func runOne(t *testing.T, script, scenario string, args ...string) (result, report.Results, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": script, "s.yaml": scenario})
	res, out := runResults(t, dir, append([]string{"s.yaml"}, args...)...)
	return res, out, dir
}

// lineCol is the file:line:col position of byte offset off in content.
func lineCol(file, content string, off int) string {
	line := strings.Count(content[:off], "\n") + 1
	col := off - (strings.LastIndexByte(content[:off], '\n') + 1) + 1
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

// findTranscriptLine returns the first transcript line in direction dir
// ("c2a" or "a2c") containing substr, or "".
func findTranscriptLine(t *testing.T, path, substr, dir string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, `"dir":"`+dir+`"`) && strings.Contains(l, substr) {
			return l
		}
	}
	return ""
}

// followedRun is an acprun run whose transcript the test follows.
type followedRun struct {
	t      *testing.T
	ctx    context.Context
	cmd    *exec.Cmd
	lines  *bufio.Scanner
	stdout *strings.Builder // read once the run has ended
	stderr *strings.Builder
}

// runFollowingTranscript starts `acprun run s.yaml -o out.json ARGS` in
// dir with the transcript of scenario name made a FIFO, and follows it:
// the transcript tells a test where the run is, with no polling. The test
// ends with waitInterrupted, which keeps draining the FIFO until acprun
// exits.
func runFollowingTranscript(t *testing.T, ctx context.Context, dir, name string, args ...string) *followedRun {
	t.Helper()
	trDir := filepath.Join(dir, "tr")
	if err := os.Mkdir(trDir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(trDir, name+".jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A reader held from before acprun starts: acprun's open of the FIFO
	// then finds one however late the test's reading open below comes, and
	// never waits (nor says it waits) for one, which it did on a loaded
	// machine.
	hold, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	cmd := exec.CommandContext(ctx, acprunFor(t), append([]string{"run", "s.yaml", "-o", "out.json", "--transcripts", "tr"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// When acprun ends first, the transcript reads as ended, and waitFor
	// says so with acprun's stderr.
	f, _, err := openFIFOUnless(fifo, exited(cmd.Process.Pid))
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &followedRun{t: t, ctx: ctx, cmd: cmd, lines: bufio.NewScanner(f), stdout: &stdout, stderr: &stderr}
}

// openFIFOUnless opens the FIFO path for reading once a writer opens it
// (opened), or at once when gone is closed first (acprun ended: a bad
// scenario, a crash), where opening it alone would wait for a writer
// forever. The file then reads what acprun may have written before it
// ended, then the end; a writer opened and closed for a moment lets the
// waiting open return, and its file is closed.
func openFIFOUnless(path string, gone <-chan struct{}) (f *os.File, opened bool, err error) {
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := os.Open(path)
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, true, r.err
	case <-gone:
	}
	select {
	case r := <-ch: // opened before the end
		return r.f, true, r.err
	default:
	}
	f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, err
	}
	if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	go func() {
		if r := <-ch; r.f != nil {
			r.f.Close()
		}
	}()
	return f, false, nil
}

// waitFor reads the transcript up to a line holding every one of substrs;
// when the transcript ends first, it kills acprun and fails the test,
// saying it ended before what.
func (r *followedRun) waitFor(what string, substrs ...string) {
	r.t.Helper()
	for r.lines.Scan() {
		if allIn(r.lines.Text(), substrs) {
			return
		}
	}
	r.cmd.Process.Kill()
	_ = r.cmd.Wait() // stderr is written until then
	r.t.Fatalf("the transcript ended before %s\n%s", what, r.stderr.String())
}

// allIn reports whether s contains every one of substrs.
func allIn(s string, substrs []string) bool {
	for _, sub := range substrs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// interrupt sends acprun SIGINT, as ^C does.
func (r *followedRun) interrupt() {
	r.t.Helper()
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		r.t.Fatal(err)
	}
}

// waitInterrupted keeps draining the transcript, so that acprun never
// blocks on the FIFO, until acprun exits; it fails the test unless acprun
// exited 130 (interrupted) before the context's deadline, and returns the
// results it wrote.
func (r *followedRun) waitInterrupted() report.Results {
	r.t.Helper()
	go func() {
		for r.lines.Scan() {
		}
	}()
	err := r.cmd.Wait()
	if r.ctx.Err() != nil {
		r.t.Fatalf("acprun still running at the test's deadline\n%s", r.stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		r.t.Fatalf("acprun: %v, want exit 130\n%s", err, r.stderr.String())
	}
	return readResults(r.t, filepath.Join(r.cmd.Dir, "out.json"))
}

// shHandshake answers initialize (id 1) and session/new (id 2) as acprun
// numbers its calls, for the sh agents of the tests, which do what the
// mock agent cannot (raw bytes, a backlog at full speed, stop reading).
const shHandshake = `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'
read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'
`

// shHandshakeEmbedded is shHandshake for an agent that takes embedded
// files (promptCapabilities.embeddedContext), so that a prompt carries a
// whole file.
var shHandshakeEmbedded = strings.Replace(shHandshake, `"agentCapabilities":{}`, `"agentCapabilities":{"promptCapabilities":{"embeddedContext":true}}`, 1)
