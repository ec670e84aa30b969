package report

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acprun/acprun/scenario"
)

// rerunKey identifies a scenario across runs: its file, its name and the
// named agent it ran against ("" for an agent of its own). Attempts and
// retries are not part of it: a scenario with any failed attempt runs
// again as a whole.
type rerunKey struct{ file, name, agent string }

// Rerun is what did not pass (failed, errored, invalid, interrupted) in an
// earlier results file: the scenarios run --rerun-failed runs again, and
// their results there, which a rerun that replaces the file keeps for
// those it does not run (Unselected) or never starts (Unstarted).
type Rerun struct {
	file   string // the results file, as given
	failed map[rerunKey]bool
	// earlier are the results in the file of the scenarios of failed,
	// every try of every attempt, in the file's order, each with the
	// directory its file is relative to (Result.Dir); keys are theirs.
	earlier []Result
	keys    []rerunKey
}

// ReadRerun reads the results file path and notes every scenario whose
// verdict (its last try) did not pass: failed, errored, invalid (it
// measured nothing), or interrupted (cut short or never started by an
// interrupt, the run's --timeout or --fail-fast), so that it runs again.
// The failed attempts of a scenario that met its minimum pass rate
// passed as the scenario did (Forgiven). It keeps those scenarios'
// results, for a rerun that replaces the file (Unselected, Unstarted).
// Its errors name the file, at the value that is wrong (see Read).
func ReadRerun(path string) (*Rerun, error) {
	res, err := readFile(path)
	if err != nil {
		return nil, err
	}
	set := &Rerun{file: path, failed: map[rerunKey]bool{}}
	forgiven := Forgiven(res.Report())
	keys := make([]rerunKey, len(res.Scenarios))
	seen := resultSet{}
	for i, r := range res.Scenarios {
		if err := seen.add([]string{path}, entryAt{0, i}, withDir(r, res.Dir)); err != nil {
			return nil, err // its earlier results would be kept twice
		}
		keys[i] = rerunKey{recordedPath(r.File, cmp.Or(r.Dir, res.Dir)), r.Name, r.Agent.Name}
		if r.Verdict() && r.Status != StatusPassed && !forgiven(r) {
			set.failed[keys[i]] = true
		}
	}
	for i, r := range res.Scenarios {
		if set.failed[keys[i]] {
			r.Dir = cmp.Or(r.Dir, res.Dir)
			set.earlier = append(set.earlier, r)
			set.keys = append(set.keys, keys[i])
		}
	}
	return set, nil
}

// recordedPath is the samePath of a scenario file as results record it:
// a relative file is relative to dir, the directory the run ran in, when
// the file is there (the results are of a run on this machine, from
// whatever directory); otherwise, when the results do not say (an older
// acprun's) or the file is not there (the results of another machine, a
// CI job's, whose checkout is elsewhere), relative to the working
// directory, as the scenarios selected now are.
func recordedPath(file, dir string) string {
	if file != "" && dir != "" && !filepath.IsAbs(file) {
		p := filepath.Join(dir, file)
		// A dangling symbolic link is there too: it was the file the run named.
		if _, err := os.Lstat(p); err == nil {
			return samePath(p)
		}
	}
	return samePath(file)
}

