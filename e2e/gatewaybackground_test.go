package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// TestGatewayBackgroundRequest: a model request the agent makes once its
// last turn has answered (as claude asks for a session title or a prompt
// suggestion, or not, as the race with acprun's end goes) changes no
// verdict in a replay, every run: made but not in the cassette, it is
// answered with an error and a warning (exit 0, results' gateway
// unrecorded 1); recorded but not made, a warning says so (unplayed 1);
// recorded after the last turn but made in the middle of a turn's
// requests, it is played as recorded, with no warning. The mock agent's
// after: model step makes it once acprun has sent session/close (so has
// read the last turn's answer), before session/close is answered.
func TestGatewayBackgroundRequest(t *testing.T) {
	underRace(t)
	t.Parallel()
	const (
		head  = "agentCapabilities: {sessionCapabilities: {close: true}}\nturns:\n"
		ask   = `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
		title = `{model: {api: anthropic, model: claude-test, prompt: "title: {{prompt}}", show: none}}`
	)
	var (
		plain      = head + "  - steps: [" + ask + "]\n  - steps: [" + ask + "]\n"
		titleAfter = head + "  - steps: [" + ask + "]\n  - steps: [" + ask + "]\n    after: [" + title + "]\n"
		titleFirst = head + "  - steps: [" + ask + "]\n  - steps: [" + title + ", " + ask + "]\n"
	)
	model := testkit.NewAnthropicServer(t)
	scenario := fmt.Sprintf(`name: g
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
gateway: {mode: replay, env: ANTHROPIC_BASE_URL, upstream: %q}
permissions: {default: deny}
turns:
  - prompt: first
    expect: {text: {contains: %q}}
  - prompt: second
    expect: {text: {contains: %[2]q}}
`, model.URL, testkit.SideText)
	record := func(t *testing.T, script string) string {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"s.yaml": scenario, "agent.mock.yaml": script})
		if res, rec := runResults(t, dir, "s.yaml", "--gateway", "record"); res.code != exitOK || rec.Scenarios[0].Status != report.StatusPassed {
			t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
		}
		return dir
	}
	replay := func(t *testing.T, dir, script string) (result, report.Result) {
		writeFiles(t, dir, map[string]string{"agent.mock.yaml": script})
		res, rep := runResults(t, dir, "s.yaml")
		sc := rep.Scenarios[0]
		if res.code != exitOK || sc.Status != report.StatusPassed {
			t.Errorf("replay: exit %d, %s, failures %q; want exit %d, passed\n%s", res.code, sc.Status, sc.Failures, exitOK, res.stderr)
		}
		for _, tr := range sc.Turns {
			if tr.CancelCause != "" || len(tr.Failures) > 0 {
				t.Errorf("replay: turn %d cancelCause %q, failures %q", tr.Index, tr.CancelCause, tr.Failures)
			}
		}
		return res, sc
	}

	t.Run("made, not recorded", func(t *testing.T) {
		t.Parallel()
		res, sc := replay(t, record(t, plain), titleAfter)
		want := "gateway: request 3 (POST /v1/messages): not in the cassette (it has 2 requests); " +
			"it came after turn 2 had answered, so it fails no turn: the replay answered it with an error"
		if !strings.Contains(strings.Join(sc.Warnings, "\n"), want) || !strings.Contains(res.stderr, want) {
			t.Errorf("warnings %q; want %q, shown\n%s", sc.Warnings, want, res.stderr)
		}
		if g := sc.Gateway; g == nil || g.Requests != 3 || g.Unplayed != 0 || g.Unrecorded != 1 {
			t.Errorf("gateway %+v; want 3 requests, 1 unrecorded", g)
		}
	})
	recorded := record(t, titleAfter)
	t.Run("recorded, not made", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		copyTree(t, recorded, dir)
		res, sc := replay(t, dir, plain)
		if want := "gateway: 1 recorded model request(s) were not asked for in this replay"; !strings.Contains(res.stderr, want) {
			t.Errorf("stderr does not say %q\n%s", want, res.stderr)
		}
		if g := sc.Gateway; g == nil || g.Requests != 2 || g.Unplayed != 1 || g.Unrecorded != 0 {
			t.Errorf("gateway %+v; want 2 requests, 1 unplayed", g)
		}
	})
	t.Run("made in the middle of a turn", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		copyTree(t, recorded, dir)
		res, sc := replay(t, dir, titleFirst)
		if strings.Contains(res.stderr, "gateway:") {
			t.Errorf("a gateway warning:\n%s", res.stderr)
		}
		if g := sc.Gateway; g == nil || g.Requests != 3 || g.Unplayed != 0 || g.Unrecorded != 0 {
			t.Errorf("gateway %+v; want the 3 recorded requests played", g)
		}
	})
}
