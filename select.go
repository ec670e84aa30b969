// The loading and selecting of scenarios, shared by run, list, validate,
// explain, agents and probe.

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// selection picks which loaded scenarios run: by name, by tag, by shard,
// and which named agents they run against. The shard comes from --shard,
// or else from JOB_COMPLETION_INDEX with --shards, or else from
// CI_NODE_INDEX and CI_NODE_TOTAL (see scenario.Selection).
type selection struct {
	configFlag
	// Agent and Tag hold their values as given; words splits them.
	Agent      []string   `name:"agent" placeholder:"NAME,..." sep:"none" help:"Run every scenario against this named agent (repeatable: the matrix scenario × agent)."`
	Run        string     `placeholder:"REGEX" help:"Only scenarios whose name matches REGEX (RE2)."`
	Tag        []string   `placeholder:"TAG,..." sep:"none" help:"Only scenarios with this tag (repeatable: any of them)."`
	Shard      string     `placeholder:"I/N" help:"Run the I-th of N deterministic shards of the selection (1-based). Without it, JOB_COMPLETION_INDEX (0-based, Kubernetes Indexed Jobs) and --shards pick the shard, or else CI_NODE_INDEX and CI_NODE_TOTAL (1-based, GitLab's parallel:)."`
	Shards     atLeastOne `placeholder:"N" help:"Number of shards when the index comes from JOB_COMPLETION_INDEX."`
	AllowEmpty bool       `help:"Accept a selection that matches no scenario (exit 0) instead of exiting 5."`

	// BalanceFrom balances the shards by an earlier run's durations.
	BalanceFrom string `placeholder:"FILE" help:"Balance the shards by how long each scenario took in the results FILE of an earlier run (longest first, each to the shard with the least time so far; a scenario not in FILE counts as the median), so that they finish together. Every shard must read the same FILE. A FILE that does not exist leaves the shards round robin, with a warning."`
	// balancedBy is the report.BalanceFingerprint of the durations choose
	// balanced the shard by; "" when it had none (round robin) or did not
	// shard.
	balancedBy string `kong:"-"`
	// gateway is the --gateway and --gateway-timing of run, list or explain, set
	// before it loads: the scenarios are loaded with them.
	gateway gatewayFlags `kong:"-"`
	// turnTimeout is run's --turn-timeout, set before it loads: loading
	// warns about the turn timeouts that apply.
	turnTimeout time.Duration `kong:"-"`
	// holdWarnings keeps the warnings of loading the scenarios in held,
	// unprinted, when they load: run -q says them after the selection,
	// less those its summary says (runCmd.sayHeldWarnings).
	holdWarnings bool               `kong:"-"`
	held         []scenario.Warning `kong:"-"`
}

// words are the words of the values of a list flag, --tag or --agent,
// in order: each value lists them separated by commas (see listTail).
// checkFlags has refused the values with an empty word.
func words(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}

// pick loads the config and the scenarios of paths and returns the
// selected ones, against each --agent. Its errors carry their exit codes:
// 2 for bad files and flags, 5 for an empty selection unless --allow-empty.
// Unset variables are not checked yet: the caller checks them (checkUnset)
// for the scenarios it will run, or warns about them.
func (s *selection) pick(g *globals, paths []string) ([]*scenario.Scenario, error) {
	scs, lopts, err := s.load(g, paths)
	if err != nil {
		return nil, err
	}
	return s.choose(g, scs, paths, lopts)
}

// choose returns the scenarios of scs, loaded from paths with lopts, that
// the flags select, as pick does. It keeps scs in g.loaded: what acprun
// prints from here on, a run's outputs among it, is redacted of the
// secrets of them all, whichever run (globals.redactor).
func (s *selection) choose(g *globals, scs []*scenario.Scenario, paths []string, lopts scenario.LoadOptions) ([]*scenario.Scenario, error) {
	g.loaded = scs
	sel := scenario.Selection{
		Paths:       paths,
		Run:         s.Run,
		Tags:        words(s.Tag),
		Shard:       s.Shard,
		Shards:      s.Shards.n,
		JobIndex:    os.Getenv("JOB_COMPLETION_INDEX"),
		CINodeIndex: os.Getenv("CI_NODE_INDEX"),
		CINodeTotal: os.Getenv("CI_NODE_TOTAL"),
		Agents:      words(s.Agent),
		AllowEmpty:  s.AllowEmpty,
	}
	durations, err := s.durations(g)
	if err != nil {
		return nil, err
	}
	sel.Durations = durations
	for _, msg := range []string{sel.Unsharded(), sel.Unbalanced()} {
		if msg != "" {
			fmt.Fprintf(g.Stderr, "acprun: warning: %s\n", msg)
		}
	}
	if len(durations) > 0 && sel.Unbalanced() == "" { // none leave the shards round robin
		s.balancedBy = report.BalanceFingerprint(durations)
	}
	scs, err = scenario.Select(scs, sel, lopts)
	var none *scenario.NoneSelectedError
	switch {
	case errors.As(err, &none):
		return nil, exitError{code: exitEmpty, err: err}
	case err != nil:
		return nil, exitError{code: exitUsage, err: err}
	}
	if msg := scenario.UnloadedConfig(scs, lopts.Config); msg != "" && s.Config == "" {
		// Its defaults (permissions, timeouts) would otherwise be ignored
		// without a word; --config says which config is meant.
		fmt.Fprintf(g.Stderr, "acprun: warning: %s\n", msg)
	}
	return scs, nil
}

