package htmlreport_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
)

// hostile is agent text that would run script if it reached the page
// unescaped, in any context: element content, attribute, script, URL.
const hostile = `</script><script>alert(1)</script><img src=x onerror=alert(2)>` +
	`<a href="javascript:alert(3)">x</a>"'><svg onload=alert(4)>` + "\u2028\u2029</style>"

func intp(n int) *int { return &n }

// sample is a run with a failed, an errored and a passed scenario, the
// failed one's agent output hostile.
func sample() report.Report {
	rep := report.Report{
		SchemaVersion: report.SchemaVersion,
		Scenarios: []report.Result{
			{
				Name: "ok-first", File: "a.yaml", Line: 1, Tags: []string{"smoke"}, Status: report.StatusPassed,
				Agent: report.AgentInfo{Name: "claude", Command: []string{"claude-acp"}},
				Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn", Text: "hello"}},
			},
			{
				Name: "hostile " + hostile, File: "b.yaml", Line: 7, Tags: []string{"evil" + hostile}, Status: report.StatusFailed,
				Agent:    report.AgentInfo{Name: "gemini" + hostile, Command: []string{"gemini", hostile}},
				Failures: []string{"turn 1: b.yaml:9:5: text does not contain \"done\""},
				Warnings: []string{"warn " + hostile},
				Turns: []report.TurnResult{{
					Index: 1, Prompt: "do it", StopReason: "end_turn" + hostile,
					Text: "text " + hostile, Thoughts: "thought " + hostile,
					Plan: []report.PlanEntry{{Content: "plan " + hostile, Priority: "high", Status: "pending"}},
					ToolCalls: []report.ToolCall{{
						ID: "c1", Title: "title " + hostile, Name: "Write" + hostile, Kind: "edit", Status: "completed", Announced: true,
						LateKind: "delete", LateTitle: "late title " + hostile,
						RawInput: json.RawMessage(`{"cmd":` + quote(hostile) + `}`),
						Content: json.RawMessage(`[{"type":"diff","path":` + quote("p"+hostile) + `,"oldText":"a\nb\nc\n","newText":"a\n` +
							strings.Trim(quote(hostile), `"`) + `\nc\n"},{"type":"content","content":{"type":"text","text":` + quote("out "+hostile) + `}}]`),
					}},
					Permissions: []report.Permission{{
						ToolCallID: "c1", Title: "perm " + hostile, Kind: "edit", Name: "Write", Decision: "deny",
						Rule: "b.yaml:12", OptionID: "reject", Outcome: "selected", Reason: "deny rule b.yaml:12 matched",
					}},
					ClientRequests: []report.ClientRequest{{Method: "fs/write_text_file", Path: "/w/" + hostile, Refused: "outside the roots"}},
					Notices:        []report.Notice{{Severity: "warning" + hostile, Title: "MCP server unavailable", Description: "desc " + hostile, Late: true}},
					Elicitations: []report.Elicitation{
						{Mode: "form", Message: "Which branch? " + hostile, Fields: []string{"branch"}, Action: "accept", Content: json.RawMessage(`{ "branch": "main" }`)},
						{Mode: "form", Message: "Deploy?", Fields: []string{"env"}, Action: "decline", Reason: "no answer for the required field env"},
					},
					Usage:     &report.Usage{InputTokens: 1200, OutputTokens: 34},
					LateUsage: &report.Usage{Cost: 5, Currency: "USD"},
					Failures:  []string{"b.yaml:9:5: text does not contain \"done\""},
				}},
			},
			{
				Name: "broken", File: "c.yaml", Line: 2, Status: report.StatusError, Error: "agent exited", ExitCode: intp(3),
				Agent: report.AgentInfo{Name: "claude", Command: []string{"claude-acp"}},
				Turns: []report.TurnResult{{Index: 1, Prompt: "x", StopReason: "agent_exited"}},
			},
		},
	}
	return rep
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func render(t *testing.T, rep report.Report, opts htmlreport.Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := htmlreport.Write(&buf, rep, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestHostileTextIsEscaped(t *testing.T) {
	page := render(t, sample(), htmlreport.Options{})
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d <script elements, want the page's own only", n)
	}
	if n := strings.Count(page, "</script>"); n != 1 {
		t.Errorf("%d </script> in the page, want 1", n)
	}
	for _, bad := range []string{"<img", "<svg onload", "<a href=\"javascript:", "</style><"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, a := range attributes(page) {
		if strings.HasPrefix(a[0], "on") || strings.HasPrefix(strings.TrimSpace(strings.ToLower(a[1])), "javascript:") {
			t.Errorf("attribute %s=%q in the page", a[0], a[1])
		}
	}
	// The text is there, as text.
	if !strings.Contains(page, "text &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;") {
		t.Error("the hostile turn text is not shown escaped")
	}
	if !strings.Contains(page, "title &lt;/script&gt;") {
		t.Error("the hostile tool call title is not shown escaped")
	}
}

func TestCSPAllowsOnlyThePagesOwnScriptAndStyle(t *testing.T) {
	page := render(t, sample(), htmlreport.Options{})
	csp := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("no Content-Security-Policy")
	}
	policy := html.UnescapeString(csp[1])
	for _, want := range []string{"default-src 'none'", "base-uri 'none'"} {
		if !strings.Contains(policy, want) {
			t.Errorf("policy %q lacks %q", policy, want)
		}
	}
	for _, el := range []string{"script", "style"} {
		m := regexp.MustCompile(`(?s)<` + el + `>(.*?)</` + el + `>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no <%s>", el)
		}
		sum := sha256.Sum256([]byte(m[1]))
		want := fmt.Sprintf("%s-src 'sha256-%s'", el, base64.StdEncoding.EncodeToString(sum[:]))
		if !strings.Contains(policy, want) {
			t.Errorf("policy %q does not allow the page's <%s> (want %s)", policy, el, want)
		}
	}
	if strings.Contains(policy, "unsafe-inline") {
		t.Errorf("policy %q allows inline script or style", policy)
	}
}

func TestSelfContained(t *testing.T) {
	page := render(t, sample(), htmlreport.Options{})
	ext := regexp.MustCompile(`(?i)<(script|link|img|iframe|object|embed|source|audio|video)\b[^>]*\b(src|href)\s*=`)
	if m := ext.FindAllString(page, -1); len(m) > 0 {
		t.Errorf("the page loads resources: %q", m)
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)`).FindAllString(page, -1); len(m) > 0 {
		t.Errorf("links to the network: %q", m)
	}
	if strings.Contains(page, "@import") || strings.Contains(page, "url(") {
		t.Error("the style loads something")
	}
}

// sectionIDs returns the scenario sections' names in page order.
func sectionNames(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<section class="scenario [a-z-]+" id="s\d+" data-status="([a-z-]+)"`).FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestFailuresFirst(t *testing.T) {
	page := render(t, sample(), htmlreport.Options{})
	got := strings.Join(sectionNames(page), ",")
	if want := "failed,error,passed"; got != want {
		t.Errorf("sections in order %s, want %s", got, want)
	}
	// The run's order is kept for the page's "run order" switch.
	if !regexp.MustCompile(`id="s1" data-status="passed" data-order="0"`).MatchString(page) {
		t.Error("the passed scenario lost its run order")
	}
}

func TestCountsAndFilters(t *testing.T) {
	rep := sample()
	page := render(t, rep, htmlreport.Options{})
	res := report.NewResults(rep)
	for id, n := range map[string]int{
		"count-scenarios": res.Summary.Scenarios, "count-passed": res.Summary.Passed,
		"count-failed": res.Summary.Failed, "count-errored": res.Summary.Errored,
		"count-denied": res.Summary.Denied,
	} {
		want := fmt.Sprintf(`id="%s" data-count="%d">%d<`, id, n, n)
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, reason := range []string{"end_turn", "agent_exited"} { // the third is hostile
		want := fmt.Sprintf(`data-reason="%s" data-count="%d"`, reason, res.Summary.Turns[reason])
		if !strings.Contains(page, want) {
			t.Errorf("the chart lacks %s", want)
		}
	}
	for _, want := range []string{
		`<select id="f-status">`, `<option value="failed">failed</option>`,
		`<select id="f-tag">`, `<option value="smoke">smoke</option>`,
		`<select id="f-agent">`, `<option value="claude">claude</option>`,
		`<input id="f-search"`, `<select id="f-order">`,
		`data-tags="smoke"`, `data-agent="claude"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

func TestScenarioDetails(t *testing.T) {
	page := render(t, sample(), htmlreport.Options{})
	for _, want := range []string{
		"turn 1: b.yaml:9:5: text does not contain &#34;done&#34;", // failure with its file:line:col
		"<code>b.yaml:7</code>",  // scenario file:line
		"<code>b.yaml:12</code>", // permission rule
		"<code>reject</code>",    // option sent
		"fs/write_text_file", "refused: outside the roots",
		"input 1200", "output 34",
		`<span class="del">-b`, `<span class="add">&#43;&lt;/script&gt;`, // the diff, as a diff
		"agent exited 3",
		`<strong>title &lt;/script&gt;`, `<code class="tool">Write&lt;/script&gt;`, // the tool's name beside its call
		`<code class="tool">Write</code>`, // … and beside its permission
		"<h4>Questions</h4>", `<td class="decision">accept <code>{&#34;branch&#34;:&#34;main&#34;}</code></td>`,
		`<td class="decision">decline</td><td>no answer for the required field env</td>`,
		"<h4>Notices</h4>", "<strong>MCP server unavailable</strong> desc &lt;/script&gt;", "<em>(late)</em></li>",
		// What late updates changed, apart.
		`→ <span class="kind">delete</span> (late)`, `→ <strong>late title &lt;/script&gt;`,
		"<h4>After the prompt's answer</h4>\n<p class=\"usage\"><span>cost 5 USD</span>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestNoStopReason: a turn with no stop reason (results written by hand)
// is said to have none, in the chart and on the turn, rather than shown
// as a blank.
func TestNoStopReason(t *testing.T) {
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{{
		Name: "a", File: "a.yaml", Line: 1, Status: report.StatusPassed,
		Turns: []report.TurnResult{{Index: 1, Prompt: "hi"}},
	}}}
	page := render(t, rep, htmlreport.Options{})
	for _, want := range []string{
		`<title>no stop reason: 1 turn</title><text x="0" y="0" dy="16">no stop reason</text>`,
		`turn 1 · <span class="stop ">no stop reason</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestPassRatesOnlyToCompare: the pass-rate table is there for scenarios
// that ran more than once or against more than one agent, not for a
// scenario that names its one agent.
func TestPassRatesOnlyToCompare(t *testing.T) {
	if page := render(t, sample(), htmlreport.Options{}); strings.Contains(page, "Pass rates") {
		t.Error("a pass-rate table for scenarios that ran once each")
	}
	ok := report.Result{
		Name: "ok", File: "a.yaml", Line: 1, Status: report.StatusPassed, Agent: report.AgentInfo{Name: "claude"},
		Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn"}},
	}
	again := ok
	again.Attempt, ok.Attempt = 2, 1
	page := render(t, report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{ok, again}}, htmlreport.Options{})
	for _, want := range []string{"Pass rates", "2/2 (100%)"} {
		if !strings.Contains(page, want) {
			t.Errorf("repeated: page lacks %q", want)
		}
	}
}

// TestPassRateAgainstMinimum: a pass-rate cell prints the rate and its
// minimum alike, so a rate below its minimum never reads equal to it or
// above it.
func TestPassRateAgainstMinimum(t *testing.T) {
	tests := []struct {
		min        float64
		text, want string
	}{
		{0.667, "2/3 (66.67%)", "min 66.7%: below"},
		{0.6667, "2/3 (66.667%)", "min 66.67%: below"},
		{0.6, "2/3 (66.67%)", "min 60%: met"},
	}
	for _, tt := range tests {
		var rep report.Report
		for i, st := range []report.Status{report.StatusPassed, report.StatusFailed, report.StatusPassed} {
			rep.Scenarios = append(rep.Scenarios, report.Result{
				Name: "flaky", File: "a.yaml", Line: 1, Attempt: i + 1, Status: st, MinPassRate: tt.min, Agent: report.AgentInfo{Name: "claude"},
				Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn"}},
			})
		}
		page := render(t, rep, htmlreport.Options{})
		for _, want := range []string{">" + tt.text + "<br><small>", "pass@3 1.00 · pass^3 0.00 · " + tt.want + "</small>"} {
			if !strings.Contains(page, want) {
				t.Errorf("min %v: page lacks %q", tt.min, want)
			}
		}
	}
}

func TestTranscriptViewer(t *testing.T) {
	dir := t.TempDir()
	var tr strings.Builder
	tr.WriteString(`{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}` + "\n")
	tr.WriteString(`{"t":5,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}}` + "\n")
	tr.WriteString(`{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + quote(hostile+" ghp_secretvalue123") + `}}}}}` + "\n")
	tr.WriteString(`{"t":7,"dir":"a2c","raw":` + quote("garbage "+hostile) + `}` + "\n")
	for i := range 100 {
		fmt.Fprintf(&tr, `{"t":%d,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call"}}}}`+"\n", 10+i)
	}
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte(tr.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := htmlreport.Options{
		Transcripts:     func(r report.Result) string { return path },
		TranscriptBytes: 2400,
		Redactor:        redact.New("ghp_secretvalue123"),
	}
	page := render(t, sample(), opts)
	for _, want := range []string{
		`<details class="transcript"`, `<select class="t-method">`,
		`<option value="initialize">initialize</option>`, `<option value="session/update">session/update</option>`,
		`data-method="initialize" data-dir="a2c"`, // the response is named by its request
		"104 messages", "cut in the middle", "garbage &lt;/script&gt;", "[REDACTED]",
		`<tr class="cut">`, `<td class="t">0.109s</td>`, // the last message is kept
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "ghp_secretvalue123") {
		t.Error("the secret is in the page")
	}
	if strings.Contains(page, "<img") || strings.Count(page, "<script") != 1 {
		t.Error("hostile transcript text reached the page unescaped")
	}
	if n := strings.Count(page, `<tr class="m `); n >= 3*104 || n == 0 {
		t.Errorf("%d transcript rows for 3 scenarios, want some, cut at 2400 bytes each", n)
	}
}

func TestTranscriptPageBudget(t *testing.T) {
	dir := t.TempDir()
	var tr strings.Builder
	for i := range 20 {
		fmt.Fprintf(&tr, `{"t":%d,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call"}}}}`+"\n", i)
	}
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte(tr.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The budget holds one whole transcript: the first scenario on the
	// page (the failed one) gets it, the others are only counted.
	page := render(t, sample(), htmlreport.Options{
		Transcripts:         func(report.Result) string { return path },
		TranscriptBytes:     htmlreport.DefaultTranscriptBytes,
		PageTranscriptBytes: int64(tr.Len()),
	})
	if n := strings.Count(page, `<tr class="m `); n != 20 {
		t.Errorf("%d transcript rows, want the 20 of one transcript", n)
	}
	if n := strings.Count(page, "the page's budget for transcripts is spent"); n != 2 {
		t.Errorf("%d transcripts said to be over the budget, want 2", n)
	}
	first := strings.Index(page, `<tr class="m `)
	if failed := strings.Index(page, `data-status="failed"`); first < failed || first > strings.Index(page, `data-status="error"`) {
		t.Error("the budget did not go to the failed scenario first")
	}
}

// TestTranscriptBytesZero: TranscriptBytes 0 embeds no message of any
// transcript; each viewer names its file, counts its messages and says
// why none is shown (not that they were cut, nor the page's budget).
func TestTranscriptBytesZero(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	line := `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"secretish":"EMBEDDED"}}}` + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	page := render(t, sample(), htmlreport.Options{Transcripts: func(report.Result) string { return path }})
	if strings.Contains(page, "EMBEDDED") || strings.Contains(page, `<tr class="m `) {
		t.Error("TranscriptBytes 0 embedded transcript messages")
	}
	if n := strings.Count(page, "Transcript · 3 messages · <span class=\"warn\">not embedded (--transcript-bytes 0)</span>"); n != 3 {
		t.Errorf("%d viewers say why nothing is embedded, want 3", n)
	}
	for _, bad := range []string{"cut in the middle", "budget for transcripts", "are shown"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page says %q", bad)
		}
	}
}

func TestTranscriptMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.jsonl")
	page := render(t, sample(), htmlreport.Options{Transcripts: func(report.Result) string { return missing }})
	if !strings.Contains(page, "no such file or directory") {
		t.Error("a missing transcript is not reported on the page")
	}
}

// TestTranscriptLinkNotEmbedded: a transcript that is a symbolic link is
// not acprun's (it writes each as a file): an agent that could write in
// the transcripts directory may have put it there, pointing at a file of
// the user's. The page says so and embeds nothing of what it points at.
func TestTranscriptLinkNotEmbedded(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "id_rsa")
	if err := os.WriteFile(victim, []byte("SECRET-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "s.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	page := render(t, sample(), htmlreport.Options{Transcripts: func(report.Result) string { return link }})
	if strings.Contains(page, "SECRET-KEY") {
		t.Error("the page embeds the file the transcript's link points at")
	}
	if want := html.EscapeString(link + ": a symbolic link, not a transcript acprun wrote (it writes each as a file; an agent may have put the link there): not embedded"); !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
}

// TestNotATranscriptNotEmbedded: results name their transcripts, and
// results may come from anywhere (a CI artifact), so the file they name
// may be any file of the user's. Only a file every line of which is a
// transcript record is embedded; of any other, the page and a warning
// (once per file) say which line is wrong and how, and nothing of it is
// embedded.
func TestNotATranscriptNotEmbedded(t *testing.T) {
	const good = `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}` + "\n"
	for _, tc := range []struct {
		name, content string
		why           string // "": embedded
	}{
		{"passwd", "root:x:0:0:SECRET:/root:/bin/bash\n", "line 1: not a JSON object"},
		{"a bad line among good ones", good + "SECRET\n" + good, "line 2: not a JSON object"},
		{"not an object", good + `["SECRET"]` + "\n", "line 2: not a JSON object"},
		{"no t", `{"dir":"c2a","msg":{"SECRET":1}}` + "\n", `line 1: no "t"`},
		{"t not a number", `{"t":"1","dir":"c2a","msg":{"SECRET":1}}` + "\n", `line 1: no "t"`},
		{"bad dir", `{"t":1,"dir":"up","msg":{"SECRET":1}}` + "\n", `line 1: no "dir"`},
		{"msg not an object", `{"t":1,"dir":"a2c","msg":"SECRET"}` + "\n", `line 1: "msg" is not a JSON object`},
		{"raw not a string", `{"t":1,"dir":"a2c","raw":{"SECRET":1}}` + "\n", `line 1: "raw" is not a string`},
		{"both", `{"t":1,"dir":"a2c","raw":"SECRET","msg":{}}` + "\n", `line 1: both "msg" and "raw"`},
		{"neither", `{"t":1,"dir":"a2c"}` + "\n" + `{"t":1,"dir":"a2c","raw":"SECRET"}` + "\n", `line 1: neither "msg" nor "raw"`},
		{"another member", `{"t":1,"dir":"a2c","raw":"SECRET","password":"x"}` + "\n", `line 1: "password" is not a member`},
		{"a long line", `{"SECRET":"` + strings.Repeat("x", 300<<10) + `"}` + "\n", "line 1: does not start as a transcript record"},
		{"transcript", good + "\n" + `{"t":2,"dir":"a2c","raw":"not json SECRET"}` + "\n", ""},
		{"dropped with another member", `{"t":1,"dropped":3,"raw":"SECRET"}` + "\n", `line 1: a record of lines dropped is {"t": ms, "dropped": n}`},
		{"dropped not a count", `{"t":1,"dropped":"SECRET"}` + "\n", `line 1: "dropped" is not a count of lines`},
		{"transcript with lines dropped", good + `{"t":5,"dropped":3}` + "\n" + `{"t":6,"dir":"a2c","raw":"SECRET"}` + "\n", ""},
		{"transcript ending in the agent's exit", good + `{"t":6,"dir":"a2c","raw":"SECRET"}` + "\n" + `{"t":7,"dir":"a2c","exit":{"code":3}}` + "\n", ""},
		{"exit not an object", `{"t":7,"dir":"a2c","exit":"SECRET"}` + "\n", `line 1: an exit record is {"t": ms, "dir": "a2c", "exit": {"code": n} or {"signal": "SIG…"}}`},
		{"exit with a message", `{"t":7,"dir":"a2c","exit":{"code":3},"msg":{"SECRET":1}}` + "\n", `line 1: an exit record is {"t": ms, "dir": "a2c", "exit": {"code": n} or {"signal": "SIG…"}}`},
		{"transcript with a long line", good + `{"t":2,"dir":"a2c","msg":{"text":"` + strings.Repeat("SECRET", 60<<10) + `"}}` + "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			page := render(t, sample(), htmlreport.Options{
				Transcripts:     func(report.Result) string { return path },
				TranscriptBytes: htmlreport.DefaultTranscriptBytes,
				Warn:            func(msg string) { warnings = append(warnings, msg) },
			})
			if tc.why == "" {
				if len(warnings) > 0 || !strings.Contains(page, "SECRET") {
					t.Errorf("a transcript was not embedded; warnings %q", warnings)
				}
				if strings.Contains(tc.content, `"dropped"`) && !strings.Contains(page, "3 lines dropped here") {
					t.Error("the page does not say where lines were dropped")
				}
				if strings.Contains(tc.content, `"exit"`) && !strings.Contains(page, "the agent exited with code 3") {
					t.Error("the page does not say the agent exited")
				}
				return
			}
			if strings.Contains(page, "SECRET") {
				t.Error("the page embeds what is not a transcript")
			}
			want := path + ": " + tc.why
			if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) || !strings.HasSuffix(warnings[0], "not a transcript (every line is a record {\"t\": ms, \"dir\": \"c2a\"|\"a2c\", \"msg\": {…}} or \"raw\": \"…\" in place of msg), not embedded") {
				t.Errorf("warnings %q, want one starting %q", warnings, want)
			}
			if !strings.Contains(page, html.EscapeString(want)) {
				t.Errorf("page lacks %q", want)
			}
		})
	}
}

// TestNotAFileNotEmbedded: a transcript path that names a directory (or
// a FIFO, a device) is not embedded either, and is warned about.
func TestNotAFileNotEmbedded(t *testing.T) {
	dir := t.TempDir()
	var warnings []string
	render(t, sample(), htmlreport.Options{
		Transcripts: func(report.Result) string { return dir },
		Warn:        func(msg string) { warnings = append(warnings, msg) },
	})
	if want := []string{dir + ": not a regular file (a directory): give a file: not embedded"}; !slices.Equal(warnings, want) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}

func TestRedactsResults(t *testing.T) {
	res := sample()
	res.Scenarios[0].Turns[0].Text = "token sk-live-abcdef123456"
	page := render(t, res, htmlreport.Options{Redactor: redact.New("sk-live-abcdef123456")})
	if strings.Contains(page, "sk-live-abcdef123456") || !strings.Contains(page, "token [REDACTED]") {
		t.Error("the secret was not redacted")
	}
}

func TestEmptyResults(t *testing.T) {
	page := render(t, report.Report{SchemaVersion: 1}, htmlreport.Options{})
	if !strings.Contains(page, "No scenarios in these results.") || !strings.Contains(page, `data-count="0"`) {
		t.Error("an empty run does not render as such")
	}
}

// TestCountsOfOne checks that a count of one names one thing: the
// report's counts and the chart's titles.
func TestCountsOfOne(t *testing.T) {
	page := render(t, report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{{
		Name: "s", File: "a.yaml", Line: 1, Status: report.StatusPassed, Warnings: []string{"w"},
		Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn"}},
	}}}, htmlreport.Options{})
	for _, want := range []string{`>1</span> scenario</div>`, `>1</span> warning</div>`, `end_turn: 1 turn</title>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not hold %s", want)
		}
	}
	page = render(t, sample(), htmlreport.Options{})
	for _, want := range []string{`>3</span> scenarios</div>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not hold %s", want)
		}
	}
}

