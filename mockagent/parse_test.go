package mockagent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/srcerr"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // every error line, in order
	}{
		{
			name: "unknown top-level key",
			src:  "protocolVersion: 1\nturnz: []\n",
			want: []string{`s.yaml:2:1: unknown key "turnz" in script (did you mean "turns"?)`},
		},
		{
			name: "control characters of a value escaped",
			src:  "protocolVersion: !!int \"1\\e[2J\"\n",
			want: []string{`s.yaml:1:18: protocolVersion: integer out of range: 1\x1b[2J`},
		},
		{
			name: "a value through an alias, at the alias",
			src:  "agentInfo: {name: &n hello}\nprotocolVersion: *n\nsessionId: *n\n",
			want: []string{`s.yaml:2:18: protocolVersion: want an integer, got a string (written at line 1, column 19, in the anchor &n)`},
		},
		{
			name: "bad types",
			src:  "protocolVersion: one\nauthRequired: 3\nsessionId: [a]\n",
			want: []string{
				`s.yaml:1:18: protocolVersion: want an integer, got a string`,
				`s.yaml:2:15: authRequired: want true or false, got an integer`,
				`s.yaml:3:12: sessionId: want a string, got a list`,
			},
		},
		{
			name: "unknown key in a nested object",
			src:  "agentCapabilities:\n  promptCapabilities:\n    imag: true\n",
			want: []string{`s.yaml:3:5: unknown key "imag" in promptCapabilities (did you mean "image"?)`},
		},
		{
			name: "unknown step",
			src:  "turns:\n  - steps:\n      - txt: hi\n",
			want: []string{`s.yaml:3:9: unknown step "txt" (did you mean "text"?)`},
		},
		{
			// A list as a step's only key is one error, at the key: the
			// step is not also empty.
			name: "a list as the only key of a step",
			src:  "turns:\n  - steps:\n      - [a]: hi\n",
			want: []string{`s.yaml:3:9: steps step: want a string key, got a list`},
		},
		{
			name: "own system calls",
			src:  "turns:\n  - steps:\n      - writeFile: {path: x}\n      - connect: localhost\n      - spawn: \"\"\n      - readFile: [a]\n      - listen: \"8080\"\n",
			want: []string{
				`s.yaml:3:20: writeFile: path and content are required`,
				`s.yaml:4:18: connect: want HOST:PORT, got "localhost"`,
				`s.yaml:5:16: spawn: must not be empty`,
				`s.yaml:6:19: readFile: want a string, got a list`,
				`s.yaml:7:17: listen: want HOST:PORT, got "8080"`,
			},
		},
		{
			name: "model step",
			src: `turns:
  - steps:
      - model: {api: claude, prompt: hi, model: m}
      - model: {api: gemini, model: m, stream: 1, show: all}
      - model: {api: openai-chat, prompt: hi, model: "", base: x}
      - model: anthropic
  - after:
      - model: {api: gemini, prompt: hi, model: m}
load:
  - model: {api: gemini, prompt: hi, model: m}
`,
			want: []string{
				`s.yaml:3:22: model.api: unknown value "claude" (want one of: anthropic, openai-chat, openai-responses, gemini)`,
				`s.yaml:4:48: model.stream: want true or false, got an integer`,
				`s.yaml:4:57: model.show: unknown value "all" (want one of: text, none)`,
				`s.yaml:4:16: model: api, model and prompt are required`,
				`s.yaml:5:54: model.model: must not be empty`,
				`s.yaml:5:58: unknown key "base" in model (want one of: api, env, key, model, prompt, show, stream)`,
				`s.yaml:6:16: model: want a mapping, got a string`,
				`s.yaml:10:5: model step: only allowed in a turn's steps and after, not in load`,
			},
		},
		{
			name: "two actions in one step",
			src:  "turns:\n  - steps:\n      - text: hi\n        thought: hmm\n",
			want: []string{`s.yaml:4:9: step has two actions, "text" and "thought": write two steps`},
		},
		{
			name: "unknown step, nothing near",
			src:  "turns:\n  - steps:\n      - zzzzz: hi\n",
			want: []string{`s.yaml:3:9: unknown step "zzzzz" (want one of: text, thought, user, plan, tool_call, tool_call_update, permission, elicit, notice, compaction, read, write, terminal, sleep, waitForCancel, update, usage_update, stop, error, exit, hang, garbage, flood, stderr, spawnGrandchild, showConfig, showRoots, history, waitFor, writeFile, readFile, spawn, connect, listen, model)`},
		},
		{
			name: "unknown key, nothing near",
			src:  "protocolVersion: 1\nzzzzz: []\n",
			want: []string{`s.yaml:2:1: unknown key "zzzzz" in script (want one of: agentCapabilities, agentInfo, authError, authMethods, authRequired, configOptions, default, delay, ignoreEOF, ignoreSigterm, load, loadError, models, modes, onCancel, onCancelRequest, permissionOptions, protocolVersion, sessionId, sessions, startDelay, turns, updatesBeforeSessionNew)`},
		},
		{
			name: "unknown modifier",
			src:  "turns:\n  - steps:\n      - text: hi\n        chunk: 2\n",
			want: []string{`s.yaml:4:9: unknown key "chunk" in text step (did you mean "chunks"?)`},
		},
		{
			name: "tool call needs id and title; bad kind",
			src:  "turns:\n  - steps:\n      - tool_call: {kind: exec}\n",
			want: []string{
				`s.yaml:3:27: tool_call.kind: unknown value "exec" (want one of: read, edit, delete, move, search, execute, think, fetch, switch_mode, other)`,
				`s.yaml:3:20: tool_call: toolCallId is required`,
				`s.yaml:3:20: tool_call: title is required`,
			},
		},
		{
			name: "nested branch errors",
			src: `turns:
  - steps:
      - permission: {toolCallId: t1}
        rejected:
          - stop: 42
        maybe: []
`,
			want: []string{
				`s.yaml:5:19: stop: want a string, got an integer`,
				`s.yaml:6:9: unknown key "maybe" in permission step (want one of: allowed, cancelled, options, rejected)`,
			},
		},
		{
			name: "turn-only step outside a turn",
			src:  "turns:\n  - after:\n      - permission: {toolCallId: t1}\n",
			want: []string{`s.yaml:3:9: permission step: only allowed in a turn's steps, not in after`},
		},
		{
			name: "bad regex and duration",
			src:  "turns:\n  - match: '(('\n    steps:\n      - sleep: 5 parsecs\n",
			want: []string{
				"s.yaml:2:12: match: bad regular expression: error parsing regexp: missing closing ): `((`",
				`s.yaml:4:16: sleep: want a duration such as 50ms or 2s, got "5 parsecs"`,
			},
		},
		{
			name: "bad start delay and ignoreEOF",
			src:  "startDelay: -1s\nignoreEOF: sometimes\n",
			want: []string{
				`s.yaml:1:13: startDelay: want a duration such as 500ms or 1s, got "-1s"`,
				`s.yaml:2:12: ignoreEOF: want true or false, got the string "sometimes"`,
			},
		},
		{
			name: "match only in turns",
			src:  "default:\n  match: x\n",
			want: []string{`s.yaml:2:3: unknown key "match" in default (want one of: after, error, onCancel, steps, stopReason, usage)`},
		},
		{
			name: "duplicate key",
			src:  "sessionId: a\nsessionId: b\n",
			want: []string{`s.yaml:2:1: script: duplicate key "sessionId"`},
		},
		{
			name: "two documents",
			src:  "sessionId: a\n---\nsessionId: b\n",
			want: []string{`s.yaml:2:1: a script holds one YAML document, found another`},
		},
		{
			name: "not a mapping",
			src:  "- text: hi\n",
			want: []string{`s.yaml:1:1: script: want a mapping, got a list`},
		},
		{
			name: "auth required without methods",
			src:  "authRequired: true\n",
			want: []string{`s.yaml:1:1: script: authRequired needs at least one authMethods entry that authenticate accepts`},
		},
		{
			name: "killFirst without kill",
			src:  "turns:\n  - steps:\n      - terminal: {command: ls, killFirst: true}\n",
			want: []string{"s.yaml:3:19: terminal: killFirst orders the kill: add kill: true"},
		},
		{
			// A key given with a wrong value is that value's error
			// alone, not also "is required".
			name: "wrong values are not missing keys",
			src: "permissionOptions:\n  - {optionId: 5, kind: allow_once}\nturns:\n  - steps:\n      - terminal: {command: 5}\n      - flood: {count: -1}\n" +
				"      - read: {path: \"\"}\n      - tool_call: {toolCallId: [x], title: [y]}\n      - usage_update: {used: x, size: 1}\n      - update: {sessionUpdate: \"\"}\n",
			want: []string{
				"s.yaml:2:16: optionId: want a string, got an integer",
				"s.yaml:5:29: terminal.command: want a string, got an integer",
				"s.yaml:6:24: flood.count: -1 out of range [1, 10000000]",
				`s.yaml:7:22: read.path: must not be empty`,
				"s.yaml:8:33: tool_call.toolCallId: want a string, got a list",
				"s.yaml:8:45: tool_call.title: want a string, got a list",
				"s.yaml:9:30: used: want an integer, got a string",
				`s.yaml:10:33: update.sessionUpdate: must not be empty`,
			},
		},
		{
			name: "update needs sessionUpdate",
			src:  "turns:\n  - steps:\n      - update: {foo: 1}\n",
			want: []string{`s.yaml:3:17: update: sessionUpdate is required`},
		},
		{
			name: "bad enum values and ranges",
			src: `onCancel: maybe
permissionOptions:
  - {optionId: ok, kind: allow_sometimes}
turns:
  - steps:
      - exit: 300
      - plan: [{content: x, priority: urgent}]
      - waitForCancel: false
`,
			want: []string{
				`s.yaml:1:11: onCancel: unknown value "maybe" (want one of: cancelled, end_turn, ignore)`,
				`s.yaml:3:26: kind: unknown value "allow_sometimes" (want one of: allow_once, allow_always, reject_once, reject_always)`,
				`s.yaml:6:15: exit: 300 out of range [0, 255]`,
				`s.yaml:7:39: priority: unknown value "urgent" (want one of: high, medium, low)`,
				`s.yaml:8:24: waitForCancel: the only useful value is true (remove the step instead)`,
			},
		},
		{
			name: "alias bomb",
			src: `a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
turns:
  - steps:
      - tool_call: {toolCallId: t, title: t, rawInput: *g}
`,
			want: []string{
				`s.yaml:1:1: unknown key "a" in script (want one of: agentCapabilities, agentInfo, authError, authMethods, authRequired, configOptions, default, delay, ignoreEOF, ignoreSigterm, load, loadError, models, modes, onCancel, onCancelRequest, permissionOptions, protocolVersion, sessionId, sessions, startDelay, turns, updatesBeforeSessionNew)`,
				`s.yaml:2:1: unknown key "b" in script (want one of: agentCapabilities, agentInfo, authError, authMethods, authRequired, configOptions, default, delay, ignoreEOF, ignoreSigterm, load, loadError, models, modes, onCancel, onCancelRequest, permissionOptions, protocolVersion, sessionId, sessions, startDelay, turns, updatesBeforeSessionNew)`,
				`s.yaml:3:1: unknown key "c" in script (want one of: agentCapabilities, agentInfo, authError, authMethods, authRequired, configOptions, default, delay, ignoreEOF, ignoreSigterm, load, loadError, models, modes, onCancel, onCancelRequest, permissionOptions, protocolVersion, sessionId, sessions, startDelay, turns, updatesBeforeSessionNew)`,
				`s.yaml:4:1: unknown key "d" in script (want one of: agentCapabilities, agentInfo, authError, authMethods, authRequired, configOptions, default, delay, ignoreEOF, ignoreSigterm, load, loadError, models, modes, onCancel, onCancelRequest, permissionOptions, protocolVersion, sessionId, sessions, startDelay, turns, updatesBeforeSessionNew)`,
				`s.yaml:5:1: unknown key "e" in script (want one of: agentCapabilities, agentInfo, authError, authMethods, authRequired, configOptions, default, delay, ignoreEOF, ignoreSigterm, load, loadError, models, modes, onCancel, onCancelRequest, permissionOptions, protocolVersion, sessionId, sessions, startDelay, turns, updatesBeforeSessionNew)`,
				`s.yaml:6:1: unknown key "f" in script (want one of: agentCapabilities, agentInfo, authError, authMethods, authRequired, configOptions, default, delay, ignoreEOF, ignoreSigterm, load, loadError, models, modes, onCancel, onCancelRequest, permissionOptions, protocolVersion, sessionId, sessions, startDelay, turns, updatesBeforeSessionNew)`,
				`s.yaml:7:1: unknown key "g" in script (want one of: agentCapabilities, agentInfo, authError, authMethods, authRequired, configOptions, default, delay, ignoreEOF, ignoreSigterm, load, loadError, models, modes, onCancel, onCancelRequest, permissionOptions, protocolVersion, sessionId, sessions, startDelay, turns, updatesBeforeSessionNew)`,
				`s.yaml:10:56: tool_call.rawInput: value too large (more than 1048576 nodes after expanding aliases)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, nil; want errors", tt.src, s)
			}
			got := strings.Split(err.Error(), "\n")
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("Parse(%q) errors (-got +want):\n%s", tt.src, diff)
			}
			var pe *srcerr.Error
			if !errors.As(err, &pe) {
				t.Errorf("Parse(%q) error %T is not a *srcerr.Error", tt.src, err)
			}
		})
	}
}

// TestParseSyntaxErrors: a YAML syntax error in a script is at the
// offending token, line and column counted from the start of the file (in
// a second document too), with the parser's context and a hint, as in
// scenario files.
func TestParseSyntaxErrors(t *testing.T) {
	const indentHint = "check this line's indentation (it must line up with the keys or list items of its level)"
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "bad indent",
			src:  "agentCapabilities:\n  loadSession: true\n  promptCapabilities:\n    image: true\n   audio: true\n",
			want: "s.yaml:5:4: YAML syntax: did not find expected key (while parsing a block mapping that starts at line 2, column 3); " + indentHint,
		},
		{
			name: "unclosed quote",
			src:  "sessionId: x\nturns:\n  - steps:\n      - text: \"hi\n  - steps: []\n",
			want: "s.yaml:4:15: YAML syntax: found unexpected end of stream while scanning a quoted scalar; the quoted string that starts here is never closed",
		},
		{
			name: "unclosed flow list",
			src:  "turns:\n  - steps: [\n",
			want: "s.yaml:2:12: YAML syntax: did not find expected node content; the [ here is never closed with ]",
		},
		{
			name: "tab",
			src:  "turns:\n\t- steps: []\n",
			want: "s.yaml:2:1: YAML syntax: found character that cannot start any token; YAML cannot indent with tabs, use spaces",
		},
		{
			name: "second document",
			src:  "sessionId: a\n---\nturns:\n  - steps: []\n   after: []\n",
			want: "s.yaml:5:4: YAML syntax: did not find expected '-' indicator (while parsing a block collection that starts at line 4, column 3); " + indentHint,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, nil; want a syntax error", tt.src, s)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error:\n%v\nwant:\n%s", tt.src, err, tt.want)
			}
			var pe *srcerr.Error
			if !errors.As(err, &pe) {
				t.Errorf("Parse(%q) error %T is not a *srcerr.Error", tt.src, err)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "~\n"} {
		s, err := Parse("empty.yaml", []byte(src))
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		if s.protocolVersion != 1 || s.onCancel != cancelCancelled || len(s.turns) != 0 || s.fallback != nil {
			t.Errorf("Parse(%q) = %+v; want protocol 1, onCancel cancelled, no turns", src, s)
		}
		if diff := cmp.Diff(s.permissionOptions, defaultPermissionOptions()); diff != "" {
			t.Errorf("Parse(%q) permission options (-got +want):\n%s", src, diff)
		}
	}
}

func TestParseValues(t *testing.T) {
	src := `protocolVersion: 2
agentInfo: {name: fake, title: Fake Agent, version: "0.1"}
agentCapabilities:
  loadSession: true
  promptCapabilities: {image: true, embeddedContext: true}
  sessionCapabilities: {list: {}}
authMethods:
  - {id: key, name: API key}
  - {id: tui, name: Login, type: terminal, args: [--login]}
authRequired: true
modes:
  availableModes:
    - {id: ask, name: Ask}
    - {id: code, name: Code}
turns:
  - match: '(?i)deploy'
    usage: {inputTokens: 10, outputTokens: 5}
    steps:
      - text: abcdef
        chunks: 3
      - text: [one, two]
      - tool_call:
          toolCallId: t1
          title: Edit a.go
          kind: edit
          rawInput: {file_path: a.go, n: 1, ok: true, list: [1.5, null]}
          content:
            - diff: {path: a.go, oldText: null, newText: new}
          locations: [{path: a.go, line: 3}]
      - sleep: 20ms
`
	s, err := Parse("v.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wantCaps := acp.AgentCapabilities{
		LoadSession:         true,
		PromptCapabilities:  acp.PromptCapabilities{Image: true, EmbeddedContext: true},
		SessionCapabilities: acp.SessionCapabilities{List: &acp.Capability{}},
	}
	if diff := cmp.Diff(s.capabilities, wantCaps); s.protocolVersion != 2 || diff != "" {
		t.Errorf("protocol version %d, capabilities (-got +want):\n%s", s.protocolVersion, diff)
	}
	wantAuth := []acp.AuthMethod{
		{ID: "key", Name: "API key"},
		{ID: "tui", Name: "Login", Type: "terminal", Args: []string{"--login"}},
	}
	if diff := cmp.Diff(s.authMethods, wantAuth); diff != "" {
		t.Errorf("authMethods (-got +want):\n%s", diff)
	}
	if s.modes.CurrentModeID != "ask" {
		t.Errorf("current mode = %q; want the first, ask", s.modes.CurrentModeID)
	}
	if len(s.turns) != 1 {
		t.Fatalf("got %d turns; want 1", len(s.turns))
	}
	tr := s.turns[0]
	if !tr.match.MatchString("please DEPLOY") || tr.usage.TotalTokens != 15 {
		t.Errorf("turn = match %v usage %+v; want deploy matcher and total 15", tr.match, tr.usage)
	}
	if len(tr.steps) != 4 {
		t.Fatalf("got %d steps; want 4", len(tr.steps))
	}
	if got := tr.steps[0].(*chunkStep).chunks; !cmp.Equal(got, []string{"ab", "cd", "ef"}) {
		t.Errorf("split chunks = %q", got)
	}
	if got := tr.steps[1].(*chunkStep).chunks; !cmp.Equal(got, []string{"one", "two"}) {
		t.Errorf("list chunks = %q", got)
	}
	tc := tr.steps[2].(*toolCallStep).call
	line, title, kind := 3, "Edit a.go", acp.KindEdit
	wantCall := acp.ToolCallUpdate{
		ToolCallID: "t1",
		Title:      &title,
		Kind:       &kind,
		RawInput:   json.RawMessage(`{"file_path":"a.go","n":1,"ok":true,"list":[1.5,null]}`),
		Content:    []acp.ToolCallContent{acp.DiffToolContent("a.go", nil, "new")},
		Locations:  []acp.ToolCallLocation{{Path: "a.go", Line: &line}},
	}
	if diff := cmp.Diff(tc, wantCall); diff != "" {
		t.Errorf("tool call (-got +want):\n%s", diff)
	}
	if d := tr.steps[3].(*sleepStep).d; d != 20*time.Millisecond {
		t.Errorf("sleep = %v; want 20ms", d)
	}
}

func TestSplitChunks(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want []string
	}{
		{"hello", 0, []string{"hello"}},
		{"hello", 1, []string{"hello"}},
		{"hello", 2, []string{"he", "llo"}},
		{"héé", 3, []string{"h", "é", "é"}},
		{"ab", 5, []string{"a", "b"}},
		{"", 3, []string{""}},
	}
	for _, tt := range tests {
		if got := splitChunks(tt.s, tt.n); !cmp.Equal(got, tt.want) {
			t.Errorf("splitChunks(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// TestExamplesParse keeps examples/agents from rotting.
func TestExamplesParse(t *testing.T) {
	files, err := filepath.Glob("../examples/agents/*.mock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found %d example scripts; want at least 5", len(files))
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("Load(%s): %v", f, err)
		}
	}
}

// FuzzParse checks that Parse never panics and that every error points into
// the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte("turns:\n  - steps:\n      - text: hi\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("turns: [{steps: [{permission: {toolCallId: x}, allowed: [{exit: 1}]}]}]"))
	if files, _ := filepath.Glob("../examples/agents/*.mock.yaml"); len(files) > 0 {
		for _, name := range files {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	pat := regexp.MustCompile(`^f\.yaml(:\d+(:\d+)?)?: `)
	linePat := regexp.MustCompile(`^f\.yaml:(\d+)`)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("f.yaml", data)
		if err == nil {
			return
		}
		// YAML breaks lines at \n, \r\n and a lone \r.
		lines := strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(string(data), "\r") - strings.Count(string(data), "\r\n") + 2
		for l := range strings.SplitSeq(err.Error(), "\n") {
			if !pat.MatchString(l) {
				t.Errorf("error line %q has no position prefix", l)
			}
			if m := linePat.FindStringSubmatch(l); m != nil {
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
					t.Errorf("error %q points at line %d of a %d-line file", l, n, lines-1)
				}
			}
		}
	})
}

// TestReferenceExample parses the example at the end of Reference, so the
// help cannot show a script that does not parse.
func TestReferenceExample(t *testing.T) {
	_, example, ok := strings.Cut(Reference, "\nExample\n")
	if !ok {
		t.Fatal("Reference has no Example section")
	}
	var b strings.Builder
	for l := range strings.Lines(example) {
		b.WriteString(strings.TrimPrefix(l, "  "))
	}
	s, err := Parse("reference.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("Reference example: %v\n%s", err, b.String())
	}
	if len(s.turns) != 2 || s.turns[1].match == nil || s.turns[1].stopReason != "refusal" {
		t.Errorf("Reference example parsed to %d turns; want a positional one and a refusal match", len(s.turns))
	}
}

func TestParseStepBomb(t *testing.T) {
	// Each level's allowed: branch holds ten copies of the level below.
	var b strings.Builder
	b.WriteString("x0: &l0 [{text: hi}]\n")
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&b, "x%d: &l%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{permission: {toolCallId: t}, allowed: *l%d}", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("turns: [{steps: *l7}]\n")
	_, err := Parse("bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "script too large") {
		t.Errorf("Parse(step bomb) = %v; want a too-large error", err)
	}
}

// TestParseErrorsKeepTheirSourceLine: every positioned error carries the
// text of its line, so that it can be shown with a caret.
func TestParseErrorsKeepTheirSourceLine(t *testing.T) {
	_, err := Parse("s.mock.yaml", []byte("turns:\n  - steps:\n      - txt: hi\n"))
	var pe *srcerr.Error
	if !errors.As(err, &pe) {
		t.Fatalf("Parse: %v, want a *srcerr.Error", err)
	}
	if pe.Source != "      - txt: hi" {
		t.Errorf("Source = %q, want the text of line %d", pe.Source, pe.Line)
	}
	want := "    3 |       - txt: hi\n      |         ^\n"
	if got := pe.Snippet(); got != want {
		t.Errorf("Snippet:\n%s\nwant:\n%s", got, want)
	}
}
