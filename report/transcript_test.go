package report_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
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
		{strings.Repeat("a", 200), "", 0, 0, strings.Repeat("a", 200) + ".jsonl"},
		// Past 200 bytes: cut, with a hash of the whole name and its end.
		{strings.Repeat("a", 201), "", 0, 0, strings.Repeat("a", 120) + "~" + hash(strings.Repeat("a", 201)) + "~" + strings.Repeat("a", 62) + ".jsonl"},
		{strings.Repeat("é", 300), "m", 3, 1, "_@m#3-retry1.jsonl"}, // 600 bytes, but one "_"
		{strings.Repeat("é ab", 100), "m", 3, 1, strings.Repeat("_ab", 40) + "~" + hash(strings.Repeat("é ab", 100)+"@m#3-retry1") + "~" + (strings.Repeat("_ab", 100) + "@m#3-retry1")[311-62:] + ".jsonl"},
		{strings.Repeat("long ", 100), "claude", 2, 0, strings.Repeat("long_", 24) + "~" + hash(strings.Repeat("long ", 100)+"@claude#2") + "~" + strings.Repeat("long_", 100)[500-53:] + "@claude#2.jsonl"},
	} {
		if got := report.TranscriptName(tt.name, tt.agent, tt.attempt, tt.retry); got != tt.want {
			t.Errorf("TranscriptName(%q, %q, %d, %d) = %q, want %q", tt.name, tt.agent, tt.attempt, tt.retry, got, tt.want)
		}
	}
	// Shortened names stay apart: they differ in their hash.
	a := report.TranscriptName(strings.Repeat("x", 150)+"a"+strings.Repeat("x", 150), "", 0, 0)
	b := report.TranscriptName(strings.Repeat("x", 150)+"b"+strings.Repeat("x", 150), "", 0, 0)
	if a == b || len(a) != report.MaxTranscriptStem+len(".jsonl") {
		t.Errorf("two long names that differ in their middle are named %q and %q; want two names of %d bytes", a, b, report.MaxTranscriptStem+len(".jsonl"))
	}
}

// hash is the hash in a shortened transcript name of a try named name.
func hash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:8])
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
	find := report.TranscriptFinder(dir, "", nil)
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

// TestTranscriptFinderRunDir: a relative transcript path is relative to
// the directory the run ran in (the results' dir, or a merged result's
// own), wherever report runs; as recorded when it runs there; from the
// results file's directory when the run's is not on this machine.
func TestTranscriptFinderRunDir(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"run/out/tr/a.jsonl", "shard/out/tr/a.jsonl", "ci/out/tr/a.jsonl"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run, shard, ci := filepath.Join(root, "run"), filepath.Join(root, "shard"), filepath.Join(root, "ci")
	t.Chdir(root) // neither the run's directory nor the results'
	for _, tt := range []struct {
		name   string
		r      report.Result
		runDir string
		dirs   []string
		want   string
	}{
		{"the results' dir", report.Result{Transcript: "out/tr/a.jsonl"}, run, []string{filepath.Join(run, "out")}, filepath.Join(run, "out/tr/a.jsonl")},
		{"a merged result's own dir", report.Result{Transcript: "out/tr/a.jsonl", Dir: shard}, "", []string{run}, filepath.Join(shard, "out/tr/a.jsonl")},
		{"the run's dir is elsewhere", report.Result{Transcript: "out/tr/a.jsonl"}, "/nonexistent/checkout", []string{ci}, filepath.Join(ci, "out/tr/a.jsonl")},
		{"nowhere", report.Result{Transcript: "out/tr/gone.jsonl"}, run, []string{run}, "out/tr/gone.jsonl"},
	} {
		if got := report.TranscriptFinder("", tt.runDir, tt.dirs)(tt.r); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	t.Chdir(run)
	if got := report.TranscriptFinder("", run, nil)(report.Result{Transcript: "out/tr/a.jsonl"}); got != "out/tr/a.jsonl" {
		t.Errorf("from the run's directory: %q, want the path as recorded", got)
	}
}
