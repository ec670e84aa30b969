package scenario

import (
	"cmp"
	"slices"
	"time"
)

// minWeight is the least a scenario weighs when shards are balanced:
// none takes no time (an agent alone takes a while to start), and a
// scenario that an earlier run recorded as 0 ms still counts.
const minWeight = time.Millisecond

// balanced returns the scenarios of scs in shard index of count, shards
// balanced by durations (the time each scenario, by name, took in an
// earlier run): longest first, each goes to the shard with the least time
// so far (then the fewest scenarios, then the lowest index); a scenario
// without a duration weighs the median of those of scs that have one,
// and scenarios that weigh the same go by name. Every shard computes the
// same assignment from the same scs and durations, and the shards
// together are exactly scs. The shard's scenarios keep their order in
// scs. When no scenario of scs has a duration, it is the round robin of
// an unbalanced shard.
func balanced(scs []*Scenario, durations map[string]time.Duration, index, count int) []*Scenario {
	var known []time.Duration
	for _, sc := range scs {
		if d, ok := durations[sc.Name]; ok {
			known = append(known, d)
		}
	}
	if len(known) == 0 {
		return roundRobin(scs, index, count)
	}
	unknown := median(known)
	weight := func(sc *Scenario) time.Duration {
		d, ok := durations[sc.Name]
		if !ok {
			d = unknown
		}
		return max(d, minWeight)
	}
	order := make([]int, len(scs)) // indexes of scs, heaviest first
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(weight(scs[b]), weight(scs[a])), cmp.Compare(scs[a].Name, scs[b].Name), cmp.Compare(a, b))
	})
	totals := make([]time.Duration, count)
	sizes := make([]int, count)
	mine := make([]bool, len(scs))
	for _, i := range order {
		s := 0
		for j := 1; j < count; j++ {
			if totals[j] < totals[s] || totals[j] == totals[s] && sizes[j] < sizes[s] {
				s = j
			}
		}
		totals[s] += weight(scs[i])
		sizes[s]++
		mine[i] = s == index
	}
	var out []*Scenario
	for i, sc := range scs {
		if mine[i] {
			out = append(out, sc)
		}
	}
	return out
}

// roundRobin returns the scenarios of scs in shard index of count: every
// count-th, from the index-th.
func roundRobin(scs []*Scenario, index, count int) []*Scenario {
	var out []*Scenario
	for i, sc := range scs {
		if i%count == index {
			out = append(out, sc)
		}
	}
	return out
}

// median is the median of ds (the mean of the two middle ones for an
// even count); ds is not empty.
func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
