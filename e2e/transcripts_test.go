package e2e_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
)

// TestOutputAtATranscriptsPlace: an output file that is the place of one
// of the run's transcripts in the --transcripts directory (by its name
// there, made unique as the run makes it, in any case, or through "..")
// is refused before anything runs, as two outputs on one file are: the
// events would get the transcript's lines in their middle, the results
// would replace the transcript. Another name in that directory is fine.
func TestOutputAtATranscriptsPlace(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string // "" for a run that passes
	}{
		{[]string{"--events", "tc/s.jsonl"}, "acprun: --events tc/s.jsonl and --transcripts tc: both write the same file (tc/s.jsonl is a transcript of this run); give each its own\n"},
		{[]string{"-o", "tc/s.jsonl"}, "acprun: -o tc/s.jsonl and --transcripts tc: both write the same file (tc/s.jsonl is a transcript of this run); give each its own\n"},
		{[]string{"--junit", "tc/S.JSONL"}, "acprun: --junit tc/S.JSONL and --transcripts tc: both write the same file (tc/s.jsonl is a transcript of this run); give each its own\n"},
		{[]string{"--html", "nodir/../tc/s.jsonl"}, "acprun: --html nodir/../tc/s.jsonl and --transcripts tc: both write the same file (tc/s.jsonl is a transcript of this run); give each its own\n"},
		{[]string{"--events", "tc/s#2.jsonl", "--repeat", "2"}, "acprun: --events tc/s#2.jsonl and --transcripts tc: both write the same file (tc/s#2.jsonl is a transcript of this run); give each its own\n"},
		{[]string{"t.yaml", "--events", "tc/s-2.jsonl"}, "acprun: --events tc/s-2.jsonl and --transcripts tc: both write the same file (tc/S-2.jsonl is a transcript of this run); give each its own\n"},
		{[]string{"--events", "tc/s.jsonl", "--repeat", "2"}, ""},
		{[]string{"--events", "tc/events.jsonl"}, ""},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			other := strings.Replace(mockScenario, "name: s", "name: S", 1) // its transcript is s-2.jsonl
			writeFiles(t, dir, map[string]string{"s.yaml": mockScenario, "t.yaml": other, "agent.mock.yaml": mockScript})
			res := acprun(t, dir, append([]string{"run", "s.yaml"}, append(tt.args, "-q", "--transcripts", "tc")...)...)
			if tt.want == "" {
				if res.code != exitOK {
					t.Errorf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
				}
				return
			}
			if res.code != exitUsage || res.stderr != tt.want {
				t.Errorf("exit %d, stderr:\n%s\nwant %d and %q", res.code, res.stderr, exitUsage, tt.want)
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{"agent.mock.yaml", "s.yaml", "t.yaml"}) {
				t.Errorf("the directory holds %q after the run; want nothing run or written", got)
			}
		})
	}
}

// TestTranscriptNotWritten: a transcript that cannot be written is an
// output lost: the run exits 4 and says which transcript, after the
// summary, and keeps the results it produced (the scenarios pass). It is
// so when a directory is in its place, and when the transcripts directory
// is removed while the run writes in it (here by the first scenario's
// setup, with -j 1): that scenario's transcript goes with it, the next
// cannot be made.
func TestTranscriptNotWritten(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	second := strings.Replace(mockScenario, "name: s", "name: t", 1)
	removing := strings.Replace(mockScenario, "name: s", "name: r\nsetup: [rm -rf tc]", 1)
	writeFiles(t, dir, map[string]string{"s.yaml": mockScenario, "t.yaml": second, "r.yaml": removing, "agent.mock.yaml": mockScript, "tc/s.jsonl/x": ""})

	res := acprun(t, dir, "run", "s.yaml", "t.yaml", "-q", "--transcripts", "tc", "-o", "r1.json")
	want := "\nacprun: --transcripts tc: s: open tc/s.jsonl: is a directory; the transcript was not written\n"
	if res.code != exitOutput || !strings.HasSuffix(res.stderr, want) {
		t.Errorf("a directory at a transcript's place: exit %d, stderr:\n%s\nwant %d, ending %q", res.code, res.stderr, exitOutput, want)
	}
	if got := readResults(t, filepath.Join(dir, "r1.json")); got.Summary.Passed != 2 {
		t.Errorf("a directory at a transcript's place: %d passed in the results, want 2", got.Summary.Passed)
	}
	if _, err := os.Stat(filepath.Join(dir, "tc", "t.jsonl")); err != nil {
		t.Errorf("the other scenario's transcript: %v", err)
	}

	res = acprun(t, dir, "run", "r.yaml", "t.yaml", "-q", "-j", "1", "--transcripts", "tc", "-o", "r2.json")
	want = "\nacprun: --transcripts tc: r: write tc/r.jsonl: the file was removed while it was written; the transcript was lost\n" +
		"acprun: --transcripts tc: t: open tc/t.jsonl: no such file or directory; the transcript was not written\n"
	if res.code != exitOutput || !strings.HasSuffix(res.stderr, want) {
		t.Errorf("the transcripts directory removed: exit %d, stderr:\n%s\nwant %d, ending %q", res.code, res.stderr, exitOutput, want)
	}
	if got := readResults(t, filepath.Join(dir, "r2.json")); got.Summary.Passed != 2 {
		t.Errorf("the transcripts directory removed: %d passed in the results, want 2", got.Summary.Passed)
	}
}

