package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/sessionstate"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// runCmd is `acprun run PATHS…`.
type runCmd struct {
	Paths          []string   `arg:"" optional:"" name:"path" help:"Scenario files, directories (searched for *.yaml and *.yml) or globs. None with --prompt: a one-shot run of the prompt on --agent."`
	Prompt         []string   `placeholder:"TEXT|FILE|-" sep:"none" help:"A turn's prompt (repeatable: one turn each, in order), - for stdin. Without scenario files it is the prompt's TEXT, sent to --agent (acprun run --agent claude --prompt 'Fix the tests' --print); with them, the text of FILE, replacing the turns of the one selected scenario (make-prompt | acprun run nightly.yaml --prompt -)."`
	Print          bool       `help:"Print the agent's reply, the text of the last turn, on stdout and nothing else there (as claude -p does); the progress and summary stay on stderr. For a run of one scenario on one agent."`
	Model          string     `placeholder:"MODEL" help:"Select this model in every scenario's session, in place of agent.model (checked against what the agent offers)."`
	Mode           string     `placeholder:"MODE" help:"Set this session mode in every scenario's session, in place of agent.mode."`
	Auth           string     `placeholder:"METHOD" help:"Authenticate with this method (an id of the agent's authMethods) before every scenario's session/new, in place of agent.auth."`
	JSON           string     `name:"output" short:"o" aliases:"json" default:"acprun-results.json" placeholder:"FILE" help:"Write the JSON results to FILE (default: ${default}; - for stdout, which then carries nothing else). --json FILE is an older name for it."`
	Transcripts    string     `placeholder:"DIR" help:"Write every message both ways, per scenario, as JSONL files in DIR (agent env values redacted). A directory another run is writing to is refused (exit 2)."`
	NoText         bool       `help:"Keep no message or thought text in the results, only its chunk counts, except for turns whose expectations or judge read it: memory stays flat however much the agents say."`
	AllowAll       bool       `help:"Answer every permission request with allow (for quick experiments; named in the results)." xor:"policy"`
	DenyAll        bool       `help:"Answer every permission request with deny (named in the results)." xor:"policy"`
	TurnTimeout    duration   `placeholder:"DUR" help:"Override every turn's timeout (e.g. 2m)."`
	IdleTimeout    duration   `placeholder:"DUR" help:"Override every scenario's idle timeout: cancel a turn when the agent sends nothing for this long."`
	Timeout        duration   `placeholder:"DUR" help:"Time limit for the whole run; running turns are cancelled and their scenarios are interrupted, scenarios not started are listed as not run (interrupted); the exit code is then 1."`
	Jobs           jobs       `short:"j" placeholder:"N" help:"Scenarios to run in parallel, 1 or more (default: number of CPUs)."`
	Repeat         repeat     `placeholder:"N" default:"1" help:"Run every scenario N times (1 to ${maxRepeat}, and ${maxAttempts} attempts in all); the summary gives the pass rate, pass@k and pass^k."`
	MinPassRate    passRate   `placeholder:"RATE" help:"A scenario passes when at least this share of its attempts (--repeat) against an agent pass, e.g. 0.8; a scenario's expect.passRate wins over it. Interrupted and invalid attempts are not counted; --fail-fast counts the scenario as failed once the share is out of reach."`
	FailFast       failFast   `help:"Stop starting scenarios once one has failed, errored or been invalid (after its retries): those not started are listed as not run (interrupted), and the exit code is 1. The running ones finish, or with --fail-fast=cancel are cancelled (cancelCause failFast) and interrupted. With --repeat the first failed attempt stops the run. With -j > 1 which scenarios had started depends on timing."`
	MaxFailures    atLeastOne `placeholder:"N" help:"Stop starting scenarios once N have failed, errored or been invalid, as --fail-fast does after 1. With --repeat each failed attempt counts, so the N may be of one scenario (one with a minimum pass rate counts once, when its rate is out of reach). With --fail-fast=cancel the running ones are cancelled then; --fail-fast alone, which stops at the first, is refused with an N above 1."`
	RerunFailed    string     `placeholder:"FILE" help:"Run only the scenarios that did not pass (failed, errored, invalid, or interrupted: cut short or not run) in the results FILE of an earlier run, matched by file, name and agent; the selection flags apply too. With -o the same FILE, the earlier results of the ones they leave out, or that the rerun never starts, are kept in it for the next rerun."`
	DryRun         bool       `help:"Print the resolved plan (agent command, cwd, timeouts, rules) and run nothing."`
	KeepWorkspaces bool       `help:"Keep the workspaces of passing attempts too (those of failing ones are always kept; their paths are in the results)."`
	WorkspaceDir   string     `placeholder:"DIR" help:"Make workspaces in DIR (created if missing) instead of the system's temp directory."`
	JUnit          string     `name:"junit" placeholder:"FILE" help:"Also write JUnit XML to FILE (one testsuite per scenario file; - for stdout)."`
	HTML           string     `name:"html" placeholder:"FILE" help:"Also write a self-contained HTML report to FILE (as acprun report does; - for stdout)."`
	Events         string     `placeholder:"FILE" help:"Write JSONL events to FILE as they happen (one line written per event, lagging behind a slow reader, never holding up the run; - for stdout). A file another run is writing to is refused (exit 2)."`
	Format         string     `enum:"lines,dots,quiet" default:"lines" help:"What is printed as scenarios end: lines (one line per scenario), dots (one character per scenario: . passed, F failed, E error, ? invalid, I interrupted, r rerun) or quiet (nothing); the summary of failures and errors and the totals follow."`
	Quiet          bool       `short:"q" help:"Same as --format quiet."`
	Verbose        bool       `short:"v" help:"Stream the agents' text, thoughts and tool calls as they arrive, and turns, permission decisions and warnings, each line labelled [scenario@agent]."`
	Resume         bool       `help:"Continue every scenario's recorded session, as session.resume does (state file: its session.stateFile, default .acprun/state.json beside it)."`
	Lock           string     `enum:"wait,fail" default:"wait" placeholder:"MODE" help:"When another run holds a state file's lock: wait for it to finish, or fail at once (exit 6). One of: wait, fail."`
	ReuseAgents    bool       `help:"Let scenarios share agent processes, as agent.reuse does: those started the same way take turns on at most -j processes, each with its own session. Only agents that offer session/close are reused."`
	ruleFlags
	gatewayFlags
	selection

	// pins are the output files written after the agents ran, by path,
	// pinned before they start (see checkOutputPaths).
	pins map[string]*outfile.Pinned `kong:"-"`
	// kept are the earlier results of the --rerun-failed file that this
	// rerun does not run, when -o replaces that file: the results it
	// writes there keep them (report.Keep).
	kept []report.Result `kong:"-"`
	// replaced is the --rerun-failed file when -o replaces it, else nil:
	// the earlier results of the scenarios the rerun never started are
	// kept there too (report.Rerun.Unstarted).
	replaced *report.Rerun `kong:"-"`
}

