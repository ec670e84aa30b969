package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// selection picks which loaded scenarios run: by name, by tag, by shard,
// and which named agents they run against.
type selection struct {
	Config     string   `placeholder:"FILE" help:"Config file with defaults and named agents (default: acprun.yaml in the working directory, if any)."`
	Agent      []string `name:"agent" placeholder:"NAME" help:"Run every scenario against this named agent (repeatable: the matrix scenario × agent)."`
	Run        string   `placeholder:"REGEX" help:"Only scenarios whose name matches REGEX (RE2)."`
	Tag        []string `placeholder:"TAG" help:"Only scenarios with this tag (repeatable: any of them)."`
	Shard      string   `placeholder:"I/N" help:"Run the I-th of N deterministic shards of the selection (1-based). Without it, JOB_COMPLETION_INDEX (0-based, Kubernetes Indexed Jobs) and --shards pick the shard."`
	Shards     int      `placeholder:"N" help:"Number of shards when the index comes from JOB_COMPLETION_INDEX."`
	AllowEmpty bool     `help:"Accept a selection that matches no scenario (exit 0) instead of exiting 5."`
}

// pick loads the config and the scenarios of paths and returns the
// selected ones, against each --agent. Its errors carry their exit codes:
// 2 for bad files and flags, 5 for an empty selection unless --allow-empty.
func (s *selection) pick(g *globals, paths []string) ([]*scenario.Scenario, error) {
	scs, lopts, err := s.load(g, paths)
	if err != nil {
		return nil, err
	}
	if len(scs) == 0 {
		err = noneSelected{noScenarioFiles(paths)}
	} else {
		scs, err = s.apply(scs)
	}
	var none noneSelected
	switch {
	case errors.As(err, &none):
		if !s.AllowEmpty {
			return nil, exitError{code: exitEmpty, err: err}
		}
	case err != nil:
		return nil, exitError{code: exitUsage, err: err}
	}
	if scs, err = s.matrix(scs, lopts); err != nil {
		return nil, exitError{code: exitUsage, err: err}
	}
	return scs, nil
}

// load loads the config and the scenarios of paths.
func (s *selection) load(g *globals, paths []string) ([]*scenario.Scenario, scenario.LoadOptions, error) {
	cfg, err := loadConfig(s.Config)
	if err != nil {
		return nil, scenario.LoadOptions{}, usageError(g, err)
	}
	opts := scenario.LoadOptions{Config: cfg}
	scs, warnings, err := scenario.Load(paths, opts)
	printWarnings(g, warnings)
	if err != nil {
		return nil, opts, usageError(g, err)
	}
	return scs, opts, nil
}

