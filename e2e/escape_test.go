package e2e_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
)

// TestValidateEscapesControls: values of a scenario, a config file or a mock
// script that hold control characters (an escape sequence, a bell, a
// carriage return, a C1 CSI) and that an error or a warning quotes reach
// acprun's stderr escaped, as \x1b: the terminal never gets an escape
// sequence from acprun's messages, nor from the quoted source lines.
func TestValidateEscapesControls(t *testing.T) {
	t.Parallel()
	const turns = "turns: [{prompt: hi}]\n"
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		want  []string // parts of stderr
	}{
		{
			name: "scenario",
			files: map[string]string{"s.yaml": "name: s\nagent: {command: [a], cwd: \"./\\e[31mnope\"}\n" +
				"retries: !!int \"1\\e[2J\"\nvars: [{v: \"x\\a\"}, {v: ok}]\nworkspace: \"./\\u009bws\"\n" +
				"sandbox: {write: [\"~\\r\"]}\nturns: [{prompt: \"{{\\e]0;t\\a}}\"}]\n"},
			want: []string{
				`/\x1b[31mnope does not exist`, `got 1\x1b[2J`, `the value v="x\a" holds the control character \x07`,
				`/\x9bws does not exist`, `sandbox write path ~\x0d: only ~`, `bad template {{\x1b]0;t\x07}}`,
			},
		},
		{
			name: "warning",
			files: map[string]string{
				"ws/.keep":          "",
				"\x1b[31mcwd/.keep": "",
				"s.yaml":            "name: s\nagent: {command: [a], cwd: \"./\\e[31mcwd\"}\nworkspace: ws\n" + turns,
			},
			want: []string{`warning: agent.cwd `, `/\x1b[31mcwd is outside the workspace`},
		},
		{
			name: "config",
			files: map[string]string{
				"c.yaml": "agents:\n  m: {command: [a], cwd: \"\\e[31m\"}\n",
				"s.yaml": "name: s\nagent: m\n" + turns,
			},
			args: []string{"--config", "c.yaml"},
			want: []string{`/\x1b[31m does not exist`},
		},
		{
			name: "mock script",
			files: map[string]string{
				"m.mock.yaml": "protocolVersion: !!int \"1\\e[2J\"\n",
				"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\n" + turns,
			},
			args: []string{"--strict"},
			want: []string{`protocolVersion: integer out of range: 1\x1b[2J`},
		},
		{
			name:  "missing mock script",
			files: map[string]string{"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, \"\\e[31mm.mock.yaml\"]}\n" + turns},
			args:  []string{"--strict"},
			want:  []string{`mock script \x1b[31mm.mock.yaml does not exist`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := validateFiles(t, tt.files, tt.args...)
			if strings.ContainsFunc(strings.ReplaceAll(r.stderr, "\n", ""), unicode.IsControl) {
				t.Errorf("validate's stderr holds a raw control character:\n%q", r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("validate: exit %d, stderr:\n%s\nwant it to hold %q", r.code, r.stderr, w)
				}
			}
		})
	}
}

// validateFiles runs acprun validate ARGS s.yaml in a new directory that
// holds files.
func validateFiles(t *testing.T, files map[string]string, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return acprun(t, dir, append(append([]string{"validate"}, args...), "s.yaml")...)
}

// TestFileNamesEscaped: a scenario file whose name holds control
// characters (one an agent left among the scenarios, whose directory is
// its cwd by default) is named escaped, as \x1b, wherever acprun names
// it: list's lines, run's failures and warnings, validate's errors.
func TestFileNamesEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"ok/evil\x1b[31m.yaml": "name: evil\nagent: {command: [acprun, mock-agent, ../m.mock.yaml]}\n" +
			"turns: [{prompt: hi, expect: {text: {contains: zzz}}}]\n",
		"bad/bad\x1b]0;T\x07.yaml": "name: bad\nagent: {command: [a]}\nturns: [{prompt: hi, bogus: 1}]\n",
	})
	raw := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) })
	}
	for _, tt := range []struct {
		args []string
		code int
		want string // in stdout and stderr
	}{
		{[]string{"list", "ok"}, exitOK, `ok/evil\x1b[31m.yaml:1` + "\tevil"},
		{[]string{"run", "ok", "-o", "out.json"}, exitFailed, `ok/evil\x1b[31m.yaml:3:48: text does not contain "zzz"`},
		{[]string{"validate", "bad"}, exitUsage, `bad/bad\x1b]0;T\x07.yaml:3:22: unknown key "bogus"`},
	} {
		res := acprun(t, dir, tt.args...)
		out := res.stdout + res.stderr
		if res.code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("acprun %v: exit %d, output:\n%s\nwant exit %d and %q", tt.args, res.code, out, tt.code, tt.want)
		}
		if raw(out) {
			t.Errorf("acprun %v: a raw control character reached the output:\n%q", tt.args, out)
		}
	}
}