// Help is the long help of run.
func (c *runCmd) Help() string {
	return `Runs every scenario: starts its agent, opens one session, sends each turn's prompt,
answers permission requests by the scenario's rules, and checks the expectations.
The JSON results (keyed by stop reason) go to -o/--output; a summary goes to stderr.

One-shot runs: without scenario files, acprun run --agent NAME --prompt TEXT
runs one scenario named prompt, in the working directory, with one turn per
--prompt (its text; - reads stdin) expecting end_turn, and the config file's
defaults. Without rules it denies every permission request and terminal
command, as a scenario without permissions does. --print writes the agent's
last reply, and nothing else, to stdout:
  acprun run --agent claude --prompt 'Summarise README.md' --allow read --print

Rules from flags: --allow RULE and --deny RULE add rules after every
scenario's own (and to --allow-all or --deny-all); a deny still beats every
allow. RULE is KIND (every call of that kind: read, edit, delete, move,
search, execute, think, fetch, switch_mode, other), execute:COMMAND (a
command pattern), read|edit|delete|move|search:PATH (a path glob), or
command:, path:, title: or tool: (the tool's name) and a pattern, for calls of
any kind:
  --allow read --allow 'execute:go test *' --allow 'edit:src/**'
  --deny 'path:**/.env' --deny 'command:git push *' --deny 'title:*delete*'
Decisions and acprun explain name such a rule by its flag. --model and
--mode replace every scenario's agent.model and agent.mode.

Output files (-o, --junit, --html, --events; --transcripts is a directory) are
checked before any agent starts. Missing parent directories are created; a
symlink is written through to its target; a device or FIFO (/dev/null,
/dev/stdout, a named pipe) is written in place; a regular file is replaced
atomically and keeps its mode (a new one gets 0644 less the umask). A FIFO that
no process reads yet is waited for, as stderr says, until an interrupt, which
gives that output up (exit 130); after an interrupt none is waited for. A
reader that does not read (a FIFO's, a stdout pipe's) is waited for until the
next interrupt, which gives up the rest (exit 130). "-" is stdout, for one flag at most;
GitHub annotations then go to stderr. An output that is one of the run's inputs
(a scenario file, the config file, a mock agent script, a replay transcript, a
file a prompt attaches, the --prompt or --balance-from file, the session state
file of a scenario that continues its session), by path, symlink or hard link,
is refused (exit 2); -o alone may replace the --rerun-failed file, with the
rerun's results and the earlier failures its selection left out or it never
started (an interrupt, --timeout or --fail-fast came first), kept for the next
rerun. An output file another run is writing to is refused (exit 2):
a run locks each from before any agent starts until it ends.

Sessions: a scenario with session: {resume: true} (or every scenario, with
--resume) continues the session its state file recorded for its name and agent:
session/load when the agent advertises loadSession (the replayed conversation is
recorded as the result's session.history, not as turn 1), else session/resume;
when the agent offers neither, refuses, or the session is gone, a new session
starts with a warning. The session id is saved after the run. A run locks the
state files before any agent starts and holds them to the end, so two cron runs
never race: --lock wait (the default) waits for the other run, --lock fail exits 6.

Model gateway: --gateway MODE (or a scenario's gateway:) puts acprun between
each agent and its model provider: record calls the provider and keeps every
exchange, redacted, in a cassette per attempt; replay answers from the cassettes
with no network and no key (a request that matches none fails the turn); meter
calls the provider and counts what the agent spends, even when it reports no
usage. A budget's maxRequests caps the model requests. See docs/gateway.md.

Colour: PASS, FAIL and ERROR and the summary on stderr are coloured when stderr
is a terminal (--color auto) and NO_COLOR is empty or unset; --color always keeps
the colour through a pipe (a CI log), --color never drops it.

Exit codes:
  0    every scenario passed
  1    some scenario failed an expectation, ended in an error outcome, or was
       interrupted by --timeout or --fail-fast; with --min-pass-rate (or
       expect.passRate), the failed and errored attempts of a scenario that
       met its rate do not count
  2    usage, scenario-file or output-path errors (nothing ran)
  3    an agent could not be started, initialized or authenticated, or this
       host cannot enforce its required sandbox
  4    acprun could not write its results, JUnit, HTML report, events,
       transcripts, cassettes or session state files, or failed internally;
       the summary still goes to stderr
  5    no scenario selected, or nothing to rerun (see --allow-empty)
  6    another run holds the lock of a state file (--lock fail, or --timeout
       passed while waiting for it); nothing ran
  7    some scenario measured nothing (invalid: the agent changed a file of
       workspace.protect, is not the agent expect.agent names, or its
       provider refused the work: rate limit, quota, overload)
  130  interrupted (SIGINT/SIGTERM/SIGHUP); the results written are partial,
       an output FIFO that had no reader is not written, and one whose
       reader did not read it before the interrupt (or stdout's) not wholly;
       an interrupt after every scenario ran to its end stops nothing
When several apply, the exit code is the first of 4, 130, 3, 7, 1.`
}

// maxRepeat is the most attempts --repeat runs of each scenario: enough
// to know a pass rate within about 3 points (the 95% interval at 1000
// attempts), and few enough that the attempts, and their pass@k and
// pass^k for every k, can be listed at once.
const maxRepeat = 1000

