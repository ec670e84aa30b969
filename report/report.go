// Package report is what a run produced, and the results file that keeps
// it. A Report holds the result of every scenario, turn by turn, with
// statuses, stop reasons and cancel causes, as the runner returns it and
// every format prints it. Results is the JSON document of a report (its
// turns keyed by stop reason, a Summary, PassRates when attempts or agents
// compare): Write writes it, Read reads it back (schemaVersion 1 too, as the
// current version says it), and Merge combines the results of shards into
// those of the whole run. Rerun is what did not pass in a results file,
// for run --rerun-failed, and Keep what a rerun that replaces the file
// keeps of it. TranscriptName is the one rule for where a
// scenario's transcript is: run names it so, and TranscriptFinder looks it
// up.
package report

import (
	"slices"
	"strconv"
	"time"

	json "github.com/go-json-experiment/json/v1"
)

// SchemaVersion is the version of the results format written by acprun.
// Version 2 added the status interrupted: a scenario that something
// outside it cut short, or kept from starting (notRun, which version 1
// gave status error), is interrupted, never passed. Version 3 added the
// status invalid (see Invalid): an attempt that measured nothing, which
// pass rates leave out as they do interrupted ones, and retries: N runs
// again an attempt that errored or was invalid, no longer one that failed.
const SchemaVersion = 3

// Status is the outcome of one scenario.
type Status string

// Scenario statuses.
const (
	StatusPassed Status = "passed"
	StatusFailed Status = "failed" // an expectation failed or a turn ended in an error outcome
	StatusError  Status = "error"  // the scenario could not run to its end (agent did not start, crashed, hung)
	// StatusInterrupted: something outside the scenario (an interrupt, the
	// run's --timeout, --fail-fast) cut it short, or kept it from starting
	// (NotRun). It has no verdict: it neither passed nor failed, and Error
	// says what cut it; failures it met before are kept.
	StatusInterrupted Status = "interrupted"
	// StatusInvalid: the attempt measured nothing (Result.Invalid says
	// why): the agent changed the files it must not touch, it is not the
	// agent the scenario expects, or its provider refused the work (rate
	// limit, quota, overload). It has no verdict, like an interrupted one:
	// it is not the agent's failure, and not a pass.
	StatusInvalid Status = "invalid"
)

// Why an attempt is invalid (Invalid.Reason).
const (
	// InvalidTampered: the agent created, modified or deleted a file the
	// scenario protects (workspace.protect).
	InvalidTampered = "tampered"
	// InvalidAgent: initialize's agentInfo is not what expect.agent asks for.
	InvalidAgent = "agent"
	// InvalidUpstream: the agent answered a prompt with an error that says
	// its provider refused the work: a rate limit, a quota, an overload.
	InvalidUpstream = "upstream"
)

// Invalid says why an attempt measured nothing (status invalid).
type Invalid struct {
	// Reason is InvalidTampered, InvalidAgent or InvalidUpstream.
	Reason string `json:"reason"`
	// Message says what happened; it starts with "file:line:col: " when a
	// place in the scenario file is what was not met (workspace.protect,
	// expect.agent).
	Message string `json:"message"`
	// Files are the protected paths the agent created, modified or
	// deleted (tampered), relative to the workspace, with slashes, sorted.
	Files []string `json:"files,omitempty"`
}

// String is how the outputs say it: "invalid (tampered): MESSAGE".
func (i Invalid) String() string { return "invalid (" + i.Reason + "): " + i.Message }

// Outcomes recorded in place of a stop reason when the agent gave none.
const (
	OutcomeError        = "error"        // session/prompt answered with a JSON-RPC error, or a protocol violation
	OutcomeAgentExited  = "agent_exited" // the agent process died mid-turn
	OutcomeUnresponsive = "unresponsive" // no answer to session/cancel within cancelGrace
	OutcomeSkipped      = "skipped"      // the turn never ran (an earlier turn was cancelled or failed)
)

