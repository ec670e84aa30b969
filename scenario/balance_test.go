package scenario_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// named is scenarios of these names, in this order.
func named(names ...string) []*scenario.Scenario {
	var out []*scenario.Scenario
	for _, n := range names {
		out = append(out, &scenario.Scenario{Name: n})
	}
	return out
}

// shardNames is the names of shard i of n of scs, balanced by ds.
func shardNames(t *testing.T, scs []*scenario.Scenario, ds map[string]time.Duration, i, n int) []string {
	t.Helper()
	got, err := scenario.Select(scs, scenario.Selection{Shard: fmt.Sprintf("%d/%d", i, n), Durations: ds, AllowEmpty: true}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range got {
		names = append(names, sc.Name)
	}
	return names
}

// TestBalancedShards: longest first, each scenario goes to the shard with
// the least time so far (then the fewest scenarios, then the first); a
// scenario without a duration weighs the median; equal weights go by
// name; each shard keeps the selection's order.
func TestBalancedShards(t *testing.T) {
	s := time.Second
	tests := []struct {
		name  string
		scs   []string
		ds    map[string]time.Duration
		n     int
		wants [][]string
	}{
		{
			// a 10 → 1; b 8 → 2; c 6 → 2 (8); d 5 → 1 (10); e 4 → 2 (14); f 1 → 1 (15): 16 and 18.
			name: "longest first", scs: []string{"f", "e", "d", "c", "b", "a"}, n: 2,
			ds:    map[string]time.Duration{"a": 10 * s, "b": 8 * s, "c": 6 * s, "d": 5 * s, "e": 4 * s, "f": 1 * s},
			wants: [][]string{{"f", "d", "a"}, {"e", "c", "b"}},
		},
		{
			// Known 9, 3 and 1: the median 3 for x and y, which go by name
			// after b (3 too): a 9 → 1; b 3 → 2; x 3 → 3; y 3 → 2 (3); c 1 → 3 (3).
			name: "unknown weighs the median", scs: []string{"y", "x", "c", "b", "a"}, n: 3,
			ds:    map[string]time.Duration{"a": 9 * s, "b": 3 * s, "c": 1 * s, "gone": 100 * s},
			wants: [][]string{{"a"}, {"y", "b"}, {"x", "c"}},
		},
		{
			name: "equal weights by name, then the fewest scenarios", scs: []string{"d", "c", "b", "a", "e"}, n: 2,
			ds:    map[string]time.Duration{"a": 0, "b": 0, "c": 0, "d": 0, "e": 0},
			wants: [][]string{{"c", "a", "e"}, {"d", "b"}},
		},
		{
			name: "no scenario known: round robin", scs: []string{"d", "c", "b", "a"}, n: 2,
			ds:    map[string]time.Duration{"other": s},
			wants: [][]string{{"d", "b"}, {"c", "a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, want := range tt.wants {
				if got := shardNames(t, named(tt.scs...), tt.ds, i+1, tt.n); !cmp.Equal(want, got) {
					t.Errorf("shard %d/%d: %v, want %v", i+1, tt.n, got, want)
				}
			}
		})
	}
}

// TestBalancedShardsPartition: for any durations, the shards are
// disjoint and together exactly the selection, each computed alone; and
// the longest shard is no longer than the mean plus the longest scenario
// (greedy's bound).
func TestBalancedShardsPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var names []string
		ds := map[string]time.Duration{}
		for i := range 1 + rng.IntN(40) {
			name := fmt.Sprintf("s%02d", i)
			names = append(names, name)
			if rng.IntN(4) > 0 {
				ds[name] = time.Duration(rng.IntN(5000)) * time.Millisecond
			}
		}
		n := 1 + rng.IntN(6)
		var all []string
		var longest, total, heaviest time.Duration
		for i := 1; i <= n; i++ {
			shard := shardNames(t, named(names...), ds, i, n)
			var sum time.Duration
			for _, name := range shard {
				sum += ds[name]
			}
			longest = max(longest, sum)
			all = append(all, shard...)
		}
		for _, d := range ds {
			total += d
			heaviest = max(heaviest, d)
		}
		slices.Sort(all)
		if !slices.Equal(all, names) {
			t.Fatalf("round %d: %d shards hold %v, want each of %v once", round, n, all, names)
		}
		if len(ds) == len(names) && longest > total/time.Duration(n)+heaviest+time.Duration(len(names))*time.Millisecond {
			t.Errorf("round %d: longest shard %s, over the mean %s plus the longest scenario %s", round, longest, total/time.Duration(n), heaviest)
		}
	}
}

// TestUnbalanced: durations without sharding are named in a warning.
func TestUnbalanced(t *testing.T) {
	ds := map[string]time.Duration{}
	if msg := (scenario.Selection{Durations: ds}).Unbalanced(); !strings.Contains(msg, "--balance-from has no effect: the run is not sharded") {
		t.Errorf("unsharded: %q", msg)
	}
	for _, sel := range []scenario.Selection{{Durations: ds, Shard: "1/2"}, {Durations: ds, CINodeIndex: "1", CINodeTotal: "2"}, {Shard: "1/1"}} {
		if msg := sel.Unbalanced(); msg != "" {
			t.Errorf("%+v: %q, want none", sel, msg)
		}
	}
}
