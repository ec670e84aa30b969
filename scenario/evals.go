package scenario

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/suggest"
	"github.com/acprun/acprun/internal/yamlnode"
)

// toolCallsExpect reads expect.toolCalls.
func (p *fileParser) toolCallsExpect(n *yaml.Node) *ToolCallsExpect {
	n = yamlnode.Deref(n)
	e := &ToolCallsExpect{Pos: p.pos(n)}
	m, ok := p.mapping(n, toolCallsKeys, nil)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "used":
			e.Used = p.toolPatterns(kv.V)
		case "notUsed":
			e.NotUsed = p.toolPatterns(kv.V)
		case "count":
			e.Count = p.toolCounts(kv.V)
		case "status":
			v := yamlnode.Deref(kv.V)
			if s, ok := p.oneOf(v, "tool call status", toolCallStatuses, "statuses", ""); ok {
				e.Status = Located{Pos: p.pos(v), Value: s}
			}
		case "sequence":
			e.Sequence = p.toolPatterns(kv.V)
		}
	}
	p.contradicts(e.Used, e.NotUsed, "used", "notUsed")
	p.outOfReach(e)
	p.needsOne(m, "toolCalls", toolCallsKeys)
	return e
}

// bound is how many tool calls matching a pattern an expectation needs at
// least, or allows at most, and where it says so.
type bound struct {
	n    int
	pos  Pos
	what string // "count", "notUsed", "used", "sequence"
}

// outOfReach reports each pattern e needs more tool calls of than it
// allows (used or sequence against a count or notUsed, a count against
// notUsed): no run can meet it. used against notUsed is contradicts'.
func (p *fileParser) outOfReach(e *ToolCallsExpect) {
	least, most := map[string]bound{}, map[string]bound{}
	var order []string // the patterns needed, in the order first written
	need := func(pattern string, b bound) {
		cur, ok := least[pattern]
		if !ok {
			order = append(order, pattern)
		}
		if !ok || b.n > cur.n {
			least[pattern] = b
		}
	}
	allow := func(pattern string, b bound) {
		if cur, ok := most[pattern]; !ok || b.n < cur.n {
			most[pattern] = b
		}
	}
	for _, l := range e.Used {
		need(l.Value, bound{1, l.Pos, "used"})
	}
	times := map[string]int{}
	for _, l := range e.Sequence {
		times[l.Value]++
		need(l.Value, bound{times[l.Value], l.Pos, "sequence"})
	}
	for _, c := range e.Count {
		if c.Op != "<=" {
			need(c.Pattern, bound{c.N, c.Pos, "count"})
		}
		if c.Op != ">=" {
			allow(c.Pattern, bound{c.N, c.Pos, "count"})
		}
	}
	for _, l := range e.NotUsed {
		allow(l.Value, bound{0, l.Pos, "notUsed"})
	}
	for _, pattern := range order {
		lo := least[pattern]
		hi, ok := most[pattern]
		if !ok || lo.n <= hi.n || lo.what == "used" && hi.what == "notUsed" {
			continue
		}
		at, other := hi, lo // at the one written last; the other's line named when it differs
		if lo.pos.Line > hi.pos.Line || lo.pos.Line == hi.pos.Line && lo.pos.Col > hi.pos.Col {
			at, other = lo, hi
		}
		loWhat, hiWhat := lo.what, hi.what
		if other.pos.Line != at.pos.Line {
			where := fmt.Sprintf(" (line %d)", other.pos.Line)
			if other == lo {
				loWhat += where
			} else {
				hiWhat += where
			}
		}
		needs, allows := fmt.Sprintf("at least %d tool calls", lo.n), fmt.Sprintf("at most %d", hi.n)
		if lo.n == 1 {
			needs = "a tool call"
		}
		if hi.n == 0 {
			allows = "none"
		}
		p.errorAt(at.pos, "%q: %s needs %s matching it, and %s allows %s: no run can meet both", pattern, loWhat, needs, hiWhat, allows)
	}
}

// toolPatterns reads a string or a list of tool call patterns: a tool kind
// (one of ToolKinds) or a glob on the title or the tool name. A word that
// is no kind but close to one is taken as a title or name, with a warning.
func (p *fileParser) toolPatterns(n *yaml.Node) []Located {
	nodes, _ := p.strNodes(n, true, true)
	var out []Located
	for _, s := range nodes {
		if l, ok := p.toolPattern(s, s.Value); ok {
			out = append(out, l)
		}
	}
	return out
}