// IsOutcome reports whether stopReason is one of acprun's outcomes
// (OutcomeError, OutcomeAgentExited, OutcomeUnresponsive, OutcomeSkipped):
// names acprun records, never an agent. An agent that answers a prompt
// with one of them breaks the protocol (they are no ACP stop reasons), and
// its turn is recorded as OutcomeError.
func IsOutcome(stopReason string) bool {
	return slices.Contains([]string{OutcomeError, OutcomeAgentExited, OutcomeUnresponsive, OutcomeSkipped}, stopReason)
}

// Cancel causes: why acprun sent session/cancel.
const (
	CauseTurnTimeout     = "turnTimeout"
	CauseIdleTimeout     = "idleTimeout"
	CauseScenarioTimeout = "scenarioTimeout"
	CauseRunTimeout      = "runTimeout"
	CauseInterrupt       = "interrupt"
	// CauseFailFast: another scenario made the run stop (--fail-fast=cancel).
	CauseFailFast = "failFast"
	// CauseBudget: the agent's reported usage, or its model requests at
	// the gateway, passed the scenario's or the turn's budget.
	CauseBudget = "budget"
	// CauseDivergence: a model request the agent made in a gateway replay
	// matched none of the cassette's.
	CauseDivergence = "divergence"
)

// MetaCancelCause is the key of the _meta of acprun's session/cancel
// params that holds its cause (one of the Cause names), so that a
// transcript says why acprun cancelled: {"acprun/cancelCause": "interrupt"}.
const MetaCancelCause = "acprun/cancelCause"

// MetaCancelAt is the key of the _meta of acprun's session/cancel params
// that says where acprun found its cause when that was not in what the
// agent sent over ACP: CancelAtGateway for a cause the model gateway found
// (a model request refused over a budget, or one that diverged from its
// cassette), which a replay, whose agent makes no model requests, never
// meets again. It is absent otherwise: {"acprun/cancelAt": "gateway",
// "acprun/cancelCause": "budget"}.
const MetaCancelAt = "acprun/cancelAt"

// CancelAtGateway is the MetaCancelAt of a cancel whose cause the model
// gateway found.
const CancelAtGateway = "gateway"

// ExternalCause reports whether acprun cancelled a turn for a cause
// outside its scenario (an interrupt, the run's --timeout, --fail-fast):
// such a turn did not finish, meets no expectation, and makes its
// scenario interrupted.
func ExternalCause(cause string) bool {
	return cause == CauseInterrupt || cause == CauseRunTimeout || cause == CauseFailFast
}

// Report is everything one run produced.
type Report struct {
	SchemaVersion int           `json:"schemaVersion"`
	StartedAt     time.Time     `json:"startedAt"`
	Duration      time.Duration `json:"-"`
	// Interrupted is set when an interrupt (SIGINT, SIGTERM) stopped the
	// run; the run's --timeout does not set it.
	Interrupted bool `json:"interrupted,omitempty"`
	// PolicyOverride names --allow-all or --deny-all when one was used,
	// followed by the --allow and --deny rules added to it, as typed.
	PolicyOverride string `json:"policyOverride,omitempty"`
	// BalancedBy is the BalanceFingerprint of the durations a shard was
	// balanced by (run --shard with --balance-from); "" when its shards
	// were round robin. Merge refuses shards that differ in it.
	BalancedBy string `json:"balancedBy,omitempty"`
	// Agents are the named agents of run --agent, in the order given:
	// the matrix that ran each scenario against each, in that order, which
	// merge keeps. None without --agent.
	Agents []string `json:"agents,omitempty"`
	// Dir is the directory the scenarios' relative File paths are
	// relative to: the working directory of the run, as an absolute path.
	// "" when it is not known (results of an older acprun), or when
	// merged shards ran in different directories: then each result says
	// its own (Result.Dir).
	Dir       string   `json:"dir,omitempty"`
	Scenarios []Result `json:"scenarios"`
}

// AgentInfo describes the agent a scenario ran against.
type AgentInfo struct {
	Name            string   `json:"name,omitempty"` // named agent, when the scenario used one
	Command         []string `json:"command"`
	InfoName        string   `json:"agentName,omitempty"`    // agentInfo.name from initialize
	InfoVersion     string   `json:"agentVersion,omitempty"` // agentInfo.version
	ProtocolVersion int      `json:"protocolVersion,omitempty"`
	// Stop says how acprun ended its use of the agent process (see
	// StopClean); "" when none was started.
	Stop string `json:"stop,omitempty"`
	// Pool names the shared process that served the scenario, when its
	// agent is reused (agent.reuse, run --reuse-agents); nil otherwise.
	Pool *PoolInfo `json:"pool,omitempty"`
}