// maxAttempts is the most attempts a run with --repeat makes in all
// (scenarios × agents × --repeat): the run lists them before the first
// starts, and on an interrupt those not run, which then takes a few
// seconds at most.
const maxAttempts = 100_000

// checkAttempts refuses a --repeat that would make more than maxAttempts
// attempts of the n scenarios selected (each against each agent).
func (c *runCmd) checkAttempts(n int) error {
	if c.Repeat.n > 1 && n*c.Repeat.n > maxAttempts {
		return fmt.Errorf("--repeat %d: %d scenarios × %d attempts is %d, want at most %d attempts in a run: select fewer scenarios (--run, --tag, --shard) or repeat them fewer times",
			c.Repeat.n, n, c.Repeat.n, n*c.Repeat.n, maxAttempts)
	}
	return nil
}

// checkStopFlags refuses --fail-fast alone, which stops the run at its
// first failure, with a --max-failures that stops it later: one of them
// would be ignored. --fail-fast=finish or =cancel with --max-failures
// says what happens to the running scenarios at the Nth.
func (c *runCmd) checkStopFlags() error {
	if c.FailFast.alone && c.MaxFailures.n > 1 {
		n := c.MaxFailures.n
		return fmt.Errorf("--fail-fast stops the run at its first failure, and --max-failures %d after %d: leave one of them out (--fail-fast=cancel --max-failures %d cancels the running scenarios then)", n, n, n)
	}
	return nil
}

// checkRepeat refuses a --repeat of n outside 1…maxRepeat.
func checkRepeat(n int) error {
	switch {
	case n < 1:
		return fmt.Errorf("--repeat %d: want at least 1 attempt per scenario", n)
	case n > maxRepeat:
		return fmt.Errorf("--repeat %d: want at most %d attempts per scenario (they give its pass rate within about 3 points)", n, maxRepeat)
	}
	return nil
}

// sayHeldWarnings prints the warnings of loading that -q held
// (selection.holdWarnings), less what the summary of running scs says
// (scenario.WarningsBesides), and forgets them.
func (c *runCmd) sayHeldWarnings(g *globals, scs []*scenario.Scenario) {
	printWarnings(g, scs, scenario.WarningsBesides(c.held, g.loaded, scs))
	c.held = nil
}

// warnBeforeRun warns, once every flag has been checked, with the
// warnings of loading that -q held, about the scenarios that will run
// without permissions (--allow-all and --deny-all replace every
// scenario's permissions, so then there is nothing to warn about; under
// --format quiet, which prints just the summary, the summary says it),
// and about the config's prices when none of them has a gateway to price
// what it spends.
func (c *runCmd) warnBeforeRun(g *globals, scs []*scenario.Scenario) {
	c.sayHeldWarnings(g, scs)
	if c.policy() == nil && (c.DryRun || c.format() != formatQuiet) {
		printWarnings(g, scs, scenario.NoPermissionsWarnings(scs))
	}
	printWarnings(g, scs, scenario.UnusedPricesWarnings(g.cfg, scs, "of this run"))
}

// files returns the run's output files that are set, in the order they
// are written.
func (c *runCmd) files() []outfile.Target {
	var out []outfile.Target
	for _, f := range []outfile.Target{
		{Flag: "-o", Path: c.JSON, What: "the results"},
		{Flag: "--junit", Path: c.JUnit, What: "the JUnit report"},
		{Flag: "--html", Path: c.HTML, What: "the HTML report"},
		{Flag: "--events", Path: c.Events, What: "the events"},
	} {
		if f.Path != "" {
			out = append(out, f)
		}
	}
	return out
}

// checkOutputFlags rejects combinations of output flags that cannot work:
// two outputs on stdout, a directory on stdout, one file for two outputs,
// -v with nothing printed (--format quiet).
func (c *runCmd) checkOutputFlags(g *globals) error {
	if c.Transcripts == outfile.Stdout {
		return errors.New("--transcripts -: transcripts need a directory (one file per scenario), not stdout")
	}
	if c.Verbose && c.format() == formatQuiet {
		quiet := "--format quiet"
		if c.Quiet {
			quiet = "-q"
		}
		return fmt.Errorf("-v (--verbose) streams what the agents do on stderr, and %s prints nothing there but the summary: leave one of them out", quiet)
	}
	return outfile.CheckTargets(g.Stdout, c.files())
}

// inputs are the files the run reads, but --rerun-failed's (see
// checkInputs): the scenario files given and those of scs, the config
// file, the --prompt files, the --balance-from file, the mock agent
// scripts and replay transcripts of the agents of scs (their judges'
// too) and their prompt attachments, and the state files (and their
// locks) of the scenarios of scs that continue their session, which the
// run writes too.
func (c *runCmd) inputs(scs []*scenario.Scenario) []outfile.Input {
	ins := []outfile.Input{
		{Path: cmp.Or(c.Config, scenario.ConfigFile), What: "the config file of this run"},
		{Path: c.BalanceFrom, What: "the results file --balance-from reads"},
	}
	for _, p := range c.Paths {
		ins = append(ins, outfile.Input{Path: p, What: "a scenario file of this run"})
	}
	if !c.oneShot() {
		for _, p := range c.Prompt {
			if p != stdinPrompt {
				ins = append(ins, outfile.Input{Path: p, What: "a --prompt file of this run"})
			}
		}
	}
	for _, sc := range scs {
		ins = append(ins, outfile.Input{Path: sc.File, What: "a scenario file of this run"})
		if c.Resume || sc.Session.Resume {
			of := fmt.Sprintf("of scenario %q", sc.Name)
			ins = append(ins, outfile.Input{Path: sc.StateFile(), What: "the session state file " + of, Output: true},
				outfile.Input{Path: sessionstate.LockPath(sc.StateFile()), What: "the lock file of the session state file " + of, Output: true})
		}
		for _, a := range agentsOf(sc) {
			ins = append(ins, agentInputs(a, sc.File, "this run")...)
		}
		for _, t := range sc.Turns {
			for _, p := range t.Prompt {
				ins = append(ins, outfile.Input{Path: cmp.Or(p.File, p.Image), What: "a file a prompt of this run attaches"})
			}
		}
	}
	return ins
}

