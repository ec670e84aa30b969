package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/sessionstate"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// Defaults for the scenario settings a file leaves out.
const (
	DefaultTurnTimeout = 10 * time.Minute
	DefaultCancelGrace = 10 * time.Second
	DefaultKillGrace   = 5 * time.Second
	// setupTimeout bounds initialize, authenticate, session/new (or load,
	// resume) and the session's settings together; a request it cuts short
	// gets $/cancel_request (see setupWait).
	setupTimeout = 2 * time.Minute
)

// Causes given to contexts when a deadline passes, so that context.Cause
// tells which deadline it was (see cancelCause). Anything else ending a
// turn is an interrupt.
var (
	errTurnTimeout     error = &stopCause{"turn timeout", report.CauseTurnTimeout}
	errIdleTimeout     error = &stopCause{"idle timeout", report.CauseIdleTimeout}
	errScenarioTimeout error = &stopCause{"scenario timeout", report.CauseScenarioTimeout}
	// ErrRunTimeout is the cause callers give the run's context when the
	// whole run's deadline (--timeout) passes.
	ErrRunTimeout error = &stopCause{"run timeout", report.CauseRunTimeout}
	// errFailFast ends the running scenarios when Options.MaxFailures is
	// reached with Options.CancelOnFailure, wrapped in a failFastCause.
	errFailFast error = &stopCause{"fail fast", report.CauseFailFast}
)

// failFastCause is errFailFast with why the run stopped (failureStop.reason),
// so that what it cancels names the flag the user gave (see stopReason).
type failFastCause struct{ why string }

func (c *failFastCause) Error() string { return errFailFast.Error() }
func (c *failFastCause) Unwrap() error { return errFailFast }

// Options configures Run. Zero values have the documented defaults.
type Options struct {
	// Observer is told about progress; nil for none.
	Observer Observer
	// NoText keeps no message and thought text of the turns whose
	// expectations and judges do not read it, so that a run's memory does
	// not grow with what the agents say; Updates still counts the chunks.
	NoText bool
	// Transcripts, when set, is a directory that receives one JSONL file of
	// every message both ways per scenario.
	Transcripts string
	// Policy, when set, replaces every scenario's permission policy
	// (--allow-all, --deny-all).
	Policy *approve.Policy
	// Overrides, when set, replace the scenarios' turn and idle timeouts.
	Overrides
	// Abort, when closed, cuts every grace period short: agents are killed
	// at once (a second Ctrl-C). The teardown commands still run.
	Abort <-chan struct{}
	// Guard, when set, is the guard of the run's processes (StartGuard),
	// which the caller closes once it has written the run's outputs; nil:
	// Run starts one and closes it at its end.
	Guard *Guard
	// Self is the acprun executable, used when an agent command starts with
	// "acprun" (so examples run the mock agent of the same build). Default:
	// $ACPRUN_TEST_SELF (EnvTestSelf) when set, else os.Executable.
	Self string
	// Environ is the environment agents start with, before their scenario's
	// env. Default: os.Environ().
	Environ []string
	// Version is reported to agents in clientInfo.
	Version string
	// Parallel is how many scenarios run at once; default 1.
	Parallel int
	// Repeat runs every scenario this many times (attempts 1…Repeat);
	// default 1.
	Repeat int
	// MinPassRate is the share of its attempts a scenario without
	// expect.passRate must pass (run --min-pass-rate); 0: all of them.
	// It is recorded in each result (report.Result.MinPassRate).
	MinPassRate float64
	// WorkspaceDir is where workspaces are made; default os.TempDir().
	WorkspaceDir string
	// KeepWorkspaces keeps the workspaces of passing attempts too (those of
	// the others are always kept).
	KeepWorkspaces bool
	// Resume continues every scenario's recorded session, as if each had
	// session.resume (run --resume).
	Resume bool
	// ReuseAgents lets every scenario share its agent process with the
	// scenarios started the same way, as if each had agent.reuse (run
	// --reuse-agents).
	ReuseAgents bool
	// States are the open, locked state files by path (OpenStates) of
	// the scenarios that resume, one file under each of its spellings:
	// the caller opens them before Run and closes them after it.
	States map[string]*sessionstate.File
	// MaxFailures, when > 0, stops the run once that many jobs (scenario
	// attempts, after their retries) have failed, errored or been invalid: no job starts
	// after that, and the jobs not started are listed as not run (errors).
	// With Parallel 1 which jobs run follows from the run order alone.
	MaxFailures int
	// CancelOnFailure, with MaxFailures, also cancels the jobs still
	// running when it is reached (session/cancel, cancelCause failFast);
	// without it they finish.
	CancelOnFailure bool
	// FailFast says that a MaxFailures of 1 came from --fail-fast, for
	// messages: the run is said to stop at --fail-fast, else at
	// --max-failures 1.
	FailFast bool

	// tap, when set, sees every message (benchmarks).
	tap func(dir acp.Direction, line []byte, at time.Time)
	// procs counts the agent processes of the run's scenarios and keeps
	// those that are reused; nil starts processes outside any count
	// (judges, outside Run).
	procs *pool
	// judging names the judge of a judge's run ("the judge of turn 2"),
	// "" for a scenario's: a judge's sandbox leaves the session cwd, the
	// workspace it judges, read-only (see judgeSandbox), and its one turn
	// is the judge's question.
	judging string
	// conceal and reveal are, for a judge's run, what the sandbox of the
	// attempt it judges hides of the workspaces' directory and leaves
	// readable in it (sandbox.Spec's Conceal and Reveal): the judge, which
	// has no workspace of its own, sees no workspace but the one it
	// judges, as that attempt's agent did.
	conceal, reveal []string
	// spill is the run's private directory for the files of long texts
	// (see textBuf), removed at its end; "" keeps them in memory (outside
	// Run, or when it could not be made).
	spill string
	// mark is the run's: every scenario's mark and every pooled process's
	// is a Sub of it; "" outside Run, where each gets a new one.
	mark reap.Mark
	// guard kills what carries mark, and removes the run's private
	// directories given to it, once acprun has exited, however it exited
	// (see reap.StartGuard); nil outside Run, off Linux, or when it could
	// not be started.
	guard *reap.Guard
	// gateway is the run's model gateway; nil when no scenario has one.
	gateway *gateway.Server
	// sandboxHost is what this host can enforce for the scenarios'
	// sandboxes, detected once per run when first asked; nil: detect
	// each time (outside Run).
	sandboxHost func() sandbox.Host
	// transcripts is the Transcripts directory, opened once before any
	// agent starts: an agent that can write in it (or in its place) cannot
	// point a transcript elsewhere with a symlink. Nil outside Run, where
	// Transcripts is opened for each transcript.
	transcripts *os.Root
	// cassetteDirs are the directories record writes cassettes in, by
	// gateway.dir, opened before any agent starts for the same reason;
	// nil outside Run, where each cassette is written by its path.
	cassetteDirs map[string]*os.Root
	// cassettes are the cassettes replay reads, by path, pinned before
	// any agent starts for the same reason (pinCassettes); nil outside
	// Run, where each is read by its path.
	cassettes inputs
	// commits are the commits the refs of the run's git workspaces named
	// when it started, before any agent did (pinCommits); nil outside Run.
	commits commits
	// places are the paths of the run's scenarios that each attempt
	// resolves again (session cwd, client roots, workspace source, sandbox
	// paths), resolved before any agent starts; nil outside Run.
	places places
	// inputs are the attachments and golden files of the run's
	// scenarios, pinned before any agent starts for the same reason; nil
	// outside Run, where each is read by its path.
	inputs inputs
	// Loaded are the scenarios loaded with those Run is given, selected
	// or not (a --run, --tag or --shard subset leaves some out), and Config
	// the config file they were loaded with (nil for none): the run's
	// redactor knows their secrets too, and those of every agent of the
	// config (runRedactor), so that what a run redacts does not depend on
	// which of them it runs.
	Loaded []*scenario.Scenario
	Config *scenario.Config

	// red is the run's redactor (runRedactor), which every output of
	// every scenario of the run goes through; nil outside Run, where each
	// scenario is redacted of its own secrets (see redactor).
	red *redact.Redactor
}

