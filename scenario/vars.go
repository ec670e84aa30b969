package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/suggest"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/yamlnode"
)

// Var is one value of a parametrised scenario: the scenario's vars give
// Name the text Value in this expansion.
type Var struct {
	Name, Value string
}

// VarValues is the values of Vars by name; nil when the scenario has
// none.
func (sc *Scenario) VarValues() map[string]string {
	if len(sc.Vars) == 0 {
		return nil
	}
	m := make(map[string]string, len(sc.Vars))
	for _, v := range sc.Vars {
		m[v.Name] = v.Value
	}
	return m
}

// MaxVarSets is the most scenarios one document may expand into.
const MaxVarSets = 1000

// maxExpandedValues bounds the keys and values (scalars) of the scenarios
// one document expands into, together: a long document expands into
// fewer.
const maxExpandedValues = 1 << 20

// valueSet is one set of values of vars, in the order of the names, and
// where the set is given (for messages about a set given twice).
type valueSet struct {
	vars []Var
	pos  Pos
}

// key is the set as the expanded scenario's name shows it:
// "lang=go,level=1".
func (s valueSet) key() string {
	parts := make([]string, len(s.vars))
	for i, v := range s.vars {
		parts[i] = v.Name + "=" + v.Value
	}
	return strings.Join(parts, ",")
}

// expansion is one scenario a document expands into: its tree, with the
// values of vars in place of their templates, and the values.
type expansion struct {
	root *yaml.Node
	set  valueSet
}

// expand returns the scenarios the document root expands into by its
// vars: one per value set, each a copy of root with {{.NAME}} replaced by
// the set's values (see render), in the order of the sets. It returns nil
// when the document has no vars: it is read as it is, and {{ means
// nothing in it. Problems with vars or the templates are reported, and
// the document is still expanded with every good value set, so that a
// problem of only some of them is found and named with its set (see
// nameValueSets); a template naming no variable stays as written. Only a
// document that would expand into more than acprun reads at once is
// expanded with its first value set alone, so that the rest of it is
// checked once.
func (p *fileParser) expand(root *yaml.Node) []expansion {
	n := topValue(root, "vars")
	if n == nil {
		return nil
	}
	sets, names := p.varSets(n)
	p.checkTemplates(root, names, "vars")
	if len(sets) > 0 {
		p.nameTemplates(root, names, sets[0])
	}
	if t := p.templatedDefaults(root); t != nil {
		cp := p.sub(p.cfg)
		cp.checkTemplates(t, names, "vars of "+p.scenarioAt(root)) // at their place in the config file
		p.absorb(cp)
	}
	values := 0
	templated(root, func(*yaml.Node) { values++ })
	if len(sets)*values > maxExpandedValues {
		p.Errorf(yamlnode.Deref(n), "vars expands into %d scenarios of %d values each, more than acprun reads at once (%d values): split the scenario",
			len(sets), values, maxExpandedValues)
		sets = sets[:1]
	}
	out := make([]expansion, 0, len(sets))
	for _, s := range sets {
		out = append(out, expansion{root: p.substitute(root, s.vars), set: s})
	}
	return out
}

// nameValueSets makes each problem that only some of the scenarios a
// document expands into have say the value set of its scenario, as its
// name shows it ("value set lang=go,level=2: …"): the problem is in those
// values, and the place it is at is the same in every scenario. A problem
// that every one of them has is the document's, said once as it is.
// probs holds the problems of each expansion of exps (its errors and its
// unset variables), in their order.
func nameValueSets(exps []expansion, probs [][]*srcerr.Error) {
	if len(exps) < 2 {
		return
	}
	in := map[srcerr.Error]int{} // how many expansions have the problem
	for _, ps := range probs {
		seen := map[srcerr.Error]bool{}
		for _, e := range ps {
			if !seen[*e] {
				seen[*e] = true
				in[*e]++
			}
		}
	}
	for i, ps := range probs {
		for _, e := range ps { // in no other expansion: renaming it changes no count
			if in[*e] < len(exps) {
				e.Msg = termtext.Printable("value set "+exps[i].set.key()+": ") + e.Msg
			}
		}
	}
}

// topValue is the value of key in the mapping root (merge keys
// followed), or nil; what is wrong with root is reported when it is read.
func topValue(root *yaml.Node, key string) *yaml.Node {
	pairs, _, _ := yamlnode.Pairs(root, yamlnode.Options{Merge: true})
	for _, kv := range pairs {
		if kv.Key == key {
			return kv.V
		}
	}
	return nil
}