// How acprun ended its use of an agent process (AgentInfo.Stop).
const (
	// StopClean: the scenario ended cleanly (every turn answered with a
	// stop reason, none cancelled, session/close answered or not offered):
	// its stdin was closed, and SIGTERM followed 50 ms later, then
	// SIGKILL after killGrace.
	StopClean = "clean"
	// StopGrace: after anything else, SIGTERM followed killGrace after the
	// end of its stdin, then SIGKILL after killGrace again.
	StopGrace = "grace"
	// StopKept: the process was kept for the next scenario of its pool.
	StopKept = "kept"
)

// PoolInfo is the shared agent process that served a scenario.
type PoolInfo struct {
	// ID names the process in the run: the agent's name (or its
	// program's), # and a number, e.g. "claude#1".
	ID  string `json:"id"`
	Pid int    `json:"pid"`
	// Sessions is how many scenarios the process has served, this one
	// included.
	Sessions int `json:"sessions"`
	// Retired says why the process was stopped at the end of this
	// scenario instead of being kept.
	Retired string `json:"retired,omitempty"`
}

// SandboxInfo is what the OS sandbox around a scenario's agent enforced
// (the scenario's sandbox key, as the host could apply it).
type SandboxInfo struct {
	// Backend is bubblewrap, landlock, bubblewrap+landlock, or none (a
	// best-effort sandbox on a host that can enforce nothing).
	Backend string `json:"backend"`
	// Write lists the only paths the agent could write in (absolute, with
	// no symbolic link); absent under backend none.
	Write []string `json:"write,omitempty"`
	// Hide lists the paths the agent could not read.
	Hide []string `json:"hide,omitempty"`
	// Network is off when connections were restricted to Ports (or to
	// none: under bubblewrap, the model gateway is relayed into a network
	// namespace of the sandbox's own), on otherwise.
	Network string `json:"network"`
	// Ports lists the only TCP ports the agent could connect to, when
	// they were restricted by port.
	Ports []int `json:"ports,omitempty"`
	// Level is required or best-effort.
	Level string `json:"level"`
}

// SessionClose is how the agent answered session/close at the end of the
// scenario.
type SessionClose struct {
	OK bool `json:"ok"`
	// Error says why it failed: the agent's error, or no answer in time.
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs"`
}