// toolPattern checks one tool call pattern, value, written at n (a value
// or a key).
func (p *fileParser) toolPattern(n *yaml.Node, value string) (Located, bool) {
	l := Located{Pos: p.pos(n), Value: value}
	if strings.TrimSpace(value) == "" {
		p.Errorf(n, "empty pattern: give a tool kind (%s) or a glob on the tool call's title or tool name", strings.Join(ToolKinds, ", "))
		return l, false
	}
	if slices.Contains(ToolKinds, value) {
		return l, true
	}
	if err := approve.CheckNameGlob(value); err != nil {
		p.Errorf(n, "%v", err)
		return l, false
	}
	if !strings.ContainsAny(value, "*? ") {
		if kind, ok := suggest.Closest(value, ToolKinds); ok {
			p.warnf(l.Pos, "%q is not a tool kind (did you mean %q?), so it matches only a tool call titled or named %q", value, kind, value)
		}
	}
	return l, true
}

// contradicts reports each pattern of b that a lists too: the expectation
// could never hold.
func (p *fileParser) contradicts(a, b []Located, aKey, bKey string) {
	for _, x := range b {
		if i := slices.IndexFunc(a, func(y Located) bool { return y.Value == x.Value }); i >= 0 {
			p.errorAt(x.Pos, "%q is in both %s (line %d) and %s: no run can meet both", x.Value, aKey, a[i].Pos.Line, bKey)
		}
	}
}

// countRE is a count of tool calls written as a string: N, ==N, <=N or
// >=N, with blanks allowed around the parts.
var countRE = regexp.MustCompile(`^\s*(==|<=|>=)?\s*(\d+)\s*$`)

// toolCounts reads toolCalls.count: patterns mapped to counts. A count
// that could never fail (">=0") is an error.
func (p *fileParser) toolCounts(n *yaml.Node) []CountExpect {
	m, ok := p.mapping(n, nil, nil)
	if !ok {
		return nil
	}
	if len(m.pairs) == 0 {
		if m.empty() {
			p.Errorf(m.n, "count is empty: map tool kinds or title globs to counts, such as {execute: \"<=2\", edit: 1}")
		}
		return nil
	}
	var out []CountExpect
	for _, kv := range m.pairs {
		if _, ok := p.toolPattern(kv.K, kv.Key); !ok {
			continue
		}
		v := yamlnode.Deref(kv.V)
		c := CountExpect{Pos: p.pos(v), Pattern: kv.Key, Op: "=="}
		bad := func() {
			p.Errorf(v, "bad count %q for %q: use a whole number N (exactly N calls), \"<=N\" (at most) or \">=N\" (at least)", v.Value, kv.Key)
		}
		i, whole, err := wholeValue(v)
		switch {
		case v.Kind != yaml.ScalarNode || yamlnode.IsNull(v) || v.ShortTag() == "!!bool":
			p.Expected(v, `a count (N, "<=N" or ">=N")`)
			continue
		case whole:
			if err != nil || i < 0 || i > math.MaxInt32 {
				bad()
				continue
			}
			c.N = int(i)
		default:
			sub := countRE.FindStringSubmatch(v.Value)
			if sub == nil {
				bad()
				continue
			}
			i, err := strconv.ParseInt(sub[2], 10, 32)
			if err != nil {
				bad()
				continue
			}
			c.N = int(i)
			if sub[1] != "" {
				c.Op = sub[1]
			}
		}
		if c.Op == ">=" && c.N == 0 {
			p.Errorf(v, "count %q for %q: at least 0 calls is any number of calls, so it could never fail; give \">=1\" (at least one call) or 0 (none)", v.Value, kv.Key)
			continue
		}
		out = append(out, c)
	}
	return out
}

