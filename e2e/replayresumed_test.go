package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayRefusesAResumedSession: the transcript of a resumed session
// (session/load, or session/resume) cannot be played, for the replaying
// client starts a new session: acprun replay, and run and validate (strict
// or not) of a scenario that plays it, refuse it before anything runs, at
// the line of the request that resumed it, saying to record it without
// resuming. explain still reads it.
func TestReplayRefusesAResumedSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ method, caps string }{
		{"session/load", "{loadSession: true}"},
		{"session/resume", "{sessionCapabilities: {resume: {}}}"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			scenario := "name: n\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nsession: {resume: true}\npermissions: {default: deny}\nturns: [{prompt: go}]\n"
			replaying := "name: n\nagent: {replay: tr/n.jsonl}\nsession: {resume: true}\npermissions: {default: deny}\nturns: [{prompt: go}]\n"
			writeFiles(t, dir, map[string]string{
				"a.mock.yaml": "agentCapabilities: " + tc.caps + "\nturns:\n  - steps:\n" +
					"      - tool_call: {toolCallId: t1, title: Edit a.txt, kind: edit}\n" +
					"      - permission: {toolCallId: t1}\n      - text: done\n",
				"n.yaml": scenario,
				"r.yaml": replaying,
			})
			if res := acprun(t, dir, "run", "n.yaml", "-q", "-o", "o1.json"); res.code != exitOK {
				t.Fatalf("first run: exit %d\n%s", res.code, res.stderr)
			}
			if res := acprun(t, dir, "run", "n.yaml", "-q", "-o", "o2.json", "--transcripts", "tr"); res.code != exitOK {
				t.Fatalf("resumed run: exit %d\n%s", res.code, res.stderr)
			}
			transcript := string(replayRead(t, filepath.Join(dir, "tr", "n.jsonl")))
			at := strings.Index(transcript, `"method":"`+tc.method+`"`)
			if at < 0 || strings.Contains(transcript, `"method":"session/new"`) {
				t.Fatalf("the resumed run's transcript holds no %s, or a session/new:\n%s", tc.method, transcript)
			}
			place := lineCol("tr/n.jsonl", transcript, at+len(`"method":`))
			line, col, _ := strings.Cut(strings.TrimPrefix(place, "tr/n.jsonl:"), ":")
			problem := "a resumed session (" + tc.method + "): replay plays a new session, which the replaying client starts with session/new, and cannot play a resumed one (session: {resume: true}, acprun run --resume); record the scenario again without resuming its session"

			want := lineCol("r.yaml", replaying, strings.Index(replaying, "tr/n.jsonl")) +
				": agent: replay transcript tr/n.jsonl: line " + line + ", column " + col + ": " + problem
			for _, args := range [][]string{{"validate", "r.yaml"}, {"validate", "--strict", "r.yaml"}, {"run", "r.yaml", "-o", "out.json"}} {
				res := acprun(t, dir, args...)
				if res.code != exitUsage || res.stdout != "" || !strings.Contains(res.stderr, want) {
					t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant 2, nothing, %q", strings.Join(args, " "), res.code, res.stdout, res.stderr, want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "out.json")); !os.IsNotExist(err) {
				t.Errorf("out.json: %v; want no results from a run that did not start", err)
			}
			if res := acprun(t, dir, "replay", "tr/n.jsonl"); res.code != exitUsage || res.stdout != "" || !strings.Contains(res.stderr, place+": "+problem) {
				t.Errorf("replay: exit %d, stdout %q, stderr %q; want 2, nothing, %q", res.code, res.stdout, res.stderr, place+": "+problem)
			}

			// explain reads the resumed session as any other.
			got := explainDecision(t, acprun(t, dir, "explain", "n.yaml", "--transcript", "tr/n.jsonl", "--tool-call", "t1"))
			if got.verdict != "deny" {
				t.Errorf("explain of the resumed session: %s, want deny", got.verdict)
			}
		})
	}
}
