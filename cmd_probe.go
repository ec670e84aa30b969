package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/mockagent"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/replay"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// probeCmd is `acprun probe NAME` and `acprun probe -- COMMAND ARGS…`.
type probeCmd struct {
	Target     []string `arg:"" name:"agent" help:"A named agent (see acprun agents), or -- and the command of an agent."`
	configFlag `set:"configHolds=named agents"`
	JSON       bool     `name:"json" help:"Print what the agent offers as JSON on stdout."`
	Output     string   `name:"output" short:"o" placeholder:"FILE" help:"Also write what the agent offers as JSON to FILE, as --json prints it; stdout keeps the text (- is stdout: the same as --json)."`
	Auth       string   `placeholder:"METHOD" help:"Authenticate with this method id before session/new (default: the named agent's auth)."`
	Timeout    duration `placeholder:"DUR" default:"30s" help:"Time limit for the whole probe (default: ${default})."`

	pin *outfile.Pinned `kong:"-"` // -o, pinned and locked before the agent starts
}

// Help is the long help of probe.
func (c *probeCmd) Help() string {
	return `Starts an agent, initializes it, opens a session in the working directory
(or the named agent's cwd) and prints what it offers: protocol version, agentInfo,
capabilities, auth methods, modes, config options and slash commands (session
updates are collected until the agent has been quiet for 0.5s, at most 3s),
and warnings: a line the agent printed that is not ACP (a banner, a usage text)
is a protocol violation. Then it stops the agent. acprun offers no fs or
terminal methods to the agent and cancels any permission request.

  acprun probe claude
  acprun probe -- npx -y @agentclientprotocol/claude-agent-acp
  acprun probe --json -- acprun mock-agent examples/agents/basic.mock.yaml
  acprun probe claude -o claude-probe.json

Exit codes:
  0    the agent initialized and opened a session
  2    usage or config file errors (a named agent's cwd that is not a
       directory among them), an unknown agent name, a mock agent script
       that is missing or not a file, or -o cannot be written, another
       acprun run, merge or probe is writing it, or it is a file the probe
       reads: the config file, the agent's mock agent script or replay
       transcript, any file a word of the agent's command names (nothing
       started)
  3    the agent could not be started, initialized, authenticated or open a session
       (what it offered until then is still printed)
  4    the -o file could not be written
  130  interrupted (while the agent ran, or while -o, a FIFO, waited for a
       reader)
When several apply, the exit code is the first of 4, 130, 3.`
}

// withArgs is the error for a named agent given arguments (acprun probe
// mock SCRIPT): a named agent takes none, so it suggests the agent's own
// command with them after --, which probe accepts. Words that are not a
// named agent and its arguments are taken for a command.
func (c *probeCmd) withArgs(cfg *scenario.Config) error {
	agent, err := scenario.ResolveAgent(c.Target[0], scenario.LoadOptions{Config: cfg})
	if err != nil || len(agent.Command) == 0 || slices.Equal(agent.Command, c.Target[:min(len(c.Target), len(agent.Command))]) {
		// Not a named agent, or the words start with its own command
		// (acprun probe goose acp): a command typed without --.
		return fmt.Errorf("give one agent name, or -- and a command: acprun probe -- %s", shellquote.Join(c.Target))
	}
	cmd := append(slices.Clone(agent.Command), c.Target[1:]...)
	return fmt.Errorf("the named agent %q takes no arguments; give its command with them after --: acprun probe -- %s", c.Target[0], shellquote.Join(cmd))
}