// agentInputs are the files agent a reads as it starts, resolved as the
// runner resolves them (file is the scenario file, "" for probe's agent):
// the script of acprun mock-agent SCRIPT and the transcript of acprun
// replay T (agent: {replay: T}), each said to be "of " of in messages
// ("a mock agent script of this run").
func agentInputs(a *scenario.Agent, file, of string) []outfile.Input {
	ins := []outfile.Input{{Path: runner.ResolveCommand(a.Command, file, a.Cwd, "").Script, What: "a mock agent script of " + of}}
	if tr, _ := a.ReplayTranscript(); tr != "" {
		ins = append(ins, outfile.Input{Path: tr, What: "a replay transcript of " + of})
	}
	return ins
}

// checkInputs refuses an output file that is one of the run's inputs
// (inputs), which it would replace: a scenario file, the config file, a
// mock agent script… Only -o may be the results --rerun-failed reads: the
// rerun's results then replace them, as pytest --last-failed replaces its
// cache, with the earlier failures the rerun did not select (c.kept) or
// never started (c.replaced), and the next --rerun-failed reruns what
// still fails.
func (c *runCmd) checkInputs(g *globals, scs []*scenario.Scenario) error {
	files := c.files()
	if err := outfile.CheckInputs(g.Stdout, files, c.inputs(scs)); err != nil {
		return err
	}
	files = slices.DeleteFunc(files, func(f outfile.Target) bool { return f.Flag == "-o" })
	return outfile.CheckInputs(g.Stdout, files, []outfile.Input{{Path: c.RerunFailed, What: "the results file --rerun-failed reads"}})
}

// checkTranscripts refuses an output file that is the place of one of the
// run's transcripts (runner.TranscriptFiles) in the --transcripts
// directory: both would write the same file, the transcript's lines in the
// middle of the events', or the results over the transcript. Names are
// compared case-insensitively, as the runner keeps transcripts apart (a
// file system may be); a device or FIFO may take both, as it may take two
// outputs (outfile.CheckTargets).
func (c *runCmd) checkTranscripts(g *globals, opts runner.Options, scs []*scenario.Scenario) error {
	if c.Transcripts == "" {
		return nil
	}
	dir, err := outfile.RealPath(c.Transcripts)
	if err != nil {
		return nil // checkOutputPaths says what is wrong with it
	}
	names := map[string]string{}
	for _, name := range runner.TranscriptFiles(opts, scs) {
		names[strings.ToLower(name)] = name
	}
	for _, f := range c.files() {
		if outfile.IsStdout(g.Stdout, f.Path) {
			continue
		}
		real, err := outfile.RealPath(f.Path)
		if err != nil || !sameDir(filepath.Dir(real), dir) {
			continue
		}
		name, ok := names[strings.ToLower(filepath.Base(real))]
		if fi, err := os.Stat(real); !ok || err == nil && !fi.Mode().IsRegular() {
			continue
		}
		return fmt.Errorf("%s %s and --transcripts %s: both write the same file (%s is a transcript of this run); give each its own",
			f.Flag, f.Path, c.Transcripts, filepath.Join(c.Transcripts, name))
	}
	return nil
}

// checkWorkspaceDir refuses a --workspace-dir inside the workspace source
// of a selected scenario (symlinks resolved, as workspace.Create compares
// them), before anything is run or created: a copy would copy itself, and
// a worktree would show in the source's status.
func (c *runCmd) checkWorkspaceDir(scs []*scenario.Scenario) error {
	if c.WorkspaceDir == "" {
		return nil
	}
	dir, err := filepath.Abs(c.WorkspaceDir)
	if err != nil {
		return nil // the flag's own check says what is wrong with it
	}
	for _, sc := range scs {
		if w := sc.Workspace; w != nil && w.Source() != "" && workspace.Within(dir, w.Source()) {
			return fmt.Errorf("--workspace-dir %s: it lies inside %s, the workspace source of scenario %q (%s), so each workspace would be made inside its own source; give a directory outside it",
				c.WorkspaceDir, w.Source(), sc.Name, w.Pos)
		}
	}
	return nil
}

// sameDir reports whether the directories a and b, real paths
// (outfile.RealPath), are one: the same path, or two names of one
// directory (a case-insensitive file system).
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// lockRun takes what a run holds from before any agent starts until it
// ends: the locks of the state files of scs (runner.OpenStates, waited
// for as --lock says), then its outputs (checkOutputPaths, c.pins). The
// state files come first: a run that finds the previous one of the same
// cron line still going, which writes the same -o file, waits for it or
// exits 6 (--lock fail) as said for the state file, instead of being
// refused the output as given to two runs at once. The error is an
// exitError; the caller closes the states and the pins, also on error.
func (c *runCmd) lockRun(ctx context.Context, g *globals, opts runner.Options, scs []*scenario.Scenario) (map[string]*sessionstate.File, error) {
	states, err := runner.OpenStates(ctx, opts, scs, sessionstate.Mode(c.Lock), func(path string, pid int) {
		fmt.Fprintf(g.Stderr, "acprun: waiting for state file %s: %s holds its lock (--lock fail would exit instead)\n", path, outfile.Holder(pid))
	})
	if err != nil {
		return nil, stateError(ctx, err)
	}
	if err := c.checkOutputPaths(ctx, scs); err != nil {
		return states, exitError{code: exitUsage, err: err}
	}
	return states, nil
}

// checkOutputPaths checks that every output file, the transcripts
// directory and the cassette directories of the scenarios of scs that
// record can be written, before any agent starts: it creates missing
// parent directories and tries a temporary file where each will go. Every
// output file is pinned (c.pins), which locks it until the run ends,
// whatever flag names it, so that another run given it is refused; the
// files written once the agents have run are then written where they
// were pinned: an agent that can write where one goes cannot point it
// elsewhere with a symlink.
//
// The temporary files it tries are told to ctx's outfile.WithTemps hooks
// (the run's guard).
func (c *runCmd) checkOutputPaths(ctx context.Context, scs []*scenario.Scenario) error {
	c.pins = map[string]*outfile.Pinned{}
	for _, f := range c.files() {
		if f.Path == outfile.Stdout {
			continue
		}
		pin, err := outfile.Pin(ctx, f.Path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", f.Flag, f.Path, err)
		}
		c.pins[f.Path] = pin
	}
	if c.Transcripts != "" {
		if err := outfile.CheckDir(ctx, c.Transcripts); err != nil {
			return dirFlagError("--transcripts", c.Transcripts, err)
		}
	}
	return runner.CheckCassetteDirs(ctx, scs)
}