// Run runs every scenario and returns their results in the given order. It
// returns an error only when it could not run at all (the transcripts
// directory could not be made); failures of scenarios are in the Report.
// When ctx ends, running turns are cancelled as the protocol asks and the
// Report holds everything produced so far. The state files and cassettes
// are written with ctx's outfile.WithTemps hook, as the caller's outputs.
func Run(ctx context.Context, opts Options, scenarios []*scenario.Scenario) (report.Report, error) {
	opts.setDefaults()
	opts.red = opts.runRedactor(scenarios)
	if opts.Transcripts != "" {
		if err := os.MkdirAll(opts.Transcripts, 0o755); err != nil {
			return report.Report{}, fmt.Errorf("transcripts: %w", err)
		}
		dir, err := os.OpenRoot(opts.Transcripts)
		if err != nil {
			return report.Report{}, fmt.Errorf("transcripts: %w", err)
		}
		defer dir.Close()
		opts.transcripts = dir
	}
	dirs, err := openCassetteDirs(scenarios)
	if err != nil {
		return report.Report{}, err
	}
	defer closeCassetteDirs(dirs)
	opts.cassetteDirs = dirs
	pins := &inputfile.Pins{}
	defer pins.Close()
	opts.inputs = pinInputs(pins, scenarios)
	opts.places = pinPlaces(scenarios, opts.Environ)
	rep := report.Report{SchemaVersion: report.SchemaVersion, StartedAt: time.Now()}
	if opts.Policy != nil {
		rep.PolicyOverride = opts.Policy.Source
	}
	// The guard starts before any process of the run, and hears of its end
	// once the run has cleaned up after itself (the defers below run
	// first), or once the caller has written the run's outputs: what
	// acprun leaves when it is killed is the guard's.
	guard, closeGuard := guardOf(opts.Guard, opts.Self, opts.Environ)
	defer closeGuard()
	opts.mark, opts.guard = guard.mark, guard.guard
	opts.procs = newPool(opts.Parallel, opts.WorkspaceDir, opts.guard)
	opts.sandboxHost = detectHost(opts.Self, opts.Environ)
	opts.commits = pinCommits(ctx, scenarios, opts.mark, opts.red)
	gw, err := startGateway(scenarios)
	if err != nil {
		return report.Report{}, err
	}
	if gw != nil {
		opts.gateway = gw
		defer gw.Close()
		if socket := gw.Socket(); socket != "" {
			opts.guard.Remove(filepath.Dir(socket)) // the socket's private directory
		}
	}
	if dir, err := os.MkdirTemp("", "acprun-text-"); err == nil {
		opts.spill = dir
		opts.guard.Remove(dir)
		defer os.RemoveAll(dir)
	}
	jobs := jobsOf(scenarios, opts.Repeat)
	opts.procs.pickTellers(jobs, opts.ReuseAgents)
	names := transcriptNames(jobs)
	opts.cassettes = pinCassettes(pins, jobs)
	stop := &failureStop{max: opts.MaxFailures, failFast: opts.FailFast, repeat: opts.Repeat}
	results, cut := runJobs(ctx, &opts, jobs, names, stop)
	opts.procs.close(opts.Abort) // the processes kept for more scenarios
	runTimedOut := errors.Is(context.Cause(ctx), ErrRunTimeout)
	why := ""
	switch {
	case stop.stopped():
		// Not started once the run stopped at --max-failures: listed, as
		// not run, like those --timeout or an interrupt leaves.
		why = "not run: " + stop.reason()
	case runTimedOut:
		why = "not run: the run's --timeout passed first"
	case ctx.Err() != nil:
		why = "not run: interrupted first"
	}
	for i, rs := range results {
		if rs == nil && why != "" {
			rs = []report.Result{notRun(jobs[i], why, &opts)}
		}
		rep.Scenarios = append(rep.Scenarios, rs...)
	}
	rep.Interrupted = cut && !runTimedOut // an interrupt that stopped nothing leaves the run whole
	rep.Duration = time.Since(rep.StartedAt)
	return rep, nil
}

// setDefaults fills in the defaults of the options left zero.
func (o *Options) setDefaults() {
	o.Self, o.Environ = processDefaults(o.Self, o.Environ)
	if o.Abort == nil {
		o.Abort = make(chan struct{})
	}
	o.Parallel = max(o.Parallel, 1)
	o.Repeat = max(o.Repeat, 1)
}

// runRedactor returns the redactor of a run of scenarios under o: the
// secrets of those scenarios and of o.Loaded, selected or not, and of
// every agent of o.Config (configAgents), and the secret-looking
// variables of o.Environ (see redactorOf). A run of some of the scenarios
// (--run, --tag, --shard) redacts what a run of all of them does.
func (o *Options) runRedactor(scenarios []*scenario.Scenario) *redact.Redactor {
	all := append(slices.Clip(o.Loaded), scenarios...)
	return runRedactor(all, o.Environ, o.Config, configAgents(o.Config)...)
}

// runRedactor returns the redactor of a run of scenarios with environ,
// and of any output that shows agents (the named agents of a config
// file, an agent probed): it knows the secrets of every scenario
// (scenarioSecrets) and of every agent of agents (agentSecrets), and the
// secret-looking variables of environ. Every output of every scenario
// goes through it, not only through its own scenario's secrets: the
// agents of one run (without a sandbox) run as the same user and can read
// each other's environment, so one scenario's agent can tell another's
// secrets. It is the one redactor of every output of acprun that may
// show them: a run's, its --dry-run plan, acprun agents, acprun probe.
//
// A value that is part of the name of a scenario, of its file's path or
// of its agent's name, or of the name of one of agents, or of a word of
// the protocol, or is one of acprun's own words, is not redacted
// (notSecret).
func runRedactor(scenarios []*scenario.Scenario, environ []string, cfg *scenario.Config, agents ...scenario.Agent) *redact.Redactor {
	secrets := redact.Secrets(nil, environ)
	if cfg != nil {
		secrets = append(secrets, gatewaySecrets(cfg.Defaults.Scenario.Gateway)...)
	}
	names := make([]string, 0, 3*len(scenarios)+len(agents))
	for _, sc := range scenarios {
		secrets = append(secrets, scenarioSecrets(sc, environ)...)
		names = append(names, sc.Name, sc.File, sc.Agent.Name)
	}
	for _, a := range agents {
		secrets = append(secrets, agentSecrets(a)...)
		names = append(names, a.Name)
	}
	return redact.NewExcept(notSecret(names), secrets...)
}

// configAgents returns the agents of cfg, which may be nil: every named
// agent (NamedAgents: the built-in ones and the config's) and its
// defaults.agent, as LoadConfig read them, whether or not a scenario of
// the run uses them.
func configAgents(cfg *scenario.Config) []scenario.Agent {
	var agents []scenario.Agent
	for _, na := range cfg.NamedAgents() {
		agents = append(agents, na.Agent)
	}
	if cfg != nil && cfg.Defaults.Agent != nil {
		agents = append(agents, *cfg.Defaults.Agent)
	}
	return agents
}

// agentSecrets returns the secrets of agent a: the values of its env and
// of the env and headers of its MCP servers (mcpSecrets), and those
// values as their files spell them where that differs (Agent.Spelled),
// which the files' lines show in a problem's source line.
func agentSecrets(a scenario.Agent) []string {
	return slices.Concat(redact.Secrets(a.Env, nil), mcpSecrets(a.McpServers), a.Spelled)
}

