package htmlreport

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

var (
	//go:embed page.html.tmpl
	pageSource string
	//go:embed style.css
	styleSource string
	//go:embed report.js
	scriptSource string
)

// page parses the template of the whole page once, when the first report
// is written: parsing it at init would cost every acprun command a
// millisecond of startup.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(funcs).Parse(pageSource))
})

// Options says what besides the results goes into the page.
type Options struct {
	// Sources names the results files the page was made from, shown in its
	// header.
	Sources []string
	// Transcripts finds the transcript of a result: it returns the path
	// to read, or "" when the result has none. Nil: no transcript viewer.
	Transcripts func(report.Result) string
	// TranscriptBytes caps what is embedded of each transcript
	// (DefaultTranscriptBytes, say); the page says what was cut. 0
	// embeds none of it: the viewer names the file and counts its
	// messages.
	TranscriptBytes int64
	// PageTranscriptBytes caps the transcripts embedded in the whole page
	// (0: DefaultPageTranscriptBytes).
	PageTranscriptBytes int64
	// Redactor, when set, is applied to every string of the results and
	// transcripts before they are rendered.
	Redactor *redact.Redactor
	// Now is the time the page says it was made (zero: not shown).
	Now time.Time
	// Warn, when set, is told of each transcript file that is not
	// embedded because it is not a transcript (a line of it is not a
	// transcript record, or it is a symbolic link or not a regular file):
	// the message names the file and says what is wrong. The page says
	// it too.
	Warn func(msg string)
}

// DefaultTranscriptBytes is the default cap on the transcript messages
// embedded per scenario.
const DefaultTranscriptBytes = 2 << 20

// DefaultPageTranscriptBytes caps the transcript messages embedded in one page,
// so that a run of many scenarios makes a page a browser can open. The
// budget goes to the scenarios in page order, failures first; the
// transcripts past it are counted, not embedded.
const DefaultPageTranscriptBytes = 64 << 20

// Write renders the results of rep as one HTML page to w, writing it as
// it is rendered: it never holds the page, nor a copy of a long text,
// whole. What it wrote before an error stays written: the caller decides
// what a failure leaves of it (acprun writes it with outfile.WriteWhole).
func Write(w io.Writer, rep report.Report, opts Options) error {
	res := report.NewResults(rep)
	if opts.PageTranscriptBytes <= 0 {
		opts.PageTranscriptBytes = DefaultPageTranscriptBytes
	}
	opts.Redactor.Value(&res)
	p := build(res, opts)
	bw := bufio.NewWriterSize(w, 64<<10)
	t := template.Must(page().Clone()) // never executed: Clone cannot fail
	t.Funcs(template.FuncMap{"long": func(s string) (string, error) { return "", writeText(bw, s) }})
	if err := t.Execute(bw, p); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return bw.Flush()
}

// writeText writes s, a text of any length (an agent's), to w escaped as
// html/template escapes text in an element, where the page's template
// calls long: a run of plain characters at a time, without a copy.
// Printed by the template, a text is copied escaped, then copied again
// (text/template's fmt), and each copy, as large as the text, is garbage
// that lets the heap grow by as much again before it is collected.
func writeText(w *bufio.Writer, s string) error {
	plain := 0
	for i := 0; i < len(s); i++ {
		// Byte by byte: no byte of a multi-byte character, nor of what is
		// not UTF-8, is one of these.
		esc := htmlEscapes[s[i]]
		if esc == "" {
			continue
		}
		w.WriteString(s[plain:i])
		w.WriteString(esc)
		plain = i + 1
	}
	_, err := w.WriteString(s[plain:])
	return err
}

// htmlEscapes are html/template's escapes of text in an element, by byte.
var htmlEscapes = [256]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

// view is what the page template renders.
type view struct {
	Sources        []string
	Generated      string
	StartedAt      string
	DurationMs     int64
	Interrupted    bool
	PolicyOverride string
	Summary        report.Summary
	// Cut counts the results cut short (interrupted, but started) and
	// NotRun those never started, apart, as the summary's totals line
	// counts them (Summary.Interrupted counts both).
	Cut, NotRun int
	Bars        []bar
	ChartHeight int
	Matrix      *matrix
	Scenarios   []scenarioView
	Statuses    []string
	Tags        []string
	Agents      []string
	Style       template.CSS
	Script      template.JS
	CSP         string
}

