package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/replay"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// explainCmd is `acprun explain SCENARIO`.
type explainCmd struct {
	File     string   `arg:"" optional:"" name:"scenario-file" help:"Scenario file whose permission rules to apply. Without it, the rules a run without a scenario file applies (run --agent NAME --prompt TEXT): the config's default permissions and --allow and --deny."`
	Scenario string   `placeholder:"NAME" help:"Which scenario of the file (default: the only one)."`
	Request  string   `placeholder:"REQ.json" help:"A recorded session/request_permission params object (or the whole JSON-RPC message); - reads stdin. Only what the request itself says: see --transcript."`
	Kind     string   `placeholder:"KIND" help:"Tool kind of a made-up request (read, edit, execute, ...)."`
	Tool     string   `placeholder:"NAME" help:"Tool name of a made-up request (ToolCall.name: Bash, mcp__github__create_issue, ...)."`
	Title    string   `placeholder:"TITLE" help:"Title of a made-up request."`
	Command  string   `placeholder:"COMMAND" help:"Shell command of a made-up request (sent as rawInput.command)."`
	Path     []string `sep:"none" help:"Path the made-up request touches (repeatable)."`
	configFlag
	ruleFlags
	gatewayFlags `set:"gatewayDoes=Load the scenario as run --gateway MODE loads it, with acprun's model gateway between its agent and its model provider"`
	// Transcript is the path as given, so that errors name the file as
	// the user wrote it.
	Transcript string     `placeholder:"T.jsonl" help:"Transcript of a run (run --transcripts DIR): explain the permission request of --tool-call as run saw it, merged onto what the turn said of the tool call before it."`
	ToolCall   string     `name:"tool-call" placeholder:"ID" help:"With --transcript: the toolCallId whose permission request to explain."`
	Index      atLeastOne `placeholder:"N" help:"With --tool-call: which of the tool call's permission requests, from 1 (default: the first)."`
}

// Help is the long help of explain.
func (c *explainCmd) Help() string {
	return `Shows how a scenario's permission rules answer one request: the decision, the
option acprun would select, and every rule with why it matched or missed.

Give a permission request of a transcript that run wrote (run --transcripts
DIR) with --transcript and --tool-call: explain rebuilds it as run did, the
request's tool call merged onto what its turn's earlier tool_call and
tool_call_update of that id said (locations, diffs, rawInput), in the
recorded session's cwd, and shows which message gave each field and each
path. When the tool call asked more than once, the first request is
explained (stderr says so); --index N picks another. A transcript holds
secrets redacted: a request that holds [REDACTED] is noted, since run saw
the secret itself. What run answered is shown too, and flagged when the
rules decide otherwise now, with what can have made them (the links the
paths lead through only when the rules' verdict can depend on them). A session cwd that no longer exists (a
workspace copy, removed after a pass) cannot be walked, so links in it are
not followed as run followed them: explain says so, and when run's answer
differs, that answer is the decision (and the exit code) unless the rules'
verdict cannot depend on those links (the request touches no path, a deny
rule matches it on its paths as written or on no path, or no rule with a
path matcher applies to it): then the rules' verdict stands, and differs:
says that run answered otherwise.

Or give one request alone with --request (the params of a
session/request_permission: only what the request itself says, which may
lack the paths run saw), or make one up with --kind, --tool, --title,
--command and --path. A made-up request is offered the four standard options
(allow_once, allow_always, reject_once, reject_always).

The scenario is loaded as run loads it, with the config file's defaults
(permissions, named agents): acprun.yaml in the working directory, or
--config. --allow and --deny add rules as they do to run, and are named by
their flag (--allow 'execute:go test *'). --gateway MODE loads the scenario
as run --gateway MODE does: a scenario meant to run with it (a budget's
maxRequests, which needs a gateway) is explained with it. Without a scenario file, explain
applies the rules of a run without one (run --agent NAME --prompt TEXT): the
config's default permissions, if any, and --allow and --deny:
  acprun explain --allow 'execute:go test *' --kind execute --command 'go test ./...'

Exit 0 when the request is allowed, 1 when it is denied, 2 on bad input.`
}