// scenarioAt names the scenario of the document root, for a problem
// reported in another file: `scenario "NAME" at FILE:LINE:COL`, without
// the name when it has none.
func (p *fileParser) scenarioAt(root *yaml.Node) string {
	at := p.pos(yamlnode.Deref(root))
	if n := topValue(root, "name"); n != nil {
		if n = yamlnode.Deref(n); n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) != "" {
			return fmt.Sprintf("scenario %q at %s", n.Value, at)
		}
	}
	return "scenario at " + at.String()
}

// varSets reads vars: a mapping of names to a value or a list of values,
// the matrix of every combination (the first name's values vary
// slowest), or a list of such mappings, whose matrices follow one
// another. Every mapping names the same variables. It returns the sets
// and the names, in the order the first mapping gives them.
func (p *fileParser) varSets(n *yaml.Node) ([]valueSet, []string) {
	n = yamlnode.Deref(n)
	var maps []*yaml.Node
	switch n.Kind {
	case yaml.MappingNode:
		maps = []*yaml.Node{n}
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			p.Errorf(n, "vars is empty: give the values of each variable, such as {lang: [go, rust]}")
			return nil, nil
		}
		for _, item := range n.Content {
			maps = append(maps, yamlnode.Deref(item))
		}
	default:
		p.Expected(n, "vars: a mapping of names to values (each combination is a scenario), or a list of such mappings")
		return nil, nil
	}
	var sets []valueSet
	var names []string
	seen := map[string]Pos{}
	for i, m := range maps {
		matrix, mnames, ok := p.varMatrix(m)
		if !ok {
			continue
		}
		if names == nil {
			names = mnames
		} else if !sameNames(names, mnames) {
			p.Errorf(m, "this value set names %s, the first (line %d) %s: every value set of vars names the same variables",
				strings.Join(mnames, ", "), yamlnode.Deref(maps[0]).Line, strings.Join(names, ", "))
			continue
		}
		if len(sets)+len(matrix) > MaxVarSets {
			p.Errorf(maps[i], "vars expands into more than %d scenarios: split the scenario, or list the value sets you need", MaxVarSets)
			return sets, names
		}
		for _, s := range matrix {
			s.vars = inOrder(s.vars, names)
			if first, dup := seen[s.key()]; dup {
				p.errorAt(s.pos, "the values %s are given twice (first at line %d): each value set is one scenario", s.key(), first.Line)
				continue
			}
			seen[s.key()] = s.pos
			sets = append(sets, s)
		}
	}
	return sets, names
}

// varMatrix reads one mapping of vars: its sets, every combination of its
// values, and its names.
func (p *fileParser) varMatrix(n *yaml.Node) ([]valueSet, []string, bool) {
	m, ok := p.mapping(n, nil, nil)
	if !ok {
		return nil, nil, false
	}
	if len(m.pairs) == 0 {
		if m.empty() {
			p.Errorf(m.n, "vars is empty: give the values of each variable, such as {lang: [go, rust]}")
		}
		return nil, nil, false
	}
	var names []string
	var values [][]*yaml.Node
	count := 1
	good := true
	for _, kv := range m.pairs {
		if !validVarName(kv.Key) {
			p.Errorf(kv.K, "bad variable name %q: use letters, digits and _, not starting with a digit ({{.%s}} must name it)", kv.Key, kv.Key)
			good = false
			continue
		}
		vals := p.varValues(kv.Key, kv.V)
		if vals == nil {
			good = false
			continue
		}
		names = append(names, kv.Key)
		values = append(values, vals)
		count *= len(vals)
		if count > MaxVarSets {
			p.Errorf(m.n, "vars expands into more than %d scenarios: split the scenario, or list the value sets you need", MaxVarSets)
			return nil, nil, false
		}
	}
	if !good {
		return nil, nil, false
	}
	sets := []valueSet{{pos: p.pos(m.n)}}
	for i, vals := range values {
		var next []valueSet
		for _, s := range sets {
			for _, v := range vals {
				pos := s.pos
				if len(vals) > 1 {
					pos = p.pos(v) // where the last value that varies is
				}
				next = append(next, valueSet{vars: append(slices.Clone(s.vars), Var{names[i], v.Value}), pos: pos})
			}
		}
		sets = next
	}
	return sets, names, true
}

