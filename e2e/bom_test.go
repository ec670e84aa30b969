package e2e_test

import (
	"slices"
	"strings"
	"testing"
)

// TestByteOrderMarkBeforeInitialize: an agent whose runtime writes a
// UTF-8 byte order mark before its first output (the initialize answer)
// is run, with a warning, instead of its answer being lost and the
// scenario waiting out its timeout for an agent said to be hung.
func TestByteOrderMarkBeforeInitialize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": `read -r line; printf '\357\273\277%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'` + "\n" +
			`read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'` + "\n" +
			"read -r line\n" + chunk("hello") + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nwhile read -r line; do :; done\n",
		"s.yaml": "name: bom\nagent: {command: [sh, agent.sh]}\ntimeout: 60s\npermissions: {default: deny}\nturns:\n  - prompt: hi\n    expect: {text: {contains: hello}}\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	const want = "protocol violation: a byte order mark (U+FEFF) before the message, which JSON does not allow; ignored: "
	sc := out.Scenarios[0]
	if res.code != exitOK || !slices.ContainsFunc(sc.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Fatalf("exit %d, warnings %q; want exit 0 and one starting %q\nstderr:\n%s", res.code, sc.Warnings, want, res.stderr)
	}
}
