package e2e_test

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
)

// enforceWrapper stands in for a named agent: it writes the arguments
// acprun gave it and the settings that reached it to $OUT, then becomes
// the mock agent. claude's settings are read from its working directory,
// the session cwd.
const enforceWrapper = `{
  printf 'args:'; printf ' %s' "$@"; printf '\n'
  printf 'opencode=%s\n' "$OPENCODE_CONFIG_CONTENT"
  if [ -n "$QWEN_CODE_SYSTEM_SETTINGS_PATH" ]; then printf 'qwen=%s\n' "$(cat "$QWEN_CODE_SYSTEM_SETTINGS_PATH")"; fi
  if [ -f .claude/settings.json ]; then printf 'claude=%s\n' "$(tr -d ' \n' < .claude/settings.json)"; fi
} > "$OUT"
exec "$ACPRUN_BIN" mock-agent "$SCRIPT"
`

// enforceDir is a directory with enforceWrapper (wrap.sh), the script of
// the mock agent it becomes (agent.mock.yaml: it says ok) and files.
func enforceDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{"wrap.sh": enforceWrapper, "agent.mock.yaml": "turns:\n  - steps:\n      - text: ok\n"})
	writeFiles(t, dir, files)
	return dir
}

// TestEnforceNamedAgents: permissions.enforce gives each named agent the
// settings that make it ask before it acts — its args, its env, a settings
// file, or project settings merged into a workspace copy (and left out of
// the agent's changes) — and enforce: false leaves it as it is.
func TestEnforceNamedAgents(t *testing.T) {
	t.Parallel()
	dir := enforceDir(t, map[string]string{
		"ws/main.go":               "package main\n",
		"ws/.claude/settings.json": `{"permissions": {"allow": ["Read"], "ask": ["Bash"]}, "model": "x"}` + "\n",
	})
	agents := ""
	for _, name := range []string{"claude", "opencode", "qwen"} {
		agents += "  " + name + ": {command: [sh, " + filepath.Join(dir, "wrap.sh") + "], env: {ACPRUN_BIN: " + acprunBin +
			", SCRIPT: " + filepath.Join(dir, "agent.mock.yaml") + "}}\n"
	}
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n" + agents})
	scenario := func(name, agent, out, extra string) string {
		return "name: " + name + "\nagent: {name: " + agent + ", env: {OUT: " + filepath.Join(dir, out) + "}}\n" + extra +
			"turns:\n  - prompt: go\n    expect: {text: {contains: ok}}\n"
	}
	writeFiles(t, dir, map[string]string{"s.yaml": strings.Join([]string{
		scenario("opencode", "opencode", "opencode.txt", ""),
		scenario("opencode-off", "opencode", "opencode-off.txt", "permissions: {enforce: false}\n"),
		scenario("qwen", "qwen", "qwen.txt", ""),
		scenario("claude", "claude", "claude.txt", "workspace: ws\n"),
		scenario("claude-mine", "claude", "claude-mine.txt", ""),
	}, "---\n")})

	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	seen := func(file string) map[string]string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			k, v, _ := strings.Cut(l, "=")
			if strings.HasPrefix(l, "args:") {
				k, v = "args", strings.TrimPrefix(l, "args:")
			}
			m[k] = v
		}
		return m
	}
	if got := seen("opencode.txt")["opencode"]; got != `{"permission":{"edit":"ask","bash":"ask"}}` {
		t.Errorf("opencode got OPENCODE_CONFIG_CONTENT %q, want edit and bash to ask", got)
	}
	if got := seen("opencode-off.txt")["opencode"]; got != "" {
		t.Errorf("opencode with enforce: false got OPENCODE_CONFIG_CONTENT %q, want none", got)
	}
	qwen := seen("qwen.txt")
	if qwen["args"] != " --approval-mode default" || qwen["qwen"] != `{"tools":{"approvalMode":"default"},"permissions":{"ask":["Bash","Edit"]}}` {
		t.Errorf("qwen got %q, want --approval-mode default and its system settings", qwen)
	}
	var claude map[string]any
	if err := json.Unmarshal([]byte(seen("claude.txt")["claude"]), &claude); err != nil {
		t.Fatalf("claude's settings: %v", err)
	}
	perms, _ := claude["permissions"].(map[string]any)
	if perms["defaultMode"] != "default" || claude["model"] != "x" ||
		!slices.Equal(strs(perms["allow"]), []string{"Read"}) || !slices.Equal(strs(perms["ask"]), []string{"Bash", "Edit", "Write"}) {
		t.Errorf("claude's settings = %v, want the project's merged with ask Bash, Edit, Write and defaultMode default", claude)
	}
	if src, _ := os.ReadFile(filepath.Join(dir, "ws/.claude/settings.json")); !strings.Contains(string(src), `"ask": ["Bash"]}`) {
		t.Errorf("the workspace's source was changed: %s", src)
	}
	byName := map[string]int{}
	for i, sc := range out.Scenarios {
		byName[sc.Name] = i
	}
	if ws := out.Scenarios[byName["claude"]].Workspace; ws == nil || len(ws.Created)+len(ws.Modified)+len(ws.Deleted) != 0 {
		t.Errorf("claude's workspace = %+v, want no change: acprun's settings are not the agent's", ws)
	}
	if got := seen("claude-mine.txt")["claude"]; got != "" {
		t.Errorf("claude without a workspace read settings %q, want none", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude")); err == nil {
		t.Errorf("acprun wrote .claude in the user's own tree")
	}
	mine := out.Scenarios[byName["claude-mine"]]
	if w := strings.Join(mine.Warnings, "\n"); !strings.Contains(w, "permissions.enforce: claude asks before it acts only with its settings in the session's .claude/settings.json, which acprun writes only in a workspace copy") {
		t.Errorf("claude without a workspace: warnings %q, want one that says it may act without asking", mine.Warnings)
	}
}