// varValues reads the values of the variable name: a value, or a
// non-empty list of them; each a string, number or boolean, taken as
// written, without control characters, line separators or bidi controls
// (see unprintableChar). It returns nil
// on a problem.
func (p *fileParser) varValues(name string, n *yaml.Node) []*yaml.Node {
	n = yamlnode.Deref(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		if len(n.Content) == 0 {
			p.Errorf(n, "%s has no values: give at least one", name)
			return nil
		}
		items = n.Content
	}
	var out []*yaml.Node
	good := true
	for _, v := range items {
		v = yamlnode.Deref(v)
		if v.Kind != yaml.ScalarNode || yamlnode.IsNull(v) {
			p.Expected(v, fmt.Sprintf("a value of %s (a string, number or boolean)", name))
			return nil
		}
		if r, ok := unprintableChar(v.Value); ok {
			p.Errorf(v, `the value %s=%q holds %s: the scenario's name shows every value of vars, and a name is one line of printable text (for a longer text, give the path of a file that holds it: prompt: [{file: "{{.%s}}"}])`, name, v.Value, describeChar(r), name)
			good = false
		}
		out = append(out, v)
	}
	if !good {
		return nil
	}
	return out
}

// sameNames reports whether a and b hold the same names, in any order.
func sameNames(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}

// inOrder returns vars in the order of names.
func inOrder(vars []Var, names []string) []Var {
	out := make([]Var, 0, len(vars))
	for _, name := range names {
		for _, v := range vars {
			if v.Name == name {
				out = append(out, v)
			}
		}
	}
	return out
}

// template is one {{…}} of a string: the bytes [start, end) stand for the
// value of the variable name or, when name is "", for literal (a quoted
// Go string: {{"{{"}} is "{{").
type template struct {
	start, end int
	name       string
	literal    string
}

// templates finds the {{…}} of s. Each is {{.NAME}} or a quoted Go
// string, with blanks allowed inside the braces; any other is a problem,
// at its "{{".
func templates(s string) ([]template, []problem) {
	var out []template
	var probs []problem
	for i := 0; ; {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			return out, probs
		}
		start := i + j
		k := closingBraces(s, start+2)
		if k < 0 {
			probs = append(probs, problem{off: start, msg: `unterminated {{: write {{.NAME}} for a value of vars, or {{"{{"}} for a literal {{`})
			return out, probs
		}
		t := template{start: start, end: k + 2}
		i = t.end
		inner := strings.TrimSpace(s[start+2 : k])
		switch {
		case strings.HasPrefix(inner, ".") && validVarName(inner[1:]):
			t.name = inner[1:]
		case strings.HasPrefix(inner, `"`) || strings.HasPrefix(inner, "`"):
			lit, err := strconv.Unquote(inner)
			if err != nil {
				probs = append(probs, problem{off: start, msg: fmt.Sprintf("bad string %s in %s: %v", inner, s[start:t.end], err)})
				continue
			}
			t.literal = lit
		default:
			probs = append(probs, problem{off: start, msg: fmt.Sprintf(`bad template %s: write {{.NAME}} for a value of vars, or {{"{{"}} for a literal {{`, s[start:t.end])})
			continue
		}
		out = append(out, t)
	}
}

// closingBraces is the index of the "}}" that closes a template whose
// text starts at from: the first outside a quoted string; -1 when none.
func closingBraces(s string, from int) int {
	var quote byte
	for i := from; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '`':
			quote = c
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			return i
		}
	}
	return -1
}

// render replaces the templates of s with the values of vars and their
// literals. A template naming no variable of vars is kept as written (it
// was reported).
func render(s string, vars []Var) string {
	ts, _ := templates(s)
	if len(ts) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, t := range ts {
		b.WriteString(s[last:t.start])
		last = t.end
		if t.name == "" {
			b.WriteString(t.literal)
			continue
		}
		i := slices.IndexFunc(vars, func(v Var) bool { return v.Name == t.name })
		if i < 0 {
			b.WriteString(s[t.start:t.end])
			continue
		}
		b.WriteString(vars[i].Value)
	}
	b.WriteString(s[last:])
	return b.String()
}