// matrix runs every scenario against each --agent, in scenario order.
func (s *selection) matrix(scs []*scenario.Scenario, opts scenario.LoadOptions) ([]*scenario.Scenario, error) {
	if len(s.Agent) == 0 {
		return scs, nil
	}
	for _, name := range s.Agent {
		if _, err := scenario.ResolveAgent(name, opts); err != nil {
			return nil, fmt.Errorf("--agent %s: %w", name, err)
		}
	}
	var out []*scenario.Scenario
	for _, sc := range scs {
		for _, name := range s.Agent {
			c, err := sc.WithAgent(name, opts)
			if err != nil {
				return nil, fmt.Errorf("%s with agent %s: %w", sc.Name, name, err)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// noScenarioFiles says that paths hold no scenario files.
func noScenarioFiles(paths []string) string {
	verb := "hold"
	if len(paths) == 1 {
		verb = "holds"
	}
	return approve.QuoteArgv(paths) + " " + verb + " no scenario files"
}

// noneSelected is the error of a selection that matched no scenario; it
// names the filter that emptied it.
type noneSelected struct{ why string }

func (e noneSelected) Error() string {
	return "no scenarios selected: " + e.why + " (--allow-empty accepts an empty run)"
}

// apply filters scenarios by --run, then --tag, then the shard, keeping
// their order. When nothing is left it returns the scenarios (none) and a
// noneSelected error.
func (s *selection) apply(scs []*scenario.Scenario) ([]*scenario.Scenario, error) {
	var re *regexp.Regexp
	if s.Run != "" {
		var err error
		if re, err = regexp.Compile(s.Run); err != nil {
			return nil, fmt.Errorf("--run: %w", err)
		}
	}
	index, count, err := s.shard()
	if err != nil {
		return nil, err
	}
	out := scs
	var filters []string // the filters applied so far, as typed
	if re != nil {
		out = slices.DeleteFunc(slices.Clone(out), func(sc *scenario.Scenario) bool { return !re.MatchString(sc.Name) })
		filters = append(filters, "--run "+quoteArg(s.Run))
		if len(out) == 0 {
			return nil, noneSelected{fmt.Sprintf("--run %s matched none of %s", quoteArg(s.Run), scenarios(len(scs)))}
		}
	}
	if len(s.Tag) > 0 {
		before := len(out)
		out = slices.DeleteFunc(slices.Clone(out), func(sc *scenario.Scenario) bool {
			return !slices.ContainsFunc(s.Tag, func(t string) bool { return slices.Contains(sc.Tags, t) })
		})
		var tags []string
		for _, t := range s.Tag {
			tags = append(tags, "--tag "+quoteArg(t))
		}
		if len(out) == 0 {
			of := "none of " + scenarios(before)
			if len(filters) > 0 {
				of = fmt.Sprintf("none of the %s selected by %s", scenarios(before), strings.Join(filters, " "))
			}
			return nil, noneSelected{strings.Join(tags, " ") + " matched " + of}
		}
		filters = append(filters, tags...)
	}
	if count > 1 {
		// Round robin over the sorted selection: deterministic, balanced,
		// and the shards together are exactly the selection.
		var mine []*scenario.Scenario
		for i, sc := range out {
			if i%count == index {
				mine = append(mine, sc)
			}
		}
		if len(mine) == 0 {
			return nil, noneSelected{fmt.Sprintf("shard %s is empty: the selection has %s for %d shards", s.shardName(index, count), scenarios(len(out)), count)}
		}
		out = mine
	}
	if len(out) == 0 {
		return nil, noneSelected{"the paths hold no scenarios"}
	}
	return out, nil
}

// shardName names the shard as the user chose it.
func (s *selection) shardName(index, count int) string {
	if s.Shard != "" {
		return s.Shard
	}
	return fmt.Sprintf("JOB_COMPLETION_INDEX=%d of --shards %d", index, count)
}

// quoteArg quotes a flag value for a message as a shell would need it.
func quoteArg(s string) string { return approve.QuoteArgv([]string{s}) }

// scenarios is "1 scenario" or "N scenarios".
func scenarios(n int) string {
	if n == 1 {
		return "1 scenario"
	}
	return fmt.Sprintf("%d scenarios", n)
}

// shard returns the 0-based shard index and the shard count (1: no sharding).
func (s *selection) shard() (int, int, error) {
	if s.Shard != "" {
		i, n, ok := strings.Cut(s.Shard, "/")
		index, err1 := strconv.Atoi(i)
		count, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
			return 0, 0, fmt.Errorf("--shard %q: want I/N with 1 ≤ I ≤ N, e.g. 2/3", s.Shard)
		}
		return index - 1, count, nil
	}
	env, ok := os.LookupEnv("JOB_COMPLETION_INDEX")
	if !ok || env == "" {
		if s.Shards > 1 {
			return 0, 0, fmt.Errorf("--shards %d needs JOB_COMPLETION_INDEX or --shard I/N", s.Shards)
		}
		return 0, 1, nil
	}
	if s.Shards < 1 {
		return 0, 1, nil // an Indexed Job that does not shard acprun
	}
	index, err := strconv.Atoi(env)
	if err != nil || index < 0 || index >= s.Shards {
		return 0, 0, fmt.Errorf("JOB_COMPLETION_INDEX=%q: want 0 ≤ index < --shards %d", env, s.Shards)
	}
	return index, s.Shards, nil
}