// Result is the outcome of one scenario.
type Result struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Dir is the directory a relative File is relative to, set only in
	// merged results whose shards ran in different directories (see
	// Report.Dir, and FileDir).
	Dir  string   `json:"dir,omitempty"`
	Line int      `json:"line"`
	Tags []string `json:"tags,omitempty"`
	// Attempt is the attempt number when the scenario was repeated
	// (--repeat; from 1; 0 when it ran once).
	Attempt int `json:"attempt,omitempty"`
	// Retry numbers the tries of one attempt when it errored or was
	// invalid and its scenario has retries: 0 for the first try, n for the
	// n-th retry.
	Retry int `json:"retry,omitempty"`
	// Retried is set on a try that errored or was invalid and was run
	// again: the next try's verdict replaces its own (see Verdict).
	Retried bool `json:"retried,omitempty"`
	// Vars are the values of a parametrised scenario (vars) that this one
	// ran with, and VarSet the 1-based position of that value set among
	// its document's; nil and 0 for a scenario without vars.
	Vars   map[string]string `json:"vars,omitempty"`
	VarSet int               `json:"varSet,omitempty"`
	// MinPassRate is the share of its attempts the scenario must pass
	// (its expect.passRate, else run --min-pass-rate); 0 for none: then
	// every attempt must pass. See PassRate.Met.
	MinPassRate float64 `json:"minPassRate,omitempty"`
	// Flaky is set on a try that passed after others that did not.
	Flaky      bool          `json:"flaky,omitempty"`
	Agent      AgentInfo     `json:"agent"`
	Status     Status        `json:"status"`
	Duration   time.Duration `json:"-"`
	DurationMs int64         `json:"durationMs"`
	Failures   []string      `json:"failures,omitempty"`
	Warnings   []string      `json:"warnings,omitempty"`
	// Error explains a StatusError (the agent could not start, crashed or
	// hung), or says what cut a StatusInterrupted short.
	Error string `json:"error,omitempty"`
	// Invalid says why a StatusInvalid attempt measured nothing; nil for
	// any other status.
	Invalid *Invalid `json:"invalid,omitempty"`
	// StartFailed is set when the agent could not be started, initialized
	// or authenticated, or when this host cannot enforce the scenario's
	// required sandbox (exit code 3).
	StartFailed bool `json:"startFailed,omitempty"`
	// ErrorCause names, for a program, why the scenario could not run
	// (ErrorAuth, ErrorProtocolVersion, ErrorSetupTimeout); "" when Error
	// has no such cause.
	ErrorCause string `json:"errorCause,omitempty"`
	// SetupCancel is the $/cancel_request acprun sent for a setup request
	// that was not answered in time, and how the agent took it; nil when
	// none was sent.
	SetupCancel *SetupCancel `json:"setupCancel,omitempty"`
	// NotRun is set when the scenario never started: the run was
	// interrupted, out of time or stopped (--fail-fast) first. Its Status
	// is interrupted, Error says why, and every turn is skipped.
	NotRun bool `json:"notRun,omitempty"`
	// ExitCode and Signal describe how the agent process ended, when it did on its own.
	ExitCode   *int   `json:"exitCode,omitempty"`
	Signal     string `json:"signal,omitempty"`
	StderrTail string `json:"stderrTail,omitempty"`
	Allowed    int    `json:"allowed"`
	Denied     int    `json:"denied"`
	// SessionConfig lists what acprun set in the session before the first
	// turn (agent.mode, agent.model, agent.config), in order.
	SessionConfig []SessionSetting `json:"sessionConfig,omitempty"`
	// SetupUpdates counts, by kind, the session/update notifications that
	// came before the first turn (some agents send them even before
	// answering session/new).
	SetupUpdates map[string]int `json:"setupUpdates,omitempty"`
	// SetupPermissions and SetupClientRequests are the requests the agent
	// made before the first turn, answered by the same rules.
	SetupPermissions    []Permission    `json:"setupPermissions,omitempty"`
	SetupClientRequests []ClientRequest `json:"setupClientRequests,omitempty"`
	// SetupNotices and SetupElicitations are the notices and questions of
	// the agent before the first turn.
	SetupNotices      []Notice      `json:"setupNotices,omitempty"`
	SetupElicitations []Elicitation `json:"setupElicitations,omitempty"`
	// Session says how the session was opened when the scenario resumes
	// one (session.resume, run --resume); nil otherwise.
	Session *SessionResult `json:"session,omitempty"`
	// SessionClose is the answer to the session/close acprun sent after
	// the last turn; nil when none was sent (the agent does not offer it,
	// or no session was left to close).
	SessionClose *SessionClose `json:"sessionClose,omitempty"`
	// Violations lists protocol violations seen on the agent's stdout.
	Violations []string `json:"violations,omitempty"`
	Transcript string   `json:"transcript,omitempty"`
	// LostTranscripts say which transcripts of the try (its own, its
	// judges') could not be written, or not whole, and why: each names the
	// file ("open tr/s.jsonl: is a directory; the transcript was not
	// written"). An output was lost, so the run exits 4; its warnings say
	// the same in the results file, which leaves this out. A FIFO given up
	// for want of a reader after an interrupt is not lost so: the scenario
	// is interrupted.
	LostTranscripts []string `json:"-"`
	// LostOutputs say which other outputs of the try could not be
	// written, or not whole, and why, each naming the output: its
	// cassette (a gateway that records), its entry of the session state
	// file. As for LostTranscripts, the run exits 4, the warnings say the
	// same in the results file, and the verdict is the agent's alone.
	LostOutputs []string `json:"-"`
	// Workspace is the attempt's own copy, when the scenario has one.
	Workspace *WorkspaceResult `json:"workspace,omitempty"`
	// Sandbox is what the OS sandbox around the agent enforced, when the
	// scenario asked for one and its agent started.
	Sandbox *SandboxInfo `json:"sandbox,omitempty"`
	// Gateway is what went through the model gateway, when the scenario
	// had one.
	Gateway *GatewayInfo `json:"gateway,omitempty"`
	// Setup, Verify and Teardown are the scenario's commands, as they ran.
	Setup    []CommandResult `json:"setup,omitempty"`
	Verify   []CommandResult `json:"verify,omitempty"`
	Teardown []CommandResult `json:"teardown,omitempty"`
	// Judge is the scenario-level judge's verdict.
	Judge *JudgeResult `json:"judge,omitempty"`
	Turns []TurnResult `json:"turns"`
}

