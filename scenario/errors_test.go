package scenario_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/scenario"
)

// env is the fake environment of the tests.
func env(name string) (string, bool) {
	switch name {
	case "HOME":
		return "/home/user", true
	case "ANTHROPIC_API_KEY":
		return "sk-test", true
	case "EMPTY":
		return "", true
	}
	return "", false
}

var opts = scenario.LoadOptions{LookupEnv: env}

// errorLines returns err's messages, one per element.
func errorLines(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs scenario.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error is %T, want scenario.Errors: %v", err, err)
	}
	return strings.Split(err.Error(), "\n")
}

// loadErrorLines is errorLines of loading src as the file scFile, with
// the config file cfgFile of text config when config is not "".
func loadErrorLines(t *testing.T, cfgFile, config, scFile, src string) []string {
	t.Helper()
	o := opts
	if config != "" {
		o.Config = loadConfigAt(t, cfgFile, config)
	}
	_, _, err := scenario.LoadBytes(scFile, []byte(src), o)
	return errorLines(t, err)
}

// The files of these tests are named bad.yaml in the package directory, so
// that prompt files can be taken from testdata/.
func TestLoadBytesErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "unknown key with a close match",
			src: `name: x
agent: {command: [a]}
turns:
- promt: hi
`,
			want: []string{`bad.yaml:4:3: unknown key "promt" (did you mean "prompt"?)`},
		},
		{
			name: "unknown key in snake case",
			src: `name: x
agent: {command: [a]}
turn_timeout: 1m
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:3:1: unknown key "turn_timeout" (did you mean "turnTimeout"?)`},
		},
		{
			name: "unknown key with no close match lists the valid keys",
			src: `name: x
agent: {command: [a], shell: bash}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:2:23: unknown key "shell" (valid keys: command, name, replay, args, env, cwd, auth, mode, model, config, mcpServers, reuse)`},
		},
		{
			name: "scenario-level expect points to the turn",
			src: `name: x
agent: {command: [a]}
expect: {stopReason: end_turn}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:3:10: unknown key "stopReason" (valid keys: denied, maxDenied, toolCalls, files, permissions, usage, judge, agent, notices, passRate); stopReason belongs in a turn's expect`},
		},
		{
			name: "tags --tag could never select",
			src: `name: x
agent: {command: [a]}
tags: ["smoke,nightly", "", nightly]
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:3:8: tag "smoke,nightly" has a comma, where --tag splits its value, so --tag could never select it: write one tag for each part, [smoke, nightly]`,
				`bad.yaml:3:25: tag is empty: --tag could never select it`,
			},
		},
		{
			// list shows tags separated by spaces: a tag with white space
			// would read as several, one with a format character as
			// another it is not.
			name: "tags that are not one word",
			src: `name: x
agent: {command: [a]}
tags: ["a\tb", "c d", "e\u00a0f", "g\u202eh", "i\u200dj", ok-1_2.3, 日本]
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:3:8: tag "a\tb" holds the control character \x09: a tag is one word, without white space, control or format characters (write several tags, [a, b])`,
				`bad.yaml:3:16: tag "c d" holds a space: a tag is one word, without white space, control or format characters (write several tags, [c, d])`,
				`bad.yaml:3:23: tag "e\u00a0f" holds the space character \u00a0: a tag is one word, without white space, control or format characters (write several tags, [e, f])`,
				`bad.yaml:3:35: tag "g\u202eh" holds the bidi control character \u202e: a tag is one word, without white space, control or format characters (write several tags, [g, h])`,
				`bad.yaml:3:47: tag "i\u200dj" holds the format character \u200d: a tag is one word, without white space, control or format characters (write several tags, [i, j])`,
			},
		},
		{
			name: "empty agent values with nothing to drop",
			src: `name: x
agent: {command: [a], model: "", mode: "", auth: "${EMPTY:-}"}
turns: [{prompt: hi}]
---
name: y
agent: {name: mock, args: [x.mock.yaml], model: "", cwd: ""}
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:2:30: model is empty: give the id of a model the agent offers, or leave model out for the agent's default`,
				`bad.yaml:2:40: mode is empty: give the id of a session mode the agent offers, or leave mode out for the agent's default`,
				`bad.yaml:2:50: auth is empty (is the variable that gives it unset?): give the id of an auth method the agent offers, or leave auth out to skip authenticate`,
				`bad.yaml:6:49: model is empty: give the id of a model the agent offers, or leave model out for the agent's default`,
				`bad.yaml:6:58: cwd is empty: give a directory, or leave cwd out for the scenario file's directory`,
			},
		},
		{
			name: "numbers too large",
			src: `name: x
agent: {command: [a]}
budget: {maxTotalTokens: 9223372036854775808, maxRequests: 1e30}
expect: {maxDenied: 3000000000}
timeout: 3000000h
turnTimeout: -3000000h
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:3:26: 9223372036854775808 is too large: the most it may be is 9223372036854775807`,
				`bad.yaml:3:60: 1e30 is too large: the most it may be is 9223372036854775807`,
				`bad.yaml:4:21: 3000000000 is too large: the most it may be is 2147483647`,
				`bad.yaml:5:10: bad duration "3000000h": too large: the most it may be is 2562047h47m16.854775807s`,
				`bad.yaml:6:14: bad duration "-3000000h": must be greater than zero`,
			},
		},
		{
			name: "duplicate key",
			src: `name: x
agent: {command: [a]}
name: y
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:3:1: duplicate key "name" (first at line 1)`},
		},
		{
			name: "list of strings got a mapping",
			src: `name: x
agent: {command: [a]}
client: {roots: {a: b}}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:3:17: expected a list of strings, got a mapping`},
		},
		{
			name: "string or list got a number inside the list",
			src: `name: x
tags: [ok, {a: b}]
agent: {command: [a]}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:2:12: expected a string, got a mapping`},
		},
		{
			name: "boolean got a string",
			src: `name: x
agent: {command: [a]}
continueAfterCancel: "yes"
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:3:22: expected true or false, got the string "yes" (YAML 1.1's yes: write true)`},
		},
		{
			// YAML 1.1's spellings of a boolean, and a quoted true or
			// false, are quoted with what to write; another value is
			// quoted.
			name: "booleans spelled otherwise",
			src: `name: x
agent: {command: [a], reuse: Off}
continueAfterCancel: "True"
sandbox: {verify: 1, network: true}
session: {resume: maybe}
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:2:30: expected true or false, got the string "Off" (YAML 1.1's Off: write false)`,
				`bad.yaml:3:22: expected true or false, got the string "True" (write true without quotes)`,
				`bad.yaml:4:19: expected true or false, got the number 1`,
				`bad.yaml:5:19: expected true or false, got the string "maybe"`,
			},
		},
		{
			name: "duration without a unit",
			src: `name: x
agent: {command: [a]}
timeout: 90
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:3:10: bad duration "90" (a unit is required): use a Go duration like 90s, 5m or 1h30m`},
		},
		{
			name: "bad duration",
			src: `name: x
agent: {command: [a]}
turns:
  - prompt: hi
    timeout: 5 minutes
`,
			want: []string{`bad.yaml:5:14: bad duration "5 minutes": use a Go duration like 90s, 5m or 1h30m`},
		},
		{
			name: "negative duration",
			src: `name: x
agent: {command: [a]}
killGrace: -5s
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:3:12: bad duration "-5s": must be greater than zero`},
		},
		{
			name: "bad regexp",
			src: `name: x
agent: {command: [a]}
turns:
  - prompt: hi
    expect: {text: {matches: "fixed ("}}
`,
			want: []string{"bad.yaml:5:30: bad regular expression: error parsing regexp: missing closing ): `fixed (`"},
		},
		{
			name: "missing required keys at the mapping",
			src: `description: nothing else
`,
			want: []string{
				`bad.yaml:1:1: missing required key "name"`,
				`bad.yaml:1:1: missing required key "agent": name the agent that runs it (agent: claude, or agent: {command: [...]}), or give every scenario one with defaults.agent in the config file (acprun.yaml, or --config FILE)`,
				`bad.yaml:1:1: missing required key "turns"`,
			},
		},
		{
			name: "missing prompt and agent command",
			src: `name: x
agent:
  cwd: ./testdata
turns:
  - timeout: 1m
`,
			want: []string{
				`bad.yaml:3:3: missing required key "command"`,
				`bad.yaml:5:5: missing required key "prompt"`,
			},
		},
		{
			name: "empty agent command list",
			src: `name: x
agent: {command: []}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:2:18: agent command is empty`},
		},
		{
			name: "blank agent command string",
			src: `name: x
agent: {command: "  "}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:2:18: agent command is empty`},
		},
		{
			name: "unterminated quote in command",
			src: `name: x
agent: {command: agent --flag 'oops}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:2:31: unterminated ' in command`},
		},
		{
			name: "agent of the wrong type",
			src: `name: x
agent: [a, b]
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:2:8: expected an agent name or a mapping with a command, got a list`},
		},
		{
			name: "unknown permission kind and default",
			src: `name: x
agent: {command: [a]}
permissions:
  default: maybe
  allow:
    - kind: [read, exec]
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:4:12: unknown default "maybe" (valid values: allow, deny)`,
				`bad.yaml:6:20: unknown permission kind "exec" (did you mean "execute"?)`,
			},
		},
		{
			name: "unknown permission kind with no close match",
			src: `name: x
agent: {command: [a]}
permissions:
  deny: [{kind: write}]
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:4:17: unknown permission kind "write" (valid kinds: read, edit, delete, move, search, execute, think, fetch, switch_mode, other)`},
		},
		// The short forms --allow and --deny take are no rules in a file:
		// the error shows the mapping each stands for.
		{
			name: "rules written as the flags' short forms",
			src: `name: x
agent: {command: [a]}
permissions:
  allow: [read, "execute:go test *", "edit:src/**"]
  deny: ["path:**/.env", rm]
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:4:11: a rule is a mapping of matchers, not a string: write {kind: read} ("read" is the short form --allow takes)`,
				`bad.yaml:4:17: a rule is a mapping of matchers, not a string: write {kind: execute, command: "go test *"} ("execute:go test *" is the short form --allow takes)`,
				`bad.yaml:4:38: a rule is a mapping of matchers, not a string: write {kind: edit, path: "src/**"} ("edit:src/**" is the short form --allow takes)`,
				`bad.yaml:5:10: a rule is a mapping of matchers, not a string: write {path: "**/.env"} ("path:**/.env" is the short form --deny takes)`,
				`bad.yaml:5:26: a rule is a mapping of matchers, not a string: write one such as {kind: read} or {command: "go test *"}`,
			},
		},
		{
			name: "rule with no matcher",
			src: `name: x
agent: {command: [a]}
permissions:
  allow:
    - always: true
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:5:7: rule has no matcher: give at least one of kind, tool, title, command, path or input`},
		},
		{
			name: "examples without a command matcher",
			src: `name: x
agent: {command: [a]}
permissions:
  allow:
    - kind: read
      examples: {match: [cat x, ls], noMatch: rm}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:6:7: examples need a command matcher: they are command lines checked against command`},
		},
		{
			name: "rule checked by approve",
			src: `name: x
agent: {command: [a]}
permissions:
  deny:
    - path: "src/[a"
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:5:13: bad pattern "src/[a": malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal [`},
		},
		{
			name: "bad input regexp",
			src: `name: x
agent: {command: [a]}
permissions:
  deny:
    - input: {url: "^(https"}
turns: [{prompt: hi}]
`,
			want: []string{"bad.yaml:5:20: bad regular expression for input \"url\": error parsing regexp: missing closing ): `^(https`"},
		},
		{
			name: "yaml syntax error",
			src: `name: x
agent: {command: [a]}
turns:
  - prompt: [hi,
`,
			want: []string{`bad.yaml:4:13: YAML syntax: did not find expected node content; the [ here is never closed with ]`},
		},
		{
			name: "yaml syntax error on the first line",
			src: `name: a: b
`,
			want: []string{`bad.yaml:1:8: YAML syntax: mapping values are not allowed in this context; quote a value that contains ": ", or check this line's indentation`},
		},
		{
			name: "tab indentation",
			src:  "name: x\n\tagent: a\n",
			want: []string{`bad.yaml:2:1: YAML syntax: found a tab character that violates indentation; YAML cannot indent with tabs, use spaces`},
		},
		{
			name: "unknown anchor",
			src: `name: x
agent: *claude
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:2:8: YAML syntax: unknown anchor 'claude' referenced`},
		},
		{
			name: "missing prompt file and image",
			src: `name: x
agent: {command: [a]}
turns:
  - prompt:
      - file: ./testdata/NOPE.md
      - image: testdata/missing.png
      - image: testdata/NOTES.md
      - file: testdata
`,
			want: []string{
				`bad.yaml:5:15: prompt file "./testdata/NOPE.md" does not exist`,
				`bad.yaml:6:16: image "testdata/missing.png" does not exist`,
				`bad.yaml:7:16: image "NOTES.md" is not a PNG, JPEG, GIF or WEBP image (by its first bytes)`,
				`bad.yaml:8:15: prompt file "testdata" is not a regular file (a directory): give a file`,
			},
		},
		{
			name: "prompt part with two keys and one with none",
			src: `name: x
agent: {command: [a]}
turns:
  - prompt:
      - {text: a, file: testdata/NOTES.md}
      - {}
`,
			want: []string{
				`bad.yaml:5:19: a prompt part has only one of text, file or image: put file in a part of its own`,
				`bad.yaml:6:9: a prompt part needs one of text, file or image`,
			},
		},
		{
			name: "empty prompt and empty turns",
			src: `name: x
agent: {command: [a]}
turns: []
---
name: y
agent: {command: [a]}
turns: [{prompt: ""}]
---
name: z
agent: {command: [a]}
turns: [{prompt: " \t "}, {prompt: "\n"}]
`,
			want: []string{
				`bad.yaml:3:8: turns is empty: a scenario needs at least one turn`,
				`bad.yaml:7:18: prompt is empty`,
				`bad.yaml:11:18: prompt is only white space: give the text to send`,
				`bad.yaml:11:36: prompt is only white space: give the text to send`,
			},
		},
		{
			name: "stop reasons no turn meets",
			src: `name: x
agent: {command: [a]}
turns:
  - prompt: hi
    expect: {stopReason: [skipped, ""]}
`,
			want: []string{
				`bad.yaml:5:27: unknown stop reason "skipped" (valid stop reasons: end_turn, max_tokens, max_turn_requests, refusal, cancelled, error, agent_exited, unresponsive)`,
				`bad.yaml:5:36: unknown stop reason "" (valid stop reasons: end_turn, max_tokens, max_turn_requests, refusal, cancelled, error, agent_exited, unresponsive)`,
			},
		},
		{
			name: "cancelCause",
			src: `name: x
agent: {command: [a]}
expect: {cancelCause: turnTimeout}
turns:
  - prompt: hi
    expect: {stopReason: cancelled, cancelCause: [turnTimout, interrupt]}
  - prompt: again
    expect: {cancelCause: idleTimeout}
`,
			want: []string{
				`bad.yaml:3:10: unknown key "cancelCause" (valid keys: denied, maxDenied, toolCalls, files, permissions, usage, judge, agent, notices, passRate); cancelCause belongs in a turn's expect`,
				`bad.yaml:6:51: unknown cancel cause "turnTimout" (did you mean "turnTimeout"?)`,
				`bad.yaml:6:63: cancelCause interrupt is not the scenario's: a cancel for an interrupt, the run's --timeout or --fail-fast meets no expectation (name one of turnTimeout, idleTimeout, scenarioTimeout)`,
				`bad.yaml:8:14: cancelCause needs stopReason: list the stop reasons the cancelled turn may end with (stopReason: cancelled)`,
			},
		},
		{
			name: "denied and maxDenied",
			src: `name: x
agent: {command: [a]}
expect: {denied: 0, maxDenied: 2}
turns:
  - prompt: hi
    expect: {denied: -1}
`,
			want: []string{
				`bad.yaml:3:21: use either denied (exact) or maxDenied (at most), not both`,
				`bad.yaml:6:22: expected a whole number from 0 up, got -1`,
			},
		},
		{
			name: "duplicate scenario name in one file",
			src: `name: x
agent: {command: [a]}
turns: [{prompt: hi}]
---
name: x
agent: {command: [b]}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:5:1: duplicate scenario name "x" (first at bad.yaml:1:1)`},
		},
		{
			name: "document that is not a mapping",
			src: `- name: x
`,
			want: []string{`bad.yaml:1:1: expected a mapping, got a list`},
		},
		{
			name: "empty file",
			src:  "# nothing here\n",
			want: []string{`bad.yaml: no scenario in file: write one as a mapping with name, agent and turns (acprun schema prints the whole format)`},
		},
		{
			name: "unset variable at the ${",
			src: `name: x
agent:
  command:
    - agent
    - --key=${NO_SUCH_KEY}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:5:13: environment variable NO_SUCH_KEY is not set (write ${NO_SUCH_KEY:-default} to give a default)`},
		},
		{
			name: "unset variable in a quoted string after an escape",
			src: `name: x
agent:
  command: [agent]
  env: {A: "\t${NO_SUCH_KEY}"}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:4:12: environment variable NO_SUCH_KEY is not set (write ${NO_SUCH_KEY:-default} to give a default)`},
		},
		{
			name: "unset variable in a split command string",
			src: `name: x
agent: {command: "agent 'a b' ${NO_SUCH_KEY}"}
turns: [{prompt: hi}]
`,
			want: []string{`bad.yaml:2:31: environment variable NO_SUCH_KEY is not set (write ${NO_SUCH_KEY:-default} to give a default)`},
		},
		{
			name: "bad variable reference",
			src: `name: x
agent: {command: [agent], cwd: "${1X}/a", mode: "${X"}
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:2:33: bad variable reference "${1X}": use ${NAME} or ${NAME:-default}`,
				`bad.yaml:2:50: unterminated variable reference "${X": missing }`,
			},
		},
		{
			name: "mcpServers of the wrong shape",
			src: `name: x
agent:
  command: [a]
  mcpServers: [stdio]
  env: {A: [1]}
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:4:16: expected an MCP server (a mapping: {name, command, args, env}, or {name, type: http or sse, url, headers}), got a string`,
				`bad.yaml:5:12: expected a string, got a list`,
			},
		},
		{
			name: "env names, mcp variables, merges and empty patterns",
			src: `name: x
agent:
  command: [a]
  env: {"A=B": x, C: y, C: z}
  mcpServers:
    - name: s
      type: http
      url: https://${NO_HOST}/mcp
      _meta: {port: .inf}
client:
  <<: 3
permissions:
  allow: [{command: ""}]
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:4:9: bad environment variable name "A=B"`,
				`bad.yaml:4:25: duplicate key "C" (first at line 4)`,
				`bad.yaml:8:20: environment variable NO_HOST is not set (write ${NO_HOST:-default} to give a default)`,
				`bad.yaml:9:21: .inf cannot be written in JSON`,
				`bad.yaml:11:7: a merge (<<) takes a mapping or a list of mappings, got a number`,
				`bad.yaml:13:21: empty pattern`,
			},
		},
		{
			name: "text expect without checks",
			src: `name: x
agent: {command: [a]}
turns:
  - prompt: hi
    expect: {text: {}}
`,
			want: []string{`bad.yaml:5:20: text needs contains, matches, notContains or notMatches`},
		},
		{
			name: "forbidden texts that could never hold",
			src: `name: x
agent: {command: [a]}
turns:
  - prompt: hi
    expect:
      text:
        contains: ["the fix is done"]
        matches: "fix(ed)?"
        notContains: ["", fix, {a: b}]
        notMatches: [".*", "(", "fix(ed)?", "(?i)sorry", "^$"]
  - prompt: again
    expect: {text: {notContains: [], notMatches: 3}}
`,
			want: []string{
				`bad.yaml:9:23: empty text: every reply contains it, so notContains could never hold; give the text that must not appear`,
				`bad.yaml:9:27: contains requires "the fix is done" (line 7), which holds "fix": no reply can meet both`,
				`bad.yaml:9:32: expected a string, got a mapping`,
				`bad.yaml:10:22: notMatches /.*/ matches every reply (even an empty one), so it could never hold; give what must not appear`,
				"bad.yaml:10:28: bad regular expression: error parsing regexp: missing closing ): `(`",
				`bad.yaml:10:33: /fix(ed)?/ is both matches (line 8) and notMatches: no reply can meet both`,
				`bad.yaml:12:34: expected at least one value, got an empty list`,
			},
		},
		{
			// A check that every text meets could never fail: an empty
			// contains, a pattern that matches every text (also once vars
			// are expanded), and a judge's pass that every reply matches.
			name: "positive checks that could never fail",
			src: `name: x
vars: {want: [""]}
agent: {command: [a]}
turns:
  - prompt: hi
    expect:
      text: {contains: ["{{.want}}", ok], matches: ".*"}
      judge: {agent: {command: [j]}, rubric: r, pass: "(?i)pass|"}
  - prompt: again
    expect:
      text: {contains: [], matches: "x*"}
      files: {matches: {a.txt: "^"}}
      judge: {agent: {command: [j]}, rubric: r, pass: ".*"}
verify:
  - run: "true"
    expect: {stdout: {contains: "", matches: ""}}
  - run: "true"
    expect: {stdout: {contains: []}}
expect:
  agent: {name: {matches: "(?s).*"}}
  judge: {agent: {command: [j]}, rubric: r, pass: "^"}
`,
			want: []string{
				`bad.yaml:7:25: empty text: every reply contains it, so contains could never fail; give the text that must appear`,
				`bad.yaml:7:52: matches /.*/ matches every reply (even an empty one), so it could never fail; give what must appear`,
				`bad.yaml:8:55: pass /(?i)pass|/ matches every reply (even an empty one), so every reply would pass: give a regular expression such as ^PASS`,
				`bad.yaml:11:24: expected at least one value, got an empty list`,
				`bad.yaml:11:37: matches /x*/ matches every reply (even an empty one), so it could never fail; give what must appear`,
				`bad.yaml:12:32: matches /^/ matches every file (even an empty one), so it could never fail; give what must appear`,
				`bad.yaml:13:55: pass /.*/ matches every reply (even an empty one), so every reply would pass: give a regular expression such as ^PASS`,
				`bad.yaml:16:33: empty text: every output contains it, so contains could never fail; give the text that must appear`,
				`bad.yaml:16:46: matches is empty, so it could never fail; give what must appear`,
				`bad.yaml:18:33: expected at least one value, got an empty list`,
				`bad.yaml:20:27: matches /(?s).*/ matches every name (even an empty one), so it could never fail; give what must appear`,
				`bad.yaml:21:51: pass /^/ matches every reply (even an empty one), so every reply would pass: give a regular expression such as ^PASS`,
			},
		},
		{
			// An expect key written outside expect is no typo of a key
			// there: the message says where it belongs.
			name: "expect keys outside expect",
			src: `name: x
agent: {command: [a]}
judge: {agent: {command: [j]}, rubric: r}
turns:
  - prompt: hi
    judge: {agent: {command: [j]}, rubric: r}
    text: {contains: ok}
    passRate: 0.5
`,
			want: []string{
				`bad.yaml:3:1: unknown key "judge" (valid keys: name, description, tags, agent, timeout, turnTimeout, idleTimeout, cancelGrace, killGrace, continueAfterCancel, retries, budget, client, permissions, answers, workspace, sandbox, gateway, setup, expect, turns, verify, teardown, session, vars); judge belongs in the scenario's expect`,
				`bad.yaml:6:5: unknown key "judge" (valid keys: prompt, timeout, budget, answers, expect); judge belongs in the turn's expect`,
				`bad.yaml:7:5: unknown key "text" (valid keys: prompt, timeout, budget, answers, expect); text belongs in the turn's expect`,
				`bad.yaml:8:5: unknown key "passRate" (valid keys: prompt, timeout, budget, answers, expect); passRate belongs in the scenario's expect`,
			},
		},
		{
			name: "three mistakes, three errors",
			src: `name: x
agent: {command: [a]}
timeout: soon
permissions:
  allow:
    - kind: reed
turns:
  - prompt: hi
    expect: {text: {matches: "("}}
`,
			want: []string{
				`bad.yaml:3:10: bad duration "soon": use a Go duration like 90s, 5m or 1h30m`,
				`bad.yaml:6:13: unknown permission kind "reed" (did you mean "read"?)`,
				"bad.yaml:9:30: bad regular expression: error parsing regexp: missing closing ): `(`",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scens, _, err := scenario.LoadBytes("bad.yaml", []byte(tt.src), opts)
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if scens != nil {
				t.Errorf("LoadBytes returned %d scenarios with errors, want none", len(scens))
			}
		})
	}
}

