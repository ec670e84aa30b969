package yamlnode

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// Pair is one key and its value in a mapping.
type Pair struct {
	Key  string
	K, V *yaml.Node // the key's node (aliases followed) and the value's, as written
}

// Kind says what is wrong in a Problem.
type Kind int

// The problems Pairs finds.
const (
	NotMapping   Kind = iota + 1 // Node is not a mapping
	KeyNotName                   // Node is a key that is not a scalar
	DuplicateKey                 // Node is a key written before in the mapping; First is the first
	MergeKey                     // Node is a merge key (<<), and Options.Merge is off
	BadMerge                     // Node, the value of a merge key or an item of it, is not a mapping
	MergeTooMuch                 // Node is where merges nest too deeply or bring too many keys; reported once
)

// Problem is one thing wrong with a mapping.
type Problem struct {
	Kind  Kind
	Node  *yaml.Node // where it is (aliases followed for keys)
	First *yaml.Node // DuplicateKey: the key written first
}

// Options says how Pairs reads a mapping.
type Options struct {
	// Merge expands merge keys (<<): a mapping or a list of mappings whose
	// keys join the mapping's own, which win over merged ones. Without it a
	// merge key is a MergeKey problem.
	Merge bool
}

// maxMerged bounds the work of expanding the merge keys of one mapping, as
// aliases can make it exponential.
const maxMerged = 10_000

// Pairs returns the pairs of mapping n in order, its own keys first, then
// the merged ones it does not have, and every problem found, in the order
// found. A key with a problem is left out, as is a duplicate. ok is false
// (with a NotMapping problem) when n is not a mapping at all.
func Pairs(n *yaml.Node, opts Options) (pairs []Pair, probs []Problem, ok bool) {
	n = Deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, []Problem{{Kind: NotMapping, Node: n}}, false
	}
	r := merger{budget: maxMerged}
	pairs = r.pairs(n, 0, opts.Merge, true)
	return pairs, r.probs, true
}

// merger collects the problems of one mapping.
type merger struct {
	probs  []Problem
	budget int // left for expanding merges
}

func (r *merger) report(k Kind, n *yaml.Node) {
	r.probs = append(r.probs, Problem{Kind: k, Node: n})
}

// pairs returns the pairs of mapping n: its own keys first, then the
// merged ones (at depth) it does not have, a key written twice once, as
// written first (a Problem when top, n being the mapping Pairs reads).
func (r *merger) pairs(n *yaml.Node, depth int, merge, top bool) []Pair {
	seen := map[string]*yaml.Node{}
	var out, merged []Pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Deref(n.Content[i]), n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode:
			r.report(KeyNotName, k)
		case k.ShortTag() == "!!merge" && !merge:
			r.report(MergeKey, k)
		case k.ShortTag() == "!!merge":
			merged = append(merged, r.mergePairs(v, depth)...)
		case seen[k.Value] != nil:
			if top {
				r.probs = append(r.probs, Problem{Kind: DuplicateKey, Node: k, First: seen[k.Value]})
			}
		default:
			seen[k.Value] = k
			out = append(out, Pair{k.Value, k, v})
		}
	}
	for _, kv := range merged {
		if seen[kv.Key] == nil {
			seen[kv.Key] = kv.K
			out = append(out, kv)
		}
	}
	return out
}

// mergePairs returns the pairs that a merge key's value brings in.
func (r *merger) mergePairs(v *yaml.Node, depth int) []Pair {
	v = Deref(v)
	const exhausted = math.MinInt / 2
	r.budget -= max(len(v.Content), 1)
	if depth > 10 || r.budget < 0 {
		if r.budget > exhausted {
			r.report(MergeTooMuch, v)
			r.budget = exhausted // report once, expand no more
		}
		return nil
	}
	switch v.Kind {
	case yaml.MappingNode:
		return r.pairs(v, depth+1, true, false)
	case yaml.SequenceNode:
		var out []Pair
		seen := map[string]bool{}
		for _, item := range v.Content {
			if Deref(item).Kind != yaml.MappingNode {
				r.report(BadMerge, item)
				continue
			}
			for _, kv := range r.mergePairs(item, depth+1) {
				if !seen[kv.Key] {
					seen[kv.Key] = true
					out = append(out, kv)
				}
			}
		}
		return out
	}
	r.report(BadMerge, v)
	return nil
}