// Verdict reports whether r is the verdict of its attempt: true for every
// result but the tries that were retried. Counts, exit codes and pass
// rates take only these.
func (r Result) Verdict() bool { return !r.Retried }

// Label names r: the scenario, then its agent when it has a name, then
// its attempt from the second on ("login [claude] #2").
func (r Result) Label() string {
	s := r.Name
	if r.Agent.Name != "" {
		s += " [" + r.Agent.Name + "]"
	}
	if r.Attempt > 1 {
		s += " #" + strconv.Itoa(r.Attempt)
	}
	return s
}

// WorkspaceResult describes an attempt's workspace and what the agent
// changed in it.
type WorkspaceResult struct {
	// Path is where the workspace is; it exists after the run only when Kept.
	Path   string `json:"path"`
	Kept   bool   `json:"kept"`
	Source string `json:"source"`
	Kind   string `json:"kind"`          // copy | worktree | clone
	Ref    string `json:"ref,omitempty"` // git: the ref asked for
	Commit string `json:"commit,omitempty"`
	// Created, Modified and Deleted are relative paths (with slashes),
	// compared with the workspace as it was when the agent started (after
	// setup), once it was stopped, whatever ended its session. Empty lists
	// are known: nothing changed; nil (null) ones are not (Error says
	// why).
	Created  []string `json:"created"`
	Modified []string `json:"modified"`
	Deleted  []string `json:"deleted"`
	// Diff is `git diff` of the workspace against the same state as
	// Created, Modified and Deleted (git workspaces), cut at
	// DiffTruncated (a secret the cut goes through redacted); DiffBytes
	// is its full size. When files the agent made big were left out of
	// it (see docs/evals.md), or files git could not open, its first
	// lines, "acprun: left out of this diff, …", name them; Created and
	// Modified still list them.
	Diff          string `json:"diff,omitempty"`
	DiffBytes     int    `json:"diffBytes,omitempty"`
	DiffTruncated bool   `json:"diffTruncated,omitempty"`
	// Error says why the changes could not be listed (the lists are
	// then nil) or, the lists known, why the diff could not be taken.
	Error string `json:"error,omitempty"`
}

// CommandResult is one setup, verify or teardown command as it ran.
type CommandResult struct {
	Run        string `json:"run"`
	Line       int    `json:"line"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	Signal     string `json:"signal,omitempty"`
	TimedOut   bool   `json:"timedOut,omitempty"`
	DurationMs int64  `json:"durationMs"`
	// Stdout and Stderr keep the last bytes of each stream; the counts are
	// the full sizes.
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
	StdoutBytes int64  `json:"stdoutBytes"`
	StderrBytes int64  `json:"stderrBytes"`
	Truncated   bool   `json:"truncated,omitempty"`
	// Error says why the command could not run (or was not run).
	Error string `json:"error,omitempty"`
	// Passed is set for verify commands: their expectations held.
	Passed *bool `json:"passed,omitempty"`
	// Sandboxed is set for a command run in the scenario's sandbox (verify
	// with sandbox.verify).
	Sandboxed bool `json:"sandboxed,omitempty"`
}

// JudgeResult is a judge agent's verdict.
type JudgeResult struct {
	Agent      string `json:"agent,omitempty"`
	Passed     bool   `json:"passed"`
	StopReason string `json:"stopReason,omitempty"`
	// Text is the judge's reply.
	Text       string `json:"text"`
	Error      string `json:"error,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	// Sandbox is what the judge's sandbox applied, nil without one: a
	// judge of a sandboxed scenario runs in its sandbox, with the
	// workspace read-only.
	Sandbox *SandboxInfo `json:"sandbox,omitempty"`
	// Violations lists the protocol violations seen on the judge's stdout,
	// as Result.Violations does the agent's; the scenario's warnings say
	// the first ones, and all its other warnings, "judge: " first.
	Violations []string `json:"violations,omitempty"`
	DurationMs int64    `json:"durationMs"`
}

