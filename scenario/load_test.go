package scenario_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// cmpOpts compare regexps by source and JSON by value.
var cmpOpts = cmp.Options{
	// Where each word of a command was given is checked by TestAgentWordPos,
	// where mode was by TestAgentModelAndConfig, where each MCP server was
	// by TestMcpServerPos.
	cmpopts.IgnoreFields(scenario.Agent{}, "ArgvPos", "ModePos", "McpServerPos"),
	// Where client.roots was given is checked by TestBudgetAndRootsPos.
	cmpopts.IgnoreFields(scenario.Client{}, "RootsPos", "RootPos"),
	cmp.Comparer(func(a, b *regexp.Regexp) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.String() == b.String()
	}),
	cmp.Transformer("json", func(m json.RawMessage) any {
		var v any
		if err := json.Unmarshal(m, &v); err != nil {
			return "invalid JSON: " + string(m)
		}
		return v
	}),
}

func intp(i int) *int { return &i }

func absTestdata(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadFull(t *testing.T) {
	dir := absTestdata(t)
	f := "testdata/full.yaml"
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: f, Line: line, Col: col} }
	want := []*scenario.Scenario{{
		Name:        "fix-vet",
		Description: "Ask the agent to fix what go vet reports.",
		Tags:        []string{"nightly"},
		Pos:         at(2, 1),
		File:        f,
		Index:       0,
		Agent: scenario.Agent{
			Pos:     at(6, 3),
			Command: []string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"},
			Env:     map[string]string{"ANTHROPIC_API_KEY": "sk-test", "LOG_LEVEL": "info"},
			OwnEnv:  map[string]string{"ANTHROPIC_API_KEY": "sk-test", "LOG_LEVEL": "info"},
			Cwd:     filepath.Join(dir, "repo"),
			OwnCwd:  true,
			CwdPos:  at(8, 8),
			Auth:    "openai-api-key",
			Mode:    "code",
			McpServers: json.RawMessage(`[{"name": "files", "command": "/usr/bin/mcp-files",
				"args": ["--root", "/home/user"], "env": [{"name": "DEBUG", "value": "1"}]}]`),
		},
		Timeout:             10 * time.Minute,
		TurnTimeout:         2 * time.Minute,
		IdleTimeout:         time.Minute,
		CancelGrace:         10 * time.Second,
		KillGrace:           5 * time.Second,
		ContinueAfterCancel: false,
		Client: scenario.Client{
			FS: true, Terminal: true, ReadOnly: false, Set: true,
			Roots: []string{filepath.Join(dir, "repo"), filepath.Join(dir, "scratch")},
		},
		Policy: &approve.Policy{
			Default: approve.Deny,
			Allow: []approve.Rule{
				{Pos: f + ":26", Kind: []string{"read", "search"}},
				{Pos: f + ":27", Kind: []string{"edit"}, Path: []string{"src/**"}},
				{Pos: f + ":29", Kind: []string{"execute"}, Command: []string{"go test *"}, Always: true},
			},
			Deny: []approve.Rule{
				{Pos: f + ":34", Command: []string{"git push *", "curl *"}},
				{Pos: f + ":35", Path: []string{"**/.env", "/etc/**"}},
				{Pos: f + ":36", Title: []string{"*delete*"}},
				{Pos: f + ":37", Input: map[string]string{"url": "^https?://"}},
			},
		},
		Enforce: scenario.EnforceOff,
		Expect:  scenario.Expect{Pos: at(38, 9), Denied: intp(0), DeniedPos: at(38, 18)},
		Turns: []scenario.Turn{
			{
				Pos:     at(40, 5),
				Prompt:  []scenario.Part{{Pos: at(40, 13), Text: "Run go vet and fix what it reports."}},
				Timeout: 5 * time.Minute,
				Expect:  scenario.Expect{Pos: at(42, 13), StopReasons: []string{"end_turn"}, StopReasonSet: true, StopReasonPos: at(42, 26)},
			},
			{
				Pos: at(43, 5),
				Prompt: []scenario.Part{
					{Pos: at(44, 15), Text: "Summarise the change."},
					{Pos: at(45, 15), File: filepath.Join(dir, "NOTES.md")},
					{Pos: at(46, 16), Image: filepath.Join(dir, "shot.png"), MimeType: "image/png"},
				},
				Expect: scenario.Expect{
					Pos:           at(48, 7),
					StopReasons:   []string{"end_turn", "max_tokens"},
					StopReasonSet: true,
					StopReasonPos: at(48, 19),
					TextContains:  []scenario.Located{{Pos: at(49, 24), Value: "vet"}},
					TextMatches:   &scenario.Pattern{Pos: at(49, 40), Re: regexp.MustCompile(`(?i)fixed \d+`)},
					MaxDenied:     intp(1),
					MaxDeniedPos:  at(50, 18),
				},
			},
		},
	}}
	got, warns, err := scenario.Load([]string{f}, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
		t.Errorf("Load(%q) (-want +got):\n%s", f, diff)
	}
	if len(warns) != 0 {
		t.Errorf("warnings = %v, want none", warns)
	}
	if got, want := got[0].Turns[1].PromptText(), "Summarise the change."; got != want {
		t.Errorf("PromptText() = %q, want %q", got, want)
	}
}

