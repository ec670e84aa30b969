package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/testkit"
)

// TestSecondRunRefusesTheSameOutputs: while a run goes, each of its
// output files (-o, --junit, --html, --events) is refused to a second run
// that names it with any of these flags, again and again, and to merge -o,
// report -o, probe -o and schema -o: exit 2 before anything starts, naming
// the file and the run that writes it; what the first run writes is left
// as it was. So is, to every command, the name of one of its lock files,
// which stay the first run's. Once the first run has ended, the same
// outputs are free again.
func TestSecondRunRefusesTheSameOutputs(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	// The run that holds the outputs is the one whose goroutines race (its
	// signal, its outputs): the other runs, which refuse before they start
	// anything or end at once, run the plain build.
	plainRun := func(args ...string) result {
		r, _ := runBinary(t, acprunBin, dir, nil, args...)
		return r
	}
	writeFiles(t, dir, map[string]string{
		"hang.mock.yaml": "turns:\n  - steps: [{text: working}, {hang: true}]\n",
		"hi.mock.yaml":   "turns: [{steps: [{text: hi}]}]\n",
		"hang.yaml":      "name: hang\nagent: {command: [acprun, mock-agent, hang.mock.yaml]}\nturnTimeout: 1h\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
		"hi.yaml":        "name: hi\nagent: {command: [acprun, mock-agent, hi.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
		"out.json":       "previous\n",
		"out.xml":        "previous\n",
		"out.html":       "previous\n",
	})
	if r := plainRun("run", "hi.yaml", "-q", "-o", "shard.json"); r.code != 0 {
		t.Fatalf("the run of the results merge reads: exit %d\n%s", r.code, r.stderr)
	}
	flags := []string{"-o", "--junit", "--html", "--events"}
	files := map[string]string{"-o": "out.json", "--junit": "out.xml", "--html": "out.html", "--events": "events.jsonl"}
	var outputs []string
	for _, flag := range flags {
		outputs = append(outputs, flag, files[flag])
	}
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	first := startWatched(t, ctx, dir, append([]string{"run", "hang.yaml", "-v"}, outputs...)...)
	first.waitLine("[hang] turn 1 started")
	busy := fmt.Sprintf("another acprun run (pid %d) is writing to it; give each run its own file\n", first.cmd.Process.Pid)
	lock := ".out.json.lock"
	reserved := lock + ": names of the form .NAME.lock are reserved for acprun's output locks; choose another name\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "hi.yaml", "--junit", lock}, "acprun: --junit " + lock + ": " + reserved},
		{[]string{"merge", "shard.json", "-o", lock}, "acprun: merge: -o " + lock + ": " + reserved},
		{[]string{"report", "shard.json", "-o", lock}, "acprun: report: -o " + lock + ": " + reserved},
		{[]string{"probe", "-o", lock, "--", "acprun", "mock-agent", "hi.mock.yaml"}, "acprun: -o " + lock + ": " + reserved},
		{[]string{"schema", "-o", lock}, "acprun: -o " + lock + ": " + reserved},
	} {
		if r := plainRun(tt.args...); r.code != 2 || r.stderr != tt.want {
			t.Errorf("%s given the lock file of the first run's -o: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", tt.args[0], r.code, r.stderr, tt.want)
		}
	}
	for _, held := range flags {
		file := files[held]
		for _, flag := range flags {
			r := plainRun("run", "hi.yaml", flag, file)
			if want := fmt.Sprintf("acprun: %s %s: %s", flag, file, busy); r.code != 2 || r.stderr != want {
				t.Errorf("a second run with %s %s (the first run's %s): exit %d, stderr:\n%s\nwant exit 2 and:\n%s", flag, file, held, r.code, r.stderr, want)
			}
		}
		if r := plainRun("merge", "shard.json", "-o", file); r.code != 2 || r.stderr != "acprun: merge: -o "+file+": "+busy {
			t.Errorf("merge -o %s (the first run's %s): exit %d, stderr:\n%s\nwant exit 2 and the run that writes it", file, held, r.code, r.stderr)
		}
		if r := plainRun("probe", "-o", file, "--", "acprun", "mock-agent", "hi.mock.yaml"); r.code != 2 || r.stderr != "acprun: -o "+file+": "+busy || r.stdout != "" {
			t.Errorf("probe -o %s (the first run's %s): exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 2 and the run that writes it", file, held, r.code, r.stdout, r.stderr)
		}
		if r := plainRun("report", "shard.json", "-o", file); r.code != 2 || r.stderr != "acprun: report: -o "+file+": "+busy {
			t.Errorf("report -o %s (the first run's %s): exit %d, stderr:\n%s\nwant exit 2 and the run that writes it", file, held, r.code, r.stderr)
		}
		if r := plainRun("schema", "-o", file); r.code != 2 || r.stderr != "acprun: -o "+file+": "+busy {
			t.Errorf("schema -o %s (the first run's %s): exit %d, stderr:\n%s\nwant exit 2 and the run that writes it", file, held, r.code, r.stderr)
		}
	}
	for _, file := range []string{"out.json", "out.xml", "out.html"} {
		if got, _ := os.ReadFile(filepath.Join(dir, file)); string(got) != "previous\n" {
			t.Errorf("%s holds %q while the first run goes; want it untouched", file, got)
		}
	}
	if r := first.interruptOnce(); r.code != 130 {
		t.Fatalf("the first run, interrupted: exit %d; want 130\n%s", r.code, r.stderr)
	}
	events, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(events), "\n"), "\n") {
		var ev struct{ Event, Scenario string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil || i == 0 && ev.Event != "scenario_started" || ev.Scenario != "" && ev.Scenario != "hang" {
			t.Errorf("events line %d is %q; want the first run's events alone, from its scenario_started", i+1, line)
		}
	}
	if r := plainRun(append([]string{"run", "hi.yaml"}, outputs...)...); r.code != 0 {
		t.Errorf("a run once the first has ended: exit %d; want 0\n%s", r.code, r.stderr)
	}
}

