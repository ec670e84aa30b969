package e2e_test

import (
	"slices"
	"strings"
	"testing"
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