func TestLoadMultiDocument(t *testing.T) {
	dir := absTestdata(t)
	got, _, err := scenario.Load([]string{"testdata/multi.yaml"}, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	type summary struct {
		Name, Agent string
		Command     []string
		Index       int
		Pos         string
		Cwd         string
		Roots       []string
		Policy      *approve.Policy
		Mcp         string
		Contains    []scenario.Located
	}
	var sums []summary
	for _, s := range got {
		sums = append(sums, summary{s.Name, s.Agent.Name, s.Agent.Command, s.Index, s.Pos.String(),
			s.Agent.Cwd, s.Client.Roots, s.Policy, string(s.Agent.McpServers), s.Turns[0].Expect.TextContains})
	}
	want := []summary{
		{Name: "first", Command: []string{"mock-agent", "--script", "a b.mock.yaml"}, Index: 0,
			Pos: "testdata/multi.yaml:4:1", Cwd: dir, Roots: []string{dir},
			Policy: &approve.Policy{Default: approve.Allow}, Mcp: "[]"},
		{Name: "second", Agent: "claude", Command: []string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"}, Index: 1,
			Pos: "testdata/multi.yaml:11:1", Cwd: dir, Roots: []string{dir},
			Policy: &approve.Policy{}, Mcp: "[]", Contains: []scenario.Located{{Pos: scenario.Pos{File: "testdata/multi.yaml", Line: 16, Col: 32}, Value: "by"}, {Pos: scenario.Pos{File: "testdata/multi.yaml", Line: 16, Col: 36}, Value: "ye"}}},
	}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("Load(multi.yaml) (-want +got):\n%s", diff)
	}
}

func TestInterpolation(t *testing.T) {
	src := `name: x
agent:
  command:
    - ${HOME}/bin/agent
    - --key=${ANTHROPIC_API_KEY}
    - ${MODEL:-sonnet}
    - ${EMPTY:-fallback}
    - "[${EMPTY}]"
    - $$HOME costs $5
  env:
    A: "${HOME}"
    B: 8080
  cwd: ${SRC:-src}
  auth: ${AUTH:-oauth}
  mode: ${MODE:-code}
  mcpServers:
    - {name: s, command: "${HOME}/mcp", args: ["${MODEL:-x}", 3, true]}
client: {roots: ["${HOME}", "rel/${MODE:-m}"]}
permissions: {}
turns:
  - prompt: keep ${HOME} as it is
`
	dir := t.TempDir() // the session cwd must exist
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	scens, _, err := scenario.LoadBytes(filepath.Join(dir, "x.yaml"), []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	a := scens[0].Agent
	got := map[string]any{
		"command": a.Command, "env": a.Env, "cwd": a.Cwd, "auth": a.Auth, "mode": a.Mode,
		"mcp": a.McpServers, "roots": scens[0].Client.Roots, "prompt": scens[0].Turns[0].PromptText(),
	}
	want := map[string]any{
		"command": []string{"/home/user/bin/agent", "--key=sk-test", "sonnet", "fallback", "[]", "$HOME costs $5"},
		"env":     map[string]string{"A": "/home/user", "B": "8080"},
		"cwd":     filepath.Join(dir, "src"),
		"auth":    "oauth",
		"mode":    "code",
		"mcp":     json.RawMessage(`[{"name":"s","command":"/home/user/mcp","args":["x","3","true"]}]`),
		"roots":   []string{"/home/user", filepath.Join(dir, "rel/m")},
		"prompt":  "keep ${HOME} as it is",
	}
	if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
		t.Errorf("interpolated values (-want +got):\n%s", diff)
	}
}

