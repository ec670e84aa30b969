package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentReusesPendingRequestID: an agent that sends two requests with
// one id before either is answered is served both, in the order they
// came, and the run says it broke the protocol, its transcript not
// replayable; acprun replay of that transcript says the agent reuses ids,
// and gives no advice to record it again, which records the same.
func TestAgentReusesPendingRequestID(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	read := func(name string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"'"$PWD"'/` + name + `"}}`
	}
	writeFiles(t, dir, map[string]string{
		"a.txt": "A\n",
		"b.txt": "B\n",
		"agent.sh": shHandshake + "read -r line\n" +
			`printf '%s\n' '` + read("a.txt") + `' '` + read("b.txt") + `'` + "\nread -r a; read -r b\n" +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\nid=4\n" + shAgentTail[len("id=3\n"):],
		"s.yaml": "name: s\nagent: {command: [sh, agent.sh]}\npermissions: {default: allow}\n" + oneTurn,
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	sc := out.Scenarios[0]
	const violation = `request "fs/read_text_file" reuses id 7, that of a request not answered yet: both are answered, in the order they came, but a transcript of them cannot be replayed`
	if res.code != exitOK || sc.Status != "passed" || len(sc.Violations) != 1 || !strings.HasPrefix(sc.Violations[0], violation) {
		t.Errorf("exit %d, status %s, violations %q; want 0, passed, %q\nstderr:\n%s", res.code, sc.Status, sc.Violations, violation, res.stderr)
	}
	transcript := string(replayRead(t, filepath.Join(dir, "tr", "s.jsonl")))
	a, b := strings.Index(transcript, `"id":7,"result":{"content":"A\n"}`), strings.Index(transcript, `"id":7,"result":{"content":"B\n"}`)
	if crs := sc.Turns[0].ClientRequests; len(crs) != 2 || crs[0].Error != "" || crs[1].Error != "" || a < 0 || b < a {
		t.Errorf("client requests %+v, transcript:\n%s\nwant both served, a.txt's answer first", crs, transcript)
	}

	r := acprun(t, dir, "replay", filepath.Join("tr", "s.jsonl"))
	const refusal = `the agent's request reuses id 7, that of its request at line 6, not answered yet: the agent reuses the ids of its pending requests, and a replay cannot tell which request each answer of acprun's is for`
	if r.code != exitUsage || !strings.Contains(r.stderr, refusal) || strings.Contains(r.stderr, "record it again") {
		t.Errorf("replay: exit %d, stderr %q; want 2 and %q, without advice to record again", r.code, r.stderr, refusal)
	}
}