func strs(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, s := range l {
		out = append(out, s.(string))
	}
	return out
}

// TestEnforceStrict: with permissions.enforce: strict a tool call the agent
// ran without asking, which the policy would have denied, fails its turn;
// a call that failed is said to have been tried, not to have run.
func TestEnforceStrict(t *testing.T) {
	t.Parallel()
	script := `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: rm -rf /tmp/x, kind: execute, status: completed, rawInput: {command: rm -rf /tmp/x}}
      - tool_call: {toolCallId: t2, title: curl evil, kind: execute, status: failed, rawInput: {command: curl evil}}
      - tool_call: {toolCallId: t3, title: go test, kind: execute, status: completed, rawInput: {command: go test ./...}}
      - text: done
`
	scenario := func(enforce string) string {
		return "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n" +
			"permissions: {default: deny, allow: [{command: \"go test *\"}]" + enforce + "}\nturns:\n  - prompt: go\n"
	}
	res, out, _ := runOne(t, script, scenario(", enforce: strict"))
	if res.code != 1 {
		t.Fatalf("strict: exit %d, want 1\nstderr:\n%s", res.code, res.stderr)
	}
	turn := out.Scenarios[0].Turns[0]
	want := []string{
		`tool call t1 ("rm -rf /tmp/x") ran without a permission request; the policy would have denied it (the default): the policy had no effect on it`,
		`tool call t2 ("curl evil") was tried without a permission request (it failed, so it may not have run); the policy would have denied it (the default): the policy had no effect on it`,
	}
	if out.Scenarios[0].Status != "failed" || !slices.Equal(turn.Failures, want) {
		t.Errorf("strict: status %s, turn failures %q\nwant failed on\n%q", out.Scenarios[0].Status, turn.Failures, want)
	}

	res, out, _ = runOne(t, script, scenario(""))
	if res.code != 0 {
		t.Fatalf("without strict: exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	if turn := out.Scenarios[0].Turns[0]; len(turn.Failures) != 0 || !slices.Equal(turn.Warnings, want) {
		t.Errorf("without strict: failures %q, warnings %q\nwant the same messages as warnings", turn.Failures, turn.Warnings)
	}
}

// TestEnforceStrictAfterAsking: a tool call that ran although its
// permission request was denied, or ran otherwise than the request the
// policy allowed, is held as one that ran unasked: with
// permissions.enforce: strict a failure of its turn that says which case
// it is, in the results, on -v and in the HTML report; a warning without.
func TestEnforceStrictAfterAsking(t *testing.T) {
	t.Parallel()
	script := `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: rm, kind: execute, rawInput: {command: rm -rf x}}
      - permission: {toolCallId: t1}
        rejected: [{tool_call_update: {toolCallId: t1, status: completed, rawOutput: {stdout: removed}}}]
      - tool_call: {toolCallId: t2, title: ls -la, kind: execute, rawInput: {command: ls -la}}
      - permission: {toolCallId: t2}
        allowed: [{tool_call_update: {toolCallId: t2, title: rm -rf /, rawInput: {command: rm -rf /}, status: completed}}]
      - tool_call: {toolCallId: t3, title: ls, kind: execute, rawInput: {command: ls}}
      - permission: {toolCallId: t3}
        allowed: [{tool_call_update: {toolCallId: t3, status: completed}}]
`
	scenario := func(enforce string) string {
		return "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n" +
			"permissions: {default: allow, deny: [{command: \"rm *\"}]" + enforce + "}\nturns:\n  - prompt: go\n"
	}
	want := []string{
		`tool call t1 ("rm") ran although its permission request was denied; the policy would have denied it (deny rule s.yaml:3): the policy had no effect on it`,
		`tool call t2 ("rm -rf /") ran otherwise than its permission request asked ("ls -la", input {"command":"ls -la"}), which was allowed; ` +
			`the policy would have denied it (deny rule s.yaml:3): the policy had no effect on it`,
	}
	res, out, dir := runOne(t, script, scenario(", enforce: strict"), "-v", "--html", "r.html")
	if res.code != exitFailed {
		t.Fatalf("strict: exit %d, want %d\nstderr:\n%s", res.code, exitFailed, res.stderr)
	}
	sc := out.Scenarios[0]
	if turn := sc.Turns[0]; sc.Status != "failed" || !slices.Equal(turn.Failures, want) {
		t.Errorf("strict: status %s, turn failures %q\nwant failed on\n%q", sc.Status, turn.Failures, want)
	}
	html, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(res.stderr, "turn 1: "+w) {
			t.Errorf("-v does not say %q:\n%s", w, res.stderr)
		}
		if !strings.Contains(string(html), template.HTMLEscapeString(w)) {
			t.Errorf("the HTML report does not say %q", w)
		}
	}

	res, out, _ = runOne(t, script, scenario(""))
	if res.code != 0 {
		t.Fatalf("without strict: exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	if turn := out.Scenarios[0].Turns[0]; len(turn.Failures) != 0 || !slices.Equal(turn.Warnings, want) {
		t.Errorf("without strict: failures %q, warnings %q\nwant the same messages as warnings", turn.Failures, turn.Warnings)
	}
}

// TestEnforceSettingsLinkOutOfCopy: the workspace's source is a tree
// acprun does not trust. A .claude that links to a directory of the
// user's, or a settings.json that links to a file of theirs, must not
// have acprun read, write or make anything there: the scenario errors,
// naming the link, and the user's files are as they were.
func TestEnforceSettingsLinkOutOfCopy(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	home := filepath.Join(dir, "home")
	writeFiles(t, dir, map[string]string{
		"wrap.sh":              enforceWrapper,
		"agent.mock.yaml":      "turns:\n  - steps:\n      - text: ok\n",
		"home/settings.json":   `{"mine": true}` + "\n",
		"dirlink/main.go":      "package main\n",
		"filelink/main.go":     "package main\n",
		"filelink/.claude/a.t": "x\n",
	})
	if err := os.Symlink(home, filepath.Join(dir, "dirlink/.claude")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "settings.json"), filepath.Join(dir, "filelink/.claude/settings.json")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "agents:\n  claude: {command: [sh, " + filepath.Join(dir, "wrap.sh") + "], env: {ACPRUN_BIN: " + acprunBin +
			", SCRIPT: " + filepath.Join(dir, "agent.mock.yaml") + ", OUT: " + filepath.Join(dir, "out.txt") + "}}\n",
		"s.yaml": "name: dirlink\nagent: claude\nworkspace: dirlink\nturns:\n  - prompt: go\n" +
			"---\nname: filelink\nagent: claude\nworkspace: filelink\nturns:\n  - prompt: go\n",
	})

	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Errorf("exit %d, want %d\nstderr:\n%s", res.code, exitFailed, res.stderr)
	}
	const want = "permissions.enforce: claude's settings .claude/settings.json: a symbolic link leads out of the workspace copy, and acprun does not follow it: remove the link from the workspace's source"
	for _, sc := range out.Scenarios {
		if sc.Status != "error" || !strings.Contains(sc.Error, want) {
			t.Errorf("%s: %s %q, want error %q", sc.Name, sc.Status, sc.Error, want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(home, "settings.json")); string(data) != `{"mine": true}`+"\n" {
		t.Errorf("the user's settings were changed: %q", data)
	}
	if left, _ := os.ReadDir(home); len(left) != 1 {
		t.Errorf("acprun made files in the user's directory: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Errorf("the agent started")
	}
}

// TestEnforceSettingsNotAnObject: a workspace whose .claude/settings.json
// is JSON but not an object errors the scenario saying so, in JSON's words
// (not Go's), before the agent starts.
func TestEnforceSettingsNotAnObject(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"wrap.sh":                  enforceWrapper,
		"agent.mock.yaml":          "turns:\n  - steps:\n      - text: ok\n",
		"ws/main.go":               "package main\n",
		"ws/.claude/settings.json": "[1]\n",
	})
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "agents:\n  claude: {command: [sh, " + filepath.Join(dir, "wrap.sh") + "], env: {ACPRUN_BIN: " + acprunBin +
			", SCRIPT: " + filepath.Join(dir, "agent.mock.yaml") + ", OUT: " + filepath.Join(dir, "out.txt") + "}}\n",
		"s.yaml": "name: list\nagent: claude\nworkspace: ws\nturns:\n  - prompt: go\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	const want = "holds a JSON array, not an object, so the settings could not be added to it"
	if res.code != exitFailed || len(out.Scenarios) != 1 || out.Scenarios[0].Status != "error" || !strings.Contains(out.Scenarios[0].Error, want) || strings.Contains(out.Scenarios[0].Error, "Go value") {
		t.Errorf("exit %d, results %+v; want exit %d, the scenario an error saying %q\nstderr:\n%s", res.code, out.Scenarios, exitFailed, want, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Errorf("the agent started")
	}
}

// TestEnforceSettingsTampered: acprun's merge of claude's project settings
// is not the agent's change, but what the agent does to them afterwards
// is: an agent that deletes the project's settings, or rewrites the ones
// acprun made to bypassPermissions, fails files.unchanged and makes a
// protected match invalid, and protect does not claim the glob matches
// no file.
func TestEnforceSettingsTampered(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"delete.mock.yaml":           "turns:\n  - steps:\n      - spawn: rm .claude/settings.json\n      - text: done\n",
		"bypass.mock.yaml":           "turns:\n  - steps:\n      - writeFile: {path: .claude/settings.json, content: '{\"permissions\":{\"defaultMode\":\"bypassPermissions\"}}'}\n      - text: done\n",
		"mine/a.txt":                 "hi\n",
		"mine/.claude/settings.json": `{"permissions":{"deny":["Bash(rm:*)"]}}` + "\n",
		"fresh/a.txt":                "hi\n",
		"acprun.yaml":                "agents:\n  claude: {command: [" + acprunBin + ", mock-agent]}\n",
	})
	scenario := func(name, from, script string) string {
		return "name: " + name + "\nagent: {name: claude, args: [" + filepath.Join(dir, script) + "]}\n" +
			"workspace: {from: " + from + ", protect: [\".claude/**\"]}\npermissions: {default: deny}\n" +
			"turns:\n  - prompt: hi\n    expect: {files: {unchanged: [\".claude/**\"]}}\n"
	}
	writeFiles(t, dir, map[string]string{"s.yaml": scenario("delete", "mine", "delete.mock.yaml") + "---\n" + scenario("bypass", "fresh", "bypass.mock.yaml")})

	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitInvalid {
		t.Errorf("exit %d, want %d\nstderr:\n%s", res.code, exitInvalid, res.stderr)
	}
	if strings.Contains(res.stderr, "matches no file") {
		t.Errorf("stderr warns that the protect glob matches no file:\n%s", res.stderr)
	}
	for _, tt := range []struct{ name, what string }{{"delete", "deleted"}, {"bypass", "modified"}} {
		i := slices.IndexFunc(out.Scenarios, func(r report.Result) bool { return r.Name == tt.name })
		if i < 0 {
			t.Fatalf("no result for %s", tt.name)
		}
		r := out.Scenarios[i]
		ws := r.Workspace
		if ws == nil {
			t.Errorf("%s: no workspace in the results (status %s, error %q)", tt.name, r.Status, r.Error)
			continue
		}
		got := map[string][]string{"created": ws.Created, "modified": ws.Modified, "deleted": ws.Deleted}
		if !slices.Equal(got[tt.what], []string{".claude/settings.json"}) || len(ws.Created)+len(ws.Modified)+len(ws.Deleted) != 1 {
			t.Errorf("%s: workspace changes %v; want %s .claude/settings.json alone", tt.name, got, tt.what)
		}
		if r.Status != report.StatusInvalid || r.Invalid == nil || !strings.Contains(r.Invalid.Message, tt.what+" .claude/settings.json") {
			t.Errorf("%s: status %s, invalid %+v; want invalid (tampered): %s .claude/settings.json", tt.name, r.Status, r.Invalid, tt.what)
		}
		if len(r.Turns) != 1 || !slices.ContainsFunc(r.Turns[0].Failures, func(f string) bool { return strings.Contains(f, ".claude/settings.json") }) {
			t.Errorf("%s: turns %+v; want files.unchanged to fail on .claude/settings.json", tt.name, r.Turns)
		}
	}
}

