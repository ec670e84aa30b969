package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// handshake is how acprun opens a session with an agent it started, the
// same for a scenario's run and for a probe: initialize, check the protocol
// version, authenticate, session/new (with the MCP servers the agent can
// take) and the session's settings (configure).
type handshake struct {
	caps    acp.ClientCapabilities // what acprun offers as a client
	version string                 // acprun's version, in clientInfo
	// auth is the method to authenticate with; "" for none.
	auth string
	// authOptional makes an auth method the agent does not offer a
	// warning (and no authenticate) instead of an error.
	authOptional bool
	// authPos is where auth was given when a flag gave it (--auth), for
	// the errors about it; zero otherwise.
	authPos scenario.Pos
	// authHint says how to choose a method, in the error when session/new
	// asks for authentication: authHint for a run's scenarios,
	// judgeAuthHint for a judge (see scenarioRun.authHint).
	authHint string
	// authEnv lists the variables the agent's registry entry expects for
	// its credentials, each said set or not (see authEnv), for that error.
	authEnv []string
	// command is how the agent was started, for the errors about
	// authentication: an auth method may ask for arguments it lacks (see
	// launchHint).
	command []string
	// red redacts what the errors show of the agent's answers (see
	// withData).
	red *redact.Redactor
	// wait is how a request not answered by the deadline is cancelled.
	wait setupWait
	cwd  string
	// roots are the session's roots beyond cwd, sent as
	// additionalDirectories when the agent offers them; rootsPos is where
	// they were given (client.roots).
	roots      []string
	rootsPos   scenario.Pos
	mcpServers json.RawMessage // a JSON array; nil for none
	mcpPos     []scenario.Pos  // where each of mcpServers was given
	mode       string          // the session mode to set; "" for none
	modePos    scenario.Pos    // where mode was given
	// model and config are the rest of what to set in the session once
	// opened (see configure).
	model    string
	modelPos scenario.Pos
	config   []scenario.ConfigSetting
	// unasked is the problem of setting the session's mode to one in
	// which the agent does not ask (scenario.Agent.UnaskedMode); nil
	// checks nothing.
	unasked func(key, mode string) string
	// opened, when set, is given the session/new answer before anything
	// else is sent; an error it returns ends the handshake.
	opened func(acp.NewSessionResponse) error
	// resume, when set, continues a recorded session instead of opening a
	// new one (see continueSession); opened then gets the session/load or
	// session/resume answer, as a NewSessionResponse with the session's id.
	resume *resumeSpec
}

// handshakeResult is what the agent answered, as far as the handshake got.
type handshakeResult struct {
	initialized   bool // initialize was answered: init is set
	init          acp.InitializeResponse
	authenticated string                  // the method authenticated with
	session       acp.NewSessionResponse  // set once session/new (or load, resume) was answered
	settings      []report.SessionSetting // what was set in the session, in order
	warnings      []string
	// unanswered is the method whose call failed, when one did: the
	// handshake's error is about it.
	unanswered string
	// method is session/load or session/resume when the handshake tried
	// to continue a recorded session and it was, resumed is set then;
	// fallback says why a recorded session was not continued.
	method   string
	resumed  bool
	fallback string
}

// run performs the handshake over conn. It returns what it got before it
// failed, and why it failed, if it did.
func (h *handshake) run(ctx context.Context, conn *acp.Conn) (res handshakeResult, err error) {
	if res, err = h.initialize(ctx, conn); err != nil {
		return res, err
	}
	warnings := res.warnings
	res, err = h.open(ctx, conn, res)
	res.warnings = append(warnings, res.warnings...)
	return res, err
}

// caller returns a function that calls method on conn and waits for its
// answer (see setupWait.call), recording the method in res when the call
// fails.
func (res *handshakeResult) caller(ctx context.Context, conn *acp.Conn, wait setupWait) func(method string, params, result any) error {
	return func(method string, params, result any) error {
		err := wait.call(ctx, conn, method, params, result)
		if err != nil {
			res.unanswered = method
		}
		return err
	}
}

