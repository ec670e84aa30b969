package scenario_test

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

func int64p(i int64) *int64       { return &i }
func float64p(f float64) *float64 { return &f }

// TestLoadEvals checks every key of workspaces, commands and the
// expectations on what the agent did, with their positions.
func TestLoadEvals(t *testing.T) {
	dir := absTestdata(t)
	f := "testdata/evals.yaml"
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: f, Line: line, Col: col} }
	loc := func(line, col int, v string) scenario.Located { return scenario.Located{Pos: at(line, col), Value: v} }
	scens, warns, err := scenario.Load([]string{f}, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings = %v, want none", warns)
	}
	if len(scens) != 2 {
		t.Fatalf("got %d scenarios, want 2", len(scens))
	}
	repo := filepath.Join(dir, "repo")
	mcp := json.RawMessage("[]")

	type evals struct {
		Workspace               *scenario.Workspace
		Cwd                     string
		CwdPos                  scenario.Pos
		Roots                   []string
		Setup, Verify, Teardown []scenario.Command
		Expect                  scenario.Expect
		TurnExpect              scenario.Expect
	}
	got := func(s *scenario.Scenario) evals {
		return evals{s.Workspace, s.Agent.Cwd, s.Agent.CwdPos, s.Client.Roots, s.Setup, s.Verify, s.Teardown,
			s.Expect, s.Turns[0].Expect}
	}
	cmd := func(line, col int, run string, timeout time.Duration) scenario.Command {
		return scenario.Command{Pos: at(line, col), Run: run, Timeout: timeout, Expect: scenario.CommandExpect{Pos: at(line, col)}}
	}
	want := []evals{
		{
			Workspace: &scenario.Workspace{Pos: at(6, 12), From: repo, SourcePos: at(6, 12)},
			Cwd:       repo,
			Roots:     []string{repo},
			Setup:     []scenario.Command{cmd(8, 5, "npm ci", 0), cmd(9, 5, "make build", 5*time.Minute)},
			Verify: []scenario.Command{
				cmd(34, 5, "test -f done.txt", 0),
				{Pos: at(35, 5), Run: "go test ./...", Timeout: 10 * time.Minute, Expect: scenario.CommandExpect{
					Pos: at(37, 13), ExitCode: 1, ExitCodePos: at(37, 24), StdoutContains: []scenario.Located{loc(37, 46, "ok")}, StdoutMatches: &scenario.Pattern{Pos: at(37, 59), Re: regexp.MustCompile("PASS")},
				}},
			},
			Teardown: []scenario.Command{cmd(38, 12, "rm -rf /tmp/x", 0)},
			Expect:   scenario.Expect{Pos: at(3, 1)},
			TurnExpect: scenario.Expect{
				Pos:         at(13, 7),
				StopReasons: []string{"end_turn"},
				ToolCalls: &scenario.ToolCallsExpect{
					Pos:     at(14, 9),
					Used:    []scenario.Located{loc(14, 16, "edit"), loc(14, 22, "Write *")},
					NotUsed: []scenario.Located{loc(15, 18, "delete")},
					Count: []scenario.CountExpect{
						{Pos: at(16, 26), Pattern: "execute", N: 2, Op: "<="},
						{Pos: at(16, 39), Pattern: "edit", N: 1, Op: "=="},
						{Pos: at(16, 52), Pattern: "Read *", N: 1, Op: ">="},
						{Pos: at(16, 68), Pattern: "search", N: 3, Op: "=="},
					},
					Status:   loc(17, 17, "completed"),
					Sequence: []scenario.Located{loc(18, 20, "read"), loc(18, 26, "edit"), loc(18, 32, "execute")},
				},
				Files: &scenario.FilesExpect{
					Pos:    at(20, 9),
					Exists: []scenario.Located{loc(20, 18, "done.txt"), loc(20, 28, "src/main.go")},
					Absent: []scenario.Located{loc(21, 17, "tmp.txt")},
					Contains: []scenario.FileText{
						{Pos: at(22, 31), Path: "README.md", Text: "hello"},
						{Pos: at(22, 49), Path: "NOTES.md", Text: "one"},
						{Pos: at(22, 54), Path: "NOTES.md", Text: "two"},
					},
					Matches:   []scenario.FileRegexp{{Pos: at(23, 28), Path: "main.go", Re: regexp.MustCompile("func main")}},
					Unchanged: []scenario.Located{loc(24, 21, "vendor/**"), loc(24, 34, "go.mod"), loc(24, 42, "docs/**")},
					Golden:    []scenario.FileGolden{{Pos: at(25, 27), Path: "out.txt", Golden: filepath.Join(dir, "golden", "out.txt")}},
				},
				Permissions: &scenario.PermissionsExpect{
					Pos:          at(26, 20),
					Requested:    []scenario.Located{loc(26, 33, "edit")},
					NotRequested: []scenario.Located{loc(26, 54, "execute")},
				},
				Usage: &scenario.UsageExpect{
					Pos:            at(27, 14),
					MaxTotalTokens: int64p(50000), MaxTokensPos: at(27, 31),
					MaxCost: float64p(0.5), MaxCostPos: at(27, 47),
				},
				Judge: &scenario.Judge{
					Pos: at(29, 9),
					Agent: scenario.Agent{Pos: at(29, 16), Name: "claude",
						Command: []string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"}, AuthEnv: []string{"ANTHROPIC_API_KEY"}, McpServers: mcp,
						Env: map[string]string{"CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false"}},
					Rubric:  "Say PASS when the fix is right.",
					Pass:    regexp.MustCompile("^PASS"),
					Timeout: 2 * time.Minute,
				},
			},
		},
		{
			Workspace: &scenario.Workspace{Pos: at(43, 12), Git: repo, Ref: "HEAD~3", SourcePos: at(43, 18), RefPos: at(43, 31)},
			Cwd:       repo,
			Roots:     []string{repo},
			Expect: scenario.Expect{
				Pos:         at(45, 3),
				ToolCalls:   &scenario.ToolCallsExpect{Pos: at(45, 14), NotUsed: []scenario.Located{loc(45, 25, "delete")}},
				Files:       &scenario.FilesExpect{Pos: at(46, 10), Unchanged: []scenario.Located{loc(46, 22, "**")}},
				Permissions: &scenario.PermissionsExpect{Pos: at(47, 16), NotRequested: []scenario.Located{loc(47, 32, "execute")}},
				Usage:       &scenario.UsageExpect{Pos: at(48, 10), MaxCost: float64p(2), MaxCostPos: at(48, 20)},
				Judge: &scenario.Judge{
					Pos:    at(50, 5),
					Agent:  scenario.Agent{Pos: at(50, 12), Command: []string{"judge", "--strict"}, McpServers: mcp},
					Rubric: "Is the change minimal?\n",
					Pass:   regexp.MustCompile(scenario.DefaultJudgePass),
				},
			},
			TurnExpect: scenario.Expect{Pos: at(53, 9), StopReasons: []string{"end_turn"}},
		},
	}
	for i, s := range scens {
		if diff := cmp.Diff(want[i], got(s), cmpOpts); diff != "" {
			t.Errorf("scenario %s (-want +got):\n%s", s.Name, diff)
		}
	}
	if got := scens[0].Workspace.Source(); got != repo {
		t.Errorf("Source() = %q, want %q", got, repo)
	}
}