// Run probes the agent.
func (c *probeCmd) Run(ctx context.Context, g *globals, kctx *kong.Context) error {
	cfg, err := c.config(g)
	if err != nil {
		return usageError(g, nil, err)
	}
	var agent scenario.Agent
	switch {
	case slices.Contains(kctx.Args, "--") && len(c.Target) > 0 && c.Target[0] == "":
		return exitError{code: exitUsage, err: errors.New(`the agent's program after -- is empty (is the variable that gives it unset?): give its command after --`)}
	case slices.Contains(kctx.Args, "--"):
		agent.Command = c.Target
	case len(c.Target) == 1 && c.Target[0] == "":
		return exitError{code: exitUsage, err: errors.New(`<agent> "": the argument is empty (is the variable that gives it unset?): give an agent name, or -- and a command`)}
	case len(c.Target) == 1:
		if agent, err = scenario.ResolveAgent(c.Target[0], scenario.LoadOptions{Config: cfg}); err != nil {
			return usageError(g, nil, err) // a config agent's problems, one positioned problem per line
		}
		if agent.BareMock() {
			return exitError{code: exitUsage, err: errors.New("the mock agent needs its script: acprun probe -- acprun mock-agent SCRIPT")}
		}
	default:
		return exitError{code: exitUsage, err: c.withArgs(cfg)}
	}
	if len(agent.Command) == 0 {
		return exitError{code: exitUsage, err: errors.New("give the agent's command after --")}
	}
	if err := probeSelfAgent(&agent); err != nil {
		return usageError(g, nil, err)
	}
	if c.Auth != "" {
		agent.Auth = c.Auth
	}
	if agent.Cwd == "" {
		if agent.Cwd, err = os.Getwd(); err != nil {
			return exitError{code: exitOutput, err: fmt.Errorf("working directory: %w", err)}
		}
		if err := notUTF8Dir(agent.Cwd, "the agent is given it as its directory"); err != nil {
			return err
		}
	}
	if err := checkProbeScript(&agent); err != nil {
		return usageError(g, nil, err)
	}
	// The guard hears of the temporary file that pinning -o tries, too.
	ctx, guard := startGuard(ctx)
	defer guard.Close()
	if err := c.checkOutput(ctx, g, &agent); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	if c.pin != nil {
		defer c.pin.Close()
	}
	rep, perr := runner.Probe(ctx, runner.ProbeOptions{Agent: agent, Guard: guard, Timeout: c.Timeout.d, Abort: g.Abort, Version: acprunVersion(), Config: cfg})
	code := exitOK
	switch {
	case perr == nil:
	case errors.Is(context.Cause(ctx), errInterrupted):
		code, perr = exitInterrupted, errInterrupted
		rep.Error = perr.Error()
	default:
		// It quotes what the agent sent: escaped, as its stdout and the
		// agent's stderr are, it begins no line and moves no cursor.
		code, perr = exitAgent, errors.New(termtext.Printable(perr.Error()))
	}
	if c.JSON {
		err = g.toStdout(ctx, termtext.JSONEscapes, func(w io.Writer) error { return output.ProbeJSON(w, rep) })
	} else {
		err = output.Probe(g.Stdout, rep)
	}
	switch {
	case err != nil && stdoutGone(err) && perr == nil:
		return err // its reader quit: exit 0, as for any command (stdoutGone)
	case err != nil && stdoutGone(err):
		return c.failed(g, rep, perr, exitError{code: code, err: perr})
	case err != nil:
		return c.failed(g, rep, perr, exitError{code: writeExit(err), err: err})
	}
	if err := c.writeFile(ctx, g, rep); err != nil {
		return c.failed(g, rep, perr, exitError{code: writeExit(err), err: err})
	}
	if code == exitOK {
		return nil
	}
	return c.failed(g, rep, perr, exitError{code: code, err: perr})
}

// failed says why the probe failed, perr (nil: it did not), and returns
// ee, the error the probe ends with: perr's own, or that of stdout or -o,
// which could not be written, whose exit code tells only of the write:
// its error is said after perr. The agent's stderr is shown first, without
// --json.
func (c *probeCmd) failed(g *globals, rep runner.ProbeReport, perr error, ee exitError) error {
	if perr == nil {
		return ee
	}
	if !c.JSON {
		// For people: a stderr that cannot be written (its reader quit)
		// does not change the exit code, as run's summary does not.
		_ = output.ProbeStderr(g.Stderr, rep)
	}
	if ee.err != perr {
		ee.err = fmt.Errorf("%w\nacprun: %w", perr, ee.err)
	}
	return ee
}

// probeSelfAgent is the problem of the command of agent, one of acprun's
// own, that acprun's command line refuses (nil when there is none; see
// selfAgentProblem): at the word it is about in the config file for a
// named agent's, as run and validate say it.
func probeSelfAgent(agent *scenario.Agent) error {
	i, msg := selfAgentProblem(agent.Command)
	if msg == "" {
		return nil
	}
	if pos := agent.WordPos(i); pos.File != "" {
		return withSources([]*srcerr.Error{problem(pos, "agent "+agent.Name+": "+msg)})[0]
	}
	return errors.New(termtext.Printable(msg))
}