// forgedLine returns the first line of s that starts, after spaces (GitHub
// Actions runs a workflow command even indented), with text an agent sent
// ("::" or "FAKE"), or "".
func forgedLine(s string) string {
	for l := range strings.Lines(s) {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "::") || strings.HasPrefix(t, "FAKE") {
			return l
		}
	}
	return ""
}

// rawControl reports whether s holds a control character other than the
// line breaks that end lines.
func rawControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && unicode.IsControl(r) })
}

// TestAgentTextEscapedInRunOutput: a stop reason and a JSON-RPC error
// message an agent sent with control characters and line breaks (an
// escape sequence that retitles the terminal and clears it, a carriage
// return and FAKE PASS, a "::error" workflow command after a line break)
// reach run's stderr (the result lines, the failures, the totals) and,
// under GitHub Actions, the step summary escaped as \xNN: no raw control
// character, no line that starts with what the agent sent, and on stdout
// only acprun's own workflow commands.
func TestAgentTextEscapedInRunOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := func(name string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, " + name + ".mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	}
	writeFiles(t, dir, map[string]string{
		"sr.mock.yaml": `turns: [{stopReason: "evil\e]0;pwned\a\e[2J\r\nFAKE PASS"}]` + "\n",
		"gh.mock.yaml": `turns: [{stopReason: "bad\n::error title=INJ::x"}]` + "\n",
		"er.mock.yaml": `turns: [{error: {code: -32000, message: "bad\x01\b\nFAKE PASS\n::error title=INJ::x"}}]` + "\n",
		"s.yaml":       scenario("sr") + "---\n" + scenario("gh") + "---\n" + scenario("er"),
	})
	summary := filepath.Join(dir, "summary.md")
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_WORKSPACE="},
		"run", "s.yaml", "-j", "1", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", res.code, exitFailed, res.stderr)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"stderr": res.stderr, "stdout": res.stdout, "step summary": string(md)} {
		if rawControl(out) {
			t.Errorf("%s holds a raw control character:\n%q", name, out)
		}
		if l := forgedLine(out); l != "" && name != "stdout" {
			t.Errorf("%s: a line starts with what the agent sent: %q\nin:\n%s", name, l, out)
		}
	}
	for l := range strings.Lines(res.stdout) {
		if !strings.HasPrefix(l, "::error file=s.yaml,") && !strings.HasPrefix(l, "::warning file=s.yaml,") {
			t.Errorf("stdout line is not one of acprun's workflow commands: %q", l)
		}
	}
	for _, want := range []string{
		`FAIL sr (evil\x1b]0;pwned\x07\x1b[2J\x0d\x0aFAKE PASS, `, // the result line
		`FAIL gh (bad\x0a::error title=INJ::x, `,
		"turn 1: s.yaml:14:9: stopReason error, want end_turn (session/prompt: bad\\x01\\x08\n      | FAKE PASS\n      | ::error title=INJ::x (code -32000))\n",
		"turns: bad\\x0a::error title=INJ::x 1, error 1, evil\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\x0aFAKE PASS 1\n", // the totals
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	// The step summary writes brackets as character references (no link).
	if want := "; turns: bad\\x0a::error title=INJ::x 1, error 1, evil\\x1b&#93;0;pwned\\x07\\x1b&#91;2J\\x0d\\x0aFAKE PASS 1\n"; !strings.Contains(string(md), want) {
		t.Errorf("the step summary's heading lacks %q:\n%s", want, md)
	}
}

