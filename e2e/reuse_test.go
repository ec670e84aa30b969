package e2e_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// closingAgent is a mock agent that offers session/close and ignores the
// end of its stdin, as claude-agent-acp and codex-acp do once they have a
// session: only a signal ends it.
const closingAgent = "agentCapabilities: {sessionCapabilities: {close: true}}\nignoreEOF: true\n"

// e2eMarker is an agent.env entry that tells the processes of one test
// apart (see testkit.Leftovers).
func e2eMarker(t *testing.T) (env, kv string) {
	v := strings.ReplaceAll(t.Name(), "/", "-") + "-" + strconv.Itoa(os.Getpid())
	return "E2E_REUSE: " + v, "E2E_REUSE=" + v
}

// TestEndAgentIgnoringEOF: an agent that ignores the end of its stdin and
// offers session/close is stopped with SIGTERM right after a clean end,
// not after killGrace (an hour here: a run that waited for it would not
// end); session/close is sent after the last turn and its answer recorded,
// last in the transcript. Without session/close the end is not clean (the
// agent may still be sending late updates): it gets killGrace, then
// SIGTERM. Either way nothing of the agent is left running and nothing is
// warned about.
func TestEndAgentIgnoringEOF(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, caps, killGrace string
		close                 bool
		stop                  string
	}{
		{"offers session/close", "agentCapabilities: {sessionCapabilities: {close: true}}\n", "1h", true, report.StopClean},
		{"no session/close", "", "100ms", false, report.StopGrace},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			env, marker := e2eMarker(t)
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": tt.caps + "ignoreEOF: true\nturns: [{steps: [{text: one}]}, {steps: [{text: two}]}]\n",
				"s.yaml": "name: eof\nagent: {command: [acprun, mock-agent, agent.mock.yaml], env: {" + env + "}}\nkillGrace: " + tt.killGrace + "\n" +
					"permissions: {default: deny}\nturns: [{prompt: first}, {prompt: second}]\n",
			})
			cmdOut, err := runWithin(t, dir, 2*time.Minute, "the run did not end: acprun waited killGrace (1h) for an agent that ignores EOF after a clean end")
			if err != nil {
				t.Fatalf("run: %v\n%s", err, cmdOut)
			}
			if live := testkit.Leftovers(t, testkit.WithEnv(marker)); len(live) > 0 {
				t.Errorf("left running after acprun exited: %v", live)
			}
			r := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0]
			if r.Status != report.StatusPassed || r.Agent.Stop != tt.stop || len(r.Warnings) > 0 {
				t.Errorf("status %s, agent.stop %q, warnings %q; want passed, %s, none", r.Status, r.Agent.Stop, r.Warnings, tt.stop)
			}
			if !tt.close {
				if r.SessionClose != nil {
					t.Errorf("sessionClose %+v for an agent that does not offer it", r.SessionClose)
				}
				return
			}
			if r.SessionClose == nil || !r.SessionClose.OK || r.SessionClose.Error != "" {
				t.Errorf("sessionClose %+v; want ok", r.SessionClose)
			}
			// --transcripts: session/close comes after the last prompt's answer.
			res := acprun(t, dir, "run", "s.yaml", "-o", "out2.json", "--transcripts", "tr")
			if res.code != 0 {
				t.Fatalf("run --transcripts: exit %d\n%s", res.code, res.stderr)
			}
			lines := transcriptMethods(t, filepath.Join(dir, "tr", "eof.jsonl"))
			if want := "initialize session/new session/prompt session/prompt session/close"; strings.Join(lines, " ") != want {
				t.Errorf("the client sent %q; want %q", lines, want)
			}
		})
	}
}

