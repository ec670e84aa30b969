package scenario

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/yamlnode"
)

// permissions reads the permissions key into a Policy.
func (p *fileParser) permissions(n *yaml.Node, s *Scenario) *approve.Policy {
	pol := &approve.Policy{}
	m, ok := p.mapping(n, permissionKeys, nil)
	if !ok {
		return pol
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "default":
			if s, ok := p.oneOf(kv.V, "default", []string{string(approve.Allow), string(approve.Deny)}, "values", ""); ok {
				pol.Default = approve.Verdict(s)
			}
		case "allow":
			pol.Allow = p.rules(kv.V, approve.Allow)
		case "deny":
			pol.Deny = p.rules(kv.V, approve.Deny)
		case "answerDelay":
			s.AnswerDelay, _ = p.parseDuration(kv.V, true) // a wait that may be none
		case "enforce":
			if e, ok := p.enforceValue(kv.V); ok {
				s.Enforce, s.EnforcePos = e, p.pos(yamlnode.Deref(kv.V))
			}
		}
	}
	nameRules(pol)
	return pol
}

// nameRules names each rule of pol by its file and line ("s.yaml:4"),
// which rules reads as "file:line:col": a rule that shares its line with
// another ([{kind: read}, {kind: edit}], or allow and deny lists on one
// line) keeps its column, so that the results and explain tell which one
// decided.
func nameRules(pol *approve.Policy) {
	line := func(r approve.Rule) string { return r.Pos[:strings.LastIndexByte(r.Pos, ':')] }
	lines := map[string]int{}
	for _, r := range slices.Concat(pol.Allow, pol.Deny) {
		lines[line(r)]++
	}
	for _, rs := range [][]approve.Rule{pol.Allow, pol.Deny} {
		for i := range rs {
			if l := line(rs[i]); lines[l] == 1 {
				rs[i].Pos = l
			}
		}
	}
}