// bar is one stop reason of the chart.
type bar struct {
	Reason string
	Label  string // Reason, cut to fit beside the bar
	Count  int
	Width  int // of 400
	Y      int
	Class  string
}

// matrix is the scenario × agent table of pass rates.
type matrix struct {
	Agents []string
	Rows   []matrixRow
}

type matrixRow struct {
	Scenario string
	File     string
	Cells    []matrixCell
}

type matrixCell struct {
	Present bool
	Text    string
	Detail  string
	Class   string
}

// scenarioView is one result with what the template derives from it.
type scenarioView struct {
	ID    string
	Order int
	R     report.Result
	// Status is the card's status, its badge and its filter's value: the
	// result's, or rerun for a try that ran again (retries:), which is no
	// verdict, as the lines and the step summary say.
	Status     string
	Agent      string
	TagsAttr   string
	Turns      []turnView
	Diff       []diffLine
	Transcript *transcriptView
}

type turnView struct {
	T     report.TurnResult
	Calls []callView
	Open  bool
}

type callView struct {
	C       report.ToolCall
	Content []contentItem
}

func build(res report.Results, opts Options) view {
	v := view{
		Sources:        opts.Sources,
		StartedAt:      res.StartedAt,
		DurationMs:     res.DurationMs,
		Interrupted:    res.Interrupted,
		PolicyOverride: res.PolicyOverride,
		Summary:        res.Summary,
		Cut:            res.Summary.Interrupted - res.Summary.NotRun,
		NotRun:         res.Summary.NotRun,
		Statuses:       []string{string(report.StatusFailed), string(report.StatusError), string(report.StatusInvalid), string(report.StatusInterrupted), string(report.StatusPassed)},
		Style:          template.CSS(styleSource),
		Script:         template.JS(scriptSource),
		// Nothing is loaded, and only the page's own script and style (by
		// their hashes) run.
		CSP: fmt.Sprintf("default-src 'none'; script-src '%s'; style-src '%s'; img-src data:; base-uri 'none'; form-action 'none'",
			hash(scriptSource), hash(styleSource)),
	}
	if !opts.Now.IsZero() {
		v.Generated = opts.Now.UTC().Format(time.RFC3339)
	}
	v.Bars, v.ChartHeight = bars(res.Summary.Turns)
	v.Matrix = passMatrix(res.Summary.PassRates)
	tags, agents := map[string]bool{}, map[string]bool{}
	for i, r := range res.Scenarios {
		sv := scenarioView{ID: fmt.Sprintf("s%d", i+1), Order: i, R: r, Status: cardStatus(r), Agent: agentLabel(r.Agent)}
		if (sv.Status == statusRerun || sv.Status == statusNotRun) && !slices.Contains(v.Statuses, sv.Status) {
			v.Statuses = append(v.Statuses, sv.Status)
		}
		for _, t := range r.Tags {
			tags[t] = true
		}
		sv.TagsAttr = strings.Join(r.Tags, "\n")
		if sv.Agent != "" {
			agents[sv.Agent] = true
		}
		for _, t := range r.Turns {
			tv := turnView{T: t, Open: len(t.Failures) > 0 || t.Error != "" || r.Status != report.StatusPassed}
			for _, c := range t.ToolCalls {
				tv.Calls = append(tv.Calls, callView{C: c, Content: toolContent(c.Content)})
			}
			sv.Turns = append(sv.Turns, tv)
		}
		if r.Workspace != nil && r.Workspace.Diff != "" {
			sv.Diff = gitDiffLines(r.Workspace.Diff)
		}
		v.Scenarios = append(v.Scenarios, sv)
	}
	// Failures first: failed, errored and invalid results before passed ones, each
	// group in the run's order (the page can switch back to run order).
	slices.SortStableFunc(v.Scenarios, func(a, b scenarioView) int {
		return cmp.Compare(rank(a.Status), rank(b.Status))
	})
	if opts.Transcripts != nil {
		budget := opts.PageTranscriptBytes
		warned := map[string]bool{}
		for i := range v.Scenarios {
			sv := &v.Scenarios[i]
			path := opts.Transcripts(sv.R)
			if path == "" {
				continue
			}
			sv.Transcript = readTranscript(path, min(opts.TranscriptBytes, budget), opts.Redactor)
			if sv.Transcript.NotTranscript && opts.Warn != nil && !warned[path] {
				warned[path] = true
				opts.Warn(sv.Transcript.Err)
			}
			sv.Transcript.Off = opts.TranscriptBytes <= 0 && sv.Transcript.Total > 0
			sv.Transcript.Skipped = !sv.Transcript.Off && budget <= 0 && sv.Transcript.Total > 0
			budget -= sv.Transcript.ShownBytes
		}
	}
	v.Tags = slices.Sorted(maps.Keys(tags))
	v.Agents = slices.Sorted(maps.Keys(agents))
	return v
}