// attributes returns every attribute (name, raw value) of every tag of
// page, as an HTML tokenizer splits them: values in double or single
// quotes, or unquoted up to white space or ">".
func attributes(page string) [][2]string {
	var out [][2]string
	tag := regexp.MustCompile(`<[a-zA-Z][a-zA-Z0-9-]*`)
	for _, loc := range tag.FindAllStringIndex(page, -1) {
		i := loc[1]
		for i < len(page) {
			for i < len(page) && strings.ContainsRune(" \t\n\r\f/", rune(page[i])) {
				i++
			}
			if i >= len(page) || page[i] == '>' {
				break
			}
			start := i
			for i < len(page) && !strings.ContainsRune(" \t\n\r\f/=>", rune(page[i])) {
				i++
			}
			name := strings.ToLower(page[start:i])
			val := ""
			if i < len(page) && page[i] == '=' {
				i++
				if i < len(page) && (page[i] == '"' || page[i] == '\'') {
					q := page[i]
					end := strings.IndexByte(page[i+1:], q)
					if end < 0 {
						end = len(page) - i - 1
					}
					val = page[i+1 : i+1+end]
					i += end + 2
				} else {
					start := i
					for i < len(page) && !strings.ContainsRune(" \t\n\r\f>", rune(page[i])) {
						i++
					}
					val = page[start:i]
				}
			}
			out = append(out, [2]string{name, html.UnescapeString(val)})
		}
	}
	return out
}

