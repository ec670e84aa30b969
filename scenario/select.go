package scenario

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/termtext"
)

// Selection says which loaded scenarios run and against which named
// agents, as the command line and the environment put it: its errors name
// the flags (--run, --tag, --shard, --shards, --agent, --allow-empty) and
// the variables (JOB_COMPLETION_INDEX, CI_NODE_INDEX, CI_NODE_TOTAL).
//
// The shard comes from the first of: Shard; JobIndex with Shards;
// CINodeIndex and CINodeTotal. So a flag always wins over the
// environment, and the Kubernetes index, which shards only when --shards
// asks for it, wins over GitLab's variables, which shard by themselves.
type Selection struct {
	// Paths are the paths the scenarios were loaded from, named when they
	// hold none.
	Paths []string
	// Run keeps the scenarios whose name matches this RE2 expression; ""
	// keeps all.
	Run string
	// Tags keeps the scenarios with any of these tags; none keeps all.
	Tags []string
	// Shard is "I/N": the I-th (1-based) of N shards. It beats JobIndex.
	Shard string
	// Shards is the number of shards when the index is JobIndex.
	Shards int
	// JobIndex is the 0-based shard index of a Kubernetes Indexed Job
	// (JOB_COMPLETION_INDEX); "" when unset. It shards only with Shards.
	JobIndex string
	// CINodeIndex and CINodeTotal are the 1-based index and the count of
	// GitLab's parallel: jobs (CI_NODE_INDEX, CI_NODE_TOTAL); "" when
	// unset. They shard when neither Shard nor JobIndex with Shards does.
	CINodeIndex, CINodeTotal string
	// Agents, when set, runs every selected scenario against each of
	// these named agents, in scenario order (the matrix); a name given
	// twice counts once, in its first place.
	Agents []string
	// AllowEmpty accepts a selection that matches no scenario.
	AllowEmpty bool
	// Durations, when not nil, balance the shards: how long each
	// scenario (by name) took in an earlier run, all its agents,
	// attempts and retries together (report.ReadDurations). See balanced.
	// Nil shards round robin.
	Durations map[string]time.Duration
}

// Unbalanced says why durations to balance shards by have no use: the
// selection does not shard. It is "" when it does, or when there are no
// durations.
func (sel Selection) Unbalanced() string {
	if sel.Durations == nil {
		return ""
	}
	if sh, err := parseShard(sel); err != nil || sh.count > 1 {
		return "" // an error is reported by Select
	}
	return "--balance-from has no effect: the run is not sharded (give --shard I/N, or run in a sharded CI job)"
}

// Unsharded says why a selection does not shard although it runs in a
// Kubernetes Indexed Job (JobIndex is set) that may mean it to: --shards
// is missing, so every pod would run the whole selection. It is "" when
// the selection shards by JobIndex or by --shard.
func (sel Selection) Unsharded() string {
	if sel.JobIndex == "" || sel.Shards > 0 || sel.Shard != "" {
		return ""
	}
	return fmt.Sprintf("JOB_COMPLETION_INDEX=%s is set but --shards is not, so the index does not shard this run: "+
		"every pod of an Indexed Job runs the whole selection (give --shards N, the Job's completions, to shard it)", sel.JobIndex)
}

// NoneSelectedError is the error of a selection that matched no scenario;
// Why names the filter that emptied it.
type NoneSelectedError struct{ Why string }

func (e *NoneSelectedError) Error() string {
	return "no scenarios selected: " + e.Why + " (--allow-empty accepts an empty run)"
}

