package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"
)

// ranScenario is a scenario whose agent leaves the file "ran" in the
// directory it was started from: a test that finds no such file knows that
// no agent started.
const ranScenario = "name: s\nagent: {command: [sh, -c, 'touch ran']}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"

// TestEmptyPathFlagsAreUsageErrors checks that every flag naming a file or
// a directory, given an empty value (an unset CI variable: -o "$OUT"), is a
// usage error before anything runs: no agent starts and nothing is
// written, whatever the command and however the value is given.
func TestEmptyPathFlagsAreUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flag string // as the error names it
		args []string
	}{
		{"-o/--output", []string{"run", "s.yaml", "-o", ""}},
		{"-o/--output", []string{"run", "s.yaml", "--output="}},
		{"-o/--output", []string{"run", "s.yaml", "--json", ""}},
		{"-o/--output", []string{"run", "s.yaml", "-o", "", "--dry-run"}},
		{"--junit", []string{"run", "s.yaml", "--junit", ""}},
		{"--events", []string{"run", "s.yaml", "--events="}},
		{"--html", []string{"run", "s.yaml", "--html", ""}},
		{"--transcripts", []string{"run", "s.yaml", "--transcripts", ""}},
		{"--prompt", []string{"run", "s.yaml", "--prompt", ""}},
		{"--rerun-failed", []string{"run", "s.yaml", "--rerun-failed", ""}},
		{"--config", []string{"run", "s.yaml", "--config", ""}},
		{"--workspace-dir", []string{"run", "s.yaml", "--workspace-dir", ""}},
		{"--config", []string{"list", "s.yaml", "--config", ""}},
		{"--config", []string{"validate", "s.yaml", "--config", ""}},
		{"--config", []string{"explain", "s.yaml", "--config", "", "--kind", "execute"}},
		{"--config", []string{"agents", "--config", ""}},
		{"-o/--output", []string{"merge", "r.json", "-o", ""}},
		{"-o/--output", []string{"report", "r.json", "-o", ""}},
		{"--transcripts", []string{"report", "r.json", "--transcripts", ""}},
		{"-o/--output", []string{"schema", "-o", ""}},
		{"-o/--output", []string{"probe", "-o", "", "--", "sh", "-c", "touch ran"}},
		{"--config", []string{"probe", "--config", "", "--", "sh", "-c", "touch ran"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario, "r.json": "{}"})
			res := acprun(t, dir, tt.args...)
			if res.code != 2 {
				t.Errorf("exit %d, want 2 (usage)\nstderr:\n%s", res.code, res.stderr)
			}
			want := "acprun: " + tt.flag + ` "": the path is empty`
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{"r.json", "s.yaml"}) {
				t.Errorf("the directory holds %q after the command; want nothing run or written", got)
			}
		})
	}
}

// TestDirFlagNamingAFile: run's --workspace-dir and --transcripts
// naming an existing file, or a directory under one, exit 2 before any
// agent starts, saying the path is a file and what to do, where mkdir's
// error said only "not a directory".
func TestDirFlagNamingAFile(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{"s.yaml": ranScenario, "afile": ""})
	const fix = " is a file, not a directory: give a directory (it is made when missing), or move the file away\n"
	for _, tt := range []struct{ flag, value, want string }{
		{"--workspace-dir", "afile", "acprun: --workspace-dir afile: " + filepath.Join(dir, "afile") + fix},
		{"--workspace-dir", "afile/ws", "acprun: --workspace-dir afile/ws: " + filepath.Join(dir, "afile") + fix},
		{"--transcripts", "afile", "acprun: --transcripts afile: afile" + fix},
	} {
		res := acprun(t, dir, "run", "s.yaml", "-o", "out.json", tt.flag, tt.value)
		if res.code != 2 || res.stderr != tt.want {
			t.Errorf("%s %s: exit %d, stderr %q; want 2 and %q", tt.flag, tt.value, res.code, res.stderr, tt.want)
		}
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"afile", "s.yaml"}) {
		t.Errorf("the directory holds %q after the runs; want nothing run or written", got)
	}
}