// Run explains the decision. An interrupt (ctx) while --request - reads
// stdin exits 130.
func (c *explainCmd) Run(ctx context.Context, g *globals) error {
	if err := c.check(); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	if err := c.gatewayFlags.check(); err != nil {
		return err
	}
	fs, err := c.ruleFlags.settings()
	if err != nil {
		return err
	}
	sc, err := c.scenario(g)
	if err != nil {
		return err
	}
	sc = sc.WithFlags(fs)
	var req approve.Request
	var asked *output.Asked
	if c.Transcript != "" {
		if asked, err = c.find(g); err != nil {
			return usageError(g, nil, err) // an invalid transcript with its place, as replay prints it
		}
		req = asked.Request
	} else if req, err = c.request(ctx, g, sc); errors.Is(err, errInterrupted) {
		return exitError{code: exitInterrupted, err: errors.New("--request -: interrupted while reading stdin")}
	} else if err != nil {
		return usageError(g, []*scenario.Scenario{sc}, err) // a bad request at its place, redacted as a run of sc
	}
	req.UnaskedModes, req.ModeOptions = sc.Agent.UnaskedModes(), sc.Agent.ModeOptions() // as run answers
	red := g.redactor([]*scenario.Scenario{sc})
	// A long value the reasons cut is shown as a run shows it: redacted
	// knowing the whole value, for the text redacted below has lost its rest.
	req.Excerpt = func(text string, end int) string { return red.Excerpt(text, 0, end, false) }
	d, traces := sc.Policy.Explain(req)
	e := output.Explanation{Scenario: sc.Name, Pos: sc.Pos.String(), Request: req, Asked: asked, Decision: d, Rules: traces}
	e.LinkFree, _ = sc.Policy.LinkFree(req) // whether run's answer may stand in a cwd that is gone
	// Redacted as text, as printed, as a run of sc redacts: the request
	// (made up, or given by --request) may hold a secret in clear, which
	// its commands and paths may hold split (redact.Redactor.Parted).
	red = red.Parted(req.Texts()...)
	var text strings.Builder
	if err := output.Explain(&text, e); err != nil {
		return err
	}
	if _, err := io.WriteString(g.Stdout, escapeLines(red.String(text.String()))); err != nil {
		return err // exit 4: not a denial
	}
	if e.Verdict() != approve.Allow {
		return exitError{code: exitFailed}
	}
	return nil
}

// escapeLines is text with each of its lines escaped (termtext.Escape,
// tabs kept), as probe and run write what an agent or a file chose: the
// strings of explain's request and of run --dry-run's plan are quoted,
// which escapes their control characters, but not their "##[", which a
// GitHub Actions log runs anywhere in a line.
func escapeLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = termtext.Escape(l, true)
	}
	return strings.Join(lines, "\n")
}

// scenario loads the scenario whose rules to explain as run does, so that
// the policy explained is the one run applies: the --scenario of the
// file, or without a file the one-shot scenario of run --prompt.
func (c *explainCmd) scenario(g *globals) (*scenario.Scenario, error) {
	sel := &selection{configFlag: c.configFlag, gateway: c.gatewayFlags}
	if c.File == "" {
		cfg, err := sel.config(g)
		if err != nil {
			return nil, usageError(g, nil, err)
		}
		return oneShotRules(cfg)
	}
	scs, _, err := sel.load(g, []string{c.File})
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Pick(scs, c.Scenario)
	if err != nil {
		return nil, exitError{code: exitUsage, err: err}
	}
	return sc, nil
}