// TestKilledMidWriteLeavesNoTemporaryFile: when acprun is killed with
// SIGKILL while it writes its results (after its scenario, between the
// temporary file's creation and its rename over out.json), its guard
// removes the temporary file, and the previous out.json stays whole. A
// kill that comes after the rename decides nothing, and is tried again.
func TestKilledMidWriteLeavesNoTemporaryFile(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	long := strings.Repeat("all work and no play ", 150_000) // 3 MB of results to write
	writeFiles(t, dir, map[string]string{
		"long.mock.yaml": "turns:\n  - steps: [{text: " + strconv.Quote(long) + "}]\n",
		"s.yaml":         "name: long\nagent: {command: [acprun, mock-agent, long.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
	})
	for attempt := range 20 {
		mark := fmt.Sprintf("midwrite%d%d", os.Getpid(), attempt)
		out := filepath.Join(dir, "out.json")
		if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		temps := watchCreates(t, dir, ".out.json.tmp")
		ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
		run := startWatchedEnv(t, ctx, dir, []string{reap.Var + "=" + mark}, "run", "s.yaml", "-q", "-o", "out.json")
		next := func() {
			select {
			case <-temps:
			case <-ctx.Done():
				t.Fatal("no temporary file of out.json made by the test's deadline")
			}
		}
		next() // Pin's check of out.json, before the agent starts
		next() // the results' temporary file
		// The guard's end says it has done its work: wait for it.
		if len(killAcprun(t, run, guardOf(t, mark))) > 0 {
			t.Fatalf("the guard still runs %v after acprun was killed", testkit.Failsafe)
		}
		cancel()
		if got, _ := os.ReadFile(out); string(got) != "previous\n" {
			continue // killed after the rename: nothing to see
		}
		left, err := filepath.Glob(filepath.Join(dir, ".out.json.tmp*"))
		if err != nil || len(left) > 0 {
			t.Errorf("left beside out.json once acprun was killed mid-write: %v (%v)", left, err)
		}
		return
	}
	t.Fatal("20 kills all came after the results were written")
}

// guardOf returns the pid of the guard of the run whose environment holds
// reap.Var=mark.
func guardOf(t *testing.T, mark string) []int {
	t.Helper()
	return testkit.Processes(t, func(pid int) bool {
		env, err := testkit.Environ(pid)
		return err == nil && slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, reap.GuardVar+"="+mark+".") })
	})
}