// TurnResult is the record of one session/prompt.
type TurnResult struct {
	Index         int           `json:"index"` // from 1
	Prompt        string        `json:"prompt"`
	StopReason    string        `json:"stopReason"`
	CancelCause   string        `json:"cancelCause,omitempty"`
	CancelIgnored bool          `json:"cancelIgnored,omitempty"`
	Duration      time.Duration `json:"-"`
	DurationMs    int64         `json:"durationMs"`
	// Text, Thoughts and Plan are what the agent sent before the prompt's
	// answer: the turn's own output, on which expectations are checked.
	Text     string      `json:"text"`
	Thoughts string      `json:"thoughts,omitempty"`
	Plan     []PlanEntry `json:"plan,omitempty"`
	// LateText, LateThoughts and LatePlan came after the prompt's answer
	// (before the next turn started).
	LateText     string       `json:"lateText,omitempty"`
	LateThoughts string       `json:"lateThoughts,omitempty"`
	LatePlan     []PlanEntry  `json:"latePlan,omitempty"`
	ToolCalls    []ToolCall   `json:"toolCalls,omitempty"`
	Permissions  []Permission `json:"permissions,omitempty"`
	// Usage is what the agent reported for the turn before the prompt's
	// answer, with the answer's tokens: what the turn's usage checks and
	// budgets see.
	Usage *Usage `json:"usage,omitempty"`
	// LateUsage is what the last usage_update after the prompt's answer
	// reported (context and cost): not the turn's but the session's, whose
	// cumulative cost it gives (the scenario's usage and budget, and the
	// cost before the next turn, count it).
	LateUsage *Usage `json:"lateUsage,omitempty"`
	Error     string `json:"error,omitempty"`
	// ErrorData is the data of the JSON-RPC error that answered
	// session/prompt (stop reason "error"), as the agent sent it; absent
	// when the error had none.
	ErrorData json.RawMessage `json:"errorData,omitempty"`
	// Failures are the expectations this turn did not meet.
	Failures []string `json:"failures,omitempty"`
	// LateUpdates counts session/update notifications that arrived after the prompt's answer.
	LateUpdates int `json:"lateUpdates,omitempty"`
	// Updates counts every session/update of the turn by kind.
	Updates map[string]int `json:"updates,omitempty"`
	// TextOmitted says that Text, Thoughts, LateText and LateThoughts
	// were not kept (--no-text); Updates still counts the chunks.
	TextOmitted bool `json:"textOmitted,omitempty"`
	// UnknownUpdates keeps, as received, the updates of kinds acprun does
	// not know (an unstable or vendor variant): the first 20 of the turn;
	// Updates counts them all.
	UnknownUpdates []json.RawMessage `json:"unknownUpdates,omitempty"`
	// Notices are the agent's notices (the first 100), Compactions the
	// compactions of its context it reported, in the order they came.
	Notices     []Notice     `json:"notices,omitempty"`
	Compactions []Compaction `json:"compactions,omitempty"`
	// Elicitations are the questions the agent asked (elicitation/create)
	// and acprun's answers.
	Elicitations []Elicitation `json:"elicitations,omitempty"`
	// Warnings about this turn, e.g. a prompt part the agent cannot take.
	Warnings []string `json:"warnings,omitempty"`
	// ClientRequests lists the agent's fs/* and terminal/* requests.
	ClientRequests []ClientRequest `json:"clientRequests,omitempty"`
	// Judge is the turn's judge's verdict.
	Judge *JudgeResult `json:"judge,omitempty"`
}