// cassetteRedactor returns the redactor of what sc's gateway keeps in a
// cassette and of the requests a replay matches against it: the secrets
// of sc alone (scenarioSecrets) and the secret-looking variables of
// environ, sparing what is part of sc's name and of its agent's name, of
// a word of the protocol or one of acprun's own words (notSecret). Unlike
// runRedactor it does not depend on which other scenarios the run
// selected, nor on how sc's file was named to it: a run of some of the
// scenarios (one file, --tag, a shard) must read the cassettes a run of
// all of them recorded, and the other way round. The agent is given no
// other scenario's secrets (config defaults and named agents that several
// scenarios share are in each one's own agent); a stolen one, read from
// another agent's environment or file, is kept as a file read would be.
func cassetteRedactor(sc *scenario.Scenario, environ []string) *redact.Redactor {
	secrets := append(redact.Secrets(nil, environ), scenarioSecrets(sc, environ)...)
	return redact.NewExcept(notSecret([]string{sc.Name, sc.Agent.Name}), secrets...)
}

// ResultsRedactor returns what an output made from rep after its run (the
// HTML report) redacts of environ: the values of its secret-looking
// variables (redact.Secrets) but those that are no secrets in rep's
// scenarios, as for Run (notSecret), nor part of the directories their
// files are relative to (rep.Dir, a merged result's own Dir), which
// --rerun-failed and merge take them with.
func ResultsRedactor(rep report.Report, environ []string) *redact.Redactor {
	names := make([]string, 0, 1+4*len(rep.Scenarios))
	names = append(names, rep.Dir)
	for _, res := range rep.Scenarios {
		names = append(names, res.Name, res.File, res.Dir, res.Agent.Name)
	}
	return redact.NewExcept(notSecret(names), redact.Secrets(nil, environ)...)
}

// ownWords are the words acprun writes as the values of its results
// (statuses, stop reasons and turn outcomes, cancel and error causes,
// permission verdicts, outcomes and option kinds, tool call kinds and
// statuses, how an agent stopped), which its readers (report, merge,
// --rerun-failed) and verdicts depend on.
var ownWords = []string{
	string(report.StatusPassed), string(report.StatusFailed), string(report.StatusError), string(report.StatusInterrupted), string(report.StatusInvalid),
	string(acp.StopEndTurn), string(acp.StopMaxTokens), string(acp.StopMaxTurnRequests), string(acp.StopRefusal), string(acp.StopCancelled),
	report.OutcomeError, report.OutcomeAgentExited, report.OutcomeUnresponsive, report.OutcomeSkipped,
	report.CauseTurnTimeout, report.CauseIdleTimeout, report.CauseScenarioTimeout, report.CauseRunTimeout, report.CauseInterrupt,
	report.CauseFailFast, report.CauseBudget, report.CauseDivergence, report.CauseSetupTimeout,
	report.ErrorAuth, report.ErrorProtocolVersion, report.ErrorSetupTimeout,
	string(approve.Allow), string(approve.Deny), acp.OutcomeSelected, acp.OutcomeCancelled,
	string(acp.AllowOnce), string(acp.AllowAlways), string(acp.RejectOnce), string(acp.RejectAlways),
	string(acp.KindRead), string(acp.KindEdit), string(acp.KindDelete), string(acp.KindMove), string(acp.KindSearch),
	string(acp.KindExecute), string(acp.KindThink), string(acp.KindFetch), string(acp.KindSwitchMode), string(acp.KindOther),
	string(acp.StatusPending), string(acp.StatusInProgress), string(acp.StatusCompleted), string(acp.StatusFailed),
	report.StopClean, report.StopGrace, report.StopKept,
}

// notSecret reports which values a redactor of the outputs of the
// scenarios named names (and of the named agents they run and the paths
// of their files, also names) does not look for (redact.NewExcept),
// whatever holds them: a value that is part of one of the names, which
// the user wrote in a scenario or config file (vars values too are taken
// as written, never from the environment) or gave as the file to run,
// and which every output prints as the scenario's identity (name [agent]
// at file:line; --rerun-failed and merge key on them); one of acprun's
// own words (ownWords), in any case; and one that is part of a word of
// the protocol (protocolWords), in any case, so that no method, key or
// value of a message in a transcript is cut and a replay sees what the
// agent saw.
func notSecret(names []string) func(string) bool {
	return func(v string) bool {
		v = strings.TrimSpace(v)
		if slices.ContainsFunc(ownWords, func(w string) bool { return strings.EqualFold(v, w) }) {
			return true
		}
		lower := strings.ToLower(v)
		if slices.ContainsFunc(protocolWords, func(w string) bool { return strings.Contains(strings.ToLower(w), lower) }) {
			return true
		}
		return slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, v) })
	}
}

// gatewaySecrets returns the secrets of gateway g (nil for none) that its
// file gives: the password of gateway.upstream (a proxy's), and the
// upstream as the file writes it where that differs (Gateway.Spelled),
// which the file's lines show in a problem's source line.
func gatewaySecrets(g *scenario.Gateway) []string {
	if g == nil {
		return nil
	}
	return slices.Concat(redact.URLPassword(g.Given.Upstream), g.Spelled)
}

// scenarioSecrets returns the secrets of sc (redact.Secrets): the values
// of its agent's and its judges' agents' env and of the env and headers
// of their MCP servers (and the credential of a header such as "Bearer
// X"), the passwords in its gateway's upstreams (a proxy's, from
// gateway.upstream or acprun's environment) and the API keys its gateway
// names (gateway.key), from its agent's env over environ.
func scenarioSecrets(sc *scenario.Scenario, environ []string) []string {
	secrets := slices.Concat(agentSecrets(sc.Agent), gatewaySecrets(sc.Gateway))
	if sc.Gateway != nil {
		for _, t := range sc.Gateway.Targets {
			secrets = append(secrets, redact.URLPassword(t.Upstream)...)
			if t.KeyEnv != "" {
				secrets = append(secrets, agentGetenv(sc, environ)(t.KeyEnv))
			}
		}
	}
	judges := []*scenario.Judge{sc.Expect.Judge}
	for _, t := range sc.Turns {
		judges = append(judges, t.Expect.Judge)
	}
	for _, j := range judges {
		if j != nil {
			secrets = append(secrets, agentSecrets(j.Agent)...)
		}
	}
	return secrets
}

// redactor is the redactor of sc's outputs: the run's (Options.red), or
// outside Run one of sc's own secrets (and of o.Loaded and o.Config).
func (o *Options) redactor(sc *scenario.Scenario) *redact.Redactor {
	if o.red != nil {
		return o.red
	}
	return o.runRedactor([]*scenario.Scenario{sc})
}

// mcpSecrets returns the values of the env of the MCP servers in raw (an
// agent's mcpServers) and of their headers, of a header such as "Bearer
// X" its X, and the secrets of their urls (redact.URLSecrets: a password,
// an "?api_key=…"): the credentials an agent is given for its tools.
// redact.New drops those unfit to be secrets.
func mcpSecrets(raw json.RawMessage) []string {
	var servers []acp.McpServer
	if len(raw) == 0 || json.Unmarshal(raw, &servers) != nil {
		return nil
	}
	var out []string
	for _, s := range servers {
		out = append(out, redact.URLSecrets(s.URL)...)
		for _, e := range s.Env {
			out = append(out, e.Value)
		}
		for _, h := range s.Headers {
			out = append(out, h.Value)
			if _, cred, ok := strings.Cut(strings.TrimSpace(h.Value), " "); ok {
				out = append(out, cred)
			}
		}
	}
	return out
}

// EnvTestSelf names, in acprun's environment, the executable that starts
// for "acprun" in an agent's command in place of acprun itself: a seam for
// acprun's own tests, which run a race-detector build and point the agents
// they start (mock agents, replays) at a plain build of the same source,
// whose start costs a fraction of the CPU.
const EnvTestSelf = "ACPRUN_TEST_SELF"

