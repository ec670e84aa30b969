package approve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acprun/acprun/internal/shellquote"
)

// The short form of a rule, as run --allow and --deny take it:
//
//	KIND                 every tool call of that kind: read, search, think, …
//	execute:COMMAND      kind execute whose command matches COMMAND
//	read:PATH            kind read, edit, delete, move or search whose every
//	                     path matches PATH (a path glob)
//	command:COMMAND      any kind: a command matcher alone
//	path:PATH            any kind: a path matcher alone
//	title:TITLE          any kind: a title matcher alone
//	tool:NAME            any kind: a tool name matcher alone
//
// It is split at the first ':', so a pattern may hold ':' itself
// ("command:docker run -p 80:80"); blanks around the prefix and the
// pattern are dropped. The pattern has the meaning it has in a scenario
// file's rule (see the package doc).
const (
	matcherCommand = "command"
	matcherPath    = "path"
	matcherTitle   = "title"
	matcherTool    = "tool"
)

// flagMatchers are the matchers a flag rule may name alone, before ':'.
var flagMatchers = []string{matcherCommand, matcherPath, matcherTitle, matcherTool}

// pathKinds are the kinds whose short form KIND:PATTERN matches paths;
// execute's matches commands, and the other kinds take no pattern.
var pathKinds = []string{"read", "edit", "delete", "move", "search"}

// FlagRuleExamples shows the short form, for help and error messages.
const FlagRuleExamples = "--allow read --allow 'execute:go test *' --allow 'edit:src/**' --deny 'path:**/.env'"

// ParseFlagRule reads value, the short form of a rule given to flag
// (--allow or --deny), into a Rule whose Pos is the flag and its value as
// typed (--allow 'execute:go test *'), so that decisions and explain name
// where it came from. A value that is not a rule is an error that says
// what to write instead; the error does not repeat the flag.
func ParseFlagRule(flag, value string) (Rule, error) {
	r := Rule{Pos: shellquote.Join([]string{flag, value})}
	head, pattern, hasPattern := strings.Cut(strings.TrimSpace(value), ":")
	head, pattern = strings.TrimSpace(head), strings.TrimSpace(pattern)
	isKind, isMatcher := slices.Contains(Kinds(), head), slices.Contains(flagMatchers, head)
	switch {
	case head == "":
		return r, fmt.Errorf("no kind or matcher: write KIND, KIND:PATTERN or MATCHER:PATTERN, e.g. %s", FlagRuleExamples)
	case !isKind && !isMatcher:
		return r, fmt.Errorf("%q is neither a tool kind (%s) nor a matcher (%s)%s: write KIND, KIND:PATTERN or MATCHER:PATTERN, e.g. %s",
			head, strings.Join(Kinds(), ", "), strings.Join(flagMatchers, ", "), flagRuleHint(head, value), FlagRuleExamples)
	case !hasPattern && isKind:
		r.Kind = []string{head}
		return r, nil
	case !hasPattern:
		return r, fmt.Errorf("%s needs a pattern after ':', e.g. %s", head, matcherExamples[head])
	case pattern == "" && isKind:
		return r, fmt.Errorf("the pattern after %q is empty: write %s alone for every %s call, or give a pattern", head+":", head, head)
	case pattern == "":
		return r, fmt.Errorf("the pattern after %q is empty, e.g. %s", head+":", matcherExamples[head])
	}
	switch {
	case head == "execute":
		r.Kind, r.Command = []string{head}, []string{pattern}
	case slices.Contains(pathKinds, head):
		r.Kind, r.Path = []string{head}, []string{pattern}
	case isKind:
		return r, fmt.Errorf("a pattern follows only execute (a command) and %s (a path); write %s alone for every %s call, or match the title: %s",
			strings.Join(pathKinds, ", "), head, head, matcherExamples[matcherTitle])
	case head == matcherCommand:
		r.Command = []string{pattern}
	case head == matcherPath:
		r.Path = []string{pattern}
	case head == matcherTitle:
		r.Title = []string{pattern}
	case head == matcherTool:
		r.Tool = []string{pattern}
	}
	if msgs := r.Validate(); len(msgs) > 0 {
		return r, fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return r, nil
}

// matcherExamples are examples of the short form of each matcher.
var matcherExamples = map[string]string{
	matcherCommand: "'command:git push *'",
	matcherPath:    "'path:**/.env'",
	matcherTitle:   "'title:*delete*'",
	matcherTool:    "'tool:mcp__github__*'",
}

// flagRuleHint helps with value, whose head (before ':') is neither a
// kind nor a matcher: a misspelt kind or matcher is named, and a value
// that looks like a command line is shown as execute:COMMAND.
func flagRuleHint(head, value string) string {
	if hint := didYouMean(head, append(Kinds(), flagMatchers...)); hint != "" {
		return hint
	}
	if strings.ContainsAny(head, " *") {
		return " (a command is written execute:COMMAND: " + shellquote.Word("execute:"+strings.TrimSpace(value)) + ")"
	}
	return ""
}

// didYouMean names the word of valid that word misspells, " (did you
// mean execute?)": the same but for case, or one that starts with word or
// that word starts with; "" when there is none.
func didYouMean(word string, valid []string) string {
	lower := strings.ToLower(word)
	for _, w := range valid {
		if lower == w || len(lower) >= 3 && strings.HasPrefix(w, lower) || len(w) >= 4 && strings.HasPrefix(lower, w) {
			return fmt.Sprintf(" (did you mean %s?)", w)
		}
	}
	return ""
}

// CheckKind reports whether kind is a tool kind (Kinds), as a request
// made up by a flag (explain --kind) names it. Its error lists the kinds
// and, as --allow does, names the kind a misspelt one means.
func CheckKind(kind string) error {
	if slices.Contains(Kinds(), kind) {
		return nil
	}
	return fmt.Errorf("unknown kind %q: want one of %s%s", kind, strings.Join(Kinds(), ", "), didYouMean(kind, Kinds()))
}

// WithRules returns a copy of p with allow and deny added after its own
// rules (a deny rule still beats every allow rule); a nil p is a policy
// without rules, which denies what they do not allow. p is unchanged.
func (p *Policy) WithRules(allow, deny []Rule) *Policy {
	c := Policy{}
	if p != nil {
		c = *p
	}
	c.Allow = slices.Concat(c.Allow, allow)
	c.Deny = slices.Concat(c.Deny, deny)
	return &c
}
