package scenario

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/approve"
)

// Scenario is one validated, runnable case: an agent, its limits, its
// permission policy and the turns to play.
type Scenario struct {
	Name        string
	Description string
	Tags        []string

	Pos   Pos    // the document's first key
	File  string // the file as the user named it
	Index int    // 0-based position of the scenario in its file

	// Vars are the values of this expansion of a document with vars, in
	// the order vars names them (its Name ends with them:
	// "name[lang=go,level=1]"), and VarSet is the 1-based position of
	// this value set among the document's; nil and 0 without vars.
	Vars   []Var
	VarSet int

	Agent Agent

	// Limits; 0 means not set and the runner applies its defaults.
	Timeout     time.Duration // the whole scenario
	TurnTimeout time.Duration // default for each turn
	IdleTimeout time.Duration // no message from the agent for that long
	CancelGrace time.Duration // after session/cancel, how long to wait for the answer
	KillGrace   time.Duration // after closing stdin, before SIGTERM

	// ContinueAfterCancel plays the remaining turns after a turn was
	// cancelled (timed out) instead of stopping the scenario.
	ContinueAfterCancel bool

	// Retries is how many times an attempt that errored or was invalid is
	// run again (retries: N, for flaky infrastructure: a crash, a rate
	// limit); an attempt that failed is not. 0 for none.
	Retries int

	// Budget bounds what the agent may spend in the whole scenario, as it
	// reports it (budget: the keys of expect.usage): the runner cancels
	// the turn that passes it and the scenario fails; nil for none.
	Budget *UsageExpect

	// Currency is what the scenario's costs are counted in: the config's
	// currency (currency:, the currency of its prices), "" when there is
	// no config or it names none (then DefaultCurrency, see CostCurrency).
	// Every maxCost, budget or expect.usage, is in it; acprun converts no
	// currencies, so a cost the agent reports in another is not compared.
	Currency string

	Client Client

	// Session says whether the session is continued from one run to the
	// next, and where that is recorded.
	Session Session

	// Workspace, when set, gives each attempt a fresh copy to work in.
	Workspace *Workspace
	// Sandbox, when set, is the OS sandbox around the agent side (see
	// Sandbox); nil for none.
	Sandbox *Sandbox
	// Gateway, when set, is acprun's model gateway between the agent and
	// its model (gateway:, the config's defaults, run --gateway); nil for
	// none.
	Gateway *Gateway
	// Setup runs before the agent starts (each must exit 0), Verify after
	// the last turn (each is an expectation), Teardown always, last.
	Setup, Verify, Teardown []Command

	// Policy answers session/request_permission. It is nil when the
	// scenario has no permissions key; the runner then denies everything.
	Policy *approve.Policy
	// AnswerDelay is how long to wait before answering each permission
	// request (permissions.answerDelay); 0 answers at once.
	AnswerDelay time.Duration
	// Enforce is permissions.enforce: EnforceOn by default for a named
	// agent, else EnforceOff. EnforcePos is where it was given (zero for
	// the default).
	Enforce    Enforce
	EnforcePos Pos

	// Answers answer the agent's questions (elicitation/create in form
	// mode) in every turn, after the turn's own; nil for none. With answers
	// in the scenario or a turn, acprun advertises form elicitation.
	Answers []AnswerSet

	// Expect holds the scenario-level expectations (every kind but stopReason and text).
	Expect Expect

	Turns []Turn

	// Unset holds a problem for each use of a variable that was unset
	// when the scenario was loaded with LoadOptions.DeferUnset (its values
	// are then empty), sorted by position; see UnsetErrors.
	Unset Errors
	// Warnings are the warnings loading gave about this scenario (Load
	// returns them too, with those about files): the runner carries them
	// into the scenario's results.
	Warnings []Warning
}

