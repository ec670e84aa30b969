package report_test

import (
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestRerunMatchesFileNameAndAgent checks what --rerun-failed picks: the
// scenarios whose last try failed or errored, by file (however it is
// spelt), name and named agent, whatever their attempt.
func TestRerunMatchesFileNameAndAgent(t *testing.T) {
	t.Chdir(t.TempDir())
	res := func(name, agent string, attempt int, status report.Status, retried bool) report.Result {
		return report.Result{Name: name, File: "./suite/a.yaml", Line: lineOf(name), Agent: report.AgentInfo{Name: agent}, Attempt: attempt, Status: status, Retried: retried}
	}
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		res("login", "claude", 1, report.StatusPassed, false),
		res("login", "claude", 2, report.StatusFailed, false), // one failed attempt: rerun
		res("login", "codex", 1, report.StatusPassed, false),
		res("flaky", "", 0, report.StatusFailed, true), // retried, then passed
		retry(res("flaky", "", 0, report.StatusPassed, false)),
		res("crash", "", 0, report.StatusError, false),
	}}
	f, err := os.Create("prev.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Write(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()
	set, err := report.ReadRerun("prev.json")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("suite/a.yaml")
	sc := func(file, name, agent string) *scenario.Scenario {
		return &scenario.Scenario{Name: name, File: file, Agent: scenario.Agent{Name: agent}}
	}
	var got []string
	for _, s := range set.Filter([]*scenario.Scenario{
		sc("suite/a.yaml", "login", "claude"), sc("suite/a.yaml", "login", "codex"),
		sc(abs, "flaky", ""), sc(abs, "crash", ""), sc("suite/b.yaml", "crash", ""),
	}) {
		got = append(got, s.File+" "+s.Name+" "+s.Agent.Name)
	}
	if diff := cmp.Diff([]string{"suite/a.yaml login claude", abs + " crash "}, got); diff != "" {
		t.Errorf("rerun (-want +got):\n%s", diff)
	}
}