// ClientRequest is one fs/* or terminal/* request the agent made, and how
// acprun served it.
type ClientRequest struct {
	Method     string `json:"method"`
	Path       string `json:"path,omitempty"`
	Command    string `json:"command,omitempty"`
	TerminalID string `json:"terminalId,omitempty"`
	Bytes      int    `json:"bytes,omitempty"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	Signal     string `json:"signal,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
	// Refused says why acprun refused the request (outside the roots,
	// read-only, denied by the policy, bad params…); empty when it was
	// served.
	Refused string `json:"refused,omitempty"`
	// Decision is how the policy answered a command the agent wanted to
	// run (terminal/create), as it would a permission request for it:
	// allow or deny; empty for requests that run no command, or that were
	// refused before the policy was asked. A command the policy allowed
	// and acprun then refused (Refused: a cwd outside the roots) keeps its
	// allow but counts in neither allowed nor denied.
	Decision string `json:"decision,omitempty"`
	// Rule is the rule that decided Decision ("file:line", "file:line:col" for rules that share a line); for the
	// default it is the policy's source (e.g. --deny-all), usually empty.
	Rule string `json:"rule,omitempty"`
	// Reason explains Decision, naming the rule or the default.
	Reason string `json:"reason,omitempty"`
	// Error is a failure while serving an allowed request, or says that a
	// terminal/wait_for_exit was not answered by its turn's end.
	Error string `json:"error,omitempty"`
	// Late is set when the request came after the prompt's answer.
	Late bool `json:"late,omitempty"`
}

// PlanEntry is one entry of the agent's last plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// ToolCall is a tool call merged from all its updates.
type ToolCall struct {
	// ID is the call's toolCallId: "" for a call the agent announced
	// without one (a protocol violation), each such call recorded apart.
	ID    string `json:"toolCallId"`
	Title string `json:"title"`
	Name  string `json:"name,omitempty"` // the tool's name (ToolCall.name, e.g. "Bash"), when the agent gave one
	Kind  string `json:"kind,omitempty"`
	// Status is the call's status when the prompt was answered (pending,
	// in_progress, completed, failed, or cancelled when acprun cancelled the
	// turn first).
	Status string `json:"status"`
	// LateStatus is the status a late update changed it to: one after
	// the prompt's answer, in this turn or a later one.
	LateStatus string          `json:"lateStatus,omitempty"`
	Locations  []string        `json:"locations,omitempty"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage `json:"rawOutput,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"`
	// LateTitle, LateName, LateKind, LateLocations, LateRawInput,
	// LateRawOutput and LateContent are what updates after the prompt's
	// answer (late ones, as LateStatus) changed the field to; the fields
	// above keep what it was at the answer, which the turn's checks see.
	LateTitle     string          `json:"lateTitle,omitempty"`
	LateName      string          `json:"lateName,omitempty"`
	LateKind      string          `json:"lateKind,omitempty"`
	LateLocations []string        `json:"lateLocations,omitempty"`
	LateRawInput  json.RawMessage `json:"lateRawInput,omitempty"`
	LateRawOutput json.RawMessage `json:"lateRawOutput,omitempty"`
	LateContent   json.RawMessage `json:"lateContent,omitempty"`
	// Announced is false when the agent never sent a tool_call for this id.
	Announced bool `json:"announced"`
	// Late is set when the call was first seen after the prompt's answer.
	Late bool `json:"late,omitempty"`
}

// Permission is one session/request_permission and how acprun answered it.
type Permission struct {
	ToolCallID string   `json:"toolCallId"`
	Title      string   `json:"title,omitempty"`
	Kind       string   `json:"kind,omitempty"`
	Name       string   `json:"name,omitempty"` // the tool's name the policy saw: the request's, else the announced call's
	Commands   []string `json:"commands,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Decision   string   `json:"decision"` // allow | deny | cancelled
	Rule       string   `json:"rule,omitempty"`
	OptionID   string   `json:"optionId,omitempty"`
	Outcome    string   `json:"outcome"` // selected | cancelled
	Reason     string   `json:"reason,omitempty"`
	// Late is set when the request came after the prompt's answer.
	Late bool `json:"late,omitempty"`
}

