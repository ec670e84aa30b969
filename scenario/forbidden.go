package scenario

import (
	"regexp"
	"regexp/syntax"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// Pattern is a regular expression of the file with its position.
type Pattern struct {
	Pos Pos
	Re  *regexp.Regexp
}

// forbidden reads the notContains and notMatches of m, a text or stdout
// mapping: each a string or a list of them, none of which may appear in
// the text (what names it in messages: reply, output). A forbidden text
// that one the mapping's contains requires holds, or a notMatches equal to
// its matches, could never be met and is an error; so is an empty text
// or a regular expression that matches every text.
func (p *fileParser) forbidden(m mapping, what string) ([]Located, []Pattern) {
	var contains []*yaml.Node
	if v := m.value("contains"); v != nil {
		contains, _ = p.strNodes(v, true, false) // its problems, reported again, are reported once
	}
	var notContains []Located
	if v := m.value("notContains"); v != nil {
		nodes, _ := p.strNodes(v, true, true)
		for _, s := range nodes {
			if s.Value == "" {
				p.Errorf(s, "empty text: every %s contains it, so notContains could never hold; give the text that must not appear", what)
				continue
			}
			if c := firstContaining(contains, s.Value); c != nil {
				p.Errorf(s, "contains requires %q (line %d), which holds %q: no %s can meet both", c.Value, c.Line, s.Value, what)
				continue
			}
			notContains = append(notContains, Located{Pos: p.pos(s), Value: s.Value})
		}
	}
	var notMatches []Pattern
	if v := m.value("notMatches"); v != nil {
		matches := yamlnode.Deref(m.value("matches"))
		nodes, _ := p.strNodes(v, true, true)
		for _, s := range nodes {
			re, ok := p.regexp(s)
			if !ok {
				continue
			}
			if matchesEvery(re) {
				p.Errorf(s, "notMatches /%s/ matches every %s (even an empty one), so it could never hold; give what must not appear", re, what)
				continue
			}
			if matches != nil && matches.Kind == yaml.ScalarNode && matches.Value == s.Value {
				p.Errorf(s, "/%s/ is both matches (line %d) and notMatches: no %s can meet both", re, matches.Line, what)
				continue
			}
			notMatches = append(notMatches, Pattern{Pos: p.pos(s), Re: re})
		}
	}
	return notContains, notMatches
}

// wantedTexts reads a contains: a string or a list of texts, each of which
// must appear in the text (what names it: reply, output). An empty list,
// or an empty text, which every text contains, is an error.
func (p *fileParser) wantedTexts(n *yaml.Node, what string) []*yaml.Node {
	nodes, _ := p.strNodes(n, true, true)
	var out []*yaml.Node
	for _, s := range nodes {
		if s.Value == "" {
			p.Errorf(s, "empty text: every %s contains it, so contains could never fail; give the text that must appear", what)
			continue
		}
		out = append(out, s)
	}
	return out
}

// wanted reads the contains and matches of m, a text or stdout mapping:
// the texts that must appear in the text (what names it: reply, output)
// and the pattern it must match (nil for none), each with its position.
func (p *fileParser) wanted(m mapping, what string) ([]Located, *Pattern) {
	var contains []Located
	if v := m.value("contains"); v != nil {
		for _, s := range p.wantedTexts(v, what) {
			contains = append(contains, Located{Pos: p.pos(s), Value: s.Value})
		}
	}
	var matches *Pattern
	if v := m.value("matches"); v != nil {
		if re, ok := p.wantedPattern(v, "matches", what, "so it could never fail; give what must appear"); ok {
			matches = &Pattern{Pos: p.pos(yamlnode.Deref(v)), Re: re}
		}
	}
	return contains, matches
}

// wantedPattern reads a regular expression, the value of key, that the
// text (what names it: reply, output, file) must match. One that matches
// every text (see matchesEvery) could never fail, and is an error, which
// ends with then.
func (p *fileParser) wantedPattern(n *yaml.Node, key, what, then string) (*regexp.Regexp, bool) {
	re, ok := p.regexp(n)
	if !ok {
		return nil, false
	}
	switch {
	case re.String() == "":
		p.Errorf(n, "%s is empty, %s", key, then)
		return nil, false
	case matchesEvery(re):
		p.Errorf(n, "%s /%s/ matches every %s (even an empty one), %s", key, re, what, then)
		return nil, false
	}
	return re, true
}

// firstContaining returns the first of nodes whose value holds s, or nil.
func firstContaining(nodes []*yaml.Node, s string) *yaml.Node {
	for _, n := range nodes {
		if strings.Contains(n.Value, s) {
			return n
		}
	}
	return nil
}

// matchesEvery reports whether re certainly matches every text: it
// matches the empty string at the start of a text with no assertion but
// those that hold at the start of every text (^, \A), or at its end with
// none but those that hold at the end of every text ($, \z). Such a
// pattern (x*, .*, ^, $, an empty one) finds that empty match in any
// text. A pattern that needs a character, or an assertion that holds in
// some texts only (^$, (?s)^.{0,10}$, \b), may fail to match, so it is
// not refused; nor is the rare one that matches every text another way
// (\b|\B).
func matchesEvery(re *regexp.Regexp) bool {
	parsed, err := syntax.Parse(re.String(), syntax.Perl) // as regexp.Compile parses it
	if err != nil {
		return false
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return false
	}
	return matchesEmpty(prog, syntax.EmptyBeginText|syntax.EmptyBeginLine) ||
		matchesEmpty(prog, syntax.EmptyEndText|syntax.EmptyEndLine)
}

// matchesEmpty reports whether prog matches the empty string at a place
// where the empty-width assertions in at hold, and no others.
func matchesEmpty(prog *syntax.Prog, at syntax.EmptyOp) bool {
	seen := make([]bool, len(prog.Inst))
	next := []uint32{uint32(prog.Start)}
	for len(next) > 0 {
		pc := next[len(next)-1]
		next = next[:len(next)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		switch i := prog.Inst[pc]; i.Op {
		case syntax.InstMatch:
			return true
		case syntax.InstAlt, syntax.InstAltMatch:
			next = append(next, i.Out, i.Arg)
		case syntax.InstCapture, syntax.InstNop:
			next = append(next, i.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(i.Arg)&^at == 0 {
				next = append(next, i.Out)
			}
		} // the others need a character, or fail
	}
	return false
}
