package runner

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// TestPolicyReasonCutRedacted: the reason of a permission request's
// decision, and of a refused terminal command, quotes a long command cut
// at 200 bytes; a secret the cut goes through shows none of its start,
// the cut being redacted knowing the whole command.
func TestPolicyReasonCutRedacted(t *testing.T) {
	t.Parallel()
	red := redact.New(cutSecret)
	line := "echo " + strings.Repeat("x", 185) + " " + cutSecret + " done"
	raw, _ := json.Marshal(map[string]string{"command": line})
	call := acp.ToolCall{ToolCallID: "t1", Title: "run it", Kind: acp.KindExecute, RawInput: raw}
	params := &acp.RequestPermissionRequest{Options: []acp.PermissionOption{{OptionID: "r", Name: "r", Kind: acp.RejectOnce}}}
	deny := &approve.Policy{Deny: []approve.Rule{{Pos: "s.yaml:5:9", Command: []string{"echo *"}}}}
	near := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "s.yaml:5:9", Kind: []string{"execute"}, Command: []string{"ls *"}}}}
	check := func(name, reason string) {
		t.Helper()
		if leaksCutSecret(red, reason) || !strings.Contains(reason, redact.Marker+`…"`) {
			t.Errorf("%s: reason %q; want the secret's start %s", name, red.String(reason), redact.Marker)
		}
	}
	for name, p := range map[string]*approve.Policy{"deny rule": deny, "no allow rule": near} {
		s := &session{red: red, cwd: "/p", policy: p}
		a := &arrival{call: call, params: params}
		check("permission, "+name, s.policy.Decide(s.policyRequest(a)).Reason)
	}
	c := newClientServer(ClientConfig{Cwd: "/p", Policy: near, Redact: red})
	var rec report.ClientRequest
	check("terminal", c.decide(line, "/p", &rec).Reason)
}