// TestMissingConfigFileNamesTheFlag: a --config file that cannot be read
// is a usage error of every command that takes --config, which says it is
// the --config file, before anything runs.
func TestMissingConfigFileNamesTheFlag(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "s.yaml"},
		{"run", "--agent", "mock", "--prompt", "hi"},
		{"list", "s.yaml"},
		{"validate", "s.yaml"},
		{"explain", "s.yaml", "--kind", "execute"},
		{"explain", "--kind", "execute"},
		{"agents"},
		{"probe", "--", "sh", "-c", "touch ran"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario, "d/x": ""})
			for config, why := range map[string]string{"nope.yaml": "no such file or directory", "d": "not a regular file (a directory): give a file"} {
				res := acprun(t, dir, append([]string{args[0], "--config", config}, args[1:]...)...)
				if want := "acprun: --config " + config + ": " + why + "\n"; res.code != exitUsage || res.stderr != want {
					t.Errorf("--config %s: exit %d, stderr:\n%s\nwant %d and %q", config, res.code, res.stderr, exitUsage, want)
				}
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{"d", "s.yaml"}) {
				t.Errorf("the directory holds %q after the command; want nothing run or written", got)
			}
		})
	}
}

// TestConfigInWorkingDirectoryNotIgnored checks that, without --config,
// a config file of the working directory that cannot be read (an
// acprun.yaml that is a symbolic link leading nowhere, or a directory),
// or an acprun.yml or an Acprun.yaml, which acprun does not read (but a
// case-insensitive file system would have it read), stops every command that
// reads the config, naming it, rather than being ignored: the user
// believes it is read.
func TestConfigInWorkingDirectoryNotIgnored(t *testing.T) {
	t.Parallel()
	const ymlAlone = "acprun.yml: not read: acprun reads its config from acprun.yaml; rename it, or pass --config acprun.yml\n"
	const ymlBeside = "acprun.yml: not read: acprun reads its config from acprun.yaml, which is here too; move what it holds there and remove it, or pass --config acprun.yml\n"
	for _, args := range [][]string{
		{"run", "s.yaml"},
		{"run", "--agent", "mock", "--prompt", "hi"},
		{"list", "s.yaml"},
		{"validate", "s.yaml"},
		{"explain", "s.yaml", "--kind", "read"},
		{"agents"},
		{"probe", "--", "sh", "-c", "touch ran"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				name  string
				setup func(dir string) error
				want  string
			}{
				{"dangling link", func(dir string) error {
					return os.Symlink("real-config.yaml", filepath.Join(dir, "acprun.yaml"))
				}, "acprun.yaml: a symbolic link to real-config.yaml, which does not exist; acprun reads its config from it: point the link at a config file, or remove it\n"},
				{"link loop", func(dir string) error {
					return os.Symlink("acprun.yaml", filepath.Join(dir, "acprun.yaml"))
				}, "acprun.yaml: a symbolic link to acprun.yaml: too many levels of symbolic links; acprun reads its config from it: point the link at a config file, or remove it\n"},
				{"directory", func(dir string) error {
					return os.Mkdir(filepath.Join(dir, "acprun.yaml"), 0o755)
				}, "acprun.yaml: not a regular file (a directory): give a file\n"},
				{"acprun.yml", func(dir string) error {
					return os.WriteFile(filepath.Join(dir, "acprun.yml"), []byte("defaults: {timeout: 1m}\n"), 0o644)
				}, ymlAlone},
				{"acprun.yml beside acprun.yaml", func(dir string) error {
					return errors.Join(os.WriteFile(filepath.Join(dir, "acprun.yml"), []byte("defaults: {timeout: 1m}\n"), 0o644),
						os.WriteFile(filepath.Join(dir, "acprun.yaml"), []byte("defaults: {timeout: 1m}\n"), 0o644))
				}, ymlBeside},
				{"Acprun.yaml", func(dir string) error {
					return os.WriteFile(filepath.Join(dir, "Acprun.yaml"), []byte("defaults: {timeout: 1m}\n"), 0o644)
				}, "Acprun.yaml: not read: acprun reads its config from acprun.yaml, in lower case; rename it, or pass --config Acprun.yaml\n"},
			} {
				dir := t.TempDir()
				writeFiles(t, dir, map[string]string{"s.yaml": ranScenario})
				if err := tc.setup(dir); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Lstat(filepath.Join(dir, "acprun.yaml")); err == nil && tc.name == "Acprun.yaml" {
					continue // a file system that does not tell names apart by case: it is acprun.yaml, and read
				}
				res := acprun(t, dir, args...)
				if res.code != exitUsage || res.stderr != tc.want {
					t.Errorf("%s: exit %d, stderr:\n%s\nwant %d and %q", tc.name, res.code, res.stderr, exitUsage, tc.want)
				}
				if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
					t.Errorf("%s: the command ran", tc.name)
				}
			}
			// Named by --config, an acprun.yml is read.
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario, "acprun.yml": "defaults: {timeout: 1m}\n"})
			if res := acprun(t, dir, "validate", "--config", "acprun.yml", "s.yaml"); res.code != exitOK {
				t.Errorf("--config acprun.yml: exit %d\n%s", res.code, res.stderr)
			}
		})
	}
}