// Usage is the token usage the agent reported for a turn.
type Usage struct {
	TotalTokens       int64 `json:"totalTokens,omitempty"`
	InputTokens       int64 `json:"inputTokens,omitempty"`
	OutputTokens      int64 `json:"outputTokens,omitempty"`
	ThoughtTokens     int64 `json:"thoughtTokens,omitempty"`
	CachedReadTokens  int64 `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens int64 `json:"cachedWriteTokens,omitempty"`
	// ContextUsed and ContextSize come from the last usage_update.
	ContextUsed int64   `json:"contextUsed,omitempty"`
	ContextSize int64   `json:"contextSize,omitempty"`
	Cost        float64 `json:"cost,omitempty"`
	Currency    string  `json:"currency,omitempty"`
}

// SessionSetting is one setting acprun made in the session before the
// first turn (agent.mode, agent.model, agent.config), in the order made.
type SessionSetting struct {
	// Key is the scenario key that asked for it: "mode", "model" or
	// "config.ID".
	Key string `json:"key"`
	// ConfigID is the config option set; "" for session/set_model and
	// session/set_mode.
	ConfigID string `json:"configId,omitempty"`
	// Value is what was sent: a value id, a model or mode id, or a bool
	// (a boolean option).
	Value any `json:"value"`
	// Method is session/set_config_option, session/set_model or
	// session/set_mode.
	Method string `json:"method"`
}

// SessionResult says how a scenario that resumes its session opened it.
type SessionResult struct {
	// StateFile is the state file and Key the scenario's entry in it.
	StateFile string `json:"stateFile"`
	Key       string `json:"key"`
	// Recorded is the session id the state file held for Key; "" when it
	// held none (the first run).
	Recorded string `json:"recorded,omitempty"`
	// Method is how the session was opened: session/load, session/resume
	// or session/new; "" when the agent never got that far.
	Method string `json:"method,omitempty"`
	// SessionID is the session the turns ran in.
	SessionID string `json:"sessionId,omitempty"`
	// Resumed is set when the recorded session was continued.
	Resumed bool `json:"resumed"`
	// Fallback says why a recorded session was not continued (a new one
	// was opened instead); a warning says it too.
	Fallback string `json:"fallback,omitempty"`
	// History is what session/load replayed before the first turn: the
	// session's earlier conversation, not part of any turn.
	History *History `json:"history,omitempty"`
	// Saved is set once SessionID was written to the state file;
	// SaveError says why it could not be (the file could not be written,
	// or the id holds a secret and is not recorded).
	Saved     bool   `json:"saved"`
	SaveError string `json:"saveError,omitempty"`
}

// History is the conversation an agent replayed on session/load.
type History struct {
	// Updates counts the replayed session/update notifications by kind.
	Updates map[string]int `json:"updates"`
	// Messages are the replayed user and agent messages, their chunks
	// joined: the first 200 of them.
	Messages []HistoryMessage `json:"messages,omitempty"`
	// MessagesDropped counts the messages beyond those.
	MessagesDropped int `json:"messagesDropped,omitempty"`
}

// HistoryMessage is one replayed message.
type HistoryMessage struct {
	Role string `json:"role"` // user | agent
	Text string `json:"text"`
}

// GatewayInfo is what an attempt's agent asked of its models through the
// model gateway.
type GatewayInfo struct {
	// Mode is record, replay or meter.
	Mode string `json:"mode"`
	// Cassette is the cassette written (record) or played (replay).
	Cassette string `json:"cassette,omitempty"`
	// Requests is the number of model requests that went through (refused
	// ones are not counted); Models the models they asked for.
	Requests int      `json:"requests"`
	Models   []string `json:"models,omitempty"`
	// Unplayed is the number of recorded requests a replay did not serve.
	Unplayed int `json:"unplayed,omitempty"`
	// Unrecorded is the number of requests a replay found no recorded one
	// for and no turn waited on (background requests, made while no turn
	// ran or once its turn had answered): each was answered with an error
	// and told by a warning, and failed no turn.
	Unrecorded int `json:"unrecorded,omitempty"`
}
