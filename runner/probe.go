package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/scenario"
)

// How long Probe listens for session updates after session/new: until the
// agent has been quiet for probeQuiet, at most probeSettle (waitQuiet).
const (
	probeQuiet  = 500 * time.Millisecond
	probeSettle = 3 * time.Second
	// probeGrace is how long the agent gets to exit after its stdin is
	// closed, and again after SIGTERM.
	probeGrace = 2 * time.Second
	// probeViolations is how many protocol violations the probe's
	// warnings quote; the others are counted.
	probeViolations = 3
)

// errProbeTimeout is the cause of the probe's context when its Timeout
// passes.
var errProbeTimeout = errors.New("probe timeout")

// ProbeOptions says which agent Probe starts and how.
type ProbeOptions struct {
	// Agent is the agent to probe: its command, env, cwd and auth method
	// (authenticated with before session/new when set); Name, when set, is
	// reported. Mode, Model, Config and McpServers are not used. Cwd must be set.
	Agent scenario.Agent
	// Timeout bounds the whole probe; none when zero.
	Timeout time.Duration
	// Abort, when closed, cuts the agent's grace periods short: it is
	// killed at once (a second Ctrl-C).
	Abort <-chan struct{}
	// Guard, when set, is the guard of the agent and what it starts
	// (StartGuard), which the caller closes once it has written the
	// probe's outputs; nil: Probe starts one and closes it at its end.
	Guard *Guard
	// Self is the acprun executable, run for a command starting with
	// "acprun". Default: os.Executable.
	Self string
	// Environ is the environment the agent starts with, before its env.
	// Default: os.Environ().
	Environ []string
	// Version is reported to the agent in clientInfo.
	Version string
	// Config is the config file the agent was named in, nil for none: the
	// probe's outputs are redacted of the secrets of its agents too, as a
	// run's are (runRedactor).
	Config *scenario.Config
}