// Select returns the scenarios of scs that sel selects, in their order:
// those whose name matches sel.Run, then of those the ones with any of
// sel.Tags, then of those the shard's (round robin, or balanced by
// sel.Durations; either way the shards together are exactly the
// selection), each against every one of sel.Agents (its
// copy made with WithAgent and opts). It reads nothing but its arguments.
//
// A selection that matches nothing is a *NoneSelectedError unless
// sel.AllowEmpty; any other error is a bad flag or agent.
func Select(scs []*Scenario, sel Selection, opts LoadOptions) ([]*Scenario, error) {
	var err error
	if len(scs) == 0 {
		err = &NoneSelectedError{NoScenarioFiles(sel.Paths)}
	} else {
		scs, err = sel.filter(scs)
	}
	if none := (*NoneSelectedError)(nil); errors.As(err, &none) && sel.AllowEmpty {
		scs, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	return sel.matrix(scs, opts)
}

// NoScenarioFiles says that paths hold no scenario files.
func NoScenarioFiles(paths []string) string {
	verb := "hold"
	if len(paths) == 1 {
		verb = "holds"
	}
	return approve.QuoteArgv(paths) + " " + verb + " no scenario files"
}

// filter applies Run, then Tags, then the shard, keeping the order.
func (sel Selection) filter(scs []*Scenario) ([]*Scenario, error) {
	var re *regexp.Regexp
	if sel.Run != "" {
		var err error
		if re, err = regexp.Compile(sel.Run); err != nil {
			return nil, fmt.Errorf("--run: %w%s", err, literalRun(sel.Run, scs))
		}
	}
	sh, err := parseShard(sel)
	if err != nil {
		return nil, err
	}
	out := scs
	var filters []string // the filters applied so far, as typed
	if re != nil {
		out = slices.DeleteFunc(slices.Clone(out), func(sc *Scenario) bool { return !re.MatchString(sc.Name) })
		filters = append(filters, "--run "+quoteArg(sel.Run))
		if len(out) == 0 {
			return nil, &NoneSelectedError{fmt.Sprintf("--run %s matched none of %s%s", quoteArg(sel.Run), countScenarios(len(scs)), literalRun(sel.Run, scs))}
		}
	}
	if len(sel.Tags) > 0 {
		before := len(out)
		out = slices.DeleteFunc(slices.Clone(out), func(sc *Scenario) bool {
			return !slices.ContainsFunc(sel.Tags, func(t string) bool { return slices.Contains(sc.Tags, t) })
		})
		var tags []string
		for _, t := range sel.Tags {
			tags = append(tags, "--tag "+quoteArg(t))
		}
		if len(out) == 0 {
			of := "none of " + countScenarios(before)
			if len(filters) > 0 {
				of = fmt.Sprintf("none of the %s selected by %s", countScenarios(before), strings.Join(filters, " "))
			}
			return nil, &NoneSelectedError{strings.Join(tags, " ") + " matched " + of}
		}
	}
	if sh.count > 1 {
		mine := roundRobin(out, sh.index, sh.count)
		if sel.Durations != nil {
			mine = balanced(out, sel.Durations, sh.index, sh.count)
		}
		if len(mine) == 0 {
			return nil, &NoneSelectedError{fmt.Sprintf("shard %s is empty: the selection has %s for %d shards", sh.name, countScenarios(len(out)), sh.count)}
		}
		out = mine
	}
	return out, nil
}

// shard is one of count shards; count 1 is no sharding.
type shard struct {
	index, count int    // index is 0-based
	name         string // as the user chose it, for messages
}

// parseShard reads the shard of sel.Shard, or else of sel.JobIndex and
// sel.Shards, or else of sel.CINodeIndex and sel.CINodeTotal.
func parseShard(sel Selection) (shard, error) {
	if sel.Shards < 0 {
		return shard{}, fmt.Errorf("--shards %d: want the number of shards, 1 or more", sel.Shards)
	}
	if sel.Shard != "" {
		i, n, ok := strings.Cut(sel.Shard, "/")
		index, err1 := strconv.Atoi(i)
		count, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
			return shard{}, fmt.Errorf("--shard %q: want I/N with 1 ≤ I ≤ N, e.g. 2/3", sel.Shard)
		}
		return shard{index - 1, count, sel.Shard}, nil
	}
	if sel.JobIndex == "" && sel.Shards > 1 {
		hint := ""
		if sel.CINodeIndex != "" || sel.CINodeTotal != "" {
			hint = " (GitLab's CI_NODE_INDEX and CI_NODE_TOTAL shard without --shards)"
		}
		return shard{}, fmt.Errorf("--shards %d needs JOB_COMPLETION_INDEX or --shard I/N%s", sel.Shards, hint)
	}
	if sel.JobIndex != "" && sel.Shards >= 1 {
		index, err := strconv.Atoi(sel.JobIndex)
		if err != nil || index < 0 || index >= sel.Shards {
			return shard{}, fmt.Errorf("JOB_COMPLETION_INDEX=%q: want 0 ≤ index < --shards %d", sel.JobIndex, sel.Shards)
		}
		return shard{index, sel.Shards, fmt.Sprintf("JOB_COMPLETION_INDEX=%d of --shards %d", index, sel.Shards)}, nil
	}
	// An Indexed Job without --shards does not shard acprun.
	return parseCINode(sel.CINodeIndex, sel.CINodeTotal)
}

