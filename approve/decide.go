package approve

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acprun/acprun/internal/termtext"
	json "github.com/go-json-experiment/json/v1"
)

// AllowAll returns the policy of --allow-all: no rules, default allow.
func AllowAll() *Policy { return &Policy{Default: Allow, Source: "--allow-all"} }

// DenyAll returns the policy of --deny-all: no rules, default deny.
func DenyAll() *Policy { return &Policy{Default: Deny, Source: "--deny-all"} }

// Decide evaluates req against the policy and selects the option to
// answer with: for allow an allow_once option (allow_always first when the
// rules with Always allow the call on their own: see alwaysAllows), else
// the other allow kind; for deny a
// reject_once option, else reject_always. When the agent offers neither,
// the Decision is Cancelled. An option id is only ever copied from
// req.Options (options with an empty id are ignored, and so are options
// whose id an option of another verdict shares or that would switch the
// agent into one of req.UnaskedModes).
//
// A nil policy denies everything. Decide only reads the policy, so one
// policy may serve many goroutines at once. A malformed rule never panics:
// a bad regex or path pattern simply does not match.
func (p *Policy) Decide(req Request) Decision {
	d, always, _ := p.evaluate(req, false)
	selectOption(&d, always, req)
	return d
}

// Evaluate is Decide without option selection: OptionID and OptionKind
// are empty and Cancelled is false. It serves checks on tool calls that
// were never put to the policy (a terminal command, a call the agent ran
// without asking).
func (p *Policy) Evaluate(req Request) Decision {
	d, _, _ := p.evaluate(req, false)
	return d
}

// Explain is Decide plus a trace of every rule, deny rules first, each in
// list order, telling whether it matched and why, one line per matcher.
func (p *Policy) Explain(req Request) (Decision, []RuleTrace) {
	d, always, traces := p.evaluate(req, true)
	selectOption(&d, always, req)
	return d, traces
}

// call is a Request digested once for all rules.
type call struct {
	kind    string
	tool    string
	title   string
	cwd     string // the session cwd, as given
	resolve func(string) (string, error)
	// cwds is the session cwd, and resolved when that differs; nil until
	// its first use (cwdList): only a path rule looks at the cwd, so a
	// call that meets none does not resolve it.
	cwds     []string
	commands []string
	pieces   map[string]bool // the commands that are no simple command (see splitLine)
	units    [][]string      // units[j]: allowUnits(commands[j])
	// unresolved[j] says why commands[j] (or a command it unwraps into,
	// see allowUnits) is unresolvable, "" when it is not.
	unresolved []string
	forms      []forms // forms[j]: denyForms(commands[j]), made on first use
	paths      []string
	sources    []PathSource // paths[i] is sources[i].Path
	input      any
	q          quoter // quotes the call's values in reasons and traces (Request.Excerpt)
}

func newCall(req Request) *call {
	raw := decodeRaw(req.RawInput)
	c := &call{
		kind:    kindOf(req),
		tool:    req.Tool,
		title:   req.Title,
		cwd:     req.Cwd,
		resolve: req.Resolve,
		sources: pathsOf(req, raw),
		input:   raw,
		q:       req.Excerpt,
	}
	c.commands, c.pieces = commandsOf(req, raw)
	for _, ps := range c.sources {
		c.paths = append(c.paths, ps.Path)
	}
	c.units = make([][]string, len(c.commands))
	c.unresolved = make([]string, len(c.commands))
	for j, cmd := range c.commands {
		if c.units[j], c.unresolved[j] = allowUnits(cmd, c.pieces[cmd]); len(c.units[j]) == 0 {
			c.units[j] = []string{cmd}
		}
	}
	return c
}

// cwdList returns the session cwd, and where the OS resolves it now when
// that differs, made once for all rules.
func (c *call) cwdList() []string {
	if c.cwds == nil {
		c.cwds = []string{c.cwd}
		if c.resolve != nil && filepath.IsAbs(c.cwd) {
			if cwd, err := c.resolve(c.cwd); err == nil && filepath.Clean(cwd) != filepath.Clean(c.cwd) {
				c.cwds = append(c.cwds, cwd)
			}
		}
	}
	return c.cwds
}

// forms are the deny forms of one command (see denyForms).
type forms struct {
	made       bool
	forms      []string
	complete   bool
	unresolved string
}