// check reports flags that do not go together.
func (c *explainCmd) check() error {
	sketched := !(runner.ToolCallSketch{Kind: c.Kind, Tool: c.Tool, Title: c.Title, Command: c.Command, Paths: c.Path}).Empty()
	switch {
	case c.Transcript != "" && (c.Request != "" || sketched):
		return errors.New("give either --transcript or --request or --kind/--tool/--title/--command/--path, not several")
	case c.File == "" && c.Scenario != "":
		return errors.New("--scenario picks a scenario of the scenario file: give the file")
	case c.Transcript == "" && c.ToolCall != "":
		return errors.New("--tool-call needs --transcript, the transcript of the run it asked in")
	case c.Index.n != 0 && c.ToolCall == "":
		return errors.New("--index needs --transcript and --tool-call")
	}
	if c.Kind != "" {
		if err := approve.CheckKind(c.Kind); err != nil {
			return fmt.Errorf("%s: %w", shellquote.Join([]string{"--kind", c.Kind}), err)
		}
	}
	for _, p := range c.Path {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("%s: the path is empty (is the variable that gives it unset?): give a path the request touches, or leave the flag out", shellquote.Join([]string{"--path", p}))
		}
	}
	return nil
}

// find rebuilds the permission request of --tool-call from --transcript,
// as run put it to the policy.
func (c *explainCmd) find(g *globals) (*output.Asked, error) {
	rs := runner.NewRecordedSession()
	rec, err := replay.Walk(c.Transcript, func(m replay.Message) { rs.Message(m.Line, m.FromAgent, m.Msg) })
	if err != nil {
		return nil, err
	}
	for _, n := range rec.Notes {
		fmt.Fprintf(g.Stderr, "acprun explain: %s\n", n)
	}
	all := rs.Permissions()
	var ids []string // the tool calls that asked, in order, each once
	var mine []runner.AskedPermission
	for _, p := range all {
		if !slices.Contains(ids, p.ToolCallID) {
			ids = append(ids, p.ToolCallID)
		}
		if p.ToolCallID == c.ToolCall {
			mine = append(mine, p)
		}
	}
	switch {
	case len(all) == 0:
		return nil, fmt.Errorf("%s: no permission request: the agent asked none in this session", c.Transcript)
	case c.ToolCall == "":
		return nil, fmt.Errorf("%s: give --tool-call ID, one of the tool calls that asked permission: %s", c.Transcript, quoteAll(ids))
	case len(mine) == 0:
		return nil, fmt.Errorf("%s: tool call %q asked no permission; the tool calls that did: %s", c.Transcript, c.ToolCall, quoteAll(ids))
	case c.Index.n > len(mine):
		return nil, fmt.Errorf("%s: tool call %q asked permission %s (%s): --index %d is beyond it", c.Transcript, c.ToolCall, times(len(mine)), lines(c.Transcript, mine), c.Index.n)
	}
	n := max(c.Index.n, 1)
	if c.Index.n == 0 && len(mine) > 1 {
		fmt.Fprintf(g.Stderr, "acprun explain: tool call %q asked permission %s (%s); explaining the first (choose another with --index N)\n",
			c.ToolCall, times(len(mine)), lines(c.Transcript, mine))
	}
	asked := &output.Asked{Transcript: c.Transcript, AskedPermission: mine[n-1], Nth: n, Of: len(mine)}
	if x, line := rec.Exit(); x != nil {
		turn, open := rs.Turn() // the exit is the last line: where the messages end
		asked.Exit = &output.RecordedExit{Status: *x, Line: line, Turn: turn, InTurn: open}
	}
	// A workspace copy is removed after a pass: its links cannot be
	// followed as run followed them.
	if cwd := asked.Request.Cwd; filepath.IsAbs(cwd) {
		_, err := os.Stat(cwd)
		asked.CwdGone = errors.Is(err, fs.ErrNotExist)
	}
	return asked, nil
}