// transcriptMethods lists the methods of the client's requests in a
// transcript, in order.
func transcriptMethods(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(data)) {
		var l struct {
			Dir string `json:"dir"`
			Msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			} `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if l.Dir == "c2a" && l.Msg.Method != "" && len(l.Msg.ID) > 0 {
			out = append(out, l.Msg.Method)
		}
	}
	return out
}

// reuseScenario is one scenario of the reuse tests: prompt on the mock
// agent of agent.mock.yaml with reuse, env and expect as given.
func reuseScenario(name, prompt, env, expect string) string {
	return "---\nname: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml], reuse: true, env: {" + env + "}}\n" +
		"killGrace: 1h\npermissions: {allow: [{kind: read}]}\nturns: [{prompt: " + prompt + expect + "}]\n"
}

// TestReuseSharesOneProcess: with reuse, scenarios take turns on one
// agent process (-j 1): the results name it and count its sessions; what
// the agent writes to stderr during a scenario is in that scenario's
// stderrTail only (the scenarios fail, so that it is kept); each
// transcript is a whole session that acprun replay plays back and acprun
// explain reads; the process is gone at the end.
func TestReuseSharesOneProcess(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env, marker := e2eMarker(t)
	fail := ", expect: {text: {contains: nope}}"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": closingAgent + `turns:
  - match: alpha
    steps:
      - stderr: alpha line
      - tool_call: {toolCallId: r1, title: Read notes, kind: read, locations: [{path: notes.txt}]}
      - permission: {toolCallId: r1}
      - text: read it
  - match: beta
    steps: [{stderr: beta line}, {text: done}]
`,
		"s.yaml": reuseScenario("a", "alpha", env, fail) + reuseScenario("b", "beta", env, fail) + reuseScenario("c", "alpha", env, ""),
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--transcripts", filepath.Join(dir, "tr"))
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (a and b fail)\n%s", res.code, res.stderr)
	}
	if live := testkit.Leftovers(t, testkit.WithEnv(marker)); len(live) > 0 {
		t.Errorf("left running after acprun exited: %v", live)
	}
	wantStderr := map[string]string{"a": "alpha line\n", "b": "beta line\n", "c": ""}
	var pid int
	for i, r := range out.Scenarios {
		p := r.Agent.Pool
		if p == nil || p.ID != "acprun#1" || p.Sessions != i+1 || p.Retired != "" || r.Agent.Stop != report.StopKept {
			t.Fatalf("%s: agent %+v, pool %+v, warnings %q; want acprun#1 serving its session %d, kept", r.Name, r.Agent, p, r.Warnings, i+1)
		}
		if i == 0 {
			pid = p.Pid
		} else if p.Pid != pid {
			t.Errorf("%s ran on pid %d; want %d, as a did", r.Name, p.Pid, pid)
		}
		if r.StderrTail != wantStderr[r.Name] {
			t.Errorf("%s: stderrTail %q; want %q", r.Name, r.StderrTail, wantStderr[r.Name])
		}
		if r.SessionClose == nil || !r.SessionClose.OK {
			t.Errorf("%s: sessionClose %+v", r.Name, r.SessionClose)
		}
		if got := transcriptMethods(t, r.Transcript); strings.Join(got, " ") != "initialize session/new session/prompt session/close" {
			t.Errorf("%s: the transcript has %q; want a whole session", r.Name, got)
		}
	}
	if n, _ := checkExplainAgrees(t, dir, out.Scenarios[2:]); n != 1 {
		t.Errorf("explain checked %d permission requests of c's transcript; want 1", n)
	}
	// c's transcript, from the third session of the process, replays.
	writeFiles(t, dir, map[string]string{"replay.yaml": "name: again\nagent: {replay: " + out.Scenarios[2].Transcript + "}\n" +
		"permissions: {allow: [{kind: read}]}\nturns: [{prompt: alpha, expect: {text: {contains: read it}}}]\n"})
	if res, again := runResults(t, dir, "replay.yaml"); res.code != 0 || again.Scenarios[0].Status != report.StatusPassed {
		t.Errorf("replaying c's transcript: exit %d\n%s", res.code, res.stderr)
	}
}

// TestReuseWithoutSessionClose: an agent that does not offer session/close
// is not reused: every scenario starts its own process (each opens the
// process's first session), with a warning that says where reuse was asked
// for and why it was not done.
func TestReuseWithoutSessionClose(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env, _ := e2eMarker(t)
	src := reuseScenario("a", "hello", env, "") + reuseScenario("b", "hello", env, "")
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: fine}]}]\n",
		"s.yaml":          src,
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for i, r := range out.Scenarios {
		if r.Agent.Pool != nil || r.Agent.Stop != report.StopGrace {
			t.Errorf("%s: pool %+v, stop %q; want no pool, grace (no session/close)", r.Name, r.Agent.Pool, r.Agent.Stop)
		}
		at := lineCol("s.yaml", src, strings.Index(src[strings.Index(src, "name: "+r.Name):], "reuse: true")+strings.Index(src, "name: "+r.Name)+len("reuse: "))
		want := at + ": agent.reuse: the agent does not offer session/close (agentCapabilities.sessionCapabilities.close)"
		if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], want) {
			t.Errorf("%s: warnings %q; want one starting %q", r.Name, r.Warnings, want)
		}
		if line := findTranscriptLine(t, filepath.Join(dir, r.Transcript), `"sessionId":"mock-session-1"`, "a2c"); line == "" {
			t.Errorf("%s (scenario %d): its session is not the first of its process", r.Name, i+1)
		}
	}
}

// TestReuseAgentsFlag: run --reuse-agents reuses the agent processes of
// scenarios that do not ask for it themselves.
func TestReuseAgentsFlag(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	doc := "---\nname: %s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": closingAgent + "default: {steps: [{text: fine}]}\n",
		"s.yaml":          strings.ReplaceAll(doc, "%s", "a") + strings.ReplaceAll(doc, "%s", "b"),
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--reuse-agents")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	a, b := out.Scenarios[0].Agent.Pool, out.Scenarios[1].Agent.Pool
	if a == nil || b == nil || a.Pid != b.Pid || b.Sessions != 2 {
		t.Errorf("pools %+v and %+v; want one process serving both", a, b)
	}
}

// TestReuseRetiresAfterLeftovers: the agent leaves a daemon outside its
// process group during the first scenario: it is killed at that
// scenario's end and named in its warnings, and the process is not reused:
// the second scenario gets a new one. Nothing is left running.
func TestReuseRetiresAfterLeftovers(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	dir := realTempDir(t)
	env, marker := e2eMarker(t)
	fifo := filepath.Join(dir, "daemon.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// One session per process: initialize, session/new, a prompt that
	// (for "spawn") starts a daemon in a session of its own first, and
	// session/close. The daemon tells its pid once its exec is done, and
	// then blocks.
	agent := `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"close":{}}}}}'