// denyForms returns the deny forms of the call's command j, made once for
// all deny rules: the forms, whether they are complete, and why the
// command is unresolvable ("" when it is not; see denyForms, allowUnits).
func (c *call) denyForms(j int) ([]string, bool, string) {
	if c.forms == nil {
		c.forms = make([]forms, len(c.commands))
	}
	f := &c.forms[j]
	if !f.made {
		f.forms, f.complete, f.unresolved = denyForms(c.commands[j], c.pieces[c.commands[j]])
		f.unresolved = cmp.Or(f.unresolved, c.unresolved[j])
		f.made = true
	}
	return f.forms, f.complete, f.unresolved
}

// result is the outcome of one rule's matchers.
type result struct {
	ok       bool     // the matchers hold (for an allow rule: all but command)
	why      []string // one or more lines per matcher
	evidence []string // what matched, for the Decision's Reason
}

func (r *result) add(ok bool, why string, evidence ...string) {
	r.ok = r.ok && ok
	r.why = append(r.why, why)
	if ok {
		r.evidence = append(r.evidence, evidence...)
	}
}

func ruleName(list string, i int, r Rule) string {
	if r.Pos != "" {
		return r.Pos
	}
	return fmt.Sprintf("%s #%d", list, i+1)
}

// evaluate decides req without selecting an option. It reports whether
// allow_always is preferred (see alwaysAllows), and with trace set it evaluates
// every rule and records why each matched or not.
func (p *Policy) evaluate(req Request, trace bool) (Decision, bool, []RuleTrace) {
	c := newCall(req)
	q := c.q
	d := Decision{Commands: c.commands, Paths: c.paths}
	if p == nil {
		d.Verdict, d.RuleList, d.Reason = Deny, ListDefault, "no policy; default deny"
		return d, false, nil
	}
	var traces []RuleTrace
	decided := false

	for i, r := range p.Deny {
		res := evalRule(ListDeny, r, c)
		name := ruleName(ListDeny, i, r)
		if trace {
			traces = append(traces, RuleTrace{List: ListDeny, Rule: name, Matched: res.ok, Why: res.why})
		}
		if res.ok && !decided {
			decided = true
			d.Verdict, d.Rule, d.RuleList = Deny, name, ListDeny
			d.Reason = fmt.Sprintf("deny rule %s matched %s", name, strings.Join(res.evidence, ", "))
			if !trace {
				return d, false, nil
			}
		}
	}

	// Allow: rules are first judged on their matchers other than command.
	// A command is allowed when the patterns of some such rule match it as
	// written, or else when each of its units (allowUnits) is matched by
	// some such rule. The call is allowed by a rule without a command
	// matcher, or when every command is allowed.
	results := make([]result, len(p.Allow))
	cov := newCoverage(p.Allow, c)
	for i, r := range p.Allow {
		results[i] = evalRule(ListAllow, r, c)
		if len(r.Command) > 0 && results[i].ok {
			cov.admit(i)
		}
	}
	uncovered := cov.uncovered()
	allCovered := len(c.commands) > 0 && len(uncovered) == 0
	matched := func(i int) bool {
		return results[i].ok && (len(p.Allow[i].Command) == 0 || allCovered && cov.contributes(i))
	}
	nearMiss := false // an allow rule held but for some commands
	for i, r := range p.Allow {
		if len(r.Command) > 0 && results[i].ok {
			nearMiss = true
		}
		if !trace {
			continue
		}
		why := slices.Clone(results[i].why)
		if len(r.Command) > 0 {
			why = append(why, cov.why(i)...)
		}
		traces = append(traces, RuleTrace{List: ListAllow, Rule: ruleName(ListAllow, i, r), Matched: matched(i), Why: why})
	}
	if decided {
		return d, false, traces
	}
	for i, r := range p.Allow {
		if !matched(i) {
			continue
		}
		name := ruleName(ListAllow, i, r)
		evidence := slices.Clone(results[i].evidence)
		var others []string
		if len(r.Command) > 0 {
			var mine []string
			mine, others = cov.evidence(i)
			evidence = append(evidence, q.plural("command", mine))
		}
		d.Verdict, d.Rule, d.RuleList = Allow, name, ListAllow
		d.Reason = fmt.Sprintf("allow rule %s matched %s", name, strings.Join(evidence, ", "))
		if len(others) > 0 {
			d.Reason += "; " + strings.Join(others, "; ")
		}
		always, left := alwaysAllows(p.Allow, results, cov)
		for i := range p.Allow {
			if !always && len(left) > 0 && p.Allow[i].Always && matched(i) {
				d.Reason += "; allow_always not preferred: no rule with always: true allows " + q.plural("command", left)
				break
			}
		}
		return d, always, traces
	}

	d.Verdict, d.Rule, d.RuleList = Deny, p.Source, ListDefault
	if p.Default == Allow {
		d.Verdict = Allow
	}
	d.Reason = "no rule matched; default " + string(d.Verdict)
	if p.Source != "" {
		d.Reason += " (" + p.Source + ")"
	}
	if nearMiss && len(uncovered) > 0 {
		d.Reason += "; no allow rule allows " + q.plural("command", uncovered)
		for j, why := range c.unresolved {
			if why != "" {
				d.Reason += fmt.Sprintf(" (%s is unresolvable: %s)", q.quote(c.commands[j]), why)
			}
		}
	}
	return d, false, traces
}

