package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// unreadScenario is a scenario on agent.mock.yaml whose one turn has a
// turn timeout: a run that waits for a reader who does not read while the
// turn runs cannot finish it in time. The timeout is far from what the
// turn takes (a -race build on a loaded machine streamed 5000 chunks in
// more than 10s) and within readerGuard.
const unreadScenario = `name: unread
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    timeout: 30s
`

// readerGuard is how long a test waits for acprun to get where it gets
// without the reader: far past the turn's timeout, so that it is not
// reached unless acprun waits for the reader.
const readerGuard = time.Minute

// readAfter waits until done is closed, then reads r (the pipe no one
// read until then) to its end and waits for cmd, returning what it read
// and cmd's exit code. When readerGuard passes first, it fails the test
// (acprun waited for its reader) and reads all the same, so that the run
// ends.
func readAfter(t *testing.T, done <-chan struct{}, what string, r *os.File, cmd *exec.Cmd) ([]byte, int) {
	t.Helper()
	var data []byte
	code := consumeAfter(t, done, what, r, cmd, func(r io.Reader) (err error) {
		data, err = io.ReadAll(r)
		return err
	})
	return data, code
}

// consumeAfter is readAfter with what reads r given: read, which must
// read r to its end.
func consumeAfter(t *testing.T, done <-chan struct{}, what string, r *os.File, cmd *exec.Cmd, read func(io.Reader) error) int {
	t.Helper()
	select {
	case <-done:
	case <-time.After(readerGuard):
		t.Errorf("no %s while the reader did not read: acprun waited for it", what)
	}
	err := read(r)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	return waitCode(t, cmd)
}

// readFIFO opens the FIFO path for reading, which waits until acprun
// opens it to write. When acprun ends first (stderr, which returns its
// stderr, returns), it fails the test at once with that stderr; it may be
// called from a goroutine of the test.
func readFIFO(t *testing.T, path string, stderr func() string) *os.File {
	t.Helper()
	ended := make(chan struct{})
	var text string
	go func() {
		text = stderr()
		close(ended)
	}()
	f, opened, err := openFIFOUnless(path, ended)
	if err != nil {
		t.Error(err)
		runtime.Goexit()
	}
	if !opened {
		f.Close()
		t.Errorf("acprun ended before it opened %s; stderr:\n%s", path, text)
		runtime.Goexit()
	}
	return f
}