// processDefaults returns self and environ, or their defaults when unset:
// this executable and this process's environment.
func processDefaults(self string, environ []string) (string, []string) {
	if self = cmp.Or(self, os.Getenv(EnvTestSelf)); self == "" {
		if exe, err := os.Executable(); err == nil {
			self = exe
		}
	}
	if environ == nil {
		environ = os.Environ()
	}
	return self, environ
}

// jobsOf lists the jobs of a run: every scenario, repeat times in a row.
func jobsOf(scenarios []*scenario.Scenario, repeat int) []job {
	var jobs []job
	for _, sc := range scenarios {
		if repeat == 1 {
			jobs = append(jobs, newJob(sc, 0))
			continue
		}
		for a := 1; a <= repeat; a++ {
			jobs = append(jobs, newJob(sc, a))
		}
	}
	return jobs
}

// runJobs runs the jobs, opts.Parallel at a time, in order, and returns
// the results of each job's tries (nil for a job that did not start). No
// job starts once ctx has ended or the run has stopped at
// Options.MaxFailures; with Options.CancelOnFailure the stop also ends
// the running ones. names[i] are the transcript names of jobs[i]'s tries
// (transcriptNames). cut reports whether ctx's end cut the run short:
// it kept a job from starting, or came before a job ended (endedByRun).
func runJobs(ctx context.Context, opts *Options, jobs []job, names [][]tryTranscripts, stop *failureStop) (_ [][]report.Result, cut bool) {
	obs := &observer{o: opts.Observer}
	// runCtx ends the running jobs when the run stops at MaxFailures; ctx
	// alone tells an interrupt or the run's timeout.
	runCtx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	results := make([][]report.Result, len(jobs))
	var next atomic.Int64
	var cutJob atomic.Bool // a job ended after ctx had ended runCtx (runTries)
	var wg sync.WaitGroup
	for range min(opts.Parallel, len(jobs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || runCtx.Err() != nil || stop.stopped() {
					return // interrupted, out of time or stopped: start nothing new
				}
				results[i] = runTries(runCtx, opts, obs, jobs[i], names[i], stop, &cutJob)
				if stop.count(results[i][len(results[i])-1]) && opts.CancelOnFailure {
					cancelRun(&failFastCause{why: stop.reason()})
				}
			}
		})
	}
	wg.Wait()
	cut = cutJob.Load()
	for _, rs := range results {
		cut = cut || rs == nil && !stop.stopped() // kept from starting by ctx's end
	}
	return results, cut
}

// runTries runs job j, and runs it again while it errors or is invalid,
// up to its scenario's retries, unless ctx has ended: one result per try,
// in order. Each try but the last is marked Retried; a passing last try
// after others is Flaky. No retry starts once stop has stopped the run (at
// Options.MaxFailures) or ctx has ended: a try that would have been
// retried then says so in a warning. names are the transcript names of the
// tries (nil for none). cut is set when the last try ended after the run's
// end (an interrupt, its --timeout) had ended ctx (endedByRun), before
// the observer is told it finished.
func runTries(ctx context.Context, opts *Options, obs *observer, j job, names []tryTranscripts, stop *failureStop, cut *atomic.Bool) []report.Result {
	var out []report.Result
	for try := 0; ; try++ {
		j.ref.Retry = try
		var transcript tryTranscripts
		if try < len(names) {
			transcript = names[try]
		}
		obs.call(func(o Observer) { o.ScenarioStarted(j.ref) })
		r := runScenario(ctx, opts, obs, j, transcript)
		// An attempt that failed is the agent's verdict: only one that
		// errored or measured nothing (invalid) runs again, and not one
		// that errored after a failure of its own (failedBeforeError).
		again := (r.Status == report.StatusError || r.Status == report.StatusInvalid) && try < j.sc.Retries
		if again && r.Status == report.StatusError {
			if n := failedBeforeError(j.sc, r); n > 0 {
				again = false
				r.Warnings = append(r.Warnings, fmt.Sprintf("not retried: turn %d failed before the error, and a failure is the agent's verdict", n))
			}
		}
		if again && (stop.stopped() || ctx.Err() != nil) {
			// The retries it had left are not spent: say why, lest they
			// seem forgotten.
			why := stop.reason()
			if !stop.stopped() {
				why = stopReason(ctx)
			}
			again = false
			r.Warnings = append(r.Warnings, "not retried: "+why)
		}
		r.Retry = try
		r.Retried = again
		r.Flaky = r.Status == report.StatusPassed && try > 0
		if !again && endedByRun(ctx) {
			cut.Store(true) // before it is said to have finished
		}
		obs.call(func(o Observer) { o.ScenarioFinished(j.ref, r) })
		out = append(out, r)
		if !again {
			return out
		}
	}
}

// failureStop counts the jobs that failed, errored or were invalid and
// stops the run at its max (Options.MaxFailures; 0 for no max).
type failureStop struct {
	max      int
	failFast bool // Options.FailFast
	failed   atomic.Int64
	// repeat is Options.Repeat; below counts the failed attempts of each
	// scenario with a minimum pass rate against an agent, invalid its
	// invalid ones (no samples of the rate), and out those counted as
	// failed, their rate out of reach (see belowRate).
	repeat  int
	mu      sync.Mutex
	below   map[[3]string]int
	invalid map[[3]string]int
	out     map[[3]string]bool
}

// count counts the verdict r of a finished job; it reports whether that
// job made the run stop. An interrupted job is not a failure: the run's
// end cut it short. The failed or errored attempts of a scenario with a
// minimum pass rate are one failure once that rate is out of reach, and
// none otherwise; an invalid one always is one (it is no sample of the
// rate), as well as the scenario's when it puts the rate out of reach
// (see belowRate).
func (s *failureStop) count(r report.Result) bool {
	if s.max <= 0 || r.Status == report.StatusPassed || r.Status == report.StatusInterrupted {
		return false
	}
	n := int64(1)
	if r.MinPassRate > 0 {
		n = s.belowRate(r)
	}
	if n == 0 {
		return false
	}
	after := s.failed.Add(n)
	return after >= int64(s.max) && after-n < int64(s.max)
}

// belowRate counts the failed, errored or invalid attempt r of a scenario
// with a minimum pass rate, and returns the failures it makes: one for an
// invalid attempt, and one (the scenario's, once) when with it the rate
// is out of reach against r's agent: the attempts left, all passing, could
// no longer make it, over the attempts that are samples of it (an invalid
// attempt is none). The count is the same in whatever order the attempts
// end.
func (s *failureStop) belowRate(r report.Result) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.below == nil {
		s.below, s.invalid, s.out = map[[3]string]int{}, map[[3]string]int{}, map[[3]string]bool{}
	}
	k := [3]string{r.File, r.Name, r.Agent.Name}
	var n int64
	if r.Status == report.StatusInvalid {
		s.invalid[k]++
		n++
	} else {
		s.below[k]++
	}
	samples := s.repeat - s.invalid[k]
	if !s.out[k] && s.below[k] > 0 && float64(samples-s.below[k])/float64(samples) < r.MinPassRate {
		s.out[k] = true
		n++
	}
	return n
}

// stopped reports whether the max was reached.
func (s *failureStop) stopped() bool { return s.max > 0 && s.failed.Load() >= int64(s.max) }

// reason says why the run stopped, for the jobs it did not start, by the
// flag given and by what it counted: scenarios, or with --repeat
// attempts, of which all may be of one scenario.
func (s *failureStop) reason() string {
	what := "scenario"
	if s.repeat > 1 {
		what = "attempt"
	}
	flag := fmt.Sprintf("--max-failures %d", s.max)
	if s.max == 1 && s.failFast {
		flag = "--fail-fast"
	}
	if s.max == 1 {
		return fmt.Sprintf("the run stopped at its first failed %s (%s)", what, flag)
	}
	return fmt.Sprintf("the run stopped after %d failed %ss (%s)", s.max, what, flag)
}