// templated visits every key and value of the document root that
// templates apply to: all but name and vars, and what is under them.
// Each node is visited once, however many aliases lead to it.
func templated(root *yaml.Node, visit func(*yaml.Node)) {
	root = yamlnode.Deref(root)
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Kind == yaml.AliasNode {
			walk(n.Alias)
			return
		}
		if n.Kind == yaml.ScalarNode {
			visit(n)
			return
		}
		for i, c := range n.Content {
			if n == root && i%2 == 1 && isUntemplated(n.Content[i-1]) || n == root && i%2 == 0 && isUntemplated(c) {
				continue
			}
			walk(c)
		}
	}
	walk(root)
}

// isUntemplated reports whether a key of the document's mapping is one
// whose value keeps its {{: the name (the expanded scenarios' names are
// made from it) and vars itself.
func isUntemplated(key *yaml.Node) bool {
	return key.Kind == yaml.ScalarNode && (key.Value == "name" || key.Value == "vars")
}

// nameTemplates warns of a template of vars in the name of the document
// root: a name keeps its {{ as written, and each scenario is named by its
// values (first is the first value set, for the example).
func (p *fileParser) nameTemplates(root *yaml.Node, names []string, first valueSet) {
	n := yamlnode.Deref(topValue(root, "name"))
	if n == nil || n.Kind != yaml.ScalarNode {
		return
	}
	ts, _ := templates(n.Value)
	for _, t := range ts {
		if t.name == "" || !slices.Contains(names, t.name) {
			continue
		}
		tmpl := n.Value[t.start:t.end]
		p.warnf(p.posIn(n, t.start), "%s stays as written in the name, which is not templated: vars names each scenario by its values (%s[%s]); leave %s out of the name",
			tmpl, n.Value, first.key(), tmpl)
		return
	}
}

// checkTemplates reports every template of the document root that is
// malformed or names no variable of names, at its "{{"; vars says whose
// names they are.
func (p *fileParser) checkTemplates(root *yaml.Node, names []string, vars string) {
	templated(root, func(n *yaml.Node) {
		if !strings.Contains(n.Value, "{{") {
			return
		}
		ts, probs := templates(n.Value)
		for _, pr := range probs {
			p.errorAt(p.posIn(n, pr.off), "%s", pr.msg)
			p.Reported(n) // not also a value its text is not
		}
		for _, t := range ts {
			if t.name == "" || names == nil || slices.Contains(names, t.name) { // nil: vars is wrong, and was reported
				continue
			}
			p.Reported(n)
			hint := "vars has " + strings.Join(names, ", ")
			if s, ok := suggest.Closest(t.name, names); ok {
				hint = "did you mean " + s + "?"
			}
			p.errorAt(p.posIn(n, t.start), "%s: %s has no %s (%s)", n.Value[t.start:t.end], vars, t.name, hint)
		}
	})
}

// substitute returns a copy of the document root with the templates of
// every key and value they apply to rendered with vars; nodes without
// any are shared, and so are aliases (an anchor's copy is the one every
// alias of it points to). A value that is one template alone, of a value
// that YAML reads as a number or a boolean, becomes that number or
// boolean ("{{.retries}}" with retries 2 is the number 2). A copy of
// what an alias stands for stays one (see yamlnode.Reader.Copied).
func (p *fileParser) substitute(root *yaml.Node, vars []Var) *yaml.Node {
	apply := map[*yaml.Node]bool{}
	templated(root, func(n *yaml.Node) { apply[n] = strings.Contains(n.Value, "{{") })
	copies := map[*yaml.Node]*yaml.Node{}
	var cp func(n *yaml.Node) *yaml.Node
	cp = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := copies[n]; ok {
			return c
		}
		c := *n
		copies[n] = &c
		p.Copied(&c, n)
		switch n.Kind {
		case yaml.AliasNode:
			c.Alias = cp(n.Alias)
		case yaml.ScalarNode:
			if apply[n] {
				c.Value = render(n.Value, vars)
				if ts, _ := templates(n.Value); len(ts) == 1 && ts[0].start == 0 && ts[0].end == len(n.Value) && ts[0].name != "" {
					retag(&c)
				}
			}
		default:
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, child := range n.Content {
				c.Content[i] = cp(child)
			}
		}
		return &c
	}
	return cp(root)
}

// retag makes a scalar that was one template alone the number or boolean
// its new value is in YAML, if it is one; otherwise it stays a string.
func retag(n *yaml.Node) {
	plain := yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}
	switch plain.ShortTag() {
	case "!!int", "!!float", "!!bool":
		n.Tag, n.Style = plain.ShortTag(), 0
	}
}