func TestFailingRuleExamples(t *testing.T) {
	src := `name: x
agent: {command: [a]}
permissions:
  allow:
    - command: "go test *"
      examples:
        match: ["go test ./...", "go build ./..."]
        noMatch: ["go vet ./...", "go test -run X ./..."]
turns: [{prompt: hi}]
`
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	got := errorLines(t, err)
	wantPrefixes := []string{"bad.yaml:7:34: ", "bad.yaml:8:35: "}
	if len(got) != len(wantPrefixes) {
		t.Fatalf("errors = %q, want %d errors at the failing examples", got, len(wantPrefixes))
	}
	for i, p := range wantPrefixes {
		if !strings.HasPrefix(got[i], p) {
			t.Errorf("error %d = %q, want it to start with %q", i, got[i], p)
		}
	}
}

// TestAliasBombs checks that aliases cannot make loading explode: each
// level below refers to the previous one ten times.
func TestAliasBombs(t *testing.T) {
	var mcp, merge strings.Builder
	mcp.WriteString("name: x\nagent:\n  command: [a]\n  mcpServers:\n  - {name: m, command: /m, _meta: {l0: &l0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}}\n  - _meta:\n")
	merge.WriteString("name: y\nagent: {command: [a]}\nturns:\n- prompt: hi\n  expect:\n    a0: &a0 {maxDenied: 1}\n")
	for i := 1; i < 10; i++ {
		refs := strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10)
		fmt.Fprintf(&mcp, "      l%d: &l%d [%s]\n", i, i, refs[:len(refs)-2])
		refs = strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10)
		fmt.Fprintf(&merge, "    a%d: &a%d {<<: [%s]}\n", i, i, refs[:len(refs)-2])
	}
	mcp.WriteString("turns: [{prompt: hi}]\n")
	merge.WriteString("- prompt: again\n  expect: {<<: *a9}\n")
	tests := []struct{ name, src, want string }{
		{"mcpServers", mcp.String(), "mcpServers is nested too deeply or repeats too many aliases"},
		{"merge keys", merge.String(), "merge keys (<<) nested too deeply or too many"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := scenario.LoadBytes("bomb.yaml", []byte(tt.src), opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadBytes error = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestErrorsPrinted checks that each error, printed, is followed by its
// source line and a caret under its column, and that an error without a
// line (the file as a whole) has none.
func TestErrorsPrinted(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "caret under the column, after a tab and multi-byte characters",
			src:  "name: x\nagent: {command: [a], cwd: \"é\t${NOPE}\"}\nturns:\n- {prompt: hï, expekt: {}}\n",
			want: "" +
				"bad.yaml:2:31: environment variable NOPE is not set (write ${NOPE:-default} to give a default)\n" +
				"    2 | agent: {command: [a], cwd: \"é   ${NOPE}\"}\n" +
				"      | " + strings.Repeat(" ", 32) + "^\n" +
				"bad.yaml:4:16: unknown key \"expekt\" (did you mean \"expect\"?)\n" +
				"    4 | - {prompt: hï, expekt: {}}\n" +
				"      |                ^\n",
		},
		{
			name: "YAML syntax error",
			src:  "name: x\n  turns: [\n",
			want: "" +
				"bad.yaml:2:8: YAML syntax: mapping values are not allowed in this context; quote a value that contains \": \", or check this line's indentation\n" +
				"    2 |   turns: [\n" +
				"      |        ^\n",
		},
		{
			name: "no position, no source line",
			src:  "# nothing\n",
			want: "bad.yaml: no scenario in file: write one as a mapping with name, agent and turns (acprun schema prints the whole format)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := scenario.LoadBytes("bad.yaml", []byte(tt.src), opts)
			var errs scenario.Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error is %T, want scenario.Errors: %v", err, err)
			}
			var printed strings.Builder
			srcerr.Print(&printed, err, nil)
			if diff := cmp.Diff(tt.want, printed.String()); diff != "" {
				t.Errorf("printed (-want +got):\n%s", diff)
			}
			// The errors' own lines are those of Error.
			if diff := cmp.Diff(strings.Split(errs.Error(), "\n"), errorLinesOf(strings.TrimSuffix(printed.String(), "\n"))); diff != "" {
				t.Errorf("printed without the source lines differs from Error() (-want +got):\n%s", diff)
			}
		})
	}
}

// errorLinesOf drops the source lines and carets of printed errors.
func errorLinesOf(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "    ") {
			out = append(out, l)
		}
	}
	return out
}

// TestPosString: a position names its file with the name's control
// characters escaped.
func TestPosString(t *testing.T) {
	for _, tt := range []struct {
		pos  scenario.Pos
		want string
	}{
		{scenario.Pos{File: "s.yaml", Line: 3, Col: 7}, "s.yaml:3:7"},
		{scenario.Pos{File: "s.yaml"}, "s.yaml"},
		{scenario.Pos{File: "d/\x1b[31m\u009b.yaml", Line: 1, Col: 1}, `d/\x1b[31m\x9b.yaml:1:1`},
	} {
		if got := tt.pos.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.pos, got, tt.want)
		}
	}
}