// eventSeen reads the events r carries (--events -) to their end, and
// returns a channel closed at the first one named event.
func eventSeen(r *os.File, event string) <-chan struct{} {
	seen := make(chan struct{})
	go func() {
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"event":"`+event+`"`) {
				close(seen)
				break
			}
		}
		io.Copy(io.Discard, r)
	}()
	return seen
}

// assertPassedInTime fails the test unless the run exited 0 with its one
// scenario passed, its turn not cut short.
func assertPassedInTime(t *testing.T, code int, out report.Results, stderr string) {
	t.Helper()
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
		t.Fatalf("exit %d, %d results; want one scenario of one turn\nstderr ends:\n%s", code, len(out.Scenarios), stderr[max(0, len(stderr)-2000):])
	}
	r := out.Scenarios[0]
	if code != exitOK || r.Status != report.StatusPassed || r.Turns[0].CancelCause != "" || len(r.Warnings) > 0 {
		t.Errorf("exit %d, %s, turn cancelled after %q, warnings %q; want exit 0, passed, neither", code, r.Status, r.Turns[0].CancelCause, r.Warnings)
	}
	if strings.Contains(stderr, "WARNING: DATA RACE") {
		t.Errorf("the race detector fired:\n%s", stderr)
	}
}

// TestVerboseUnreadStderr: with -v, stderr is a pipe that no one reads
// while the turn runs, and the agent says far more than a pipe holds.
// The turn passes all the same: acprun's log never holds up the runner.
// The run's end waits for the reader (the events on stdout say the
// scenario finished before the test reads stderr); then the -v lines kept
// come out, with how many were dropped, and the PASS line and the summary.
func TestVerboseUnreadStderr(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	// 1500 lines of 1000 bytes: more than a pipe and than acprun holds.
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - flood: {count: 1500, text: \"" + strings.Repeat("y", 1000) + "\\n\"}\n",
		"s.yaml":          unreadScenario,
	})
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd, _ := pipeRun(t, dir, stdoutW, stderrW, "run", "s.yaml", "-v", "--events", "-", "-o", "out.json")
	stdoutW.Close()
	stderrW.Close()
	stderr, code := readAfter(t, eventSeen(stdoutR, "scenario_finished"), "scenario_finished event", stderrR, cmd)
	out := readResults(t, filepath.Join(dir, "out.json"))
	assertPassedInTime(t, code, out, string(stderr))
	// In order: the first -v lines, how many were dropped, the PASS line,
	// the summary.
	rest := string(stderr)
	for _, want := range []string{"[unread] turn 1 started\n", " log lines dropped: stderr was not read fast enough\n", "\nPASS unread (end_turn, ", "\n1 passed, 0 failed"} {
		_, after, ok := strings.Cut(rest, want)
		if !ok {
			t.Fatalf("stderr lacks %q after what came before; it ends:\n%s", want, stderr[max(0, len(stderr)-1000):])
		}
		rest = after
	}
}

// TestEventsUnreadStdout: --events - on a pipe that no one reads until
// the results are written, while the agent asks for far more permissions
// than a pipe holds events of. The turn passes all the same: the events
// lag behind, never hold up the runner; the run's end waits for them, and
// none is lost.
func TestEventsUnreadStdout(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	const n = 600 // permission events of some 200 bytes: more than a pipe holds
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n" + permissionSteps(0, n),
		"s.yaml":          unreadScenario,
	})
	results := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(results, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderrW, stderr := capture(t)
	cmd, _ := pipeRun(t, dir, stdoutW, stderrW, "run", "s.yaml", "--events", "-", "-o", "out.fifo")
	stdoutW.Close()
	stderrW.Close()
	written := make(chan struct{})
	var data []byte
	go func() {
		defer close(written)
		f := readFIFO(t, results, stderr) // until acprun opens it to write the results
		data, _ = io.ReadAll(f)
		f.Close()
	}()
	events, code := readAfter(t, written, "results", stdoutR, cmd)
	<-written
	if err := os.WriteFile(filepath.Join(dir, "out.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	assertPassedInTime(t, code, readResults(t, filepath.Join(dir, "out.json")), stderr())
	if got, want := strings.Count(string(events), `"event":"permission"`), n; got != want {
		t.Errorf("%d permission events on stdout; want %d", got, want)
	}
	if !strings.HasSuffix(string(events), "\n") || !strings.Contains(string(events), `"event":"scenario_finished"`) {
		t.Errorf("the events end %q; want the scenario_finished line", events[max(0, len(events)-200):])
	}
}

// readTranscriptAfterTurn runs s.yaml in dir (scenario name) with
// --transcripts tr and args, its transcript a FIFO that the test opens at
// once but reads only once the turn has finished (the turn_finished event
// on stdout says so); it returns what the FIFO's reader got, acprun's exit
// code and its stderr. The results are in out.json.
func readTranscriptAfterTurn(t *testing.T, dir, name string, args ...string) ([]byte, int, string) {
	t.Helper()
	var lines []byte
	code, stderr := consumeTranscriptAfterTurn(t, dir, name, func(r io.Reader) (err error) {
		lines, err = io.ReadAll(r)
		return err
	}, args...)
	return lines, code, stderr
}

// consumeTranscriptAfterTurn is readTranscriptAfterTurn with what reads
// the transcript given: read, which must read it to its end.
func consumeTranscriptAfterTurn(t *testing.T, dir, name string, read func(io.Reader) error, args ...string) (int, string) {
	t.Helper()
	transcript := filepath.Join(dir, "tr", name+".jsonl")
	if err := os.Mkdir(filepath.Dir(transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(transcript, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderrW, stderr := capture(t)
	cmd, _ := pipeRun(t, dir, stdoutW, stderrW, append([]string{"run", "s.yaml", "--transcripts", "tr", "--events", "-", "-o", "out.json"}, args...)...)
	stdoutW.Close()
	stderrW.Close()
	finished := eventSeen(stdoutR, "turn_finished")
	tr := readFIFO(t, transcript, stderr) // until acprun opens it, as the scenario starts
	code := consumeAfter(t, finished, "turn_finished event", tr, cmd, read)
	return code, stderr()
}

// TestTranscriptsUnreadFIFO: the transcript is a FIFO that the test opens
// at once but reads only once the turn has finished (the turn_finished
// event on stdout says so), while the agent streams far more than a pipe
// holds. The turn passes all the same: the transcript lags behind, never
// holds up the turn; the scenario's end waits for it, and no line is lost.
func TestTranscriptsUnreadFIFO(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	const n = 5000 // chunks of some 200 bytes in the transcript
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - flood: {count: " + strconv.Itoa(n) + ", text: \"some line of text that is moderately long to fill the pipe\\n\"}\n",
		"s.yaml":          unreadScenario,
	})
	lines, code, stderr := readTranscriptAfterTurn(t, dir, "unread")
	assertPassedInTime(t, code, readResults(t, filepath.Join(dir, "out.json")), stderr)
	if got := strings.Count(string(lines), "moderately long"); got != n {
		t.Errorf("%d chunks in the transcript; want %d", got, n)
	}
	if !strings.HasSuffix(string(lines), "\n") || !strings.Contains(string(lines[max(0, len(lines)-1000):]), `"stopReason":"end_turn"`) {
		t.Errorf("the transcript ends %q; want the turn's end", lines[max(0, len(lines)-300):])
	}
}

// TestTranscriptsStuckFIFOCancel: the transcript is a FIFO whose reader
// reads nothing until the turn has finished, while the agent streams more
// than the 64 MiB a transcript keeps waiting for its reader, then works on
// in silence until cancelled. The idle timeout (1s after the last chunk,
// however long the stream took) cancels the turn all the same: acprun's
// session/cancel never waits for the transcript's reader. The transcript
// the reader gets is valid JSONL that says where lines were dropped, and
// the result warns of it. Plain build: the race detector's would take
// long to stream so much.
func TestTranscriptsStuckFIFOCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// 80 chunks of 1 MiB of text: past 64 MiB with their JSON.
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - flood: {count: 80, text: \"" + strings.Repeat("x", 1<<20) + "\"}\n      - waitForCancel: true\n",
		"s.yaml": `name: stuck
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
idleTimeout: 1s
turns:
  - prompt: hi
    expect: {stopReason: cancelled}
`,
	})
	// The transcript is read a line at a time, its chunks' text left out
	// of what is decoded, and the results hold no text: the race
	// detector's instrumented decoding of 64 MiB took seconds of CPU.
	dropped := 0
	code, stderr := consumeTranscriptAfterTurn(t, dir, "stuck", func(r io.Reader) error {
		br := bufio.NewReaderSize(r, 4<<20)
		for {
			l, err := br.ReadSlice('\n')
			if len(l) > 0 {
				var rec struct {
					Dropped int             `json:"dropped"`
					Msg     json.RawMessage `json:"msg"`
				}
				if err := json.Unmarshal(withoutText(l), &rec); err != nil || rec.Dropped == 0 && len(rec.Msg) == 0 {
					t.Fatalf("a transcript line %.200q: %v; want a message or a record of lines dropped", l, err)
				}
				dropped += rec.Dropped
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}, "--no-text")
	if code != exitOutput || !strings.Contains(stderr, "tr/stuck.jsonl: ") || !strings.Contains(stderr, " lines dropped; the transcript is incomplete") {
		t.Errorf("exit %d; want %d, naming the transcript whose lines were dropped\nstderr:\n%s", code, exitOutput, stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
		t.Fatalf("%d results; want one scenario of one turn\nstderr:\n%s", len(out.Scenarios), stderr)
	}
	r := out.Scenarios[0]
	if tt := r.Turns[0]; tt.StopReason != "cancelled" || tt.CancelCause != "idleTimeout" {
		t.Errorf("turn ended %q after %q; want cancelled by idleTimeout", tt.StopReason, tt.CancelCause)
	}
	if dropped == 0 {
		t.Error("no record of lines dropped in the transcript")
	}
	want := fmt.Sprintf(`transcript: tr/stuck.jsonl: %d lines dropped: its reader did not keep up (records {"dropped": n} mark where)`, dropped)
	if !slices.Contains(r.Warnings, want) {
		t.Errorf("warnings %q; want %q", r.Warnings, want)
	}
}

// withoutText is the transcript line l with the text of its text
// content, when it is a run of x (as TestTranscriptsStuckFIFOCancel's
// agent sends), left out: "text":"" in its place.
func withoutText(l []byte) []byte {
	key := []byte(`"text":"`)
	i := bytes.Index(l, key)
	if i < 0 {
		return l
	}
	i += len(key)
	n := bytes.IndexByte(l[i:], '"')
	if n < 0 || bytes.Count(l[i:i+n], []byte("x")) != n {
		return l
	}
	return slices.Concat(l[:i], l[i+n:])
}

// heldFIFO makes the FIFO path and opens it for reading, never to read
// it: a reader that is stuck. It is closed at the test's end.
func heldFIFO(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}

// TestTranscriptsHeldFIFOTimeout: the transcript is a FIFO whose reader
// never reads, and the scenario passes with far more in its transcript
// than a pipe holds. At the run's --timeout acprun gives the transcript
// up instead of waiting for that reader: the run ends, the results are
// written, the transcript is named incomplete and the run exits 4. Were
// it waiting, the test's guard (a minute, past the timeout) would pass.
func TestTranscriptsHeldFIFOTimeout(t *testing.T) {
	t.Parallel()
	dir := heldTranscriptDir(t)
	stderrW, stderr := capture(t)
	cmd, _ := pipeRun(t, dir, nil, stderrW, "run", "s.yaml", "--transcripts", "tr", "--timeout", "5s", "-o", "out.json", "--junit", "junit.xml")
	stderrW.Close()
	code := exitWithin(t, cmd, readerGuard, stderr)
	r := assertGivenUpAtTimeout(t, dir, code, "tr/unread.jsonl: its reader did not read it: run timeout; the transcript is incomplete", stderr())
	if r.Status != report.StatusPassed {
		t.Errorf("%s; want passed\nstderr:\n%s", r.Status, stderr())
	}
}

// assertGivenUpAtTimeout fails the test unless a run in dir that gave a
// reader up at its --timeout exited 4 (code), saying want on stderr, and
// wrote its other outputs all the same: its one scenario's result, in
// out.json, which it returns, and junit.xml.
func assertGivenUpAtTimeout(t *testing.T, dir string, code int, want, stderr string) report.Result {
	t.Helper()
	if code != exitOutput || !strings.Contains(stderr, want) {
		t.Errorf("exit %d; want %d, saying %q\nstderr:\n%s", code, exitOutput, want, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "junit.xml")); err != nil {
		t.Errorf("the JUnit report: %v; want it written", err)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if len(out.Scenarios) != 1 {
		t.Fatalf("%d results; want the one scenario\nstderr:\n%s", len(out.Scenarios), stderr)
	}
	return out.Scenarios[0]
}

// TestTranscriptsHeldFIFOInterrupt: as TestTranscriptsHeldFIFOTimeout, but
// the run has no --timeout and is interrupted once its turn is over, while
// acprun would wait for the transcript's reader: one interrupt ends the
// run, with exit 130, the results written and the transcript named
// incomplete, a warning only (the interrupt is the run's outcome).
func TestTranscriptsHeldFIFOInterrupt(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := heldTranscriptDir(t)
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatched(t, ctx, dir, "run", "s.yaml", "-v", "--transcripts", "tr", "-o", "out.json")
	run.waitLine("[unread] turn 1: end_turn")
	res := run.interruptOnce()
	if want := "tr/unread.jsonl: its reader did not read it: interrupted"; res.code != exitInterrupted || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d; want %d, saying %q\nstderr:\n%s", res.code, exitInterrupted, want, res.stderr)
	}
	if out := readResults(t, filepath.Join(dir, "out.json")); len(out.Scenarios) != 1 || !out.Interrupted {
		t.Errorf("%d results, interrupted %v; want the one scenario, the run marked interrupted", len(out.Scenarios), out.Interrupted)
	}
}

// heldTranscriptDir is a new directory with unreadScenario, an agent that
// says more than a pipe holds, and tr/unread.jsonl, its transcript's
// place, a FIFO that the test holds open and never reads.
func heldTranscriptDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - flood: {count: 2000, text: \"some line of text that is moderately long to fill the pipe\\n\"}\n",
		"s.yaml":          unreadScenario,
	})
	if err := os.Mkdir(filepath.Join(dir, "tr"), 0o755); err != nil {
		t.Fatal(err)
	}
	heldFIFO(t, filepath.Join(dir, "tr", "unread.jsonl"))
	return dir
}

