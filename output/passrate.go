package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/acprun/acprun/runner"
)

// PassRate is how often one scenario passed against one agent over its
// attempts (--repeat).
type PassRate struct {
	Scenario string  `json:"scenario"`
	Agent    string  `json:"agent,omitempty"`
	Attempts int     `json:"attempts"`
	Passed   int     `json:"passed"`
	Rate     float64 `json:"passRate"` // passed / attempts, which is also pass@1
	// PassAtK is the unbiased pass@k estimate for k = Attempts: 1 when
	// any attempt passed.
	PassAtK float64 `json:"passAtK"`
}

// PassRates groups a report's results by scenario and agent, in the
// report's order. It returns nil for a run with one attempt per scenario
// and no named agents: there is nothing to compare.
func PassRates(rep runner.Report) []PassRate {
	type key struct{ file, name, agent string }
	idx := map[key]int{}
	var out []PassRate
	interesting := false
	for _, r := range rep.Scenarios {
		k := key{r.File, r.Name, r.Agent.Name}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, PassRate{Scenario: r.Name, Agent: r.Agent.Name})
		}
		out[i].Attempts++
		if r.Status == runner.StatusPassed {
			out[i].Passed++
		}
		if r.Attempt > 1 || r.Agent.Name != "" {
			interesting = true
		}
	}
	if !interesting {
		return nil
	}
	for i := range out {
		p := &out[i]
		p.Rate = float64(p.Passed) / float64(p.Attempts)
		if p.Passed > 0 {
			p.PassAtK = 1
		}
	}
	return out
}

// passRateTable writes the pass rates side by side: one row per scenario,
// one column per agent.
func passRateTable(w io.Writer, rates []PassRate) {
	var agents, scenarios []string
	cell := map[[2]string]PassRate{}
	seenA, seenS := map[string]bool{}, map[string]bool{}
	for _, p := range rates {
		if !seenA[p.Agent] {
			seenA[p.Agent] = true
			agents = append(agents, p.Agent)
		}
		if !seenS[p.Scenario] {
			seenS[p.Scenario] = true
			scenarios = append(scenarios, p.Scenario)
		}
		cell[[2]string{p.Scenario, p.Agent}] = p
	}
	width := len("scenario")
	for _, s := range scenarios {
		width = max(width, len(s))
	}
	header := fmt.Sprintf("\n%-*s", width, "scenario")
	for _, a := range agents {
		if a == "" {
			a = "pass rate"
		}
		header += fmt.Sprintf("  %-16s", a)
	}
	fmt.Fprintln(w, strings.TrimRight(header, " "))
	for _, s := range scenarios {
		row := fmt.Sprintf("%-*s", width, s)
		for _, a := range agents {
			p, ok := cell[[2]string{s, a}]
			txt := "-"
			if ok {
				txt = fmt.Sprintf("%d/%d (%.0f%%)", p.Passed, p.Attempts, 100*p.Rate)
				if p.Attempts > 1 {
					txt += fmt.Sprintf(" pass@%d=%.0f", p.Attempts, p.PassAtK)
				}
			}
			row += fmt.Sprintf("  %-16s", txt)
		}
		fmt.Fprintln(w, strings.TrimRight(row, " "))
	}
}
