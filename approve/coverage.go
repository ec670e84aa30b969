package approve

import (
	"fmt"
	"slices"
)

// coverage records which allow rules' command patterns match which
// commands of a call: each command as written, and each of its units
// (allowUnits). A command is allowed when an admitted rule (one whose other
// matchers hold) matches it as written, or when admitted rules match every
// one of its units; different commands and units may be allowed by
// different rules. No rule matches an unresolvable command (call.unresolved)
// or its units.
type coverage struct {
	rules    []Rule
	c        *call
	whole    [][]bool   // whole[i][j]: rule i matches command j as written; nil without a command matcher
	unit     [][][]bool // unit[i][j][k]: rule i matches unit k of command j
	admitted []bool     // admitted[i]: rule i's matchers other than command hold
}

func newCoverage(rules []Rule, c *call) *coverage {
	n := len(c.commands)
	cv := &coverage{rules: rules, c: c,
		whole: make([][]bool, len(rules)), unit: make([][][]bool, len(rules)), admitted: make([]bool, len(rules))}
	for i, r := range rules {
		if len(r.Command) == 0 {
			continue
		}
		cv.whole[i] = make([]bool, n)
		cv.unit[i] = make([][]bool, n)
		for j, cmd := range c.commands {
			cv.unit[i][j] = make([]bool, len(c.units[j]))
			if c.unresolved[j] != "" {
				continue
			}
			cv.whole[i][j] = firstMatch(r.Command, cmd) != ""
			for k, u := range c.units[j] {
				cv.unit[i][j][k] = u == cmd && cv.whole[i][j] || u != cmd && firstMatch(r.Command, u) != ""
			}
		}
	}
	return cv
}

// admit records that rule i's matchers other than command hold.
func (cv *coverage) admit(i int) { cv.admitted[i] = true }

// only returns the coverage of the admitted rules for which keep holds.
func (cv *coverage) only(keep func(i int) bool) *coverage {
	sub := *cv
	sub.admitted = make([]bool, len(cv.admitted))
	for i, ok := range cv.admitted {
		sub.admitted[i] = ok && keep(i)
	}
	return &sub
}

// by returns the first admitted rule that matches command j as written,
// or with k >= 0 its unit k; -1 when none does.
func (cv *coverage) by(j, k int) int {
	for i, ok := range cv.admitted {
		if ok && (k < 0 && cv.whole[i][j] || k >= 0 && cv.unit[i][j][k]) {
			return i
		}
	}
	return -1
}

// allowed reports whether command j is allowed by the admitted rules.
func (cv *coverage) allowed(j int) bool {
	if cv.by(j, -1) >= 0 {
		return true
	}
	for k := range cv.c.units[j] {
		if cv.by(j, k) < 0 {
			return false
		}
	}
	return true
}

// uncovered returns the units of the commands that are not allowed which
// no admitted rule matches.
func (cv *coverage) uncovered() []string {
	var out []string
	seen := map[string]bool{} // a command line may hold many thousands
	for j := range cv.c.commands {
		if cv.allowed(j) {
			continue
		}
		for k, u := range cv.c.units[j] {
			if cv.by(j, k) < 0 && !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// contributes reports whether rule i matches some command or unit.
func (cv *coverage) contributes(i int) bool {
	for j := range cv.c.commands {
		if cv.whole[i][j] || slices.Contains(cv.unit[i][j], true) {
			return true
		}
	}
	return false
}

// byOther names the rule that allows unit k of command j (as part of the
// command as written, when a rule matches that).
func (cv *coverage) byOther(j, k int) (string, bool) {
	i := cv.by(j, -1)
	if i < 0 {
		i = cv.by(j, k)
	}
	if i < 0 {
		return "", false
	}
	return ruleName(ListAllow, i, cv.rules[i]), true
}

// evidence returns what rule i allows (commands as written, or units) and
// what other rules allow, for a Decision's Reason.
func (cv *coverage) evidence(i int) (mine, others []string) {
	q := cv.c.q
	for j, cmd := range cv.c.commands {
		if cv.whole[i][j] {
			mine = append(mine, cmd)
			continue
		}
		for k, u := range cv.c.units[j] {
			if cv.unit[i][j][k] {
				mine = append(mine, u)
			} else if by, ok := cv.byOther(j, k); ok {
				others = append(others, fmt.Sprintf("command %s allowed by %s", q.quote(u), by))
			}
		}
	}
	return mine, others
}

// why explains rule i's command matcher, one line per command or unit.
func (cv *coverage) why(i int) []string {
	q := cv.c.q
	if len(cv.c.commands) == 0 {
		return []string{"command: the call runs no command"}
	}
	patterns := cv.rules[i].Command
	var why []string
	for j, cmd := range cv.c.commands {
		if u := cv.c.unresolved[j]; u != "" {
			why = append(why, fmt.Sprintf("command %s is unresolvable (%s): no allow pattern matches it", q.quote(cmd), u))
			continue
		}
		if cv.whole[i][j] {
			why = append(why, fmt.Sprintf("command %s matches %s", q.quote(cmd), q.quote(firstMatch(patterns, cmd))))
			continue
		}
		for k, u := range cv.c.units[j] {
			shown := q.quote(u)
			if u != cmd {
				shown += " (in " + q.quote(cmd) + ")"
			}
			if cv.unit[i][j][k] {
				why = append(why, fmt.Sprintf("command %s matches %s", shown, q.quote(firstMatch(patterns, u))))
				continue
			}
			line := fmt.Sprintf("command %s matches none of %s", shown, q.quoteList(patterns))
			if by, ok := cv.byOther(j, k); ok {
				line += " (allowed by " + by + ")"
			} else {
				line += " (and no other allow rule allows it)"
			}
			why = append(why, line)
		}
	}
	return why
}

// firstMatch returns the first of patterns that matches cmd, "" for none.
func firstMatch(patterns []string, cmd string) string {
	for _, pat := range patterns {
		if commandMatch(pat, cmd) {
			return pat
		}
	}
	return ""
}