// heldEventsDir is a new directory with s.yaml, the scenario held, whose
// one turn asks for permissions whose events are more than a pipe holds.
func heldEventsDir(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("only on Linux is a stdout pipe's reader given up (outfile.ReopenPipe)")
	}
	dir := t.TempDir()
	var steps strings.Builder
	for i := range 20 { // events of some 8 kB
		fmt.Fprintf(&steps, "      - permission: {toolCallId: t%d, title: %s, kind: read}\n", i, strings.Repeat("x", 8000))
	}
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n" + steps.String(),
		"s.yaml":          "name: held\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nturns:\n  - prompt: hi\n",
	})
	return dir
}

// TestEventsHeldStdoutTimeout: --events - on a pipe whose reader never
// reads, while the agent's events are more than the pipe holds. At the
// run's --timeout acprun gives that reader up, as it gives up an events
// FIFO's: the run ends, the results and the JUnit report are written, the
// events are named incomplete and the run exits 4. Were it waiting, the
// test's guard (a minute, past the timeout) would pass.
func TestEventsHeldStdoutTimeout(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := heldEventsDir(t)
	stdout := testkit.UnreadPipe(t)
	stderrW, stderr := capture(t)
	cmd, _ := pipeRun(t, dir, stdout, stderrW, "run", "s.yaml", "--events", "-", "--timeout", "5s", "-o", "out.json", "--junit", "junit.xml")
	stdout.Close()
	stderrW.Close()
	code := exitWithin(t, cmd, readerGuard, stderr)
	assertGivenUpAtTimeout(t, dir, code, "acprun: --events -: write /dev/stdout: its reader did not read it: run timeout; the events file is incomplete\n", stderr())
}