// TestNamesAndTagsAreOneLineOfWords: a scenario whose name holds a line
// separator and a right-to-left override, and whose tags hold a tab and a
// space, is refused (exit 2) by validate and list, an error at each,
// where list would have shown a name broken or reordered, and one tag
// as two.
func TestNamesAndTagsAreOneLineOfWords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": "name: \"a\\u2028b \\u202eRLO\"\ntags: [\"a\\tb\", \"c d\"]\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\nturns: [{prompt: hi}]\n",
	})
	for _, cmd := range []string{"validate", "list"} {
		res := acprun(t, dir, cmd, "s.yaml")
		if res.code != exitUsage {
			t.Errorf("%s: exit %d, want %d; stdout:\n%s\nstderr:\n%s", cmd, res.code, exitUsage, res.stdout, res.stderr)
		}
		for _, want := range []string{
			`s.yaml:1:7: name holds the line separator \u2028: a name is one line of printable text`,
			`s.yaml:2:8: tag "a\tb" holds the control character \x09: a tag is one word, without white space, control or format characters (write several tags, [a, b])`,
			`s.yaml:2:16: tag "c d" holds a space: a tag is one word, without white space, control or format characters (write several tags, [c, d])`,
		} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", cmd, want, res.stderr)
			}
		}
		if strings.ContainsAny(res.stdout+res.stderr, "\u2028\u202e\t") {
			t.Errorf("%s: a raw line separator, override or tab reached the output:\n%q\n%q", cmd, res.stdout, res.stderr)
		}
	}
}

// TestAgentSeparatorsAndBidiEscaped: a stop reason an agent sent with a
// line separator and a right-to-left override, which would break run's
// result line or show it reversed ("FAIL" as "LIAF"), reaches run's
// stderr escaped, as \u2028 and \u202e.
func TestAgentSeparatorsAndBidiEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": `turns: [{stopReason: "evil\u2028PASS \u202eLIAF"}]` + "\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", res.code, exitFailed, res.stderr)
	}
	if strings.ContainsAny(res.stderr, "\u2028\u202e") {
		t.Errorf("stderr holds a raw line separator or override:\n%q", res.stderr)
	}
	if want := `FAIL s (evil\u2028PASS \u202eLIAF, `; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
	}
}

// TestLegacyCommandsEscapedInRunOutput: "##[" (a legacy workflow command,
// which GitHub Actions runs wherever it is in a line, quoted or not) in
// what an agent sent (its text, a stop reason, an error message) and in a
// scenario's name reaches neither run's stderr, nor its workflow commands
// on stdout, nor the step summary: its second '#' is written \x23.
func TestLegacyCommandsEscapedInRunOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := func(name, mock, expect string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, " + mock + ".mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi" + expect + "}]\n"
	}
	writeFiles(t, dir, map[string]string{
		"tx.mock.yaml": `turns: [{steps: [{text: "said\n##[error]forged\n"}]}]` + "\n",
		"sr.mock.yaml": `turns: [{stopReason: "##[set-output name=x]y"}]` + "\n",
		"er.mock.yaml": `turns: [{error: {code: -32000, message: "bad ##[add-mask]secret"}}]` + "\n",
		"s.yaml": scenario(`"tx ##[group]g"`, "tx", ", expect: {text: {contains: zzz}}") + "---\n" +
			scenario("sr", "sr", "") + "---\n" + scenario("er", "er", ""),
	})
	summary := filepath.Join(dir, "summary.md")
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_WORKSPACE="},
		"run", "s.yaml", "-j", "1", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", res.code, exitFailed, res.stderr)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"stderr": res.stderr, "stdout": res.stdout, "step summary": string(md)} {
		if strings.Contains(out, "##[") {
			t.Errorf("%s holds ##[:\n%s", name, out)
		}
	}
	for _, want := range []string{
		`FAIL tx #\x23[group]g (end_turn, `,
		"  | #\\x23[error]forged\n",
		`FAIL sr (#\x23[set-output name=x]y, `,
		`session/prompt: bad #\x23[add-mask]secret (code -32000)`,
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	for _, want := range []string{`#\x23[error]forged`, `#\x23[add-mask]secret`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the workflow commands lack %q:\n%s", want, res.stdout)
		}
	}
}

