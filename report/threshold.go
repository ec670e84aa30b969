package report

// Forgiven returns a function that reports whether a pass threshold
// forgives the result r of rep: r is the verdict of its attempt, it failed
// or errored (its agent started), and its scenario met its minPassRate
// against its agent (PassRate.Met). The exit code, JUnit and annotations
// then take the scenario's verdict over its attempts instead of r's own.
// Only passed and failed (or errored) attempts are samples of the rate;
// an interrupted attempt is not, and is never forgiven: a run cut short is
// not a passing one.
func Forgiven(rep Report) func(r Result) bool {
	met := map[passRateKey]bool{}
	for _, p := range PassRates(rep) {
		if p.Met != nil && *p.Met {
			met[passRateKey{p.File, p.Scenario, p.Agent}] = true
		}
	}
	return func(r Result) bool {
		return r.Verdict() && (r.Status == StatusFailed || r.Status == StatusError) && !r.StartFailed &&
			met[passRateKey{r.File, r.Name, r.Agent.Name}]
	}
}
