package output

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/acprun/acprun/report"
)

// maxKept is how many scenarios Kept names; it counts the rest.
const maxKept = 10

// Kept is the line of a rerun's summary that says which earlier results
// it kept in the results file it replaced, file as -o names it, for the
// next --rerun-failed (see report.Keep): "2 scenarios not selected, kept
// in last.json for the next --rerun-failed: y (failed), z [claude] (not
// run)", with a line break; "" when kept is empty. Each scenario is
// named once, by its name and named agent (printable), whatever its
// attempts, with the status of its first attempt that did not pass ("not
// run" for one that never started); the first maxKept are named, and
// "and N more" counts the rest.
func Kept(file string, kept []report.Result) string {
	n, list := keptList(kept)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s not selected, kept in %s for the next --rerun-failed: %s\n",
		n, plural(n, "scenario", "scenarios"), printable(file), list)
}

// KeptNotRun is the line of a rerun's summary that says which scenarios
// it never started (an interrupt, --timeout or --fail-fast came first)
// had their earlier results kept in the results file it replaced, file
// as -o names it, for the next --rerun-failed (see
// report.Rerun.Unstarted): "2 scenarios not run, their earlier results
// kept in last.json for the next --rerun-failed: y (failed), z (error)",
// with a line break; "" when kept is empty. The scenarios are named as
// Kept names them, with their earlier status.
func KeptNotRun(file string, kept []report.Result) string {
	n, list := keptList(kept)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s not run, %s earlier results kept in %s for the next --rerun-failed: %s\n",
		n, plural(n, "scenario", "scenarios"), plural(n, "its", "their"), printable(file), list)
}

// keptList is how many scenarios kept holds, and their list as Kept
// writes it: "y (failed), z [claude] (not run)", the first maxKept
// named and "and N more" counting the rest.
func keptList(kept []report.Result) (int, string) {
	type key struct{ dir, file, name, agent string }
	var names []string
	seen := map[key]bool{}
	status := map[key]string{}
	var order []key
	for _, r := range kept {
		k := key{r.Dir, r.File, r.Name, r.Agent.Name}
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
			label := r.Name
			if r.Agent.Name != "" {
				label += " [" + r.Agent.Name + "]"
			}
			names = append(names, printable(label))
		}
		if _, ok := status[k]; !ok && r.Verdict() && r.Status != report.StatusPassed {
			status[k] = string(r.Status)
			if r.NotRun {
				status[k] = "not run"
			}
		}
	}
	var list []string
	for i, k := range order[:min(len(order), maxKept)] {
		list = append(list, names[i]+" ("+cmp.Or(status[k], "did not pass")+")")
	}
	more := ""
	if n := len(order) - maxKept; n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return len(order), strings.Join(list, ", ") + more
}
