package report

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	json "github.com/go-json-experiment/json/v1"
)

// PassRate is how often one scenario passed against one agent over its
// attempts (--repeat). An interrupted or invalid attempt is not a sample:
// it is counted in Interrupted or Invalid and left out of Attempts, Passed
// and the rates. A scenario none of whose attempts gave a verdict has
// Attempts 0, Rate 0 and no pass@k or pass^k: it has no rate, and a
// minimum is not met.
type PassRate struct {
	Scenario string `json:"scenario"`
	// File is the scenario's file: two scenarios of one name in different
	// files are different rows.
	File     string  `json:"file"`
	Agent    string  `json:"agent,omitempty"`
	Attempts int     `json:"attempts"`
	Passed   int     `json:"passed"`
	Rate     float64 `json:"passRate"` // passed / attempts, which is also pass@1; 0 without attempts
	// PassAtK is the unbiased estimate of pass@k, the chance that at
	// least one of k attempts drawn from these passes, for k = 1..Attempts.
	PassAtK ByK `json:"passAtK"`
	// PassHatK is the estimate of pass^k, the chance that all k attempts
	// drawn from these pass, for k = 1..Attempts.
	PassHatK ByK `json:"passHatK"`
	// Interrupted counts the attempts cut short or not run (status
	// interrupted), which have no verdict.
	Interrupted int `json:"interrupted,omitempty"`
	// NotRun counts the attempts that never started, of those counted in
	// Interrupted, as Summary.NotRun does.
	NotRun int `json:"notRun,omitempty"`
	// Invalid counts the attempts that measured nothing (status invalid),
	// which have no verdict either.
	Invalid int `json:"invalid,omitempty"`
	// MinPassRate is the rate the attempts had to reach (the results'
	// minPassRate), and Met says whether Rate reached it; 0 and nil when
	// none was asked.
	MinPassRate float64 `json:"minPassRate,omitempty"`
	Met         *bool   `json:"minPassRateMet,omitempty"`
}

// ByK holds one estimate per k: ByK[0] is for k = 1. In JSON it is an
// object keyed by k in increasing order ({"1": 0.4, "2": 0.7, …}), its
// values rounded to 4 decimals.
type ByK []float64

// At returns the estimate for k, or NaN when there is none.
func (b ByK) At(k int) float64 {
	if k < 1 || k > len(b) {
		return math.NaN()
	}
	return b[k-1]
}

// MarshalJSON writes b as an object with its keys in numeric order
// ("2" before "10"), which encoding/json does not do for maps.
func (b ByK) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, v := range b {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `"%d":%s`, i+1, FormatRate(v))
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSONFrom reads the object MarshalJSON writes. It also accepts
// the single number older versions wrote for passAtK (pass@n only), which
// it drops: the summary is computed again from the scenarios wherever it
// is used (acprun merge). A value it does not take is refused at its path
// in the document ("summary.passRates.0.passAtK"), as Read refuses every
// other.
func (b *ByK) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	at := strings.Join(slices.Collect(dec.StackPointer().Tokens()), ".")
	data, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if data.Kind() != '{' {
		var old *float64
		if err := json.Unmarshal(data, &old); err != nil {
			return valueError(at, fmt.Sprintf("not acprun results: %s: want an object keyed by k (\"1\", \"2\"…), got %s", at, gotKind(err)))
		}
		*b = nil
		return nil
	}
	var m map[string]jsontext.Value
	if err := json.Unmarshal(data, &m); err != nil {
		return err // not reached: data is an object
	}
	out := make(ByK, len(m))
	for key, v := range m {
		k, err := strconv.Atoi(key)
		if err != nil || k < 1 || k > len(m) {
			return valueError(at, fmt.Sprintf("not acprun results: %s: key %q: want k, \"1\" to \"%d\"", at, key, len(m)))
		}
		if err := json.Unmarshal(v, &out[k-1]); err != nil {
			return valueError(at+"."+key, fmt.Sprintf("not acprun results: %s.%s: want a number, got %s", at, key, gotKind(err)))
		}
	}
	*b = out
	return nil
}

// gotKind is the JSON value json's error err says it found ("string",
// "array"), as a type error of Read says it.
func gotKind(err error) string {
	if typ, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return typ.Value
	}
	return err.Error()
}

// FormatRate formats a pass rate or estimate as the results hold it:
// rounded to 4 decimals, as short as it goes ("0.7", "1"); null when it is
// not a number.
func FormatRate(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
}

// Percents formats p's rate and its minimum (0 when none) as percentages
// for people, alike: rounded to 2 decimals, as short as they go ("80%",
// "66.67%"), or to as many more as it takes for a rate below its minimum
// to read below it (2/3 against a minimum of 0.6667: "66.667%" and
// "66.67%").
func (p PassRate) Percents() (rate, minimum string) { return p.alike(2, percent) }

// Fractions formats p's rate and its minimum (0 when none) as fractions,
// as the results hold a rate (FormatRate: rounded to 4 decimals, as short
// as they go), for machines that compare them (JUnit's properties): to as
// many more decimals as it takes for a rate below its minimum to read
// below it (2/3 against a minimum of 0.6667: "0.66667" and "0.6667"), as
// Percents does.
func (p PassRate) Fractions() (rate, minimum string) { return p.alike(4, fraction) }

