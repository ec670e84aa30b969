package e2e_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
)

// The third-party agents of these tests: the example agents of the ACP
// SDKs, at pinned versions. Both play the same scripted turn (see
// testdata/thirdparty): two message chunks, a read tool call that
// completes, a chunk, an edit tool call behind a permission request with
// options allow (allow_once) and reject (reject_once), then a chunk and
// end_turn, with ~1 s pauses between the steps.
const (
	goSDKAgentPkg = "github.com/coder/acp-go-sdk/example/agent"
	goSDKVersion  = "v0.13.5"
	tsSDKPackage  = "@agentclientprotocol/sdk"
	tsSDKVersion  = "1.9.0" // the last line to ship dist/examples/agent.js
	tsZodVersion  = "4.6.7" // its peer dependency, pinned too
)

// envThirdPartyRequired, when set (.ci/run sets it), turns the skips for
// a missing network or node into failures: in CI these tests must run.
const envThirdPartyRequired = "ACPRUN_THIRDPARTY_REQUIRED"

// thirdPartyCache is where the agents are installed between runs:
// $ACPRUN_THIRDPARTY_CACHE, else acprun-thirdparty in the user's cache
// directory (~/.cache on Linux). .ci/run uses the same rule.
func thirdPartyCache(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("ACPRUN_THIRDPARTY_CACHE"); dir != "" {
		return dir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache directory for the third-party agents (%v): set ACPRUN_THIRDPARTY_CACHE", err)
	}
	return filepath.Join(dir, "acprun-thirdparty")
}

// tsSDKDir is the npm prefix the TypeScript SDK is installed under:
// $ACPRUN_TS_SDK_DIR, else ts-sdk-VERSION in the cache.
func tsSDKDir(t *testing.T) string {
	if dir := os.Getenv("ACPRUN_TS_SDK_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(thirdPartyCache(t), "ts-sdk-"+tsSDKVersion)
}

// skipUnavailable skips the test for a missing prerequisite, or fails it
// when envThirdPartyRequired is set.
func skipUnavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(envThirdPartyRequired) != "" {
		t.Fatalf("%s (%s is set: the third-party agent tests must run)", msg, envThirdPartyRequired)
	}
	t.Skip(msg)
}