// filesExpect reads expect.files.
func (p *fileParser) filesExpect(n *yaml.Node) *FilesExpect {
	n = yamlnode.Deref(n)
	e := &FilesExpect{Pos: p.pos(n)}
	m, ok := p.mapping(n, filesKeys, nil)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "exists":
			e.Exists = p.relPaths(kv.V, false)
		case "absent":
			e.Absent = p.absentPaths(kv.V)
		case "contains":
			p.pathMap(kv.V, "contains", "the text each must contain", func(k, v *yaml.Node, path string) {
				nodes, _ := p.strNodes(v, true, true)
				for _, t := range nodes {
					if t.Value == "" {
						p.Errorf(t, "empty text: give the text %s must contain", path)
						continue
					}
					e.Contains = append(e.Contains, FileText{Pos: p.pos(t), Path: path, Text: t.Value})
				}
			})
		case "matches":
			p.pathMap(kv.V, "matches", "a regular expression each must match", func(k, v *yaml.Node, path string) {
				if re, ok := p.wantedPattern(v, "matches", "file", "so it could never fail; give what must appear"); ok {
					e.Matches = append(e.Matches, FileRegexp{Pos: p.pos(yamlnode.Deref(v)), Path: path, Re: re})
				}
			})
		case "unchanged":
			p.unchanged = append(p.unchanged, kv.K)
			e.Unchanged = p.relPaths(kv.V, true)
		case "golden":
			p.pathMap(kv.V, "golden", "golden files (relative to this file)", func(k, v *yaml.Node, path string) {
				s, ok := p.interp(v)
				if !ok {
					return
				}
				if golden, ok := p.existingFile(yamlnode.Deref(v), "golden file", s, -1); ok {
					e.Golden = append(e.Golden, FileGolden{Pos: p.pos(yamlnode.Deref(v)), Path: path, Golden: golden})
				}
			})
		}
	}
	p.contradicts(e.Exists, e.Absent, "exists", "absent")
	p.needsOne(m, "files", filesKeys)
	return e
}

// relPaths reads a string or a list of paths relative to the workspace:
// globs when glob is set, else each a path or, when it has glob characters
// (see IsGlob), a glob. A path with the shell's {a,b} is checked as a glob,
// which refuses it: taken as one path, files.absent of it could never
// fail.
func (p *fileParser) relPaths(n *yaml.Node, glob bool) []Located {
	nodes, _ := p.strNodes(n, true, true)
	var out []Located
	for _, s := range nodes {
		if rel, ok := p.relPath(s, s.Value, glob || IsGlob(s.Value) || shellBraces(s.Value)); ok {
			out = append(out, Located{Pos: p.pos(s), Value: rel})
		}
	}
	return out
}

// relPath checks a path (a glob when glob is set) of the workspace, as
// written at n, and returns it cleaned, with slashes. A glob ending in /
// stands for everything under that directory.
func (p *fileParser) relPath(n *yaml.Node, s string, glob bool) (string, bool) {
	what := "path"
	if glob {
		what = "pattern"
	}
	switch {
	case s == "":
		p.Errorf(n, "%s is empty", what)
		return "", false
	case !p.noNUL(n, s):
		return "", false
	case strings.HasPrefix(s, "/"):
		p.Errorf(n, "%s %q is absolute: paths here are relative to the workspace (or the session cwd)", what, s)
		return "", false
	case slices.Contains(strings.Split(s, "/"), ".."):
		p.Errorf(n, "%s %q uses ..: write it relative to the workspace (or the session cwd), without ..", what, s)
		return "", false
	}
	dir := glob && strings.HasSuffix(s, "/")
	rel := path.Clean(s)
	if rel == "." {
		if glob {
			p.Errorf(n, "pattern %q names the workspace itself: write ** for every path in it", s)
		} else {
			p.Errorf(n, "path %q names the workspace itself: name a file or directory in it", s)
		}
		return "", false
	}
	if dir {
		rel += "/**"
	}
	if glob {
		// Here a trailing / stands for the directory's tree (rel has /**).
		if err := approve.CheckPathGlob(strings.TrimRight(s, "/")); err != nil {
			p.Errorf(n, "%v", err)
			return "", false
		}
	}
	return rel, true
}

// absentPaths reads files.absent as relPaths does. A glob in the .git at
// the root, which no glob matches (the files checks skip it), could never
// fail: it is an error at the glob, which says how to check such a path.
func (p *fileParser) absentPaths(n *yaml.Node) []Located {
	var out []Located
	for _, l := range p.relPaths(n, false) {
		if first, _, _ := strings.Cut(l.Value, "/"); first == ".git" && IsGlob(l.Value) {
			p.errorAt(l.Pos, "pattern %q is in .git, which the files checks' globs never match, so files.absent of it could never fail: "+
				"name a path without glob characters (such as .git/MERGE_HEAD), or check the repository in a verify command", l.Value)
			continue
		}
		out = append(out, l)
	}
	return out
}

