package approve

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Kinds are the ToolKind values of the ACP schema, the values a rule's
// kind matcher may name.
func Kinds() []string {
	return []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}
}

// Validate reports what is wrong with a rule, one message per problem
// (without the rule's position): no matcher, an unknown kind, an empty
// pattern, a path, tool or title glob that CheckPathGlob or CheckNameGlob
// refuses, a bad input field path or regex.
// A rule that validates still cannot make Decide panic; one that does not
// is simply partly unable to match.
func (r Rule) Validate() []string {
	var msgs []string
	if !hasMatcher(r) {
		msgs = append(msgs, "rule has no matcher: give at least one of kind, tool, title, command, path, input")
	}
	for _, k := range r.Kind {
		switch {
		case k == "":
			msgs = append(msgs, "kind: empty value")
		case !slices.Contains(Kinds(), k):
			msgs = append(msgs, fmt.Sprintf("kind: unknown tool kind %q (want one of %s)", k, strings.Join(Kinds(), ", ")))
		}
	}
	for _, m := range []struct {
		name     string
		patterns []string
	}{{"tool", r.Tool}, {"title", r.Title}} {
		for _, t := range m.patterns {
			if t == "" {
				msgs = append(msgs, m.name+": empty pattern")
			} else if err := CheckNameGlob(t); err != nil {
				msgs = append(msgs, m.name+": "+err.Error())
			}
		}
	}
	for _, c := range r.Command {
		if strings.TrimSpace(c) == "" {
			msgs = append(msgs, "command: empty pattern")
		}
	}
	for _, p := range r.Path {
		if strings.TrimSpace(p) == "" {
			msgs = append(msgs, "path: empty pattern")
		} else if err := CheckPathGlob(p); err != nil {
			msgs = append(msgs, "path: "+err.Error())
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Input)) {
		if k == "" || slices.Contains(strings.Split(k, "."), "") {
			msgs = append(msgs, fmt.Sprintf("input: bad field path %q", k))
		}
		if _, err := regexp.Compile(r.Input[k]); err != nil {
			msgs = append(msgs, fmt.Sprintf("input %s: bad regex: %v", k, err))
		}
	}
	return msgs
}

// CheckExamples checks a rule's examples, shell command lines, against its
// command matcher with the semantics of the list the rule is in (list is
// Deny for a deny rule, anything else means allow): for an allow rule an
// example matches when every simple command of it is matched by one of the
// rule's command patterns; for a deny rule when any simple command (in any
// of its deny forms, see SplitCommands and Policy.Decide) is. The rule's
// other matchers are ignored. It returns one message per failing example.
// A message quotes the example, the command that decided and the patterns
// whole, never cut: the caller redacts the message as a whole, and a cut
// would leave there the start of a secret it went through, which a
// redactor no longer recognizes (the example is quoted whole already).
func CheckExamples(r Rule, list Verdict, match, noMatch []string) []string {
	if len(match)+len(noMatch) == 0 {
		return nil
	}
	if len(r.Command) == 0 {
		return []string{"examples need a command matcher: they are command lines checked against command"}
	}
	var msgs []string
	for _, ex := range match {
		if ok, detail := exampleMatches(r.Command, list, ex); !ok {
			msgs = append(msgs, fmt.Sprintf("example %q should match but does not%s", ex, detail))
		}
	}
	for _, ex := range noMatch {
		if ok, detail := exampleMatches(r.Command, list, ex); ok {
			msgs = append(msgs, fmt.Sprintf("example %q should not match but does%s", ex, detail))
		}
	}
	return msgs
}

// exampleMatches evaluates one example; detail names the deciding command
// when that helps, quoted whole (see CheckExamples).
func exampleMatches(patterns []string, list Verdict, example string) (bool, string) {
	cmds, pieces := splitLine(example)
	if len(cmds) == 0 {
		return false, " (it has no command)"
	}
	if list == Deny {
		for _, cmd := range cmds {
			forms, complete, unresolved := denyForms(cmd, pieces[cmd])
			_, pat, ok := denyMatch(patterns, forms, complete && unresolved == "")
			switch {
			case ok && pat == "" && unresolved != "":
				return true, fmt.Sprintf(" (%s is unresolvable: %s)", strconv.Quote(cmd), unresolved)
			case ok:
				return true, fmt.Sprintf(" (%s matches %s)", strconv.Quote(cmd), strconv.Quote(pat))
			}
		}
		return false, ""
	}
	for _, cmd := range cmds {
		units, unresolved := allowUnits(cmd, pieces[cmd])
		if unresolved != "" {
			return false, fmt.Sprintf(" (%s is unresolvable: %s)", strconv.Quote(cmd), unresolved)
		}
		if firstMatch(patterns, cmd) != "" {
			continue
		}
		for _, u := range units {
			if firstMatch(patterns, u) == "" {
				return false, fmt.Sprintf(" (%s matches none of %s)", strconv.Quote(u), wholeList(patterns))
			}
		}
	}
	return true, ""
}

// wholeList quotes each of ss whole, as strconv.Quote does, in brackets:
// a reason's quoteList without its cut.
func wholeList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, " ") + "]"
}