// alwaysAllows reports whether the allow rules with Always allow the call
// on their own: one of them without a command matcher holds, or they allow
// every command (each part of a shell line may be allowed by a different
// one). So allow_always is preferred only when every part of the call is
// allowed by a rule that asks for it, whatever the rules' order. Else it
// returns the commands they leave (none when the call runs no command).
func alwaysAllows(rules []Rule, results []result, cov *coverage) (bool, []string) {
	cov = cov.only(func(i int) bool { return rules[i].Always })
	for i, r := range rules {
		if r.Always && results[i].ok && len(r.Command) == 0 {
			return true, nil
		}
	}
	left := cov.uncovered()
	return len(cov.c.commands) > 0 && len(left) == 0, left
}

// evalRule evaluates a rule's matchers in the order kind, tool, title,
// path, input, command; the command matcher only for deny rules (allow
// rules share their commands out in evaluate).
func evalRule(list string, r Rule, c *call) result {
	q := c.q
	res := result{ok: true}
	if !hasMatcher(r) {
		res.add(false, "rule has no matcher")
		return res
	}
	if len(r.Kind) > 0 {
		ok := slices.Contains(r.Kind, c.kind)
		verb := "is not one of"
		if ok {
			verb = "is one of"
		}
		res.add(ok, fmt.Sprintf("kind %s %s %s", q.quote(c.kind), verb, q.quoteList(r.Kind)), "kind "+q.quote(c.kind))
	}
	if len(r.Tool) > 0 {
		evalTool(&res, q, r.Tool, c.tool)
	}
	if len(r.Title) > 0 {
		evalGlob(&res, q, "title", r.Title, c.title)
	}
	if len(r.Path) > 0 {
		evalPath(&res, list, r.Path, c)
	}
	if len(r.Input) > 0 {
		evalInput(&res, q, r.Input, c.input)
	}
	if len(r.Command) > 0 && list == ListDeny {
		evalDenyCommand(&res, r.Command, c)
	}
	return res
}

func hasMatcher(r Rule) bool {
	return len(r.Kind)+len(r.Tool)+len(r.Title)+len(r.Command)+len(r.Path)+len(r.Input) > 0
}

// evalTool: the tool's name matches one of the globs. A call without a
// name never matches.
func evalTool(res *result, q quoter, patterns []string, tool string) {
	if tool == "" {
		res.add(false, "tool: the call has no tool name")
		return
	}
	evalGlob(res, q, "tool", patterns, tool)
}

// evalGlob: value, the call's tool name or title (what), matches one of
// the globs (see MatchTitle).
func evalGlob(res *result, q quoter, what string, patterns []string, value string) {
	for _, pat := range patterns {
		if MatchTitle(pat, value) {
			res.add(true, fmt.Sprintf("%s %s matches %s", what, q.quote(value), q.quote(pat)), what+" "+q.quote(value))
			return
		}
	}
	res.add(false, fmt.Sprintf("%s %s matches none of %s", what, q.quote(value), q.quoteList(patterns)))
}