// sameFiles are the forms of the path of a scenario file, as results
// record it relative to dir ("" when not known), that name it whatever its
// spelling: file as written (the same relative file of shards run in
// different directories, of one suite), joined to dir (of results made
// elsewhere, whose file is not here), and as --rerun-failed finds it
// (recordedPath: with its symbolic links resolved). Two results whose
// files share a form are of the same file. A run without a scenario file
// ("") has only its own.
func sameFiles(file, dir string) []string {
	if file == "" {
		return []string{file}
	}
	forms := []string{file}
	joined := filepath.Clean(file)
	if dir != "" && !filepath.IsAbs(file) {
		joined = filepath.Join(dir, file)
	}
	for _, f := range []string{joined, recordedPath(file, dir)} {
		if !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	return forms
}

// samePath is the form of a scenario file's path that is compared: made
// absolute against the working directory, with its symbolic links
// resolved, so that ./a.yaml, a.yaml, its absolute path, its path through
// a linked directory (a working directory reached through a symlink) and
// a link to it are one file, as loading takes them to be. A file that is
// not there is resolved as far as its directory.
func samePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// Filter returns the scenarios of scs that did not pass in the file, in
// their order.
func (s *Rerun) Filter(scs []*scenario.Scenario) []*scenario.Scenario {
	var out []*scenario.Scenario
	for _, sc := range scs {
		if s.failed[rerunKey{samePath(sc.File), sc.Name, sc.Agent.Name}] {
			out = append(out, sc)
		}
	}
	return out
}

// Unselected returns the earlier results of the scenarios to rerun that
// are not among sel, the scenarios this rerun runs (those Filter
// returned, as far as the run then narrowed them): every try of every
// attempt, unchanged, in the file's order, each with the directory its
// file is relative to (Result.Dir; "" when the file does not say). A
// rerun whose results replace the file keeps them there (Keep), so that
// the next --rerun-failed still reruns them: the file was read to
// rerun them, and --run, --tag, --shard or a narrower path left them
// out this time. They include those of scenarios that are no longer
// there to select (renamed, or their file removed).
func (s *Rerun) Unselected(sel []*scenario.Scenario) []Result {
	ran := map[rerunKey]bool{}
	for _, sc := range sel {
		ran[rerunKey{samePath(sc.File), sc.Name, sc.Agent.Name}] = true
	}
	var out []Result
	for i, r := range s.earlier {
		if !ran[s.keys[i]] {
			out = append(out, r)
		}
	}
	return out
}

// Unstarted returns rep, the results of a rerun, without the results of
// the scenarios to rerun that it never started, and the earlier results
// of those scenarios, every try of every attempt, unchanged, in the
// file's order, each with the directory its file is relative to
// (Result.Dir), as Unselected returns them. A scenario never started
// when every one of its results in rep is NotRun: an interrupt, the
// run's --timeout or --fail-fast came first. Its results in rep say
// nothing of it but that, so a rerun whose results replace the file
// keeps the earlier ones there instead (Keep), and the next
// --rerun-failed reruns it, as it does those left out. A scenario the
// rerun started, if only one attempt of it, keeps rep's results, an
// interrupted one's too: they are what the rerun measured, and the file
// holds one result of each try, as merge wants it. rep.Dir and the rest
// of rep stay (Interrupted too); rep itself is not changed.
func (s *Rerun) Unstarted(rep Report) (Report, []Result) {
	started, notRun := map[rerunKey]bool{}, map[rerunKey]bool{}
	keys := make([]rerunKey, len(rep.Scenarios))
	for i, r := range rep.Scenarios {
		keys[i] = rerunKey{recordedPath(r.File, cmp.Or(r.Dir, rep.Dir)), r.Name, r.Agent.Name}
		if r.NotRun {
			notRun[keys[i]] = true
		} else {
			started[keys[i]] = true
		}
	}
	var kept []Result
	keeps := map[rerunKey]bool{}
	for i, r := range s.earlier {
		if k := s.keys[i]; notRun[k] && !started[k] {
			kept = append(kept, r)
			keeps[k] = true
		}
	}
	if len(kept) == 0 {
		return rep, nil
	}
	var ran []Result
	for i, r := range rep.Scenarios {
		if !keeps[keys[i]] {
			ran = append(ran, r)
		}
	}
	rep.Scenarios = ran
	return rep, kept
}

// Keep returns rep, the results of a rerun (as Unstarted returns them),
// with kept, the earlier results it did not rerun (Unselected, then
// Unstarted), after its own: what the results file it replaces is to
// hold. rep.Dir is the one directory all of them are relative to, or ""
// when they differ, and then each result says its own (Result.Dir), as
// merged shards do. rep itself is not changed.
func Keep(rep Report, kept []Result) Report {
	if len(kept) == 0 {
		return rep
	}
	all := make([]Result, 0, len(rep.Scenarios)+len(kept))
	for _, r := range rep.Scenarios {
		r.Dir = cmp.Or(r.Dir, rep.Dir)
		all = append(all, r)
	}
	all = append(all, kept...)
	var dirs []string
	if len(rep.Scenarios) == 0 {
		dirs = []string{rep.Dir}
	}
	rep.Dir = mergeDirs(all, dirs)
	rep.Scenarios = all
	return rep
}

// Nothing says why there is nothing to rerun, when Filter returns none of
// scs, the scenarios selected: when some that did not pass are among them
// but on another agent (a run with --agent, rerun without it), it names
// the agents they ran on and the flags that select them again.
func (s *Rerun) Nothing(scs []*scenario.Scenario) string {
	var msg string
	switch len(s.failed) {
	case 0:
		return fmt.Sprintf("nothing to rerun: no scenario failed, errored, was invalid or was interrupted in %s", s.file)
	case 1:
		msg = fmt.Sprintf("nothing to rerun: the scenario that failed, errored, was invalid or was interrupted in %s is not selected", s.file)
	default:
		msg = fmt.Sprintf("nothing to rerun: none of the %d scenarios that failed, errored, were invalid or were interrupted in %s is selected", len(s.failed), s.file)
	}
	return msg + s.otherAgents(scs)
}

// otherAgents is the part of Nothing about agents: "; they ran there on
// agent bad, which this run does not give them: run with --agent bad"
// when scenarios of scs did not pass on other agents; "" when none did.
func (s *Rerun) otherAgents(scs []*scenario.Scenario) string {
	selected := map[rerunKey]bool{}
	for _, sc := range scs {
		selected[rerunKey{samePath(sc.File), sc.Name, ""}] = true
	}
	var named []string
	own := false
	for k := range s.failed {
		switch {
		case !selected[rerunKey{k.file, k.name, ""}]:
		case k.agent == "":
			own = true
		case !slices.Contains(named, k.agent):
			named = append(named, k.agent)
		}
	}
	if len(named) == 0 && !own {
		return ""
	}
	slices.Sort(named)
	they, them := "they", "them"
	if len(s.failed) == 1 {
		they, them = "it", "it"
	}
	var on, fix []string
	if len(named) > 0 {
		on = append(on, "agent "+strings.Join(named, ", "))
		fix = append(fix, "run with --agent "+strings.Join(named, ","))
	}
	if own {
		on = append(on, "its own agent")
		if they == "they" {
			on[len(on)-1] = "their own agents"
		}
		fix = append(fix, "run without --agent")
	}
	return fmt.Sprintf("; %s ran there on %s, which this run does not give %s: %s", they, strings.Join(on, " and "), them, strings.Join(fix, ", and "))
}

// withDir is r with its Dir, or dir when it has none.
func withDir(r Result, dir string) Result {
	r.Dir = cmp.Or(r.Dir, dir)
	return r
}