// ProbeReport is what Probe found out about an agent: what it offers, as
// far as the probe got. Lists are empty, not nil, when the agent offers
// nothing.
type ProbeReport struct {
	Agent           string                    `json:"agent,omitempty"` // the named agent
	Command         []string                  `json:"command"`         // the argv started
	Cwd             string                    `json:"cwd"`
	ProtocolVersion int                       `json:"protocolVersion,omitempty"`
	AgentInfo       *acp.Implementation       `json:"agentInfo,omitempty"`
	Capabilities    *acp.AgentCapabilities    `json:"agentCapabilities,omitempty"` // nil: initialize never answered
	AuthMethods     []acp.AuthMethod          `json:"authMethods"`
	Authenticated   string                    `json:"authenticated,omitempty"` // the method used
	SessionID       string                    `json:"sessionId,omitempty"`     // "": no session was opened
	Modes           *acp.SessionModeState     `json:"modes,omitempty"`
	ConfigOptions   []acp.SessionConfigOption `json:"configOptions"`
	Models          *acp.SessionModelState    `json:"models,omitempty"`
	Commands        []acp.AvailableCommand    `json:"availableCommands"`
	// Updates counts the other session updates by kind.
	Updates  map[string]int `json:"otherUpdates,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
	// Error says why the probe failed; "" when it did not.
	Error string `json:"error,omitempty"`
	// StderrTail is the end of the agent's stderr, kept only when the
	// probe failed.
	StderrTail string `json:"stderrTail,omitempty"`
}

// Probe starts the agent, initializes it, authenticates when its Auth is
// set, opens a session in its Cwd, listens for the session's updates until
// the agent has been quiet for 0.5s (at most 3s) and stops the agent. The
// agent is offered no fs or terminal methods, and its permission requests
// are cancelled.
//
// The report holds what the agent offered until the probe ended. The error
// says why the probe failed (the agent could not be started, initialized,
// authenticated or open a session, or Timeout passed); Error is its text.
// The report and the error's text are redacted as a run's results are
// (runRedactor): of the values of the agent's env and of the env of the
// agents of Config, and of the secret-looking variables of Environ, but
// for the agents' names, the words of the protocol and acprun's own.
func Probe(ctx context.Context, opts ProbeOptions) (rep ProbeReport, err error) {
	opts.Self, opts.Environ = processDefaults(opts.Self, opts.Environ)
	rep = ProbeReport{
		Agent:         opts.Agent.Name,
		Command:       ResolveCommand(opts.Agent.Command, "", opts.Agent.Cwd, opts.Self).Argv,
		Cwd:           opts.Agent.Cwd,
		AuthMethods:   []acp.AuthMethod{},
		ConfigOptions: []acp.SessionConfigOption{},
		Commands:      []acp.AvailableCommand{},
	}
	pctx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeoutCause(ctx, opts.Timeout, errProbeTimeout)
		defer cancel()
	}
	// What the agent said, its stderr and the error are redacted as a
	// run's outputs are: of the values of the agent's env (and of the
	// config's agents) and of the secret-looking variables of the
	// environment it starts with.
	red := runRedactor(nil, opts.Environ, opts.Config, append(configAgents(opts.Config), opts.Agent)...)
	defer red.Value(&rep) // after every return below: rep is the named result
	err = probe(pctx, &opts, &rep, red)
	if err == nil {
		rep.StderrTail = "" // shown only to explain a failure
		return rep, nil
	}
	if errors.Is(context.Cause(pctx), errProbeTimeout) {
		err = fmt.Errorf("probe timed out after %s: %w", opts.Timeout, err)
	}
	err = red.Error(err)
	rep.Error = err.Error()
	return rep, err
}

// probe does the work of Probe, filling rep as it goes; the agent's
// stderr is redacted with red, as it is cut.
func probe(ctx context.Context, opts *ProbeOptions, rep *ProbeReport, red *redact.Redactor) (err error) {
	if len(rep.Command) > 0 {
		if e := CheckProgram(&opts.Agent, rep.Command[0], rep.Cwd); e != nil {
			return e // as a run says it, not as exec does
		}
	}
	// As a run's, the agent and what it starts carry the guard's mark:
	// the guard kills them when acprun is killed.
	guard, closeGuard := guardOf(opts.Guard, opts.Self, opts.Environ)
	defer closeGuard()
	h := &probeHandler{red: red}
	act := newActivity()
	a, err := startAgent(agentConfig{
		Argv:    rep.Command,
		Env:     guard.mark.Set(mergeEnv(opts.Environ, opts.Agent.Env)),
		Dir:     rep.Cwd,
		Handler: h,
		Conn:    &acp.Options{Peer: "agent", OnViolation: h.violation, Tap: h.tap},
	})
	if err != nil {
		return err
	}
	unanswered := "" // the handshake's call the agent left unanswered
	defer func() {
		closeCtx, cancel := untilAbort(context.Background(), opts.Abort)
		defer cancel()
		if errors.Is(context.Cause(ctx), errProbeTimeout) {
			cancel() // out of time: no grace
		}
		// The graces end at the probe's deadline: its time limit is the
		// whole probe's, the agent's stop included.
		deadline, _ := ctx.Deadline()
		// An agent whose output ended is waited for, before acprun stops
		// it, to tell one that exited from one that only closed its
		// output (scenarioRun.exitDescription).
		exited := !wentAway(err) || a.exitsWithin(closeCtx, graceUntil(probeGrace, deadline))
		a.CloseAfter(closeCtx, probeGrace, probeGrace, deadline)
		rep.StderrTail = a.StderrTail(red)
		// The agent went away: say how, unless it exited with 0, as a run
		// does (scenarioRun.gone).
		if wentAway(err) {
			if !exited {
				if unanswered != "" {
					err = fmt.Errorf("the agent closed its output before answering %s", unanswered)
				} else {
					err = fmt.Errorf("the agent closed its output: %w", err)
				}
			} else if code, sig := a.ExitStatus(); sig != "" || code != nil && *code != 0 {
				if unanswered != "" {
					err = fmt.Errorf("%s before answering %s", a.exitReason(), unanswered)
				} else {
					err = fmt.Errorf("%s: %w", a.exitReason(), err)
				}
			}
		}
		rep.Warnings = append(rep.Warnings, h.violationWarnings()...)
		if only := h.noJSON(); err != nil && only != "" {
			err = fmt.Errorf("%w; %s", err, only)
		}
	}()

	before := 0 // the updates that came before the session/new answer
	hs := handshake{
		red:          red,
		version:      opts.Version,
		auth:         opts.Agent.Auth,
		authOptional: true,
		authHint:     "try --auth with",
		authEnv:      AuthEnv(opts.Agent, opts.Environ),
		command:      opts.Agent.Command,
		cwd:          rep.Cwd,
		opened: func(acp.NewSessionResponse) error {
			before = h.count()
			return nil
		},
	}
	got, err := hs.run(ctx, a.Conn)
	unanswered = got.unanswered
	if got.initialized {
		ir := got.init
		rep.ProtocolVersion = ir.ProtocolVersion
		rep.AgentInfo = ir.AgentInfo
		rep.Capabilities = &ir.AgentCapabilities
		if ir.AuthMethods != nil {
			rep.AuthMethods = ir.AuthMethods
		}
	}
	rep.Authenticated = got.authenticated
	rep.Warnings = append(rep.Warnings, got.warnings...)
	if err != nil {
		return err
	}
	ns := got.session
	rep.SessionID, rep.Modes, rep.Models = ns.SessionID, ns.Modes, ns.Models
	if ns.ConfigOptions != nil {
		rep.ConfigOptions = ns.ConfigOptions
	}
	// probeSettle bounds the whole wait, an agent that floods acprun too
	// (waitQuiet waits on while acprun is behind); what was read by then
	// is handled.
	sctx, cancel := context.WithTimeout(ctx, probeSettle)
	act.waitQuiet(sctx, a.Conn, probeQuiet, probeSettle, a.Exited())
	cancel()
	_ = a.Conn.WaitHandled(ctx) // the end of ctx is the probe's timeout
	h.apply(rep, before)
	return nil
}

// graceUntil is grace cut short to what is left of it before deadline
// (none once deadline has passed); grace itself for a zero deadline.
func graceUntil(grace time.Duration, deadline time.Time) time.Duration {
	if deadline.IsZero() {
		return grace
	}
	return max(min(grace, time.Until(deadline)), 0)
}

// probeHandler answers the agent's requests during a probe: permission
// requests are cancelled, every other request is -32601. It records session
// updates, and what the agent sent that broke the protocol.
type probeHandler struct {
	red     *redact.Redactor // redacts first (see shorten)
	mu      sync.Mutex
	updates []acp.SessionUpdate
	// violations are the first probeViolations protocol violations,
	// lost how many more there were.
	violations []string
	lost       int
	// json says that a line the agent printed was a JSON object; text
	// counts the others (blank lines aside), first is the first of them.
	json  bool
	text  int
	first string
}

// violation is the connection's acp.Options.OnViolation.
func (h *probeHandler) violation(v acp.Violation) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.violations) < probeViolations {
		h.violations = append(h.violations, violationText(h.red, v))
	} else {
		h.lost++
	}
}

// violationWarnings are the probe's warnings of the protocol violations.
func (h *probeHandler) violationWarnings() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := mapped(h.violations, func(v string) string { return "protocol violation: " + v })
	if h.lost > 0 {
		out = append(out, plural(h.lost, "more protocol violation", "more protocol violations"))
	}
	return out
}

// tap is the connection's acp.Options.Tap: it notes whether the agent
// printed JSON, and what else it printed.
func (h *probeHandler) tap(dir acp.Direction, line []byte, _ time.Time) {
	line = bytes.TrimSpace(line)
	if dir != acp.Received || len(line) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if line[0] == '{' && json.Valid(line) {
		h.json = true
		return
	}
	if h.text == 0 {
		h.first = shorten(h.red, string(line), 200)
	}
	h.text++
}

// noJSON says what the agent printed when none of it was JSON, which
// explains why it never answered (a program that is no ACP agent, or one
// started without the arguments that make it one); "" when it printed JSON,
// or nothing.
func (h *probeHandler) noJSON() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.json || h.text == 0 {
		return ""
	}
	s := "the agent printed no JSON-RPC message, only: " + strconv.Quote(h.first)
	if h.text > 1 {
		s += " and " + plural(h.text-1, "more line", "more lines")
	}
	return s
}

// Handle implements acp.Handler.
func (h *probeHandler) Handle(_ context.Context, req *acp.Request) (any, error) {
	switch req.Method {
	case acp.MethodSessionUpdate:
		n, err := acp.DecodeSessionNotification(req.Params)
		if err != nil {
			return nil, nil // a notification: nothing to answer
		}
		h.mu.Lock()
		h.updates = append(h.updates, n.Update)
		h.mu.Unlock()
		return nil, nil
	case acp.MethodSessionRequestPermission:
		return acp.Cancelled(), nil
	}
	if req.IsNotification() {
		return nil, nil
	}
	return nil, acp.MethodNotFound(req.Method)
}

// count returns how many updates arrived so far.
func (h *probeHandler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.updates)
}

// apply brings rep up to date with the updates. Mode and config option
// updates that came before the session/new answer (the first before) are
// older than it and ignored.
func (h *probeHandler) apply(rep *ProbeReport, before int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, u := range h.updates {
		switch {
		case u.AvailableCommandsUpdate != nil:
			rep.Commands = u.AvailableCommandsUpdate.AvailableCommands
			if rep.Commands == nil {
				rep.Commands = []acp.AvailableCommand{}
			}
		case u.CurrentModeUpdate != nil && i >= before:
			if rep.Modes != nil {
				rep.Modes.CurrentModeID = u.CurrentModeUpdate.CurrentModeID
			}
		case u.ConfigOptionUpdate != nil && i >= before:
			rep.ConfigOptions = u.ConfigOptionUpdate.ConfigOptions
		default:
			if rep.Updates == nil {
				rep.Updates = map[string]int{}
			}
			rep.Updates[u.Kind]++
		}
	}
}
