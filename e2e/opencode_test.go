package e2e_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// opencode is the real third-party agent of the containment tests (issue
// 25): it runs its tools without asking unless it is configured to ask.
// npm installs it, pinned, under opencode-VERSION in the third-party cache
// (.ci/run does); the package's postinstall links the platform package's
// binary as node_modules/.bin/opencode, which runs without node.
const (
	opencodePackage = "opencode-ai"
	opencodeVersion = "1.18.33"
)

// opencodeBin is the pinned opencode's binary. The test is skipped when it
// is not installed (see npmAgentBin).
func opencodeBin(t *testing.T) string {
	t.Helper()
	return npmAgentBin(t, "opencode", opencodePackage, opencodeVersion, "opencode")
}

// npmAgentBin is the bin called bin of the agent that npm installed,
// pinned to version, under name-version in the third-party cache (as
// .ci/run does). The test is skipped when the package is not installed
// there: failed instead under envThirdPartyRequired, unless npm itself is
// missing, as a missing node skips the TypeScript SDK's agent.
func npmAgentBin(t *testing.T, name, pkg, version, bin string) string {
	t.Helper()
	prefix := filepath.Join(thirdPartyCache(t), name+"-"+version)
	install := fmt.Sprintf("npm install --prefix %s --no-audit --no-fund --save-exact %s@%s", prefix, pkg, version)
	var meta struct {
		Version string `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(prefix, "node_modules", pkg, "package.json"))
	if err != nil || json.Unmarshal(data, &meta) != nil || meta.Version != version {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skipf("npm is not installed, and %s@%s is not installed under %s", pkg, version, prefix)
		}
		skipUnavailable(t, "%s@%s is not installed under %s; .ci/run installs it with:\n%s", pkg, version, prefix, install)
	}
	path := filepath.Join(prefix, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s@%s is installed under %s without its bin %s (%v); install it again with:\n%s", pkg, version, prefix, bin, err, install)
	}
	return path
}

// opencodeHome is opencode's environment for a test: its home and XDG
// directories under home, and nothing fetched from the network (no
// update check, no model catalogue, no sharing, no default plugins, no
// language servers, no project config found above the session's cwd).
// Its user config (XDG_CONFIG_HOME/opencode) names the model server as its
// one provider and model; it also tells opencode that @opencode-ai/plugin,
// which opencode otherwise installs from the npm registry into every
// config directory in the background, is there already (none of the
// test's config needs it).
func opencodeHome(t *testing.T, home string, model *testkit.ModelServer) map[string]string {
	t.Helper()
	config, err := json.Marshal(map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible", // bundled in opencode's binary
			"name":    "acprun's scripted model",
			"options": map[string]any{"baseURL": model.URL, "apiKey": "test"},
			"models":  map[string]any{model.Model: map[string]any{"name": "Scripted", "tool_call": true}},
		}},
		"model":       "fake/" + model.Model,
		"small_model": "fake/" + model.Model, // its session titles too
	})
	if err != nil {
		t.Fatal(err)
	}
	const plugin = `{"dependencies": {"@opencode-ai/plugin": "` + opencodeVersion + `"}}`
	writeFiles(t, home, map[string]string{
		".config/opencode/opencode.json":                  string(config),
		".config/opencode/package.json":                   plugin,
		".config/opencode/package-lock.json":              `{"lockfileVersion": 3, "packages": {"": ` + plugin + `}}`,
		".config/opencode/node_modules/.acprun-test-stub": "",
	})
	return map[string]string{
		"HOME":                             home,
		"XDG_CONFIG_HOME":                  filepath.Join(home, ".config"),
		"XDG_DATA_HOME":                    filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":                   filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":                   filepath.Join(home, ".cache"),
		"OPENCODE_DISABLE_AUTOUPDATE":      "1",
		"OPENCODE_DISABLE_MODELS_FETCH":    "1",
		"OPENCODE_DISABLE_SHARE":           "1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD":    "1",
		"OPENCODE_DISABLE_PROJECT_CONFIG":  "1",
	}
}

// opencodeRun is what one containment scenario did.
type opencodeRun struct {
	dir     string // the run's directory: s.yaml, out.json, tr/
	target  string // the file outside the session's cwd that the command writes
	command string // the scripted Bash command
	res     result
	sc      report.Result
	turn    report.TurnResult
}

// runOpencode runs opencode, through acprun, on a turn in which the model
// asks for one Bash tool call that writes target, a file outside the
// session's cwd, and ends with a text once the call's result comes back.
// The scenario's policy allows everything but paths under target's
// directory; permissions (more keys of the scenario's permissions) and
// extra (top-level keys, each line ending in a newline) are added to it. The command writes through a redirection,
// which opencode's own check for paths outside the project (only the
// arguments of cd, rm, cp, mv, mkdir, touch, chmod, chown and cat) does not
// see: by default opencode runs it without asking anything.
func runOpencode(t *testing.T, bin, permissions, extra string) opencodeRun {
	t.Helper()
	dir := realTempDir(t)
	r := opencodeRun{dir: dir, target: filepath.Join(dir, "outside", "pwned")}
	r.command = "echo pwned > " + r.target
	model := testkit.NewModelServer(t, "scripted",
		testkit.ModelReply{ToolCalls: []testkit.ModelToolCall{{ID: "call_1", Name: "bash",
			Arguments: map[string]string{"command": r.command, "description": "Write a file outside the project"}}}},
		testkit.ModelReply{Text: "Done."})
	env := opencodeHome(t, filepath.Join(dir, "home"), model)
	var envYAML []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		envYAML = append(envYAML, fmt.Sprintf("%s: %q", k, env[k]))
	}
	writeFiles(t, dir, map[string]string{
		"ws/README.md":  "the session's cwd\n",
		"outside/.keep": "",
		"acprun.yaml":   fmt.Sprintf("agents:\n  opencode:\n    command: [%q, acp]\n    env: {%s}\n", bin, strings.Join(envYAML, ", ")),
		"s.yaml": fmt.Sprintf(`name: opencode
agent: {name: opencode, cwd: ws}
permissions:
  default: allow
  deny: [{path: %q}]
  %s
turnTimeout: 3m
%sturns:
  - prompt: Write the file.
`, filepath.Join(dir, "outside", "**"), permissions, extra),
	})
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(dir, "home", ".local", "share", "opencode", "log", "*.log"))
			var text []string
			for _, l := range logs {
				data, _ := os.ReadFile(l)
				text = append(text, string(data))
			}
			t.Logf("the model server's requests:\n%s\nacprun's stderr:\n%s\nopencode's log:\n%s", model.Log(), r.res.stderr, strings.Join(text, "\n"))
		}
	})
	var out report.Results
	r.res, out = runResults(t, dir, "s.yaml", "--transcripts", "tr")
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
		t.Fatalf("results = %+v; want one scenario with one turn", out.Scenarios)
	}
	r.sc, r.turn = out.Scenarios[0], out.Scenarios[0].Turns[0]
	if r.sc.Agent.Name != "opencode" || r.sc.Agent.InfoName != "OpenCode" || r.sc.Agent.InfoVersion != opencodeVersion {
		t.Errorf("agent = %+v; want the named agent opencode: OpenCode %s", r.sc.Agent, opencodeVersion)
	}
	return r
}

// call is the turn's one tool call, which must run the scripted command.
func (r opencodeRun) call(t *testing.T) report.ToolCall {
	t.Helper()
	if len(r.turn.ToolCalls) != 1 {
		t.Fatalf("tool calls %+v; want the one Bash call", r.turn.ToolCalls)
	}
	c := r.turn.ToolCalls[0]
	var input struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(c.RawInput, &input); err != nil || c.ID != "call_1" || c.Kind != "execute" || input.Command != r.command {
		t.Fatalf("tool call %+v; want call_1, execute, running %q", c, r.command)
	}
	return c
}

// TestOpencodeContainment: opencode runs a Bash command that writes
// outside its session's cwd, which the scenario's policy denies. Without
// enforcement it runs unasked, the file appears and the results say the
// policy had no effect; with permissions.enforce (the default for the
// named agent) opencode asks, acprun denies, and the file does not exist;
// under `sandbox:` with enforce off it runs unasked and the write fails.
func TestOpencodeContainment(t *testing.T) {
	t.Parallel()
	bin := opencodeBin(t)

	t.Run("unasked", func(t *testing.T) {
		t.Parallel()
		r := runOpencode(t, bin, "enforce: false", "")
		if data, err := os.ReadFile(r.target); err != nil || string(data) != "pwned\n" {
			t.Errorf("the file outside: %q, %v; want it written (opencode asks nothing by default)", data, err)
		}
		if r.res.code != exitOK || r.sc.Status != report.StatusPassed || r.turn.StopReason != "end_turn" || r.turn.Text != "Done." {
			t.Errorf("exit %d, status %s, stopReason %q, text %q; want a passing turn that ends with the model's text",
				r.res.code, r.sc.Status, r.turn.StopReason, r.turn.Text)
		}
		if c := r.call(t); c.Status != "completed" {
			t.Errorf("tool call status %s; want completed", c.Status)
		}
		if len(r.turn.Permissions) != 0 {
			t.Errorf("permissions %+v; want none asked", r.turn.Permissions)
		}
		want := fmt.Sprintf("tool call call_1 (%q) ran without a permission request; the policy would have denied it (deny rule s.yaml:5): "+
			"the policy had no effect on it", r.command)
		if !slices.Equal(r.turn.Warnings, []string{want}) || !strings.Contains(r.res.stderr, "warning: turn 1: "+want) {
			t.Errorf("turn warnings %q; want\n%q\nin the results and on stderr", r.turn.Warnings, want)
		}
	})

	t.Run("enforce", func(t *testing.T) {
		t.Parallel()
		r := runOpencode(t, bin, "", "")
		if _, err := os.Stat(r.target); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the file outside: %v; want it never written", err)
		}
		if r.res.code != exitOK || r.sc.Status != report.StatusPassed || r.turn.StopReason != "end_turn" {
			t.Errorf("exit %d, status %s, stopReason %q; want a passing turn", r.res.code, r.sc.Status, r.turn.StopReason)
		}
		if c := r.call(t); c.Status != "failed" {
			t.Errorf("tool call status %s; want failed: opencode was refused", c.Status)
		}
		if len(r.turn.Permissions) != 1 {
			t.Fatalf("permissions %+v; want opencode's one request", r.turn.Permissions)
		}
		p := r.turn.Permissions[0]
		if p.ToolCallID != "call_1" || p.Decision != "deny" || p.Rule != "s.yaml:5" || p.OptionID != "reject" || p.Outcome != "selected" ||
			!slices.Equal(p.Commands, []string{r.command}) || !slices.Contains(p.Paths, r.target) {
			t.Errorf("permission %+v; want call_1 denied by s.yaml:5 (optionId reject) for %q", p, r.command)
		}
		if r.sc.Denied != 1 || len(r.turn.Warnings) != 0 {
			t.Errorf("denied %d, warnings %q; want 1 and none", r.sc.Denied, r.turn.Warnings)
		}
		tr := readTranscript(t, filepath.Join(r.dir, r.sc.Transcript))
		if got := tr.permissionAnswers(t); !slices.Equal(got, []string{"reject"}) {
			t.Errorf("permission answers sent = %q; want optionId reject", got)
		}
	})

	t.Run("sandbox", func(t *testing.T) {
		t.Parallel()
		sandboxHost(t, false) // bubblewrap and Landlock: skipped without them, except in CI
		// opencode's home and XDG directories are the run's home/ (see
		// opencodeHome): its state, writable as a named agent's is.
		r := runOpencode(t, bin, "enforce: false", "sandbox: {write: [home]}\n")
		if _, err := os.Stat(r.target); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the file outside: %v; want it never written: the sandbox holds what opencode runs unasked", err)
		}
		if r.sc.Sandbox == nil || r.sc.Sandbox.Backend == "" || r.sc.Sandbox.Backend == "none" {
			t.Errorf("sandbox %+v; want the one applied recorded", r.sc.Sandbox)
		}
		r.call(t)
		if len(r.turn.Permissions) != 0 || !strings.Contains(strings.Join(r.turn.Warnings, "\n"), "the policy had no effect on it") {
			t.Errorf("permissions %+v, warnings %q; want none asked and the call warned about", r.turn.Permissions, r.turn.Warnings)
		}
	})
}