// loadWarnings are the warnings loading gave about sc, as its results
// carry them ("file:line:col: msg"), with the one about its having no
// permissions unless policy (--allow-all, --deny-all) replaces them.
func loadWarnings(sc *scenario.Scenario, policy *approve.Policy) []string {
	ws := sc.Warnings
	if w, ok := sc.NoPermissionsWarning(); ok && policy == nil {
		ws = scenario.SortWarnings(append(slices.Clone(ws), w))
	}
	return mapped(ws, scenario.Warning.String)
}

// newResult is the result of job j of a run with opts, before it runs.
func newResult(j job, opts *Options) report.Result {
	sc := j.sc
	return report.Result{Attempt: j.ref.Attempt, Name: sc.Name, File: sc.File, Line: sc.Pos.Line, Tags: sc.Tags,
		MinPassRate: cmp.Or(sc.Expect.PassRate, opts.MinPassRate), Vars: sc.VarValues(), VarSet: sc.VarSet,
		Agent: report.AgentInfo{Name: sc.Agent.Name, Command: sc.Agent.Command}, Warnings: loadWarnings(sc, opts.Policy)}
}

// notRun is the result of a job that never started, and why.
func notRun(j job, why string, opts *Options) report.Result {
	r := newResult(j, opts)
	r.Status, r.Error, r.NotRun = report.StatusInterrupted, why, true
	for i, t := range j.sc.Turns {
		r.Turns = append(r.Turns, report.TurnResult{Index: i + 1, Prompt: t.PromptText(), StopReason: report.OutcomeSkipped})
	}
	return r
}

// scenarioRun is the state of one scenario while it runs.
type scenarioRun struct {
	opts *Options
	jo   *jobObserver // redacts what it passes on
	red  *redact.Redactor
	// runCtx is the context the scenario runs in: it ends when something
	// outside the scenario stops it (an interrupt, the run's --timeout,
	// --fail-fast=cancel).
	runCtx context.Context
	// cut says what part of the scenario runCtx's end kept from running
	// ("acprun was interrupted during turn 2"); "" when nothing was. A
	// scenario cut short is interrupted.
	cut string
	// sc is the scenario as this attempt runs it: with a workspace, its
	// cwd and roots are in the attempt's copy.
	sc *scenario.Scenario
	// ref names the attempt, its try (Retry) included.
	ref   Ref
	res   *report.Result
	sess  *session
	agent *Agent
	init  acp.InitializeResponse
	tr    *transcript
	// transcripts names its transcript and its judges' files, written
	// with Options.Transcripts.
	transcripts tryTranscripts
	ws          *workspace.Workspace // nil without a workspace
	mark        reap.Mark            // in the environment of everything the scenario starts
	// workFails are the failures of verify, of the scenario-level checks
	// on the workspace and of the scenario's own (its budget passed after a
	// turn's answer, the gateway), listed after the turns'.
	workFails []string
	// invalid says why the attempt measured nothing (see invalidate); nil
	// while it may still be valid.
	invalid *report.Invalid
	// state is the state file the session id is saved to; nil when the
	// scenario does not resume.
	state *sessionstate.File
	// releaseHold lets the next attempt of the same session in; nil when
	// nothing is held.
	releaseHold func()
	// noneRecorded says the state file had no session for the scenario
	// to continue: once a session is opened, a warning says it is new.
	noneRecorded bool
	// proc is the process of agent: its binding, its pool.
	proc *proc
	// opened is set once the session was opened and set up: the turns run.
	opened bool
	// overBudget says which turn passed a budget, or that the session's
	// cost passed the scenario's; the turns after it do not run.
	overBudget string
	// unchecked is the turn (from 1) whose checks of the workspace wait
	// for the agent to be quiet (see checkWork); 0 for none.
	unchecked int
	// stderr is what the agent wrote to stderr while it served the
	// scenario, once its use has ended (stopAgent).
	stderr string
	// sbox is the scenario's sandbox, without its temporary directory;
	// nil without one. sboxTemp is the temporary directory of the sandbox
	// of the agent process the scenario started for itself, removed at its
	// end ("" for none).
	sbox     *sandbox.Spec
	sboxTemp string
	// hidden lists the paths the scenario's sandbox hides (sandboxHide),
	// set by newSession: the client's jail and the files expectations
	// refuse them.
	hidden []string
	// movedHide lists where the agent moved the paths of its workspace
	// the sandbox hides (see followHidden), hidden from what runs after it.
	movedHide []string
	// gw is the attempt's share of the model gateway; nil without one.
	gw *gateway.Attempt
}

// runScenario runs one job: one attempt of one scenario. transcripts are
// the names of its transcript files in opts.Transcripts, and its judges'.
func runScenario(ctx context.Context, opts *Options, obs *observer, j job, transcripts tryTranscripts) (res report.Result) {
	sc := j.sc
	start := time.Now()
	res = newResult(j, opts)
	r := &scenarioRun{opts: opts, runCtx: ctx, sc: sc, ref: j.ref, res: &res, transcripts: transcripts, mark: opts.mark.Sub()}
	// The secrets of every scenario of the run (the values of its agent's
	// and judges' env) and secret-looking variables of acprun's
	// environment are redacted from the result (once, at the end) and from
	// what observers, the transcript and the state file see.
	r.red = opts.redactor(sc)
	r.jo = obs.forJob(j.ref, r.red)
	defer r.unredactWorkspace(&res) // after the redaction below
	defer r.red.Value(&res)         // after every return below: res is the named result
	defer func() {
		res.Duration = time.Since(start)
		res.DurationMs = res.Duration.Milliseconds()
	}()
	if err := r.checkPlaces("the attempt does not run"); err != nil {
		r.failStart(err, "")
		return res
	}
	if sc.Workspace != nil {
		if err := r.makeWorkspace(ctx, j.ref); err != nil {
			r.failStart(err, "while its workspace was made")
			r.markCut()
			return res
		}
	}
	if err := r.enforce(ctx); err != nil {
		r.failStart(err, "")
		r.markCut()
		return res
	}
	if err := r.openGateway(ctx); err != nil {
		r.res.StartFailed = true // exit 3: nothing to replay here
		r.failStart(err, "")
		return res
	}
	scCtx := ctx
	if sc.Timeout > 0 {
		var cancel context.CancelFunc
		scCtx, cancel = context.WithTimeoutCause(ctx, sc.Timeout, errScenarioTimeout)
		defer cancel()
	}
	r.play(ctx, scCtx)
	r.closeGateway()
	r.saveSession()
	r.releaseSession()
	r.teardown(scCtx)
	r.killLeftovers()
	r.removeSandboxTemp()
	r.evaluate()
	r.removeWorkspace()
	for _, w := range res.Warnings {
		r.jo.warning(w)
	}
	r.jo.flush()
	return res
}