// times is "once", "2 times", ...
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// lines names where the requests are: "t.jsonl:8, t.jsonl:15".
func lines(file string, ps []runner.AskedPermission) string {
	at := make([]string, len(ps))
	for i, p := range ps {
		at[i] = fmt.Sprintf("%s:%d", file, p.Line)
	}
	return strings.Join(at, ", ")
}

// quoteAll writes each of ss as a Go string literal, joined by commas.
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// request builds the approve.Request to explain: the recorded one of
// --request (stdin until ctx ends, for -), or the one --kind, --title,
// --command and --path describe, in the cwd of sc's agent. A recorded
// request is read as a run reads it from the agent: what the run would
// refuse is an error at its place in the file (stdin's is "stdin"), and
// the protocol violations the run would record of it are warnings at
// theirs, redacted as a run of sc. A UTF-8 byte order mark that starts
// the file is skipped, as YAML files' is.
func (c *explainCmd) request(ctx context.Context, g *globals, sc *scenario.Scenario) (approve.Request, error) {
	cwd := sc.Agent.Cwd
	sketch := runner.ToolCallSketch{Kind: c.Kind, Tool: c.Tool, Title: c.Title, Command: c.Command, Paths: c.Path}
	if c.Request == "" {
		if sketch.Empty() {
			return approve.Request{}, errors.New("give --request FILE, or describe a request with --kind, --tool, --title, --command and --path")
		}
		return runner.SketchedPermissionRequest(sketch, cwd), nil
	}
	if !sketch.Empty() {
		return approve.Request{}, errors.New("give either --request or --kind/--tool/--title/--command/--path, not both")
	}
	var data []byte
	var err error
	name := c.Request
	if c.Request == "-" {
		name = "stdin"
		g.noteStdin("acprun explain", "the request")
		stdin := g.stdin(ctx)
		defer stdin.Close()
		data, err = io.ReadAll(io.LimitReader(stdin, maxRequestBytes))
	} else {
		data, err = inputfile.Read(c.Request, maxRequestBytes)
	}
	if err != nil {
		return approve.Request{}, fmt.Errorf("read request: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rec, err := runner.RecordedPermissionRequest(data, cwd)
	if p, ok := errors.AsType[*runner.RequestProblem](err); ok {
		return approve.Request{}, srcerr.AtOffset(name, data, p.Off, p.Msg)
	} else if err != nil {
		return approve.Request{}, fmt.Errorf("%s: %w", name, err)
	}
	warnings := make([]scenario.Warning, len(rec.Violations))
	for i, v := range rec.Violations {
		e := srcerr.AtOffset(name, data, v.Off, "")
		warnings[i] = scenario.Warning{Pos: scenario.Pos{File: e.File, Line: e.Line, Col: e.Col}, Msg: "protocol violation: " + v.Msg}
	}
	printWarnings(g, []*scenario.Scenario{sc}, warnings)
	fmt.Fprintln(g.Stderr, "acprun explain: --request explains the request alone; run also used what the turn's earlier updates said of its tool call (its paths among them): --transcript T --tool-call ID explains what run saw")
	return rec.Request, nil
}

// oneShotRules is the scenario explain explains without a scenario file:
// that of a run without one (run --agent NAME --prompt TEXT) as far as its
// rules go: the config's default permissions, none without them, in the
// working directory (or the config's default workspace, whose copy the run
// would work in).
func oneShotRules(cfg *scenario.Config) (*scenario.Scenario, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, exitError{code: exitUsage, err: fmt.Errorf("working directory: %w", err)}
	}
	sc := &scenario.Scenario{Name: scenario.OneShotName, Pos: scenario.OneShotPos, Agent: scenario.Agent{Cwd: wd}}
	if cfg != nil {
		d := cfg.Defaults.Scenario
		sc.Policy = d.Policy
		if w := d.Workspace; w != nil && w.Source() != "" {
			sc.Agent.Cwd = w.Source()
		}
	}
	return sc, nil
}

// maxRequestBytes bounds the permission request explain --request reads.
const maxRequestBytes = 64 << 20
