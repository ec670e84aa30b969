package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateAliasErrorsAtTheAlias: validate reports a value reached
// through a YAML alias that is wrong where the alias uses it at the alias,
// with its source line and caret, saying where the value is written; in a
// scenario, a config file and a mock script alike. A value wrong where it
// is written is reported there only.
func TestValidateAliasErrorsAtTheAlias(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		want  string // a part of stderr
		whole bool   // want is the whole of stderr
	}{
		{
			name: "scenario",
			files: map[string]string{"s.yaml": "name: s\nagent: {command: [a]}\npermissions: {answerDelay: &d 0s}\n" +
				"turns:\n  - prompt: hi\n    timeout: *d\n  - prompt: again\n    timeout: *d\n"},
			want: "s.yaml:6:14: bad duration \"0s\": must be greater than zero (written at line 3, column 28, in the anchor &d)\n" +
				"    6 |     timeout: *d\n" +
				"      |              ^\n" +
				"s.yaml:8:14: bad duration \"0s\": must be greater than zero (written at line 3, column 28, in the anchor &d)\n" +
				"    8 |     timeout: *d\n" +
				"      |              ^\n",
		},
		{
			name: "said once where it is written",
			files: map[string]string{"s.yaml": "name: s\nagent: {command: [a]}\n" +
				"turns:\n  - prompt: hi\n    timeout: &t banana\n  - prompt: again\n    timeout: *t\n"},
			want: "s.yaml:5:14: bad duration \"banana\": use a Go duration like 90s, 5m or 1h30m\n" +
				"    5 |     timeout: &t banana\n" +
				"      |              ^\n",
			whole: true,
		},
		{
			name:  "an alias inside its own value",
			files: map[string]string{"s.yaml": "name: s\nagent: {command: [a]}\nturns:\n  - &t\n    prompt: hi\n    expect: *t\n"},
			want: "s.yaml:6:13: the alias *t is inside the value it stands for (&t, at line 4, column 5); an alias can only repeat a value that does not contain it\n" +
				"    6 |     expect: *t\n" +
				"      |             ^\n",
			whole: true,
		},
		{
			name: "config",
			files: map[string]string{
				"c.yaml": "defaults:\n  permissions: {answerDelay: &d 0s}\n  turnTimeout: *d\n",
				"s.yaml": "name: s\nagent: {command: [a]}\nturns: [{prompt: hi}]\n",
			},
			args: []string{"--config", "c.yaml"},
			want: "c.yaml:3:16: bad duration \"0s\": must be greater than zero (written at line 2, column 30, in the anchor &d)\n" +
				"    3 |   turnTimeout: *d\n" +
				"      |                ^\n",
		},
		{
			name: "a duplicate env variable copied by an alias: said once, at the first",
			files: map[string]string{
				"c.yaml": "agents:\n  a: {command: [x], env: &e {A: \"1\",\n        A: \"2\"}}\n  b: {command: [y], env: *e}\n",
				"s.yaml": "name: s\nagent: b\nturns: [{prompt: hi}]\n",
			},
			args: []string{"--config", "c.yaml"},
			want: "c.yaml:3:9: duplicate key \"A\" (first at line 2)\n" +
				"    3 |         A: \"2\"}}\n" +
				"      |         ^\n",
			whole: true,
		},
		{
			name: "mock script",
			files: map[string]string{
				"m.mock.yaml": "agentInfo: {name: &n hello}\nprotocolVersion: *n\n",
				"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\nturns: [{prompt: hi}]\n",
			},
			args: []string{"--strict"},
			want: "protocolVersion: want an integer, got a string (written at line 1, column 19, in the anchor &n)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := validateFiles(t, tt.files, tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) || tt.whole && r.stderr != tt.want {
				t.Errorf("validate: exit %d, stderr:\n%s\nwant %d and:\n%s", r.code, r.stderr, exitUsage, tt.want)
			}
		})
	}
}

// TestMergeKeysInEnv: an agent's env takes merge keys (<<) as every
// other mapping does, in a scenario file (from an anchor of an earlier
// document) and in a config agent, and so does an MCP server's _meta:
// validate accepts them, and the agent
// (and so verify, which gets its environment) gets the merged variables,
// those written in the mapping winning over merged ones.
func TestMergeKeysInEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const agent = "  command: [acprun, mock-agent, agent.mock.yaml]\n"
	const rest = "permissions: {default: deny}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"acprun.yaml":     "agents:\n  m:\n  " + agent + "    env: {<<: {LOG: info, X: \"8\"}, X: \"9\"}\n",
		"em.yaml": "name: a\nagent:\n" + agent + "  env: &base {LOG: debug, X: \"1\"}\n" + rest +
			"verify: ['test \"$LOG/$X\" = debug/1']\n" +
			"---\nname: b\nagent:\n" + agent + "  env: {<<: *base, X: \"2\", EXTRA: \"1\"}\n" +
			"  mcpServers: [{name: s, command: s, _meta: {<<: {k: 1, l: 2}, l: 3}}]\n" + rest +
			"verify: ['test \"$LOG/$X/$EXTRA\" = debug/2/1']\n" +
			"---\nname: c\nagent: m\n" + rest + "verify: ['test \"$LOG/$X\" = info/9']\n",
	})
	if r := acprun(t, dir, "validate", "em.yaml"); r.code != exitOK {
		t.Fatalf("validate: exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	r := acprun(t, dir, "run", "em.yaml", "-o", "out.json")
	if r.code != exitOK {
		t.Errorf("run: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := len(readResults(t, filepath.Join(dir, "out.json")).Scenarios); got != 3 {
		t.Errorf("%d scenarios in the results, want 3", got)
	}
}