// play runs the scenario in its workspace: setup, the agent's session,
// verify and the scenario-level checks. ctx is the run's, scCtx the
// scenario's (its timeout).
func (r *scenarioRun) play(ctx, scCtx context.Context) {
	r.sess = r.newSession()
	defer r.sess.client.close()
	if r.opts.Transcripts != "" {
		tr, err := newTranscript(ctx, r.opts, r.transcripts.name, r.red)
		if err != nil {
			lost(r.res, err, "the transcript")
		} else {
			r.tr = tr
			r.res.Transcript = tr.path
			defer incomplete(r.res, tr, "the transcript")
			defer r.recordExit(tr) // before it is closed
		}
	}
	opened := r.open(scCtx)
	if opened {
		r.playTurns(ctx, scCtx)
	}
	r.endAgent(scCtx)
	if !opened {
		return
	}
	r.checkWork(scCtx) // the last turn's, on the workspace the agent left
	switch {
	case r.invalid != nil:
		// It measured nothing: verify and the judge would judge a
		// workspace the agent tampered with, or nothing.
	case ctx.Err() == nil:
		// files and the judge see the workspace the agent left; verify,
		// which may write (a coverage profile, a build), comes after.
		r.checkScenarioWork(scCtx)
		r.verify(scCtx)
	default:
		if len(r.sc.Verify) > 0 {
			r.cutShort("before verify")
		}
		r.checkScenarioWork(scCtx)
	}
}

// newSession is the scenario's session, with the client it serves the
// agent.
func (r *scenarioRun) newSession() *session {
	sc := r.sc
	policy := policyOf(sc, *r.opts)
	r.hidden = sandboxHide(sc, r.opts.Environ)
	var writable []string // the sandbox's write paths, as the agent's own writes have them
	wsDir := ""
	if r.ws != nil {
		wsDir = r.ws.Dir
	}
	if spec := sandboxSpec(sc, r.opts.Environ, wsDir); spec != nil {
		writable = []string{}
		for _, p := range spec.Write { // as the sandbox takes them (see sandbox.Plan)
			if abs, err := filepath.Abs(p); p != "" && err == nil {
				writable = append(writable, abs)
			}
		}
	}
	s := &session{policy: policy, cwd: sc.Agent.Cwd, obs: r.jo, act: newActivity(), delay: sc.AnswerDelay, spill: r.opts.spill, red: r.red,
		strict: sc.Enforce == scenario.EnforceStrict, judge: r.opts.judging != "", agent: &sc.Agent, answers: newAnswerBook(sc),
		attached: NewAttachments(func(path string) ([]byte, error) { return r.opts.inputs.read(path, scenario.MaxAttachmentBytes) })}
	s.client = newClientServer(ClientConfig{
		FS:       sc.Client.FS,
		Terminal: sc.Client.Terminal,
		ReadOnly: sc.Client.ReadOnly,
		Roots:    sc.Client.Roots,
		Hidden:   r.hidden,
		Writable: writable,
		Cwd:      sc.Agent.Cwd,
		Policy:   policy,
		Env:      r.env(),
		// Form elicitation is advertised only when there are answers to give.
		Elicitation: sc.HasAnswers(),
		Attached:    s.attached,
		Redact:      r.red,
	})
	if err := s.client.jailErr; err != nil {
		r.res.Warnings = append(r.res.Warnings, r.rootWarnings(err)...)
	}
	return s
}

// rootWarnings say why the client's roots are unusable (err, the jail's):
// each root that is no directory, at its place, named as the scenario
// gives it (in the workspace's source, not its copy); else err.
func (r *scenarioRun) rootWarnings(err error) []string {
	const fails = "the agent's file and terminal requests will fail"
	var out []string
	for i, root := range r.sc.Client.Roots {
		why := scenario.DirProblem(root)
		if why == "" {
			continue
		}
		given := root
		if r.ws != nil {
			given = workspace.Rebase(root, r.ws.Dir, r.sc.Workspace.Source())
			if given != root {
				why += " in the workspace copy"
			}
		}
		out = append(out, fmt.Sprintf("%s: client.roots: root %s %s: %s", cmp.Or(r.sc.Client.RootAt(i), r.sc.Pos), given, why, fails))
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("%s: client roots: %v; %s", cmp.Or(r.sc.Client.RootsPos, r.sc.Pos), err, fails))
	}
	return out
}

// open readies the session for the first turn: the sandbox checked, setup,
// the baseline of the workspace, the recorded session looked up, the agent
// started and the session opened. When one fails it records the error and
// the turns as skipped, and returns false; an agent it started is still
// running then (see endAgent).
func (r *scenarioRun) open(ctx context.Context) bool {
	if err := r.checkSandbox(); err != nil {
		r.res.StartFailed = true // the agent cannot start here (exit 3)
		r.failStart(err, "")
		return false
	}
	if err := r.setup(ctx); err != nil {
		r.failStart(err, "during setup")
		return false
	}
	// The baseline of the agent's changes is the workspace after setup;
	// without setup it is the one Create took.
	if r.ws != nil && len(r.sc.Setup) > 0 {
		if err := r.ws.Snapshot(ctx); err != nil {
			r.failStart(fmt.Errorf("workspace: %w", err), "")
			return false
		}
	}
	if r.ws != nil {
		r.ws.Hide(r.hidden) // as setup left them: the diff shows nothing of them
	}
	r.warnUnprotected()
	if err := r.checkPlaces("its agent does not start"); err != nil {
		r.failStart(err, "")
		return false
	}
	resume, err := r.prepareResume(ctx)
	if err != nil {
		r.failStart(err, "before the session opened")
		return false
	}
	if err := r.start(ctx, resume); err != nil {
		if wrong, ok := errors.AsType[wrongAgent](err); ok {
			// It started, and is not the agent to measure: no turn is played.
			r.invalidate(report.InvalidAgent, wrong.Error(), nil)
			r.skipFrom(0, "")
		} else {
			r.res.StartFailed = true // unless cut short: not the agent's failure then (see markCut)
			r.failStart(r.noteSetupError(err), "before the session opened")
		}
		return false
	}
	return true
}

// endAgent ends the agent's part of the scenario, once its turns are over
// or its session failed to open, if its process was started: it stops the
// agent (stopAgent), its terminals (a warning for each it left running),
// and what it left running outside its process group (killLeftovers), then records what it did (collect) and
// changed (recordChanges, checkProtected). Nothing of the agent's runs
// any more then: the workspace that is listed, verified and judged is the
// one it left, however long that takes.
func (r *scenarioRun) endAgent(scCtx context.Context) {
	if r.agent == nil {
		return // it never ran: it changed nothing
	}
	r.stopAgent(scCtx)
	r.res.Warnings = append(r.res.Warnings, r.sess.client.closeTerminals()...) // each kills what left its group, as commands do
	r.killLeftovers()
	r.collect()
	r.recordChanges()
	r.checkProtected()
}

// failStart records err, which kept the scenario's turns from running, as
// its error, and the turns as skipped. where says what part of the
// scenario the end of the run cut short, if it has ended (see cutShort);
// "" when err cannot be the end's doing.
func (r *scenarioRun) failStart(err error, where string) {
	r.res.Status = report.StatusError
	r.res.Error = err.Error()
	if where != "" {
		r.cutShort(where)
	}
	r.skipFrom(0, "")
}

// playTurns plays the turns in order, until one ends in a way that keeps
// the rest from running (see stopAfter) or its judge makes the attempt an
// error. ctx is the run's, scCtx the
// scenario's.
func (r *scenarioRun) playTurns(ctx, scCtx context.Context) {
	for i := range r.sc.Turns {
		// What the agent sent before the prompt is the setup's, or the
		// last turn's late updates, however fast acprun handles it.
		r.sess.act.waitQuiet(scCtx, r.agent.Conn, settleQuiet, settleMax, nil)
		if over := r.sessionOverBudget(i); over != "" {
			// Reported after the last turn's answer: the session's.
			r.workFails = append(r.workFails, over+"; acprun sent no further prompt")
			r.overBudget = "the session's cost passed the scenario's budget"
			r.skipFrom(i, r.overBudget)
			return
		}
		r.checkWork(scCtx)
		if r.res.Status == report.StatusError {
			// The last turn's judge gave no verdict: the attempt is an
			// error, which says why, as when the agent crashed.
			r.skipFrom(i, "")
			return
		}
		r.jo.turnStarted(i + 1)
		tr := r.runTurn(scCtx, i)
		r.res.Turns = append(r.res.Turns, tr)
		if report.ExternalCause(tr.CancelCause) {
			where := fmt.Sprintf("during turn %d", tr.Index)
			if r.opts.judging != "" {
				where = "while " + r.opts.judging + " was asked"
			}
			r.cutShort(where)
		}
		if why, stop := r.stopAfter(ctx, scCtx, tr); stop {
			if r.cut != "" {
				why = "" // the cut says it
			}
			r.skipFrom(i+1, why)
			return
		}
	}
}