// TestEventsHeldStdoutInterrupt: as TestEventsHeldStdoutTimeout, but the
// run has no --timeout and is interrupted once its scenario has passed,
// while acprun would wait for the reader of its stdout: one interrupt
// ends the run, with exit 130, the results written and the events named
// incomplete.
func TestEventsHeldStdoutInterrupt(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := heldEventsDir(t)
	stdout := testkit.UnreadPipe(t)
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatchedTo(t, ctx, dir, nil, stdout, "run", "s.yaml", "--events", "-", "-o", "out.json")
	stdout.Close()
	run.waitLine("PASS held")
	res := run.interruptOnce()
	if want := "acprun: --events -: write /dev/stdout: its reader did not read it: interrupted; the events file is incomplete\n"; res.code != exitInterrupted || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d; want %d, saying %q\nstderr:\n%s", res.code, exitInterrupted, want, res.stderr)
	}
	if out := readResults(t, filepath.Join(dir, "out.json")); len(out.Scenarios) != 1 {
		t.Errorf("%d results; want the one scenario", len(out.Scenarios))
	}
}

// bigPromptDir is a new directory with s.yaml, a scenario whose one
// prompt is more than a pipe holds, and so is every output of its run,
// however far it got, on an agent that plays steps (mock agent steps,
// YAML).
func bigPromptDir(t *testing.T, steps string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: " + steps + "\n",
		"s.yaml":          "name: big\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: " + strings.Repeat("p", 200_000) + "\n",
	})
	return dir
}