// Agent says how to start the agent and set up its session.
type Agent struct {
	Pos Pos

	// Name is the named agent the scenario uses (agent: NAME, agent:
	// {name: NAME, ...}, a config's default agent or WithAgent); "" for an
	// agent given by its command. Command and the rest are then filled in
	// from the named agent.
	Name string

	Command []string          // argv, interpolated; a named agent's plus args
	Env     map[string]string // extra environment, interpolated values
	// OwnEnv is the part of Env that the scenario's agent: gives itself
	// (its env key), without its named agent's variables or those of
	// permissions.enforce: what WithAgent carries over to another agent.
	// Nil when it gives none.
	OwnEnv map[string]string
	Cwd    string // absolute session cwd; default: the scenario file's directory
	// OwnCwd reports whether Cwd is what the scenario's agent: gives
	// itself (its cwd key, even empty), not its named agent's, the
	// config's default agent's or the default: what WithAgent carries
	// over to another agent.
	OwnCwd bool
	Auth   string // authenticate method id, "" for none
	// AuthPos is where Auth was given when run's --auth gave it, for the
	// runner's messages; zero otherwise (they are at the agent's Pos).
	AuthPos Pos
	// AuthEnv names the environment variables a named agent's registry
	// entry expects for its credentials (ANTHROPIC_API_KEY), for the
	// message when the agent asks for authentication; nil when none are
	// known.
	AuthEnv []string
	// Mode is the session mode to set after session/new (agent.mode), ""
	// for none; ModePos is where it was given.
	Mode    string
	ModePos Pos

	// Model is the model to select after session/new (agent.model), "" for
	// the agent's own; ModelPos is where it was given.
	Model    string
	ModelPos Pos
	// Config lists the session config options to set after session/new
	// (agent.config), in the order written: a named agent's first, the
	// scenario's replacing those of the same id. Nil for none.
	Config []ConfigSetting

	// CwdPos is where Cwd was given: the cwd value in the scenario file, or
	// in the config file for a named or default agent. It is zero when Cwd
	// is the default.
	CwdPos Pos

	// McpServers is passed to session/new as written: a JSON array, "[]"
	// when absent. McpServerPos is where each of its servers was given
	// (its entry in agent.mcpServers), for messages about them.
	McpServers   json.RawMessage
	McpServerPos []Pos

	// ArgvPos is where each word of Command was given (its command or
	// args value, in the config file for a config agent's words; those
	// permissions.enforce adds are at the word they follow), for messages
	// about them; a zero Pos (or none) for the words of a built-in agent.
	ArgvPos []Pos

	// Reuse lets one agent process serve several scenarios in turn
	// (agent.reuse): each gets its own session. ReusePos is where it was
	// set.
	Reuse    bool
	ReusePos Pos

	// Enforcement is what the runner applies to make the agent ask before
	// it acts (permissions.enforce), nil for none; its Args and Env are
	// already in Command and Env.
	Enforcement *Enforcement

	// Spelled holds the values of Env and of the env and headers of
	// McpServers as their files write them, where that differs from the
	// value (see yamlnode.Reader.Spelling: a ' doubled in single quotes, escapes in
	// double quotes, lines folded; and templates and ${VAR} as written,
	// unless the value is references alone), a named agent's and the default
	// agent's too: secrets, which a line of those files shows so. Nil when
	// none differs.
	Spelled []string

	// Unset holds the problems of the unset variables in the agent's
	// values (see LoadOptions.DeferUnset), which its scenario's Unset holds
	// too, by the key of the value: "env" (its own env), "cwd" and
	// "mcpServers", or "" for the rest (its command, a named agent's env,
	// …), for WithAgent, which keeps only those of the values it carries
	// over. Nil when none.
	Unset map[string]Errors
}

// WordPos is where word i of the agent's command was given, else the
// agent's own position.
func (a *Agent) WordPos(i int) Pos {
	if i < len(a.ArgvPos) && a.ArgvPos[i] != (Pos{}) {
		return a.ArgvPos[i]
	}
	return a.Pos
}

// Client is what acprun offers the agent as a client.
type Client struct {
	FS       bool     // serve fs/read_text_file and fs/write_text_file; default true
	Terminal bool     // serve terminal/*; default true
	ReadOnly bool     // refuse writes; default false
	Roots    []string // absolute directories the agent may touch besides Agent.Cwd, always one; default [Agent.Cwd]
	RootsPos Pos      // where roots was given; zero for the default
	RootPos  []Pos    // where each of Roots was given (zero for the default)
	Set      bool     // the scenario or the config's defaults have a client key
}

// DirProblem says why dir cannot serve as a client root ("does not
// exist", "is not a directory"), "" when it can. It names no path: the
// caller names dir as the user gave it.
func DirProblem(dir string) string {
	fi, err := os.Stat(dir)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case errors.As(err, &pe):
		return pe.Err.Error()
	case err != nil:
		return err.Error()
	case !fi.IsDir():
		return "is not a directory"
	}
	return ""
}