// dirFlagError is the error of flag, given the directory dir that
// outfile.CheckDir could not make or write in (err). A file where the
// directory or one of its parents should be is said as such, with what to
// do, where mkdir's error said only "not a directory".
func dirFlagError(flag, dir string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Op == "mkdir" && errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%s %s: %s is a file, not a directory: give a directory (it is made when missing), or move the file away", flag, dir, pe.Path)
	}
	return fmt.Errorf("%s %s: %w", flag, dir, err)
}

// checkTempDir checks, before any agent starts, that acprun can write in
// its own temporary area, the system's temporary directory (TMPDIR),
// when the run of scs makes something there (runner.TempUses), as
// --workspace-dir is checked: the error says what needs it and how to
// mend it, and names no temporary file.
func (c *runCmd) checkTempDir(ctx context.Context, opts runner.Options, scs []*scenario.Scenario) error {
	opts.WorkspaceDir = c.WorkspaceDir // set once checked, after the state files' locks
	uses, movable := runner.TempUses(opts, scs)
	if len(uses) == 0 {
		return nil
	}
	tmp := os.TempDir()
	err := outfile.CheckDir(ctx, tmp)
	if err == nil {
		return nil
	}
	fix := "set TMPDIR to a directory it can write in"
	if movable {
		fix += ", or give --workspace-dir DIR"
	}
	return fmt.Errorf("the temporary directory %s (TMPDIR): %w: acprun makes %s there: %s", tmp, err, strings.Join(uses, " and "), fix)
}

// Run runs the scenarios.
func (c *runCmd) Run(ctx context.Context, g *globals) error {
	if err := notUTF8WorkDir("results record it, and agents are given their directory in it"); err != nil {
		return err
	}
	if err := c.checkOutputFlags(g); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	if err := errors.Join(c.checkStopFlags(), c.checkPrintFlags(g), c.checkPrompts()); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	flags, err := c.flagSettings()
	if err != nil {
		return err
	}
	if err := checkRepeat(c.Repeat.n); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	if r := c.MinPassRate.r; r != nil && (*r <= 0 || *r > 1 || math.IsNaN(*r)) {
		return exitError{code: exitUsage, err: fmt.Errorf("--min-pass-rate %g: %s", *r, passRateWants)}
	}
	if err := c.gatewayFlags.check(); err != nil {
		return err
	}
	c.selection.gateway = c.gatewayFlags
	c.selection.turnTimeout = c.TurnTimeout.d
	// The summary of -q, all it prints, says the warnings of the
	// scenarios it ran: warnBeforeRun says the others; one that did not
	// get that far says them all.
	c.holdWarnings = !c.DryRun && c.format() == formatQuiet
	defer c.sayHeldWarnings(g, nil)
	var rerun *report.Rerun
	if c.RerunFailed != "" {
		var err error
		if rerun, err = report.ReadRerun(c.RerunFailed); err != nil {
			return exitError{code: exitUsage, err: fmt.Errorf("--rerun-failed %w", err)} // err names the file
		}
	}
	scs, err := c.scenarios(g)
	if err != nil {
		return err
	}
	if err := c.checkInputs(g, scs); err != nil {
		return usageError(g, scs, err)
	}
	if rerun != nil && len(scs) > 0 {
		selected := scs
		if scs = rerun.Filter(scs); len(scs) == 0 {
			// Nothing is run nor written: -o may well be the file read.
			if c.AllowEmpty {
				fmt.Fprintf(g.Stderr, "acprun: %s\n", rerun.Nothing(selected))
				return nil
			}
			return exitError{code: exitEmpty, err: fmt.Errorf("%s (--allow-empty accepts that, with exit 0)", rerun.Nothing(selected))}
		}
	}
	if rerun != nil && outfile.Replaces(g.Stdout, c.JSON, outfile.Input{Path: c.RerunFailed}) {
		// What the file held to rerun and this run leaves out (--run,
		// --tag, --shard, a narrower path) stays there for the next rerun.
		c.kept, c.replaced = rerun.Unselected(scs), rerun
	}
	if err := checkUnset(g, scs); err != nil {
		return err
	}
	for i, sc := range scs { // before startErrors, which checks --mode too
		scs[i] = sc.WithFlags(flags)
	}
	if errs := startErrors(scs); len(errs) > 0 {
		return usageError(g, scs, errs)
	}
	if err := c.checkAttempts(len(scs)); err != nil {
		return usageError(g, scs, err)
	}
	if err := c.checkPrintSelection(scs); err != nil {
		return usageError(g, scs, err)
	}
	if len(c.Prompt) > 0 {
		if scs, err = c.withPrompt(ctx, g, scs); err != nil {
			return err
		}
	}
	opts := c.options(g)
	opts.Policy = overrideWithRules(opts.Policy, flags)
	if err := c.checkTranscripts(g, opts, scs); err != nil {
		return usageError(g, scs, err)
	}
	if err := c.checkWorkspaceDir(scs); err != nil {
		return usageError(g, scs, err)
	}
	if err := runner.CheckCassettes(opts, scs); err != nil {
		return usageError(g, scs, err)
	}
	if c.DryRun {
		c.warnBeforeRun(g, scs)
		// The plan is redacted as text, as printed: no field of it can
		// show a secret that ${VAR} put in a command or a prompt; its
		// lines are escaped, as explain's are (a name's "##[").
		var plan strings.Builder
		if err := output.Plan(&plan, runner.DryRun(opts, scs)); err != nil {
			return err
		}
		_, err := io.WriteString(g.Stdout, escapeLines(g.redactor(scs).String(plan.String())))
		return err
	}
	ctx, guard := startGuard(ctx)
	defer guard.Close()
	opts.Guard = guard
	// The final outputs' FIFOs are waited for until an interrupt, whatever
	// --timeout says.
	interrupt := ctx
	if c.Timeout.d > 0 { // the whole run, the wait for state files' locks included
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout.d, runner.ErrRunTimeout)
		defer cancel()
	}
	states, err := c.lockRun(ctx, g, opts, scs)
	defer func() {
		for _, pin := range c.pins {
			pin.Close()
		}
		for _, f := range states {
			f.Close()
		}
	}()
	if err == nil {
		if err = c.checkTempDir(ctx, opts, scs); err != nil {
			err = exitError{code: exitUsage, err: err}
		}
	}
	if err != nil {
		return err
	}
	told := map[*sessionstate.File]bool{} // a file named by two paths is under both
	for _, path := range slices.Sorted(maps.Keys(states)) {
		if f := states[path]; !told[f] {
			told[f] = true
			for _, w := range f.Warnings() {
				fmt.Fprintf(g.Stderr, "acprun: warning: %s\n", w)
			}
		}
	}
	opts.States = states
	if c.WorkspaceDir != "" {
		// Absolute, so that the paths in the results can be used from anywhere.
		dir, err := filepath.Abs(c.WorkspaceDir)
		if err == nil {
			err = outfile.CheckDir(ctx, dir) // made when missing
		}
		if err != nil {
			return exitError{code: exitUsage, err: dirFlagError("--workspace-dir", c.WorkspaceDir, err)}
		}
		opts.WorkspaceDir = dir
	}
	c.warnBeforeRun(g, scs)
	unlock, err := c.lockTranscripts(g)
	if err != nil {
		return err
	}
	defer unlock()
	events, err := c.openEvents(ctx, g)
	if err != nil {
		return err
	}
	// From here on, stderr is written through the printer: the live area
	// is drawn over what is written to it otherwise. A pipe's reader is
	// waited for until the final outputs' readers are (endStderr).
	stderrCtx, endStderr := context.WithCancelCause(context.Background())
	stderr, closeStderr := outfile.PipeUntilDone(stderrCtx, g.Stderr)
	defer closeStderr.Close()
	printer := progress.NewPrinter(stderr, len(scs)*c.Repeat.n, c.progressOptions(g))
	observers := []runner.Observer{printer}
	if events != nil {
		defer events.Close() // a no-op once writeOutputs has closed it
		observers = append(observers, events)
	}
	opts.Observer = progress.Observers(observers...)
	g.onInterrupt(func(n int) { printer.Note(interruptNotes(n, scs)) })
	g.onExitAtOnce(printer.Halt) // the live area erased before the last line
	rep, err := runner.Run(c.transcriptsNotice(ctx, printer), opts, scs)
	// The final outputs' readers are waited for until the next interrupt
	// (after one that cut the run short, the one after it), whatever
	// --timeout says; a FIFO's reader to open it, only until the first.
	untilNext, stop := g.untilNextInterrupt(interrupt)
	defer stop()
	context.AfterFunc(untilNext, func() { endStderr(context.Cause(untilNext)) })
	final := outfile.WithOpenWait(untilNext, interrupt)
	g.onInterrupt(nil)
	printer.EndProgress()
	if err != nil {
		fmt.Fprintf(printer, "acprun: %v\n", g.redactor(scs).Error(err)) // as commandExit would
		return finishStderr(printer, stderr, exitError{code: exitOutput})
	}
	rep.BalancedBy = c.balancedBy
	rep.Agents = words(c.Agent)
	if wd, err := os.Getwd(); err == nil {
		rep.Dir = wd // what the scenarios' relative paths are relative to
	}
	err = c.writeOutputs(final, g, printer, rep, events)
	if err == nil {
		if !rep.Interrupted && errors.Is(context.Cause(interrupt), errInterrupted) {
			fmt.Fprintln(printer, lateInterruptNote)
		}
		err = exitError{code: exitCode(rep)}
	}
	return finishStderr(printer, stderr, err)
}