// statusRerun is the card status of a try that ran again, and
// statusNotRun that of a scenario that never started (cardStatus).
const (
	statusRerun  = "rerun"
	statusNotRun = "not-run"
)

// cardStatus is the status r's card shows: its own, rerun for a try whose
// verdict the next try's replaced (Result.Verdict), or not-run for a
// scenario that never started (interrupted, but not cut short), as the
// summary counts them.
func cardStatus(r report.Result) string {
	switch {
	case !r.Verdict():
		return statusRerun
	case r.NotRun:
		return statusNotRun
	}
	return string(r.Status)
}

// rank orders card statuses failures first (invalid ones with them: what
// they did not measure needs a look), then those cut short and the tries
// that ran again (no verdict), then passes.
func rank(s string) int {
	switch s {
	case string(report.StatusPassed):
		return 2
	case string(report.StatusInterrupted), statusNotRun, statusRerun:
		return 1
	}
	return 0
}

// agentLabel names the agent a result ran against: the named agent, else
// what initialize said.
func agentLabel(a report.AgentInfo) string {
	if a.Name != "" {
		return a.Name
	}
	return a.InfoName
}

// bars lays out the stop-reason chart, most frequent first.
func bars(turns map[string]int) ([]bar, int) {
	var out []bar
	most := 0
	for reason, n := range turns {
		label := cmp.Or(reason, "no stop reason") // results written by hand may have none
		if r := []rune(label); len(r) > 22 {
			label = string(r[:21]) + "…"
		}
		out = append(out, bar{Reason: reason, Label: label, Count: n, Class: reasonClass(reason)})
		most = max(most, n)
	}
	slices.SortFunc(out, func(a, b bar) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Reason, b.Reason))
	})
	for i := range out {
		out[i].Width = max(2, out[i].Count*400/max(most, 1))
		out[i].Y = i * 24
	}
	return out, len(out) * 24
}

// reasonClass colours a stop reason: end_turn is good, cancellations and
// limits are warnings, errors are bad.
func reasonClass(reason string) string {
	switch reason {
	case "end_turn":
		return "ok"
	case report.OutcomeError, report.OutcomeAgentExited, report.OutcomeUnresponsive, "refusal":
		return "bad"
	case report.OutcomeSkipped:
		return "muted"
	}
	return "warn"
}