// checkScenarioWork checks the scenario-level expectations on the
// workspace (files) and asks its judge (askJudge), once the agent has
// stopped.
func (r *scenarioRun) checkScenarioWork(ctx context.Context) {
	e := r.sc.Expect
	r.workFails = append(r.workFails, r.checkFiles(e.Files)...)
	jr, fail := r.askJudge(ctx, e.Judge, func() string {
		texts := mapped(r.res.Turns, func(t report.TurnResult) string { return t.Text })
		return strings.Join(kept(texts, func(s string) bool { return s != "" }), "\n\n")
	}, judgeWhat, "its judge")
	r.res.Judge = jr // nil when not asked, as it was
	if fail != "" {
		r.workFails = append(r.workFails, fail)
	}
}

// start gets the scenario its agent process (acquire) and opens the
// session.
func (r *scenarioRun) start(ctx context.Context, resume *resumeSpec) error {
	setupCtx, cancel := context.WithTimeoutCause(ctx, setupTimeout, errSetupTimeout)
	defer cancel()
	if err := r.acquire(setupCtx); err != nil {
		if r.proc != nil {
			err = r.gone(setupCtx, err, r.proc.init.unanswered)
		}
		return err
	}
	if err := checkAgent(r.sc.Expect.Agent, r.res.Agent); err != nil {
		return err // before a session, which could cost
	}
	return r.openSession(setupCtx, resume)
}

// openSession opens the scenario's session on its agent process (or
// continues the recorded one) and sets it up.
func (r *scenarioRun) openSession(ctx context.Context, resume *resumeSpec) error {
	sc := r.sc
	hs := handshake{
		red:        r.red,
		cwd:        sc.Agent.Cwd,
		mcpServers: sc.Agent.McpServers,
		mcpPos:     sc.Agent.McpServerPos,
		mode:       sc.Agent.Mode,
		modePos:    sc.Agent.ModePos,
		model:      sc.Agent.Model,
		modelPos:   sc.Agent.ModelPos,
		config:     sc.Agent.Config,
		unasked:    sc.Agent.UnaskedMode,
		authHint:   r.authHint(),
		authEnv:    AuthEnv(sc.Agent, r.opts.Environ),
		command:    sc.Agent.Command,
		wait:       r.setupWait(),
		roots:      extraRoots(sc.Client.Roots, sc.Agent.Cwd),
		rootsPos:   sc.Client.RootsPos,
		opened: func(ns acp.NewSessionResponse) error {
			if ns.SessionID == "" {
				return errors.New("session/new: the agent answered without a sessionId")
			}
			if resumed := resume != nil && ns.SessionID == resume.sessionID; !resumed && r.proc.bind.hadSession(ns.SessionID) {
				// Its messages would be taken for the earlier session's,
				// and dropped (see binding).
				return fmt.Errorf("session/new: the agent answered with sessionId %q, the id of a session an earlier scenario opened on this agent process (agent.reuse): "+
					"a session's messages could not be told from the other's; each session needs an id of its own", ns.SessionID)
			}
			r.sess.setSessionID(ns.SessionID)
			return nil
		},
		resume: resume,
	}
	got, err := hs.open(ctx, r.agent.Conn, r.proc.init)
	err = r.gone(ctx, err, got.unanswered)
	r.noteOpened(got)
	r.res.Warnings = append(r.res.Warnings, got.warnings...)
	r.res.SessionConfig = got.settings
	r.opened = err == nil
	return err
}

// gone says an error of the handshake the way a crash is said when it is
// one: a write to an agent that already exited fails with EPIPE before the
// read side sees EOF, so the same crash is named by how the agent ended
// and the call it left unanswered (when known), not by the pipe. ctx
// bounds the wait for the agent's exit (see exitDescription).
func (r *scenarioRun) gone(ctx context.Context, err error, unanswered string) error {
	if r.agent == nil || !wentAway(err) {
		return err
	}
	if r.stoppedReading(ctx, err) {
		return errors.New("the agent stopped reading its input")
	}
	if unanswered != "" {
		return fmt.Errorf("%s before answering %s", r.exitDescription(ctx), unanswered)
	}
	return fmt.Errorf("%w (%s)", err, r.exitDescription(ctx))
}

// wentAway reports whether err is how a call meets an agent that went
// away: the end of its output, or, seen first, a write it did not read
// (EPIPE).
func wentAway(err error) bool {
	return errors.Is(err, acp.ErrClosed) || errors.Is(err, syscall.EPIPE)
}

// stopAfter reports whether the turns after tr are not played, and why
// (for their failures): the agent is gone (agent_exited, unresponsive), or
// a turn passed a budget, or acprun cancelled tr and continueAfterCancel
// is not set, or it is but the scenario's timeout passed. why is "" when
// the scenario's error says it (an outcome not expected). Stopped because
// the run ended (ctx), the scenario is cut short.
func (r *scenarioRun) stopAfter(ctx, scCtx context.Context, tr report.TurnResult) (why string, stop bool) {
	switch {
	case r.invalid != nil:
		return "", true // the attempt measured nothing: its invalid says why
	case tr.StopReason == report.OutcomeAgentExited || tr.StopReason == report.OutcomeUnresponsive:
		switch {
		case !expected(r.sc, tr):
		case tr.StopReason == report.OutcomeUnresponsive:
			why = fmt.Sprintf("the agent did not answer the cancel of turn %d and was stopped", tr.Index)
		default:
			why = fmt.Sprintf("the agent exited during turn %d", tr.Index)
		}
		return why, true
	case r.overBudget != "":
		return r.overBudget, true
	case tr.CancelCause == "":
		return "", false
	case !r.sc.ContinueAfterCancel:
		if scCtx.Err() != nil && ctx.Err() == nil {
			return fmt.Sprintf("%s during turn %d", stopReason(scCtx), tr.Index), true
		}
		return fmt.Sprintf("turn %d was cancelled after %s (continueAfterCancel: true plays the turns after a cancel)", tr.Index, tr.CancelCause), true
	case ctx.Err() != nil:
		if tr.Index < len(r.sc.Turns) {
			r.cutShort(fmt.Sprintf("after turn %d", tr.Index))
		}
		return "", true
	case scCtx.Err() != nil:
		return fmt.Sprintf("%s during turn %d", stopReason(scCtx), tr.Index), true
	}
	return "", false
}

// skipFrom records turns from index i on as skipped. why, when set, says
// why an earlier turn's outcome kept them from running: a turn that did not
// run has not met its expectations, so each fails with it. It is "" when
// the scenario's error or an interrupt already says why.
func (r *scenarioRun) skipFrom(i int, why string) {
	for ; i < len(r.sc.Turns); i++ {
		t := report.TurnResult{
			Index:      i + 1,
			Prompt:     r.sc.Turns[i].PromptText(),
			StopReason: report.OutcomeSkipped,
		}
		if why != "" {
			t.Failures = []string{fmt.Sprintf("%s: not run: %s", r.sc.Turns[i].Pos, why)}
		}
		r.res.Turns = append(r.res.Turns, t)
	}
}

