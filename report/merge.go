package report

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/acprun/acprun/scenario"
)

// balancedBy says how a shard of fingerprint fp was balanced.
func balancedBy(fp string) string {
	if fp == "" {
		return "round robin (no --balance-from durations)"
	}
	return "from durations " + fp
}

// resultKey identifies one result across shards. Its name is part of it:
// two scenarios at one line of one file are of two versions of the file
// (a rerun that keeps the results of scenarios it did not run, whose file
// changed since: a and b swapped, lines added above), never the same.
type resultKey struct {
	file    string
	line    int
	name    string
	varSet  int
	agent   string
	attempt int
	retry   int
}

// keyOf is the key of sc, from file f (one of its spellings). An attempt
// left out (a run without --repeat) is attempt 1, as Label takes it; a
// retry left out is the first try, as it always is.
func keyOf(f string, sc Result) resultKey {
	return resultKey{f, sc.Line, sc.Name, sc.VarSet, sc.Agent.Name, max(sc.Attempt, 1), sc.Retry}
}

// entryAt is where a result is among the files merged: file paths[file],
// its scenarios[entry].
type entryAt struct{ file, entry int }

// overlap is the error of sc, at, being the same result as the one at
// prev: shards that overlap, or a file that has it twice.
func overlap(paths []string, prev, at entryAt, sc Result) error {
	where := sc.File + ":" + strconv.Itoa(sc.Line)
	if sc.File == "" {
		where = scenario.OneShotPos.File // a run without a scenario file
	}
	if prev.file == at.file {
		return fmt.Errorf("%s: scenarios.%d and scenarios.%d are the same result, of scenario %q (%s): acprun writes each result once", paths[at.file], prev.entry, at.entry, sc.Label(), where)
	}
	return fmt.Errorf("%s: scenario %q (%s) is also in %s: the shards overlap", paths[at.file], sc.Label(), where, paths[prev.file])
}

// resultSet is where each result read so far is, by its key.
type resultSet map[resultKey]entryAt

// add adds sc, at at, to the set; it is the error of overlap when the set
// holds the same result already (by any spelling of its file).
func (s resultSet) add(paths []string, at entryAt, sc Result) error {
	files := sameFiles(sc.File, sc.Dir)
	for _, f := range files {
		if prev, ok := s[keyOf(f, sc)]; ok {
			return overlap(paths, prev, at, sc)
		}
	}
	for _, f := range files {
		s[keyOf(f, sc)] = at
	}
	return nil
}