read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'
read -r line
case "$line" in *spawn*)
  (setsid sh -c 'echo $$ > ` + fifo + `; read x < ` + fifo + `' </dev/null >/dev/null 2>&1 &)
  read pid < ` + fifo + `; echo $pid > ` + filepath.Join(dir, "daemon.pid") + `;;
esac
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'
read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":4,"result":{}}'
while read -r line; do :; done
`
	doc := func(name, prompt string) string {
		return "---\nname: " + name + "\nagent: {command: [sh, agent.sh], reuse: true, env: {" + env + "}}\n" +
			"permissions: {default: deny}\nturns: [{prompt: " + prompt + "}]\n"
	}
	writeFiles(t, dir, map[string]string{"agent.sh": agent, "s.yaml": doc("a", "spawn") + doc("b", "hi")})
	res, out := runResults(t, dir, "s.yaml", "-j", "1")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if live := testkit.Leftovers(t, testkit.WithEnv(marker)); len(live) > 0 {
		t.Errorf("left running after acprun exited: %v", live)
	}
	a, b := out.Scenarios[0], out.Scenarios[1]
	if p := a.Agent.Pool; p == nil || p.Retired != "processes it started left its process group" {
		t.Errorf("a: pool %+v; want sh#1 retired for its leftovers", p)
	}
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "the agent left 1 process running outside its process group") {
		t.Errorf("a: warnings %q; want the daemon named", a.Warnings)
	}
	if len(b.Warnings) != 0 || b.Agent.Pool == nil || b.Agent.Pool.ID != "sh#2" {
		t.Errorf("b: warnings %q, pool %+v; want none, and a new process sh#2", b.Warnings, b.Agent.Pool)
	}
	data, err := os.ReadFile(filepath.Join(dir, "daemon.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if !testkit.Dying(pid) {
		t.Errorf("the daemon %d still runs", pid)
	}
}