// alike formats p's rate and its minimum with format, rounded to first
// decimals, or to more when a rate below its minimum would read equal to
// it; up to 13 more, past which a float64 holds no more digits to show.
func (p PassRate) alike(first int, format func(f float64, d int) string) (rate, minimum string) {
	for d := first; ; d++ {
		rate, minimum = format(p.Rate, d), format(p.MinPassRate, d)
		if p.Met == nil || *p.Met || rate != minimum || d == first+13 {
			return rate, minimum
		}
	}
}

// NoVerdict counts the attempts of p that gave no verdict, for people, as
// the run's totals count them: those cut short, those not run and those
// invalid, each when there are some ("1 interrupted", "2 not run").
func (p PassRate) NoVerdict() []string {
	var counts []string
	if n := p.Interrupted - p.NotRun; n > 0 {
		counts = append(counts, fmt.Sprintf("%d interrupted", n))
	}
	if p.NotRun > 0 {
		counts = append(counts, fmt.Sprintf("%d not run", p.NotRun))
	}
	if p.Invalid > 0 {
		counts = append(counts, fmt.Sprintf("%d invalid", p.Invalid))
	}
	return counts
}

// percent formats the share f as a percentage rounded to d decimals.
func percent(f float64, d int) string { return fraction(f*100, d) + "%" }

// fraction formats f rounded to d decimals, as short as it goes.
func fraction(f float64, d int) string {
	scale := math.Pow10(d)
	return strconv.FormatFloat(math.Round(f*scale)/scale, 'f', -1, 64)
}

// PassAtK is the unbiased estimator of pass@k for c passes in n attempts:
// 1 - C(n-c, k)/C(n, k), the chance that a draw of k of the attempts
// (without replacement) holds at least one pass. It is computed as a
// product, so large n neither overflows nor loses precision, and is exactly
// 0 without passes and exactly 1 when fewer than k attempts failed. It is
// NaN unless 1 <= k <= n and 0 <= c <= n.
func PassAtK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	return 1 - drawAll(n-c, n, k)
}

// PassHatK is the estimator of pass^k for c passes in n attempts:
// C(c, k)/C(n, k), the chance that a draw of k of the attempts (without
// replacement) holds only passes. It is exactly 1 when every attempt
// passed and exactly 0 with fewer than k passes. It is NaN unless
// 1 <= k <= n and 0 <= c <= n.
func PassHatK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	return drawAll(c, n, k)
}

// drawAll is C(m, k)/C(n, k), for 1 <= k <= n and 0 <= m <= n: the chance
// that a draw of k of n (without replacement) holds only ones of m. It is
// Π_{i<k} (m-i)/(n-i): exactly 1 when m is n (each factor is 1), and
// exactly 0 when m < k (a factor would be 0).
func drawAll(m, n, k int) float64 {
	if m < k {
		return 0
	}
	p := 1.0
	for i := range k {
		p *= float64(m-i) / float64(n-i)
	}
	return p
}

// passRateKey is what PassRates groups results by.
type passRateKey struct{ file, name, agent string }

// PassRates groups a report's results by scenario (file and name) and
// agent, in the report's order. It returns nil unless there is something
// to compare: some scenario ran more than once (--repeat) or against more
// than one agent (an --agent matrix). A scenario that names its one agent
// is not a comparison. Interrupted and invalid attempts are not samples: a
// scenario and agent none of whose attempts gave a verdict has no rate,
// but keeps its row (Attempts 0, its Interrupted and Invalid counted), and
// a minimum it had is not met: a scenario that was selected does not
// drop out of the comparison because no attempt of it finished.
func PassRates(rep Report) []PassRate {
	idx := map[passRateKey]int{}
	var out []PassRate
	agents := map[passRateKey]int{} // scenario (no agent) → how many agents it ran against
	interesting := false
	for _, r := range rep.Scenarios {
		if !r.Verdict() {
			continue // a retry is not another sample: its attempt counts once
		}
		k := passRateKey{r.File, r.Name, r.Agent.Name}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, PassRate{Scenario: r.Name, File: r.File, Agent: r.Agent.Name})
			agents[passRateKey{file: r.File, name: r.Name}]++
		}
		switch r.Status {
		case StatusInterrupted:
			out[i].Interrupted++
			if r.NotRun {
				out[i].NotRun++
			}
		case StatusInvalid:
			out[i].Invalid++
		case StatusPassed:
			out[i].Passed++
			out[i].Attempts++
		default:
			out[i].Attempts++
		}
		out[i].MinPassRate = cmp.Or(out[i].MinPassRate, r.MinPassRate)
		// Something to compare: attempts, agents, or a rate with its minimum.
		interesting = interesting || r.Attempt > 1 || out[i].Attempts+out[i].Interrupted+out[i].Invalid > 1 ||
			agents[passRateKey{file: r.File, name: r.Name}] > 1 || r.MinPassRate > 0
	}
	if !interesting {
		return nil
	}
	for i := range out {
		p := &out[i]
		n, c := p.Attempts, p.Passed
		if n > 0 {
			p.Rate = float64(c) / float64(n)
		}
		p.PassAtK, p.PassHatK = make(ByK, n), make(ByK, n)
		for k := 1; k <= n; k++ {
			p.PassAtK[k-1] = PassAtK(n, c, k)
			p.PassHatK[k-1] = PassHatK(n, c, k)
		}
		if p.MinPassRate > 0 {
			met := n > 0 && p.Rate >= p.MinPassRate
			p.Met = &met
		}
	}
	return out
}