// parseCINode reads the shard of GitLab's parallel: variables: index is
// CI_NODE_INDEX (1-based), total CI_NODE_TOTAL. GitLab sets CI_NODE_TOTAL=1
// in every job that is not parallel, which is no sharding.
func parseCINode(index, total string) (shard, error) {
	const override = "; or choose the shard with --shard I/N"
	if index == "" && total == "" {
		return shard{count: 1}, nil
	}
	if total == "" {
		return shard{}, fmt.Errorf("CI_NODE_INDEX=%q is set but CI_NODE_TOTAL is not: set both (GitLab's parallel: does)%s", index, override)
	}
	count, err := strconv.Atoi(total)
	if err != nil || count < 1 {
		return shard{}, fmt.Errorf("CI_NODE_TOTAL=%q: want the number of parallel jobs, 1 or more%s", total, override)
	}
	if index == "" {
		if count == 1 {
			return shard{count: 1}, nil
		}
		return shard{}, fmt.Errorf("CI_NODE_TOTAL=%d is set but CI_NODE_INDEX is not: set both (GitLab's parallel: does)%s", count, override)
	}
	i, err := strconv.Atoi(index)
	if err != nil || i < 1 || i > count {
		return shard{}, fmt.Errorf("CI_NODE_INDEX=%q: want 1 ≤ index ≤ CI_NODE_TOTAL=%d (it is 1-based)%s", index, count, override)
	}
	return shard{i - 1, count, fmt.Sprintf("CI_NODE_INDEX=%d of CI_NODE_TOTAL=%d", i, count)}, nil
}