// TestEnforceUnaskedMode: a session mode known to stop an agent made to
// ask from asking (claude's bypassPermissions and dontAsk) is an error
// before any agent starts, at the mode or naming --mode; with
// permissions.enforce: false the agent runs in it.
func TestEnforceUnaskedMode(t *testing.T) {
	t.Parallel()
	dir := enforceDir(t, map[string]string{"ws/README.md": "hi\n"})
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n  claude: {command: [sh, " + filepath.Join(dir, "wrap.sh") + "], env: {ACPRUN_BIN: " + acprunBin +
		", SCRIPT: " + filepath.Join(dir, "agent.mock.yaml") + ", OUT: " + filepath.Join(dir, "started.txt") + "}}\n"})
	scenario := func(mode, perms string) string {
		return "name: s\nagent: {name: claude, mode: " + mode + "}\nworkspace: ws\npermissions: {default: allow" + perms + "}\n" +
			"turns:\n  - prompt: go\n    expect: {text: {contains: ok}}\n"
	}
	const why = `does not ask permission (it acts, or refuses, on its own), so permissions.enforce cannot make it ask and the permission rules would never be consulted: choose another mode, or set permissions.enforce: false`
	for _, tc := range []struct {
		name, src string
		args      []string
		want      string
	}{
		{name: "the scenario's mode", src: scenario("bypassPermissions", ""),
			want: `s.yaml:2:29: agent.mode: in mode "bypassPermissions" claude ` + why},
		{name: "--mode", src: scenario("default", ""), args: []string{"--mode", "dontAsk"},
			want: `--mode dontAsk: agent.mode: in mode "dontAsk" claude ` + why},
	} {
		writeFiles(t, dir, map[string]string{"s.yaml": tc.src})
		res := acprun(t, dir, append([]string{"run", "s.yaml"}, tc.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.name, res.code, res.stderr, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "started.txt")); err == nil {
			t.Fatalf("%s: the agent started", tc.name)
		}
	}
	writeFiles(t, dir, map[string]string{"s.yaml": scenario("bypassPermissions", ", enforce: false")})
	if res := acprun(t, dir, "run", "s.yaml"); res.code != 0 {
		t.Errorf("enforce: false: exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
}

// TestEnforceUnaskedModeSetLater: an enforced claude whose mode is set
// through agent.config is held as agent.mode is: its option "mode" before
// any agent starts; an option the agent's session/new answer says is of
// category mode ends the scenario as an error before the first prompt,
// at the value, in the same words; with permissions.enforce: false it is
// set. The agent switching itself into such a mode (current_mode_update)
// is a warning of its turn, which still passes.
func TestEnforceUnaskedModeSetLater(t *testing.T) {
	t.Parallel()
	const offers = "configOptions:\n  - {id: permission_mode, category: mode, options: [{value: default}, {value: bypassPermissions}]}\n" +
		"  - {id: mode, options: [{value: default}, {value: dontAsk}]}\n"
	dir := enforceDir(t, map[string]string{"ws/README.md": "hi\n",
		"agent.mock.yaml": offers + "turns:\n  - steps:\n      - update: {sessionUpdate: current_mode_update, currentModeId: bypassPermissions}\n      - text: ok\n"})
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n  claude: {command: [sh, " + filepath.Join(dir, "wrap.sh") + "], env: {ACPRUN_BIN: " + acprunBin +
		", SCRIPT: " + filepath.Join(dir, "agent.mock.yaml") + ", OUT: " + filepath.Join(dir, "started.txt") + "}}\n"})
	scenario := func(config, perms string) string {
		return "name: s\nagent: {name: claude, config: {" + config + "}}\nworkspace: ws\npermissions: {default: allow" + perms + "}\n" +
			"turns:\n  - prompt: go\n    expect: {text: {contains: ok}}\n"
	}
	const why = `does not ask permission (it acts, or refuses, on its own), so permissions.enforce cannot make it ask and the permission rules would never be consulted: choose another mode, or set permissions.enforce: false to run in `

	writeFiles(t, dir, map[string]string{"s.yaml": scenario("mode: dontAsk", "")})
	res := acprun(t, dir, "run", "s.yaml")
	if want := `s.yaml:2:38: agent.config.mode: in mode "dontAsk" claude ` + why + `"dontAsk" on purpose`; res.code != exitUsage || !strings.Contains(res.stderr, want) {
		t.Errorf("config mode: exit %d, stderr:\n%s\nwant exit 2 and %q", res.code, res.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "started.txt")); err == nil {
		t.Fatal("config mode: the agent started")
	}

	writeFiles(t, dir, map[string]string{"s.yaml": scenario("permission_mode: bypassPermissions", "")})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	want := `s.yaml:2:49: agent.config.permission_mode: in mode "bypassPermissions" claude ` + why + `"bypassPermissions" on purpose`
	sc := out.Scenarios[0]
	if res.code != exitAgent || sc.Status != report.StatusError || sc.Error != want || !strings.Contains(res.stderr, want) {
		t.Errorf("an option of category mode: exit %d, status %s, error %q\nwant exit %d, error %q; stderr:\n%s", res.code, sc.Status, sc.Error, exitAgent, want, res.stderr)
	}
	tr := filepath.Join(dir, sc.Transcript)
	if p := configSent(t, tr, "session/set_config_option"); len(p) != 0 {
		t.Errorf("session/set_config_option was sent: %s", p)
	}
	if p := configSent(t, tr, "session/prompt"); len(p) != 0 {
		t.Errorf("session/prompt was sent %d times, want never", len(p))
	}

	writeFiles(t, dir, map[string]string{"s.yaml": scenario("permission_mode: default", "")})
	res, out = runResults(t, dir, "s.yaml")
	switched := `turn 1: the agent switched to mode "bypassPermissions" (current_mode_update), in which claude does not ask permission (it acts, or refuses, on its own): ` +
		"the permission rules may not have been consulted after that point"
	if sc := out.Scenarios[0]; res.code != exitOK || sc.Status != report.StatusPassed || !slices.Contains(sc.Warnings, switched) {
		t.Errorf("the agent switching: exit %d, status %s, warnings %q\nwant exit 0, pass, and %q; stderr:\n%s", res.code, sc.Status, sc.Warnings, switched, res.stderr)
	}

	writeFiles(t, dir, map[string]string{"s.yaml": scenario("permission_mode: bypassPermissions, mode: dontAsk", ", enforce: false")})
	res, out = runResults(t, dir, "s.yaml")
	if sc := out.Scenarios[0]; res.code != exitOK || len(sc.SessionConfig) != 2 || slices.ContainsFunc(sc.Warnings, func(w string) bool { return strings.Contains(w, "switched") }) {
		t.Errorf("enforce: false: exit %d, session config %+v, warnings %q; want 0, both set, no warning of the switch\nstderr:\n%s", res.code, sc.SessionConfig, sc.Warnings, res.stderr)
	}
}

// TestAlwaysNeverBypasses: a rule with always: true that matches claude's
// ExitPlanMode, offered as claude-agent-acp offers it, is answered with
// an allow_always option that keeps claude asking, never the one that
// switches it to bypassPermissions, with permissions.enforce on or off;
// without another allow_always option, with the allow_once one; the
// options of @agentclientprotocol/claude-agent-acp, named otherwise
// (exit-plan-auto), alike. explain chooses as run does.
func TestAlwaysNeverBypasses(t *testing.T) {
	t.Parallel()
	const bypass = "{optionId: bypassPermissions, name: 'Yes, and bypass permissions', kind: allow_always}, "
	script := func(acceptEdits string) string {
		options := bypass + acceptEdits + "{optionId: default, name: 'Yes, and manually approve edits', kind: allow_once}, " +
			"{optionId: plan, name: 'No, keep planning', kind: reject_once}"
		if strings.HasPrefix(acceptEdits, "[") { // the whole list
			options = acceptEdits[1 : len(acceptEdits)-1]
		}
		return "turns:\n  - steps:\n      - permission: {toolCallId: t1, title: 'Ready to code?', kind: switch_mode, name: ExitPlanMode}\n" +
			"        options: [" + options + "]\n        allowed: [{text: ok}]\n"
	}
	// @agentclientprotocol/claude-agent-acp names its options otherwise.
	const newOptions = "[{optionId: exit-plan-clear-auto, name: 'Yes, clear context and use auto mode', kind: allow_always}, " +
		"{optionId: exit-plan-auto, name: 'Yes, and use auto mode', kind: allow_always}, " +
		"{optionId: exit-plan-bypass, name: 'Yes, and bypass permissions', kind: allow_always}, " +
		"{optionId: exit-plan-accept-edits, name: 'Yes, and auto-accept edits', kind: allow_always}, " +
		"{optionId: exit-plan-default, name: 'Yes, and manually approve edits', kind: allow_once}, " +
		"{optionId: plan, name: 'No, keep planning', kind: reject_once}]"
	dir := enforceDir(t, map[string]string{"ws/README.md": "hi\n"})
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n  claude: {command: [sh, " + filepath.Join(dir, "wrap.sh") + "], env: {ACPRUN_BIN: " + acprunBin +
		", SCRIPT: " + filepath.Join(dir, "agent.mock.yaml") + ", OUT: " + filepath.Join(dir, "started.txt") + "}}\n"})
	for _, tc := range []struct {
		name, acceptEdits, enforce, want string
	}{
		{name: "enforced", acceptEdits: "{optionId: acceptEdits, name: 'Yes, and auto-accept edits', kind: allow_always}, ", want: "acceptEdits"},
		{name: "not enforced", acceptEdits: "{optionId: acceptEdits, name: 'Yes, and auto-accept edits', kind: allow_always}, ", enforce: ", enforce: false", want: "acceptEdits"},
		{name: "no other allow_always", want: "default"},
		{name: "the new adapter's options", acceptEdits: newOptions, want: "exit-plan-accept-edits"},
		{name: "the new adapter's options without accept-edits", acceptEdits: strings.Replace(newOptions,
			"{optionId: exit-plan-accept-edits, name: 'Yes, and auto-accept edits', kind: allow_always}, ", "", 1), want: "exit-plan-default"},
	} {
		writeFiles(t, dir, map[string]string{"agent.mock.yaml": script(tc.acceptEdits),
			"s.yaml": "name: s\nagent: {name: claude}\nworkspace: ws\npermissions: {allow: [{tool: ExitPlanMode, always: true}]" + tc.enforce + "}\n" +
				"turns:\n  - prompt: go\n    expect: {text: {contains: ok}}\n"})
		res, out := runResults(t, dir, "s.yaml")
		sc := out.Scenarios[0]
		var got []string
		for _, tr := range sc.Turns {
			for _, p := range tr.Permissions {
				got = append(got, p.OptionID)
			}
		}
		if res.code != exitOK || !slices.Equal(got, []string{tc.want}) {
			t.Errorf("%s: exit %d, options chosen %q; want exit 0 and %q\nstderr:\n%s", tc.name, res.code, got, tc.want, res.stderr)
		}
	}
	writeFiles(t, dir, map[string]string{"req.json": `{"sessionId":"s","toolCall":{"toolCallId":"t1","title":"Ready to code?","kind":"switch_mode","name":"ExitPlanMode"},` +
		`"options":[{"optionId":"bypassPermissions","name":"Yes, and bypass permissions","kind":"allow_always"},{"optionId":"acceptEdits","name":"Yes, and auto-accept edits","kind":"allow_always"}]}`})
	if res := acprun(t, dir, "explain", "s.yaml", "--request", "req.json"); res.code != exitOK || !strings.Contains(res.stdout, `answer:   select option "acceptEdits" (allow_always)`) {
		t.Errorf("explain: exit %d, stdout:\n%s\nwant exit 0 and acceptEdits chosen, as run chooses", res.code, res.stdout)
	}
}

// TestEnforceModeSwitchReported: claude made to ask that reports its
// switch into bypassPermissions only as a config_option_update is warned
// about as one reported as a current_mode_update is; a switch reported
// both ways, as claude does, and repeated by later config_option_updates,
// is warned about once.
func TestEnforceModeSwitchReported(t *testing.T) {
	t.Parallel()
	configured := func(mode string) string {
		return "      - update: {sessionUpdate: config_option_update, configOptions: [{id: mode, name: Mode, category: mode, type: select, currentValue: " + mode +
			", options: [{value: default, name: Default}, {value: bypassPermissions, name: Bypass}]}]}\n"
	}
	switched := func(mode string) string {
		return "      - update: {sessionUpdate: current_mode_update, currentModeId: " + mode + "}\n"
	}
	dir := enforceDir(t, map[string]string{"ws/README.md": "hi\n",
		"agent.mock.yaml": "turns:\n  - steps:\n" + configured("bypassPermissions") + "      - text: ok\n" +
			"  - steps:\n" + switched("default") + configured("default") + switched("bypassPermissions") + configured("bypassPermissions") + configured("bypassPermissions") + "      - text: ok\n"})
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "agents:\n  claude: {command: [sh, " + filepath.Join(dir, "wrap.sh") + "], env: {ACPRUN_BIN: " + acprunBin +
			", SCRIPT: " + filepath.Join(dir, "agent.mock.yaml") + ", OUT: " + filepath.Join(dir, "started.txt") + "}}\n",
		"s.yaml": "name: s\nagent: claude\nworkspace: ws\npermissions: {default: allow}\n" +
			"turns:\n  - prompt: go\n    expect: {text: {contains: ok}}\n  - prompt: again\n    expect: {text: {contains: ok}}\n"})
	res, out := runResults(t, dir, "s.yaml")
	const why = `, in which claude does not ask permission (it acts, or refuses, on its own): the permission rules may not have been consulted after that point`
	want := []string{`turn 1: the agent switched to mode "bypassPermissions" (config_option_update)` + why,
		`turn 2: the agent switched to mode "bypassPermissions" (current_mode_update)` + why}
	var got []string
	sc := out.Scenarios[0]
	for _, w := range sc.Warnings {
		if strings.Contains(w, "switched") {
			got = append(got, w)
		}
	}
	if res.code != exitOK || sc.Status != report.StatusPassed || !slices.Equal(got, want) {
		t.Errorf("exit %d, status %s, warnings of the switch %q\nwant exit 0, pass, and %q; stderr:\n%s", res.code, sc.Status, got, want, res.stderr)
	}
}