// openFIFOOnNotice waits for acprun's line saying that it waits for a
// reader of the FIFO name of dir, then opens it for reading: acprun then
// writes to it.
func openFIFOOnNotice(t *testing.T, ctx context.Context, run *watchedRun, dir, name string) *os.File {
	t.Helper()
	run.waitLine(name + ": waiting for a reader of the FIFO")
	f := readFIFO(t, filepath.Join(dir, name), func() string { <-ctx.Done(); return "(the test's deadline passed)" })
	t.Cleanup(func() { f.Close() })
	return f
}

// TestResultsHeldFIFOInterrupt: -o is a FIFO whose reader opens it once
// the run is over, reads a byte and no more, while the results are more
// than the pipe holds. One interrupt while acprun is blocked writing them
// gives them up: acprun names them incomplete, writes the JUnit report
// all the same and exits 130. Were it waiting, the test's deadline would
// pass.
func TestResultsHeldFIFOInterrupt(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := bigPromptDir(t, "[{text: hi}]")
	mkfifos(t, dir, "r.fifo")
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatched(t, ctx, dir, "run", "s.yaml", "-o", "r.fifo", "--junit", "junit.xml")
	f := openFIFOOnNotice(t, ctx, run, dir, "r.fifo")
	if _, err := f.Read(make([]byte, 1)); err != nil { // acprun writes the results
		t.Fatal(err)
	}
	res := run.interruptOnce()
	if want := "acprun: -o r.fifo: write r.fifo: its reader did not read it: interrupted; the results are incomplete\n"; res.code != exitInterrupted || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d; want %d, saying %q\nstderr:\n%s", res.code, exitInterrupted, want, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "junit.xml")); err != nil {
		t.Errorf("the JUnit report: %v; want it written", err)
	}
}