// initialize is the part of the handshake that is the process's own:
// initialize, the protocol version, authenticate. An agent process that
// serves several scenarios in turn (agent.reuse) does it once.
func (h *handshake) initialize(ctx context.Context, conn *acp.Conn) (res handshakeResult, err error) {
	call := res.caller(ctx, conn, h.wait)
	initReq := acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersion,
		ClientCapabilities: withSessionCaps(h.caps),
		ClientInfo:         &acp.Implementation{Name: "acprun", Title: "acprun", Version: h.version},
	}
	if err := call(acp.MethodInitialize, initReq, &res.init); err != nil {
		if errors.Is(err, acp.ErrNoProtocolVersion) {
			return res, &causeError{report.ErrorProtocolVersion, fmt.Errorf("initialize: the agent gave no protocolVersion (acprun speaks version %d); acprun sent it nothing more", acp.ProtocolVersion)}
		}
		var ia *acp.InvalidAnswerError
		if errors.Is(err, acp.ErrBadProtocolVersion) && errors.As(err, &ia) {
			return res, &causeError{report.ErrorProtocolVersion, fmt.Errorf("initialize: invalid answer: %s (acprun speaks version %d); acprun sent it nothing more", ia.Problem, acp.ProtocolVersion)}
		}
		return res, fmt.Errorf("initialize: %w", err)
	}
	res.initialized = true
	res.warnings = append(res.warnings, malformed(acp.MethodInitialize, res.init.Malformed)...)
	if v := res.init.ProtocolVersion; v != acp.ProtocolVersion {
		return res, versionError(v)
	}
	if h.auth != "" {
		if err := h.authenticate(call, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// open is the part of the handshake that is the session's: session/new
// (or the recorded session continued) and its settings, on a process
// initialized as init says. Its warnings are its own, not init's.
func (h *handshake) open(ctx context.Context, conn *acp.Conn, init handshakeResult) (res handshakeResult, err error) {
	res = init
	res.warnings = nil
	call := res.caller(ctx, conn, h.wait)
	var servers []acp.McpServer
	if len(h.mcpServers) > 0 {
		if err := json.Unmarshal(h.mcpServers, &servers); err != nil {
			return res, fmt.Errorf("mcpServers: %w", err)
		}
	}
	servers, dropped := filterMcpServers(servers, h.mcpPos, res.init.AgentCapabilities.McpCapabilities)
	res.warnings = append(res.warnings, dropped...)
	dirs := h.additionalDirectories(&res)
	resumed, err := h.continueSession(call, &res, servers, dirs)
	if err != nil {
		return res, err
	}
	if !resumed {
		if err := call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: h.cwd, AdditionalDirectories: dirs, McpServers: servers}, &res.session); err != nil {
			if isAuthError(err) {
				return res, h.authError(&res, acp.MethodSessionNew, err)
			}
			return res, fmt.Errorf("session/new: %w%s", withData(h.red, err), h.unsetEnvHint())
		}
	}
	method := acp.MethodSessionNew
	if resumed {
		method = res.method
	}
	res.warnings = append(res.warnings, malformed(method, res.session.Malformed)...)
	if h.opened != nil {
		if err := h.opened(res.session); err != nil {
			return res, err
		}
	}
	set, warnings, err := h.configure(ctx, conn, res.session)
	res.settings = set
	res.warnings = append(res.warnings, warnings...)
	return res, err
}

// malformed says what a lenient decode of method's answer replaced (its
// Malformed), as session/update's are said: protocol violations, each
// field taking its default. They are warnings, not violations that cost
// a pooled process its reuse: the answer was usable.
func malformed(method string, fields []string) []string {
	return mapped(fields, func(m string) string {
		return fmt.Sprintf("protocol violation: %s: %s", method, m)
	})
}

// authHint is how a run's scenarios choose an auth method;
// judgeAuthHint how a judge does: --auth does not reach it.
const (
	authHint      = "set agent.auth, or run with --auth, to"
	judgeAuthHint = "set the judge's agent.auth to"
)

// authHint is how the agent of r chooses an auth method: authHint, or
// judgeAuthHint for a judge's run.
func (r *scenarioRun) authHint() string {
	if r.opts.judging != "" {
		return judgeAuthHint
	}
	return authHint
}

