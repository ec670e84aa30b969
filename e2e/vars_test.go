package e2e_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
)

// End-to-end tests of parametrised scenarios (vars): the expansion, its
// names in list, --run and --rerun-failed, and the values in prompts,
// verify commands and expectations.

// varsFiles writes a scenario over lang × level on a mock agent that
// answers "done LANG" to a prompt naming LANG, and "no" otherwise.
// brokenRust makes it answer something else for rust.
func varsFiles(t *testing.T, brokenRust bool) string {
	t.Helper()
	rust := "done rust"
	if brokenRust {
		rust = "I only know Go"
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": fmt.Sprintf(`turns:
  - match: 'in go'
    steps: [{text: "done go"}]
  - match: 'in rust'
    steps: [{text: %q}]
default:
  steps: [{text: "no"}]
`, rust),
		"s.yaml": `name: port
vars: {lang: [go, rust], level: [1, 2]}
tags: ["{{.lang}}"]
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
verify:
  - run: echo "built {{.lang}} at level {{.level}}"
    expect: {stdout: {contains: "built {{.lang}} at level {{.level}}"}}
turns:
  - prompt: "Port the tool, in {{.lang}}, level {{.level}}."
    expect: {text: {contains: "done {{.lang}}"}}
`,
	})
	return dir
}

// TestVarsExpandAndPass: list shows the expansion (as text and JSON, with
// the values), --tag and --run select by the values, and a run passes
// every expansion, each result recording its values.
func TestVarsExpandAndPass(t *testing.T) {
	t.Parallel()
	dir := varsFiles(t, false)
	list := acprun(t, dir, "list", "s.yaml")
	want := "s.yaml:1\tport[lang=go,level=1]\t[go]\n" +
		"s.yaml:1\tport[lang=go,level=2]\t[go]\n" +
		"s.yaml:1\tport[lang=rust,level=1]\t[rust]\n" +
		"s.yaml:1\tport[lang=rust,level=2]\t[rust]\n"
	if list.code != exitOK || list.stdout != want {
		t.Errorf("list: exit %d\n%s\nwant\n%s%s", list.code, list.stdout, want, list.stderr)
	}
	jsonList := acprun(t, dir, "list", "--json", "s.yaml", "--tag", "rust", "--run", "level=2")
	var entries []struct {
		Name string            `json:"name"`
		Vars map[string]string `json:"vars"`
	}
	if err := json.Unmarshal([]byte(jsonList.stdout), &entries); err != nil {
		t.Fatalf("list --json: %v\n%s", err, jsonList.stdout)
	}
	if len(entries) != 1 || entries[0].Name != "port[lang=rust,level=2]" || !cmp.Equal(entries[0].Vars, map[string]string{"lang": "rust", "level": "2"}) {
		t.Errorf("list --json --tag rust --run level=2: %+v, want port[lang=rust,level=2] with its vars", entries)
	}

	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	var got []string
	for _, r := range out.Scenarios {
		got = append(got, fmt.Sprintf("%s %s varSet=%d vars=%v prompt=%q", r.Name, r.Status, r.VarSet, r.Vars, r.Turns[0].Prompt))
	}
	wantResults := []string{
		`port[lang=go,level=1] passed varSet=1 vars=map[lang:go level:1] prompt="Port the tool, in go, level 1."`,
		`port[lang=go,level=2] passed varSet=2 vars=map[lang:go level:2] prompt="Port the tool, in go, level 2."`,
		`port[lang=rust,level=1] passed varSet=3 vars=map[lang:rust level:1] prompt="Port the tool, in rust, level 1."`,
		`port[lang=rust,level=2] passed varSet=4 vars=map[lang:rust level:2] prompt="Port the tool, in rust, level 2."`,
	}
	if diff := cmp.Diff(wantResults, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if v := out.Scenarios[3].Verify; len(v) != 1 || v[0].Run != `echo "built rust at level 2"` {
		t.Errorf("verify of the last: %+v, want the command with its values", v)
	}
}

// TestVarsFailAndRerun: the expansions whose values make them fail fail
// alone, named by their values, and --rerun-failed runs just those.
func TestVarsFailAndRerun(t *testing.T) {
	t.Parallel()
	dir := varsFiles(t, true)
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	var failed []string
	for _, r := range out.Scenarios {
		if r.Status != "passed" {
			failed = append(failed, r.Name)
		}
	}
	if want := []string{"port[lang=rust,level=1]", "port[lang=rust,level=2]"}; !cmp.Equal(want, failed) {
		t.Errorf("failed %v, want %v", failed, want)
	}
	if !strings.Contains(res.stderr, `FAIL port[lang=rust,level=1]`) || !strings.Contains(res.stderr, `text does not contain "done rust"`) {
		t.Errorf("the summary does not name the failed expansion and its expectation with its value:\n%s", res.stderr)
	}
	dry := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "out.json", "--dry-run")
	if dry.code != exitOK || strings.Count(dry.stdout, "port[lang=rust") != 2 || strings.Contains(dry.stdout, "port[lang=go") {
		t.Errorf("--rerun-failed --dry-run: exit %d, want the two rust expansions alone:\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
}

// TestVarsBadTemplate: a template that names no variable is an error at
// its place, before anything runs, with a suggestion.
func TestVarsBadTemplate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: port
vars: {lang: [go, rust]}
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: "Port it to {{.lnag}}."
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json")
	if res.code != exitUsage || !strings.Contains(res.stderr, "s.yaml:5:25: {{.lnag}}: vars has no lnag (did you mean lang?)") {
		t.Errorf("exit %d, want 2 and the template's position:\n%s", res.code, res.stderr)
	}
}

// TestVarsUnquotedTemplateHint: acprun validate says to quote a value
// written {{…}} without quotes wherever YAML reads it as a mapping (a
// typed field such as a duration too), and where more text after it makes
// the line a YAML syntax error.
func TestVarsUnquotedTemplateHint(t *testing.T) {
	t.Parallel()
	const hint = `YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}"`
	tests := []struct {
		name, line, want string
	}{
		{"a duration", "turnTimeout: {{.t}}", "s.yaml:5:14: expected a duration like 90s or 5m, got a mapping (" + hint + ")"},
		{"a number", "retries: {{.t}}", "s.yaml:5:10: expected a whole number from 0 to 10"},
		{"more text", "description: {{.t}} long", "s.yaml:5:21: YAML syntax: did not find expected key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"s.yaml": "name: s\nvars: {t: [30s]}\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nturns: [{prompt: hi}]\n" + tt.line + "\n",
			})
			res := acprun(t, dir, "validate", "s.yaml")
			if res.code != exitUsage || !strings.Contains(res.stderr, tt.want) || !strings.Contains(res.stderr, hint) {
				t.Errorf("acprun validate: exit %d, want 2, %q and the hint to quote it:\n%s", res.code, tt.want, res.stderr)
			}
		})
	}
}

