package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestTranscriptName: the name of a try says its scenario, agent,
// attempt and retry, and keeps no character a file system could take
// apart.
func TestTranscriptName(t *testing.T) {
	for _, tt := range []struct {
		name, agent    string
		attempt, retry int
		want           string
	}{
		{"login", "", 0, 0, "login.jsonl"},
		{"login", "claude", 2, 0, "login@claude#2.jsonl"},
		{"login", "", 0, 1, "login-retry1.jsonl"},
		{"fix: the ../build", "my agent", 1, 2, "fix_the_.._build@my_agent#1-retry2.jsonl"},
	} {
		if got := report.TranscriptName(tt.name, tt.agent, tt.attempt, tt.retry); got != tt.want {
			t.Errorf("TranscriptName(%q, %q, %d, %d) = %q, want %q", tt.name, tt.agent, tt.attempt, tt.retry, got, tt.want)
		}
	}
}

// TestTranscriptFinderByName: results that do not record their
// transcripts find them in the directory by the names run gives them, a
// retry's own included.
func TestTranscriptFinderByName(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"flaky.jsonl", "flaky-retry1.jsonl", "login@claude#2.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	find := report.TranscriptFinder(dir, nil)
	for _, tt := range []struct {
		r    report.Result
		want string
	}{
		{report.Result{Name: "flaky"}, "flaky.jsonl"},
		{report.Result{Name: "flaky", Retry: 1}, "flaky-retry1.jsonl"},
		{report.Result{Name: "login", Agent: report.AgentInfo{Name: "claude"}, Attempt: 2}, "login@claude#2.jsonl"},
		{report.Result{Name: "elsewhere", Transcript: "/old/dir/flaky-retry1.jsonl"}, "flaky-retry1.jsonl"},
		{report.Result{Name: "gone", Retry: 2}, ""},
	} {
		want := tt.want
		if want != "" {
			want = filepath.Join(dir, want)
		}
		if got := find(tt.r); got != want {
			t.Errorf("%s (attempt %d, retry %d): %q, want %q", tt.r.Name, tt.r.Attempt, tt.r.Retry, got, want)
		}
	}
}