// IsGlob reports whether a path of files.exists or files.absent is a glob,
// one with a glob character (*, ?, [ or \); other paths name one path
// each.
func IsGlob(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// pathMap reads a mapping of workspace paths to values (described by
// what, for the message about an empty one) and calls f for each.
func (p *fileParser) pathMap(n *yaml.Node, key, what string, f func(k, v *yaml.Node, path string)) {
	m, ok := p.mapping(n, nil, nil)
	if !ok {
		return
	}
	if len(m.pairs) == 0 {
		if m.empty() {
			p.Errorf(m.n, "%s is empty: map file paths to %s", key, what)
		}
		return
	}
	for _, kv := range m.pairs {
		if rel, ok := p.relPath(kv.K, kv.Key, false); ok {
			f(kv.K, kv.V, rel)
		}
	}
}

// permissionsExpect reads expect.permissions.
func (p *fileParser) permissionsExpect(n *yaml.Node) *PermissionsExpect {
	n = yamlnode.Deref(n)
	e := &PermissionsExpect{Pos: p.pos(n)}
	m, ok := p.mapping(n, permissionsExpectKeys, nil)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "requested":
			e.Requested = p.toolPatterns(kv.V)
		case "notRequested":
			e.NotRequested = p.toolPatterns(kv.V)
		}
	}
	p.contradicts(e.Requested, e.NotRequested, "requested", "notRequested")
	p.needsOne(m, "permissions", permissionsExpectKeys)
	return e
}

// usageExpect reads expect.usage, or a budget (what is "budget"): the
// same bounds, which the runner enforces while the agent runs.
func (p *fileParser) usageExpect(n *yaml.Node, what string) *UsageExpect {
	n = yamlnode.Deref(n)
	e := &UsageExpect{Pos: p.pos(n)}
	keys, hint := budgetKeys, (func(string) string)(nil)
	if what != "budget" {
		keys, hint = usageKeys, func(k string) string {
			if k == "maxRequests" {
				return "maxRequests is a budget's (budget: {maxRequests: N}): the gateway counts the model requests and stops the turn that would pass it"
			}
			return ""
		}
	}
	m, ok := p.mapping(n, keys, hint)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		v := yamlnode.Deref(kv.V)
		switch kv.Key {
		case "maxTotalTokens":
			if i, ok := p.wholeNumber(v, math.MaxInt64); ok {
				e.MaxTotalTokens, e.MaxTokensPos = &i, p.pos(v)
			}
		case "maxCost":
			if f, ok := p.nonNegativeNumber(v); ok {
				e.MaxCost, e.MaxCostPos = &f, p.pos(v)
			}
		case "maxRequests":
			if i, ok := p.wholeNumber(v, math.MaxInt64); ok {
				e.MaxRequests, e.MaxRequestsPos = &i, p.pos(v)
			}
		}
	}
	p.needsOne(m, what, keys)
	return e
}

// judge reads expect.judge. Its agent is given like the scenario's.
func (p *fileParser) judge(n *yaml.Node) *Judge {
	n = yamlnode.Deref(n)
	j := &Judge{Pos: p.pos(n), Pass: regexp.MustCompile(DefaultJudgePass)}
	m, ok := p.mapping(n, judgeKeys, nil)
	if !ok {
		return j
	}
	for _, kv := range m.pairs {
		v := yamlnode.Deref(kv.V)
		switch kv.Key {
		case "agent":
			j.Agent = p.agentFromSpec(p.agentSpec(v, agentKeys))
			if j.Agent.Cwd != "" {
				p.checkCwd(&j.Agent)
			}
		case "rubric":
			if s, ok := p.str(v); ok {
				if strings.TrimSpace(s) == "" {
					p.Errorf(v, "rubric is empty: say what the judge should check")
				}
				j.Rubric = s
			}
		case "pass":
			if re, ok := p.wantedPattern(v, "pass", "reply", "so every reply would pass: give a regular expression such as ^PASS"); ok {
				j.Pass = re
			}
		case "timeout":
			j.Timeout, _ = p.duration(v)
		}
	}
	p.require(m, "agent", "rubric")
	return j
}