// TestVarsErrorNamesTheSet: an error that only some value sets have (a
// value its key refuses, a value that uses an unset variable) names the
// set of each scenario that has it, at the place the value is used: for
// validate, and for a run, which still runs a selected set that has none.
func TestVarsErrorNamesTheSet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unset := `environment variable ACPRUN_E2E_NO_SUCH_KEY is not set (write ${ACPRUN_E2E_NO_SUCH_KEY:-default} to give a default)`
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"timeout.yaml": `name: port
vars: {lang: [go, rust], limit: [30s, soon]}
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
timeout: "{{.limit}}"
turns: [{prompt: "Port it to {{.lang}}."}]
`,
		"key.yaml": `name: ask
vars:
  - {provider: local, key: none}
  - {provider: cloud, key: "${ACPRUN_E2E_NO_SUCH_KEY}"}
agent: {command: [acprun, mock-agent, a.mock.yaml], env: {KEY: "{{.key}}"}}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprun(t, dir, "validate", "timeout.yaml")
	for _, want := range []string{
		`timeout.yaml:5:10: value set lang=go,limit=soon: bad duration "soon": use a Go duration like 90s, 5m or 1h30m`,
		`timeout.yaml:5:10: value set lang=rust,limit=soon: bad duration "soon": use a Go duration like 90s, 5m or 1h30m`,
	} {
		if res.code != exitUsage || !strings.Contains(res.stderr, want+"\n") {
			t.Errorf("validate: exit %d, want 2 and %q:\n%s", res.code, want, res.stderr)
		}
	}
	want := "key.yaml:5:64: value set provider=cloud,key=${ACPRUN_E2E_NO_SUCH_KEY}: " + unset + "\n"
	for _, args := range [][]string{{"validate", "--strict", "key.yaml"}, {"run", "key.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, want) {
			t.Errorf("acprun %s: exit %d, want 2 and %q:\n%s", strings.Join(args, " "), res.code, want, res.stderr)
		}
	}
	res = acprun(t, dir, "run", "key.yaml", "--run", "provider=local", "-o", "out.json")
	if res.code != exitOK {
		t.Errorf("acprun run --run the set without the variable: exit %d, want 0:\n%s", res.code, res.stderr)
	}
}

// TestVarsTemplateMistakeHidesNoSetError: a template that names no
// variable of vars hides no other error of the document: validate
// reports it, then the error of each value set that has one, each named
// with its set, where it used to report the first set's error alone,
// without its set.
func TestVarsTemplateMistakeHidesNoSetError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"t.yaml": `name: t
vars: {lang: [go, rust]}
agent: {command: [acprun, mock-agent, a.mock.yaml]}
turns:
  - prompt: "x {{.lng}}"
    timeout: "{{.lang}}"
