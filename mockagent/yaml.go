package mockagent

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/suggest"
	"github.com/acprun/acprun/internal/yamlnode"
)

// parser walks a yaml.Node tree and collects positioned errors (in
// Errs, see yamlnode.Reader). It never stops at the first error, so a
// script shows all its problems at once.
type parser struct {
	yamlnode.Reader
	// budget bounds the nodes visited while converting values to JSON,
	// and walked bounds the mapping and list items visited in all, so that
	// alias bombs give an error instead of eating time and memory.
	budget   int
	walked   int
	tooLarge bool
}

const maxWalked = 1 << 20

// spend counts the items of a mapping or list about to be walked. Past the
// limit it reports one error and returns false.
func (p *parser) spend(n *yaml.Node) bool {
	p.walked += len(n.Content)
	if p.walked <= maxWalked {
		return true
	}
	if !p.tooLarge {
		p.tooLarge = true
		p.Errorf(n, "script too large (more than %d items after expanding aliases)", maxWalked)
	}
	return false
}

const maxRawNodes = 1 << 20

// describe names a node's type for messages: "a string", "a mapping"…
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!null":
			return "null"
		}
		return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
	}
	return "nothing"
}

// entries returns the entries of a mapping, reporting a node that is not a
// mapping, keys that are not strings, duplicate keys and merge keys.
func (p *parser) entries(n *yaml.Node, what string) ([]yamlnode.Pair, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.MappingNode {
		p.Errorf(n, "%s: want a mapping, got %s", what, describe(n))
		return nil, false
	}
	if !p.spend(n) {
		return nil, false
	}
	pairs, probs, _ := yamlnode.Pairs(n, yamlnode.Options{})
	for _, pr := range probs {
		switch pr.Kind {
		case yamlnode.KeyNotName:
			p.Errorf(pr.Node, "%s: want a string key, got %s", what, describe(pr.Node))
		case yamlnode.MergeKey:
			p.Errorf(pr.Node, "%s: merge keys (<<) are not supported", what)
		case yamlnode.DuplicateKey:
			p.Errorf(pr.Node, "%s: duplicate key %q", what, pr.Node.Value)
		}
	}
	return pairs, true
}

// fields maps a key to the function that parses its value.
type fields map[string]func(v *yaml.Node)

// set returns the field parser that reads a value with read (p.str…) into
// dst; a wrong value is reported, which fails the script, and leaves dst
// its zero value.
func set[T any](dst *T, read func(n *yaml.Node, what string) (T, bool), what string) func(*yaml.Node) {
	return func(v *yaml.Node) { *dst, _ = read(v, what) }
}

// setPtr is set for an optional value: dst points to the value read, and
// stays nil when it is wrong.
func setPtr[T any](dst **T, read func(n *yaml.Node, what string) (T, bool), what string) func(*yaml.Node) {
	return func(v *yaml.Node) {
		if x, ok := read(v, what); ok {
			*dst = &x
		}
	}
}

// oneOfAs is p.oneOf as a reader for set and setPtr, of a string type T.
func oneOfAs[T ~string](p *parser, allowed ...string) func(n *yaml.Node, what string) (T, bool) {
	return func(n *yaml.Node, what string) (T, bool) {
		s, ok := p.oneOf(n, what, allowed...)
		return T(s), ok
	}
}

// between is p.int in [lo, hi] as a reader for set and setPtr.
func (p *parser) between(lo, hi int64) func(n *yaml.Node, what string) (int, bool) {
	return func(n *yaml.Node, what string) (int, bool) { return p.int(n, what, lo, hi) }
}

// object parses a mapping whose keys must all be in fs; given holds the
// keys of fs it has (for those that are required).
func (p *parser) object(n *yaml.Node, what string, fs fields) (given map[string]bool, ok bool) {
	kvs, ok := p.entries(n, what)
	if !ok {
		return nil, false
	}
	return p.apply(kvs, what, fs), true
}

// apply calls fs for each entry and reports unknown keys; given holds the
// keys it called fs for.
func (p *parser) apply(kvs []yamlnode.Pair, what string, fs fields) (given map[string]bool) {
	given = map[string]bool{}
	for _, kv := range kvs {
		f, ok := fs[kv.Key]
		if !ok {
			p.Errorf(kv.K, "unknown key %q in %s (%s)", kv.Key, what, wanted(kv.Key, slices.Sorted(maps.Keys(fs))))
			continue
		}
		given[kv.Key] = true
		f(kv.V)
	}
	return given
}

// wanted says, for the message of an unknown word, the valid one closest
// to it, or else every valid one.
func wanted(word string, valid []string) string {
	if s, ok := suggest.Closest(word, valid); ok {
		return fmt.Sprintf("did you mean %q?", s)
	}
	return "want one of: " + strings.Join(valid, ", ")
}

// list returns the items of a sequence.
func (p *parser) list(n *yaml.Node, what string) ([]*yaml.Node, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.SequenceNode {
		p.Errorf(n, "%s: want a list, got %s", what, describe(n))
		return nil, false
	}
	if !p.spend(n) {
		return nil, false
	}
	return n.Content, true
}

func (p *parser) str(n *yaml.Node, what string) (string, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		p.Errorf(n, "%s: want a string, got %s", what, describe(n))
		return "", false
	}
	return n.Value, true
}

// nonEmpty is str that also rejects "".
func (p *parser) nonEmpty(n *yaml.Node, what string) (string, bool) {
	s, ok := p.str(n, what)
	if ok && s == "" {
		p.Errorf(yamlnode.Deref(n), "%s: must not be empty", what)
		return "", false
	}
	return s, ok
}