// TestEnforceUnaskedModesOfBuiltins: acprun validate refuses the session
// modes in which the built-in agents approve on their own — gemini's
// autoEdit as its yolo, qwen's auto-edit and auto as its yolo, the newer
// adapters' claude auto and codex agent-full-access — at the mode, with
// permissions.enforce on; with enforce: false they are valid.
func TestEnforceUnaskedModesOfBuiltins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const why = `does not ask permission (it acts, or refuses, on its own), so permissions.enforce cannot make it ask`
	for _, tc := range []struct{ agent, mode string }{
		{"gemini", "yolo"}, {"gemini", "autoEdit"}, {"qwen", "yolo"}, {"qwen", "auto-edit"}, {"qwen", "auto"},
		{"claude", "auto"}, {"codex", "agent-full-access"},
	} {
		src := "name: s\nagent: {name: " + tc.agent + ", mode: " + tc.mode + "}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
		writeFiles(t, dir, map[string]string{"s.yaml": src})
		want := `s.yaml:2:` + fmt.Sprint(len("agent: {name: "+tc.agent+", mode: ")+1) + `: agent.mode: in mode "` + tc.mode + `" ` + tc.agent + ` ` + why
		if res := acprun(t, dir, "validate", "s.yaml"); res.code != 2 || !strings.Contains(res.stderr, want) {
			t.Errorf("%s in mode %s: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.agent, tc.mode, res.code, res.stderr, want)
		}
		writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(src, "default: deny", "default: deny, enforce: false", 1)})
		if res := acprun(t, dir, "validate", "s.yaml"); res.code != 0 {
			t.Errorf("%s in mode %s with enforce: false: exit %d, want 0\nstderr:\n%s", tc.agent, tc.mode, res.code, res.stderr)
		}
	}
	for _, tc := range []struct{ agent, mode string }{{"gemini", "default"}, {"qwen", "default"}, {"qwen", "plan"}} {
		writeFiles(t, dir, map[string]string{"s.yaml": "name: s\nagent: {name: " + tc.agent + ", mode: " + tc.mode + "}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
		if res := acprun(t, dir, "validate", "s.yaml"); res.code != 0 {
			t.Errorf("%s in mode %s: exit %d, want 0\nstderr:\n%s", tc.agent, tc.mode, res.code, res.stderr)
		}
	}
}
