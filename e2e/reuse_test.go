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
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
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
	underRace(t)
	t.Parallel()
	for _, tt := range []struct {
		name, caps, killGrace string
		close                 bool
		stop                  string
	}{
		{"offers session/close", "agentCapabilities: {sessionCapabilities: {close: true}}\n", "1h", true, report.StopClean},
		// 3s: the agent must also exit within killGrace of SIGTERM, or it
		// is killed with a warning; 100ms was too little on a loaded machine.
		{"no session/close", "", "3s", false, report.StopGrace},
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
	underRace(t)
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
	underRace(t)
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
	underRace(t)
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
	underRace(t)
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

// shReuseAgent is an agent of the reuse tests that serves one session
// after another on one process and offers session/close; its first
// argument says what it does besides (words):
//   - afterclose: right after the answer to session/close, an update for
//     the closed session;
//   - writeclose: right after it, fs/write_text_file for the closed
//     session (after-close.txt in its cwd);
//   - eofwrite: at the end of its input, it writes bg.txt in the cwd of
//     its last session, as a task of its own finishing would (it ignores
//     SIGTERM, so that it always does);
//   - closeout: it writes its pid to agent.pid in its cwd, and on SIGUSR1
//     closes its stdout (and then says so in a file named closed) but
//     goes on reading;
//   - closeexit: as closeout, but it exits with code 3 soon after;
//   - sameid: every session/new is answered with session id s1.
const shReuseAgent = `MODE=$1
case "$MODE" in *eofwrite*) trap '' TERM;; esac
case "$MODE" in *closeout*) echo $$ > agent.pid; trap 'exec 1>&-; : > closed; sig=1' USR1;; esac
case "$MODE" in *closeexit*) echo $$ > agent.pid; trap 'exec 1>&-; : > closed; sleep 0.2; exit 3' USR1;; esac
n=0
update() { printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%s"}}}}\n' "$1" "$2"; }
while :; do
  if ! IFS= read -r line; then
    if [ "$sig" = 1 ]; then sig=; continue; fi # the signal cut the read short
    break
  fi
  id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),"method".*/\1/p')
  case "$line" in
  *'"method":"initialize"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"close":{}}}}}\n' "$id";;
  *'"method":"session/new"'*)
    n=$((n+1))
    cwd=$(printf '%s\n' "$line" | sed -n 's/.*"cwd":"\([^"]*\)".*/\1/p')
    sid=s$n
    case "$MODE" in *sameid*) sid=s1;; esac
    printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"%s"}}\n' "$id" "$sid";;
  *'"method":"session/prompt"'*)
    update "$sid" hello
    printf '{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}\n' "$id"
    case "$MODE" in *exitafter*) exec 1>&-; sleep 0.2; exit 3;; esac;;
  *'"method":"session/close"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
    case "$MODE" in *afterclose*) update "s$n" AFTER-CLOSE;; esac
    case "$MODE" in *writeclose*)
      printf '{"jsonrpc":"2.0","id":"w%s","method":"fs/write_text_file","params":{"sessionId":"s%s","path":"%s/after-close.txt","content":"late"}}\n' "$n" "$n" "$cwd";;
    esac;;
  esac
done
case "$MODE" in *eofwrite*) echo "written at the end of its input" > "$cwd/bg.txt";; esac
`

// shReuseScenario is a scenario of the reuse tests on shReuseAgent in
// mode, with reuse as given and extra keys.
func shReuseScenario(name, mode, reuse, extra string) string {
	return "---\nname: " + name + "\nagent: {command: [sh, agent.sh, " + mode + "]" + reuse + "}\n" +
		"killGrace: 1h\nclient: {fs: true}\npermissions: {default: allow}\n" + extra + "turns: [{prompt: hi, expect: {text: {contains: hello}}}]\n"
}

// TestReuseDrainsTheClosedSession: what the agent sends for its session
// right after the answer to session/close is that scenario's, every run,
// with reuse as without: the update is late text, the write is refused
// as a protocol violation of that scenario (whose process is then not
// reused), never served; the next scenario is not blamed for any of it.
func TestReuseDrainsTheClosedSession(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	src := shReuseScenario("a", "afterclose-writeclose", ", reuse: true", "") + shReuseScenario("b", "afterclose-writeclose", ", reuse: true", "")
	writeFiles(t, dir, map[string]string{"agent.sh": shReuseAgent, "s.yaml": src, "plain.yaml": strings.ReplaceAll(src, ", reuse: true", "")})
	type outcome struct {
		Name, Status, LateText string
		Violations             []string
		Requests               int
	}
	outcomes := func(out report.Results) []outcome {
		var got []outcome
		for _, r := range out.Scenarios {
			o := outcome{Name: r.Name, Status: string(r.Status), Violations: r.Violations}
			if len(r.Turns) == 1 {
				o.LateText, o.Requests = r.Turns[0].LateText, len(r.Turns[0].ClientRequests)
			}
			got = append(got, o)
		}
		return got
	}
	res, out := runResults(t, dir, "plain.yaml", "-j", "1")
	if res.code != 0 {
		t.Fatalf("without reuse: exit %d\n%s", res.code, res.stderr)
	}
	refused := []string{`fs/write_text_file for session "s1" after its session/close was answered; refused`}
	want := []outcome{{"a", "passed", "AFTER-CLOSE", refused, 0}, {"b", "passed", "AFTER-CLOSE", refused, 0}}
	if diff := cmp.Diff(want, outcomes(out)); diff != "" {
		t.Errorf("without reuse (-want +got):\n%s", diff)
	}
	for run := range 3 {
		res, out := runResults(t, dir, "s.yaml", "-j", "1")
		if res.code != 0 {
			t.Fatalf("run %d with reuse: exit %d\n%s", run, res.code, res.stderr)
		}
		if diff := cmp.Diff(want, outcomes(out)); diff != "" {
			t.Errorf("run %d with reuse (-want +got):\n%s", run, diff)
		}
		for i, r := range out.Scenarios {
			if p := r.Agent.Pool; p == nil || p.ID != "sh#"+strconv.Itoa(i+1) || p.Retired != "the agent broke the protocol (see violations)" {
				t.Errorf("run %d: %s: pool %+v; want a process of its own, retired for its violation", run, r.Name, p)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "after-close.txt")); err == nil {
		t.Error("a write for a closed session was served")
	}
}

// TestReuseSessionIDAgain: an agent process that answers every
// session/new with the same session id cannot serve a second scenario:
// that scenario's messages could not be told from the first one's, and
// would be dropped as theirs. It errors, saying so, and its process is
// retired; the third runs on a new process and passes.
func TestReuseSessionIDAgain(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{"agent.sh": shReuseAgent,
		"s.yaml": shReuseScenario("a", "sameid", ", reuse: true", "") + shReuseScenario("b", "sameid", ", reuse: true", "") + shReuseScenario("c", "sameid", ", reuse: true", "")})
	res, out := runResults(t, dir, "s.yaml", "-j", "1")
	if res.code != exitAgent {
		t.Errorf("exit %d, want %d\n%s", res.code, exitAgent, res.stderr)
	}
	const again = `session/new: the agent answered with sessionId "s1", the id of a session an earlier scenario opened on this agent process (agent.reuse): ` +
		"a session's messages could not be told from the other's; each session needs an id of its own"
	type outcome struct{ Name, Status, Error, Process, Retired string }
	var got []outcome
	for _, r := range out.Scenarios {
		o := outcome{Name: r.Name, Status: string(r.Status), Error: r.Error}
		if p := r.Agent.Pool; p != nil {
			o.Process, o.Retired = p.ID, p.Retired
		}
		got = append(got, o)
	}
	want := []outcome{{"a", "passed", "", "sh#1", ""}, {"b", "error", again, "sh#1", "the session did not open"}, {"c", "passed", "", "sh#2", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.stderr, again) {
		t.Errorf("stderr does not say why b errored:\n%s", res.stderr)
	}
}

// TestReuseNotWhereTheVerdictReadsFiles: scenarios whose verdict looks at
// what the agent left (a workspace, verify, expect.files) run their agent
// as without reuse, stopped before their workspace is listed and checked:
// what the agent writes as it ends is in the change set, and verify and
// files see it, with --reuse-agents as without; a note says so once.
func TestReuseNotWhereTheVerdictReadsFiles(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	extra := "workspace: {from: proj}\nverify: [test ! -e bg.txt]\nexpect: {files: {absent: [bg.txt]}}\n"
	writeFiles(t, dir, map[string]string{
		"proj/agent.sh": shReuseAgent, // the agent's cwd is the workspace's copy
		"s.yaml":        shReuseScenario("a", "eofwrite", "", extra) + shReuseScenario("b", "eofwrite", "", extra),
	})
	verdicts := func(out report.Results) []string {
		var got []string
		for _, r := range out.Scenarios {
			got = append(got, r.Name+" "+string(r.Status))
			if r.Workspace != nil {
				got = append(got, "created "+strings.Join(r.Workspace.Created, " "))
			}
			for _, f := range r.Failures {
				got = append(got, f[strings.Index(f, ": ")+2:])
			}
		}
		return got
	}
	res, without := runResults(t, dir, "s.yaml", "-j", "1")
	if res.code != 1 {
		t.Fatalf("without reuse: exit %d, want 1\n%s", res.code, res.stderr)
	}
	res, with := runResults(t, dir, "s.yaml", "-j", "1", "--reuse-agents")
	if res.code != 1 {
		t.Fatalf("--reuse-agents: exit %d, want 1\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff(verdicts(without), verdicts(with)); diff != "" {
		t.Errorf("--reuse-agents changed the results (-without +with):\n%s", diff)
	}
	if got := verdicts(with); len(got) != 8 || got[1] != "created bg.txt" {
		t.Errorf("results %q; want bg.txt created, and seen by verify and files, in each scenario", got)
	}
	for i, r := range with.Scenarios {
		if r.Agent.Pool != nil || r.Agent.Stop != report.StopClean {
			t.Errorf("%s: pool %+v, stop %q; want no pool, stopped after a clean end", r.Name, r.Agent.Pool, r.Agent.Stop)
		}
		note := "--reuse-agents: a scenario whose verdict looks at what the agent left in the file system"
		if i == 0 && (len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], note)) || i > 0 && len(r.Warnings) > 0 {
			t.Errorf("%s: warnings %q; want the note in the first scenario only", r.Name, r.Warnings)
		}
	}
}

// TestReuseNotWhereATurnReadsFiles: a turn's own expect.files is checked,
// for the last turn played, after the agent stops; so such a scenario
// runs its agent on a process of its own with --reuse-agents too, and
// files sees what the agent wrote as it ended, as without reuse.
func TestReuseNotWhereATurnReadsFiles(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	src := strings.Replace(shReuseScenario("a", "eofwrite", "", ""), "expect: {", "expect: {files: {absent: [bg.txt]}, ", 1)
	writeFiles(t, dir, map[string]string{"agent.sh": shReuseAgent, "s.yaml": src})
	for _, args := range [][]string{nil, {"--reuse-agents"}} {
		if err := os.Remove(filepath.Join(dir, "bg.txt")); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		res, out := runResults(t, dir, append([]string{"s.yaml"}, args...)...)
		if res.code != 1 || len(out.Scenarios) != 1 {
			t.Fatalf("%q: exit %d, want 1 (bg.txt seen)\n%s", args, res.code, res.stderr)
		}
		r := out.Scenarios[0]
		if r.Agent.Pool != nil || len(r.Failures) != 1 || !strings.Contains(r.Failures[0], "bg.txt") {
			t.Errorf("%q: pool %+v, failures %q; want a process of its own, and bg.txt found", args, r.Agent.Pool, r.Failures)
		}
	}
}

// TestReuseReplayStartsItsOwn: a replayed transcript holds one session,
// so a replay agent is not reused: with --reuse-agents every attempt
// starts its own replay and passes, and a note says why, once.
func TestReuseReplayStartsItsOwn(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": closingAgent + "turns: [{steps: [{text: hello}]}]\n",
		"s.yaml":          "name: rec\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"replay.yaml":     "name: again\nagent: {replay: tr/rec.jsonl}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: hello}}}]\n",
	})
	if res, _ := runResults(t, dir, "s.yaml", "--transcripts", "tr"); res.code != 0 {
		t.Fatalf("recording: exit %d\n%s", res.code, res.stderr)
	}
	res, out := runResults(t, dir, "replay.yaml", "-j", "1", "--repeat", "3", "--reuse-agents")
	if res.code != 0 {
		t.Fatalf("replaying with --reuse-agents: exit %d, want 0\n%s", res.code, res.stderr)
	}
	for i, r := range out.Scenarios {
		if r.Status != report.StatusPassed || r.Agent.Pool != nil {
			t.Errorf("attempt %d: status %s, pool %+v, error %q; want passed, on a replay of its own", i+1, r.Status, r.Agent.Pool, r.Error)
		}
		note := "--reuse-agents: agent: {replay: …} plays the one session its transcript recorded"
		if i == 0 && (len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], note)) || i > 0 && len(r.Warnings) > 0 {
			t.Errorf("attempt %d: warnings %q; want the note in the first attempt only", i+1, r.Warnings)
		}
	}
}