func TestCommandString(t *testing.T) {
	tests := []struct {
		command string
		want    []string
	}{
		{`agent`, []string{"agent"}},
		{`npx -y   "@agentclientprotocol/claude-agent-acp"`, []string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"}},
		{`sh -c 'echo "$1" && exit 3'`, []string{"sh", "-c", `echo "$1" && exit 3`}},
		{`a "b \"c\" \\ d" e\ f ''`, []string{"a", `b "c" \ d`, "e f", ""}},
		{`a"b"'c'd`, []string{"abcd"}},
		{`${HOME}/agent "--name=${MODEL:-big model}"`, []string{"/home/user/agent", "--name=big model"}},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			cmd, err := json.Marshal(tt.command) // a double-quoted YAML scalar
			if err != nil {
				t.Fatal(err)
			}
			src := "name: x\nagent: {command: " + string(cmd) + "}\nturns: [{prompt: hi}]\n"
			scens, _, err := scenario.LoadBytes("x.yaml", []byte(src), opts)
			if err != nil {
				t.Fatalf("LoadBytes: %v", err)
			}
			if diff := cmp.Diff(tt.want, scens[0].Agent.Command); diff != "" {
				t.Errorf("command %q (-want +got):\n%s", tt.command, diff)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	src := `name: x
agent: {command: [a]}
client: {readOnly: true}
turns: [{prompt: hi}]
`
	scens, _, err := scenario.LoadBytes("/tmp/d/x.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	s := scens[0]
	if diff := cmp.Diff(scenario.Client{FS: true, Terminal: true, ReadOnly: true, Roots: []string{"/tmp/d"}, Set: true}, s.Client); diff != "" {
		t.Errorf("client (-want +got):\n%s", diff)
	}
	if s.Policy != nil {
		t.Errorf("Policy = %+v, want nil without a permissions key", s.Policy)
	}
	if diff := cmp.Diff(scenario.Expect{Pos: s.Turns[0].Pos, StopReasons: []string{"end_turn"}}, s.Turns[0].Expect, cmpOpts); diff != "" {
		t.Errorf("default turn expect (-want +got):\n%s", diff)
	}
	if got, want := string(s.Agent.McpServers), "[]"; got != want {
		t.Errorf("McpServers = %s, want %s", got, want)
	}
}

func TestAnchorsAndMerge(t *testing.T) {
	src := `name: x
agent: &agent {command: [a], mode: code}
permissions:
  allow:
    - &readonly {kind: [read, search]}
  deny:
    - *readonly
turns:
  - prompt: one
    expect: &exp {stopReason: [end_turn, refusal]}
  - prompt: two
    expect:
      <<: *exp
      maxDenied: 2
---
name: y
agent:
  <<: *agent
  mode: plan
turns: [{prompt: hi}]
`
	scens, _, err := scenario.LoadBytes("x.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	// yaml.v3 keeps anchors from one document to the next.
	if got, want := scens[1].Agent, (scenario.Agent{Pos: scenario.Pos{File: "x.yaml", Line: 18, Col: 3},
		Command: []string{"a"}, Mode: "plan", Cwd: scens[0].Agent.Cwd, McpServers: json.RawMessage("[]")}); !cmp.Equal(got, want, cmpOpts) {
		t.Errorf("merged agent = %+v, want %+v", got, want)
	}
	s := scens[0]
	if got, want := s.Policy.Deny[0].Kind, []string{"read", "search"}; !cmp.Equal(got, want) {
		t.Errorf("aliased deny rule kinds = %v, want %v", got, want)
	}
	if got, want := s.Turns[1].Expect.StopReasons, []string{"end_turn", "refusal"}; !cmp.Equal(got, want) {
		t.Errorf("merged stop reasons = %v, want %v", got, want)
	}
	if got := s.Turns[1].Expect.MaxDenied; got == nil || *got != 2 {
		t.Errorf("merged maxDenied = %v, want 2", got)
	}
}

func TestWarnings(t *testing.T) {
	src := `name: x
agent: {command: [a]}
timeout: 1m
turnTimeout: 2m
turns:
  - prompt: hi
    timeout: 30s
`
	_, warns, err := scenario.LoadBytes("w.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{
		"w.yaml:4:14: turn timeout 2m0s is longer than the scenario timeout 1m0s",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestTurnTimeoutFlagWarnings: with run's --turn-timeout (TurnTimeout),
// which replaces every turn's timeout, the warning is about it, at the
// scenario's timeout, and none is about the file's turn timeouts.
func TestTurnTimeoutFlagWarnings(t *testing.T) {
	const src = `name: x
agent: {command: [a]}
timeout: 1m
turnTimeout: 2m
turns:
  - prompt: hi
    timeout: 5m
`
	for _, tt := range []struct {
		name string
		flag time.Duration
		want []string
	}{
		{"none", 0, []string{
			"w.yaml:4:14: turn timeout 2m0s is longer than the scenario timeout 1m0s",
			"w.yaml:7:14: turn timeout 5m0s is longer than the scenario timeout 1m0s",
		}},
		{"shorter", 30 * time.Second, nil},
		{"longer", 90 * time.Second, []string{"w.yaml:3:10: --turn-timeout 1m30s is longer than the scenario timeout 1m0s"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			o.TurnTimeout = tt.flag
			_, warns, err := scenario.LoadBytes("w.yaml", []byte(src), o)
			if err != nil {
				t.Fatalf("LoadBytes: %v", err)
			}
			var got []string
			for _, w := range warns {
				got = append(got, w.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoPermissionsWarnings: one warning per scenario without permissions,
// however often the selection holds it, in file order.
func TestNoPermissionsWarnings(t *testing.T) {
	src := `name: open
agent: {command: [a]}
turns: [{prompt: hi}]
---
name: ruled
agent: {command: [a]}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: open2
agent: {command: [a]}
turns: [{prompt: hi}]
`
	scs, _, err := scenario.LoadBytes("w.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	var got []string
	for _, w := range scenario.NoPermissionsWarnings([]*scenario.Scenario{scs[2], scs[0], scs[1], scs[0]}) {
		got = append(got, w.String())
	}
	const msg = ": no permissions: every permission request and terminal command will be denied (add permissions to allow some)"
	want := []string{"w.yaml:1:1" + msg, "w.yaml:10:1" + msg}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NoPermissionsWarnings (-want +got):\n%s", diff)
	}
}

// writeTree creates files (with a valid scenario named after the path in
// each .yaml/.yml) under a temporary directory and returns it.
func writeTree(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		path := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		content := "name: " + f + "\nagent: {command: [a]}\npermissions: {}\nturns: [{prompt: hi}]\n"
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestLoadPaths(t *testing.T) {
	root := writeTree(t,
		"a.yaml", "b.yml", "sub/c.yaml", "sub/deeper/d.YAML",
		"agent.mock.yaml", "sub/x.mock.yml", "notes.txt", ".hidden.yaml",
		".git/e.yaml", "testdata/f.yaml", "sub/testdata/g.yaml", "empty/README.md",
	)
	t.Chdir(root)
	tests := []struct {
		name  string
		paths []string
		want  []string // scenario names, in order
		errs  []string
	}{
		{"directory", []string{"."}, []string{"a.yaml", "b.yml", "sub/c.yaml", "sub/deeper/d.YAML"}, nil},
		{"subdirectory", []string{"sub"}, []string{"sub/c.yaml", "sub/deeper/d.YAML"}, nil},
		{"explicit files are always loaded", []string{"agent.mock.yaml", "testdata/f.yaml", "a.yaml"},
			[]string{"a.yaml", "agent.mock.yaml", "testdata/f.yaml"}, nil},
		{"explicit testdata directory", []string{"testdata"}, []string{"testdata/f.yaml"}, nil},
		{"a file named twice loads once", []string{"a.yaml", "./a.yaml", "."},
			[]string{"a.yaml", "b.yml", "sub/c.yaml", "sub/deeper/d.YAML"}, nil},
		{"glob", []string{"*.y*ml"}, []string{"a.yaml", "b.yml"}, nil},
		{"glob of directories", []string{"s*"}, []string{"sub/c.yaml", "sub/deeper/d.YAML"}, nil},
		{"double star", []string{"**/*.yaml"}, []string{"a.yaml", "sub/c.yaml"}, nil},
		{"double star under a directory", []string{"sub/**/*.YAML"}, []string{"sub/deeper/d.YAML"}, nil},
		{"double star naming testdata", []string{"**/testdata/*.yaml"}, []string{"sub/testdata/g.yaml", "testdata/f.yaml"}, nil},
		{"missing paths", []string{"nope.yaml", "a.yaml", "*.json", "empty", "[x"}, nil, []string{
			"*.json: no file or directory matches the pattern: give a pattern that matches scenario files, or directories that hold some",
			"[x: bad pattern: malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal [",
			"nope.yaml: no such file or directory: give the path of a scenario file, or of a directory that holds some",
		}},
		// The shell's {a,b}, quoted (as a CI step's YAML may hold it),
		// reaches acprun as written, which expands no braces.
		{"braces", []string{"{a,b}.yaml", "*.{yaml,yml}"}, nil, []string{
			"*.{yaml,yml}: no file or directory matches the pattern ({a,b} is the shell's, which acprun does not expand: give each path, or a glob of * ? [...] and **)",
			"{a,b}.yaml: no such file or directory ({a,b} is the shell's, which acprun does not expand: give each path, or a glob of * ? [...] and **)",
		}},
		{"no scenario file is no error", []string{"*.txt", "empty"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scens, _, err := scenario.Load(tt.paths, opts)
			var names []string
			for _, s := range scens {
				names = append(names, s.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("Load(%q) names (-want +got):\n%s", tt.paths, diff)
			}
			if diff := cmp.Diff(tt.errs, errorLines(t, err)); diff != "" {
				t.Errorf("Load(%q) errors (-want +got):\n%s", tt.paths, diff)
			}
		})
	}
}

// TestWalkNamesWhatItCannotLoad: a directory walk does not skip an entry
// named as a scenario file that is a symbolic link leading nowhere or in
// a loop, or a FIFO: each is an error naming it, as when it is named
// itself, whether or not the walk found other scenario files. A link to
// a directory is a directory, which a walk does not follow; a mock
// agent's script is no scenario file.
func TestWalkNamesWhatItCannotLoad(t *testing.T) {
	root := writeTree(t, "suite/ok.yaml")
	t.Chdir(root)
	for link, to := range map[string]string{
		"suite/nightly.yaml": "../moved-away.yaml", "suite/loop.yml": "loop.yml",
		"suite/d.yaml": "..", "suite/agent.mock.yaml": "gone.mock.yaml",
		"lone/nightly.yaml": "../moved-away.yaml",
	} {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo("suite/fifo.yaml", 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		paths []string
		errs  []string
	}{
		{[]string{"suite"}, []string{
			"suite/fifo.yaml: not a regular file (a FIFO): give a file",
			"suite/loop.yml: a symbolic link to loop.yml: too many levels of symbolic links",
			"suite/nightly.yaml: a symbolic link to ../moved-away.yaml, which does not exist",
		}},
		{[]string{"lone"}, []string{"lone/nightly.yaml: a symbolic link to ../moved-away.yaml, which does not exist"}},
		{[]string{"lone/nightly.yaml"}, []string{"lone/nightly.yaml: a symbolic link to ../moved-away.yaml, which does not exist"}},
	} {
		_, warns, err := scenario.Load(tt.paths, opts)
		if diff := cmp.Diff(tt.errs, errorLines(t, err)); diff != "" {
			t.Errorf("Load(%q) errors (-want +got):\n%s", tt.paths, diff)
		}
		for _, w := range warns {
			if strings.Contains(w.Msg, "no scenario files") {
				t.Errorf("Load(%q) warns %q besides its errors", tt.paths, w.Msg)
			}
		}
	}
}

// TestLoadLinkedDirectory: a path named on the command line, or matched
// by a glob, that is a symbolic link to a directory is walked as that
// directory, its files named through the link as the user named it (the
// walk did not enter it, and warned of "no scenario files"); a link met
// inside the walk is still not followed.
func TestLoadLinkedDirectory(t *testing.T) {
	root := writeTree(t, "suites/nightly/a.yaml", "suites/nightly/sub/b.yaml", "other/c.yaml")
	t.Chdir(root)
	for link, to := range map[string]string{
		"nl": "suites/nightly", "suites/nightly/inner": "../../other", "abs": filepath.Join(root, "suites", "nightly"),
	} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		paths []string
		want  []string
	}{
		{[]string{"nl"}, []string{"nl/a.yaml", "nl/sub/b.yaml"}},
		{[]string{"nl/"}, []string{"nl/a.yaml", "nl/sub/b.yaml"}},
		{[]string{filepath.Join(root, "abs")}, []string{filepath.Join(root, "abs", "a.yaml"), filepath.Join(root, "abs", "sub", "b.yaml")}},
		{[]string{"n?"}, []string{"nl/a.yaml", "nl/sub/b.yaml"}},
		{[]string{"nl/**/*.yaml"}, []string{"nl/a.yaml", "nl/sub/b.yaml"}},
	}
	for _, tt := range tests {
		scs, warns, err := scenario.Load(tt.paths, opts)
		if err != nil {
			t.Errorf("Load(%q): %v", tt.paths, err)
			continue
		}
		var files []string
		for _, sc := range scs {
			files = append(files, sc.File)
		}
		if diff := cmp.Diff(tt.want, files); diff != "" {
			t.Errorf("Load(%q) files (-want +got):\n%s", tt.paths, diff)
		}
		if len(warns) > 0 {
			t.Errorf("Load(%q) warns %v", tt.paths, warns)
		}
	}
}

func TestLoadErrorsOfTwoFiles(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"b.yaml": "name: same\nagent: {command: [a]}\nturns: [{prompt: hi}]\ntimeout: 3\n",
		"a.yaml": "name: same\nagent: {command: []}\nturns: [{prompt: hi}]\n",
		"c.yaml": "name: fine\nagent: {command: [a]}\ntimeout: 1m\nturnTimeout: 2m\nturns: [{prompt: hi}]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	scens, warns, err := scenario.Load([]string{"c.yaml", "b.yaml", "a.yaml"}, opts)
	want := []string{
		"a.yaml:2:18: agent command is empty",
		`b.yaml:1:1: duplicate scenario name "same" (first at a.yaml:1:1)`,
		`b.yaml:4:10: bad duration "3" (a unit is required): use a Go duration like 90s, 5m or 1h30m`,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if scens != nil {
		t.Errorf("Load returned %d scenarios with errors, want none", len(scens))
	}
	// The warnings of the files are returned with their errors.
	if len(warns) != 1 || warns[0].String() != "c.yaml:4:14: turn timeout 2m0s is longer than the scenario timeout 1m0s" {
		t.Errorf("warnings = %v, want c.yaml's turn timeout warning only", warns)
	}
}

// TestAgentsOwnStopReason: a stop reason that is none of ACP's nor of
// acprun's outcomes, and no near miss of one, is an agent's own: expected
// verbatim, as the results keep it.
func TestAgentsOwnStopReason(t *testing.T) {
	scs, warns, err := scenario.LoadBytes("s.yaml", []byte("name: x\nagent: {command: [a]}\nturns:\n  - prompt: hi\n    expect: {stopReason: [end_turn, vendor_paused]}\n"), opts)
	if err != nil || len(warns) != 0 {
		t.Fatalf("load: %v, warnings %v", err, warns)
	}
	if got := scs[0].Turns[0].Expect.StopReasons; !slices.Equal(got, []string{"end_turn", "vendor_paused"}) {
		t.Errorf("stop reasons %q; want end_turn and the agent's own vendor_paused", got)
	}
}

// TestLoadOtherFilesOfAcprun: a transcript or a run's results given as a
// scenario file is one error that says what the file is and what takes
// it, not a problem for each of its keys; a JSON scenario is a scenario.
func TestLoadOtherFilesOfAcprun(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"tr.jsonl":     `{"t":3,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}` + "\n" + `{"t":4,"dir":"a2c","msg":{}}` + "\n",
		"results.json": "{\n  \"schemaVersion\": 3,\n  \"summary\": {},\n  \"scenarios\": []\n}\n",
		"s.json":       `{"name": "json", "agent": {"command": ["a"]}, "turns": [{"prompt": "hi"}]}` + "\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	_, _, err := scenario.Load([]string{"tr.jsonl", "results.json"}, opts)
	want := []string{
		"results.json: the results of a run (run -o), not scenarios: acprun report FILE shows them, and acprun run --rerun-failed FILE runs again what did not pass",
		"tr.jsonl: a transcript of a run (run --transcripts), not scenarios: a scenario plays it back with agent: {replay: FILE}, " +
			"and acprun explain SCENARIO --transcript FILE --tool-call ID explains a permission request it holds",
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if scs, _, err := scenario.Load([]string{"s.json"}, opts); err != nil || len(scs) != 1 {
		t.Errorf("a JSON scenario: %d scenarios, %v; want it loaded", len(scs), err)
	}
}

// TestLoadConfigScriptCassetteAsScenarios: the config file, a mock agent
// script and a gateway cassette given as scenario files (acprun validate
// acprun.yaml) are each one error that says what the file is and what
// takes it, not a problem for each of its keys; a scenario that has a key
// of theirs is a scenario, its problems its own.
func TestLoadConfigScriptCassetteAsScenarios(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"acprun.yaml":     "defaults: {timeout: 5m}\nagents:\n  mine: {command: [a]}\n",
		"my.yaml":         "# my config\nprices: {m: {input: 1, output: 2}}\n",
		"agent.mock.yaml": "agentInfo: {name: mock}\nturns:\n  - steps: [{text: hi}]\n",
		"steps.yaml":      "turns:\n  - match: deploy\n    steps: [{text: hi}]\n",
		"c.cassette.json": `{"version": 1, "exchanges": []}` + "\n",
		"s.yaml":          "name: s\nagent: {command: [a]}\nagents: x\nturns: [{prompt: hi}]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	_, _, err := scenario.Load([]string{"acprun.yaml", "my.yaml", "agent.mock.yaml", "steps.yaml", "c.cassette.json", "s.yaml"}, opts)
	const config = ": acprun's config file (defaults, named agents, prices), not scenarios: acprun reads acprun.yaml in the working directory by itself; give another with --config FILE"
	const script = ": a mock agent script, not scenarios: a scenario's agent plays it, agent: {name: mock, args: [FILE]} (acprun mock-agent --help describes it)"
	want := []string{
		"acprun.yaml" + config,
		"agent.mock.yaml" + script,
		"c.cassette.json: a model gateway cassette, not scenarios: a scenario whose gateway replays answers its agent's model requests from it (gateway: {mode: replay, dir: DIR})",
		"my.yaml" + config,
		`s.yaml:3:1: unknown key "agents" (did you mean "agent"?)`,
		"steps.yaml" + script,
	}
	if diff := cmp.Diff(want, errorLinesOf(err.Error())); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestReadScenariosOfProblems: Load and LoadBytes return no scenarios with
// their problems, but the error tells which were read, as far as each file
// could be (ReadScenarios), for the secrets they hold, which the problems'
// source lines may repeat: an agent's env value written before or after a
// problem, the scenarios of a file without problems loaded with one that
// has some, the documents of a file before a YAML syntax error; nothing of
// a document with a syntax error, nor of a file that cannot be read.
func TestReadScenariosOfProblems(t *testing.T) {
	const key = "sk-live-1234567890abcdef"
	envOf := func(scs []*scenario.Scenario) []string {
		var out []string
		for _, s := range scs {
			out = append(out, s.Name+" "+s.Agent.Env["API_KEY"])
		}
		return out
	}
	tests := []struct {
		name, src string
		want      []string // each scenario read: its name and API_KEY
	}{
		{"template error before the env", "name: tmpl\nvars: [{x: one}]\nturns: [{prompt: \"use " + key + " {{oops\"}]\n" +
			"agent: {command: [a], env: {API_KEY: \"" + key + "\"}}\n", []string{"tmpl[x=one] " + key}},
		{"bad key in the agent", "name: bad\nagent: {command: [a], env: {API_KEY: " + key + "}, bogus: 1}\nturns: [{prompt: hi}]\n", []string{"bad " + key}},
		{"syntax error in a later document", "name: one\nagent: {command: [a], env: {API_KEY: " + key + "}}\nturns: [{prompt: hi}]\n---\n" +
			"name: two\nagent: {command: [a], env: {API_KEY: other-secret-value}}\nturns: [{prompt: \"use " + key + "\"}\n", []string{"one " + key}},
		{"syntax error", "name: one\nagent: {command: [a], env: {API_KEY: " + key + "}}\nturns: [{prompt: \"use " + key + "\"}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scs, _, err := scenario.LoadBytes("s.yaml", []byte(tt.src), opts)
			if scs != nil || len(errorLines(t, err)) == 0 {
				t.Fatalf("LoadBytes = %d scenarios, %v; want none and the problems", len(scs), err)
			}
			if diff := cmp.Diff(tt.want, envOf(scenario.ReadScenarios(err))); diff != "" {
				t.Errorf("ReadScenarios (-want +got):\n%s", diff)
			}
			if got := scenario.ReadScenarios(fmt.Errorf("context: %w", err)); len(got) != len(tt.want) {
				t.Errorf("ReadScenarios(wrapped) = %d scenarios, want %d", len(got), len(tt.want))
			}
		})
	}
	root := t.TempDir()
	for name, src := range map[string]string{
		"a.yaml": "name: a\nagent: {command: [a], env: {API_KEY: " + key + "}}\nturns: [{prompt: hi}]\n",
		"b.yaml": "name: b\nagent: {command: []}\nturns: [{prompt: " + key + "}]\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := scenario.Load([]string{root, filepath.Join(root, "missing.yaml")}, opts)
	if diff := cmp.Diff([]string{"a " + key, "b "}, envOf(scenario.ReadScenarios(err))); diff != "" {
		t.Errorf("ReadScenarios of Load (-want +got):\n%s", diff)
	}
	for _, err := range []error{nil, errors.New("other")} {
		if got := scenario.ReadScenarios(err); got != nil {
			t.Errorf("ReadScenarios(%v) = %v, want nil", err, got)
		}
	}
}

// TestStopReasonSet: StopReasonSet tells an explicit stopReason (even
// end_turn) from the default, and the outcomes acprun records without a
// stop reason are accepted.
func TestStopReasonSet(t *testing.T) {
	tests := []struct {
		expect string // the turn's expect, "" for none
		want   []string
		set    bool
	}{
		{"", []string{"end_turn"}, false},
		{"{text: {contains: [x]}}", []string{"end_turn"}, false},
		{"{stopReason: end_turn}", []string{"end_turn"}, true},
		{"{stopReason: agent_exited}", []string{"agent_exited"}, true},
		{"{stopReason: [unresponsive, cancelled]}", []string{"unresponsive", "cancelled"}, true},
		{"{stopReason: error}", []string{"error"}, true},
	}
	for _, tt := range tests {
		src := "name: x\nagent: {command: [a]}\nturns:\n  - prompt: hi\n"
		if tt.expect != "" {
			src += "    expect: " + tt.expect + "\n"
		}
		scens, _, err := scenario.LoadBytes("x.yaml", []byte(src), opts)
		if err != nil {
			t.Errorf("expect %s: %v", tt.expect, err)
			continue
		}
		e := scens[0].Turns[0].Expect
		if !cmp.Equal(e.StopReasons, tt.want) || e.StopReasonSet != tt.set {
			t.Errorf("expect %s: StopReasons %q, StopReasonSet %v; want %q, %v", tt.expect, e.StopReasons, e.StopReasonSet, tt.want, tt.set)
		}
	}
}

// TestCancelCause: expect.cancelCause takes one cause or a list, kept
// with its position.
func TestCancelCause(t *testing.T) {
	for _, tc := range []struct {
		expect string
		want   []string
		col    int
	}{
		{"{stopReason: cancelled, cancelCause: turnTimeout}", []string{"turnTimeout"}, 50},
		{"{stopReason: [cancelled, end_turn], cancelCause: [idleTimeout, scenarioTimeout]}", []string{"idleTimeout", "scenarioTimeout"}, 62},
		{"{stopReason: cancelled}", nil, 0},
	} {
		src := "name: x\nagent: {command: [a]}\nturns:\n  - prompt: hi\n    expect: " + tc.expect + "\n"
		scens, _, err := scenario.LoadBytes("x.yaml", []byte(src), opts)
		if err != nil {
			t.Errorf("expect %s: %v", tc.expect, err)
			continue
		}
		e := scens[0].Turns[0].Expect
		if !cmp.Equal(e.CancelCauses, tc.want) || e.CancelCausePos.Col != tc.col || (tc.col > 0 && e.CancelCausePos.Line != 5) {
			t.Errorf("expect %s: CancelCauses %q at %s; want %q at column %d", tc.expect, e.CancelCauses, e.CancelCausePos, tc.want, tc.col)
		}
	}
}

// TestLoadSkipsFixtureYAML: the YAML files of a workspace's fixture are not
// scenarios when a walk finds them, but are when named.
func TestLoadSkipsFixtureYAML(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"s.yaml":                   "name: s\nagent: {command: [x]}\nworkspace: fixture\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"fixture/ci.yaml":          "on: push\njobs: {}\n",
		"fixture/deep/compose.yml": "services: {}\n",
		"other.yaml":               "name: other\nagent: {command: [x]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, _, err := scenario.Load([]string{dir}, scenario.LoadOptions{})
	if err != nil {
		t.Fatalf("walking the suite: %v", err)
	}
	var names []string
	for _, s := range scs {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"other", "s"}, names); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if _, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml"), filepath.Join(dir, "fixture", "ci.yaml")}, scenario.LoadOptions{}); err == nil {
		t.Error("a fixture file named explicitly was not loaded as a scenario")
	}
}

// TestLoadSuiteInsideItsWorkspace: a workspace source that holds the
// scenario file itself (the repository the suite lives in, {from: ..} or
// {git: .}) is no fixture: the walk still finds its scenarios, that one's
// and the others'.
func TestLoadSuiteInsideItsWorkspace(t *testing.T) {
	for _, ws := range []string{"{from: ..}", "{from: .}", "{git: ..}"} {
		root := t.TempDir()
		dir := filepath.Join(root, "evals")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range map[string]string{
			"fix.yaml":   "name: fix\nagent: {command: [x]}\nworkspace: " + ws + "\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
			"other.yaml": "name: other\nagent: {command: [x]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		scs, _, err := scenario.Load([]string{dir}, scenario.LoadOptions{})
		if err != nil {
			t.Fatalf("workspace %s: walking the suite: %v", ws, err)
		}
		var names []string
		for _, s := range scs {
			names = append(names, s.Name)
		}
		if diff := cmp.Diff([]string{"fix", "other"}, names); diff != "" {
			t.Errorf("workspace %s: scenarios (-want +got):\n%s", ws, diff)
		}
	}
}

// TestLoadSameFileOnce: one file named relatively, absolutely, through
// ./ or a symlink is loaded once, not reported as a duplicate name.
func TestLoadSameFileOnce(t *testing.T) {
	root := writeTree(t, "a.yaml", "sub/b.yaml")
	t.Chdir(root)
	if err := os.Symlink("a.yaml", "link.yaml"); err != nil {
		t.Fatal(err)
	}
	paths := []string{"a.yaml", filepath.Join(root, "a.yaml"), "./a.yaml", "link.yaml", "sub", filepath.Join(root, "sub", "b.yaml")}
	scs, _, err := scenario.Load(paths, opts)
	if err != nil {
		t.Fatalf("Load(%q): %v", paths, err)
	}
	var got []string
	for _, s := range scs {
		got = append(got, s.Name+" from "+s.File)
	}
	if diff := cmp.Diff([]string{"a.yaml from a.yaml", "sub/b.yaml from " + filepath.Join("sub", "b.yaml")}, got); diff != "" {
		t.Errorf("Load(%q) (-want +got):\n%s", paths, diff)
	}
}

// TestUnknownAgentUnloadedConfig: an unknown agent's error names the
// acprun.yaml next to the scenario (or above it, up to the working
// directory) when it is not the config loaded, and how to load it.
func TestUnknownAgentUnloadedConfig(t *testing.T) {
	root := t.TempDir()
	sc := "name: s\nagent: mine\npermissions: {}\nturns: [{prompt: hi}]\n"
	for name, content := range map[string]string{
		"tests/acprun.yaml": "agents:\n  mine: {command: [x]}\n",
		"tests/sub/s.yaml":  sc,
		"acprun.yaml":       "agents: {}\n",
		"other/s.yaml":      sc,
	} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	cfg, err := scenario.LoadConfig("acprun.yaml", opts)
	if err != nil {
		t.Fatal(err)
	}
	const unknown = `unknown agent "mine" (valid agents: claude, codex, gemini, goose, mock, opencode, qwen)`
	tests := []struct {
		path string
		cfg  *scenario.Config
		want string
	}{
		{"tests/sub/s.yaml", nil, "tests/sub/s.yaml:2:8: " + unknown + "; tests/acprun.yaml was not loaded: " +
			"acprun reads its config from acprun.yaml in the working directory, or from --config FILE; pass --config tests/acprun.yaml"},
		{"tests/sub/s.yaml", cfg, "tests/sub/s.yaml:2:8: " + unknown + "; tests/acprun.yaml was not loaded: " +
			"acprun read its config from acprun.yaml (--config FILE, else acprun.yaml in the working directory); pass --config tests/acprun.yaml"},
		// The first config file up from other/ is the one loaded.
		{"other/s.yaml", cfg, "other/s.yaml:2:8: " + unknown},
	}
	for _, tt := range tests {
		_, _, err := scenario.Load([]string{tt.path}, scenario.LoadOptions{LookupEnv: opts.LookupEnv, Config: tt.cfg})
		if diff := cmp.Diff([]string{tt.want}, errorLines(t, err)); diff != "" {
			t.Errorf("Load(%s) with config %v (-want +got):\n%s", tt.path, tt.cfg != nil, diff)
		}
	}
}

// TestUnloadedConfig: a run that loads scenarios beside an acprun.yaml
// that is not its config is told so, whose scenarios it is about and how
// to load it; not when the config loaded is that file, or there is none.
func TestUnloadedConfig(t *testing.T) {
	root := t.TempDir()
	sc := "name: s\nagent: {command: [x]}\npermissions: {}\nturns: [{prompt: hi}]\n"
	for name, content := range map[string]string{
		"suite/acprun.yaml": "defaults: {turnTimeout: 3s}\n",
		"suite/sub/s.yaml":  sc,
		"other/s.yaml":      strings.Replace(sc, "name: s", "name: t", 1),
	} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	cfg, err := scenario.LoadConfig("suite/acprun.yaml", opts)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		paths []string
		cfg   *scenario.Config
		want  string
	}{
		{[]string{"other/s.yaml", "suite/sub/s.yaml"}, nil, "suite/acprun.yaml was not loaded: " +
			"acprun reads its config from acprun.yaml in the working directory, or from --config FILE; pass --config suite/acprun.yaml"},
		{[]string{"suite/sub/s.yaml"}, cfg, ""},
		{[]string{"other/s.yaml"}, nil, ""},
	}
	for _, tt := range tests {
		scs, _, err := scenario.Load(tt.paths, scenario.LoadOptions{LookupEnv: opts.LookupEnv, Config: tt.cfg})
		if err != nil {
			t.Fatal(err)
		}
		if got := scenario.UnloadedConfig(scs, tt.cfg); got != tt.want {
			t.Errorf("UnloadedConfig(%s) with config %v:\n%s\nwant\n%s", tt.paths, tt.cfg != nil, got, tt.want)
		}
	}
}

// TestAgentWordPos: each word of an agent's command is at its own item of
// command or args; a string command's words are at the string; the words
// of a built-in agent are at the agent.
func TestAgentWordPos(t *testing.T) {
	src := `name: a
agent: {command: [prog, --flag]}
turns: [{prompt: hi}]
---
name: b
agent: {name: mock, args: [x.mock.yaml]}
turns: [{prompt: hi}]
---
name: c
agent: {command: "prog --flag"}
turns: [{prompt: hi}]
`
	scs, _, err := scenario.LoadBytes("w.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	got := wordPositions(scs)
	want := []string{"w.yaml:2:19 w.yaml:2:25", "w.yaml:6:8 w.yaml:6:8 w.yaml:6:28", "w.yaml:10:18 w.yaml:10:18"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("word positions (-want +got):\n%s", diff)
	}
}

// wordPositions is, for each scenario, where each word of its agent's
// command is, one line: "(enforce)" after a word permissions.enforce added.
func wordPositions(scs []*scenario.Scenario) []string {
	var out []string
	for _, s := range scs {
		var at []string
		for i := range s.Agent.Command {
			word := s.Agent.WordPos(i).String()
			if s.Agent.Enforced(i) {
				word += " (enforce)"
			}
			at = append(at, word)
		}
		out = append(out, strings.Join(at, " "))
	}
	return out
}

// TestNamedAgentWordPos: the words of a config agent's command are where
// the config gives them, whether a scenario names the agent or WithAgent
// puts it in (run --agent); those permissions.enforce adds are at the
// word they follow, and are said to be its; a built-in agent's are at
// the scenario's agent.
func TestNamedAgentWordPos(t *testing.T) {
	cfg := loadConfig(t, `agents:
  mine: {command: [prog, --flag]}
  codex: {command: [prog]}
`)
	scs := loadWith(t, cfg, `name: a
agent: mine
turns: [{prompt: hi}]
---
name: b
agent: {name: mine, args: [x]}
turns: [{prompt: hi}]
---
name: c
agent: codex
turns: [{prompt: hi}]
---
name: d
agent: claude
turns: [{prompt: hi}]
`)
	other, err := scs[0].WithAgent("codex", scenario.LoadOptions{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	got := wordPositions(append(scs, other))
	want := []string{
		"/cfg/acprun.yaml:2:20 /cfg/acprun.yaml:2:26",
		"/cfg/acprun.yaml:2:20 /cfg/acprun.yaml:2:26 /s/x.yaml:6:28",
		"/cfg/acprun.yaml:3:21 /cfg/acprun.yaml:3:21 (enforce) /cfg/acprun.yaml:3:21 (enforce)",
		"/s/x.yaml:14:8 /s/x.yaml:14:8 /s/x.yaml:14:8",
		"/cfg/acprun.yaml:3:21 /cfg/acprun.yaml:3:21 (enforce) /cfg/acprun.yaml:3:21 (enforce)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("word positions (-want +got):\n%s", diff)
	}
}

// TestScenarioWarnings: each scenario keeps the warnings loading gave
// about it (Load returns them all, those about files too); the warning of
// a scenario without permissions is its own, for the runner to add.
func TestScenarioWarnings(t *testing.T) {
	src := `name: first
agent: {command: [a]}
timeout: 1m
turns: [{prompt: hi, timeout: 2m}]
---
name: second
agent: {command: [a]}
permissions: {default: deny}
turns: [{prompt: hi}]
`
	scens, all, err := scenario.LoadBytes("x.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []scenario.Warning{{Pos: scenario.Pos{File: "x.yaml", Line: 4, Col: 31}, Msg: "turn timeout 2m0s is longer than the scenario timeout 1m0s"}}
	if diff := cmp.Diff(want, scens[0].Warnings); diff != "" {
		t.Errorf("first's warnings (-want +got):\n%s", diff)
	}
	if len(scens[1].Warnings) != 0 {
		t.Errorf("second's warnings %v, want none", scens[1].Warnings)
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("Load's warnings (-want +got):\n%s", diff)
	}
	if w, ok := scens[0].NoPermissionsWarning(); !ok || w.Pos != scens[0].Pos {
		t.Errorf("first: NoPermissionsWarning %v, %v; want one at the scenario", w, ok)
	}
	if _, ok := scens[1].NoPermissionsWarning(); ok {
		t.Error("second has permissions: NoPermissionsWarning gave one")
	}
}