// FuzzEscaping puts arbitrary agent text everywhere an agent controls and
// checks that it adds no markup: the page has as many "<" as one made with
// the same text with every byte but the line breaks replaced by "x".
func FuzzEscaping(f *testing.F) {
	for _, s := range []string{hostile, "", "<", "]]><!--", "\x00\xff", "a\nb\r\nc", "javascript:alert(1)", "{{.}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.ToValidUTF8(s, "?")
		b := []byte(s)
		for i := range b {
			if b[i] != '\n' {
				b[i] = 'x'
			}
		}
		ref := string(b)
		pages := make([]string, 2)
		for i, text := range []string{"x" + s, "x" + ref} {
			res := report.Report{SchemaVersion: 1, Scenarios: []report.Result{{
				Name: text, File: text, Line: 1, Tags: []string{text}, Status: report.StatusFailed,
				Agent:    report.AgentInfo{Name: text, Command: []string{text}},
				Failures: []string{text}, Warnings: []string{text}, Error: text,
				Turns: []report.TurnResult{{
					Index: 1, Prompt: text, StopReason: text, Text: text, Thoughts: text,
					ToolCalls: []report.ToolCall{{ID: text, Title: text, Kind: text, Status: text,
						Content: json.RawMessage(`[{"type":"diff","path":` + quote(text) + `,"newText":` + quote(text) + `}]`)}},
					Permissions: []report.Permission{{ToolCallID: text, Title: text, Decision: text, Rule: text, OptionID: text}},
				}},
			}}}
			pages[i] = render(t, res, htmlreport.Options{})
		}
		if got, want := strings.Count(pages[0], "<"), strings.Count(pages[1], "<"); got != want {
			t.Errorf("text %q adds %d '<' to the page", s, got-want)
		}
	})
}