// TestRerunNothingNamesTheAgents checks what --rerun-failed says when it
// selects none of the scenarios that did not pass because they ran on
// other agents (a run with --agent, rerun without it): the agents they
// ran on, and the flags that select them again.
func TestRerunNothingNamesTheAgents(t *testing.T) {
	t.Chdir(t.TempDir())
	res := func(name, agent string, status report.Status) report.Result {
		return report.Result{Name: name, File: "s.yaml", Line: lineOf(name), Agent: report.AgentInfo{Name: agent}, Status: status}
	}
	write := func(rs ...report.Result) *report.Rerun {
		t.Helper()
		f, err := os.Create("prev.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := report.Write(f, report.Report{SchemaVersion: report.SchemaVersion, Scenarios: rs}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		set, err := report.ReadRerun("prev.json")
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	sc := func(name, agent string) *scenario.Scenario {
		return &scenario.Scenario{Name: name, File: "s.yaml", Agent: scenario.Agent{Name: agent}}
	}
	for _, tt := range []struct {
		name string
		set  *report.Rerun
		scs  []*scenario.Scenario
		want string
	}{
		{
			name: "a matrix rerun without --agent",
			set:  write(res("one", "good", report.StatusPassed), res("one", "bad", report.StatusFailed), res("two", "bad", report.StatusFailed), res("two", "worse", report.StatusError)),
			scs:  []*scenario.Scenario{sc("one", "mock"), sc("two", "mock")},
			want: "nothing to rerun: none of the 3 scenarios that failed, errored, were invalid or were interrupted in prev.json is selected; " +
				"they ran there on agent bad, worse, which this run does not give them: run with --agent bad,worse",
		},
		{
			name: "their own agent, rerun with --agent",
			set:  write(res("one", "", report.StatusFailed)),
			scs:  []*scenario.Scenario{sc("one", "claude")},
			want: "nothing to rerun: the scenario that failed, errored, was invalid or was interrupted in prev.json is not selected; " +
				"it ran there on its own agent, which this run does not give it: run without --agent",
		},
		{
			name: "left out by the selection",
			set:  write(res("one", "bad", report.StatusFailed)),
			scs:  []*scenario.Scenario{sc("two", "bad")},
			want: "nothing to rerun: the scenario that failed, errored, was invalid or was interrupted in prev.json is not selected",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.set.Nothing(tt.scs); got != tt.want {
				t.Errorf("Nothing:\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestRerunResolvesFilesAgainstTheRunsDir checks that --rerun-failed
// finds a failed scenario whatever directory the earlier run ran in: its
// results record that directory (dir), and a relative file there is
// resolved against it; results that do not record it (an older acprun),
// or whose directory does not have the file (another machine's, a CI
// job's), are resolved against the working directory, as before.
func TestRerunResolvesFilesAgainstTheRunsDir(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	for _, f := range []string{"suite/a.yaml", "a.yaml"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	failed := []report.Result{{Name: "s", File: "a.yaml", Line: 1, Status: report.StatusFailed}}
	for _, tc := range []struct {
		name, dir string
		want      string // the file of the selected scenario that is rerun
	}{
		{"ran in suite/", filepath.Join(root, "suite"), "suite/a.yaml"},
		{"no dir recorded", "", "a.yaml"},
		{"dir of another machine", filepath.Join(root, "elsewhere"), "a.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeJSON(t, root, "prev.json", report.Report{SchemaVersion: report.SchemaVersion, Dir: tc.dir, Scenarios: failed})
			set, err := report.ReadRerun(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range set.Filter([]*scenario.Scenario{{Name: "s", File: "suite/a.yaml"}, {Name: "s", File: "a.yaml"}}) {
				got = append(got, s.File)
			}
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("rerun (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRerunOfShardsMergedFromDifferentDirs checks that merged results of
// shards that ran in different directories keep each scenario's own
// directory, and that --rerun-failed resolves each file against it.
func TestRerunOfShardsMergedFromDifferentDirs(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	suite := filepath.Join(root, "suite")
	if err := os.MkdirAll(suite, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"suite/a.yaml", "suite/b.yaml"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shard1 := writeJSON(t, root, "1.json", report.Report{SchemaVersion: report.SchemaVersion, Dir: suite, Scenarios: []report.Result{
		{Name: "a", File: "a.yaml", Line: 1, Status: report.StatusFailed},
	}})
	shard2 := writeJSON(t, root, "2.json", report.Report{SchemaVersion: report.SchemaVersion, Dir: root, Scenarios: []report.Result{
		{Name: "b", File: "suite/b.yaml", Line: 1, Status: report.StatusFailed},
	}})
	rep, err := report.MergeFiles([]string{shard1, shard2})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, r := range rep.Scenarios {
		dirs = append(dirs, r.Name+" "+r.Dir)
	}
	if diff := cmp.Diff([]string{"a " + suite, "b " + root}, dirs); diff != "" || rep.Dir != "" {
		t.Errorf("merged dir %q, scenarios' (-want +got):\n%s", rep.Dir, diff)
	}
	merged := writeJSON(t, root, "all.json", rep)
	set, err := report.ReadRerun(merged)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range set.Filter([]*scenario.Scenario{{Name: "a", File: "suite/a.yaml"}, {Name: "b", File: "suite/b.yaml"}}) {
		got = append(got, s.Name)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("rerun (-want +got):\n%s", diff)
	}

	// Shards of one directory: it is the merged results', not each one's.
	shard2 = writeJSON(t, root, "2.json", report.Report{SchemaVersion: report.SchemaVersion, Dir: suite, Scenarios: []report.Result{
		{Name: "b", File: "b.yaml", Line: 1, Status: report.StatusFailed},
	}})
	if rep, err = report.MergeFiles([]string{shard1, shard2}); err != nil {
		t.Fatal(err)
	}
	if rep.Dir != suite || rep.Scenarios[0].Dir != "" || rep.Scenarios[1].Dir != "" {
		t.Errorf("merged dir %q, scenarios' %q and %q; want %q and none", rep.Dir, rep.Scenarios[0].Dir, rep.Scenarios[1].Dir, suite)
	}
}

// TestRerunKeepsWhatItDoesNotRun checks what a rerun whose results
// replace the file it read keeps there: the results of every scenario of
// the rerun set that it does not run (failed, errored, not run; every
// attempt and try, the passed ones too), unchanged and in the file's
// order, after its own; not those that passed, nor those it ran. The
// file it writes so reruns the same scenarios but those the rerun
// passed, and its results keep their directories: one for all when they
// share it, each its own when they do not.
func TestRerunKeepsWhatItDoesNotRun(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	other := filepath.Join(root, "other")
	for _, f := range []string{"a.yaml", "other/b.yaml"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := func(name, agent string, attempt int, status report.Status) report.Result {
		return report.Result{Name: name, File: "a.yaml", Line: lineOf(name), Agent: report.AgentInfo{Name: agent}, Attempt: attempt, Status: status}
	}
	retried := res("crash", "", 0, report.StatusError)
	retried.Retried = true
	notRun := res("late", "", 0, report.StatusInterrupted)
	notRun.NotRun = true
	earlier := []report.Result{
		res("ok", "", 0, report.StatusPassed),
		res("login", "claude", 1, report.StatusPassed), // an attempt of a failed scenario: kept with it
		res("login", "claude", 2, report.StatusFailed),
		res("login", "codex", 1, report.StatusFailed),
		retried,
		retry(res("crash", "", 0, report.StatusError)),
		notRun,
	}
	path := writeJSON(t, root, "prev.json", report.Report{SchemaVersion: report.SchemaVersion, Dir: root, Scenarios: earlier})
	set, err := report.ReadRerun(path)
	if err != nil {
		t.Fatal(err)
	}
	// The rerun selects login [codex], as ./a.yaml, and runs it.
	sel := set.Filter([]*scenario.Scenario{
		{Name: "login", File: "./a.yaml", Agent: scenario.Agent{Name: "codex"}},
		{Name: "ok", File: "a.yaml"},
	})
	if len(sel) != 1 || sel[0].Name != "login" {
		t.Fatalf("selected %v, want login [codex]", sel)
	}
	kept := set.Unselected(sel)
	label := func(rs []report.Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%s#%d:%s retried=%v notRun=%v dir=%s", r.Label(), r.Attempt, r.Status, r.Retried, r.NotRun, r.Dir))
		}
		return out
	}
	want := []string{
		"login [claude]#1:passed retried=false notRun=false dir=" + root,
		"login [claude] #2#2:failed retried=false notRun=false dir=" + root,
		"crash#0:error retried=true notRun=false dir=" + root,
		"crash#0:error retried=false notRun=false dir=" + root,
		"late#0:interrupted retried=false notRun=true dir=" + root,
	}
	if diff := cmp.Diff(want, label(kept)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}

	// Run in the same directory: the results keep one dir, after the
	// rerun's own result.
	ran := report.Report{SchemaVersion: report.SchemaVersion, Dir: root, Scenarios: []report.Result{res("login", "codex", 1, report.StatusPassed)}}
	rep := report.Keep(ran, kept)
	if rep.Dir != root || ran.Scenarios[0].Dir != "" || len(ran.Scenarios) != 1 {
		t.Errorf("dir %q, the run's report changed: %+v", rep.Dir, ran.Scenarios)
	}
	want = append([]string{"login [codex]#1:passed retried=false notRun=false dir="}, want...)
	for i := 1; i < len(want); i++ {
		want[i] = strings.TrimSuffix(want[i], root)
	}
	if diff := cmp.Diff(want, label(rep.Scenarios)); diff != "" {
		t.Errorf("kept in the same dir (-want +got):\n%s", diff)
	}
	next, err := report.ReadRerun(writeJSON(t, root, "prev.json", rep))
	if err != nil {
		t.Fatal(err)
	}
	var again []string
	for _, sc := range next.Filter([]*scenario.Scenario{
		{Name: "ok", File: "a.yaml"}, {Name: "login", File: "a.yaml", Agent: scenario.Agent{Name: "claude"}},
		{Name: "login", File: "a.yaml", Agent: scenario.Agent{Name: "codex"}}, {Name: "crash", File: "a.yaml"}, {Name: "late", File: "a.yaml"},
	}) {
		again = append(again, sc.Name+" "+sc.Agent.Name)
	}
	if diff := cmp.Diff([]string{"login claude", "crash ", "late "}, again); diff != "" {
		t.Errorf("next rerun (-want +got):\n%s", diff)
	}

	// Run in another directory: each result says its own.
	ran = report.Report{SchemaVersion: report.SchemaVersion, Dir: other, Scenarios: []report.Result{{Name: "b", File: "b.yaml", Line: 1, Status: report.StatusFailed}}}
	rep = report.Keep(ran, kept[:1])
	if rep.Dir != "" || rep.Scenarios[0].Dir != other || rep.Scenarios[1].Dir != root {
		t.Errorf("dirs of results run in two directories: %q, %q and %q; want none, %q and %q", rep.Dir, rep.Scenarios[0].Dir, rep.Scenarios[1].Dir, other, root)
	}
	if got := report.Keep(ran, nil); !reflect.DeepEqual(got, ran) {
		t.Errorf("nothing kept: %+v, want the run's report", got)
	}
}

// TestRerunKeepsWhatItNeverStarted checks what a rerun whose results
// replace the file it read keeps there of the scenarios it never started
// (every result not run: an interrupt, --timeout or --fail-fast came
// first): their earlier results, every attempt and try, unchanged and
// in the file's order, in place of its not-run ones, which say nothing
// of them; not for a scenario it started, if only one attempt of it,
// nor for one cut short, whose results are what the rerun measured. The
// run stays interrupted, and the next --rerun-failed reruns them all.
func TestRerunKeepsWhatItNeverStarted(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	if err := os.WriteFile("a.yaml", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := func(name string, attempt int, status report.Status) report.Result {
		return report.Result{Name: name, File: "a.yaml", Line: lineOf(name), Attempt: attempt, Status: status, Failures: []string{name + " earlier"}}
	}
	notRun := func(r report.Result) report.Result {
		r.Status, r.NotRun, r.Error, r.Failures = report.StatusInterrupted, true, "not run: interrupted first", nil
		return r
	}
	retried := res("crash", 0, report.StatusError)
	retried.Retried = true
	earlier := []report.Result{
		res("cut", 0, report.StatusFailed),
		res("ok", 0, report.StatusPassed),
		res("half", 1, report.StatusFailed),
		res("half", 2, report.StatusFailed),
		retried,
		retry(res("crash", 0, report.StatusError)),
		res("twice", 1, report.StatusPassed), // an attempt of a failed scenario: kept with it
		res("twice", 2, report.StatusFailed),
		notRun(res("late", 0, "")),
	}
	path := writeJSON(t, root, "prev.json", report.Report{SchemaVersion: report.SchemaVersion, Dir: root, Scenarios: earlier})
	set, err := report.ReadRerun(path)
	if err != nil {
		t.Fatal(err)
	}
	var all []*scenario.Scenario
	for _, name := range []string{"cut", "ok", "half", "crash", "twice", "late"} {
		all = append(all, &scenario.Scenario{Name: name, File: "a.yaml"})
	}
	sel := set.Filter(all)
	if len(sel) != 5 || set.Unselected(sel) != nil {
		t.Fatalf("selected %d scenarios, want all 5 that did not pass", len(sel))
	}
	cut := res("cut", 0, report.StatusInterrupted)
	cut.Failures, cut.Error = nil, "interrupted"
	half := res("half", 1, report.StatusPassed)
	half.Failures = nil
	ran := report.Report{SchemaVersion: report.SchemaVersion, Dir: root, Interrupted: true, Scenarios: []report.Result{
		cut,  // started, cut short: the rerun's result
		half, // one attempt started: the rerun's results
		notRun(res("half", 2, "")),
		notRun(res("crash", 0, "")), // never started: the earlier results
		notRun(res("twice", 1, "")),
		notRun(res("twice", 2, "")),
		notRun(res("late", 0, "")),
	}}
	label := func(rs []report.Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%s#%d:%s retried=%v notRun=%v %q", r.Name, r.Attempt, r.Status, r.Retried, r.NotRun, r.Failures))
		}
		return out
	}
	file, kept := set.Unstarted(ran)
	want := []string{
		`crash#0:error retried=true notRun=false ["crash earlier"]`,
		`crash#0:error retried=false notRun=false ["crash earlier"]`,
		`twice#1:passed retried=false notRun=false ["twice earlier"]`,
		`twice#2:failed retried=false notRun=false ["twice earlier"]`,
		`late#0:interrupted retried=false notRun=true []`,
	}
	if diff := cmp.Diff(want, label(kept)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	ranWant := []string{
		`cut#0:interrupted retried=false notRun=false []`,
		`half#1:passed retried=false notRun=false []`,
		`half#2:interrupted retried=false notRun=true []`,
	}
	if diff := cmp.Diff(ranWant, label(file.Scenarios)); diff != "" {
		t.Errorf("the rerun's own results (-want +got):\n%s", diff)
	}
	if !file.Interrupted || file.Dir != root || len(ran.Scenarios) != 7 {
		t.Errorf("interrupted %v, dir %q, the run's report changed (%d results): want it interrupted, in %s", file.Interrupted, file.Dir, len(ran.Scenarios), root)
	}

	rep := report.Keep(file, kept)
	if diff := cmp.Diff(append(ranWant, want...), label(rep.Scenarios)); diff != "" {
		t.Errorf("the file's results (-want +got):\n%s", diff)
	}
	next, err := report.ReadRerun(writeJSON(t, root, "prev.json", rep))
	if err != nil {
		t.Fatal(err)
	}
	var again []string
	for _, sc := range next.Filter(all) {
		again = append(again, sc.Name)
	}
	if diff := cmp.Diff([]string{"cut", "half", "crash", "twice", "late"}, again); diff != "" {
		t.Errorf("next rerun (-want +got):\n%s", diff)
	}

	// A rerun that started all it selected keeps nothing.
	whole := report.Report{SchemaVersion: report.SchemaVersion, Dir: root, Scenarios: []report.Result{cut}}
	if got, kept := set.Unstarted(whole); kept != nil || !reflect.DeepEqual(got, whole) {
		t.Errorf("nothing never started: kept %v, report %+v; want none, the run's report", label(kept), got)
	}
}

// lineOf is the line of the made-up scenario name in its file: each name
// has its own, as each scenario of a file has (results of one scenario
// share it).
func lineOf(name string) int {
	return 1 + int(crc32.ChecksumIEEE([]byte(name))%1000)
}

// retry is r as the try after a retried one: acprun numbers them.
func retry(r report.Result) report.Result {
	r.Retry = 1
	return r
}

// TestRerunRefusesAResultTwice: a results file that holds one result
// twice (edited, or two files joined by hand) is refused as merge and
// report refuse it: a rerun that replaces it would keep the earlier
// result twice, in a file that neither could read again.
func TestRerunRefusesAResultTwice(t *testing.T) {
	dir := t.TempDir()
	failed := report.Result{Name: "s", File: "a.yaml", Line: 1, Status: report.StatusFailed}
	path := writeJSON(t, dir, "prev.json", report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{failed, failed}})
	_, err := report.ReadRerun(path)
	want := path + `: scenarios.0 and scenarios.1 are the same result, of scenario "s" (a.yaml:1): acprun writes each result once`
	if err == nil || err.Error() != want {
		t.Errorf("error %v; want %s", err, want)
	}
}

// TestRerunKeepsAResultAtTheLineOfAnother: the scenario file changed
// between a run and its narrowed rerun (a and b swapped, or lines added
// above a), so that the rerun's result of a is at the line the kept
// result of b was. They are two scenarios' results: the file the rerun
// writes is read again (--rerun-failed, merge, report) and reruns b.
func TestRerunKeepsAResultAtTheLineOfAnother(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	if err := os.WriteFile("s.yaml", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := func(name string, line int, status report.Status) report.Result {
		return report.Result{Name: name, File: "s.yaml", Line: line, Status: status}
	}
	path := writeJSON(t, root, "last.json", report.Report{SchemaVersion: report.SchemaVersion, Dir: root,
		Scenarios: []report.Result{res("a", 1, report.StatusFailed), res("b", 6, report.StatusFailed)}})
	set, err := report.ReadRerun(path)
	if err != nil {
		t.Fatal(err)
	}
	// Now b is at line 1 and a at line 6; the rerun runs a (--run a).
	sel := set.Filter([]*scenario.Scenario{{Name: "a", File: "s.yaml"}})
	ran := report.Report{SchemaVersion: report.SchemaVersion, Dir: root, Scenarios: []report.Result{res("a", 6, report.StatusPassed)}}
	path = writeJSON(t, root, "last.json", report.Keep(ran, set.Unselected(sel)))
	next, err := report.ReadRerun(path)
	if err != nil {
		t.Fatalf("the rerun's results: %v", err)
	}
	if sel := next.Filter([]*scenario.Scenario{{Name: "b", File: "s.yaml"}, {Name: "a", File: "s.yaml"}}); len(sel) != 1 || sel[0].Name != "b" {
		t.Errorf("the next rerun selects %v, want b", sel)
	}
	if _, err := report.MergeFiles([]string{path}); err != nil {
		t.Errorf("merge: %v", err)
	}
}