// TestEvalErrors: each problem of a workspace, a command or an
// expectation on what the agent did is reported at its value, saying what
// to do. The files are named bad.yaml in the package directory, so that
// testdata/ holds the directories and golden files they use.
func TestEvalErrors(t *testing.T) {
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	const head = "name: x\nagent: {command: [a]}\npermissions: {}\n" // three lines
	turn := func(expect string) string {
		return head + "turns:\n  - prompt: hi\n    expect:\n" + expect
	}
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "workspace that does not exist",
			src:  head + "workspace: ./nope\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:12: workspace " + wd + "/nope does not exist: create it, or change workspace " +
				"(a relative path is relative to " + wd + ")"},
		},
		{
			name: "workspace that is a file",
			src:  head + "workspace: {from: testdata/NOTES.md}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:19: workspace " + wd + "/testdata/NOTES.md is not a directory: " +
				"from names the directory to copy for each attempt"},
		},
		{
			name: "git workspace that does not exist",
			src:  head + "workspace:\n  git: ${NOPE:-gone}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:5:8: workspace " + wd + "/gone does not exist: create it, or change git " +
				"(a relative path is relative to " + wd + ")"},
		},
		{
			name: "workspace with an unset variable",
			src:  head + "workspace: \"testdata/${NOPE}\"\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:22: environment variable NOPE is not set (write ${NOPE:-default} to give a default)"},
		},
		{
			name: "workspace with from and git",
			src:  head + "workspace: {from: testdata, git: testdata}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:29: use either from (a directory to copy) or git (a repository to check out), not both"},
		},
		{
			name: "ref without git",
			src:  head + "workspace: {from: testdata, ref: main}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:29: ref goes with git: a directory copied with from has no ref (use git: to check out a commit)"},
		},
		{
			name: "workspace with neither from nor git",
			src:  head + "workspace: {ref: main}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:12: workspace needs from (a directory to copy) or git (a repository to check out)"},
		},
		{
			name: "misspelt workspace key",
			src:  head + "workspace: {form: testdata}\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:4:13: unknown key "form" (did you mean "from"?)`},
		},
		{
			name: "workspace of the wrong type",
			src:  head + "workspace: [testdata]\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:12: expected a workspace: a directory to copy (a string, or {from: DIR}) or {git: REPO, ref: REF}, got a list"},
		},
		{
			name: "ref that git would take for an option",
			src:  head + "workspace: {git: testdata, ref: --upload-pack=x}\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:4:33: bad ref "--upload-pack=x": a ref cannot start with -`},
		},
		{
			name: "setup that is not a list",
			src:  head + "setup: npm ci\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:8: expected a list of setup commands (each a shell line, or a mapping with run), got a string"},
		},
		{
			name: "setup and teardown have no expect",
			src:  head + "setup: [{run: make, expect: {exitCode: 0}}]\nteardown:\n  - run: rm x\n    expect: {}\nturns: [{prompt: hi}]\n",
			want: []string{
				`bad.yaml:4:21: unknown key "expect" (valid keys: run, timeout); only verify commands have an expect ` +
					"(a setup command must exit 0; a teardown command's outcome is only recorded)",
				`bad.yaml:7:5: unknown key "expect" (valid keys: run, timeout); only verify commands have an expect ` +
					"(a setup command must exit 0; a teardown command's outcome is only recorded)",
			},
		},
		{
			name: "empty commands",
			src:  head + "setup: [\"  \"]\nverify:\n  - run: \"\"\n  - {timeout: 1m}\n  - [a]\nturns: [{prompt: hi}]\n",
			want: []string{
				"bad.yaml:4:9: setup command is empty",
				"bad.yaml:6:10: run is empty: give the shell line to run",
				`bad.yaml:7:5: missing required key "run"`,
				"bad.yaml:8:5: expected a verify command (a shell line, or a mapping with run), got a list",
			},
		},
		{
			name: "verify expectations",
			src: head + `verify:
  - {run: a, timeout: 0s, expect: {exitCode: 256}}
  - {run: b, expect: {exitCode: zero, stdout: {}}}
  - {run: c, expect: {}}
  - {run: d, expect: {stdout: {matches: "(", contain: x}}}
  - {run: e, expect: {stdout: {contains: ["FAIL: 0"], notContains: FAIL, notMatches: [x*, "("]}}}
turns: [{prompt: hi}]
`,
			want: []string{
				`bad.yaml:5:23: bad duration "0s": must be greater than zero`,
				"bad.yaml:5:46: expected an exit code from 0 to 255, got 256",
				"bad.yaml:6:33: expected an exit code (a whole number from 0 to 255), got a string",
				"bad.yaml:6:47: stdout needs contains, matches, notContains or notMatches",
				"bad.yaml:7:22: expect needs exitCode or stdout",
				"bad.yaml:8:41: bad regular expression: error parsing regexp: missing closing ): `(`",
				`bad.yaml:8:46: unknown key "contain" (did you mean "contains"?)`,
				`bad.yaml:9:68: contains requires "FAIL: 0" (line 9), which holds "FAIL": no output can meet both`,
				`bad.yaml:9:87: notMatches /x*/ matches every output (even an empty one), so it could never hold; give what must not appear`,
				"bad.yaml:9:91: bad regular expression: error parsing regexp: missing closing ): `(`",
			},
		},
		{
			name: "empty toolCalls and a misspelt key",
			src:  turn("      toolCalls: {}\n  - prompt: again\n    expect: {toolCalls: {usd: edit}}\n"),
			want: []string{
				"bad.yaml:7:18: toolCalls needs used, notUsed, count, status or sequence",
				`bad.yaml:9:26: unknown key "usd" (did you mean "used"?)`,
			},
		},
		{
			name: "tool call patterns and status",
			src: turn(`      toolCalls:
        used: [edit, ""]
        notUsed: [delete, edit]
        sequence: []
        status: complete
`),
			want: []string{
				"bad.yaml:8:22: empty pattern: give a tool kind (read, edit, delete, move, search, execute, think, fetch, switch_mode, other) or a glob on the tool call's title or tool name",
				`bad.yaml:9:27: "edit" is in both used (line 8) and notUsed: no run can meet both`,
				"bad.yaml:10:19: expected at least one value, got an empty list",
				`bad.yaml:11:17: unknown tool call status "complete" (did you mean "completed"?)`,
			},
		},
		{
			name: "counts out of reach",
			src: turn(`      toolCalls: {count: {edit: 0}, used: [edit]}
  - prompt: two
    expect:
      toolCalls:
        count: {edit: 2, read: ">=1"}
        notUsed: [edit, read]
  - prompt: three
    expect:
      toolCalls: {sequence: [read, edit, read], count: {read: "<=1", edit: ">=1"}, notUsed: [search]}
`),
			want: []string{
				`bad.yaml:7:44: "edit": used needs a tool call matching it, and count allows none: no run can meet both`,
				`bad.yaml:12:19: "edit": count (line 11) needs at least 2 tool calls matching it, and notUsed allows none: no run can meet both`,
				`bad.yaml:12:25: "read": count (line 11) needs a tool call matching it, and notUsed allows none: no run can meet both`,
				`bad.yaml:15:63: "read": sequence needs at least 2 tool calls matching it, and count allows at most 1: no run can meet both`,
			},
		},
		{
			name: "counts",
			src: turn(`      toolCalls:
        count: {execute: -1, edit: "< 2", read: lots, search: true, fetch: 1.5, think: [1], "": 1, other: "<= 99999999999"}
  - prompt: again
    expect: {toolCalls: {count: {}}}
`),
			want: []string{
				`bad.yaml:8:26: bad count "-1" for "execute": use a whole number N (exactly N calls), "<=N" (at most) or ">=N" (at least)`,
				`bad.yaml:8:36: bad count "< 2" for "edit": use a whole number N (exactly N calls), "<=N" (at most) or ">=N" (at least)`,
				`bad.yaml:8:49: bad count "lots" for "read": use a whole number N (exactly N calls), "<=N" (at most) or ">=N" (at least)`,
				`bad.yaml:8:63: expected a count (N, "<=N" or ">=N"), got a boolean`,
				`bad.yaml:8:76: bad count "1.5" for "fetch": use a whole number N (exactly N calls), "<=N" (at most) or ">=N" (at least)`,
				`bad.yaml:8:88: expected a count (N, "<=N" or ">=N"), got a list`,
				"bad.yaml:8:93: empty pattern: give a tool kind (read, edit, delete, move, search, execute, think, fetch, switch_mode, other) or a glob on the tool call's title or tool name",
				`bad.yaml:8:107: bad count "<= 99999999999" for "other": use a whole number N (exactly N calls), "<=N" (at most) or ">=N" (at least)`,
				`bad.yaml:10:33: count is empty: map tool kinds or title globs to counts, such as {execute: "<=2", edit: 1}`,
			},
		},
		{
			// At least 0 calls is every turn: a count that could never
			// fail is an error, as an empty contains is.
			name: "counts that could never fail",
			src: turn(`      toolCalls:
        count: {edit: ">=0", execute: ">= 0", read: 0, search: "<=0", fetch: ">=1"}
`),
			want: []string{
				`bad.yaml:8:23: count ">=0" for "edit": at least 0 calls is any number of calls, so it could never fail; give ">=1" (at least one call) or 0 (none)`,
				`bad.yaml:8:39: count ">= 0" for "execute": at least 0 calls is any number of calls, so it could never fail; give ">=1" (at least one call) or 0 (none)`,
			},
		},
		{
			name: "files paths",
			src: turn(`      files:
        exists: [/etc/passwd, ../up, "", ., a/../../b]
        absent: [ok, ok]
        contains: {/abs: x, a.txt: "", b.txt: []}
        matches: {main.go: "func ("}
        golden: {out.txt: ./testdata/missing.txt, dir.txt: testdata}
`),
			want: []string{
				`bad.yaml:8:18: path "/etc/passwd" is absolute: paths here are relative to the workspace (or the session cwd)`,
				`bad.yaml:8:31: path "../up" uses ..: write it relative to the workspace (or the session cwd), without ..`,
				"bad.yaml:8:38: path is empty",
				`bad.yaml:8:42: path "." names the workspace itself: name a file or directory in it`,
				`bad.yaml:8:45: path "a/../../b" uses ..: write it relative to the workspace (or the session cwd), without ..`,
				`bad.yaml:10:20: path "/abs" is absolute: paths here are relative to the workspace (or the session cwd)`,
				"bad.yaml:10:36: empty text: give the text a.txt must contain",
				"bad.yaml:10:47: expected at least one value, got an empty list",
				"bad.yaml:11:28: bad regular expression: error parsing regexp: missing closing ): `func (`",
				`bad.yaml:12:27: golden file "./testdata/missing.txt" does not exist`,
				`bad.yaml:12:60: golden file "testdata" is not a regular file (a directory): give a file`,
			},
		},
		{
			name: "empty files and file maps",
			src:  turn("      files: {}\n  - prompt: again\n    expect: {files: {contains: {}, matches: {}, golden: {}}}\n"),
			want: []string{
				"bad.yaml:7:14: files needs exists, absent, contains, matches, unchanged or golden",
				"bad.yaml:9:32: contains is empty: map file paths to the text each must contain",
				"bad.yaml:9:45: matches is empty: map file paths to a regular expression each must match",
				"bad.yaml:9:57: golden is empty: map file paths to golden files (relative to this file)",
			},
		},
		{
			name: "unchanged without a workspace, in a turn and at the scenario level",
			src: head + `expect:
  files: {unchanged: ["**"]}
turns:
  - prompt: hi
    expect: {files: {exists: [a], unchanged: "vendor/**"}}
`,
			want: []string{
				"bad.yaml:5:11: files.unchanged compares with the workspace's starting copy, and the scenario has no workspace: " +
					"add workspace: DIR (or workspace: {git: REPO}) to the scenario or to the config's defaults",
				"bad.yaml:8:35: files.unchanged compares with the workspace's starting copy, and the scenario has no workspace: " +
					"add workspace: DIR (or workspace: {git: REPO}) to the scenario or to the config's defaults",
			},
		},
		{
			// A mapping whose only key is a list is one error, at the
			// key: it is not also empty.
			name: "a list as the only key",
			src: turn(`      files: {contains: {[a]: x}, matches: {? {b: 1} : y}}
      toolCalls: {count: {[a]: 1}}
      text: {[a]: x}
`),
			want: []string{
				"bad.yaml:7:26: expected a key name, got a list",
				"bad.yaml:7:47: expected a key name, got a mapping",
				"bad.yaml:8:27: expected a key name, got a list",
				"bad.yaml:9:14: expected a key name, got a list",
			},
		},
		{
			name: "bad unchanged globs",
			src:  head + "workspace: testdata\nexpect: {files: {unchanged: [\"[a\", /abs/**, ./]}}\nturns: [{prompt: hi}]\n",
			want: []string{
				`bad.yaml:5:30: bad pattern "[a": malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal [`,
				`bad.yaml:5:36: pattern "/abs/**" is absolute: paths here are relative to the workspace (or the session cwd)`,
				`bad.yaml:5:45: pattern "./" names the workspace itself: write ** for every path in it`,
			},
		},
		{
			name: "permissions",
			src:  turn("      permissions: {}\n  - prompt: again\n    expect: {permissions: {requested: edit, notRequested: [read, edit], asked: x}}\n"),
			want: []string{
				"bad.yaml:7:20: permissions needs requested or notRequested",
				`bad.yaml:9:66: "edit" is in both requested (line 9) and notRequested: no run can meet both`,
				`bad.yaml:9:73: unknown key "asked" (valid keys: requested, notRequested)`,
			},
		},
		{
			name: "usage",
			src:  turn("      usage: {}\n  - prompt: again\n    expect: {usage: {maxTotalTokens: -1, maxCost: cheap}}\n  - prompt: more\n    expect: {usage: {maxTotalTokens: 1.5, maxCost: -0.1}}\n"),
			want: []string{
				"bad.yaml:7:14: usage needs maxTotalTokens or maxCost",
				"bad.yaml:9:38: expected a whole number from 0 up, got -1",
				"bad.yaml:9:51: expected a number, got a string",
				"bad.yaml:11:38: expected a whole number, got a number",
				"bad.yaml:11:52: expected a number from 0 up, got -0.1",
			},
		},
		{
			name: "judge without agent and rubric",
			src:  turn("      judge: {pass: PASS}\n"),
			want: []string{
				`bad.yaml:7:14: missing required key "agent"`,
				`bad.yaml:7:14: missing required key "rubric"`,
			},
		},
		{
			name: "judge values",
			src: turn(`      judge:
        agent: cluade
        rubric: "  "
        pass: ""
        timeout: 2
  - prompt: again
    expect:
      judge: {agent: mock, rubric: r, pass: "(", rubrik: x}
  - prompt: more
    expect:
      judge: {agent: {command: [j], cwd: nope}, rubric: r}
`),
			want: []string{
				`bad.yaml:8:16: unknown agent "cluade" (did you mean "claude"?)`,
				"bad.yaml:9:17: rubric is empty: say what the judge should check",
				"bad.yaml:10:15: pass is empty, so every reply would pass: give a regular expression such as ^PASS",
				`bad.yaml:11:18: bad duration "2" (a unit is required): use a Go duration like 90s, 5m or 1h30m`,
				"bad.yaml:14:22: the mock agent needs its script: agent: {name: mock, args: [agents/x.mock.yaml]}, " +
					"or a config agent with the script in its command",
				"bad.yaml:14:45: bad regular expression: error parsing regexp: missing closing ): `(`",
				`bad.yaml:14:50: unknown key "rubrik" (did you mean "rubric"?)`,
				"bad.yaml:17:42: agent cwd " + wd + "/nope does not exist: create that directory, or change cwd " +
					"(a relative cwd is relative to " + wd + ")",
			},
		},
		{
			name: "misspelt expect key",
			src:  turn("      toolcalls: {used: edit}\n      file: {exists: a}\n"),
			want: []string{
				`bad.yaml:7:7: unknown key "toolcalls" (did you mean "toolCalls"?)`,
				`bad.yaml:8:7: unknown key "file" (did you mean "files"?)`,
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

// TestWorkspaceCwdAndRoots: with a workspace, the session cwd and the
// client roots default to its source (which the runner maps to the
// attempt's copy); a cwd or roots given explicitly stay as they are.
func TestWorkspaceCwdAndRoots(t *testing.T) {
	base := dirsUnder(t, "cfg/work", "s/repo", "s/other")
	cfgFile, scFile := base+"/cfg/acprun.yaml", base+"/s/x.yaml"
	cfg := loadConfigAt(t, cfgFile, "agents:\n  withcwd: {command: [a], cwd: work}\n")
	repo, other := base+"/s/repo", base+"/s/other"
	scens := loadAt(t, cfg, scFile, `name: default
agent: {command: [a]}
workspace: repo
turns: [{prompt: hi}]
---
name: own-cwd
agent: {command: [a], cwd: other}
workspace: repo
turns: [{prompt: hi}]
---
name: own-roots
agent: {command: [a]}
workspace: repo
client: {roots: [other]}
turns: [{prompt: hi}]
---
name: named-cwd
agent: withcwd
workspace: repo
turns: [{prompt: hi}]
---
name: no-workspace
agent: {command: [a]}
turns: [{prompt: hi}]
`)
	type where struct {
		Name  string
		Cwd   string
		Roots []string
	}
	var got []where
	for _, s := range scens {
		got = append(got, where{s.Name, s.Agent.Cwd, s.Client.Roots})
	}
	want := []where{
		{"default", repo, []string{repo}},
		{"own-cwd", other, []string{other}},
		{"own-roots", repo, []string{other}},
		{"named-cwd", base + "/cfg/work", []string{base + "/cfg/work"}},
		{"no-workspace", base + "/s", []string{base + "/s"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cwd and roots (-want +got):\n%s", diff)
	}
	if p := scens[0].Agent.CwdPos; p != (scenario.Pos{}) {
		t.Errorf("CwdPos = %v, want zero for a cwd that comes from the workspace", p)
	}
	// Another agent keeps the scenario's cwd, the workspace's.
	w, err := scens[0].WithAgent("claude", scenario.LoadOptions{LookupEnv: env, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if w.Agent.Cwd != repo {
		t.Errorf("WithAgent: cwd = %q, want %q", w.Agent.Cwd, repo)
	}

	// An explicit cwd is still checked.
	_, _, err = scenario.LoadBytes(scFile, []byte("name: x\nagent: {command: [a], cwd: gone}\nworkspace: repo\nturns: [{prompt: hi}]\n"), opts)
	wantErr := []string{scFile + ":2:28: agent cwd " + base + "/s/gone does not exist: create that directory, or change cwd " +
		"(a relative cwd is relative to " + base + "/s)"}
	if diff := cmp.Diff(wantErr, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	// A workspace that does not exist is reported once, not as the cwd too.
	_, _, err = scenario.LoadBytes(scFile, []byte("name: x\nagent: {command: [a]}\nworkspace: gone\nturns: [{prompt: hi}]\n"), opts)
	wantErr = []string{scFile + ":3:12: workspace " + base + "/s/gone does not exist: create it, or change workspace " +
		"(a relative path is relative to " + base + "/s)"}
	if diff := cmp.Diff(wantErr, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestConfigEvalDefaults: the config's workspace and commands apply to
// every scenario (paths relative to the config file) and a scenario's key
// replaces the config's as a whole.
func TestConfigEvalDefaults(t *testing.T) {
	base := dirsUnder(t, "cfg/fixture", "s/mine")
	cfgFile, scFile := base+"/cfg/acprun.yaml", base+"/s/x.yaml"
	cfg := loadConfigAt(t, cfgFile, `defaults:
  workspace: fixture
  setup: [make deps]
  verify:
    - {run: make check, expect: {exitCode: 0}}
  teardown: [make clean]
`)
	cat := func(line, col int) scenario.Pos { return scenario.Pos{File: cfgFile, Line: line, Col: col} }
	scAt := func(line, col int) scenario.Pos { return scenario.Pos{File: scFile, Line: line, Col: col} }
	fixture := base + "/cfg/fixture"
	wantDefaults := scenario.Defaults{Scenario: scenario.Scenario{
		Client:    scenario.Client{FS: true, Terminal: true},
		Workspace: &scenario.Workspace{Pos: cat(2, 14), From: fixture, SourcePos: cat(2, 14)},
		Setup:     []scenario.Command{{Pos: cat(3, 11), Run: "make deps", Expect: scenario.CommandExpect{Pos: cat(3, 11)}}},
		Verify:    []scenario.Command{{Pos: cat(5, 7), Run: "make check", Expect: scenario.CommandExpect{Pos: cat(5, 33), ExitCodePos: cat(5, 44)}}},
		Teardown:  []scenario.Command{{Pos: cat(6, 14), Run: "make clean", Expect: scenario.CommandExpect{Pos: cat(6, 14)}}},
	}}
	if diff := cmp.Diff(wantDefaults, cfg.Defaults, cmpOpts); diff != "" {
		t.Errorf("Defaults (-want +got):\n%s", diff)
	}
	scens := loadAt(t, cfg, scFile, `name: defaults
agent: {command: [a]}
expect: {files: {unchanged: "**"}}
turns: [{prompt: hi}]
---
name: replaced
agent: {command: [a]}
workspace: {git: mine, ref: main}
setup: []
verify: [make test]
turns: [{prompt: hi}]
---
name: none
agent: {command: [a]}
workspace: null
teardown: []
turns: [{prompt: hi}]
`)
	type evals struct {
		Name                    string
		Workspace               *scenario.Workspace
		Cwd                     string
		Setup, Verify, Teardown []string
	}
	runs := func(cs []scenario.Command) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Run)
		}
		return out
	}
	var got []evals
	for _, s := range scens {
		got = append(got, evals{s.Name, s.Workspace, s.Agent.Cwd, runs(s.Setup), runs(s.Verify), runs(s.Teardown)})
	}
	want := []evals{
		{"defaults", &scenario.Workspace{Pos: cat(2, 14), From: fixture, SourcePos: cat(2, 14)}, fixture,
			[]string{"make deps"}, []string{"make check"}, []string{"make clean"}},
		{"replaced", &scenario.Workspace{Pos: scAt(8, 12), Git: base + "/s/mine", Ref: "main", SourcePos: scAt(8, 18), RefPos: scAt(8, 29)},
			base + "/s/mine", nil, []string{"make test"}, []string{"make clean"}},
		{"none", nil, base + "/s", []string{"make deps"}, []string{"make check"}, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	// Each scenario has its own copy of the config's.
	if scens[0].Workspace == cfg.Defaults.Scenario.Workspace {
		t.Errorf("scenario workspace is the config's, want a copy")
	}

	// Without the config's workspace, unchanged has nothing to compare with.
	o := opts
	o.Config = cfg
	_, _, err := scenario.LoadBytes(scFile, []byte("name: x\nagent: {command: [a]}\nworkspace: null\n"+
		"expect: {files: {unchanged: go.mod}}\nturns: [{prompt: hi}]\n"), o)
	wantErr := []string{scFile + ":4:18: files.unchanged compares with the workspace's starting copy, and the scenario has no workspace: " +
		"add workspace: DIR (or workspace: {git: REPO}) to the scenario or to the config's defaults"}
	if diff := cmp.Diff(wantErr, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestConfigEvalDefaultsErrors(t *testing.T) {
	base := dirsUnder(t, "cfg")
	cfgFile := base + "/cfg/acprun.yaml"
	_, err := scenario.LoadConfigBytes(cfgFile, []byte(`defaults:
  workspace: {from: missing}
  setup: [{run: make, expect: {exitCode: 1}}]
  verify: make test
expect: {files: {exists: a}}
`), opts)
	want := []string{
		cfgFile + ":2:21: workspace " + base + "/cfg/missing does not exist: create it, or change from " +
			"(a relative path is relative to " + base + "/cfg)",
		cfgFile + `:3:23: unknown key "expect" (valid keys: run, timeout); only verify commands have an expect ` +
			"(a setup command must exit 0; a teardown command's outcome is only recorded)",
		cfgFile + ":4:11: expected a list of verify commands (each a shell line, or a mapping with run), got a string",
		cfgFile + `:5:1: unknown key "expect" (valid keys: defaults, agents, prices, currency); scenarios go in files of their own, not in the config file`,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestEvalWarnings: values of expectations that are near a name acprun
// knows, and likely meant it, are warned about, not refused.
func TestEvalWarnings(t *testing.T) {
	src := `name: x
agent: {command: [a]}
permissions: {}
turns:
  - prompt: hi
    expect:
      toolCalls: {used: [exec, "Read *", Edit], count: {serach: 1}}
      permissions: {notRequested: [execute, delet]}
      stopReason: [end_turn, canceled, vendor_paused]
`
	_, warns, err := scenario.LoadBytes("w.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.Pos.String()+": "+w.Msg)
	}
	want := []string{
		`w.yaml:7:26: "exec" is not a tool kind (did you mean "execute"?), so it matches only a tool call titled or named "exec"`,
		`w.yaml:7:42: "Edit" is not a tool kind (did you mean "edit"?), so it matches only a tool call titled or named "Edit"`,
		`w.yaml:7:57: "serach" is not a tool kind (did you mean "search"?), so it matches only a tool call titled or named "serach"`,
		`w.yaml:8:45: "delet" is not a tool kind (did you mean "delete"?), so it matches only a tool call titled or named "delet"`,
		// A near miss of a stop reason is kept as an agent's own: a typo
		// fails the turn, and an agent that answers canceled can be
		// expected. One near none is an agent's own, said nothing of.
		`w.yaml:9:30: stop reason "canceled" is not ACP's nor acprun's (did you mean "cancelled"?), so only a turn whose agent answers "canceled" verbatim meets it`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestFilesPathWithBraces: a files.exists or files.absent path with the
// shell's {a,b}, which is neither a glob nor expanded here, would name one
// path with braces and a comma in it: absent would always pass, exists
// never. It is an error at the path, as in a rule's path; [{] writes a
// literal {.
func TestFilesPathWithBraces(t *testing.T) {
	src := `name: x
agent: {command: [a]}
turns:
  - prompt: hi
    expect:
      files: {exists: ["src/{a,b}.go"], absent: ["[{]x,y}", "{tmp,cache}/"]}
`
	want := []string{
		`bad.yaml:6:24: bad pattern "src/{a,b}.go": {a,b} is not a glob here: write one pattern for each (or [{] for a literal {)`,
		`bad.yaml:6:61: bad pattern "{tmp,cache}": {a,b} is not a glob here: write one pattern for each (or [{] for a literal {)`,
	}
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestFilesAbsentGlobInGit: a files.absent glob in the .git at the root,
// which the files checks' globs skip, could never fail: it is an error at
// the glob, where it used to pass whatever the agent did. A path there
// without glob characters is checked, and a glob in another .git is
// matched, so both load.
func TestFilesAbsentGlobInGit(t *testing.T) {
	src := `name: x
agent: {command: [a]}
turns:
  - prompt: hi
    expect:
      files: {absent: [".git/*", .git/MERGE_HEAD, .git/, "sub/.git/*", ".git/**/lock"]}
`
	const never = ` is in .git, which the files checks' globs never match, so files.absent of it could never fail: ` +
		`name a path without glob characters (such as .git/MERGE_HEAD), or check the repository in a verify command`
	want := []string{
		`bad.yaml:6:24: pattern ".git/*"` + never,
		`bad.yaml:6:72: pattern ".git/**/lock"` + never,
	}
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