// TestStyleLeavesStatusToCards: a scenario's card and its badge carry its
// status as a class ("scenario error", "status error"); the only rules
// that style those classes are the cards' and the badges' own, so that an
// errored card is drawn like a failed one, not in an error message's red.
func TestStyleLeavesStatusToCards(t *testing.T) {
	page := render(t, sample(), htmlreport.Options{})
	_, css, _ := strings.Cut(page, "<style>")
	css, _, _ = strings.Cut(css, "</style>")
	statuses := []report.Status{report.StatusPassed, report.StatusFailed, report.StatusError}
	for _, s := range statuses {
		if !strings.Contains(page, fmt.Sprintf(`<section class="scenario %s"`, s)) {
			t.Errorf("no card of status %s in the sample", s)
		}
		bare := regexp.MustCompile(`(^|[\s>+~,(])\.` + string(s) + `([\s>+~,:{\[)]|$)`)
		for _, line := range strings.Split(css, "\n") {
			if bare.MatchString(line) {
				t.Errorf("a rule styles the bare class .%s, which a card and its badge carry: %s", s, line)
			}
		}
	}
}

// TestVerifyVerdicts: a verify command's row says whether it passed or
// failed (a failed one marked as a denial), and a setup or teardown
// command's, which has no verdict, says neither.
func TestVerifyVerdicts(t *testing.T) {
	yes, no := true, false
	rep := sample()
	rep.Scenarios[0].Verify = []report.CommandResult{
		{Line: 5, Run: "make check", ExitCode: intp(0), Passed: &yes},
		{Line: 6, Run: "false", ExitCode: intp(1), Passed: &no},
		{Line: 7, Run: "echo v", Error: "not run: the scenario's timeout passed", Passed: &no},
	}
	rep.Scenarios[0].Teardown = []report.CommandResult{{Line: 9, Run: "docker compose down", ExitCode: intp(0)}}
	page := render(t, rep, htmlreport.Options{})
	for _, want := range []string{
		"<tr><td>5</td><td><code>make check</code></td><td>exit 0 · 0ms · passed",
		`<tr class="deny"><td>6</td><td><code>false</code></td><td>exit 1 · 0ms · failed`,
		`<tr class="deny"><td>7</td><td><code>echo v</code></td><td>not run: the scenario&#39;s timeout passed · failed`,
		"<tr><td>9</td><td><code>docker compose down</code></td><td>exit 0 · 0ms</td></tr>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestWorkspaceChanges: a workspace's card says what the agent changed:
// the paths it created, modified and deleted; that it changed no file
// when the lists are known and empty; that the changes are not known
// when they could not be listed (null lists), with why. An empty list
// of changes and an unknown one do not look alike.
func TestWorkspaceChanges(t *testing.T) {
	rep := sample()
	ws := func(created []string, err string) *report.WorkspaceResult {
		w := &report.WorkspaceResult{Path: "/w", Source: "/src", Kind: "copy", Created: created, Error: err}
		if created != nil {
			w.Modified, w.Deleted = []string{}, []string{}
		}
		return w
	}
	rep.Scenarios[0].Workspace = ws([]string{}, "")
	rep.Scenarios[1].Workspace = ws(nil, "workspace: list the changes of /w: interrupted")
	rep.Scenarios[2].Workspace = ws([]string{"new.txt"}, "")
	page := render(t, rep, htmlreport.Options{})
	for what, n := range map[string]int{
		`<p class="meta">No file was created, modified or deleted.</p>`:                                                      1,
		`<p class="errmsg">workspace: list the changes of /w: interrupted</p><p class="meta">The changes are not known.</p>`: 1,
		`<li class="add">created <code>new.txt</code></li>`:                                                                  1,
		`<ul class="files"></ul>`: 0,
	} {
		if got := strings.Count(page, what); got != n {
			t.Errorf("page has %q %d times, want %d", what, got, n)
		}
	}
}