// RootAt is where root i of Roots was given, else where roots was (zero
// for the default).
func (c *Client) RootAt(i int) Pos {
	if i < len(c.RootPos) && c.RootPos[i] != (Pos{}) {
		return c.RootPos[i]
	}
	return c.RootsPos
}

// Turn is one session/prompt.
type Turn struct {
	Pos     Pos
	Prompt  []Part
	Timeout time.Duration // 0: the scenario's TurnTimeout
	// Budget bounds what the agent may spend in this turn (see
	// Scenario.Budget); nil for none.
	Budget *UsageExpect
	Expect Expect
	// Answers answer the agent's questions in this turn, before the
	// scenario's; nil for none.
	Answers []AnswerSet
}

// HasAnswers reports whether the scenario or one of its turns scripts
// answers to the agent's questions.
func (s *Scenario) HasAnswers() bool {
	if len(s.Answers) > 0 {
		return true
	}
	for _, t := range s.Turns {
		if len(t.Answers) > 0 {
			return true
		}
	}
	return false
}

// PromptText returns the turn's text parts joined with "\n".
func (t Turn) PromptText() string {
	var texts []string
	for _, p := range t.Prompt {
		if p.File == "" && p.Image == "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Part is one content block of a prompt. Exactly one of Text, File and
// Image is set.
type Part struct {
	Pos      Pos
	Text     string
	File     string // absolute path of a file to attach
	Image    string // absolute path of an image
	MimeType string // set for images: image/png, image/jpeg, image/gif or image/webp
}

// CancelCauses are the causes of a cancel that expect.cancelCause may
// name: the scenario's own deadlines (runner's cause names).
var CancelCauses = []string{"turnTimeout", "idleTimeout", "scenarioTimeout"}

// Expect is what a turn (or the whole scenario: every key but StopReasons
// and text) must produce to pass.
type Expect struct {
	// Pos is the expect key's value, or the turn (scenario) when the key is
	// absent.
	Pos Pos

	// StopReasons lists the accepted stop reasons: ACP's, or the outcomes
	// error, agent_exited and unresponsive that acprun records when the
	// agent gave none. Load sets ["end_turn"] for a turn without
	// stopReason; it is nil at the scenario level. StopReasonPos is where
	// the file gave stopReason (zero for the default).
	StopReasons   []string
	StopReasonPos Pos
	// StopReasonSet reports that the file gave stopReason explicitly;
	// it is false when StopReasons is the default ["end_turn"]. A turn that
	// acprun had to cancel passes only when its expect explicitly allows
	// the stop reason it got.
	StopReasonSet bool
	// CancelCauses, when set, are the causes for which acprun may have
	// cancelled the turn (expect.cancelCause, at CancelCausePos): the
	// turn must have been cancelled for one of them. Only the scenario's
	// own causes (CancelCauses) can be named: a cancel for an interrupt,
	// the run's --timeout or --fail-fast meets no expectation.
	CancelCauses   []string
	CancelCausePos Pos

	// TextContains must each appear in the agent's reply, and
	// TextMatches (nil when unset) match it, each where the file gives it.
	TextContains []Located
	TextMatches  *Pattern
	// TextNotContains and TextNotMatches must not appear in the agent's
	// reply (text.notContains, text.notMatches), each where the file
	// gives it.
	TextNotContains []Located
	TextNotMatches  []Pattern

	// PassRate is the scenario's expect.passRate (at PassRatePos): the
	// share of its attempts (run --repeat) that must pass for it to pass,
	// above 0 and at most 1; 0 when unset. Turns have none.
	PassRate    float64
	PassRatePos Pos

	// Denied is the exact number of denied permission requests (and
	// terminal commands), MaxDenied the most there may be; nil when unset.
	// DeniedPos and MaxDeniedPos are where the file gives them.
	Denied, MaxDenied       *int
	DeniedPos, MaxDeniedPos Pos

	// What the agent did; nil when unset.
	ToolCalls   *ToolCallsExpect
	Files       *FilesExpect
	Permissions *PermissionsExpect
	Usage       *UsageExpect
	Judge       *Judge
	// Agent is which agent the scenario must run against (scenario level
	// only); nil when unset.
	Agent   *AgentExpect
	Notices *NoticesExpect
}