// TestLegacyCommandsEscapedInStdoutFormats: the machine formats written
// to stdout (the results, events, JUnit and HTML with -, probe and list
// --json) hold no "##[" either (events: the scenario's name): its second '#' is the format's own escape
// of it (\u0023 in JSON, &#35; in XML and HTML), so what is read back is
// what the agent sent.
func TestLegacyCommandsEscapedInStdoutFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tx.mock.yaml": `agentInfo: {name: "a ##[error]n", version: "1"}` + "\n" + `turns: [{steps: [{text: "said ###[error]forged"}]}]` + "\n",
		"s.yaml":       "name: \"s ##[group]g\"\nagent: {command: [acprun, mock-agent, tx.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: zzz}}}]\n",
	})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "s.yaml", "-o", "-"}, `"said ##\u0023[error]forged"`},
		{[]string{"run", "s.yaml", "-o", "out.json", "--events", "-"}, `"scenario":"s #\u0023[group]g"`},
		{[]string{"run", "s.yaml", "-o", "out.json", "--junit", "-"}, `name="s #&#35;[group]g"`},
		{[]string{"run", "s.yaml", "-o", "out.json", "--html", "-"}, "s #&#35;[group]g"},
		{[]string{"probe", "--json", "--", "acprun", "mock-agent", "tx.mock.yaml"}, `"a #\u0023[error]n"`},
		{[]string{"list", "--json", "s.yaml"}, `"s #\u0023[group]g"`},
	} {
		res := acprun(t, dir, tt.args...)
		if res.code > 1 || strings.Contains(res.stdout, "##[") || !strings.Contains(res.stdout, tt.want) {
			t.Errorf("%q: exit %d; want stdout with %s and no ##[:\n%s\nstderr:\n%s", tt.args, res.code, tt.want, res.stdout, res.stderr)
		}
	}
	var out report.Results
	if res := acprun(t, dir, "run", "s.yaml", "-o", "-"); res.code != 1 || json.Unmarshal([]byte(res.stdout), &out) != nil ||
		len(out.Scenarios) != 1 || out.Scenarios[0].Name != "s ##[group]g" || out.Scenarios[0].Turns[0].Text != "said ###[error]forged" {
		t.Errorf("-o -: exit %d; results %+v; want the name and text read back as sent", res.code, out.Scenarios)
	}
}

// TestUnprintableEscapedInStdoutJSON: the JSON written to stdout, which
// may be a terminal (the results with -o -, the events with --events -,
// probe --json), holds none of the characters an agent sent that JSON
// leaves raw and a terminal acts on (a C1 CSI, U+009B, colours text in
// xterm) or that reorder a line (a bidi override): each is a \u escape,
// and the JSON reads back as the agent sent it.
func TestUnprintableEscapedInStdoutJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const said = `E\u009b31mred\u009b0m \x7f \u202eevil` // YAML escapes
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "agentInfo: {name: \"" + said + "\", version: \"1\"}\n" +
			"turns: [{steps: [{text: \"" + said + "\"}], error: {code: -32000, message: \"" + said + "\"}}]\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	want := "E\u009b31mred\u009b0m \x7f \u202eevil"
	for _, tt := range []struct {
		args   []string
		escape string
	}{
		{[]string{"run", "s.yaml", "-o", "-"}, `"E\u009b31mred\u009b0m \u007f \u202eevil"`},
		{[]string{"run", "s.yaml", "-o", "out.json", "--events", "-"}, `session/prompt: E\u009b31mred\u009b0m \u007f \u202eevil (code -32000)`},
		{[]string{"probe", "--json", "--", "acprun", "mock-agent", "m.mock.yaml"}, `"E\u009b31mred\u009b0m \u007f \u202eevil"`},
	} {
		res := acprun(t, dir, tt.args...)
		if i := strings.IndexFunc(res.stdout, func(r rune) bool { return r >= 0x7f && unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }); res.code > 1 || i >= 0 || !strings.Contains(res.stdout, tt.escape) {
			t.Errorf("%q: exit %d; want stdout with %s and no raw control at %d:\n%q\nstderr:\n%s", tt.args, res.code, tt.escape, i, res.stdout, res.stderr)
		}
	}
	var out report.Results
	if res := acprun(t, dir, "run", "s.yaml", "-o", "-"); res.code != 1 || json.Unmarshal([]byte(res.stdout), &out) != nil ||
		len(out.Scenarios) != 1 || out.Scenarios[0].Turns[0].Text != want {
		t.Errorf("-o -: exit %d; results %+v; want the text read back as sent", res.code, out.Scenarios)
	}
}

