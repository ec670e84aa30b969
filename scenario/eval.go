package scenario

import (
	"regexp"
	"time"
)

// DefaultCommandTimeout bounds a setup, verify or teardown command that
// gives no timeout.
const DefaultCommandTimeout = 10 * time.Minute

// ToolKinds are ACP's tool call kinds. In toolCalls expectations a value
// that is one of them matches a tool call's kind; any other value is a glob
// on its title or its tool name.
var ToolKinds = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}

// Workspace says where each attempt of a scenario works: a fresh copy of a
// directory, or a git checkout, made for each scenario × agent × attempt
// and removed after a passing attempt. The session cwd, the client roots
// and the paths of rules that lie inside the source refer to the copy.
type Workspace struct {
	Pos Pos
	// From is the absolute directory copied for each attempt; "" when Git
	// is set.
	From string
	// Git is the absolute path of a git repository checked out for each
	// attempt (a worktree, or a clone when a worktree cannot be made).
	Git string
	// Ref is the commit, branch or tag to check out; "" for HEAD.
	Ref string
	// SourcePos is where From or Git is given: the value of from or git,
	// or the workspace itself when it is a string. RefPos is where Ref is
	// given; zero when it is not.
	SourcePos, RefPos Pos
	// Protect are globs of paths relative to the workspace (cleaned, with
	// slashes; dir/ stands for dir/**) that the agent must not create,
	// modify or delete: an attempt whose agent did is invalid (tampered),
	// and its verify does not run. ProtectPos is where they were given.
	Protect    []Located
	ProtectPos Pos
}

// Source is the directory the workspace is made from.
func (w Workspace) Source() string {
	if w.Git != "" {
		return w.Git
	}
	return w.From
}

// Command is one setup, verify or teardown command: a shell line run by
// /bin/sh -c in the workspace (or the session cwd), in its own process
// group, with acprun's environment, the agent's env and ACPRUN_WORKSPACE
// (see the package doc).
type Command struct {
	Pos Pos
	Run string
	// Timeout is 0 for DefaultCommandTimeout.
	Timeout time.Duration
	// Expect is what a verify command must do to pass; unused for setup
	// (which must exit 0) and teardown (whose outcome is only recorded).
	Expect CommandExpect
}

// Limit is the command's timeout: its own, else DefaultCommandTimeout.
func (c Command) Limit() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultCommandTimeout
}

// Limit is the judge's timeout: its own, else DefaultJudgeTimeout.
func (j Judge) Limit() time.Duration {
	if j.Timeout > 0 {
		return j.Timeout
	}
	return DefaultJudgeTimeout
}

// CommandExpect is what a verify command must produce.
type CommandExpect struct {
	Pos Pos
	// ExitCode is the exit code the command must exit with, 0 by default;
	// ExitCodePos is where the file gives it (zero for the default).
	ExitCode       int
	ExitCodePos    Pos
	StdoutContains []Located
	StdoutMatches  *Pattern // nil when unset
	// StdoutNotContains and StdoutNotMatches must not appear in stdout
	// (stdout.notContains, stdout.notMatches).
	StdoutNotContains []Located
	StdoutNotMatches  []Pattern
}

// Located is a string value of the file with its position.
type Located struct {
	Pos   Pos
	Value string
}

// ToolCallsExpect is what the agent's tool calls must show. A pattern is
// a tool kind (one of ToolKinds), else a case-insensitive glob on the tool
// call's title or its tool name (ToolCall.name).
type ToolCallsExpect struct {
	Pos     Pos
	Used    []Located // each matches at least one tool call
	NotUsed []Located // none matches any tool call
	Count   []CountExpect
	// Status, when set (completed or failed), is the status every tool
	// call must have ended with.
	Status Located
	// Sequence must appear, in this order, as a subsequence of the tool
	// calls (other calls may come between).
	Sequence []Located
}

// CountExpect bounds how many tool calls match a pattern: exactly N, at
// most N ("<=N") or at least N (">=N").
type CountExpect struct {
	Pos     Pos
	Pattern string
	N       int
	Op      string // "==", "<=" or ">="
}

// FilesExpect is what the workspace (or the session cwd) must hold after
// the turn or the scenario. Paths are relative to it, with slashes.
type FilesExpect struct {
	Pos    Pos
	Exists []Located // each path exists
	Absent []Located // no such path
	// Contains and Matches check a file's contents.
	Contains []FileText
	Matches  []FileRegexp
	// Unchanged globs: no path they match was created, modified or
	// deleted, compared with the starting copy. It needs a workspace.
	Unchanged []Located
	// Golden compares a file with a golden file, byte for byte.
	Golden []FileGolden
}

// FileText expects a file to contain Text.
type FileText struct {
	Pos  Pos
	Path string
	Text string
}

// FileRegexp expects a file's contents to match Re.
type FileRegexp struct {
	Pos  Pos
	Path string
	Re   *regexp.Regexp
}

// FileGolden expects a file to equal Golden, an absolute path (relative
// ones are resolved against the scenario file's directory).
type FileGolden struct {
	Pos    Pos
	Path   string
	Golden string
}

// PermissionsExpect is which permission requests the agent made, by tool
// kind (one of ToolKinds), title glob or tool name glob.
type PermissionsExpect struct {
	Pos          Pos
	Requested    []Located
	NotRequested []Located
}

// UsageExpect bounds what the agent reported using.
type UsageExpect struct {
	Pos Pos
	// MaxTotalTokens bounds the tokens of the turn (the scenario: of all
	// turns); nil when unset.
	MaxTotalTokens *int64
	MaxTokensPos   Pos
	// MaxCost bounds the cost of the turn (the scenario: the session's
	// cumulative cost); nil when unset.
	MaxCost    *float64
	MaxCostPos Pos
	// MaxRequests bounds the model requests the agent makes through
	// acprun's gateway in the turn (the scenario: in all turns), a budget
	// only (budget: {maxRequests: N}; the scenario must have a gateway);
	// nil when unset.
	MaxRequests    *int64
	MaxRequestsPos Pos
}

// Judge asks a second ACP agent, in a read-only session on the finished
// workspace, whether the work meets a rubric.
type Judge struct {
	Pos Pos
	// Agent is the judge's agent, resolved like a scenario's named agent.
	Agent  Agent
	Rubric string
	// Pass is matched against the judge's reply; default DefaultJudgePass.
	Pass *regexp.Regexp
	// Timeout bounds the judge's session; 0 for DefaultJudgeTimeout.
	Timeout time.Duration
}

// DefaultJudgePass is the judge's default pass pattern: its reply's
// first word is PASS (after blank lines and markup such as **, __ or #),
// the verdict its prompt asks for on the first line. A reply that starts
// with FAIL fails whatever it says after, "- PASS: …" lines included.
// Underscores count as markup (\W alone would not skip _ and \b would
// not end a word at one), so __PASS__ and _PASS_ pass as **PASS** does.
const DefaultJudgePass = `\A[\W_]*PASS(?:[\W_]|\z)`

// DefaultJudgeTimeout bounds a judge that gives no timeout.
const DefaultJudgeTimeout = 5 * time.Minute