// durations reads --balance-from: nil without it, and when its file does
// not exist (a first run has no earlier results), with a warning; a file
// that is not results is a usage error.
func (s *selection) durations(g *globals) (map[string]time.Duration, error) {
	if s.BalanceFrom == "" {
		return nil, nil
	}
	ds, err := report.ReadDurations(s.BalanceFrom)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(g.Stderr, "acprun: warning: --balance-from %v: the shards are round robin\n", err) // err names the file
		return nil, nil
	case err != nil:
		return nil, exitError{code: exitUsage, err: fmt.Errorf("--balance-from %w", err)}
	}
	return ds, nil
}

// load loads the config and the scenarios of paths.
func (s *selection) load(g *globals, paths []string) ([]*scenario.Scenario, scenario.LoadOptions, error) {
	cfg, err := s.config(g)
	if err != nil {
		return nil, scenario.LoadOptions{}, usageError(g, nil, err)
	}
	opts := s.loadOptions(cfg)
	scs, warnings, err := loadScenarios(g, paths, opts)
	s.warnLoaded(g, scs, warnings, err)
	if err != nil {
		return nil, opts, usageError(g, nil, err)
	}
	return scs, opts, nil
}

// warnLoaded prints the warnings of loading scs, or keeps them in s.held
// when s.holdWarnings and loading did not fail (err).
func (s *selection) warnLoaded(g *globals, scs []*scenario.Scenario, warnings []scenario.Warning, err error) {
	if s.holdWarnings && err == nil {
		s.held = append(s.held, warnings...)
		return
	}
	printWarnings(g, scs, warnings)
}

// loadScenarios loads the scenarios of paths with opts (scenario.Load)
// and keeps them in g.loaded, as far as they could be read when they have
// problems: what acprun prints from here on, their problems' source lines
// among it, is redacted of their secrets (globals.redactor).
func loadScenarios(g *globals, paths []string, opts scenario.LoadOptions) ([]*scenario.Scenario, []scenario.Warning, error) {
	scs, warnings, err := scenario.Load(paths, opts)
	g.loaded = scs
	if err != nil {
		g.loaded = scenario.ReadScenarios(err) // for their secrets only
	}
	return scs, warnings, err
}

// loadOptions are the options scenarios are loaded with: the config cfg,
// unset variables deferred, and the gateway flags.
func (s *selection) loadOptions(cfg *scenario.Config) scenario.LoadOptions {
	opts := scenario.LoadOptions{Config: cfg, DeferUnset: true, TurnTimeout: s.turnTimeout}
	s.gateway.setIn(&opts)
	return opts
}

// checkUnset fails with exit 2, printing each problem with its source
// line, when a scenario of scs (those a command will run) uses a variable
// that is unset. The other scenarios loaded may: a CI job with
// one provider's key runs the scenarios that need only that one.
func checkUnset(g *globals, scs []*scenario.Scenario) error {
	if errs := scenario.UnsetErrors(scs); errs != nil {
		return usageError(g, scs, errs)
	}
	return nil
}

// configFlag is --config, the flag of every command that reads the config
// file. Its help says what the command takes from the file: defaults and
// named agents, unless the command sets configHolds.
type configFlag struct {
	Config string `placeholder:"FILE" help:"Config file with ${configHolds=defaults and named agents} (default: acprun.yaml in the working directory, if any)."`
}