// finishStderr waits until what the run printed on stderr (printer) is
// written, and returns err, the run's outcome: a reader of stderr that
// did not read it all before the wait ended (the interrupt after the
// run's end, as for the final outputs) makes it exit as interrupted, and
// is told, as far as the pipe takes it without waiting, through stderr
// (the writer printer writes to). A stderr that cannot be written
// otherwise (its reader quit) loses nothing the run produced: the exit
// code stays the run's.
func finishStderr(printer *progress.Printer, stderr io.Writer, err error) error {
	ferr := printer.Finish()
	if ferr == nil || writeExit(ferr) != exitInterrupted {
		return err
	}
	fmt.Fprintf(stderr, "acprun: stderr: %v; what the run printed there is incomplete\n", ferr)
	if ee, ok := errors.AsType[exitError](err); ok && ee.code == exitOutput {
		return err // exitOutput wins over exitInterrupted
	}
	return exitError{code: exitInterrupted}
}

// startGuard starts the guard of the agents a command starts
// (runner.StartGuard), which kills what they left when acprun is killed,
// and returns it with ctx, with which the command's outputs (and the run's
// state files and cassettes) are written: the guard then also removes the
// temporary file of one whose write acprun did not live to finish
// (outfile.WithTemps). The caller closes the
// guard once its outputs are written.
func startGuard(ctx context.Context) (context.Context, *runner.Guard) {
	guard := runner.StartGuard("", nil)
	return outfile.WithTemps(ctx, guard.Remove, guard.Forget), guard
}

// interruptNotes is what run says when it takes the nth interrupt (one of
// stopSignals), the first or the second, before it begins to stop:
// nothing else shows it at once. The second skips the waits, not the
// teardown commands of scs: a third does (exitAtOnce).
func interruptNotes(n int, scs []*scenario.Scenario) string {
	if n == 1 {
		return "acprun: interrupted: cancelling the running turns, then writing the results (interrupt again to stop the agents at once)"
	}
	if slices.ContainsFunc(scs, func(sc *scenario.Scenario) bool { return len(sc.Teardown) > 0 }) {
		return "acprun: interrupted again: stopping the agents at once; the teardown commands still run (interrupt again to exit at once, skipping them: the outputs not written yet are lost)"
	}
	return "acprun: interrupted again: stopping the agents at once (interrupt again to exit at once: the outputs not written yet are lost)"
}