// evalPath: for an allow rule every path must match a pattern; for a deny
// rule one path matching is enough (see rulePathMatch). A call without
// paths never matches.
func evalPath(res *result, list string, patterns []string, c *call) {
	q := c.q
	if len(c.paths) == 0 {
		res.add(false, "path: the call touches no path")
		return
	}
	matchOf := func(ps PathSource) string {
		for _, pat := range patterns {
			if rulePathMatch(list, pat, ps, c.cwdList()) {
				return pat
			}
		}
		return ""
	}
	if list == ListDeny {
		for _, ps := range c.sources {
			if pat := matchOf(ps); pat != "" {
				res.add(true, fmt.Sprintf("path %s matches %s", pathShown(q, ps), q.quote(pat)), "path "+pathShown(q, ps))
				return
			}
		}
		res.add(false, fmt.Sprintf("no path matches %s: %s", q.quoteList(patterns), q.quoteList(c.paths)))
		return
	}
	ok := true
	for _, ps := range c.sources {
		if pat := matchOf(ps); pat != "" {
			res.add(true, fmt.Sprintf("path %s matches %s", pathShown(q, ps), q.quote(pat)))
		} else {
			ok = false
			res.add(false, fmt.Sprintf("path %s matches none of %s", pathShown(q, ps), q.quoteList(patterns)))
		}
	}
	if ok {
		res.evidence = append(res.evidence, q.plural("path", c.paths))
	}
}

// pathShown quotes a path for a trace or a reason, with its Note.
func pathShown(q quoter, ps PathSource) string {
	if note := ps.note(q); note != "" {
		return q.quote(ps.Path) + " (" + note + ")"
	}
	return q.quote(ps.Path)
}

// evalDenyCommand: one command matching (in any of its deny forms) is
// enough. A call without commands never matches.
func evalDenyCommand(res *result, patterns []string, c *call) {
	q := c.q
	cmds := c.commands
	if len(cmds) == 0 {
		res.add(false, "command: the call runs no command")
		return
	}
	for j, cmd := range cmds {
		fs, complete, unresolved := c.denyForms(j)
		form, pat, ok := denyMatch(patterns, fs, complete && unresolved == "")
		if !ok {
			continue
		}
		shown := q.quote(cmd)
		switch {
		case form == "" && unresolved != "":
			shown += " (unresolvable: " + unresolved + ")"
			res.add(true, fmt.Sprintf("command %s is taken to match %s", shown, q.quoteList(patterns)), "command "+shown)
			return
		case form == "":
			shown += fmt.Sprintf(" (too intricate to see every command it runs: more than %d forms or %d bytes of them, or shell lines nested deeper than %d)", maxDenyForms, maxDenyBytes, maxNesting)
			res.add(true, fmt.Sprintf("command %s is taken to match %s", shown, q.quoteList(patterns)), "command "+shown)
			return
		case form != cmd:
			shown += " (as " + q.quote(form) + ")"
		}
		res.add(true, fmt.Sprintf("command %s matches %s", shown, q.quote(pat)), "command "+shown)
		return
	}
	res.add(false, fmt.Sprintf("no command matches %s: %s", q.quoteList(patterns), q.quoteList(cmds)))
}

// denyMatch returns the first of a command's deny forms (see denyForms)
// that a pattern matches, and the pattern. When the forms are not
// complete, the command matches (fail closed) with an empty form and
// pattern.
func denyMatch(patterns []string, forms []string, complete bool) (form, pattern string, ok bool) {
	for _, form := range forms {
		for _, pat := range patterns {
			if commandMatch(pat, form) {
				return form, pat, true
			}
		}
	}
	return "", "", !complete
}

// evalInput: every entry's regex must match the value at its dotted path.
func evalInput(res *result, q quoter, input map[string]string, raw any) {
	for _, k := range slices.Sorted(maps.Keys(input)) {
		re, err := regexp.Compile(input[k])
		if err != nil {
			res.add(false, fmt.Sprintf("input %s: bad regex: %v", k, err))
			continue
		}
		vals, found := inputTexts(raw, k)
		if !found {
			res.add(false, fmt.Sprintf("input %s: no such field", k))
			continue
		}
		i := slices.IndexFunc(vals, re.MatchString)
		if i < 0 {
			res.add(false, fmt.Sprintf("input %s %s does not match %s", k, q.quoteList(vals), q.quote(input[k])))
			continue
		}
		res.add(true, fmt.Sprintf("input %s %s matches %s", k, q.quote(vals[i]), q.quote(input[k])),
			"input "+k+" "+q.quote(vals[i]))
	}
}

