package scenario_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestAliasErrorsAtTheAlias: a value reached through a YAML alias that is
// wrong where the alias uses it is reported at the alias, saying where the
// value is written (in the anchor, with the column inside the value where
// there is one); a value that is wrong where it is written is reported
// there, once, however many aliases use it.
func TestAliasErrorsAtTheAlias(t *testing.T) {
	base := dirsUnder(t, "cfg", "s")
	cfgFile, scFile := base+"/cfg/acprun.yaml", base+"/s/x.yaml"
	tests := []struct {
		name   string
		config string // "" for none
		src    string
		want   []string
	}{
		{
			name: "wrong in one place only",
			src: "name: x\nagent: {command: [a]}\npermissions: {answerDelay: &d 0s}\n" +
				"turns:\n  - prompt: hi\n    timeout: *d\n",
			want: []string{scFile + `:6:14: bad duration "0s": must be greater than zero (written at line 3, column 28, in the anchor &d)`},
		},
		{
			name: "a key of an aliased mapping",
			src: "name: x\nagent: {command: [a]}\nturns:\n  - prompt: hi\n    expect: &e {stopReason: end_turn}\n" +
				"expect: *e\n",
			want: []string{scFile + `:6:9: unknown key "stopReason" (valid keys: denied, maxDenied, toolCalls, files, permissions, usage, judge, agent, notices, passRate); ` +
				`stopReason belongs in a turn's expect (written at line 5, column 17, in the anchor &e)`},
		},
		{
			name: "a merge key",
			src: "name: x\nagent: {command: [a]}\nturns:\n  - prompt: hi\n    expect: &e {stopReason: end_turn}\n" +
				"expect: {<<: *e, maxDenied: 1}\n",
			want: []string{scFile + `:6:14: unknown key "stopReason" (valid keys: denied, maxDenied, toolCalls, files, permissions, usage, judge, agent, notices, passRate); ` +
				`stopReason belongs in a turn's expect (written at line 5, column 17, in the anchor &e)`},
		},
		{
			name: "a template, placed inside the anchor's value",
			src:  "name: &n \"x{{.nope}}\"\nvars: {v: 1}\nagent: {command: [a]}\nturns:\n  - prompt: *n\n",
			want: []string{scFile + `:5:13: {{.nope}}: vars has no nope (vars has v) (written at line 1, column 12, in the anchor &n)`},
		},
		{
			name: "a value set's value",
			src:  "name: &n \"{{.t}}\"\nvars: {t: [banana]}\nagent: {command: [a]}\nturns:\n  - prompt: hi\n    timeout: *n\n",
			want: []string{scFile + `:6:14: bad duration "banana": use a Go duration like 90s, 5m or 1h30m (written at line 1, column 7, in the anchor &n)`},
		},
		{
			name: "an unset variable",
			src:  "name: x\ndescription: &v \"a ${NOPE}\"\nagent: {command: [a], env: {X: *v}}\nturns: [{prompt: hi}]\n",
			want: []string{scFile + `:3:32: environment variable NOPE is not set (write ${NOPE:-default} to give a default) (written at line 2, column 20, in the anchor &v)`},
		},
		{
			name:   "a named agent of the config, read when a scenario uses it",
			config: "currency: &p nope\nagents:\n  a: {command: [x], cwd: *p}\n",
			src:    "name: x\nagent: a\nturns: [{prompt: hi}]\n",
			want: []string{cfgFile + `:3:26: agent cwd ` + base + `/cfg/nope does not exist: create that directory, or change cwd (a relative cwd is relative to ` + base + `/cfg)` +
				` (written at line 1, column 11, in the anchor &p)`},
		},
		{
			name: "wrong where it is written: said there once",
			src: "name: x\nagent: {command: [a]}\nturns:\n  - prompt: hi\n    timeout: &t banana\n" +
				"  - prompt: again\n    timeout: *t\n  - &u {prompt: a,\n       prompt: b}\n  - *u\n",
			want: []string{
				scFile + `:5:14: bad duration "banana": use a Go duration like 90s, 5m or 1h30m`,
				scFile + `:9:8: duplicate key "prompt" (first at line 8)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, loadErrorLines(t, cfgFile, tt.config, scFile, tt.src)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAliasErrorShowsTheAlias: the source line of an error at an alias is
// the alias's, with the caret under it.
func TestAliasErrorShowsTheAlias(t *testing.T) {
	src := "name: x\nagent: {command: [a]}\npermissions: {answerDelay: &d 0s}\nturns:\n  - prompt: hi\n    timeout: *d\n"
	_, _, err := scenario.LoadBytes("x.yaml", []byte(src), opts)
	var errs scenario.Errors
	if !errors.As(err, &errs) || len(errs) != 1 {
		t.Fatalf("LoadBytes error = %v, want one", err)
	}
	if got, want := errs[0].Snippet(), "    6 |     timeout: *d\n      |              ^\n"; got != want {
		t.Errorf("snippet:\n%s\nwant:\n%s", got, want)
	}
}

// TestAliasWarningSaysWhere: a warning at an alias says where the value
// is written, as an error does.
func TestAliasWarningSaysWhere(t *testing.T) {
	src := "name: x\nagent: {command: [a]}\ntimeout: 1m\ncancelGrace: &l 2m\nturns:\n  - prompt: hi\n    timeout: *l\n"
	scs, _, err := scenario.LoadBytes("x.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	var got []string
	for _, w := range scs[0].Warnings {
		got = append(got, w.String())
	}
	want := "x.yaml:7:14: turn timeout 2m0s is longer than the scenario timeout 1m0s (written at line 4, column 14, in the anchor &l)"
	if !strings.Contains(strings.Join(got, "\n"), want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// TestAliasUnsetWarningSaysWhere: an unset variable through an alias,
// deferred to the command, is a warning at the alias that says where the
// value is written.
func TestAliasUnsetWarningSaysWhere(t *testing.T) {
	src := "name: x\ndescription: &v \"a ${NOPE}\"\nagent: {command: [a], env: {X: *v}}\nturns: [{prompt: hi}]\n"
	o := opts
	o.DeferUnset = true
	scs, _, err := scenario.LoadBytes("x.yaml", []byte(src), o)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	ws := scenario.UnsetWarnings(scs)
	want := `x.yaml:3:32: environment variable NOPE is not set (write ${NOPE:-default} to give a default) (written at line 2, column 20, in the anchor &v); scenario "x" needs it to run`
	if len(ws) != 1 || ws[0].String() != want {
		t.Errorf("warnings %q, want %q", ws, want)
	}
}

// TestAliasDuplicateEnv: a named agent's env with a key given twice,
// copied to another agent by an alias, is one error at the anchor, whose
// "first at line" is where the first key is written.
func TestAliasDuplicateEnv(t *testing.T) {
	cfg := "agents:\n  a: {command: [x], env: &e {A: \"1\",\n        A: \"2\"}}\n  b: {command: [y], env: *e}\n"
	_, err := scenario.LoadConfigBytes("acprun.yaml", []byte(cfg), opts)
	want := []string{`acprun.yaml:3:9: duplicate key "A" (first at line 2)`}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestMergeKeysInEnvAndMeta: an agent's env (in a scenario, a config
// agent or the config's default agent) and an MCP server's _meta take
// merge keys (<<) as every other mapping does: the keys written in the
// mapping win over merged ones, and a key written twice is still an
// error.
func TestMergeKeysInEnvAndMeta(t *testing.T) {
	cfg := loadConfig(t, "agents:\n  named: {command: [n], env: &named {A: \"1\", B: \"2\"}}\n"+
		"  more: {command: [m], env: {<<: *named, B: \"3\"}}\n"+
		"defaults:\n  agent: {command: [d], env: {<<: [*named, {C: \"4\"}], A: \"5\"}}\n")
	src := "name: a\nagent:\n  command: [a]\n  env: &base {LOG: debug, X: \"1\"}\n" +
		"  mcpServers: [{name: s, command: s, _meta: &meta {k: 1, l: [2]}}]\nturns: [{prompt: hi}]\n" +
		"---\nname: b\nagent:\n  command: [a]\n  env: {<<: *base, X: \"2\", EXTRA: \"1\"}\n" +
		"  mcpServers: [{name: s, command: s, _meta: {<<: *meta, k: 3}}]\nturns: [{prompt: hi}]\n" +
		"---\nname: c\nagent: more\nturns: [{prompt: hi}]\n" +
		"---\nname: d\nturns: [{prompt: hi}]\n"
	scs := loadWith(t, cfg, src)
	want := []map[string]string{
		{"LOG": "debug", "X": "1"},
		{"LOG": "debug", "X": "2", "EXTRA": "1"},
		{"A": "1", "B": "3"},
		{"A": "5", "B": "2", "C": "4"},
	}
	for i, sc := range scs {
		if diff := cmp.Diff(want[i], sc.Agent.Env); diff != "" {
			t.Errorf("scenario %s: env (-want +got):\n%s", sc.Name, diff)
		}
	}
	if got, want := string(scs[1].Agent.McpServers), `[{"name":"s","command":"s","_meta":{"k":3,"l":[2]}}]`; got != want {
		t.Errorf("scenario b: mcpServers %s, want %s", got, want)
	}

	// A key twice is still an error, merged or not; so is a bad merge.
	bad := "name: x\nagent:\n  command: [a]\n  env: {<<: {A: \"1\"}, B: \"2\", B: \"3\", <<: 4}\n" +
		"  mcpServers: [{name: s, command: s, _meta: {<<: [{k: 1}, x], k: 2, k: 3}}]\nturns: [{prompt: hi}]\n"
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(bad), opts)
	wantErrs := []string{
		`bad.yaml:4:31: duplicate key "B" (first at line 4)`,
		`bad.yaml:4:43: a merge (<<) takes a mapping or a list of mappings, got a number`,
		`bad.yaml:5:59: a merge (<<) takes a mapping or a list of mappings, got a string`,
		`bad.yaml:5:69: duplicate key "k" (first at line 5)`,
	}
	if diff := cmp.Diff(wantErrs, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