// MergeFiles reads the results files at paths, the shards of one run,
// and combines them into the report of the whole run:
//   - scenarios are concatenated and sorted by file, line, value set
//     (vars), agent and attempt (a stable sort), a file by its path
//     joined to its shard's dir, however each shard spelt it (see
//     sortFile), and agents in the order of the shards' run --agent
//     (agents), as the unsharded run ordered them; by name when the
//     shards do not say it alike (run without --agent, or by an older
//     acprun);
//   - startedAt is the earliest, the duration the longest (shards run side
//     by side, so the longest is the wall time of the whole), interrupted
//     is set when any shard was interrupted, and policyOverride lists the
//     shards' overrides;
//   - balancedBy is the shards' own: shards balanced from different
//     durations (--balance-from), or some balanced and some not, are an
//     error, since their shards need not add up to the selection;
//   - dir, the directory the scenarios' files are relative to, is the
//     shards' when they all ran in one (or do not say, as an older
//     acprun's results); shards run in different directories keep their
//     files as they are, and each result says its own directory instead
//     (Result.Dir), as --rerun-failed resolves them.
//
// Its results (NewResults) count byStopReason and summary again from the
// scenarios. The same result (file, line, name, value set, agent, attempt
// and retry; no attempt is attempt 1) in two shards is an error: those shards
// overlap; twice in one file, too. A file is the same however the shards
// spelt it (sameFiles: suite/a.yaml, ./suite/a.yaml, its absolute path),
// as --rerun-failed takes it. Every error names the file it is about; one that is not
// acprun results is refused at the value that is wrong (see Read).
func MergeFiles(paths []string) (Report, error) {
	if len(paths) == 0 {
		return Report{}, errors.New("no results files to merge")
	}
	if err := givenTwice(paths); err != nil {
		return Report{}, err
	}
	rep := Report{SchemaVersion: SchemaVersion}
	var overrides []string
	var emptyDirs []string // the dirs of shards without scenarios
	var agents [][]string  // each shard's --agent matrix
	seen := resultSet{}
	for i, p := range paths {
		res, err := readFile(p)
		if err != nil {
			return Report{}, err // names the file
		}
		r := res.Report()
		if i > 0 && r.BalancedBy != rep.BalancedBy {
			return Report{}, fmt.Errorf("%s was balanced %s, but %s %s: shards balanced from different results may overlap or miss scenarios; "+
				"run every shard with the same --balance-from FILE", paths[0], balancedBy(rep.BalancedBy), p, balancedBy(r.BalancedBy))
		}
		rep.BalancedBy = r.BalancedBy
		agents = append(agents, r.Agents)
		if !r.StartedAt.IsZero() && (rep.StartedAt.IsZero() || r.StartedAt.Before(rep.StartedAt)) {
			rep.StartedAt = r.StartedAt
		}
		rep.Duration = max(rep.Duration, r.Duration)
		rep.Interrupted = rep.Interrupted || r.Interrupted
		if len(r.Scenarios) == 0 {
			emptyDirs = append(emptyDirs, r.Dir)
		}
		if r.PolicyOverride != "" && !slices.Contains(overrides, r.PolicyOverride) {
			overrides = append(overrides, r.PolicyOverride)
		}
		for j, sc := range r.Scenarios {
			sc.Dir = cmp.Or(sc.Dir, r.Dir) // a result's own, of merged results
			if err := seen.add(paths, entryAt{i, j}, sc); err != nil {
				return Report{}, err
			}
			rep.Scenarios = append(rep.Scenarios, sc)
		}
	}
	rep.PolicyOverride = strings.Join(overrides, ", ")
	if len(agents[0]) > 0 && !slices.ContainsFunc(agents, func(a []string) bool { return !slices.Equal(a, agents[0]) }) {
		rep.Agents = agents[0]
	}
	agentRank := func(r Result) int {
		if i := slices.Index(rep.Agents, r.Agent.Name); i >= 0 {
			return i
		}
		return len(rep.Agents) // then by name
	}
	file := sortFile(rep.Scenarios)
	slices.SortStableFunc(rep.Scenarios, func(a, b Result) int {
		return cmp.Or(
			cmp.Compare(file(a), file(b)),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.VarSet, b.VarSet),
			cmp.Compare(agentRank(a), agentRank(b)),
			cmp.Compare(a.Agent.Name, b.Agent.Name),
			cmp.Compare(a.Attempt, b.Attempt),
			cmp.Compare(a.Retry, b.Retry),
		)
	})
	rep.Dir = mergeDirs(rep.Scenarios, emptyDirs)
	return rep, nil
}

// givenTwice is the error of a file of paths that is one given before it,
// however spelt (./r.json, through a symbolic link, a hard link): read
// twice, its results would be taken for two shards that overlap. A file
// that cannot be read is left to readFile, which says why.
func givenTwice(paths []string) error {
	infos := make([]os.FileInfo, len(paths))
	for i, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		for j, prev := range infos[:i] {
			if prev != nil && os.SameFile(prev, fi) {
				return fmt.Errorf("%s: the same file as %s, given twice: give each results file once", p, paths[j])
			}
		}
		infos[i] = fi
	}
	return nil
}

// sortFile returns the path merged results scs are ordered by, given one
// of them: when every result says the directory its file is relative to
// (Result.Dir, its shard's), its file joined to that directory, so that
// shards run from different directories (suite/a.yaml from the suite's
// parent, b.yaml from suite/) are in the unsharded run's order, which is
// that of the files' paths; otherwise (results of an older acprun) its
// file as recorded.
func sortFile(scs []Result) func(Result) string {
	if slices.ContainsFunc(scs, func(sc Result) bool { return sc.Dir == "" }) {
		return func(sc Result) string { return sc.File }
	}
	return func(sc Result) string {
		if filepath.IsAbs(sc.File) {
			return filepath.Clean(sc.File)
		}
		return filepath.Join(sc.Dir, sc.File)
	}
}

// mergeDirs is the directory of merged results whose scenarios scs carry
// each their own (Result.Dir; "" when not known), as do the shards
// without scenarios (dirs): the one they all share, moved from the
// scenarios to the results, or "" when they differ, and each scenario
// keeps its own.
func mergeDirs(scs []Result, dirs []string) string {
	for _, sc := range scs {
		dirs = append(dirs, sc.Dir)
	}
	if len(dirs) == 0 || slices.ContainsFunc(dirs, func(d string) bool { return d != dirs[0] }) {
		return ""
	}
	for i := range scs {
		scs[i].Dir = ""
	}
	return dirs[0]
}
