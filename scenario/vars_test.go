package scenario_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// expanded is what a test checks of an expanded scenario.
type expanded struct {
	Name   string
	Vars   []scenario.Var
	VarSet int
	Prompt string
	Verify string
	Tags   []string
}

func expandedOf(scs []*scenario.Scenario) []expanded {
	var out []expanded
	for _, sc := range scs {
		e := expanded{Name: sc.Name, Vars: sc.Vars, VarSet: sc.VarSet, Prompt: sc.Turns[0].PromptText(), Tags: sc.Tags}
		if len(sc.Verify) > 0 {
			e.Verify = sc.Verify[0].Run
		}
		out = append(out, e)
	}
	return out
}

func vars(kv ...string) []scenario.Var {
	var out []scenario.Var
	for i := 0; i < len(kv); i += 2 {
		out = append(out, scenario.Var{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

// TestVarsMatrix: a mapping of names to values expands into every
// combination, the first name varying slowest, each named by its values
// and with them in its prompts, commands and tags; the name itself and
// the scenario without vars keep their {{ as written.
func TestVarsMatrix(t *testing.T) {
	src := `name: fix {{.lang}}
vars: {lang: [go, rust], level: [1, 2]}
agent: {command: [a]}
tags: ["{{.lang}}"]
verify: ["make test-{{ .lang }} LEVEL={{.level}}"]
turns: [{prompt: "Fix the {{.lang}} bug at level {{.level}}; keep {{\"{{\"}}braces}}."}]
---
name: plain
agent: {command: [a]}
turns: [{prompt: "{{.lang}} stays"}]
`
	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	var want []expanded
	i := 0
	for _, lang := range []string{"go", "rust"} {
		for _, level := range []string{"1", "2"} {
			i++
			want = append(want, expanded{
				Name: fmt.Sprintf("fix {{.lang}}[lang=%s,level=%s]", lang, level), Vars: vars("lang", lang, "level", level), VarSet: i,
				Prompt: fmt.Sprintf("Fix the %s bug at level %s; keep {{braces}}.", lang, level),
				Verify: fmt.Sprintf("make test-%s LEVEL=%s", lang, level), Tags: []string{lang},
			})
		}
	}
	want = append(want, expanded{Name: "plain", Prompt: "{{.lang}} stays"})
	if diff := cmp.Diff(want, expandedOf(scs)); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	for i, sc := range scs {
		if sc.Index != i {
			t.Errorf("%s: index %d, want %d", sc.Name, sc.Index, i)
		}
	}
}

// TestVarsList: a list of mappings gives their value sets one after the
// other, each mapping a matrix of its own, in the order of the first
// mapping's names.
func TestVarsList(t *testing.T) {
	src := `name: x
vars:
  - {lang: go, level: [1, 2]}
  - {level: 3, lang: rust}
agent: {command: [a]}
turns: [{prompt: "{{.lang}}/{{.level}}"}]
`
	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range scs {
		got = append(got, sc.Name+" "+sc.Turns[0].PromptText())
	}
	want := []string{"x[lang=go,level=1] go/1", "x[lang=go,level=2] go/2", "x[lang=rust,level=3] rust/3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
}

// TestVarsInPathsAndNumbers: values reach file expectations (paths given
// as keys too), workspaces and text expectations; a value that is one
// template alone becomes a number when it is one; values are taken from
// the file only, never from the environment.
func TestVarsInPathsAndNumbers(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"fixtures/go", "fixtures/rust"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := `name: x
vars: {lang: [go, rust], code: 3, home: "${HOME}"}
agent: {command: [a]}
workspace: fixtures/{{.lang}}
verify: [{run: "true", expect: {exitCode: "{{.code}}"}}]
turns:
  - prompt: "in {{.home}}"
    expect:
      text: {contains: "{{.lang}} done"}
      files: {exists: ["main.{{.lang}}"], contains: {"src/{{.lang}}.txt": "{{.lang}}"}}
`
	scs, _, err := scenario.LoadBytes(filepath.Join(dir, "s.yaml"), []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, lang := range []string{"go", "rust"} {
		sc := scs[i]
		e := sc.Turns[0].Expect
		got := []string{sc.Workspace.From, e.TextContains[0].Value, e.Files.Exists[0].Value, e.Files.Contains[0].Path, e.Files.Contains[0].Text, sc.Turns[0].PromptText()}
		want := []string{filepath.Join(dir, "fixtures", lang), lang + " done", "main." + lang, "src/" + lang + ".txt", lang, "in ${HOME}"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", sc.Name, diff)
		}
		if c := sc.Verify[0].Expect.ExitCode; c != 3 {
			t.Errorf("%s: exitCode %d, want 3", sc.Name, c)
		}
	}
}

// TestVarsErrors: mistakes in vars and in the templates are errors at
// their place, each once however many scenarios the document expands
// into.
func TestVarsErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "templates",
			src: `name: x
vars: {lang: [go, rust]}
agent: {command: [a]}
turns:
  - prompt: "fix {{.lnag}} and {{lang}} and {{ .Values.image }}"
  - prompt: "{{.lang}} {{.level}}"
  - prompt: "open {{ never closed"
`,
			want: []string{
				`bad.yaml:5:18: {{.lnag}}: vars has no lnag (did you mean lang?)`,
				`bad.yaml:5:32: bad template {{lang}}: write {{.NAME}} for a value of vars, or {{"{{"}} for a literal {{`,
				`bad.yaml:5:45: bad template {{ .Values.image }}: write {{.NAME}} for a value of vars, or {{"{{"}} for a literal {{`,
				`bad.yaml:6:24: {{.level}}: vars has no level (vars has lang)`,
				`bad.yaml:7:19: unterminated {{: write {{.NAME}} for a value of vars, or {{"{{"}} for a literal {{`,
			},
		},
		{
			// A value whose template is wrong is that error alone: it is
			// not also a duration or a number that its text is not.
			name: "templates of typed values",
			src: `name: x
vars: {lang: [go, rust]}
agent: {command: [a]}
turnTimeout: "{{.lnag}}"
retries: "{{ lang }}"
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:4:15: {{.lnag}}: vars has no lnag (did you mean lang?)`,
				`bad.yaml:5:11: bad template {{ lang }}: write {{.NAME}} for a value of vars, or {{"{{"}} for a literal {{`,
			},
		},
		{
			name: "values",
			src: `name: x
vars: {lang: [], 2x: a, mode: [a, {b: c}], opt: ~}
agent: {command: [a]}
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:2:14: lang has no values: give at least one`,
				`bad.yaml:2:18: bad variable name "2x": use letters, digits and _, not starting with a digit ({{.2x}} must name it)`,
				`bad.yaml:2:35: expected a value of mode (a string, number or boolean), got a mapping`,
				`bad.yaml:2:49: expected a value of opt (a string, number or boolean), got null`,
			},
		},
		{
			// Every value is in the expanded scenario's name, which is one
			// line of printable text; a tag made blank by a value is
			// empty to --tag.
			name: "control characters and blank tags",
			src: `name: x
vars: {a: ["x\ty", "l1\nl2", "e\e[31m", "\u0085", ok, "\u202e"]}
agent: {command: [a]}
turns: [{prompt: hi}]
---
name: y
vars: {t: [go, " "]}
tags: ["{{.t}}", "  "]
agent: {command: [a]}
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:2:12: the value a="x\ty" holds the control character \x09: the scenario's name shows every value of vars, and a name is one line of printable text (for a longer text, give the path of a file that holds it: prompt: [{file: "{{.a}}"}])`,
				`bad.yaml:2:20: the value a="l1\nl2" holds the control character \x0a: the scenario's name shows every value of vars, and a name is one line of printable text (for a longer text, give the path of a file that holds it: prompt: [{file: "{{.a}}"}])`,
				`bad.yaml:2:30: the value a="e\x1b[31m" holds the control character \x1b: the scenario's name shows every value of vars, and a name is one line of printable text (for a longer text, give the path of a file that holds it: prompt: [{file: "{{.a}}"}])`,
				`bad.yaml:2:41: the value a="\u0085" holds the control character \x85: the scenario's name shows every value of vars, and a name is one line of printable text (for a longer text, give the path of a file that holds it: prompt: [{file: "{{.a}}"}])`,
				`bad.yaml:2:55: the value a="\u202e" holds the bidi control character \u202e: the scenario's name shows every value of vars, and a name is one line of printable text (for a longer text, give the path of a file that holds it: prompt: [{file: "{{.a}}"}])`,
				`bad.yaml:8:8: value set t= : tag " " is blank: a tag is a word that --tag selects`,
				`bad.yaml:8:18: tag "  " is blank: a tag is a word that --tag selects`,
			},
		},
		{
			name: "sets",
			src: `name: x
vars:
  - {lang: go, level: 1}
  - {lang: rust}
  - {level: 1, lang: go}
  - 3
agent: {command: [a]}
turns: [{prompt: "{{.lang}}"}]
---
name: y
vars: []
agent: {command: [a]}
turns: [{prompt: hi}]
---
name: z
vars: go
agent: {command: [a]}
turns: [{prompt: hi}]
---
name: w
vars: {a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], c: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}
agent: {command: [a]}
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:4:5: this value set names lang, the first (line 3) lang, level: every value set of vars names the same variables`,
				`bad.yaml:5:5: the values lang=go,level=1 are given twice (first at line 3): each value set is one scenario`,
				`bad.yaml:6:5: expected a mapping, got a number`,
				`bad.yaml:11:7: vars is empty: give the values of each variable, such as {lang: [go, rust]}`,
				`bad.yaml:16:7: expected vars: a mapping of names to values (each combination is a scenario), or a list of such mappings, got a string`,
				`bad.yaml:21:7: vars expands into more than 1000 scenarios: split the scenario, or list the value sets you need`,
			},
		},
		{
			// A list as the only name is one error, at the name: vars is
			// not also empty.
			name: "a list as the only name",
			src:  "name: x\nvars: {[a]: 1}\nagent: {command: [a]}\nturns: [{prompt: hi}]\n---\nname: y\nvars: [{[a]: 1}]\nagent: {command: [a]}\nturns: [{prompt: hi}]\n",
			want: []string{
				"bad.yaml:2:8: expected a key name, got a list",
				"bad.yaml:7:9: expected a key name, got a list",
			},
		},
		{
			name: "an unquoted template",
			src: `name: x
vars: {lang: [go]}
agent: {command: [a]}
turns: [{prompt: hi}]
verify: [{run: {{.lang}}}]
tags: {{.lang}}
teardown: [{run: x}, {{.lang}}]
`,
			want: []string{
				`bad.yaml:5:16: expected a string, got a mapping (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
				`bad.yaml:6:7: expected a string or a list of strings, got a mapping (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
				`bad.yaml:7:22: missing required key "run" (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
				`bad.yaml:7:23: expected a key name, got a mapping (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
			},
		},
		{
			// Every typed field says so too: a duration, a whole number,
			// an exit code, a boolean, a pass rate.
			name: "an unquoted template in a typed field",
			src: `name: x
vars: {code: [3]}
agent: {command: [a]}
turns: [{prompt: hi}]
turnTimeout: {{.code}}
retries: {{.code}}
verify: [{run: x, expect: {exitCode: {{.code}}}}]
client: {fs: {{.code}}}
expect: {passRate: {{.code}}}
`,
			want: []string{
				`bad.yaml:5:14: expected a duration like 90s or 5m, got a mapping (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
				`bad.yaml:6:10: expected a whole number from 0 to 10 (how many times an attempt that errored or was invalid is run again), got a mapping (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
				`bad.yaml:7:38: expected an exit code (a whole number from 0 to 255), got a mapping (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
				`bad.yaml:8:14: expected true or false, got a mapping (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
				`bad.yaml:9:20: expected a pass rate, a number above 0 and at most 1 (0.8 for 80% of the attempts), got a mapping (YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}")`,
			},
		},
		{
			// A template followed by more text is a YAML syntax error.
			name: "an unquoted template before more text",
			src: `name: x
vars: {lang: [go]}
agent: {command: [a]}
turns:
  - prompt: {{.lang}} code
`,
			want: []string{
				`bad.yaml:5:23: YAML syntax: did not find expected key (while parsing a block mapping that starts at line 5, column 5); YAML reads an unquoted {{ as the start of a mapping: quote a value with a template, as "{{.NAME}}"`,
			},
		},
		{
			// A mapping that is not written {{ gets no hint.
			name: "a mapping where a number goes",
			src: `name: x
agent: {command: [a]}
turns: [{prompt: hi}]
retries: { n: 1 }
`,
			want: []string{
				`bad.yaml:4:10: expected a whole number from 0 to 10 (how many times an attempt that errored or was invalid is run again), got a mapping`,
			},
		},
		{
			name: "an error of the rest, once",
			src: `name: x
vars: {lang: [go, rust, zig]}
agent: {command: [a]}
timeout: soon
turns: [{prompt: "{{.lang}}"}]
`,
			want: []string{`bad.yaml:4:10: bad duration "soon": use a Go duration like 90s, 5m or 1h30m`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := scenario.LoadBytes("bad.yaml", []byte(tt.src), opts)
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVarsErrorsNameTheSet: a problem that only some value sets have (a
// value a key refuses, a value that uses an unset variable) names the set
// of each scenario that has it, at the place the value is used; one that
// every set has is said once, as it is. Deferred, an unset variable is
// its scenario's, named the same.
func TestVarsErrorsNameTheSet(t *testing.T) {
	src := `name: x
vars: {lang: [go, rust], t: [30s, soon]}
agent: {command: [a, "{{.lang}}"]}
timeout: "{{.t}}"
turns: [{prompt: hi}]
---
name: y
vars:
  - {key: "${HOME}"}
  - {key: "${NO_SUCH_KEY}"}
agent: {command: [a], env: {KEY: "{{.key}}"}}
turns: [{prompt: hi}]
---
name: z
vars: {key: ["${NO_SUCH_KEY}", "${NO_SUCH_KEY}/b"]}
agent: {command: [a], env: {KEY: "{{.key}}"}}
turns: [{prompt: hi}]
`
	unset := `environment variable NO_SUCH_KEY is not set (write ${NO_SUCH_KEY:-default} to give a default)`
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	want := []string{
		`bad.yaml:4:10: value set lang=go,t=soon: bad duration "soon": use a Go duration like 90s, 5m or 1h30m`,
		`bad.yaml:4:10: value set lang=rust,t=soon: bad duration "soon": use a Go duration like 90s, 5m or 1h30m`,
		`bad.yaml:11:34: value set key=${NO_SUCH_KEY}: ` + unset,
		`bad.yaml:16:34: ` + unset,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}

	deferred := opts
	deferred.DeferUnset = true
	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src[strings.Index(src, "name: y"):]), deferred)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range scs {
		for _, e := range sc.Unset {
			got = append(got, sc.Name+": "+e.Error())
		}
	}
	want = []string{
		`y[key=${NO_SUCH_KEY}]: s.yaml:5:34: value set key=${NO_SUCH_KEY}: ` + unset,
		`z[key=${NO_SUCH_KEY}]: s.yaml:10:34: ` + unset,
		`z[key=${NO_SUCH_KEY}/b]: s.yaml:10:34: ` + unset,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unset variables of each scenario (-want +got):\n%s", diff)
	}
}

// TestVarsErrorsNameTheSetBesideOthers: a mistake in a template or in
// vars hides no other: every good value set is still checked, and a
// problem that only some of them have names each set that has it.
func TestVarsErrorsNameTheSetBesideOthers(t *testing.T) {
	src := `name: t
vars: {lang: [go, rust]}
agent: {command: [a]}
turns:
  - prompt: "x {{.lng}}"
    timeout: "{{.lang}}"
---
name: u
vars:
  - {t: [1s, soon, later]}
  - {t: soon}
agent: {command: [a]}
timeout: "{{.t}}"
turns: [{prompt: hi}]
`
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	want := []string{
		`bad.yaml:5:16: {{.lng}}: vars has no lng (did you mean lang?)`,
		`bad.yaml:6:14: value set lang=go: bad duration "go": use a Go duration like 90s, 5m or 1h30m`,
		`bad.yaml:6:14: value set lang=rust: bad duration "rust": use a Go duration like 90s, 5m or 1h30m`,
		`bad.yaml:11:5: the values t=soon are given twice (first at line 10): each value set is one scenario`,
		`bad.yaml:13:10: value set t=soon: bad duration "soon": use a Go duration like 90s, 5m or 1h30m`,
		`bad.yaml:13:10: value set t=later: bad duration "later": use a Go duration like 90s, 5m or 1h30m`,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestVarsNamesUnique: an expanded name that another scenario has is a
// duplicate, as any name.
func TestVarsNamesUnique(t *testing.T) {
	src := "name: x\nvars: {a: 1}\nagent: {command: [a]}\nturns: [{prompt: hi}]\n---\nname: x[a=1]\nagent: {command: [a]}\nturns: [{prompt: hi}]\n"
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	if err == nil || !strings.Contains(err.Error(), `bad.yaml:6:1: duplicate scenario name "x[a=1]" (first at bad.yaml:1:1)`) {
		t.Errorf("err = %v, want the duplicate name", err)
	}
}

// TestVarsTooLarge: a long document with many value sets is refused at
// vars instead of being expanded into more than acprun reads at once.
func TestVarsTooLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: x\nvars: {n: [")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, i)
	}
	b.WriteString("]}\nagent: {command: [a]}\nturns:\n")
	for range 600 {
		b.WriteString("  - prompt: hi\n")
	}
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(b.String()), opts)
	want := "bad.yaml:2:7: vars expands into 1000 scenarios of 1204 values each, more than acprun reads at once (1048576 values): split the scenario"
	if diff := cmp.Diff([]string{want}, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestVarsTemplateInName: a template of vars in the name stays as written
// (a name is not templated; vars names each scenario by its values), which
// a warning at the template says, once for the document.
func TestVarsTemplateInName(t *testing.T) {
	src := "name: port-{{.lang}}\nvars: {lang: [go, rust]}\nagent: {command: [a]}\npermissions: {default: deny}\nturns: [{prompt: \"{{.lang}}\"}]\n"
	scs, warns, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) != 2 || scs[0].Name != "port-{{.lang}}[lang=go]" {
		t.Fatalf("scenarios %d, first %q", len(scs), scs[0].Name)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{"s.yaml:1:12: {{.lang}} stays as written in the name, which is not templated: vars names each scenario by its values (port-{{.lang}}[lang=go]); leave {{.lang}} out of the name"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