// inputTexts returns the texts a regex is tried on for the value at a
// dotted path of rawInput: a string as is, a number or bool as its JSON
// text, an array as the texts of its scalar elements. A segment that is a
// number indexes an array. found is false when the path leads nowhere or to
// null.
func inputTexts(raw any, dotted string) (texts []string, found bool) {
	v := raw
	for seg := range strings.SplitSeq(dotted, ".") {
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(cur) {
				return nil, false
			}
			v = cur[n]
		default:
			return nil, false
		}
	}
	if arr, ok := v.([]any); ok {
		for _, e := range arr {
			if s, ok := scalarText(e); ok {
				texts = append(texts, s)
			}
		}
		return texts, true
	}
	s, ok := scalarText(v)
	if !ok {
		return nil, v != nil
	}
	return []string{s}, true
}

func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// selectOption picks the option for d's verdict among req's options. An
// option whose id is also that of an option of another verdict (or of a
// kind that is none of the four) is not usable: the agent could take the
// answer for that option. Nor is one that would switch the agent into one
// of req.UnaskedModes, a mode in which it does not ask: one whose id is
// that mode, or maps to it in req.ModeOptions.
func selectOption(d *Decision, always bool, req Request) {
	opts, q := req.Options, quoter(req.Excerpt)
	want, alt, what := RejectOnce, RejectAlways, "reject"
	if d.Verdict == Allow {
		want, alt, what = AllowOnce, AllowAlways, "allow"
		if always {
			want, alt = alt, want
		}
	}
	unusable := "" // why an option of the right kind was passed over
	none := func(kind string) string {
		if unusable != "" {
			return fmt.Sprintf("no usable %s option offered (%s)", kind, unusable)
		}
		return fmt.Sprintf("no %s option offered", kind)
	}
	for _, kind := range []string{want, alt} {
		for _, o := range opts {
			if o.Kind != kind || o.ID == "" {
				continue
			}
			why := ""
			if other, ok := sharedID(o, opts); ok {
				why = fmt.Sprintf("option id %s of kind %s is also that of an option of kind %s", q.quote(o.ID), o.Kind, q.quote(other.Kind))
			} else if mode := cmp.Or(req.ModeOptions[o.ID], o.ID); slices.Contains(req.UnaskedModes, mode) {
				why = fmt.Sprintf("option %s of kind %s would switch the agent to mode %s, in which it does not ask permission", q.quote(o.ID), o.Kind, q.quote(mode))
			}
			if why != "" {
				unusable = cmp.Or(unusable, why)
				continue
			}
			d.OptionID, d.OptionKind = o.ID, o.Kind
			if kind != want {
				d.Reason += fmt.Sprintf("; %s, chose %s", none(want), kind)
			}
			return
		}
	}
	d.Cancelled = true
	d.Reason += fmt.Sprintf("; %s; answered cancelled", none(what))
}

// sharedID returns an option of opts with o's id but of another verdict
// than o's (an unknown kind counts as another).
func sharedID(o Option, opts []Option) (Option, bool) {
	for _, other := range opts {
		if other.ID == o.ID && VerdictOf(other.Kind) != VerdictOf(o.Kind) {
			return other, true
		}
	}
	return Option{}, false
}

// VerdictOf is the verdict an option of kind gives, "" for an unknown kind.
func VerdictOf(kind string) Verdict {
	switch kind {
	case AllowOnce, AllowAlways:
		return Allow
	case RejectOnce, RejectAlways:
		return Deny
	}
	return ""
}

// quoter quotes the values a reason or a trace shows, cut at maxQuote
// bytes, and shows the start of a value it cuts as the call's
// Request.Excerpt does: with the whole value known. A nil quoter shows the
// start as it is.
type quoter func(text string, end int) string

// quote is strconv.Quote(s), s cut at maxQuote bytes (at a character's
// start) with "…" after.
func (q quoter) quote(s string) string {
	if len(s) > maxQuote {
		cut := termtext.Boundary(s, maxQuote)
		shown := s[:cut]
		if q != nil {
			shown = q(s, cut)
		}
		s = shown + "…"
	}
	return strconv.Quote(s)
}

// maxQuote is how many bytes of a value a reason or a trace quotes.
const maxQuote = 200

// quoteAll quotes each of ss, as quote does.
func (q quoter) quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = q.quote(s)
	}
	return out
}

func (q quoter) quoteList(ss []string) string { return "[" + strings.Join(q.quoteAll(ss), " ") + "]" }

// plural renders `noun "a"` or `nouns "a", "b"`.
func (q quoter) plural(noun string, ss []string) string {
	if len(ss) != 1 {
		noun += "s"
	}
	return noun + " " + strings.Join(q.quoteAll(ss), ", ")
}
