package approve

// Verdict is the outcome of a policy: allow or deny.
type Verdict string

// The two verdicts a policy can reach.
const (
	Allow Verdict = "allow"
	Deny  Verdict = "deny"
)

// Policy is a scenario's permission rules. Any matching deny rule beats every
// allow rule; then an allow rule; then Default (deny when empty). A Policy is
// only read by Decide, Evaluate, Explain and LinkFree, so it may be shared by many
// goroutines once built; a nil *Policy denies everything.
type Policy struct {
	Default Verdict // Allow or Deny; "" (or anything else) means Deny
	Allow   []Rule
	Deny    []Rule
	// Source names where the policy came from when it was not written in a
	// file (e.g. "--allow-all"); empty for policies from scenario files.
	Source string
}

// Rule is one allow or deny rule. Matchers are ANDed; the values inside one
// matcher are ORed. A rule has at least one matcher (see Validate; a rule
// without one matches nothing). The package doc describes each matcher.
type Rule struct {
	Pos     string            // where the rule was written, "file:line" ("file:line:col" for rules that share a line)
	Kind    []string          // ToolKind values (read, edit, execute, ...)
	Tool    []string          // case-insensitive globs on the tool call's name
	Title   []string          // case-insensitive globs on the tool call's title
	Command []string          // command patterns; '*' matches any run of characters
	Path    []string          // path globs; '**' crosses directories; relative to the session cwd
	Input   map[string]string // dotted rawInput field path -> RE2 regex (source text)
	Always  bool              // prefer an allow_always option
}