`,
	})
	res := acprun(t, dir, "validate", "t.yaml")
	var got []string
	for _, l := range strings.Split(res.stderr, "\n") {
		if strings.HasPrefix(l, "t.yaml:") {
			got = append(got, l)
		}
	}
	want := []string{
		`t.yaml:5:16: {{.lng}}: vars has no lng (did you mean lang?)`,
		`t.yaml:6:14: value set lang=go: bad duration "go": use a Go duration like 90s, 5m or 1h30m`,
		`t.yaml:6:14: value set lang=rust: bad duration "rust": use a Go duration like 90s, 5m or 1h30m`,
	}
	if res.code != exitUsage || !slices.Equal(got, want) {
		t.Errorf("validate: exit %d, errors\n%s\nwant exit 2 and\n%s\nstderr:\n%s", res.code, strings.Join(got, "\n"), strings.Join(want, "\n"), res.stderr)
	}
}

// TestVarsBadTemplateOfATypedValue: a duration or a number written as a
// template that names no variable, or that is malformed, is that error
// alone for validate and run: not also a duration or a number that its
// text is not.
func TestVarsBadTemplateOfATypedValue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"t.yaml": `name: t
vars: {level: [1, 2]}
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {}
turnTimeout: "{{.lvl}}"
retries: "{{ level }}"
turns: [{prompt: hi}]
`,
	})
	want := []string{
		`t.yaml:5:15: {{.lvl}}: vars has no lvl (did you mean level?)`,
		`t.yaml:6:11: bad template {{ level }}: write {{.NAME}} for a value of vars, or {{"{{"}} for a literal {{`,
	}
	for _, args := range [][]string{{"validate", "t.yaml"}, {"run", "t.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		var got []string
		for _, l := range strings.Split(res.stderr, "\n") {
			if strings.HasPrefix(l, "t.yaml:") {
				got = append(got, l)
			}
		}
		if res.code != exitUsage || !slices.Equal(got, want) {
			t.Errorf("%s: exit %d, errors\n%s\nwant exit 2 and\n%s", strings.Join(args, " "), res.code, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestVarsValueWithControlCharacter: a value of vars is in the expanded
// scenario's name, so a tab, a line break or an escape in it is an error
// at the value for validate, list and run, as in a written name, and
// nothing is listed or run; a tag a value makes blank is an error too.
func TestVarsValueWithControlCharacter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"ctl.yaml": `name: vt
vars: {a: ["x\ty", "l1\nl2", "e\e[31mred", ok]}
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: "p {{.a}}"}]
`,
		"blank.yaml": `name: bt