// TestReuseKeepsTheCommand: with reuse the agent's command is the one it
// has without: goose's `acp` stays a word in a project with an acp/
// directory (goose here is a stand-in on PATH that wants it).
func TestReuseKeepsTheCommand(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	doc := "---\nname: %s\nagent: {name: goose}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: fine}}}]\n"
	writeFiles(t, dir, map[string]string{
		"bin/goose": "#!/bin/sh\nif [ \"$1\" != acp ]; then echo \"goose: unknown command: $1\" >&2; exit 2; fi\n" +
			"exec " + strconv.Quote(os.Getenv(runner.EnvTestSelf)) + " mock-agent agent.mock.yaml\n",
		"acp/doc.go":      "package acp\n",
		"agent.mock.yaml": closingAgent + "default: {steps: [{text: fine}]}\n",
		"s.yaml":          strings.ReplaceAll(doc, "%s", "a") + strings.ReplaceAll(doc, "%s", "b"),
	})
	if err := os.Chmod(filepath.Join(dir, "bin", "goose"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := acprunEnv(t, dir, []string{"PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH")}, "run", "s.yaml", "-j", "1", "--reuse-agents", "-o", "out.json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	for i, r := range out.Scenarios {
		if p := r.Agent.Pool; p == nil || p.ID != "goose#1" || p.Sessions != i+1 {
			t.Errorf("%s: pool %+v; want goose#1 serving both", r.Name, p)
		}
	}
}

// TestReuseSkipsAProcessThatClosedItsOutput: a pooled process that closed
// its stdout while idle (on a signal from the next scenario's setup) is
// not handed to the next scenario, which starts a new one and passes,
// with a warning that says why: that it closed its output when it lives
// on past its killGrace, how it exited when it exits within it, however
// soon after closing its output.
func TestReuseSkipsAProcessThatClosedItsOutput(t *testing.T) {
	underRace(t)
	t.Parallel()
	closeIt := "setup: ['kill -USR1 $(cat agent.pid) && while [ ! -e closed ]; do sleep 0.01; done']\n"
	for _, tt := range []struct{ mode, killGrace, why string }{
		{"closeout", "200ms", "the agent closed its output while idle"},
		{"closeexit", "1h", "the agent exited with code 3 while idle"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			first := strings.Replace(shReuseScenario("one", tt.mode, ", reuse: true", ""), "killGrace: 1h", "killGrace: "+tt.killGrace, 1)
			writeFiles(t, dir, map[string]string{
				"agent.sh": shReuseAgent,
				"s.yaml":   first + shReuseScenario("two", tt.mode, ", reuse: true", closeIt),
			})
			res, out := runResults(t, dir, "s.yaml", "-j", "1")
			if res.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
			}
			one, two := out.Scenarios[0], out.Scenarios[1]
			if p := one.Agent.Pool; p == nil || p.ID != "sh#1" || p.Retired != "" {
				t.Fatalf("one: pool %+v; want sh#1, kept", p)
			}
			want := "agent process sh#1 (pid " + strconv.Itoa(one.Agent.Pool.Pid) + ") was not reused: " + tt.why
			if p := two.Agent.Pool; p == nil || p.ID != "sh#2" || len(two.Warnings) != 1 || two.Warnings[0] != want {
				t.Errorf("two: pool %+v, warnings %q; want a new process sh#2 and the warning %q", p, two.Warnings, want)
			}
		})
	}
}

