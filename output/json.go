package output

import (
	"encoding/json"
	"io"
	"sort"

	"github.com/acprun/acprun/report"
)

// TurnRef names one turn of one scenario result in byStopReason. Agent
// and Attempt tell the results of one scenario apart when it ran against
// several named agents (--agent) or several times (--repeat).
type TurnRef struct {
	Scenario string `json:"scenario"`
	// Agent is the named agent the scenario ran against, if it had one.
	Agent string `json:"agent,omitempty"`
	// Attempt counts from 1 when scenarios were repeated; 0 (left out)
	// when each ran once.
	Attempt int `json:"attempt,omitempty"`
	// Retry is the result's retry (see report.Result.Retry).
	Retry int `json:"retry,omitempty"`
	Turn  int `json:"turn"`
}

// Summary counts what a run produced.
type Summary struct {
	Scenarios int `json:"scenarios"`
	Passed    int `json:"passed"`
	Failed    int `json:"failed"`
	// Errored counts the results with status error.
	Errored int `json:"errored"`
	// Interrupted counts the results with status interrupted: cut short,
	// or never started, by an interrupt, the run's --timeout or
	// --fail-fast.
	Interrupted int `json:"interrupted"`
	// NotRun counts the scenarios that never started (the run was
	// interrupted, out of time or stopped at --max-failures first), of
	// those counted in Interrupted.
	NotRun int `json:"notRun,omitempty"`
	// Flaky counts the scenarios that passed on a retry (retries: N);
	// Retried counts the tries that failed or errored and were run again,
	// which Scenarios, Passed, Failed and Errored leave out.
	Flaky   int `json:"flaky,omitempty"`
	Retried int `json:"retried,omitempty"`
	// Turns counts turns by stop reason (skipped turns under "skipped").
	Turns   map[string]int `json:"turns"`
	Allowed int            `json:"allowed"`
	Denied  int            `json:"denied"`
	// Warnings counts the warnings of every scenario result.
	Warnings   int   `json:"warnings"`
	DurationMs int64 `json:"durationMs"`
	// PassRates compares attempts and agents (--repeat, --agent).
	PassRates []PassRate `json:"passRates,omitempty"`
}

// Results is the JSON document acprun writes (schemaVersion
// report.SchemaVersion).
type Results struct {
	SchemaVersion  int                  `json:"schemaVersion"`
	StartedAt      string               `json:"startedAt"`
	DurationMs     int64                `json:"durationMs"`
	Interrupted    bool                 `json:"interrupted,omitempty"`
	PolicyOverride string               `json:"policyOverride,omitempty"`
	ByStopReason   map[string][]TurnRef `json:"byStopReason"`
	Summary        Summary              `json:"summary"`
	Scenarios      []report.Result      `json:"scenarios"`
}

// NewResults builds the JSON document of a report.
func NewResults(rep report.Report) Results {
	res := Results{
		SchemaVersion:  report.SchemaVersion,
		StartedAt:      rep.StartedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		DurationMs:     rep.Duration.Milliseconds(),
		Interrupted:    rep.Interrupted,
		PolicyOverride: rep.PolicyOverride,
		ByStopReason:   map[string][]TurnRef{},
		Summary:        Summarize(rep),
		Scenarios:      rep.Scenarios,
	}
	if res.Scenarios == nil {
		res.Scenarios = []report.Result{}
	}
	for _, sc := range rep.Scenarios {
		for _, t := range sc.Turns {
			if t.StopReason == report.OutcomeSkipped {
				continue
			}
			res.ByStopReason[t.StopReason] = append(res.ByStopReason[t.StopReason], TurnRef{
				Scenario: sc.Name, Agent: sc.Agent.Name, Attempt: sc.Attempt, Retry: sc.Retry, Turn: t.Index,
			})
		}
	}
	return res
}

// Summarize counts the scenarios and turns of a report.
func Summarize(rep report.Report) Summary {
	s := Summary{Turns: map[string]int{}, DurationMs: rep.Duration.Milliseconds()}
	for _, sc := range rep.Scenarios {
		s.Allowed += sc.Allowed
		s.Denied += sc.Denied
		s.Warnings += len(sc.Warnings)
		for _, t := range sc.Turns {
			s.Turns[t.StopReason]++
		}
		if !sc.Verdict() {
			s.Retried++
			continue
		}
		if sc.Flaky {
			s.Flaky++
		}
		s.Scenarios++
		switch sc.Status {
		case report.StatusPassed:
			s.Passed++
		case report.StatusFailed:
			s.Failed++
		case report.StatusInterrupted:
			s.Interrupted++
			if sc.NotRun {
				s.NotRun++
			}
		default:
			s.Errored++
		}
	}
	s.PassRates = PassRates(rep)
	return s
}

// JSON writes the report as indented JSON.
func JSON(w io.Writer, rep report.Report) error {
	return WriteResults(w, NewResults(rep))
}

// WriteResults writes results as indented JSON, as JSON does.
func WriteResults(w io.Writer, res Results) error {
	// Indented on the way out: encoding/json's own indenting would make a
	// second copy of results that may hold megabytes of agent text. For the
	// same reason the long texts of turns are written from the strings
	// themselves, piece by piece, not marshalled with the rest (see
	// longTexts).
	in := newIndenter(w)
	lt, err := newLongTexts()
	if err != nil {
		return err
	}
	res.Scenarios = lt.swap(res.Scenarios)
	enc := json.NewEncoder(&splicer{w: in, lt: lt})
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return err
	}
	return in.Flush()
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
