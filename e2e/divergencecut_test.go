package e2e_test

import (
	"strings"
	"testing"
)

// TestDivergenceCutRedacted: a replay's divergence quotes the request it
// received cut to 80 characters; a secret of the run that the cut goes
// through, one the cassette's own redaction does not know (another
// scenario's), shows none of its start in stderr, the results nor the
// events.
func TestDivergenceCutRedacted(t *testing.T) {
	t.Parallel()
	a := gatewayAPIs[1] // openai-chat
	url, closeUp := a.upstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, gatewayFiles(a, url, "second"))
	if res, _ := runResults(t, dir, "s.yaml", "--gateway", "record"); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	closeUp()
	files := gatewayFiles(a, url, `"`+strings.Repeat("y", 70)+" "+cutKey+`"`)
	files["other.yaml"] = "name: other\nagent:\n  command: [acprun, mock-agent, agent.mock.yaml]\n  env: {OTHER_KEY: " + cutKey + "}\nturns:\n  - prompt: hi\n"
	writeFiles(t, dir, files)
	res := acprun(t, dir, "run", "s.yaml", "other.yaml", "--gateway", "replay", "-o", "r.json", "--events", "e.jsonl")
	outs := map[string]string{"stderr": res.stderr, "stdout": res.stdout}
	for name, data := range readFiles(t, dir, "r.json", "e.jsonl") {
		outs[name] = string(data)
	}
	for name, out := range outs {
		if showsPartOf(out, cutKey) {
			t.Errorf("%s shows a part of the key:\n%s", name, out)
		}
	}
	if !strings.Contains(res.stderr, ` [REDACTED]…"`) {
		t.Errorf("stderr lacks the divergence, cut at the key:\n%s", res.stderr)
	}
}
