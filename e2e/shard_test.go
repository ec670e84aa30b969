package e2e_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// noShardEnv clears every variable acprun shards by, so that a test run
// inside a parallel CI job still sees the whole selection.
var noShardEnv = []string{"JOB_COMPLETION_INDEX=", "CI_NODE_INDEX=", "CI_NODE_TOTAL="}

// shardEnv is noShardEnv with env set after it (a later NAME=value wins).
func shardEnv(env ...string) []string { return append(slices.Clone(noShardEnv), env...) }

// TestShardFromGitLabNodes: GitLab's CI_NODE_INDEX (1-based) and
// CI_NODE_TOTAL pick the same shard as --shard I/N; --shard, and
// JOB_COMPLETION_INDEX with --shards, beat them.
func TestShardFromGitLabNodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batchFiles(t, dir, 7)
	list := func(env []string, args ...string) string {
		t.Helper()
		res := acprunEnv(t, dir, env, append([]string{"list", "suite"}, args...)...)
		if res.code != 0 || res.stdout == "" {
			t.Fatalf("list %v with %v: exit %d\n%s%s", args, env, res.code, res.stdout, res.stderr)
		}
		return res.stdout
	}
	var shards []string
	for i := 1; i <= 3; i++ {
		flag := list(noShardEnv, "--shard", fmt.Sprintf("%d/3", i))
		gitlab := list(shardEnv(fmt.Sprintf("CI_NODE_INDEX=%d", i), "CI_NODE_TOTAL=3"))
		if flag != gitlab {
			t.Errorf("--shard %d/3 listed\n%s\nCI_NODE_INDEX=%d CI_NODE_TOTAL=3 listed\n%s", i, flag, i, gitlab)
		}
		shards = append(shards, gitlab)
	}
	whole := list(noShardEnv)
	if got, want := shardSortedLines(strings.Join(shards, "")), shardSortedLines(whole); !cmp.Equal(got, want) {
		t.Errorf("the three GitLab shards together (-want +got):\n%s", cmp.Diff(want, got))
	}

	gitlab2 := shardEnv("CI_NODE_INDEX=2", "CI_NODE_TOTAL=3")
	if got := list(gitlab2, "--shard", "1/3"); got != shards[0] {
		t.Errorf("--shard 1/3 under CI_NODE_INDEX=2 listed\n%s\nwant shard 1:\n%s", got, shards[0])
	}
	if got := list(append(gitlab2, "JOB_COMPLETION_INDEX=2"), "--shards", "3"); got != shards[2] {
		t.Errorf("JOB_COMPLETION_INDEX=2 --shards 3 under CI_NODE_INDEX=2 listed\n%s\nwant shard 3:\n%s", got, shards[2])
	}
	if got := list(shardEnv("CI_NODE_TOTAL=1")); got != whole {
		t.Errorf("CI_NODE_TOTAL=1 (a GitLab job without parallel:) listed\n%s\nwant all:\n%s", got, whole)
	}
}

// TestShardBadGitLabNodes: a bad CI_NODE_INDEX or CI_NODE_TOTAL is a
// usage error that names the variable, for run as for list, and nothing
// runs.
func TestShardBadGitLabNodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batchFiles(t, dir, 3)
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"CI_NODE_INDEX=0", "CI_NODE_TOTAL=3"}, `CI_NODE_INDEX="0": want 1 ≤ index ≤ CI_NODE_TOTAL=3 (it is 1-based)`},
		{[]string{"CI_NODE_INDEX=4", "CI_NODE_TOTAL=3"}, `CI_NODE_INDEX="4": want 1 ≤ index ≤ CI_NODE_TOTAL=3`},
		{[]string{"CI_NODE_INDEX=1", "CI_NODE_TOTAL=three"}, `CI_NODE_TOTAL="three": want the number of parallel jobs`},
		{[]string{"CI_NODE_INDEX=1"}, `CI_NODE_INDEX="1" is set but CI_NODE_TOTAL is not`},
	}
	for _, tt := range tests {
		for _, args := range [][]string{{"list", "suite"}, {"run", "suite", "-o", "out.json"}} {
			cmd := args[0]
			res := acprunEnv(t, dir, shardEnv(tt.env...), args...)
			if res.code != exitUsage || !strings.Contains(res.stderr, tt.want) || !strings.Contains(res.stderr, "--shard I/N") {
				t.Errorf("%s with %v: exit %d, stderr:\n%s\nwant exit 2 and %q with the --shard I/N way out", cmd, tt.env, res.code, res.stderr, tt.want)
			}
		}
		if files, _ := filepath.Glob(filepath.Join(dir, "out.json")); len(files) > 0 {
			t.Fatalf("run with %v wrote results", tt.env)
		}
	}
}

// shardSortedLines returns the lines of s, sorted.
func shardSortedLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	slices.Sort(lines)
	return lines
}