// config loads the config file --config names, or without it the config
// file (acprun.yaml) of the working directory when there is one, and
// keeps it in g.cfg: what acprun prints from here on, the config's own
// problems among it, is redacted of its agents' secrets (globals.redactor);
// when the config has problems, of those of what could be read of it. It
// returns nil, nil when there is no config: the built-in agents only and
// no defaults. Problems in the file are a scenario.Errors; a --config
// file that cannot be read (it does not exist, it is a directory) is an
// error that names the flag. Without --config, an acprun.yaml that is
// there but cannot be read (a symbolic link that leads nowhere, a
// directory) is a scenario.Errors naming it, as is an acprun.yml: acprun
// reads only acprun.yaml, and a config the user believes is read must
// not be ignored silently.
func (f configFlag) config(g *globals) (*scenario.Config, error) {
	cfg, err := f.read()
	g.cfg = cfg // as far as read when err: for its secrets
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// read reads the config file of config: as far as it could be read, with
// its problems.
func (f configFlag) read() (*scenario.Config, error) {
	if f.Config == "" {
		if _, err := os.Lstat(scenario.ConfigFileYML); err == nil {
			msg := "not read: acprun reads its config from " + scenario.ConfigFile + "; rename it, or pass --config " + scenario.ConfigFileYML
			if _, err := os.Lstat(scenario.ConfigFile); err == nil {
				msg = "not read: acprun reads its config from " + scenario.ConfigFile + ", which is here too; move what it holds there and remove it, or pass --config " + scenario.ConfigFileYML
			}
			return nil, scenario.Errors{{File: scenario.ConfigFileYML, Msg: msg}}
		}
		// Lstat: a link that leads nowhere is there, and LoadConfig says
		// where it points.
		if _, err := os.Lstat(scenario.ConfigFile); errors.Is(err, fs.ErrNotExist) {
			if name := configInAnotherCase(); name != "" {
				return nil, scenario.Errors{{File: name, Msg: "not read: acprun reads its config from " + scenario.ConfigFile + ", in lower case; rename it, or pass --config " + name}}
			}
			return nil, nil
		}
		return scenario.LoadConfig(scenario.ConfigFile, scenario.LoadOptions{})
	}
	data, err := inputfile.Read(f.Config, scenario.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("--config %w", err) // "--config PATH: why"
	}
	return scenario.LoadConfigBytes(f.Config, data, scenario.LoadOptions{})
}

// configInAnotherCase returns the name of a file of the working directory
// named acprun.yaml or acprun.yml in another case (Acprun.yaml), which a
// case-insensitive file system would have acprun read and a sensitive one
// not; "" when there is none.
func configInAnotherCase() string {
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		if n := e.Name(); strings.EqualFold(n, scenario.ConfigFile) || strings.EqualFold(n, scenario.ConfigFileYML) {
			return n
		}
	}
	return ""
}

// usageError is exit code 2 for err. When err is (or joins) the problems
// of a file the user wrote (scenario, config, mock agent script,
// transcript), they are printed here: each that is positioned followed by
// its source line with a caret under the column, errors wrapped in more
// context as one line each, with that context (see srcerr.Print). What
// it prints, or returns to be printed, is redacted as a run of scs would
// redact it (globals.redactor): a path or URL that ${VAR} filled in, or a
// source line, may hold a secret of the environment, of a scenario or of
// the config's agents.
func usageError(g *globals, scs []*scenario.Scenario, err error) error {
	red := g.redactor(scs)
	if _, ok := errors.AsType[*srcerr.Error](err); !ok {
		return exitError{code: exitUsage, err: red.Error(err)}
	}
	srcerr.Print(g.Stderr, err, red)
	return exitError{code: exitUsage}
}

// printWarnings prints the warnings of loading scenario or config files
// to stderr, one per line, file:line:col: warning: message, redacted as
// a run of scs would redact them (globals.redactor).
func printWarnings(g *globals, scs []*scenario.Scenario, warnings []scenario.Warning) {
	if len(warnings) == 0 {
		return
	}
	red := g.redactor(scs)
	for _, w := range warnings {
		pos := w.Pos
		pos.File = red.String(pos.File)
		fmt.Fprintf(g.Stderr, "%s: warning: %s\n", pos, red.String(w.Msg))
	}
}

// redactor is the redactor of everything acprun prints, a run's outputs
// and what comes before or besides them alike (errors, warnings, plans,
// explanations, tables): a run's (runner.Redactor) of scs, of the
// scenarios loaded (g.loaded) and of every agent of the config (g.cfg:
// its named agents and defaults.agent, whether or not a scenario uses
// them), and of the secret-looking variables of acprun's environment.
// Before anything is loaded, it knows the environment's alone; when the
// config or the scenarios do not load, the secrets of what could be read
// of them.
func (g *globals) redactor(scs []*scenario.Scenario) *redact.Redactor {
	return runner.Redactor(runner.Options{Loaded: g.loaded, Config: g.cfg}, scs)
}