// checkProbeScript is the problem of the file that agent plays, when it is
// acprun mock-agent SCRIPT or acprun replay TRANSCRIPT: a script that the
// mock agent could not open or that does not parse, a transcript replay
// could not load (nil when there is none), as run and validate say it
// (checkScript, scriptParses, checkTranscript), before the agent starts:
// at the word of the config file that names it for a named agent, else by
// itself.
func checkProbeScript(agent *scenario.Agent) error {
	at := func(i int, msg string) error {
		if pos := agent.WordPos(i); pos.File != "" {
			return withSources([]*srcerr.Error{problem(pos, "agent "+agent.Name+": "+msg)})[0]
		}
		return errors.New(termtext.Printable(msg))
	}
	if path, _ := agent.ReplayTranscript(); path != "" {
		if _, err := replay.Load(path); err != nil {
			i := scenario.FileWord(agent.Command, "replay")
			return at(i, fmt.Sprintf("replay transcript %s: %s", agent.Command[i], replay.Problem(err)))
		}
		return nil
	}
	cmd := runner.ResolveCommand(agent.Command, "", agent.Cwd, "")
	if cmd.Script == "" {
		return nil
	}
	word := agent.Command[cmd.ScriptWord]
	if err := openScript(cmd.Script); err != nil {
		return at(cmd.ScriptWord, scriptProblem(word, "", agent.Cwd, err))
	}
	if _, err := mockagent.Load(cmd.Script); err != nil {
		var out []error // one a line, as validate says them
		for _, msg := range parseProblems(word, err) {
			out = append(out, at(cmd.ScriptWord, msg))
		}
		if agent.WordPos(cmd.ScriptWord).File == "" { // each line printed as "acprun: " and the error
			lines := make([]string, len(out))
			for i, e := range out {
				lines[i] = e.Error()
			}
			return errors.New(strings.Join(lines, "\nacprun: "))
		}
		return errors.Join(out...)
	}
	return nil
}

// checkOutput checks -o before the agent starts: that it is none of the
// probe's inputs (the config file, the mock agent script or replay
// transcript the agent reads, any file a word of the agent's command
// names, however acprun itself is named there), which it would replace,
// and that it can be written; it pins it (c.pin), which locks it as run
// locks its outputs. -o - is --json.
func (c *probeCmd) checkOutput(ctx context.Context, g *globals, agent *scenario.Agent) error {
	if outfile.IsStdout(g.Stdout, c.Output) {
		c.JSON, c.Output = true, ""
	}
	if c.Output == "" {
		return nil
	}
	ins := append([]outfile.Input{{Path: cmp.Or(c.Config, scenario.ConfigFile), What: "the config file of this probe"}},
		agentInputs(agent, "", "this probe")...)
	ins = append(ins, commandInputs(agent)...)
	if err := outfile.CheckInputs(g.Stdout, []outfile.Target{c.output()}, ins); err != nil {
		return err
	}
	var err error
	c.pin, err = pinOutput(ctx, c.Output, "")
	return err
}

// commandInputs are the files the words of agent's command name, relative
// to its cwd (its program found as its start finds it): an agent may read
// any of them (acprun mock-agent's script by another name of acprun, an
// agent's own script or settings). A word that names no file is none.
func commandInputs(agent *scenario.Agent) []outfile.Input {
	var ins []outfile.Input
	for i, w := range agent.Command {
		path := w
		if i == 0 {
			path, _ = runner.LookPath(w, agent.Cwd)
		} else if !filepath.IsAbs(w) {
			path = filepath.Join(agent.Cwd, w)
		}
		if w != "" && path != "" {
			ins = append(ins, outfile.Input{Path: path, What: fmt.Sprintf("a file the probed command names (%s)", termtext.Printable(w))})
		}
	}
	return ins
}

// writeFile writes the probe's JSON to -o, if set, as run writes its
// results (parents created, regular files replaced atomically).
func (c *probeCmd) writeFile(ctx context.Context, g *globals, rep runner.ProbeReport) error {
	if c.Output == "" {
		return nil
	}
	if err := g.writeFile(ctx, g.Stderr, c.output(), c.pin, true, termtext.JSONEscapes, func(w io.Writer) error { return output.ProbeJSON(w, rep) }); err != nil {
		return fmt.Errorf("-o %s: %w; the probe's JSON %s", c.Output, err, unwritten(err, "is incomplete", "was not written"))
	}
	return nil
}

// output is -o, the output file of the probe's JSON.
func (c *probeCmd) output() outfile.Target {
	return outfile.Target{Flag: "-o", Path: c.Output, What: "the probe's JSON"}
}