// TestPassRateTableForgesNoCommand: under GitHub Actions, a scenario named
// like a workflow command begins no line of the summary on stderr (the
// row of the pass-rate table of a --repeat run), which the step's log
// would run as a forged annotation: a zero-width space breaks it.
func TestPassRateTableForgesNoCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml":      "name: \"::error title=x::forged\"\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\nturns: [{prompt: hi}]\n",
	})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true"}, "run", "s.yaml", "--repeat", "2", "-o", "out.json")
	if res.code != 0 || !strings.Contains(res.stderr, ":\u200b:error title=x::forged  2/2 (100%)") {
		t.Errorf("exit %d; want 0 and the table's row with a zero-width space; stderr:\n%s", res.code, res.stderr)
	}
	for line := range strings.Lines(res.stderr) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			t.Errorf("stderr holds the line %q", line)
		}
	}
}

// TestLineCommandsEscapedInStdoutFormats: the formats that keep an
// agent's newlines (JUnit and HTML with -, report -o -) begin no line
// with "::" after blanks (a workflow command: GitHub's runner trims the
// blanks, any Unicode white space), the agent's text, stderr and tool call titles included: in
// HTML the first ':' is written &#58;, in JUnit's CDATA the section is
// split between the colons (and between the '#' of "##["), in <system-out>
// and a <failure> alike; both read back as the agent and a verify command
// wrote them.
func TestLineCommandsEscapedInStdoutFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": `turns:
  - steps:
      - text: "ok\n::error file=README.md,line=1::all tests passed\n::stop-commands::x1\n\u00a0::warning::nbsp\n\u3000\f::notice::wide"
      - tool_call: {toolCallId: t1, title: "look\n ::warning::forged", kind: read, status: completed}
      - stderr: "  ::add-mask::hello\n\u00a0::add-mask::nbsp"
`,
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\n" +
			"verify: [\"printf '::error::v\\\\n##[group]w\\\\n'; exit 1\"]\n" +
			"turns: [{prompt: hi, expect: {text: {contains: zzz}}}]\n",
	})
	if res := acprun(t, dir, "run", "s.yaml", "-o", "out.json"); res.code != exitFailed {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "s.yaml", "-o", "o2.json", "--junit", "-"}, ":]]><![CDATA[:add-mask::hello"},
		{[]string{"run", "s.yaml", "-o", "o3.json", "--html", "-"}, "&#58;:error file=README.md"},
		{[]string{"report", "out.json", "-o", "-"}, "&#58;:error file=README.md"},
		{[]string{"run", "s.yaml", "-o", "o5.json", "--junit", "-"}, "\u00a0:]]><![CDATA[:add-mask::nbsp"},
		{[]string{"report", "out.json", "-o", "-"}, "\u00a0&#58;:warning::nbsp"},
		// In a step's log the reply is plain text: a zero-width space
		// after the first colon.
		{[]string{"run", "s.yaml", "-o", "o6.json", "--print"}, "\u3000\f:\u200b:notice::wide"},
	} {
		args := tt.args
		res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true"}, args...)
		if res.code > 1 || !strings.Contains(res.stdout, tt.want) {
			t.Errorf("%q: exit %d; want stdout with %q\nstderr:\n%s", args, res.code, tt.want, res.stderr)
		}
		for line := range strings.Lines(strings.ReplaceAll(res.stdout, "\r", "\n")) {
			if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
				t.Errorf("%q: stdout holds the line %q", args, line)
			}
		}
	}
	var out struct {
		Cases []struct {
			Out     string `xml:"system-out"`
			Failure string `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	res := acprun(t, dir, "run", "s.yaml", "-o", "o4.json", "--junit", "-")
	if err := xml.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Cases) != 1 || !strings.Contains(out.Cases[0].Out, "::add-mask::hello") ||
		!strings.Contains(out.Cases[0].Failure, "\n::error::v\n##[group]w") {
		t.Errorf("--junit -: %v, %+v; want the agent's stderr in system-out and verify's output in the failure, as they were", err, out.Cases)
	}
}