// lateInterruptNote is what run says at its end when an interrupt came
// but stopped nothing, once every scenario had run to its end (while the
// run ended or its outputs were written), and every output was written:
// the exit code is the run's, not exitInterrupted.
const lateInterruptNote = "acprun: interrupted after every scenario had run to its end: nothing was cut short, and the outputs were written whole"

// transcriptsNotice returns ctx, with which the run's transcripts are
// opened, saying through printer when one is a FIFO that has no reader yet: the
// scenario waits for one until an interrupt.
func (c *runCmd) transcriptsNotice(ctx context.Context, printer *progress.Printer) context.Context {
	return outfile.WithWaitNotice(ctx, func(fifo string) {
		printer.Note(fmt.Sprintf("acprun: --transcripts %s: waiting for a reader of the FIFO %s (Ctrl-C stops the run)", c.Transcripts, fifo))
	})
}

// progressOptions says how the run's progress is shown on stderr: the live
// area in the lines format when stderr is a terminal. When --events -
// writes where stderr does (stdout the same terminal, pipe or file), the
// result lines are printed, in the dots format too: every event is then a
// line of its own, not written after dots or between the area's frames.
func (c *runCmd) progressOptions(g *globals) progress.Options {
	shared := c.Events == outfile.Stdout && sameFile(g.Stdout, g.Stderr)
	return progress.Options{
		Terminal: capableTerminal(g.Stderr) && c.format() == formatLines && !shared,
		Quiet:    c.format() == formatQuiet,
		Dots:     c.format() == formatDots && !shared,
		Verbose:  c.Verbose,
	}
}

// lockTranscripts takes the lock of the --transcripts directory before
// any agent starts, held until the run ends (outfile.LockDir): a second
// run given the same directory would replace this run's transcripts with
// its own, and both results would name them. Another run holding it is
// exit 2, as for --events.
func (c *runCmd) lockTranscripts(g *globals) (unlock func(), err error) {
	if c.Transcripts == "" {
		return func() {}, nil
	}
	f, replaced, err := outfile.LockDir(c.Transcripts)
	if err != nil {
		return nil, exitError{code: exitUsage, err: fmt.Errorf("--transcripts %s: %w", c.Transcripts, err)}
	}
	if replaced != "" {
		fmt.Fprintf(g.Stderr, "acprun: warning: --transcripts %s: its lock %s\n", c.Transcripts, replaced)
	}
	return func() { f.Close() }, nil
}

// openEvents opens the --events output before any agent starts: nil
// without it. A FIFO that has no reader yet is waited for, saying so,
// until ctx ends: an interrupt then exits as interrupted, having run
// nothing. The reader of a FIFO, or of a stdout pipe, is waited for until
// ctx ends too: the events left unread are then lost.
func (c *runCmd) openEvents(ctx context.Context, g *globals) (*progress.Events, error) {
	switch c.Events {
	case "":
		return nil, nil
	case outfile.Stdout:
		return progress.StdoutEvents(ctx, g.Stdout, termtext.JSONEscapes), nil // every event a line: nothing held
	}
	ctx = outfile.WithWaitNotice(ctx, func(string) {
		fmt.Fprintf(g.Stderr, "acprun: --events %s: waiting for a reader of the FIFO before any agent starts (Ctrl-C stops the run)\n", c.Events)
	})
	events, err := progress.CreateEvents(ctx, c.Events)
	if err != nil {
		code := exitUsage
		if errors.Is(err, errInterrupted) {
			code = exitInterrupted
		}
		return nil, exitError{code: code, err: fmt.Errorf("--events %s: %w", c.Events, err)}
	}
	return events, nil
}