func (p *parser) oneOf(n *yaml.Node, what string, allowed ...string) (string, bool) {
	s, ok := p.str(n, what)
	if ok && !slices.Contains(allowed, s) {
		p.Errorf(yamlnode.Deref(n), "%s: unknown value %q (want one of: %s)", what, s, strings.Join(allowed, ", "))
		return "", false
	}
	return s, ok
}

func (p *parser) int64(n *yaml.Node, what string) (int64, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		p.Errorf(n, "%s: want an integer, got %s", what, describe(n))
		return 0, false
	}
	var v int64
	if err := n.Decode(&v); err != nil {
		p.Errorf(n, "%s: integer out of range: %s", what, n.Value)
		return 0, false
	}
	return v, true
}

// count is int64 for a count, which must not be negative.
func (p *parser) count(n *yaml.Node, what string) (int64, bool) {
	i, ok := p.int64(n, what)
	if ok && i < 0 {
		p.Errorf(yamlnode.Deref(n), "%s: must not be negative", what)
		return 0, false
	}
	return i, ok
}

func (p *parser) int(n *yaml.Node, what string, lo, hi int64) (int, bool) {
	v, ok := p.int64(n, what)
	if !ok {
		return 0, false
	}
	if v < lo || v > hi {
		p.Errorf(yamlnode.Deref(n), "%s: %d out of range [%d, %d]", what, v, lo, hi)
		return 0, false
	}
	return int(v), true
}

func (p *parser) float(n *yaml.Node, what string) (float64, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		p.Errorf(n, "%s: want a number, got %s", what, describe(n))
		return 0, false
	}
	var v float64
	if err := n.Decode(&v); err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		p.Errorf(n, "%s: not a finite number: %s", what, n.Value)
		return 0, false
	}
	return v, true
}

func (p *parser) bool(n *yaml.Node, what string) (bool, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		got := describe(n)
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
			got = yamlnode.NotBoolean(n) // quoted, with what to write for yes or "true"
		}
		p.Errorf(n, "%s: want true or false, got %s", what, got)
		return false, false
	}
	var v bool
	if err := n.Decode(&v); err != nil {
		p.Errorf(n, "%s: %v", what, err)
		return false, false
	}
	return v, true
}

// duration parses a string such as examples says ("500ms or 1s"),
// reporting one that is not a duration, or is negative.
func (p *parser) duration(n *yaml.Node, what, examples string) (time.Duration, bool) {
	s, ok := p.str(n, what)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		p.Errorf(yamlnode.Deref(n), "%s: want a duration such as %s, got %q", what, examples, s)
		return 0, false
	}
	return d, true
}

// strings parses a list of strings.
func (p *parser) strings(n *yaml.Node, what string) ([]string, bool) {
	items, ok := p.list(n, what)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := p.str(it, what+" item"); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// rawJSON converts any YAML value to JSON, keeping mapping key order.
func (p *parser) rawJSON(n *yaml.Node, what string) (json.RawMessage, bool) {
	var buf bytes.Buffer
	if !p.appendJSON(&buf, n, what, 0) {
		if p.budget < 0 {
			p.Errorf(n, "%s: value too large (more than %d nodes after expanding aliases)", what, maxRawNodes)
			p.budget = maxRawNodes // report each value once, then go on
		}
		return nil, false
	}
	return json.RawMessage(buf.Bytes()), true
}

// rawObject is rawJSON for values that must be mappings (_meta…).
func (p *parser) rawObject(n *yaml.Node, what string) (json.RawMessage, bool) {
	if r := yamlnode.Deref(n); r.Kind != yaml.MappingNode {
		p.Errorf(r, "%s: want a mapping, got %s", what, describe(r))
		return nil, false
	}
	return p.rawJSON(n, what)
}

func (p *parser) appendJSON(buf *bytes.Buffer, n *yaml.Node, what string, depth int) bool {
	p.budget--
	if p.budget < 0 {
		return false
	}
	if depth > 200 {
		p.Errorf(n, "%s: value nested too deeply", what)
		return false
	}
	n = yamlnode.Deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		kvs, ok := p.entries(n, what)
		if !ok {
			return false
		}
		buf.WriteByte('{')
		for i, kv := range kvs {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(kv.Key)
			buf.Write(k)
			buf.WriteByte(':')
			if !p.appendJSON(buf, kv.V, what, depth+1) {
				return false
			}
		}
		buf.WriteByte('}')
		return true
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, it := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if !p.appendJSON(buf, it, what, depth+1) {
				return false
			}
		}
		buf.WriteByte(']')
		return true
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			buf.WriteString("null")
			return true
		case "!!bool":
			v, ok := p.bool(n, what)
			if ok {
				buf.WriteString(strconv.FormatBool(v))
			}
			return ok
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				buf.WriteString(strconv.FormatInt(i, 10))
				return true
			}
			var u uint64
			if err := n.Decode(&u); err == nil {
				buf.WriteString(strconv.FormatUint(u, 10))
				return true
			}
			p.Errorf(n, "%s: integer out of range: %s", what, n.Value)
			return false
		case "!!float":
			v, ok := p.float(n, what)
			if ok {
				b, _ := json.Marshal(v)
				buf.Write(b)
			}
			return ok
		}
		// Strings, timestamps, binary and custom tags: the text as written.
		b, _ := json.Marshal(n.Value)
		buf.Write(b)
		return true
	}
	p.Errorf(n, "%s: want a value, got %s", what, describe(n))
	return false
}
