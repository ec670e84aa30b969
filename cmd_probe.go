package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kong"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// How long probe listens for session updates after session/new: until the
// agent has been quiet for probeQuiet, at most probeSettle.
const (
	probeQuiet  = 500 * time.Millisecond
	probeSettle = 3 * time.Second
	// probeGrace is how long the agent gets to exit after its stdin is
	// closed, and again after SIGTERM.
	probeGrace = 2 * time.Second
)

// errProbeTimeout is the cause of the probe's context when --timeout passes.
var errProbeTimeout = errors.New("probe timeout")

// probeCmd is `acprun probe NAME` and `acprun probe -- COMMAND ARGS…`.
type probeCmd struct {
	Target  []string `arg:"" name:"agent" help:"A named agent (see acprun agents), or -- and the command of an agent."`
	Config  string   `placeholder:"FILE" help:"Config file with named agents (default: acprun.yaml in the working directory, if any)."`
	JSON    bool     `name:"json" help:"Print what the agent offers as JSON on stdout."`
	Auth    string   `placeholder:"METHOD" help:"Authenticate with this method id before session/new (default: the named agent's auth)."`
	Timeout duration `placeholder:"DUR" default:"30s" help:"Time limit for the whole probe."`
}

// Help is the long help of probe.
func (c *probeCmd) Help() string {
	return `Starts an agent, initializes it, opens a session in the working directory
(or the named agent's cwd) and prints what it offers: protocol version, agentInfo,
capabilities, auth methods, modes, config options and slash commands (session
updates are collected until the agent has been quiet for 0.5s, at most 3s).
Then it stops the agent. acprun offers no fs or terminal methods to the agent and
cancels any permission request.

  acprun probe claude
  acprun probe -- npx -y @zed-industries/claude-agent-acp
  acprun probe --json -- acprun mock-agent examples/agents/basic.mock.yaml

Exit codes:
  0    the agent initialized and opened a session
  2    usage or config file errors, or an unknown agent name
  3    the agent could not be started, initialized, authenticated or open a session
       (what it offered until then is still printed)
  130  interrupted`
}

// probeReport is what probe found out, printed as text or JSON.
type probeReport struct {
	Agent           string                    `json:"agent,omitempty"` // the named agent
	Command         []string                  `json:"command"`
	Cwd             string                    `json:"cwd"`
	ProtocolVersion int                       `json:"protocolVersion,omitempty"`
	AgentInfo       *acp.Implementation       `json:"agentInfo,omitempty"`
	Capabilities    *acp.AgentCapabilities    `json:"agentCapabilities,omitempty"`
	AuthMethods     []acp.AuthMethod          `json:"authMethods"`
	Authenticated   string                    `json:"authenticated,omitempty"` // the method used
	SessionID       string                    `json:"sessionId,omitempty"`
	Modes           *acp.SessionModeState     `json:"modes,omitempty"`
	ConfigOptions   []acp.SessionConfigOption `json:"configOptions"`
	Models          *acp.SessionModelState    `json:"models,omitempty"`
	Commands        []acp.AvailableCommand    `json:"availableCommands"`
	// Updates counts the other session updates by kind.
	Updates    map[string]int `json:"otherUpdates,omitempty"`
	Warnings   []string       `json:"warnings,omitempty"`
	Error      string         `json:"error,omitempty"`
	StderrTail string         `json:"stderrTail,omitempty"`
}

