package e2e_test

import (
	"slices"
	"strings"
	"testing"
)

// TestPermissionOptionOfUnknownKind: an agent that offers its allow option
// with a kind ACP does not define ("allow" for allow_once) is answered
// cancelled, since acprun never chooses such an option; a warning says
// which option and why, where before only "no allow option offered" did.
func TestPermissionOptionOfUnknownKind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + "read -r line\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"ls","kind":"read"},"options":[{"optionId":"yes","name":"Yes","kind":"allow"},{"optionId":"no","name":"No","kind":"reject_once"}]}}'` + "\n" +
			"read -r line\ncase $line in *cancelled*) " + strings.TrimSuffix(chunk("cancelled"), "\n") + ";; esac\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nwhile read -r line; do :; done\n",
		"s.yaml": "name: kinds\nagent: {command: [sh, agent.sh]}\npermissions: {default: allow}\nturns:\n  - prompt: go\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if tr := sc.Turns[0]; tr.Text != "cancelled" || len(tr.Permissions) != 1 || tr.Permissions[0].Outcome != "cancelled" {
		t.Errorf("text %q, permissions %+v; want the request answered cancelled", tr.Text, tr.Permissions)
	}
	const want = `protocol violation: session/request_permission t1: option "yes" has kind "allow", none of allow_once, allow_always, reject_once, reject_always: it is never chosen`
	if !slices.Contains(sc.Warnings, want) || !strings.Contains(res.stderr, want) {
		t.Errorf("warnings %q, stderr:\n%s\nwant %q", sc.Warnings, res.stderr, want)
	}
}
