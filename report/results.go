package report

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"
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
	// Retry is the result's retry (see Result.Retry).
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
	// Invalid counts the results with status invalid: attempts that
	// measured nothing (see report.Invalid).
	Invalid int `json:"invalid"`
	// Flaky counts the scenarios that passed on a retry (retries: N);
	// Retried counts the tries that errored or were invalid and were run
	// again, which Scenarios, Passed, Failed, Errored and Invalid leave
	// out.
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
// SchemaVersion): the report, with its turns keyed by stop reason and a
// summary.
type Results struct {
	SchemaVersion  int                  `json:"schemaVersion"`
	StartedAt      string               `json:"startedAt,omitempty"` // "" when not known (see NewResults)
	DurationMs     int64                `json:"durationMs"`
	Interrupted    bool                 `json:"interrupted,omitempty"`
	PolicyOverride string               `json:"policyOverride,omitempty"`
	BalancedBy     string               `json:"balancedBy,omitempty"`
	Agents         []string             `json:"agents,omitempty"`
	Dir            string               `json:"dir,omitempty"`
	ByStopReason   map[string][]TurnRef `json:"byStopReason"`
	Summary        Summary              `json:"summary"`
	Scenarios      []Result             `json:"scenarios"`
}

// NewResults builds the JSON document of a report.
func NewResults(rep Report) Results {
	res := Results{
		SchemaVersion:  SchemaVersion,
		StartedAt:      startedAt(rep.StartedAt),
		DurationMs:     rep.Duration.Milliseconds(),
		Interrupted:    rep.Interrupted,
		PolicyOverride: rep.PolicyOverride,
		BalancedBy:     rep.BalancedBy,
		Agents:         rep.Agents,
		Dir:            rep.Dir,
		ByStopReason:   map[string][]TurnRef{},
		Summary:        Summarize(rep),
		Scenarios:      rep.Scenarios,
	}
	if res.Scenarios == nil {
		res.Scenarios = []Result{}
	}
	for _, sc := range rep.Scenarios {
		for _, t := range sc.Turns {
			if t.StopReason == OutcomeSkipped {
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
func Summarize(rep Report) Summary {
	s := Summary{Turns: map[string]int{}, DurationMs: rep.Duration.Milliseconds()}
	for _, sc := range rep.Scenarios {
		s.Add(sc)
	}
	s.PassRates = PassRates(rep)
	return s
}

// Add counts the result r in s, as Summarize counts each result of a
// report: its turns, permissions and warnings, and its status unless it
// was retried (then it is counted in Retried). It leaves DurationMs and
// PassRates alone.
func (s *Summary) Add(r Result) {
	if s.Turns == nil {
		s.Turns = map[string]int{}
	}
	s.Allowed += r.Allowed
	s.Denied += r.Denied
	s.Warnings += len(r.Warnings)
	for _, t := range r.Turns {
		s.Turns[t.StopReason]++
	}
	if !r.Verdict() {
		s.Retried++
		return
	}
	if r.Flaky {
		s.Flaky++
	}
	s.Scenarios++
	switch r.Status {
	case StatusPassed:
		s.Passed++
	case StatusFailed:
		s.Failed++
	case StatusInterrupted:
		s.Interrupted++
		if r.NotRun {
			s.NotRun++
		}
	case StatusInvalid:
		s.Invalid++
	default:
		s.Errored++
	}
}

// Write writes the results of rep as JSON indented with two spaces, byte
// for byte as json.Encoder with SetIndent("", "  ") and SetEscapeHTML(false)
// writes them, but a field at a time (see jsonWriter): the text of a turn,
// which may be many megabytes, is never copied on its way out.
func Write(w io.Writer, rep Report) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	jw := &jsonWriter{w: bw}
	jw.str = json.NewEncoder(&jw.scratch)
	jw.str.SetEscapeHTML(false)
	jw.value(reflect.ValueOf(NewResults(rep)), "")
	if jw.err != nil {
		return jw.err
	}
	_ = bw.WriteByte('\n')
	return bw.Flush() // the first error of any write
}

// jsonWriter writes the results document. The fields of the document, of
// each scenario and of each turn (the walked types) are written one by one,
// and their strings a piece at a time; any other value is marshalled whole
// by json.Marshal, which would marshal the whole document into one
// buffer, which for a turn of a flood is another copy of its text (and,
// while the buffer grows, two).
type jsonWriter struct {
	w       *bufio.Writer // sticky: after an error it writes nothing more
	str     *json.Encoder // escapes the pieces of strings into scratch
	scratch bytes.Buffer
	err     error // why a value could not be marshalled
}

// walked are the types whose fields jsonWriter writes one by one.
var walked = map[reflect.Type]bool{reflect.TypeFor[Results](): true, reflect.TypeFor[Result](): true, reflect.TypeFor[TurnResult](): true}

// textPiece is how much of a string is escaped at a time.
const textPiece = 32 << 10

// value writes v, indent being the indentation of the line it starts on.
func (jw *jsonWriter) value(v reflect.Value, indent string) {
	switch {
	case v.Type() == reflect.TypeFor[string]():
		jw.string(v.String())
	case walked[v.Type()]:
		open := false
		for i := range v.NumField() {
			name, opts, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			f := v.Field(i)
			if name == "-" || opts == "omitempty" && empty(f) {
				continue
			}
			jw.next(&open, '{', indent)
			_, _ = jw.w.WriteString(`"` + name + `": `)
			jw.value(f, indent+"  ")
		}
		jw.end(open, '{', indent)
	case v.Kind() == reflect.Slice && walked[v.Type().Elem()]:
		if v.IsNil() {
			_, _ = jw.w.WriteString("null")
			return
		}
		open := false
		for i := range v.Len() {
			jw.next(&open, '[', indent)
			jw.value(v.Index(i), indent+"  ")
		}
		jw.end(open, '[', indent)
	default:
		jw.scratch.Reset()
		enc := json.NewEncoder(&jw.scratch)
		enc.SetEscapeHTML(false)
		enc.SetIndent(indent, "  ")
		if err := enc.Encode(v.Interface()); err != nil {
			jw.err = cmp.Or(jw.err, err)
			return
		}
		_, _ = jw.w.Write(bytes.TrimSuffix(jw.scratch.Bytes(), []byte("\n")))
	}
}

// next starts a member of an object or an element of an array: its
// opening bracket before the first, a comma before the others, then a new
// line.
func (jw *jsonWriter) next(open *bool, bracket byte, indent string) {
	if *open {
		_ = jw.w.WriteByte(',')
	} else {
		_ = jw.w.WriteByte(bracket)
		*open = true
	}
	_, _ = jw.w.WriteString("\n" + indent + "  ")
}

// end closes an object or array ('{' + 2 is '}', '[' + 2 is ']'); an
// empty one stays on its line.
func (jw *jsonWriter) end(open bool, bracket byte, indent string) {
	if open {
		_, _ = jw.w.WriteString("\n" + indent)
	} else {
		_ = jw.w.WriteByte(bracket)
	}
	_ = jw.w.WriteByte(bracket + 2)
}

// string writes s as encoding/json writes a string, a piece at a time.
// Pieces end before a byte that starts a UTF-8 sequence, so that invalid
// UTF-8 is replaced as it would be in one piece.
func (jw *jsonWriter) string(s string) {
	_ = jw.w.WriteByte('"')
	for len(s) > 0 {
		k := min(len(s), textPiece)
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		jw.scratch.Reset()
		_ = jw.str.Encode(s[:k]) // a string always encodes
		b := jw.scratch.Bytes()
		_, _ = jw.w.Write(b[1 : len(b)-2]) // without the quotes and newline
		s = s[k:]
	}
	_ = jw.w.WriteByte('"')
}

// empty reports whether omitempty leaves v out, as encoding/json decides
// it.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}

// upgradeV1 reads results of schemaVersion 1 as the current version
// writes them: a scenario that never started (notRun, status error then),
// or one acprun cut short by cancelling a turn for an interrupt, the run's
// --timeout or --fail-fast (whatever its status then, passed included),
// is interrupted; the summary is counted again.
func upgradeV1(res *Results) {
	for i := range res.Scenarios {
		sc := &res.Scenarios[i]
		if sc.NotRun {
			sc.Status = StatusInterrupted
			continue
		}
		for _, t := range sc.Turns {
			if !ExternalCause(t.CancelCause) {
				continue
			}
			cut := fmt.Sprintf("acprun cancelled turn %d after %s", t.Index, t.CancelCause)
			if sc.Error != "" {
				cut += " (" + sc.Error + ")"
			}
			sc.Status, sc.Error, sc.StartFailed = StatusInterrupted, cut, false
			break
		}
	}
	res.Summary = Summarize(res.Report())
}

// startedAt is how the results write the time a run started: "" for the
// zero time, a start not known (results written by hand, with no
// startedAt, or merged from such), rather than year 1.
func startedAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// Report turns results back into the report they were made from, as far as
// JSON keeps it: durations have millisecond precision, and an unparsable
// startedAt is the zero time.
func (r Results) Report() Report {
	started, _ := time.Parse(time.RFC3339Nano, r.StartedAt)
	return Report{
		SchemaVersion:  r.SchemaVersion,
		StartedAt:      started,
		Duration:       time.Duration(r.DurationMs) * time.Millisecond,
		Interrupted:    r.Interrupted,
		PolicyOverride: r.PolicyOverride,
		BalancedBy:     r.BalancedBy,
		Agents:         r.Agents,
		Dir:            r.Dir,
		Scenarios:      r.Scenarios,
	}
}