// Run probes the agent.
func (c *probeCmd) Run(ctx context.Context, g *globals, kctx *kong.Context) error {
	cfg, err := loadConfig(c.Config)
	if err != nil {
		return usageError(g, err)
	}
	rep := probeReport{AuthMethods: []acp.AuthMethod{}, ConfigOptions: []acp.SessionConfigOption{},
		Commands: []acp.AvailableCommand{}}
	var agent scenario.Agent
	switch {
	case slices.Contains(kctx.Args, "--"):
		agent.Command = c.Target
	case len(c.Target) == 1:
		agent, err = scenario.ResolveAgent(c.Target[0], scenario.LoadOptions{Config: cfg})
		var errs scenario.Errors
		if errors.As(err, &errs) {
			return usageError(g, err) // one positioned problem per line
		} else if err != nil {
			return exitError{code: exitUsage, err: err}
		}
		rep.Agent = agent.Name
		if slices.Equal(agent.Command, []string{"acprun", "mock-agent"}) {
			return exitError{code: exitUsage, err: errors.New("the mock agent needs its script: acprun probe -- acprun mock-agent SCRIPT")}
		}
	default:
		return exitError{code: exitUsage, err: fmt.Errorf("give one agent name, or -- and a command: acprun probe -- %s", shellJoin(c.Target))}
	}
	if len(agent.Command) == 0 {
		return exitError{code: exitUsage, err: errors.New("give the agent's command after --")}
	}
	auth := agent.Auth
	if c.Auth != "" {
		auth = c.Auth
	}
	self, _ := os.Executable()
	rep.Command = runner.AgentArgv(agent.Command, self)
	rep.Cwd = agent.Cwd
	if rep.Cwd == "" {
		if rep.Cwd, err = os.Getwd(); err != nil {
			return exitError{code: exitFailed, err: fmt.Errorf("working directory: %w", err)}
		}
	}

	pctx, cancel := context.WithTimeoutCause(ctx, c.Timeout.d, errProbeTimeout)
	defer cancel()
	perr := probe(pctx, g.Abort, &rep, runner.MergeEnv(os.Environ(), agent.Env), auth)
	code := exitOK
	switch {
	case perr == nil:
		rep.StderrTail = "" // shown only to explain a failure
	case errors.Is(context.Cause(ctx), errInterrupted):
		code, rep.Error = exitInterrupted, "interrupted"
	case errors.Is(context.Cause(pctx), errProbeTimeout):
		perr = fmt.Errorf("probe timed out after %s: %w", c.Timeout.d, perr)
		code, rep.Error = exitAgent, perr.Error()
	default:
		code, rep.Error = exitAgent, perr.Error()
	}
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := printProbe(g.Stdout, &rep); err != nil {
		return err
	}
	switch code {
	case exitOK:
		return nil
	case exitInterrupted:
		return exitError{code: code}
	}
	if rep.StderrTail != "" && !c.JSON {
		fmt.Fprintf(g.Stderr, "agent stderr (last lines):\n%s\n", tailLines(rep.StderrTail, 20))
	}
	return exitError{code: code, err: perr}
}

// probe starts the agent, initializes it, authenticates when auth is set,
// opens a session, listens for its updates a moment and stops the agent,
// filling rep as it goes. It returns what went wrong, if anything.
func probe(ctx context.Context, abort <-chan struct{}, rep *probeReport, env []string, auth string) (err error) {
	h := &probeHandler{arrived: make(chan struct{}, 1)}
	a, err := runner.StartAgent(runner.AgentConfig{
		Argv:    rep.Command,
		Env:     env,
		Dir:     rep.Cwd,
		Handler: h,
		Conn:    &acp.Options{Peer: "agent"},
	})
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if errors.Is(context.Cause(ctx), errProbeTimeout) {
			cancel() // out of time: no grace
		}
		go func() {
			select {
			case <-abort:
				cancel()
			case <-closeCtx.Done():
			}
		}()
		a.Close(closeCtx, probeGrace)
		rep.StderrTail = a.StderrTail()
		if errors.Is(err, acp.ErrClosed) { // the agent went away: say how
			if code, sig := a.ExitStatus(); sig != "" {
				err = fmt.Errorf("the agent was killed by %s: %w", sig, err)
			} else if code != nil && *code != 0 {
				err = fmt.Errorf("the agent exited with code %d: %w", *code, err)
			}
		}
	}()
	call := func(method string, params, result any) error {
		return a.Conn.Call(ctx, method, params).Await(ctx, result)
	}

	var ir acp.InitializeResponse
	if err := call(acp.MethodInitialize, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersion,
		ClientInfo:      &acp.Implementation{Name: "acprun", Title: "acprun", Version: version},
	}, &ir); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	rep.ProtocolVersion = ir.ProtocolVersion
	rep.AgentInfo = ir.AgentInfo
	rep.Capabilities = &ir.AgentCapabilities
	if ir.AuthMethods != nil {
		rep.AuthMethods = ir.AuthMethods
	}
	if ir.ProtocolVersion != acp.ProtocolVersion {
		return fmt.Errorf("initialize: the agent speaks ACP protocol version %d; acprun speaks version %d", ir.ProtocolVersion, acp.ProtocolVersion)
	}
	if auth != "" {
		offered := slices.ContainsFunc(ir.AuthMethods, func(m acp.AuthMethod) bool { return m.ID == auth })
		switch err := runner.CheckAuthMethod(ir.AuthMethods, auth); {
		case !offered:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the agent offers no auth method %q; not authenticated", auth))
		case err != nil:
			return fmt.Errorf("authenticate: %w", err)
		default:
			if err := call(acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: auth}, nil); err != nil {
				return fmt.Errorf("authenticate %q: %w", auth, err)
			}
			rep.Authenticated = auth
		}
	}
	var ns acp.NewSessionResponse
	if err := call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: rep.Cwd, McpServers: []acp.McpServer{}}, &ns); err != nil {
		var ae *acp.Error
		if errors.As(err, &ae) && ae.Code == acp.CodeAuthRequired {
			var ids []string
			for _, m := range ir.AuthMethods {
				ids = append(ids, m.ID)
			}
			return fmt.Errorf("session/new: the agent requires authentication (try --auth with one of: %s): %w", strings.Join(ids, ", "), err)
		}
		return fmt.Errorf("session/new: %w", err)
	}
	before := h.count()
	rep.SessionID, rep.Modes, rep.Models = ns.SessionID, ns.Modes, ns.Models
	if ns.ConfigOptions != nil {
		rep.ConfigOptions = ns.ConfigOptions
	}
	settle(ctx, h.arrived, a.Exited())
	h.apply(rep, before)
	return nil
}