// TestKilledGuardForgetsWrittenTemporaryFiles: the temporary files
// through which a run writes its state file and its cassettes (and tries
// that they can be written) are the guard's only until they are renamed
// into place or removed: the guard then forgets them, and holds only the
// temporary files still being written, however many a run writes. When
// acprun is killed once both are written (during the scenario's
// teardown, which comes after), a file put at each temporary file's name
// since is not the run's, and the guard leaves it; the state file and the
// cassette stay as written. (A kill mid-write, whose temporary file the
// guard removes, is TestKilledMidWriteLeavesNoTemporaryFile's.)
func TestKilledGuardForgetsWrittenTemporaryFiles(t *testing.T) {
	underRace(t)
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	dir := realTempDir(t)
	fifo, started, _ := testkit.FIFO(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "agentCapabilities: {loadSession: true}\nsessions: sessions\n" +
			"turns:\n  - steps: [{model: {api: anthropic, model: claude-test, prompt: \"{{prompt}}\"}}]\n",
		"s.yaml": "name: k\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n" +
			"gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: \"" + up.URL + "\"}\nsession: {resume: true}\n" +
			"teardown: [" + strconv.Quote("echo $$ > "+fifo+"; exec sleep 1000") + "]\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
	})
	stateDir, cassettes := filepath.Join(dir, ".acprun"), filepath.Join(dir, "cassettes")
	for _, d := range []string{stateDir, cassettes} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stateTemps, cassetteTemps := watchCreates(t, stateDir, ".state.json.tmp"), watchCreates(t, cassettes, ".k.cassette.json.tmp")
	mark := fmt.Sprintf("statetemps%d", os.Getpid())
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatchedEnv(t, ctx, dir, []string{reap.Var + "=" + mark}, "run", "s.yaml", "-q")
	started() // the teardown: the state file and the cassette are written
	last := func(temps <-chan string, n int) (name string) {
		for range n {
			select {
			case name = <-temps:
			case <-ctx.Done():
				t.Fatal("fewer temporary files than written by the test's deadline")
			}
		}
		return name
	}
	// The state file's first is Open's check that it can be written.
	put := []string{filepath.Join(stateDir, last(stateTemps, 1)), filepath.Join(stateDir, last(stateTemps, 1)), filepath.Join(cassettes, last(cassetteTemps, 1))}
	for _, tmp := range put {
		if err := os.WriteFile(tmp, []byte("not the run's"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(killAcprun(t, run, guardOf(t, mark))) > 0 {
		t.Fatalf("the guard still runs %v after acprun was killed", testkit.Failsafe)
	}
	for _, tmp := range put {
		if _, err := os.Lstat(tmp); err != nil {
			t.Errorf("the guard removed %s, put there once the run's file of that name was gone: %v", tmp, err)
		}
	}
	entries := resumeState(t, filepath.Join(stateDir, "state.json"))
	for _, e := range entries {
		if id, _ := e["sessionId"].(string); id == "" || len(entries) != 1 {
			t.Errorf("state file: %v, want k's session", entries)
		}
	}
	var cassette struct{ Exchanges []any }
	readJSON(t, filepath.Join(cassettes, "k.cassette.json"), &cassette)
	if len(cassette.Exchanges) != 1 {
		t.Errorf("cassette: %d exchanges, want 1", len(cassette.Exchanges))
	}
}

// TestProbeAgentDiesWithAcprun: when acprun probe is killed with SIGKILL
// while its agent runs, what the agent started in a session of its own
// goes too: the probe's guard kills it.
func TestProbeAgentDiesWithAcprun(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	fifo, pids, _ := testkit.FIFO(t)
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	// The agent never answers initialize: the probe waits for it.
	run := startWatched(t, ctx, dir, "probe", "--timeout", "1h", "--", "/bin/sh", "-c", "setsid sleep 1000 & echo $! > "+fifo+"; exec sleep 1000")
	pid, err := strconv.Atoi(strings.TrimSpace(pids()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if running := killAcprun(t, run, []int{pid}); len(running) > 0 {
		t.Errorf("the agent's daemon (%d: %s) still runs %v after acprun probe was killed", pid, testkit.Cmdline(pid), testkit.Failsafe)
	}
}