// matrix runs every scenario against each of sel.Agents, in scenario
// order; every name is checked first, even when there are no scenarios.
func (sel Selection) matrix(scs []*Scenario, opts LoadOptions) ([]*Scenario, error) {
	if len(sel.Agents) == 0 {
		return scs, nil
	}
	// An agent named twice runs once, in its first place, as a scenario
	// file given twice is loaded once: a second column of the same agent
	// would count its attempts twice (pass@2 of one attempt).
	agents := make([]string, 0, len(sel.Agents))
	for _, name := range sel.Agents {
		if !slices.Contains(agents, name) {
			agents = append(agents, name)
		}
	}
	sel.Agents = agents
	for _, name := range sel.Agents {
		// The scenario's cwd stays (see WithAgent): the agent's own is not
		// checked, as ResolveAgent would.
		if _, _, err := resolveNamed(name, opts); err != nil { // unset variables are each scenario's (see WithAgent)
			var es Errors
			if !errors.As(err, &es) { // unknown, not a broken config agent
				err = fmt.Errorf("%w%s", err, scenariosConfigHint(scs, opts.Config))
			}
			return nil, fmt.Errorf("--agent %s: %w", name, err)
		}
	}
	var out []*Scenario
	for _, sc := range scs {
		for _, name := range sel.Agents {
			c, err := sc.WithAgent(name, opts)
			if err != nil {
				return nil, fmt.Errorf("%s with agent %s: %w", termtext.Printable(sc.Name), name, err)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// scenariosConfigHint is unloadedConfigHint for the first scenario of scs
// with a config file near it that was not loaded; "" when none has one.
func scenariosConfigHint(scs []*Scenario, cfg *Config) string {
	seen := map[string]bool{}
	for _, sc := range scs {
		dir, err := filepath.Abs(filepath.Dir(sc.File))
		if err != nil || seen[dir] {
			continue
		}
		seen[dir] = true
		if hint := unloadedConfigHint(dir, cfg); hint != "" {
			return hint
		}
	}
	return ""
}

// UnloadedConfig says that a config file near the scenarios scs was not
// loaded as cfg, and how to load it: the first acprun.yaml (or acprun.yml)
// found beside a scenario file or above it up to the working directory,
// whose defaults and agents a run of scs without it does not apply
// ("suite/acprun.yaml was not loaded: …; pass --config
// suite/acprun.yaml"). "" when there is none, or it is cfg's own file.
func UnloadedConfig(scs []*Scenario, cfg *Config) string {
	return strings.TrimPrefix(scenariosConfigHint(scs, cfg), "; ")
}

// quoteArg quotes a flag value for a message as a shell would need it.
func quoteArg(s string) string { return approve.QuoteWord(s) }

// literalRun says, of a --run pattern that is no regular expression or
// matched none, how to select a scenario whose name holds the pattern as
// written (^ and $ aside): a parametrised name copied from acprun list,
// port[lang=go], whose [ ] make a class that matches none of it, or the
// name of a scenario with vars before its values (^port$), which each of
// its names goes on from. It offers only a pattern that matches the name
// it is about; "" when no name holds it.
func literalRun(run string, scs []*Scenario) string {
	lit := strings.TrimSuffix(strings.TrimPrefix(run, "^"), "$")
	for _, sc := range scs {
		if lit == "" || !strings.Contains(sc.Name, lit) {
			continue
		}
		if sc.Vars != nil && sc.Name == lit+"["+(valueSet{vars: sc.Vars}).key()+"]" {
			return fmt.Sprintf("; %s has vars, and its names go on with their values (%s, …): to select every one write --run %s",
				lit, sc.Name, quoteArg("^"+regexp.QuoteMeta(lit)+`\[`))
		}
		want := regexp.QuoteMeta(lit)
		if strings.HasPrefix(run, "^") || sc.Name == lit {
			want = "^" + want
		}
		if strings.HasSuffix(run, "$") || sc.Name == lit {
			want += "$"
		}
		if !regexp.MustCompile(want).MatchString(sc.Name) {
			continue // the anchors do not fit this name
		}
		return fmt.Sprintf("; --run takes a regular expression (RE2), in which [ ] . ( ) and the like are special: to select %s write --run %s", sc.Name, quoteArg(want))
	}
	return ""
}

// countScenarios is "1 scenario" or "N scenarios".
func countScenarios(n int) string {
	if n == 1 {
		return "1 scenario"
	}
	return fmt.Sprintf("%d scenarios", n)
}

// Pick returns the scenario of scs named name, or the only one when name
// is "". Its errors name the scenarios there are to choose from, for
// commands that work on one scenario of a file (--scenario): the first
// maxPicked of them, a file of a vars matrix holding up to a thousand.
func Pick(scs []*Scenario, name string) (*Scenario, error) {
	for _, sc := range scs {
		if name != "" && sc.Name == name {
			return sc, nil
		}
	}
	if name == "" && len(scs) == 1 {
		return scs[0], nil
	}
	var names []string
	for _, sc := range scs[:min(len(scs), maxPicked)] {
		names = append(names, termtext.Printable(sc.Name))
	}
	list := strings.Join(names, ", ")
	if more := len(scs) - maxPicked; more > 0 {
		list += fmt.Sprintf(" and %d more: acprun list %s lists them", more, quoteArg(scs[0].File))
	}
	if name == "" {
		return nil, fmt.Errorf("the file holds %d scenarios; choose one with --scenario (%s)", len(scs), list)
	}
	return nil, fmt.Errorf("no scenario %q (the file has: %s)", name, list)
}

// maxPicked is how many names Pick's errors list.
const maxPicked = 10