// offline reports whether a go or npm failure's output says the network
// (module proxy, registry) could not be reached, or is off on purpose.
func offline(out string) bool {
	for _, s := range []string{"dial tcp", "no such host", "network is unreachable", "connection refused",
		"i/o timeout", "TLS handshake timeout", "ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ENETUNREACH", "ENOTCACHED", "disabled by GOPROXY=off"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

var (
	goAgentOnce sync.Once
	goAgentPath string
	goAgentErr  error
	goAgentLog  string
)

// goSDKAgent is the Go SDK's example agent, built once with go install
// into the cache (kept there: a later run reuses it after checking its
// build info names the pinned version).
func goSDKAgent(t *testing.T) string {
	t.Helper()
	goAgentOnce.Do(func() {
		bin := filepath.Join(thirdPartyCache(t), "go-sdk-"+goSDKVersion)
		goAgentPath = filepath.Join(bin, "agent")
		if builtAt(goAgentPath, goSDKVersion) {
			return
		}
		cmd := exec.Command("go", "install", goSDKAgentPkg+"@"+goSDKVersion)
		// Outside this module, with none of its flags: pkg@version builds
		// the example from its own module.
		cmd.Dir = os.TempDir()
		cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=", "GOWORK=off", "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		goAgentLog = string(out)
		if err == nil && !builtAt(goAgentPath, goSDKVersion) {
			err = errors.New("go install succeeded but the binary's build info does not name " + goSDKVersion)
		}
		goAgentErr = err
	})
	if goAgentErr != nil {
		cmd := fmt.Sprintf("GOBIN=%s go install %s@%s", filepath.Dir(goAgentPath), goSDKAgentPkg, goSDKVersion)
		if offline(goAgentLog) {
			skipUnavailable(t, "the Go SDK's example agent could not be downloaded (no network?): %s\n%s", cmd, goAgentLog)
		}
		t.Fatalf("%s: %v\n%s", cmd, goAgentErr, goAgentLog)
	}
	return goAgentPath
}

// builtAt reports whether bin is a Go binary built from the module at
// version.
func builtAt(bin, version string) bool {
	out, err := exec.Command("go", "version", "-m", bin).Output()
	return err == nil && bytes.Contains(out, []byte("github.com/coder/acp-go-sdk\t"+version))
}

var tsAgentMu sync.Mutex

// tsSDKAgent is the TypeScript SDK's example agent script under the npm
// prefix .ci/run installs it into; when node is there but the package is
// not, it installs the package the same way. The test is skipped only
// when node is absent.
func tsSDKAgent(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not installed: the TypeScript SDK's example agent (%s@%s) cannot run", tsSDKPackage, tsSDKVersion)
	}
	prefix := tsSDKDir(t)
	script = filepath.Join(prefix, "node_modules", tsSDKPackage, "dist", "examples", "agent.js")
	tsAgentMu.Lock()
	defer tsAgentMu.Unlock()
	if installedTS(prefix) {
		return node, script
	}
	install := []string{"npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--save-exact",
		tsSDKPackage + "@" + tsSDKVersion, "zod@" + tsZodVersion}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatalf("node is installed but npm is not, and %s@%s is missing under %s; install it with:\n%s",
			tsSDKPackage, tsSDKVersion, prefix, strings.Join(install, " "))
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(install[0], install[1:]...)
	cmd.Dir = prefix
	out, err := cmd.CombinedOutput()
	if err != nil {
		if offline(string(out)) {
			skipUnavailable(t, "%s@%s could not be downloaded (no network?): %s\n%s", tsSDKPackage, tsSDKVersion, strings.Join(install, " "), out)
		}
		t.Fatalf("%s: %v\n%s", strings.Join(install, " "), err, out)
	}
	if !installedTS(prefix) {
		t.Fatalf("%s installed no %s@%s with dist/examples/agent.js under %s\n%s", strings.Join(install, " "), tsSDKPackage, tsSDKVersion, prefix, out)
	}
	return node, script
}

// installedTS reports whether the pinned TypeScript SDK, with its example
// agent, is installed under prefix.
func installedTS(prefix string) bool {
	dir := filepath.Join(prefix, "node_modules", tsSDKPackage)
	var pkg struct {
		Version string `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || json.Unmarshal(data, &pkg) != nil || pkg.Version != tsSDKVersion {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "dist", "examples", "agent.js"))
	return err == nil
}

func TestThirdPartyGoSDKAgent(t *testing.T) {
	t.Parallel()
	agent := goSDKAgent(t)
	runThirdParty(t, []string{agent}, thirdPartyAgent{
		// The SDK races the cancel against the permission's cancelled
		// answer: its turn ends cancelled or, when the answer wins,
		// end_turn (see SDKS.md).
		cancelStops: []string{"cancelled", "end_turn"},
	})
}

func TestThirdPartyTSSDKAgent(t *testing.T) {
	t.Parallel()
	node, script := tsSDKAgent(t)
	runThirdParty(t, []string{node, script}, thirdPartyAgent{
		// A cancelled permission answer ends its turn end_turn, always.
		cancelStops: []string{"end_turn"},
	})
}

// thirdPartyAgent is what differs between the example agents.
type thirdPartyAgent struct {
	cancelStops []string // the stop reasons it may answer a cancelled turn with
}

// thirdPartyScenarios are the files of testdata/thirdparty.
var thirdPartyScenarios = []string{"allow.yaml", "deny.yaml", "cancel.yaml", "cancel-midturn.yaml"}

// runThirdParty runs the scenarios of testdata/thirdparty against command
// (given to them by a config file's defaults) in one acprun run, and
// checks each one's results and transcript.
func runThirdParty(t *testing.T, command []string, want thirdPartyAgent) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, name := range thirdPartyScenarios {
		data, err := os.ReadFile(filepath.Join("testdata", "thirdparty", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	quoted := make([]string, len(command))
	for i, c := range command {
		quoted[i] = fmt.Sprintf("%q", c)
	}
	files["acprun.yaml"] = "defaults:\n  agent: {command: [" + strings.Join(quoted, ", ") + "]}\n"
	writeFiles(t, dir, files)

	res, out := runResults(t, dir, append(slices.Clone(thirdPartyScenarios), "--transcripts", "tr", "-j", "4")...)
	byName := map[string]report.Result{}
	for _, sc := range out.Scenarios {
		byName[sc.Name] = sc
	}
	if len(byName) != len(thirdPartyScenarios) {
		t.Fatalf("%d scenarios in the results, want one per file\nstderr:\n%s", len(out.Scenarios), res.stderr)
	}
	// Each scenario passes: the cancelled one expects the stop reasons
	// the agents give a cancelled turn.
	if res.code != 0 {
		t.Errorf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}

	t.Run("allow", func(t *testing.T) { checkAllowed(t, dir, byName["allow-two-turns"]) })
	t.Run("deny", func(t *testing.T) { checkDenied(t, dir, byName["deny-by-rule"]) })
	t.Run("cancel-pending", func(t *testing.T) { checkCancelled(t, dir, byName["cancel-pending-tool-call"], want) })
	t.Run("cancel-mid-turn", func(t *testing.T) {
		checkCancelledMidTurn(t, dir, byName["cancel-mid-turn"], byName["allow-two-turns"])
	})
	t.Run("schema", func(t *testing.T) {
		for _, sc := range out.Scenarios {
			validateTranscript(t, filepath.Join(dir, sc.Transcript))
		}
	})
	checkByStopReason(t, out)
}

// The texts of the example agents' script.
const (
	tpFirstChunk  = "I'll help you with that. Let me start by reading some files"
	tpAllowedText = "successfully updated the configuration"
	tpDeniedText  = "skip the configuration update"
)

// checkAllowed: two turns in one session, each end_turn with its text,
// both tool calls completed and the permission allowed by the allow rule
// (optionId allow on the wire).
func checkAllowed(t *testing.T, dir string, sc report.Result) {
	if sc.Status != report.StatusPassed {
		t.Errorf("status %s, want passed; failures %q, error %q", sc.Status, sc.Failures, sc.Error)
	}
	if sc.Agent.ProtocolVersion != 1 {
		t.Errorf("agent = %+v, want protocol version 1", sc.Agent)
	}
	if len(sc.Turns) != 2 {
		t.Fatalf("%d turns, want 2", len(sc.Turns))
	}
	for _, turn := range sc.Turns {
		if turn.StopReason != "end_turn" || turn.CancelCause != "" {
			t.Errorf("turn %d: stopReason %q, cancelCause %q; want end_turn, not cancelled", turn.Index, turn.StopReason, turn.CancelCause)
		}
		if !strings.Contains(turn.Text, tpFirstChunk) || !strings.HasSuffix(turn.Text, tpAllowedText+". The changes have been applied.") {
			t.Errorf("turn %d: text %q, want every chunk, the allowed change's last", turn.Index, turn.Text)
		}
		checkToolCalls(t, turn, "completed", "completed")
		checkPermission(t, turn, "allow", "allow", "selected", "allow.yaml:")
	}
	tr := readTranscript(t, filepath.Join(dir, sc.Transcript))
	if got := tr.permissionAnswers(t); !slices.Equal(got, []string{"allow", "allow"}) {
		t.Errorf("permission answers sent = %q, want optionId allow for each turn", got)
	}
	// One session: session/new once, both prompts on its id.
	news := tr.sent("session/new")
	prompts := tr.sent("session/prompt")
	if len(news) != 1 || len(prompts) != 2 {
		t.Fatalf("sent %d session/new and %d session/prompt, want 1 and 2", len(news), len(prompts))
	}
	sid := tr.resultOf(t, news[0]).SessionID
	for _, p := range prompts {
		var params struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(p.Params, &params); err != nil || sid == "" || params.SessionID != sid {
			t.Errorf("session/prompt on session %q, want the one session %q", params.SessionID, sid)
		}
	}
}

// checkDenied: the deny rule answers the permission with the reject
// option; the agent skips the edit (its call stays pending: it never
// updates it) and ends its turn.
func checkDenied(t *testing.T, dir string, sc report.Result) {
	if sc.Status != report.StatusPassed || len(sc.Turns) != 1 {
		t.Fatalf("status %s with %d turns, want passed with 1; failures %q, error %q", sc.Status, len(sc.Turns), sc.Failures, sc.Error)
	}
	turn := sc.Turns[0]
	if turn.StopReason != "end_turn" || !strings.HasSuffix(turn.Text, tpDeniedText+".") || strings.Contains(turn.Text, tpAllowedText) {
		t.Errorf("stopReason %q, text %q; want end_turn and the skipped change's text", turn.StopReason, turn.Text)
	}
	checkToolCalls(t, turn, "completed", "pending")
	checkPermission(t, turn, "deny", "reject", "selected", "deny.yaml:")
	if sc.Allowed != 0 || sc.Denied != 1 {
		t.Errorf("allowed %d, denied %d; want 0 and 1", sc.Allowed, sc.Denied)
	}
	tr := readTranscript(t, filepath.Join(dir, sc.Transcript))
	if got := tr.permissionAnswers(t); !slices.Equal(got, []string{"reject"}) {
		t.Errorf("permission answers sent = %q, want optionId reject", got)
	}
}

// checkCancelled: the turn's timeout comes while the edit tool call waits
// for its permission (held by answerDelay): acprun sends session/cancel,
// then answers the permission cancelled, and records the call cancelled.
func checkCancelled(t *testing.T, dir string, sc report.Result, want thirdPartyAgent) {
	if len(sc.Turns) != 1 {
		t.Fatalf("%d turns, want 1", len(sc.Turns))
	}
	turn := sc.Turns[0]
	if turn.CancelCause != report.CauseTurnTimeout {
		t.Errorf("cancelCause %q, want %s", turn.CancelCause, report.CauseTurnTimeout)
	}
	if !slices.Contains(want.cancelStops, turn.StopReason) {
		t.Errorf("stopReason %q, want one of %q", turn.StopReason, want.cancelStops)
	}
	if ignored := turn.StopReason != "cancelled"; turn.CancelIgnored != ignored {
		t.Errorf("cancelIgnored %v with stopReason %q, want %v", turn.CancelIgnored, turn.StopReason, ignored)
	}
	checkToolCalls(t, turn, "completed", "cancelled")
	checkPermission(t, turn, "cancelled", "", "cancelled", "")
	if !strings.Contains(turn.Text, "Now I understand the project structure") || strings.Contains(turn.Text, tpAllowedText) {
		t.Errorf("text %q, want the chunks up to the permission request and none after", turn.Text)
	}
	tr := readTranscript(t, filepath.Join(dir, sc.Transcript))
	if got := tr.permissionAnswers(t); !slices.Equal(got, []string{"cancelled"}) {
		t.Errorf("permission answers sent = %q, want one cancelled outcome", got)
	}
	// session/cancel goes out first, then the permission's answer.
	cancelAt, answerAt := -1, -1
	for i, l := range tr.lines {
		switch {
		case l.Dir == "c2a" && l.Method == "session/cancel" && cancelAt < 0:
			cancelAt = i
		case l.Dir == "c2a" && l.Method == "" && strings.Contains(string(l.Result), `"cancelled"`) && answerAt < 0:
			answerAt = i
		}
	}
	if cancelAt < 0 || answerAt < 0 || cancelAt > answerAt {
		t.Errorf("session/cancel at line %d, cancelled permission answer at line %d: want the cancel sent first", cancelAt+1, answerAt+1)
	}
}

// checkCancelledMidTurn: a timeout before the permission request ends
// the turn cancelled, as the protocol asks; a tool call the agent had not
// finished is recorded cancelled, none is left pending, and the text is
// what the agent sent up to then (a prefix of a whole turn's, allowed).
func checkCancelledMidTurn(t *testing.T, dir string, sc, allowed report.Result) {
	if sc.Status != report.StatusPassed || len(sc.Turns) != 1 {
		t.Fatalf("status %s with %d turns, want passed with 1; failures %q, error %q", sc.Status, len(sc.Turns), sc.Failures, sc.Error)
	}
	turn := sc.Turns[0]
	if turn.StopReason != "cancelled" || turn.CancelIgnored || turn.CancelCause != report.CauseTurnTimeout {
		t.Errorf("stopReason %q, cancelIgnored %v, cancelCause %q; want cancelled on %s", turn.StopReason, turn.CancelIgnored, turn.CancelCause, report.CauseTurnTimeout)
	}
	if len(turn.Permissions) != 0 {
		t.Errorf("permissions %+v, want none: the turn ended before the request", turn.Permissions)
	}
	for _, c := range turn.ToolCalls {
		if c.Status != "completed" && c.Status != "cancelled" {
			t.Errorf("tool call %+v, want completed or (unfinished at the cancel) cancelled", c)
		}
	}
	if len(allowed.Turns) > 0 && !strings.HasPrefix(allowed.Turns[0].Text, turn.Text) {
		t.Errorf("text %q, want the start of a whole turn's %q", turn.Text, allowed.Turns[0].Text)
	}
	tr := readTranscript(t, filepath.Join(dir, sc.Transcript))
	if n := len(tr.sent("session/cancel")); n != 1 {
		t.Errorf("sent session/cancel %d times, want 1", n)
	}
}

// checkByStopReason: the results' index names each turn by its stop
// reason.
func checkByStopReason(t *testing.T, out report.Results) {
	n := 0
	for _, refs := range out.ByStopReason {
		n += len(refs)
	}
	if n != 5 || len(out.ByStopReason["end_turn"]) < 3 || len(out.ByStopReason["cancelled"]) < 1 {
		t.Errorf("byStopReason = %+v, want the 5 turns: 3 or 4 end_turn, 1 or 2 cancelled", out.ByStopReason)
	}
}

// checkToolCalls checks the example's two tool calls: call_1 (read) and
// call_2 (edit), with the statuses they ended with.
func checkToolCalls(t *testing.T, turn report.TurnResult, read, edit string) {
	t.Helper()
	if len(turn.ToolCalls) != 2 {
		t.Fatalf("turn %d: tool calls %+v, want 2", turn.Index, turn.ToolCalls)
	}
	c1, c2 := turn.ToolCalls[0], turn.ToolCalls[1]
	if c1.ID != "call_1" || c1.Kind != "read" || c1.Title != "Reading project files" || c1.Status != read || !c1.Announced ||
		len(c1.Locations) != 1 || c1.Locations[0] != "/project/README.md" {
		t.Errorf("turn %d: tool call 1 = %+v, want call_1, read, %s, at /project/README.md", turn.Index, c1, read)
	}
	if c2.ID != "call_2" || c2.Kind != "edit" || c2.Title != "Modifying critical configuration file" || c2.Status != edit || !c2.Announced {
		t.Errorf("turn %d: tool call 2 = %+v, want call_2, edit, %s", turn.Index, c2, edit)
	}
}

// checkPermission checks the turn's one permission request, answered
// with decision (optionID when selected), by a rule of ruleFile.
func checkPermission(t *testing.T, turn report.TurnResult, decision, optionID, outcome, ruleFile string) {
	t.Helper()
	if len(turn.Permissions) != 1 {
		t.Fatalf("turn %d: permissions %+v, want 1", turn.Index, turn.Permissions)
	}
	p := turn.Permissions[0]
	if p.ToolCallID != "call_2" || p.Kind != "edit" || p.Decision != decision || p.OptionID != optionID || p.Outcome != outcome ||
		!strings.HasPrefix(p.Rule, ruleFile) || (ruleFile == "") != (p.Rule == "") {
		t.Errorf("turn %d: permission %+v, want call_2 %s (optionId %q, outcome %s) by a rule of %q", turn.Index, p, decision, optionID, outcome, ruleFile)
	}
}

// transcriptLine is one decoded transcript line.
type transcriptLine struct {
	Dir    string
	ID     string // raw JSON
	Method string
	Params json.RawMessage
	Result json.RawMessage
}

type transcript struct{ lines []transcriptLine }

func readTranscript(t *testing.T, path string) transcript {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	defer f.Close()
	var tr transcript
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Dir string `json:"dir"`
			Msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
			} `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		tr.lines = append(tr.lines, transcriptLine{Dir: line.Dir, ID: string(line.Msg.ID), Method: line.Msg.Method, Params: line.Msg.Params, Result: line.Msg.Result})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tr
}

// sent lists the requests and notifications acprun sent with method.
func (tr transcript) sent(method string) []transcriptLine {
	var out []transcriptLine
	for _, l := range tr.lines {
		if l.Dir == "c2a" && l.Method == method {
			out = append(out, l)
		}
	}
	return out
}

// resultOf is the agent's answer to request req.
func (tr transcript) resultOf(t *testing.T, req transcriptLine) (res struct {
	SessionID string `json:"sessionId"`
}) {
	t.Helper()
	for _, l := range tr.lines {
		if l.Dir == "a2c" && l.Method == "" && l.ID == req.ID {
			if err := json.Unmarshal(l.Result, &res); err != nil {
				t.Fatalf("answer to %s: %v", req.Method, err)
			}
			return res
		}
	}
	t.Fatalf("no answer to %s id %s in the transcript", req.Method, req.ID)
	return res
}

// permissionAnswers lists, in order, what acprun answered the agent's
// session/request_permission requests: the optionId selected, or
// "cancelled".
func (tr transcript) permissionAnswers(t *testing.T) []string {
	t.Helper()
	asked := map[string]bool{}
	var answers []string
	for _, l := range tr.lines {
		switch {
		case l.Dir == "a2c" && l.Method == "session/request_permission":
			asked[l.ID] = true
		case l.Dir == "c2a" && l.Method == "" && asked[l.ID]:
			var res struct {
				Outcome struct {
					Outcome  string `json:"outcome"`
					OptionID string `json:"optionId"`
				} `json:"outcome"`
			}
			if err := json.Unmarshal(l.Result, &res); err != nil {
				t.Fatalf("permission answer %s: %v", l.Result, err)
			}
			switch res.Outcome.Outcome {
			case "selected":
				answers = append(answers, res.Outcome.OptionID)
			default:
				answers = append(answers, res.Outcome.Outcome)
			}
		}
	}
	return answers
}

// TestCancelSentBeforePermissionAnswers: on a timeout acprun writes
// session/cancel before the cancelled answers of the pending permission
// requests, every time (an agent such as the Go SDK's example that reads
// the answer first takes it for a refusal and ends its turn end_turn).
func TestCancelSentBeforePermissionAnswers(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, `
turns:
  - steps:
      - tool_call: {toolCallId: a, title: first, kind: edit, status: pending}
      - tool_call: {toolCallId: b, title: second, kind: edit, status: pending}
      - permission: {toolCallId: a, title: first, kind: edit}
        cancelled: [{text: "a cancelled"}]
`, `
name: order
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow, answerDelay: 1h}
turnTimeout: 200ms
turns:
  - prompt: one
    expect: {stopReason: cancelled}
`, "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	turn := out.Scenarios[0].Turns[0]
	if turn.StopReason != "cancelled" || len(turn.Permissions) != 1 || turn.Permissions[0].Outcome != "cancelled" {
		t.Fatalf("turn = %+v, want cancelled with its permission answered cancelled", turn)
	}
	tr := readTranscript(t, filepath.Join(dir, out.Scenarios[0].Transcript))
	var sent []string
	for _, l := range tr.lines {
		if l.Dir != "c2a" || l.Method == "session/prompt" || l.Method == "initialize" || l.Method == "session/new" {
			continue
		}
		if l.Method != "" {
			sent = append(sent, l.Method)
		} else {
			sent = append(sent, "answer "+string(l.Result))
		}
	}
	want := []string{"session/cancel", `answer {"outcome":{"outcome":"cancelled"}}`}
	if !slices.Equal(sent, want) {
		t.Errorf("acprun sent %q after the prompt, want %q", sent, want)
	}
}