// TestLongTranscriptName: a scenario whose name is too long for a file
// name gets a transcript all the same, its name shortened the same way
// every time (report.TranscriptName), which the results record.
func TestLongTranscriptName(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("a long name ", 30)
	writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(mockScenario, "name: s", "name: "+long, 1), "agent.mock.yaml": mockScript})
	res := acprun(t, dir, "run", "s.yaml", "-q", "--transcripts", "tc", "-o", "r.json")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	got := readResults(t, filepath.Join(dir, "r.json"))
	want := filepath.Join("tc", report.TranscriptName(strings.TrimSpace(long), "", 0, 0))
	if len(got.Scenarios) != 1 || got.Scenarios[0].Transcript != want {
		for _, r := range got.Scenarios {
			t.Errorf("result: transcript %q, warnings %q", r.Transcript, r.Warnings)
		}
		t.Fatalf("want one result, whose transcript is %s", want)
	}
	if fi, err := os.Stat(filepath.Join(dir, want)); err != nil || fi.Size() == 0 || len(filepath.Base(want)) > 255 {
		t.Errorf("the transcript %s: %v, %v; want a file with the messages", want, fi, err)
	}
}

// TestTranscriptLeavesOutWhatTheAgentNeverGot: an agent that closes its
// input before it answers session/new (and lives on) never gets the
// prompt: acprun's write of it fails (EPIPE). The transcript, which
// replay and the report read, holds the handshake and not the prompt; the
// results say the turn did not pass because the agent stopped reading.
func TestTranscriptLeavesOutWhatTheAgentNeverGot(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	agent := `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'
read -r line; exec 0<&-; printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'
exec sleep 3600
`
	writeFiles(t, dir, map[string]string{"s.yaml": fmt.Sprintf(`name: s
agent: {command: [sh, -c, %q]}
permissions: {default: deny}
killGrace: 1s
turns: [{prompt: one}, {prompt: two}]
`, agent)})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tc")
	sc := out.Scenarios[0]
	if sc.Status != report.StatusError || len(sc.Turns) == 0 || sc.Turns[0].StopReason != report.OutcomeUnresponsive ||
		sc.Turns[0].Error != "the agent stopped reading its input; it was stopped" {
		t.Errorf("exit %d, status %s, turns %+v; want an error, turn 1 unresponsive: the agent stopped reading its input\n%s", res.code, sc.Status, sc.Turns, res.stderr)
	}

	data, err := os.ReadFile(filepath.Join(dir, "tc", "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for l := range strings.Lines(string(data)) {
		var rec struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
			} `json:"msg"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("transcript line %q: %v", l, err)
		}
		got = append(got, strings.TrimSpace(rec.Dir+" "+rec.Msg.Method))
	}
	want := []string{"c2a initialize", "a2c", "c2a session/new", "a2c"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("transcript:\n%s\nwant the lines (dir method):\n%s", data, strings.Join(want, "\n"))
	}
}

// TestJudgeTranscriptsHaveTheirOwnNames: a judge's transcript, beside its
// scenario's (a.judge.jsonl, a.judge-turn1.jsonl), never takes the name of
// another transcript of the run: a scenario named "a.judge" keeps its own
// name, and the judge's gets "-2". Every transcript is then its own file,
// with what its results say, and an output at a judge's new name is
// refused as at any transcript's.
func TestJudgeTranscriptsHaveTheirOwnNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const judge = "{agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: ok}"
	scenario := func(name, expect1, expect string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns: [{prompt: 'do it, " + name + "'" + expect1 + "}]\n" + expect
	}
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "default: {steps: [{text: done}]}\n",
		"judge.mock.yaml": "default: {steps: [{text: PASS}]}\n",
		"s.yaml": scenario("a", ", expect: {judge: "+judge+"}", "expect: {judge: "+judge+"}\n") + "---\n" +
			scenario("a.judge", "", "") + "---\n" + scenario("A.judge-turn1", "", ""),
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr", "-j", "1")
	if res.code != 0 || len(out.Scenarios) != 3 {
		t.Fatalf("exit %d, %d results; want 0, 3\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	a := out.Scenarios[0]
	if a.Judge == nil || len(a.Turns) != 1 || a.Turns[0].Judge == nil {
		t.Fatalf("scenario a: judge %+v, turns %+v; want both judges asked", a.Judge, a.Turns)
	}
	got := map[string]string{ // transcript → what it must hold
		a.Transcript:                "do it, a",
		a.Judge.Transcript:          "You are judging",
		a.Turns[0].Judge.Transcript: "You are judging",
		out.Scenarios[1].Transcript: "do it, a.judge",
		out.Scenarios[2].Transcript: "do it, A.judge-turn1",
	}
	want := []string{"tr/a.jsonl", "tr/a.judge-2.jsonl", "tr/a.judge-turn1-2.jsonl", "tr/a.judge.jsonl", "tr/A.judge-turn1.jsonl"}
	var paths []string
	for p := range got {
		paths = append(paths, filepath.ToSlash(p))
	}
	slices.Sort(paths)
	if slices.Sort(want); !slices.Equal(paths, want) {
		t.Fatalf("transcripts %q; want %q, each its own", paths, want)
	}
	for p, holds := range got {
		data := string(readFiles(t, dir, p)[p])
		if !strings.Contains(data, holds) || strings.Count(data, `"method":"session/prompt"`) != 1 {
			t.Errorf("%s: want one prompt, with %q:\n%s", p, holds, data)
		}
	}
	res = acprun(t, dir, "run", "s.yaml", "--transcripts", "tr", "-q", "--events", "tr/a.judge-2.jsonl")
	if want := "acprun: --events tr/a.judge-2.jsonl and --transcripts tr: both write the same file (tr/a.judge-2.jsonl is a transcript of this run); give each its own\n"; res.code != exitUsage || res.stderr != want {
		t.Errorf("an output at the judge's transcript: exit %d, stderr %q; want %d, %q", res.code, res.stderr, exitUsage, want)
	}
}

// TestLostOutputsMidRun: an output whose file (or directory) is removed
// while the run writes it is lost, as a transcript is: the run exits 4
// and says which after the summary, and the results keep the verdicts
// the agents earned. So for the --events file (removed by a setup
// command), and for the session state file, whose directory a setup
// command removes before the session id is saved. A FIFO whose name is
// removed lost nothing: its reader has every event.
func TestLostOutputsMidRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	removing := strings.Replace(mockScenario, "name: s", "name: r\nsetup: [rm -f ev.jsonl]", 1)
	resuming := strings.Replace(mockScenario, "name: s", "name: n\nsession: {resume: true}\nsetup: [rm -rf .acprun]", 1)
	writeFiles(t, dir, map[string]string{"r.yaml": removing, "n.yaml": resuming, "agent.mock.yaml": mockScript})

	res := acprun(t, dir, "run", "r.yaml", "-q", "--events", "ev.jsonl", "-o", "r1.json")
	want := "\nacprun: --events ev.jsonl: write ev.jsonl: the file was removed while it was written; the events file was lost\n"
	if res.code != exitOutput || !strings.HasSuffix(res.stderr, want) {
		t.Errorf("the events file removed: exit %d, stderr:\n%s\nwant %d, ending %q", res.code, res.stderr, exitOutput, want)
	}
	if got := readResults(t, filepath.Join(dir, "r1.json")); got.Summary.Passed != 1 {
		t.Errorf("the events file removed: %d passed in the results, want 1", got.Summary.Passed)
	}

	// A FIFO's reader keeps what is written after its name is gone:
	// nothing of the events is lost.
	fifo := filepath.Join(dir, "ev.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // until acprun opens it to write
		if err != nil {
			events <- err.Error()
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		events <- string(data)
	}()
	writeFiles(t, dir, map[string]string{"f.yaml": strings.Replace(removing, "rm -f ev.jsonl", "rm -f ev.fifo", 1)})
	res = acprun(t, dir, "run", "f.yaml", "-q", "--events", "ev.fifo", "-o", "r3.json")
	if got := <-events; res.code != exitOK || !strings.Contains(got, `"event":"scenario_finished"`) {
		t.Errorf("a FIFO's name removed: exit %d, stderr:\n%s\nevents read:\n%s\nwant exit 0 and every event", res.code, res.stderr, got)
	}

	res = acprun(t, dir, "run", "n.yaml", "-q", "-o", "r2.json")
	state := filepath.Join(dir, ".acprun", "state.json")
	want = "\nacprun: n: session: state file " + state + ": write " + state + ": no such file or directory; the session id was not saved: the next run will start a new session\n"
	if res.code != exitOutput || !strings.HasSuffix(res.stderr, want) {
		t.Errorf("the state file's directory removed: exit %d, stderr:\n%s\nwant %d, ending %q", res.code, res.stderr, exitOutput, want)
	}
	if got := readResults(t, filepath.Join(dir, "r2.json")); got.Summary.Passed != 1 {
		t.Errorf("the state file's directory removed: %d passed in the results, want 1", got.Summary.Passed)
	}
}
