package scenario

import (
	"regexp"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// answerSetKeys are the keys of an entry of an answers list.
var answerSetKeys = []string{"match", "values"}

// AnswerSet is one entry of answers: values for the fields of the forms
// the agent asks to fill (elicitation/create in form mode), for the
// questions whose message Match matches (every question when Match is
// nil). A scenario's answers and a turn's are lists of them, tried in
// order, the turn's first: each field takes its value from the first set
// that matches and has it.
type AnswerSet struct {
	Pos    Pos
	Match  *regexp.Regexp
	Values []AnswerValue // in the order written
}

// AnswerValue is the answer for one field, as written: the text of a
// scalar, or a list of them (for a multi-select). The runner turns it into
// the type the form asks for.
type AnswerValue struct {
	Pos   Pos
	Field string
	Text  string
	// List is set, and Text empty, for a list.
	List   []string
	IsList bool
}

// answers reads the answers key: a mapping of field names to values, for
// any question, or a list of {match, values} entries.
func (p *fileParser) answers(n *yaml.Node) []AnswerSet {
	n = yamlnode.Deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			p.Errorf(n, "answers is empty: map form fields to their values, such as {branch: main}")
			return nil
		}
		return []AnswerSet{{Pos: p.pos(n), Values: p.answerValues(n, true)}}
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			p.Errorf(n, "answers is empty: list {match: REGEX, values: {FIELD: VALUE}} entries, or map fields to values")
			return nil
		}
		var sets []AnswerSet
		for _, item := range n.Content {
			if set, ok := p.answerSet(yamlnode.Deref(item)); ok {
				sets = append(sets, set)
			}
		}
		return sets
	}
	p.Expected(n, "answers (a mapping of form fields to values, or a list of {match, values} entries)")
	return nil
}

// answerSet reads one entry of an answers list.
func (p *fileParser) answerSet(n *yaml.Node) (AnswerSet, bool) {
	set := AnswerSet{Pos: p.pos(n)}
	m, ok := p.mapping(n, answerSetKeys, nil)
	if !ok {
		return set, false
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "match":
			set.Match, _ = p.regexp(kv.V)
		case "values":
			v, ok := p.Want(kv.V, yaml.MappingNode, "a mapping of form fields to values")
			if !ok {
				continue
			}
			if len(v.Content) == 0 {
				p.Errorf(v, "values is empty: map form fields to their values, such as {branch: main}")
				continue
			}
			set.Values = p.answerValues(v, false)
		}
	}
	p.require(m, "values")
	return set, true
}

// answerValues reads a mapping of form fields to values: a scalar, or a
// list of scalars. Values are interpolated. top is set for the mapping
// form of answers, whose fields may not hold mappings: an entry with
// match and values there was meant as a list.
func (p *fileParser) answerValues(n *yaml.Node, top bool) []AnswerValue {
	m, ok := p.mapping(n, nil, nil)
	if !ok {
		return nil
	}
	var out []AnswerValue
	for _, kv := range m.pairs {
		v := yamlnode.Deref(kv.V)
		a := AnswerValue{Pos: p.pos(v), Field: kv.Key}
		switch {
		case kv.Key == "":
			p.Errorf(kv.K, "empty field name")
			continue
		case v.Kind == yaml.SequenceNode:
			a.IsList, a.List = true, []string{}
			for _, item := range v.Content {
				if s, ok := p.answerScalar(yamlnode.Deref(item), kv.Key); ok {
					a.List = append(a.List, s)
				}
			}
		case v.Kind == yaml.MappingNode && top:
			p.Errorf(v, "the answer for field %q is a mapping: give a value or a list of values (to answer only some questions, write answers as a list: [{match: REGEX, values: {FIELD: VALUE}}])", kv.Key)
			continue
		default:
			s, ok := p.answerScalar(v, kv.Key)
			if !ok {
				continue
			}
			a.Text = s
		}
		out = append(out, a)
	}
	return out
}

// answerScalar reads one value of an answer: any scalar but null, its
// variables expanded.
func (p *fileParser) answerScalar(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode || yamlnode.IsNull(n) {
		p.Errorf(n, "the answer for field %q: expected a value (a string, number or boolean), got %s", field, yamlnode.Describe(n))
		return "", false
	}
	return p.interp(n)
}