// authenticate sends authenticate with h.auth, if the agent offers it.
func (h *handshake) authenticate(call func(method string, params, result any) error, res *handshakeResult) error {
	if err := checkAuthMethod(res.init.AuthMethods, h.auth); err != nil {
		offered := slices.ContainsFunc(res.init.AuthMethods, func(m acp.AuthMethod) bool { return m.ID == h.auth })
		if !offered && h.authOptional {
			res.warnings = append(res.warnings, fmt.Sprintf("the agent offers no auth method %q; not authenticated", h.auth))
			return nil
		}
		return &causeError{report.ErrorAuth, atPos(h.authPos, fmt.Errorf("authenticate: %w", err))}
	}
	if err := call(acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: h.auth}, nil); err != nil {
		var ae *acp.Error
		if errors.As(err, &ae) { // the agent refused it: timeouts and crashes are not about authentication
			return &causeError{report.ErrorAuth, atPos(h.authPos, fmt.Errorf("authenticate %q: the agent refused it%s%s: %w",
				h.auth, h.launchHint(res.init.AuthMethods, h.auth), h.envHint(), err))}
		}
		return fmt.Errorf("authenticate %q: %w", h.auth, err)
	}
	res.authenticated = h.auth
	return nil
}

// checkAuthMethod reports why id cannot be sent in authenticate: the agent
// does not offer it, or it is a terminal login, which the protocol forbids
// sending (the user runs it in a terminal instead).
func checkAuthMethod(ms []acp.AuthMethod, id string) error {
	for _, m := range ms {
		if m.ID != id {
			continue
		}
		if m.Type == acp.AuthTypeTerminal {
			return fmt.Errorf("auth method %q is a terminal login (type: terminal), which a client must not send in authenticate: log in once by running the agent's login in a terminal, or choose another method (it offers: %s)", id, authMethodIDs(ms))
		}
		return nil
	}
	return fmt.Errorf("the agent offers no auth method %q (it offers: %s)", id, authMethodIDs(ms))
}

// authMethodIDs lists the ids of ms, "none" when there are none.
func authMethodIDs(ms []acp.AuthMethod) string {
	return listOrNone(mapped(ms, func(m acp.AuthMethod) string { return m.ID }))
}

// metaLaunch is what an agent may say in an auth method's _meta in the
// shape of a terminal method ({"type": "terminal", "args": [...]}): that
// the agent must be started with args for the method to work, as
// qwen-code's "openai" says of --auth-type=openai.
type metaLaunch struct {
	Type string   `json:"type"`
	Args []string `json:"args"`
}

// launchArgs are the arguments m's _meta asks the agent be started with,
// nil for none. The _meta is the agent's own, not the protocol's: it is a
// hint for the errors, never a reason to refuse the method (it may still
// be sent in authenticate), and one that does not parse says nothing.
func launchArgs(m acp.AuthMethod) []string {
	var l metaLaunch
	if len(m.Meta) == 0 || json.Unmarshal(m.Meta, &l) != nil || l.Type != acp.AuthTypeTerminal {
		return nil
	}
	return l.Args
}

// launchHint says which of ms (only the method id, unless id is "") ask
// in their _meta that the agent be started with arguments its command
// lacks: "; its auth method "openai" says to start the agent with
// --auth-type=openai, which its command lacks", or "".
func (h *handshake) launchHint(ms []acp.AuthMethod, id string) string {
	var b strings.Builder
	for _, m := range ms {
		args := launchArgs(m)
		if (id != "" && m.ID != id) || len(args) == 0 || hasArgs(h.command, args) {
			continue
		}
		fmt.Fprintf(&b, "; its auth method %q says to start the agent with %s, which its command lacks",
			m.ID, shorten(h.red, shellquote.Join(args), maxShownData))
	}
	return b.String()
}

// hasArgs reports whether args are in the arguments of command, in order
// and side by side.
func hasArgs(command, args []string) bool {
	if len(command) == 0 {
		return false
	}
	rest := command[1:]
	for i := 0; i+len(args) <= len(rest); i++ {
		if slices.Equal(rest[i:i+len(args)], args) {
			return true
		}
	}
	return false
}