func (p *fileParser) rules(n *yaml.Node, list approve.Verdict) []approve.Rule {
	n, ok := p.Want(n, yaml.SequenceNode, "a list of rules")
	if !ok {
		return nil
	}
	var rules []approve.Rule
	for _, item := range n.Content {
		if r, ok := p.rule(yamlnode.Deref(item), list); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

// rule reads one allow or deny rule, checks it with approve's Validate,
// then checks its examples with approve.CheckExamples. The rule is named
// "file:line:col" (see nameRules).
func (p *fileParser) rule(n *yaml.Node, list approve.Verdict) (approve.Rule, bool) {
	before := len(p.Errs)
	r := approve.Rule{Pos: fmt.Sprintf("%s:%d:%d", p.Name, n.Line, n.Column)}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		p.Errorf(n, "%s", stringRule(n.Value, list))
		return r, false
	}
	m, ok := p.mapping(n, ruleKeys, nil)
	if !ok {
		return r, false
	}
	var examples *yaml.Node
	for _, kv := range m.pairs {
		switch kv.Key {
		case "kind":
			nodes, _ := p.strNodes(kv.V, true, true)
			for _, k := range nodes {
				if s, ok := p.oneOf(k, "permission kind", approve.Kinds(), "kinds", ""); ok {
					r.Kind = append(r.Kind, s)
				}
			}
		case "tool":
			r.Tool = p.patterns(kv.V, approve.CheckNameGlob)
		case "title":
			r.Title = p.patterns(kv.V, approve.CheckNameGlob)
		case "command":
			r.Command = p.patterns(kv.V, nil) // a shell line as written: [ and { are its own
		case "path":
			r.Path = p.patterns(kv.V, approve.CheckPathGlob)
		case "input":
			r.Input = p.inputMatchers(kv.V)
		case "always":
			r.Always, _ = p.boolean(kv.V)
		case "examples":
			examples = kv.V
		}
	}
	if !slices.ContainsFunc(matcherKeys, func(k string) bool { return m.has[k] != nil }) {
		p.Errorf(n, "rule has no matcher: give at least one of kind, tool, title, command, path or input")
	}
	if list != approve.Deny && m.has["path"] != nil && m.has["kind"] == nil && m.has["command"] == nil && m.has["tool"] == nil {
		p.warnf(p.pos(m.has["path"]), "an allow rule with a path and no kind, command or tool also allows any command "+
			"whose redirections stay under it (`rm -rf ~ > src/log`); add kind: [read, edit] or a command")
	}
	var match, noMatch []*yaml.Node
	if examples != nil {
		match, noMatch = p.examples(examples)
	}

	if len(p.Errs) > before {
		return r, false
	}
	for _, msg := range r.Validate() {
		p.Errorf(n, "%s", msg)
	}
	if len(p.Errs) > before {
		return r, false
	}
	if len(r.Command) == 0 && len(match)+len(noMatch) > 0 {
		// Examples are command lines; CheckExamples says why they can't be
		// checked, once.
		for _, msg := range approve.CheckExamples(r, list, values(match), values(noMatch)) {
			p.Errorf(m.has["examples"], "%s", msg)
		}
		return r, len(p.Errs) == before
	}
	for _, ex := range match {
		for _, msg := range approve.CheckExamples(r, list, []string{ex.Value}, nil) {
			p.Errorf(ex, "%s", msg)
		}
	}
	for _, ex := range noMatch {
		for _, msg := range approve.CheckExamples(r, list, nil, []string{ex.Value}) {
			p.Errorf(ex, "%s", msg)
		}
	}
	return r, len(p.Errs) == before
}

// stringRule is the error of a rule written as the string s in list, as
// --allow and --deny take a rule: in a file a rule is a mapping, which the
// error shows when s is one of the flags' short forms (approve.ParseFlagRule).
func stringRule(s string, list approve.Verdict) string {
	const msg = "a rule is a mapping of matchers, not a string: write "
	flag := "--" + string(list)
	r, err := approve.ParseFlagRule(flag, s)
	if err != nil {
		return msg + `one such as {kind: read} or {command: "go test *"}`
	}
	var parts []string
	if len(r.Kind) > 0 {
		parts = append(parts, "kind: "+strings.Join(r.Kind, ", "))
	}
	for _, m := range []struct {
		key  string
		vals []string
	}{{"command", r.Command}, {"path", r.Path}, {"title", r.Title}, {"tool", r.Tool}} {
		for _, v := range m.vals {
			parts = append(parts, m.key+": "+strconv.Quote(v))
		}
	}
	return fmt.Sprintf("%s{%s} (%q is the short form %s takes)", msg, strings.Join(parts, ", "), s, flag)
}

// patterns reads a string or a list of non-empty strings, each checked
// with check (approve.CheckPathGlob or CheckNameGlob) unless it is nil.
func (p *fileParser) patterns(n *yaml.Node, check func(string) error) []string {
	nodes, _ := p.strNodes(n, true, true)
	var out []string
	for _, s := range nodes {
		if s.Value == "" {
			p.Errorf(s, "empty pattern")
			continue
		}
		if check != nil {
			if err := check(s.Value); err != nil {
				p.Errorf(s, "%v", err)
				continue
			}
		}
		out = append(out, s.Value)
	}
	return out
}

// inputMatchers reads a mapping of rawInput field paths to RE2 regexps.
func (p *fileParser) inputMatchers(n *yaml.Node) map[string]string {
	n, ok := p.Want(n, yaml.MappingNode, "a mapping of input fields to regular expressions")
	if !ok {
		return nil
	}
	if len(n.Content) == 0 {
		p.Errorf(n, "input is empty: map at least one input field to a regular expression")
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := yamlnode.Deref(n.Content[i]), yamlnode.Deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" || k.Value == "" {
			p.Expected(k, "an input field name such as command or url")
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.Errorf(k, "duplicate key %q", k.Value)
			continue
		}
		s, ok := p.str(v)
		if !ok {
			continue
		}
		if _, err := regexp.Compile(s); err != nil {
			p.Errorf(v, "bad regular expression for input %q: %v", k.Value, err)
			continue
		}
		out[k.Value] = s
	}
	return out
}

// examples reads a rule's examples: match and noMatch lists.
func (p *fileParser) examples(n *yaml.Node) (match, noMatch []*yaml.Node) {
	m, ok := p.mapping(n, exampleKeys, nil)
	if !ok {
		return nil, nil
	}
	for _, kv := range m.pairs {
		nodes, _ := p.strNodes(kv.V, true, false)
		if kv.Key == "match" {
			match = nodes
		} else {
			noMatch = nodes
		}
	}
	return match, noMatch
}

// values are the texts of scalar nodes.
func values(nodes []*yaml.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Value
	}
	return out
}