// TestReuseRetiredAsTheAgentExited: a pooled process that closes its
// output after its answer and exits a moment later is retired for how it
// exited, every run, not for whichever of its ends acprun noticed first;
// the next scenario starts a new process.
func TestReuseRetiredAsTheAgentExited(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{"agent.sh": shReuseAgent,
		"s.yaml": shReuseScenario("a", "exitafter", ", reuse: true", "") + shReuseScenario("b", "exitafter", ", reuse: true", "")})
	res, out := runResults(t, dir, "s.yaml", "-j", "1")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for i, r := range out.Scenarios {
		if p := r.Agent.Pool; p == nil || p.ID != "sh#"+strconv.Itoa(i+1) || p.Retired != "the agent exited with code 3" {
			t.Errorf("%s: pool %+v; want a process of its own, retired as the agent exited with code 3", r.Name, p)
		}
	}
}

// TestReuseKeepsMatrixAgentsApart: in an --agent matrix of two config
// agents that start the same command, each agent's scenarios run on
// processes of their own, named after it: one agent's results never
// depend on what the other's scenarios did to a shared process.
func TestReuseKeepsMatrixAgentsApart(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": closingAgent + "default: {steps: [{text: hello}]}\n",
		"acprun.yaml": "agents:\n  alpha: {command: [acprun, mock-agent, agent.mock.yaml], reuse: true}\n" +
			"  beta: {command: [acprun, mock-agent, agent.mock.yaml], reuse: true}\n",
		"s.yaml": "---\nname: one\nagent: alpha\nkillGrace: 1h\npermissions: {default: allow}\nturns: [{prompt: hi}]\n" +
			"---\nname: two\nagent: alpha\nkillGrace: 1h\npermissions: {default: allow}\nturns: [{prompt: hi}]\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--agent", "alpha", "--agent", "beta", "-j", "1")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	var got []string
	for _, r := range out.Scenarios {
		if p := r.Agent.Pool; p != nil {
			got = append(got, r.Name+" "+r.Agent.Name+": "+p.ID+" session "+strconv.Itoa(p.Sessions))
		}
	}
	// -j 1: each agent's process takes the one slot of the other's, idle.
	want := []string{"one alpha: alpha#1 session 1", "one beta: beta#1 session 1", "two alpha: alpha#2 session 1", "two beta: beta#2 session 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("processes (-want +got):\n%s", diff)
	}
}