vars: {a: [go, " "]}
tags: ["{{.a}}"]
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	const why = `the scenario's name shows every value of vars, and a name is one line of printable text`
	tests := []struct {
		file string
		want []string
	}{
		{"ctl.yaml", []string{
			`ctl.yaml:2:12: the value a="x\ty" holds the control character \x09: ` + why,
			`ctl.yaml:2:20: the value a="l1\nl2" holds the control character \x0a: ` + why,
			`ctl.yaml:2:30: the value a="e\x1b[31mred" holds the control character \x1b: ` + why,
		}},
		{"blank.yaml", []string{`blank.yaml:3:8: value set a= : tag " " is blank: a tag is a word that --tag selects`}},
	}
	for _, tt := range tests {
		for _, args := range [][]string{{"validate"}, {"list"}, {"run", "-o", "out.json"}} {
			res := acprun(t, dir, append(args, tt.file)...)
			if res.code != exitUsage || res.stdout != "" {
				t.Errorf("acprun %s %s: exit %d, stdout %q; want 2 and nothing listed:\n%s", args[0], tt.file, res.code, res.stdout, res.stderr)
			}
			for _, want := range tt.want {
				if !strings.Contains(res.stderr, want) {
					t.Errorf("acprun %s %s: stderr lacks %q:\n%s", args[0], tt.file, want, res.stderr)
				}
			}
		}
	}
}

// TestVarsTemplatesInTypedKeysMatchTheSchema: a template alone where a
// number, a boolean or a duration goes runs, and acprun schema takes it.
func TestVarsTemplatesInTypedKeysMatchTheSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := `name: s
vars: {code: [0, 1], limit: [30s], strict: [false]}
agent: {command: [acprun, mock-agent, m.mock.yaml]}
permissions: {default: deny}
turnTimeout: "{{.limit}}"
retries: "{{.code}}"
continueAfterCancel: "{{.strict}}"
expect: {denied: "{{.code}}"}
turns: [{prompt: hi}]
verify: [{run: "exit {{.code}}", expect: {exitCode: "{{.code}}"}}]
`
	writeFiles(t, dir, map[string]string{"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n", "s.yaml": src})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitFailed || len(out.Scenarios) != 2 || out.Scenarios[0].Status != "passed" || out.Scenarios[1].Status != "failed" {
		t.Errorf("run: exit %d, want 1: the set with code 0 passes, the one that wants a denial fails\n%s", res.code, res.stderr)
	}
	if err := schemaOf(t, "schema").Validate(schemaInstance(t, src)); err != nil {
		t.Errorf("acprun schema does not take the scenario: %v", err)
	}
}