// TestOutputErrorsNameNoTemporaryFile checks that an output acprun cannot
// write (a new file in /proc, which takes none, whoever runs the test) is
// named as the user gave it, never as the temporary file acprun tried, and
// says what failed: the directory takes no new file (an existing file of
// /proc, /proc/version, is not "no such file").
func TestOutputErrorsNameNoTemporaryFile(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	const out = "/proc/acprun-e2e-results.json"
	const taken = "its directory /proc does not take new files: no such file or directory"
	for _, tt := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"run", "s.yaml", "-o", out}, 2, "write " + out + ": " + taken},      // checked before any agent starts
		{[]string{"run", "s.yaml", "--junit", out}, 2, "write " + out + ": " + taken}, // likewise
		{[]string{"run", "s.yaml", "--transcripts", "/proc"}, 2, "the directory does not take new files"},
		{[]string{"schema", "-o", out}, 2, "write " + out + ": " + taken}, // pinned before it is written, as the others
		{[]string{"schema", "-o", "/proc/version"}, 2, "write /proc/version: " + taken},
		{[]string{"probe", "-o", "/proc/version", "--", "acprun", "mock-agent", "m.mock.yaml"}, 2, "write /proc/version: " + taken},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario, "m.mock.yaml": "{}\n"})
			res := acprun(t, dir, tt.args...)
			if res.code != tt.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", res.code, tt.code, res.stderr)
			}
			if strings.Contains(res.stderr, ".tmp") || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("stderr names a temporary file, or not %q:\n%s", tt.want, res.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Errorf("an agent started")
			}
		})
	}
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestSecondRunRefusesAnEventsFileInUse checks that a run given the events
// file another run is streaming to exits 2 before its agents start, naming
// the file and the other run's pid, and leaves the first run's events
// whole: every line one JSON object, all of them the first run's.
func TestSecondRunRefusesAnEventsFileInUse(t *testing.T) {
	t.Parallel()
	first, second := t.TempDir(), t.TempDir()
	events := filepath.Join(first, "ev.jsonl")
	// The first run's agent says it has started (the events file is open
	// by then), then waits for the test to let it end.
	writeFiles(t, first, map[string]string{"s.yaml": "name: first\n" +
		"agent: {command: [sh, -c, 'echo started > ready.fifo; cat hold.fifo']}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
	writeFiles(t, second, map[string]string{"s.yaml": strings.Replace(ranScenario, "name: s", "name: second", 1)})
	for _, fifo := range []string{"ready.fifo", "hold.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(first, fifo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	run1 := exec.CommandContext(ctx, acprunFor(t), "run", "s.yaml", "-o", "out.json", "--events", events)
	run1.Dir = first
	var stderr1 strings.Builder
	run1.Stderr = &stderr1
	if err := run1.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run1.Wait() }()
	opened := make(chan error, 1)
	go func() {
		f, err := os.Open(filepath.Join(first, "ready.fifo")) // until the agent opens it
		if err == nil {
			_, err = io.Copy(io.Discard, f)
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-exited:
		// Unblock the reader of ready.fifo, which has no writer now.
		if w, werr := os.OpenFile(filepath.Join(first, "ready.fifo"), os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
			w.Close()
		}
		t.Fatalf("the first run ended (%v) before its agent started:\n%s", err, stderr1.String())
	}

	res := acprun(t, second, "run", "s.yaml", "-o", "out.json", "--events", events)

	// Let the first run end: its agent's cat reads hold.fifo until EOF.
	go func() {
		if hold, err := os.OpenFile(filepath.Join(first, "hold.fifo"), os.O_WRONLY, 0); err == nil {
			hold.Close()
		}
	}()
	if err := <-exited; ctx.Err() != nil {
		t.Fatalf("the first run did not end (%v):\n%s", err, stderr1.String())
	}

	if res.code != 2 {
		t.Errorf("second run: exit %d, want 2\nstderr:\n%s", res.code, res.stderr)
	}
	want := fmt.Sprintf("acprun: --events %s: another acprun run (pid %d) is writing to it", events, run1.Process.Pid)
	if !strings.Contains(res.stderr, want) {
		t.Errorf("second run's stderr does not say %q:\n%s", want, res.stderr)
	}
	if got := dirNames(t, second); !slices.Equal(got, []string{"s.yaml"}) {
		t.Errorf("the second run's directory holds %q; want no agent started and nothing written", got)
	}
	data, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var ev struct{ Event, Scenario string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("events line %d is not JSON (%v):\n%s", i+1, err, data)
		}
		if ev.Scenario != "" && ev.Scenario != "first" {
			t.Errorf("events line %d is of scenario %q; want the first run's only", i+1, ev.Scenario)
		}
		names = append(names, ev.Event)
	}
	if !slices.Contains(names, "scenario_started") || !slices.Contains(names, "scenario_finished") {
		t.Errorf("the first run's events are %q; want its scenario started and finished", names)
	}
}

// TestSecondRunRefusesATranscriptsDirInUse: a run given the transcripts
// directory another run is writing in exits 2 before its agents start,
// naming the directory and the other run's pid, as for --events: it
// neither replaces the first run's transcripts with its own nor has its
// results name them.
func TestSecondRunRefusesATranscriptsDirInUse(t *testing.T) {
	t.Parallel()
	first, second := t.TempDir(), t.TempDir()
	tr := filepath.Join(first, "tr")
	// The first run's agent says it has started (the transcripts directory
	// is locked by then), then waits for the test to let it end.
	writeFiles(t, first, map[string]string{"s.yaml": "name: s\n" +
		"agent: {command: [sh, -c, 'echo started > ready.fifo; cat hold.fifo']}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
	writeFiles(t, second, map[string]string{"s.yaml": ranScenario}) // the same scenario name: the same transcript name
	for _, fifo := range []string{"ready.fifo", "hold.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(first, fifo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	run1 := exec.CommandContext(ctx, acprunFor(t), "run", "s.yaml", "-o", "out.json", "--transcripts", tr)
	run1.Dir = first
	var stderr1 strings.Builder
	run1.Stderr = &stderr1
	if err := run1.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run1.Wait() }()
	opened := make(chan error, 1)
	go func() {
		f, err := os.Open(filepath.Join(first, "ready.fifo")) // until the agent opens it
		if err == nil {
			_, err = io.Copy(io.Discard, f)
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-exited:
		if w, werr := os.OpenFile(filepath.Join(first, "ready.fifo"), os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
			w.Close()
		}
		t.Fatalf("the first run ended (%v) before its agent started:\n%s", err, stderr1.String())
	}

	res := acprun(t, second, "run", "s.yaml", "-o", "out.json", "--transcripts", tr)

	go func() {
		if hold, err := os.OpenFile(filepath.Join(first, "hold.fifo"), os.O_WRONLY, 0); err == nil {
			hold.Close()
		}
	}()
	if err := <-exited; ctx.Err() != nil {
		t.Fatalf("the first run did not end (%v):\n%s", err, stderr1.String())
	}

	want := fmt.Sprintf("acprun: --transcripts %s: another acprun run (pid %d) is writing to it; give each run its own directory\n", tr, run1.Process.Pid)
	if res.code != 2 || res.stderr != want {
		t.Errorf("second run: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", res.code, res.stderr, want)
	}
	if got := dirNames(t, second); !slices.Equal(got, []string{"s.yaml"}) {
		t.Errorf("the second run's directory holds %q; want no agent started and nothing written", got)
	}
	rs := readResults(t, filepath.Join(first, "out.json"))
	if len(rs.Scenarios) != 1 || rs.Scenarios[0].Transcript == "" {
		t.Fatalf("the first run's results name no transcript: %+v", rs.Scenarios)
	}
	path := rs.Scenarios[0].Transcript
	if !filepath.IsAbs(path) {
		path = filepath.Join(first, path)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), `"initialize"`) {
		t.Errorf("the first run's transcript: %q, %v; want its initialize", data, err)
	}
	if got := dirNames(t, tr); !slices.Equal(got, []string{".acprun.lock", "s.jsonl"}) {
		t.Errorf("the transcripts directory holds %q; want the first run's transcript and the lock", got)
	}
}

// mockScenario is a scenario of the mock agent (its script agent.mock.yaml,
// mockScript) that passes.
const (
	mockScenario = "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	mockScript   = "turns: [{steps: [{text: hi}]}]\n"
)

// TestOutputPathThroughDotDot: an output path through a directory that
// does not exist and "..", or through a symlink and "..", is taken as the
// OS takes it, by the check before the run as by the write after it: the
// results are written, on the first run and once the file exists, and not
// lost after the agents ran. Such a path is known for the file it names
// when it is one of the run's inputs or another output's.
func TestOutputPathThroughDotDot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": mockScenario, "agent.mock.yaml": mockScript, "real/sub/.keep": ""})
	if err := os.Symlink("real/sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, file string }{
		{"nodir/../res.json", "res.json"},
		{"link/../res.json", "real/res.json"},
	} {
		for run := 1; run <= 2; run++ { // the second time, the file exists
			os.RemoveAll(filepath.Join(dir, "nodir"))
			res := acprun(t, dir, "run", "s.yaml", "-q", "-o", tt.path)
			if res.code != exitOK {
				t.Errorf("run %d with -o %s: exit %d, want 0\nstderr:\n%s", run, tt.path, res.code, res.stderr)
				continue
			}
			if got := readResults(t, filepath.Join(dir, tt.file)); len(got.Scenarios) != 1 {
				t.Errorf("run %d with -o %s: %s holds %d results, want 1", run, tt.path, tt.file, len(got.Scenarios))
			}
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--junit", "nodir/../s.yaml"}, "acprun: --junit nodir/../s.yaml: it is a scenario file of this run; give the JUnit report another file\n"},
		{[]string{"--junit", "link/../../s.yaml"}, "acprun: --junit link/../../s.yaml: it is a scenario file of this run; give the JUnit report another file\n"},
		{[]string{"-o", "nodir/../x.json", "--junit", "x.json"}, "acprun: -o nodir/../x.json and --junit x.json: both write the same file; give each its own\n"},
		{[]string{"-o", "link/../x.json", "--html", "real/x.json"}, "acprun: -o link/../x.json and --html real/x.json: both write the same file; give each its own\n"},
	} {
		os.RemoveAll(filepath.Join(dir, "nodir"))
		res := acprun(t, dir, append([]string{"run", "s.yaml", "-q"}, tt.args...)...)
		if res.code != exitUsage || res.stderr != tt.want {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %d and %q", strings.Join(tt.args, " "), res.code, res.stderr, exitUsage, tt.want)
		}
	}
}

// TestEmptyPathArgumentRefused: acprun run "$SUITE" with SUITE unset, and
// explain "$SCENARIO" (whose scenario file is optional), are refused
// naming the empty argument (exit 2), and nothing runs: explain does not
// explain the rules of a run without a scenario file instead.
func TestEmptyPathArgumentRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"run", "s.yaml", ""}, {"explain", "", "--kind", "read"}} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"s.yaml": ranScenario})
		res := acprun(t, dir, args...)
		want := `"": the argument is empty (is the variable that gives it unset?): give a path`
		if res.code != exitUsage || !strings.Contains(res.stderr, want) || res.stdout != "" {
			t.Errorf("%q: exit %d, stdout:\n%s\nstderr:\n%s\nwant %d and %q", args, res.code, res.stdout, res.stderr, exitUsage, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
			t.Errorf("%q: an agent started", args)
		}
	}
}