// untilAbort returns a context derived from parent that also ends when
// abort is closed (a second interrupt): the waits that outlast an
// interrupt (grace periods, the listing of a workspace's changes) end at
// the abort; the teardown does not (scenarioRun.teardown).
func untilAbort(parent context.Context, abort <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		select {
		case <-abort:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// collect copies what the session recorded into the result, after the
// agent has stopped (late updates included).
func (r *scenarioRun) collect() {
	s := r.sess
	// Updates may have come after a turn's answer: take every turn's record
	// again, now that the agent has stopped.
	for i := range r.res.Turns {
		if t := s.turnState(r.res.Turns[i].Index); t != nil {
			r.res.Turns[i] = s.snapshot(t)
		}
	}
	seen := map[string]bool{}
	for _, t := range r.res.Turns {
		for _, w := range t.Warnings {
			if seen[w] {
				continue
			}
			seen[w] = true
			if r.opts.judging == "" {
				// A judge's one turn is no turn of the scenario's: its
				// warnings are the judge's (see judge).
				w = fmt.Sprintf("turn %d: %s", t.Index, w)
			}
			r.res.Warnings = append(r.res.Warnings, w)
		}
	}
	s.mu.Lock()
	r.res.Allowed, r.res.Denied = s.allowed, s.denied
	r.res.Violations = append(r.res.Violations, s.violations...)
	r.workFails = append(r.workFails, s.failing...)
	r.res.SetupUpdates = s.setup.updates
	r.res.SetupPermissions = filled(s.setup.permissions, clonePermission)
	r.res.SetupClientRequests = filled(s.setup.requests, nil)
	r.res.SetupNotices = slices.Clone(s.setup.notices)
	r.res.SetupElicitations = cloneElicitations(s.setup.elicitations)
	for _, w := range s.setup.warnings {
		r.res.Warnings = append(r.res.Warnings, "before the first turn: "+w)
	}
	lostEarly, lostViolations := s.lostEarly, s.lostViolations
	s.mu.Unlock()
	r.res.StderrTail = r.stderr
	for _, v := range r.res.Violations[:min(3, len(r.res.Violations))] {
		r.res.Warnings = append(r.res.Warnings, "protocol violation: "+v)
	}
	if n := len(r.res.Violations); n > 3 {
		where := "violations"
		if r.opts.judging != "" {
			where = "the judge's violations"
		}
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%s (see %s)", plural(n-3, "more protocol violation", "more protocol violations"), where))
	}
	if lostViolations > 0 {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%s %s not kept (only the first %d are)",
			plural(lostViolations, "more protocol violation", "more protocol violations"), pluralWord(lostViolations, "was", "were"), maxViolations))
	}
	if lostEarly > 0 {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%s sent before session/new answered %s dropped (only the first %d are kept)",
			plural(lostEarly, "session/update notification", "session/update notifications"), pluralWord(lostEarly, "was", "were"), maxEarly))
	}
	if r.agent != nil {
		if n := r.agent.Conn.Dropped(); n > 0 {
			r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%s the agent sent %s read but not processed: acprun was stopped at once (second interrupt); the results miss them",
				plural(n, "message", "messages"), pluralWord(n, "was", "were")))
		}
	}
}

// evaluate sets the scenario's status from its turns and expectations.
func (r *scenarioRun) evaluate() {
	res := r.res
	for _, t := range res.Turns {
		if r.crashed(t) {
			res.Status = report.StatusError
			if res.Error == "" {
				res.Error = fmt.Sprintf("turn %d: %s", t.Index, t.Error)
			}
		}
		for _, f := range t.Failures {
			res.Failures = append(res.Failures, fmt.Sprintf("turn %d: %s", t.Index, f))
		}
	}
	res.Failures = append(res.Failures, checkScenario(r.red, r.sc.Expect, res, r.sessionSpent(), r.sc.CostCurrency())...)
	if r.overBudget == "" { // the cost the agent reported after the last turn's answer
		if over := r.sessionOverBudget(len(r.sc.Turns)); over != "" {
			res.Failures = append(res.Failures, over)
		}
	}
	res.Failures = append(res.Failures, r.workFails...)
	res.Warnings = append(res.Warnings, r.unheldBudgets()...)
	if res.Status == "" {
		if len(res.Failures) > 0 {
			res.Status = report.StatusFailed
		} else {
			res.Status = report.StatusPassed
		}
	}
	switch {
	case r.invalid == nil:
	case r.cut != "":
		// Interrupted: no verdict either way, and the cut says so first.
		res.Warnings = append(res.Warnings, r.invalid.String())
	default:
		// Whatever it met (an error, failures, kept), it measured nothing.
		res.Status, res.Invalid = report.StatusInvalid, r.invalid
	}
	r.markCut()
	if res.Status == report.StatusPassed {
		res.StderrTail = "" // kept only when the scenario did not pass
	}
}

// cutShort records that the end of the run's context (an interrupt, the
// run's --timeout, --fail-fast=cancel) kept part of the scenario from
// running, if it has ended; where says which part ("during turn 2"). The
// first part cut counts.
func (r *scenarioRun) cutShort(where string) {
	if r.runCtx.Err() != nil && r.cut == "" {
		r.cut = stopReason(r.runCtx) + " " + where
	}
}

// markCut makes a scenario that was cut short interrupted: whatever it
// met so far, it has no verdict. Its error says what cut it, then the
// error it met, if any (often the cut's consequence: a stopped command,
// an unanswered initialize); its failures stay.
func (r *scenarioRun) markCut() {
	if r.cut == "" {
		return
	}
	res := r.res
	res.Status = report.StatusInterrupted
	res.StartFailed = false
	if res.Error != "" {
		res.Error = fmt.Sprintf("%s (%s)", r.cut, res.Error)
	} else {
		res.Error = r.cut
	}
}

// crashed reports whether turn t ended with the agent gone (it exited, or
// was stopped unresponsive) where its expect did not list that: the
// attempt is then an error.
func (r *scenarioRun) crashed(t report.TurnResult) bool { return crashed(r.sc, t) }

// crashed reports whether turn t of scenario sc crashed (see
// scenarioRun.crashed).
func crashed(sc *scenario.Scenario, t report.TurnResult) bool {
	gone := t.StopReason == report.OutcomeAgentExited || t.StopReason == report.OutcomeUnresponsive
	return gone && !expected(sc, t)
}

// failedBeforeError is the first turn (from 1) of attempt r of scenario
// sc, an error, that the agent answered and that failed: an expectation,
// a files check, its judge's FAIL; 0 for none. That failure is the
// agent's verdict, which a retry would hide. The failures of the turn
// that crashed, of the turns the error kept from running and of the
// scenario's own checks (expect, verify, its judge) are not counted: they
// judge work the error cut short.
func failedBeforeError(sc *scenario.Scenario, r report.Result) int {
	for _, t := range r.Turns {
		if t.StopReason != report.OutcomeSkipped && !crashed(sc, t) && len(t.Failures) > 0 {
			return t.Index
		}
	}
	return 0
}

// notAskedErrored is why a judge is not asked on an attempt that errored.
const notAskedErrored = "the attempt is an error"

// errored reports whether the attempt is already an error, which nothing
// after can change: a judge gave no verdict, or a turn crashed. Nothing
// more is spent on it then: its judges are not asked (verify, files checks
// and teardown, which are local, still run).
func (r *scenarioRun) errored() bool {
	return r.res.Status == report.StatusError || slices.ContainsFunc(r.res.Turns, r.crashed)
}

// judgeNotAsked is the failure of judge j, not asked, and why.
func judgeNotAsked(j *scenario.Judge, why string) string {
	return fmt.Sprintf("%s: judge not asked: %s", j.Pos, why)
}

// expected reports whether turn t's expect in scenario sc lists the stop
// reason (or outcome) it ended with.
func expected(sc *scenario.Scenario, t report.TurnResult) bool {
	i := t.Index - 1
	return i >= 0 && i < len(sc.Turns) && slices.Contains(sc.Turns[i].Expect.StopReasons, t.StopReason)
}