// writeOutputs writes every output of a finished run, whatever fails, the
// reply of --print, the GitHub annotations and the summary; it says what
// was lost after the summary, so that it is the last thing on the screen.
// All it says goes to stderr through printer, after the run's progress,
// without waiting for stderr's reader: the outputs are written even when
// stderr is not read (see finishStderr). An interrupt (ctx) ends the wait
// for a FIFO's reader, and for a reader, a FIFO's or a stdout pipe's, to
// read: the outputs lost so, or left incomplete, alone exit as interrupted
// (writeExit).
func (c *runCmd) writeOutputs(ctx context.Context, g *globals, printer *progress.Printer, rep report.Report, events *progress.Events) error {
	var lost []string
	code := exitInterrupted // unless an output is lost otherwise
	lose := func(err error, msg string, args ...any) {
		lost = append(lost, fmt.Sprintf(msg, args...))
		if writeExit(err) != exitInterrupted {
			code = exitOutput
		}
	}
	out := map[string]outfile.Target{}
	for _, f := range c.files() {
		out[f.Flag] = f
	}
	if sameFile(g.Stdout, g.Stderr) {
		printer.Flush() // one stream: the progress before the outputs on stdout
	}
	written := false
	// A rerun replacing the file it read keeps there the earlier results
	// of what it left out and of what it never started (an interrupt,
	// --timeout or --fail-fast came first): not run is no result. They
	// are redacted as the run's own are: the earlier run may not have
	// known a secret this one does.
	file, unstarted := rep, []report.Result(nil)
	if c.replaced != nil {
		file, unstarted = c.replaced.Unstarted(rep)
	}
	kept := append(slices.Clip(c.kept), unstarted...)
	g.redactor(nil).Value(&kept)
	file = report.Keep(file, kept)
	// Streamed: the results may hold megabytes of agent text.
	if err := g.writeFile(ctx, printer, out["-o"], c.pins[c.JSON], false, termtext.JSONEscapes, func(w io.Writer) error { return report.Write(w, file) }); err != nil {
		lose(err, "-o %s: %v; the results %s", c.JSON, err, unwritten(err, "are incomplete", "were not written"))
	} else {
		written = true
	}
	if c.JUnit != "" {
		if err := g.writeFile(ctx, printer, out["--junit"], c.pins[c.JUnit], true, termtext.MarkupEscapes, func(w io.Writer) error { return output.JUnit(w, rep) }); err != nil {
			lose(err, "--junit %s: %v; the JUnit report %s", c.JUnit, err, unwritten(err, "is incomplete", "was not written"))
		}
	}
	if c.HTML != "" {
		err := g.writeFile(ctx, printer, out["--html"], c.pins[c.HTML], true, termtext.MarkupEscapes, func(w io.Writer) error {
			opts := htmlOptions(rep, report.TranscriptFinder("", "", nil)) // where the run wrote them
			opts.Warn = func(msg string) { fmt.Fprintf(printer, "acprun: --html: warning: %s\n", msg) }
			return htmlreport.Write(w, rep, opts)
		})
		if err != nil {
			lose(err, "--html %s: %v; the HTML report %s", c.HTML, err, unwritten(err, "is incomplete", "was not written"))
		}
	}
	if events != nil {
		if err := events.Close(); err != nil {
			lose(err, "--events %s: %v; the events file %s", c.Events, err, outfile.Fate(err))
		}
	}
	for _, r := range rep.Scenarios {
		for _, msg := range r.LostTranscripts {
			lose(nil, "--transcripts %s: %s: %s", c.Transcripts, r.Label(), msg)
		}
		for _, msg := range r.LostOutputs {
			lose(nil, "%s: %s", r.Label(), msg)
		}
	}
	if c.Print {
		stdout, closer := outfile.PipeUntilDone(ctx, g.Stdout)
		err := printReply(stdout, rep, replyDest(g.Stdout, os.Getenv("GITHUB_ACTIONS") == "true"))
		closer.Close()
		if err != nil {
			lose(err, "--print: %v", err)
		}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		err := c.annotate(ctx, g, printer, rep)
		if writeExit(err) == exitInterrupted {
			lose(err, "GitHub annotations: %v; they are incomplete", err)
		} else if err != nil {
			fmt.Fprintf(printer, "acprun: github summary: %v\n", err)
		}
	}
	// Held by printer: finishStderr waits until it is written.
	_ = output.Text(printer, rep)
	if written {
		fmt.Fprint(printer, output.Kept(c.JSON, c.kept))
		fmt.Fprint(printer, output.KeptNotRun(c.JSON, unstarted))
	}
	if written && c.JSON != outfile.Stdout && c.format() != formatQuiet {
		fmt.Fprintf(printer, "results: %s\n", c.JSON)
	}
	if len(lost) > 0 {
		for _, msg := range lost {
			fmt.Fprintf(printer, "acprun: %s\n", msg)
		}
		return exitError{code: code}
	}
	return nil
}

// annotate writes what GitHub Actions shows of the run (output.GitHub):
// its annotations on stdout, or on stderr (printer) when stdout carries
// the machine output alone. A stdout pipe's reader is waited for until
// ctx ends (outfile.PipeUntilDone), as for the final outputs.
func (c *runCmd) annotate(ctx context.Context, g *globals, printer io.Writer, rep report.Report) error {
	summary := os.Getenv("GITHUB_STEP_SUMMARY")
	if c.Print || slices.ContainsFunc(c.files(), func(f outfile.Target) bool { return outfile.IsStdout(g.Stdout, f.Path) }) {
		return output.GitHub(printer, summary, rep)
	}
	stdout, closer := outfile.PipeUntilDone(ctx, g.Stdout)
	defer closer.Close()
	return output.GitHub(stdout, summary, rep)
}

// unwritten says what became of an output whose write failed with err:
// incomplete, its reader given up before it read the rest
// (outfile.UnreadError), or lost, not written.
func unwritten(err error, incomplete, lost string) string {
	if _, ok := errors.AsType[*outfile.UnreadError](err); ok {
		return incomplete
	}
	return lost
}

// The values of --format.
const (
	formatLines = "lines"
	formatDots  = "dots"
	formatQuiet = "quiet"
)

// format is what --format and -q ask to print as scenarios end: -q is
// --format quiet.
func (c *runCmd) format() string {
	if c.Quiet {
		return formatQuiet
	}
	return c.Format
}

// options are the runner's options the flags give, for the run and for
// --dry-run's plan alike. They make nothing: the workspace directory is
// added by Run.
func (c *runCmd) options(g *globals) runner.Options {
	opts := runner.Options{
		Transcripts: c.Transcripts,
		NoText:      c.NoText,
		Overrides:   runner.Overrides{TurnTimeout: c.TurnTimeout.d, IdleTimeout: c.IdleTimeout.d},
		Policy:      c.policy(),
		Abort:       g.Abort,
		Version:     acprunVersion(),
		Parallel:    c.Jobs.n,
		Repeat:      c.Repeat.n,
		Resume:      c.Resume,
		ReuseAgents: c.ReuseAgents,

		MaxFailures:     c.MaxFailures.n,
		CancelOnFailure: c.FailFast.mode == failFastCancel,
		FailFast:        c.FailFast.mode != "",

		KeepWorkspaces: c.KeepWorkspaces,

		Loaded: g.loaded,
		Config: g.cfg,
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if c.MinPassRate.r != nil {
		opts.MinPassRate = *c.MinPassRate.r
	}
	if opts.MaxFailures == 0 && c.FailFast.mode != "" {
		opts.MaxFailures = 1
	}
	return opts
}

// policy is the policy --allow-all or --deny-all puts in place of every
// scenario's; nil when neither is given.
func (c *runCmd) policy() *approve.Policy {
	switch {
	case c.AllowAll:
		return approve.AllowAll()
	case c.DenyAll:
		return approve.DenyAll()
	}
	return nil
}

// stateError maps a failure to open the state files to an exit code:
// another run holding a lock is exitLocked (--lock fail, or --timeout
// passed while waiting), an interrupt while waiting exitInterrupted,
// anything else (a corrupt file, a directory that cannot be made)
// exitUsage. Nothing ran in any case.
func stateError(ctx context.Context, err error) error {
	var busy *sessionstate.BusyError
	switch {
	case errors.As(err, &busy), errors.Is(context.Cause(ctx), runner.ErrRunTimeout):
		return exitError{code: exitLocked, err: err}
	case ctx.Err() != nil:
		return exitError{code: exitInterrupted, err: err}
	}
	return exitError{code: exitUsage, err: err}
}