// TestScenarioNameControlCharacters: a scenario's name that holds a
// control character is an error at the name (exit 2), for validate and
// run alike, the character named escaped; one that would get one from
// vars is an error at the value.
func TestScenarioNameControlCharacters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rest = "agent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: zzz}}}]\n"
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"nl.yaml":     `name: "ok\n::error file=README.md,line=1::injected"` + "\n" + rest,
		"esc.yaml":    "name: \"red\\e[31m\"\n" + rest,
		"vars.yaml":   "name: v\nvars: {x: \"a\\e[2J\\nFAKE PASS\"}\n" + rest,
	})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "nl.yaml"}, `nl.yaml:1:7: name holds the control character \x0a: a name is one line of printable text`},
		{[]string{"run", "nl.yaml", "-o", "out.json"}, `nl.yaml:1:7: name holds the control character \x0a: a name is one line of printable text`},
		{[]string{"run", "esc.yaml", "-o", "out.json"}, `esc.yaml:1:7: name holds the control character \x1b: a name is one line of printable text`},
		{[]string{"run", "vars.yaml", "-o", "out.json"}, `vars.yaml:2:11: the value x="a\x1b[2J\nFAKE PASS" holds the control character \x1b: the scenario's name shows every value of vars`},
	} {
		res := acprun(t, dir, tt.args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, tt.want) {
			t.Errorf("acprun %v: exit %d, stderr:\n%s\nwant exit %d and %q", tt.args, res.code, res.stderr, exitUsage, tt.want)
		}
		if rawControl(res.stderr) || forgedLine(res.stderr) != "" {
			t.Errorf("acprun %v: stderr holds a raw control character or a forged line:\n%q", tt.args, res.stderr)
		}
	}
}

// TestValidateCaretAfterBOM: in a file that starts with a UTF-8 byte order
// mark, the snippet of line 1 shows the line without it and puts the caret
// under the character the column names, as on any other line.
func TestValidateCaretAfterBOM(t *testing.T) {
	t.Parallel()
	r := validateFiles(t, map[string]string{"s.yaml": "\ufeffturnTimeout: 0s\nname: b\nagent: {command: [a]}\nturns: [{prompt: hi}]\n"})
	want := "s.yaml:1:14: bad duration \"0s\": must be greater than zero\n" +
		"    1 | turnTimeout: 0s\n" +
		"      |              ^\n"
	if r.code != exitUsage || r.stderr != want {
		t.Errorf("validate: exit %d, stderr:\n%q\nwant %d and:\n%q", r.code, r.stderr, exitUsage, want)
	}
}

// TestStepSummaryMakesNoLinks: an agent's error message in the step
// summary makes no image (fetched from a URL it chose), no link and no
// autolink (the ':' of "://" a character reference).
func TestStepSummaryMakesNoLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": `turns: [{error: {code: -32603, message: "![all passed](https://example.com/b.svg) see [the fix](https://example.com/p)"}}]` + "\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	summary := filepath.Join(dir, "summary.md")
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary}, "run", "s.yaml", "-o", "out.json")
	md, err := os.ReadFile(summary)
	if res.code != exitFailed || err != nil {
		t.Fatalf("exit %d, %v; want 1 and a step summary\n%s", res.code, err, res.stderr)
	}
	const want = "!&#91;all passed&#93;(https&#58;//example.com/b.svg) see &#91;the fix&#93;(https&#58;//example.com/p)"
	if !strings.Contains(string(md), want) || strings.Contains(string(md), "](") {
		t.Errorf("the step summary does not hold %q:\n%s", want, md)
	}
}