// TestVarsInConfigDefaults: the config's defaults take a scenario's vars
// as if written in it (the default agent's env, setup), and a default
// that names a variable the scenario's vars lack is an error at its place
// in acprun.yaml that names the scenario, before anything runs.
func TestVarsInConfigDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := `defaults:
  agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {TOKEN: "tok-{{.lang}}"}}
  setup: ['echo "{{.lang}} $TOKEN" > {{.lang}}.txt']
`
	writeFiles(t, dir, map[string]string{
		"acprun.yaml":     config,
		"agent.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": `name: port
vars: {lang: [go, rust]}
permissions: {default: deny}
verify:
  - run: cat {{.lang}}.txt
    expect: {stdout: {contains: "{{.lang}} tok-{{.lang}}"}}
turns: [{prompt: hi}]
`,
		"bad.yaml":   "name: other\nvars: {language: go}\nturns: [{prompt: hi}]\n",
		"worse.yaml": "vars: {language: rust}\nname: another\nturns: [{prompt: hi}]\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	var got []string
	for _, r := range out.Scenarios {
		got = append(got, r.Name+" "+string(r.Status))
	}
	if want := []string{"port[lang=go] passed", "port[lang=rust] passed"}; res.code != exitOK || !cmp.Equal(want, got) {
		t.Errorf("exit %d, scenarios %q; want 0, %q\n%s", res.code, got, want, res.stderr)
	}
	// Each scenario that lacks the variable is named, after the default's
	// position.
	bad := acprun(t, dir, "run", "bad.yaml", "worse.yaml", "-o", "out.json")
	pos := posAfter(t, "acprun.yaml", config, "setup:", "{{.lang}}")
	for _, want := range []string{
		pos + `: {{.lang}}: vars of scenario "other" at bad.yaml:1:1 has no lang (did you mean language?)`,
		pos + `: {{.lang}}: vars of scenario "another" at worse.yaml:1:1 has no lang (did you mean language?)`,
	} {
		if bad.code != exitUsage || !strings.Contains(bad.stderr, want+"\n") {
			t.Errorf("exit %d, want 2 and %q:\n%s", bad.code, want, bad.stderr)
		}
	}
}

// TestRunOfAParametrisedNameAsWritten: --run given a parametrised
// scenario's name as acprun list prints it, port[lang=go], whose [ ] the
// regular expression reads as a class, matches none; the error says how
// to select that name (exit 5, nothing run), and that pattern does.
func TestRunOfAParametrisedNameAsWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "name: port\nvars: {lang: [go, rust]}\nagent: {command: [sh, -c, 'touch ran']}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
	res := acprun(t, dir, "list", "s.yaml", "--run", "port[lang=go]")
	want := `acprun: no scenarios selected: --run 'port[lang=go]' matched none of 2 scenarios; --run takes a regular expression (RE2), in which [ ] . ( ) and the like are special: to select port[lang=go] write --run '^port\[lang=go\]$'`
	if first, _, _ := strings.Cut(res.stderr, " (--allow-empty"); res.code != exitEmpty || first != want {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and:\n%s", res.code, res.stderr, exitEmpty, want)
	}
	res = acprun(t, dir, "list", "s.yaml", "--run", `^port\[lang=go\]$`)
	if res.code != 0 || !strings.Contains(res.stdout, "port[lang=go]") || strings.Contains(res.stdout, "rust") {
		t.Errorf("the pattern the error gives: exit %d, stdout:\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestVarsTemplateInNameWarned: a name with a template of vars keeps it as
// written; validate warns of it, at the template, and still passes.
func TestVarsTemplateInNameWarned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "name: port-{{.lang}}\nvars: {lang: [go, rust]}\nagent: {command: [a]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
	res := acprun(t, dir, "validate", "s.yaml")
	want := "s.yaml:1:12: warning: {{.lang}} stays as written in the name, which is not templated: vars names each scenario by its values (port-{{.lang}}[lang=go]); leave {{.lang}} out of the name\n"
	if res.code != 0 || !strings.HasPrefix(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and a first line:\n%s", res.code, res.stderr, want)
	}
}

// TestRunOfTheNameBeforeTheValues: --run '^port$', the name of a scenario
// with vars as written in its file, matches none of its names, which go on
// with their values; the error gives a pattern that selects them all (exit
// 5, nothing run), not the one that matched none, and that pattern does.
func TestRunOfTheNameBeforeTheValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "name: port\nvars: {lang: [go, rust]}\nagent: {command: [sh, -c, 'touch ran']}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
	res := acprun(t, dir, "run", "s.yaml", "--run", "^port$")
	want := `acprun: no scenarios selected: --run '^port$' matched none of 2 scenarios; port has vars, and its names go on with their values (port[lang=go], …): to select every one write --run '^port\['`
	if first, _, _ := strings.Cut(res.stderr, " (--allow-empty"); res.code != exitEmpty || first != want {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and:\n%s", res.code, res.stderr, exitEmpty, want)
	}
	res = acprun(t, dir, "list", "s.yaml", "--run", `^port\[`)
	if res.code != 0 || !strings.Contains(res.stdout, "port[lang=go]") || !strings.Contains(res.stdout, "port[lang=rust]") {
		t.Errorf("the pattern the error gives: exit %d, stdout:\n%s%s", res.code, res.stdout, res.stderr)
	}
}