// settle returns once no signal has come on arrived for probeQuiet, after
// at most probeSettle, or when ctx ends or exited is closed.
func settle(ctx context.Context, arrived <-chan struct{}, exited <-chan struct{}) {
	quiet := time.NewTimer(probeQuiet)
	defer quiet.Stop()
	bound := time.NewTimer(probeSettle)
	defer bound.Stop()
	for {
		select {
		case <-arrived:
			quiet.Reset(probeQuiet)
		case <-quiet.C:
			return
		case <-bound.C:
			return
		case <-ctx.Done():
			return
		case <-exited:
			return
		}
	}
}

// probeHandler answers the agent's requests during a probe: permission
// requests are cancelled, every other request is -32601. It records session
// updates.
type probeHandler struct {
	arrived chan struct{} // 1-buffered: an update arrived

	mu      sync.Mutex
	updates []acp.SessionUpdate
}

// Handle implements acp.Handler.
func (h *probeHandler) Handle(_ context.Context, req *acp.Request) (any, error) {
	switch req.Method {
	case acp.MethodSessionUpdate:
		var n acp.SessionNotification
		if err := json.Unmarshal(req.Params, &n); err != nil {
			return nil, nil // a notification: nothing to answer
		}
		h.mu.Lock()
		h.updates = append(h.updates, n.Update)
		h.mu.Unlock()
		select {
		case h.arrived <- struct{}{}:
		default:
		}
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
func (h *probeHandler) apply(rep *probeReport, before int) {
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

// printProbe writes the report for people.
func printProbe(w io.Writer, rep *probeReport) error {
	var buf bytes.Buffer
	if err := writeProbe(&buf, rep); err != nil {
		return err
	}
	// Headings have an empty second column; drop its padding.
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// writeProbe writes the report as aligned lines.
func writeProbe(w io.Writer, rep *probeReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(format string, args ...any) { fmt.Fprintf(tw, format+"\n", args...) }
	if rep.Agent != "" {
		line("named agent:\t%s", rep.Agent)
	}
	line("command:\t%s", shellJoin(rep.Command))
	line("cwd:\t%s", rep.Cwd)
	if rep.Capabilities == nil { // initialize never answered
		return tw.Flush()
	}
	line("protocol version:\t%d", rep.ProtocolVersion)
	if i := rep.AgentInfo; i != nil {
		info := i.Name + " " + i.Version
		if i.Title != "" {
			info += fmt.Sprintf(" (%s)", i.Title)
		}
		line("agent info:\t%s", info)
	} else {
		line("agent info:\tnone")
	}
	caps := rep.Capabilities
	line("capabilities:\t")
	line("  loadSession\t%s", yesNo(caps.LoadSession))
	pc := caps.PromptCapabilities
	line("  prompt\t%s", capList("text, resource_link", capFlag{pc.Image, "image"}, capFlag{pc.Audio, "audio"},
		capFlag{pc.EmbeddedContext, "embeddedContext"}))
	line("  mcp\t%s", capList("stdio", capFlag{caps.McpCapabilities.HTTP, "http"}, capFlag{caps.McpCapabilities.SSE, "sse"}))
	s := caps.SessionCapabilities
	line("  session\t%s", capList("", capFlag{s.List != nil, "list"}, capFlag{s.Delete != nil, "delete"},
		capFlag{s.AdditionalDirectories != nil, "additionalDirectories"}, capFlag{s.Resume != nil, "resume"},
		capFlag{s.Close != nil, "close"}))
	line("  auth\t%s", capList("", capFlag{caps.Auth.Logout != nil, "logout"}))
	if len(rep.AuthMethods) == 0 {
		line("auth methods:\tnone")
	} else {
		line("auth methods:\t")
		for _, m := range rep.AuthMethods {
			kind := m.Type
			if kind == "" {
				kind = acp.AuthTypeAgent
			}
			line("  %s\t%s [%s]%s", m.ID, m.Name, kind, descSuffix(m.Description))
		}
	}
	if rep.Authenticated != "" {
		line("authenticated:\t%s", rep.Authenticated)
	}
	if rep.SessionID == "" {
		return tw.Flush()
	}
	line("session:\t%s", rep.SessionID)
	if m := rep.Modes; m == nil || len(m.AvailableModes) == 0 {
		line("modes:\tnone")
	} else {
		line("modes:\tcurrent %s", m.CurrentModeID)
		for _, md := range m.AvailableModes {
			line("  %s\t%s%s", md.ID, md.Name, descSuffix(md.Description))
		}
	}
	if len(rep.ConfigOptions) == 0 {
		line("config options:\tnone")
	} else {
		line("config options:\t")
		for _, o := range rep.ConfigOptions {
			var values []string
			for _, v := range o.Options.All() {
				values = append(values, v.Value)
			}
			choices := ""
			if len(values) > 0 {
				choices = " of " + strings.Join(values, ", ")
			}
			line("  %s\t%s (%s) = %v%s%s", o.ID, o.Name, o.Type, o.CurrentValue, choices, descSuffix(o.Description))
		}
	}
	if m := rep.Models; m != nil && len(m.AvailableModels) > 0 {
		line("models (legacy):\tcurrent %s", m.CurrentModelID)
		for _, md := range m.AvailableModels {
			line("  %s\t%s%s", md.ModelID, md.Name, descSuffix(md.Description))
		}
	}
	if len(rep.Commands) == 0 {
		line("commands:\tnone")
	} else {
		line("commands:\t")
		for _, cmd := range rep.Commands {
			hint := ""
			if cmd.Input != nil && cmd.Input.Hint != "" {
				hint = " <" + cmd.Input.Hint + ">"
			}
			line("  /%s%s\t%s", cmd.Name, hint, oneLine(cmd.Description))
		}
	}
	if len(rep.Updates) > 0 {
		var kinds []string
		for _, k := range slices.Sorted(maps.Keys(rep.Updates)) {
			kinds = append(kinds, fmt.Sprintf("%s ×%d", k, rep.Updates[k]))
		}
		line("other updates:\t%s", strings.Join(kinds, ", "))
	}
	for _, warn := range rep.Warnings {
		line("warning:\t%s", warn)
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// capFlag is one optional capability: its name and whether it is offered.
type capFlag struct {
	on   bool
	name string
}

// capList lists base and the names of the capabilities offered; "none"
// when that is nothing.
func capList(base string, caps ...capFlag) string {
	var out []string
	if base != "" {
		out = append(out, base)
	}
	for _, c := range caps {
		if c.on {
			out = append(out, c.name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// descSuffix returns " — s" for a non-empty s, on one line.
func descSuffix(s string) string {
	if s = oneLine(s); s == "" {
		return ""
	}
	return " — " + s
}

// tailLines returns the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