// TestHTMLHeldStdoutTerminatedAfterTimeout: the run's --timeout cuts it
// short; then -o is a FIFO whose reader reads the results whole, after the
// timeout, and --html - goes to a stdout pipe whose reader never reads,
// while the report is more than the pipe holds. acprun waits for that
// reader past the timeout, until a SIGTERM gives the report up: it is
// named incomplete, and the run exits 130. Were it waiting, the test's
// deadline would pass; were it giving up at the timeout, it would say so
// and exit 4.
func TestHTMLHeldStdoutTerminatedAfterTimeout(t *testing.T) {
	underRace(t)
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("only on Linux is a stdout pipe's reader given up (outfile.ReopenPipe)")
	}
	dir := bigPromptDir(t, "[{waitForCancel: true}]")
	mkfifos(t, dir, "r.fifo")
	stdout := testkit.UnreadPipe(t)
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatchedTo(t, ctx, dir, nil, stdout, "run", "s.yaml", "--timeout", "2s", "-o", "r.fifo", "--html", "-")
	stdout.Close()
	data, err := io.ReadAll(openFIFOOnNotice(t, ctx, run, dir, "r.fifo"))
	if err != nil {
		t.Fatal(err)
	}
	var out report.Results
	if err := json.Unmarshal(data, &out); err != nil || len(out.Scenarios) != 1 {
		t.Errorf("the results read from the FIFO: %v, %d scenarios; want them whole, the one scenario", err, len(out.Scenarios))
	}
	res := run.signalOnce(syscall.SIGTERM)
	if want := "acprun: --html -: write /dev/stdout: its reader did not read it: interrupted; the HTML report is incomplete\n"; res.code != exitInterrupted || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d; want %d, saying %q\nstderr:\n%s", res.code, exitInterrupted, want, res.stderr)
	}
}
