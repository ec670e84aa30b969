package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestJobRef checks that a job's Ref names its scenario, where the scenario
// is defined, its agent and its attempt, and that the names derived from it
// (transcript files, workspace directories) tell jobs apart.
func TestJobRef(t *testing.T) {
	t.Parallel()
	login := &scenario.Scenario{Name: "login", File: "a.yaml", Pos: scenario.Pos{File: "a.yaml", Line: 7, Col: 3}, Agent: scenario.Agent{Name: "claude"}}
	plain := &scenario.Scenario{Name: "Login", File: "b.yaml", Pos: scenario.Pos{File: "b.yaml", Line: 1, Col: 1}}
	jobs := []job{newJob(login, 1), newJob(login, 2), newJob(plain, 0), newJob(&scenario.Scenario{Name: "login"}, 0)}

	if diff := cmp.Diff(Ref{Name: "login", File: "a.yaml", Line: 7, Agent: "claude", Attempt: 2}, jobs[1].ref); diff != "" {
		t.Errorf("ref (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"login@claude#1.jsonl"}, {"login@claude#2.jsonl"}, {"Login.jsonl"}, {"login-2.jsonl"}}, ownNames(transcriptNames(jobs))); diff != "" {
		t.Errorf("transcript names (-want +got):\n%s", diff)
	}
	var prefixes []string
	for _, j := range jobs {
		prefixes = append(prefixes, workspacePrefix(j.ref))
	}
	retry := jobs[0]
	retry.ref.Retry = 2
	prefixes = append(prefixes, workspacePrefix(retry.ref))
	if diff := cmp.Diff([]string{"acprun-login-claude-1", "acprun-login-claude-2", "acprun-Login", "acprun-login", "acprun-login-claude-1-retry2"}, prefixes); diff != "" {
		t.Errorf("workspace prefixes (-want +got):\n%s", diff)
	}
}

// TestRetryTranscriptNames checks that every try a scenario's retries allow
// has a transcript name of its own, which no other job's name takes.
func TestRetryTranscriptNames(t *testing.T) {
	t.Parallel()
	flaky := &scenario.Scenario{Name: "flaky", Retries: 2}
	clash := &scenario.Scenario{Name: "flaky-retry1"}
	got := ownNames(transcriptNames([]job{newJob(flaky, 0), newJob(clash, 0)}))
	want := [][]string{{"flaky.jsonl", "flaky-retry1.jsonl", "flaky-retry2.jsonl"}, {"flaky-retry1-2.jsonl"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript names (-want +got):\n%s", diff)
	}
}

// ownNames are the names of the tries' own transcripts in names.
func ownNames(names [][]tryTranscripts) [][]string {
	out := make([][]string, len(names))
	for i, tries := range names {
		for _, t := range tries {
			out[i] = append(out[i], t.name)
		}
	}
	return out
}

// TestTranscriptFiles checks that the files a run may write in its
// transcripts directory are the names Run gives each try of each attempt,
// made unique, and beside each those of its judges.
func TestTranscriptFiles(t *testing.T) {
	t.Parallel()
	judge := &scenario.Judge{}
	judged := &scenario.Scenario{Name: "j", Retries: 1, Expect: scenario.Expect{Judge: judge},
		Turns: []scenario.Turn{{}, {Expect: scenario.Expect{Judge: judge}}}}
	plain := &scenario.Scenario{Name: "J", Agent: scenario.Agent{Name: "m"}}
	got := TranscriptFiles(Options{Repeat: 2}, []*scenario.Scenario{judged, plain})
	want := []string{
		"j#1.jsonl", "j#1.judge.jsonl", "j#1.judge-turn2.jsonl",
		"j#1-retry1.jsonl", "j#1-retry1.judge.jsonl", "j#1-retry1.judge-turn2.jsonl",
		"j#2.jsonl", "j#2.judge.jsonl", "j#2.judge-turn2.jsonl",
		"j#2-retry1.jsonl", "j#2-retry1.judge.jsonl", "j#2-retry1.judge-turn2.jsonl",
		"J@m#1.jsonl", "J@m#2.jsonl",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"j.jsonl", "J-2.jsonl"}, TranscriptFiles(Options{}, []*scenario.Scenario{{Name: "j"}, {Name: "J"}})); diff != "" {
		t.Errorf("transcript files without --repeat (-want +got):\n%s", diff)
	}
}

// TestJudgeTranscriptNames checks that a judge's transcript, named beside
// its try's, takes no name of another transcript of the run (a scenario
// named "a.judge", or "b#2.judge" beside a scenario "b#2"): the tries'
// names are given first, as without judges, then the judges', made unique
// the same way ("-2", "-3"…, case-insensitively, in job order).
// TranscriptFiles lists them as Run gives them.
func TestJudgeTranscriptNames(t *testing.T) {
	t.Parallel()
	judge := &scenario.Judge{}
	a := &scenario.Scenario{Name: "a", Retries: 1, Expect: scenario.Expect{Judge: judge}, Turns: []scenario.Turn{{Expect: scenario.Expect{Judge: judge}}}}
	b := &scenario.Scenario{Name: "b#2", Expect: scenario.Expect{Judge: judge}}
	got := TranscriptFiles(Options{}, []*scenario.Scenario{a, {Name: "a.judge"}, {Name: "A.judge-turn1"}, {Name: "a.judge-2"}, b, {Name: "b#2.judge"}})
	want := []string{
		"a.jsonl", "a.judge-3.jsonl", "a.judge-turn1-2.jsonl",
		"a-retry1.jsonl", "a-retry1.judge.jsonl", "a-retry1.judge-turn1.jsonl",
		"a.judge.jsonl", "A.judge-turn1.jsonl", "a.judge-2.jsonl",
		"b#2.jsonl", "b#2.judge-2.jsonl", "b#2.judge.jsonl",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript files (-want +got):\n%s", diff)
	}
}