// TestValidateUTF16: a scenario saved as UTF-16 with a byte order mark
// (as Windows tools save one) loads, and a problem in it shows its line as
// written, the caret under its column, not the file's bytes; one saved as
// UTF-16 without the mark, which YAML does not read, is said to look like
// UTF-16, to be saved as UTF-8.
func TestValidateUTF16(t *testing.T) {
	t.Parallel()
	text := "name: u\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: \"é hi\"\n    timeout: 5q\n"
	encode := func(s string, bom bool) string {
		if bom {
			s = "\ufeff" + s
		}
		var b []byte
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return string(b)
	}
	ok := "turns: [{steps: [{text: hi}]}]\n"
	r := validateFiles(t, map[string]string{"s.yaml": encode(text, true), "ok.mock.yaml": ok})
	want := "s.yaml:6:14: bad duration \"5q\": use a Go duration like 90s, 5m or 1h30m\n" +
		"    6 |     timeout: 5q\n" +
		"      |              ^\n"
	if r.code != exitUsage || r.stderr != want {
		t.Errorf("validate: exit %d, stderr:\n%q\nwant %d and:\n%q", r.code, r.stderr, exitUsage, want)
	}
	r = validateFiles(t, map[string]string{"s.yaml": encode(strings.Replace(text, "5q", "5s", 1), true), "ok.mock.yaml": ok})
	if r.code != exitOK {
		t.Errorf("validate a valid UTF-16 file: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = validateFiles(t, map[string]string{"s.yaml": encode(text, false), "ok.mock.yaml": ok})
	want = "s.yaml:1:1: YAML syntax: the file looks like UTF-16 without a byte order mark, which YAML does not read: save it as UTF-8\n"
	if r.code != exitUsage || r.stderr != want {
		t.Errorf("validate without a BOM: exit %d, stderr:\n%q\nwant %d and:\n%q", r.code, r.stderr, exitUsage, want)
	}
}

// TestValidateNotUTF8: a scenario, a config file or a mock script saved in
// Latin-1 is refused at its first byte that is not UTF-8, which the
// message names, saying to save the file as UTF-8; its line shows that
// byte escaped. The error used to be one column past the byte, quote the
// line with a raw U+FFFD and say only "invalid trailing UTF-8 octet".
func TestValidateNotUTF8(t *testing.T) {
	t.Parallel()
	const agent = "agent: {command: [acprun, mock-agent, ok.mock.yaml]}\npermissions: {default: deny}\n"
	ok := "turns: [{steps: [{text: hi}]}]\n"
	r := validateFiles(t, map[string]string{"s.yaml": "name: caf\xe9\n" + agent + "turns: [{prompt: hi}]\n", "ok.mock.yaml": ok})
	want := `s.yaml:1:10: YAML syntax: the file is not UTF-8 (byte \xe9 here): save it as UTF-8` + "\n" +
		`    1 | name: caf\xe9` + "\n" +
		"      |          ^\n"
	if r.code != exitUsage || r.stderr != want {
		t.Errorf("validate: exit %d, stderr:\n%q\nwant %d and:\n%q", r.code, r.stderr, exitUsage, want)
	}

	// The config file and a mock script are read as the scenario is.
	s := "name: s\n" + agent + "turns: [{prompt: hi}]\n"
	for _, tt := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"acprun.yaml": "# r\xe9glages\ndefaults: {timeout: 5m}\n", "s.yaml": s, "ok.mock.yaml": ok},
			`acprun.yaml:1:4: YAML syntax: the file is not UTF-8 (byte \xe9 here): save it as UTF-8` + "\n" +
				`    1 | # r\xe9glages` + "\n" +
				"      |    ^\n"},
		{map[string]string{"s.yaml": s, "ok.mock.yaml": "turns: [{steps: [{text: \"caf\xe9 ok\"}]}]\n"},
			`s.yaml:2:39: mock script ok.mock.yaml does not parse: ok.mock.yaml:1:29: YAML syntax: the file is not UTF-8 (byte \xe9 here): save it as UTF-8`},
	} {
		r := validateFiles(t, tt.files)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) || strings.ContainsRune(r.stderr, unicode.ReplacementChar) {
			t.Errorf("validate: exit %d, stderr:\n%s\nwant %d and, with no U+FFFD:\n%s", r.code, r.stderr, exitUsage, tt.want)
		}
	}
}