// passMatrix lays the pass rates out as scenarios × agents.
func passMatrix(rates []report.PassRate) *matrix {
	if len(rates) == 0 {
		return nil
	}
	type rowKey struct{ file, name string }
	m := &matrix{}
	agentIdx := map[string]int{}
	rowIdx := map[rowKey]int{}
	cells := map[rowKey]map[string]report.PassRate{}
	for _, p := range rates {
		if _, ok := agentIdx[p.Agent]; !ok {
			agentIdx[p.Agent] = len(m.Agents)
			m.Agents = append(m.Agents, p.Agent)
		}
		k := rowKey{p.File, p.Scenario}
		if _, ok := rowIdx[k]; !ok {
			rowIdx[k] = len(m.Rows)
			m.Rows = append(m.Rows, matrixRow{Scenario: p.Scenario, File: p.File})
			cells[k] = map[string]report.PassRate{}
		}
		cells[k][p.Agent] = p
	}
	for i, row := range m.Rows {
		for _, a := range m.Agents {
			p, ok := cells[rowKey{row.File, row.Scenario}][a]
			c := matrixCell{Present: ok}
			if ok {
				rate, minimum := p.Percents()
				c.Text = fmt.Sprintf("%d/%d (%s)", p.Passed, p.Attempts, rate)
				if p.Attempts == 0 {
					c.Text = "no verdict" // every attempt interrupted or invalid
				}
				if n := p.Attempts; n > 1 {
					c.Detail = fmt.Sprintf("pass@%d %.2f · pass^%d %.2f", n, p.PassAtK.At(n), n, p.PassHatK.At(n))
				}
				for _, n := range p.NoVerdict() {
					c.Detail = strings.TrimPrefix(c.Detail+" · "+n, " · ")
				}
				switch {
				case p.Met != nil: // judged by its minimum pass rate
					verdict, class := "below", "bad"
					if *p.Met {
						verdict, class = "met", "ok"
					}
					c.Detail = strings.TrimPrefix(c.Detail+fmt.Sprintf(" · min %s: %s", minimum, verdict), " · ")
					c.Class = class
				case p.Attempts == 0:
					c.Class = "warn"
				case p.Passed == p.Attempts:
					c.Class = "ok"
				case p.Passed == 0:
					c.Class = "bad"
				default:
					c.Class = "warn"
				}
			}
			m.Rows[i].Cells = append(m.Rows[i].Cells, c)
		}
	}
	for i, a := range m.Agents {
		if a == "" {
			m.Agents[i] = "pass rate"
		}
	}
	return m
}

// hash names s in a Content-Security-Policy: its SHA-256, in base64.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// funcs are the template's helpers.
var funcs = template.FuncMap{
	"ms":     formatMs,
	"pretty": prettyJSON,
	"compact": func(raw json.RawMessage) string {
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return string(raw)
		}
		return b.String()
	},
	// long prints a long text in an element's content (a <pre>), never in
	// an attribute, script or URL: Write binds it to writeText, which
	// writes it to the page's writer escaped as element text.
	"long":  func(string) (string, error) { return "", errors.New("long: not bound to a page") },
	"join":  strings.Join,
	"deref": func(p *int) int { return *p },
	// verdict is a command's: "passed", "failed", or "" for one that has
	// none (setup, teardown). A *bool in a template is true whenever it
	// is not nil, false included.
	"verdict": func(p *bool) string {
		switch {
		case p == nil:
			return ""
		case *p:
			return "passed"
		}
		return "failed"
	},
	"changes": changes,
	"float":   func(f float64) string { return fmt.Sprintf("%g", f) },
	"shortT":  func(t int64) string { return fmt.Sprintf("%d.%03ds", t/1000, t%1000) },
	"list":    func(v ...any) []any { return v },
	"plural":  plural,
	"sortedUpdates": func(m map[string]int) []string {
		out := make([]string, 0, len(m))
		for k, n := range m {
			out = append(out, fmt.Sprintf("%s %d", k, n))
		}
		slices.Sort(out)
		return out
	},
}

// changes says what a workspace's card shows of the agent's changes:
// "unknown" when they could not be listed (the lists are null), "none"
// when it changed no file (the lists are known and empty), "" when it
// changed some, which the card lists.
func changes(w *report.WorkspaceResult) string {
	switch {
	case w.Created == nil || w.Modified == nil || w.Deleted == nil:
		return "unknown"
	case len(w.Created)+len(w.Modified)+len(w.Deleted) == 0:
		return "none"
	}
	return ""
}

// formatMs formats milliseconds as a short duration (850ms, 12.3s, 2m05s).
func formatMs(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return d.Round(time.Second).String()
}

// maxRawJSON caps each rawInput, rawOutput or unknown update shown.
const maxRawJSON = 64 << 10

// prettyJSON indents raw JSON for display, cut at maxRawJSON.
func prettyJSON(raw json.RawMessage) string { return cut(indentJSON(raw), maxRawJSON) }

// indentJSON indents raw JSON; what is not JSON stays as it is.
func indentJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// cut shortens s to at most n bytes (on a rune boundary), saying how much
// was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(cutBytes(s, n))
	return s[:i] + fmt.Sprintf("\n… (%d more %s not shown)", len(s)-i, plural(len(s)-i, "byte", "bytes"))
}

// plural is one when n is 1, else many: "1 scenario", "2 scenarios".
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
