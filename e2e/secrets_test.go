package e2e_test

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
)

// The secrets an agent tries to leak: one from the scenario's agent.env,
// one from acprun's own environment (a secret-looking name).
const (
	scenarioSecret = "ghp_E2Escenario1234567890abcdef"
	environSecret  = "tok_E2Eenviron9876543210zyxwvu"
)

// leakyAgent plants both secrets in every field an agent controls: text,
// identifiers, map keys (update kinds, a stop reason), option ids, paths,
// commands, errors, stderr, garbage lines, and a \u-escaped form.
const leakyAgent = `
agentInfo: {name: "agent-ghp_E2Escenario1234567890abcdef", version: "tok_E2Eenviron9876543210zyxwvu"}
permissionOptions:
  - {optionId: "allow-ghp_E2Escenario1234567890abcdef", name: "Allow tok_E2Eenviron9876543210zyxwvu", kind: allow_once}
  - {optionId: "reject-tok_E2Eenviron9876543210zyxwvu", name: Reject, kind: reject_once}
updatesBeforeSessionNew:
  - update: {sessionUpdate: "kind-ghp_E2Escenario1234567890abcdef"}
turns:
  - steps:
      - text: "text ghp_E2Escenario1234567890abcdef"
      - thought: "thought tok_E2Eenviron9876543210zyxwvu"
      - plan: [{content: "plan ghp_E2Escenario1234567890abcdef", priority: high, status: pending}]
      - tool_call:
          toolCallId: "call-ghp_E2Escenario1234567890abcdef"
          title: "title tok_E2Eenviron9876543210zyxwvu"
          kind: execute
          status: pending
          rawInput: {command: "echo ghp_E2Escenario1234567890abcdef", "key-tok_E2Eenviron9876543210zyxwvu": true}
          rawOutput: {out: "tok_E2Eenviron9876543210zyxwvu"}
          locations: [{path: "/tmp/ghp_E2Escenario1234567890abcdef"}]
          content: [{text: "content tok_E2Eenviron9876543210zyxwvu"}]
      - permission: {toolCallId: "call-ghp_E2Escenario1234567890abcdef", title: "perm tok_E2Eenviron9876543210zyxwvu"}
      - update: {sessionUpdate: "kind2-tok_E2Eenviron9876543210zyxwvu", note: "ghp_E2Escenario1234567890abcdef"}
      - usage_update: {used: 1, size: 2, cost: {amount: 1, currency: "ghp_E2Escenario1234567890abcdef"}}
      - garbage: "garbage ghp_E2Escenario1234567890abcdef"
      - garbage: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"mock-session-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" escaped \u0067hp_E2Escenario1234567890abcdef \u0074ok_E2Eenviron9876543210zyxwvu"}}}}'
      - stderr: "stderr ghp_E2Escenario1234567890abcdef tok_E2Eenviron9876543210zyxwvu"
      - read: {path: "ghp_E2Escenario1234567890abcdef.txt"}
      - terminal: {command: "echo tok_E2Eenviron9876543210zyxwvu", waitForExit: true, output: true, release: true}
      - tool_call_update: {toolCallId: "ghost-tok_E2Eenviron9876543210zyxwvu", status: completed, kind: execute, title: "rm ghp_E2Escenario1234567890abcdef"}
    stopReason: "stop-ghp_E2Escenario1234567890abcdef"
  - error: {code: -32000, message: "error tok_E2Eenviron9876543210zyxwvu", data: "ghp_E2Escenario1234567890abcdef"}
`

const leakyScenario = `
name: leaky
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {GH_TOKEN: "${E2E_SECRET}", CI: "true", LEVEL: "3", DEBUG: "false"}
client: {fs: true, terminal: true}
permissions:
  default: deny
  allow: [{kind: execute, command: "echo *"}]
turns:
  - prompt: one
  - prompt: two
`

// TestSecretsNeverLeave: neither secret appears, in any form, in anything
// acprun writes; every JSON output stays valid JSON.
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": leakyAgent, "s.yaml": leakyScenario})
	stepSummary := filepath.Join(dir, "step-summary.md")
	res := acprunEnv(t, dir, []string{"E2E_SECRET=" + scenarioSecret, "MY_API_TOKEN=" + environSecret,
		"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + stepSummary},
		"run", "s.yaml", "-v", "-o", "out.json", "--junit", "junit.xml", "--events", "events.jsonl", "--transcripts", "tr")
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (the turns fail)\n%s", res.code, res.stderr)
	}

	outputs := readFiles(t, dir, "out.json", "junit.xml", "events.jsonl", "step-summary.md", "tr/leaky.jsonl")
	outputs["stdout (annotations)"], outputs["stderr"] = []byte(res.stdout), []byte(res.stderr)
	for name, data := range outputs {
		for _, leak := range []string{"E2Escenario", "E2Eenviron"} {
			if i := bytes.Index(data, []byte(leak)); i >= 0 {
				t.Errorf("%s leaks a secret: …%s…", name, excerpt(data, i))
			}
		}
		if !utf8.Valid(data) {
			t.Errorf("%s is not valid UTF-8", name)
		}
		// The step summary writes the brackets as character references.
		if !bytes.Contains(data, []byte("[REDACTED]")) && !bytes.Contains(data, []byte("&#91;REDACTED&#93;")) && name != "junit.xml" {
			t.Errorf("%s shows no [REDACTED]: the test no longer plants what it should", name)
		}
	}

	// The results: every string and every key, walked.
	var doc any
	if err := json.Unmarshal(outputs["out.json"], &doc); err != nil {
		t.Fatalf("results are not JSON: %v", err)
	}
	walkJSON(doc, "", func(path, s string) {
		if strings.Contains(s, "E2E") {
			t.Errorf("results %s = %q leaks a secret", path, s)
		}
	})
	for _, key := range []string{"stop-[REDACTED]"} {
		if !bytes.Contains(outputs["out.json"], []byte(`"`+key+`"`)) {
			t.Errorf("results lack the redacted byStopReason key %q", key)
		}
	}

	// Transcripts and events: each line is a JSON object; a transcript's
	// msg is the message itself, and literals survive (CI: "true" is no
	// secret).
	for _, name := range []string{"events.jsonl", "tr/leaky.jsonl"} {
		sc := bufio.NewScanner(bytes.NewReader(outputs[name]))
		sc.Buffer(nil, 1<<24)
		for n := 1; sc.Scan(); n++ {
			var line map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Errorf("%s:%d is not a JSON object: %v\n%s", name, n, err, sc.Text())
				continue
			}
			if name == "events.jsonl" {
				continue
			}
			msg, isMsg := line["msg"]
			raw, isRaw := line["raw"]
			switch {
			case isMsg && (len(msg) == 0 || msg[0] != '{'):
				t.Errorf("%s:%d: msg is not the message object: %s", name, n, msg)
			case isRaw && (len(raw) == 0 || raw[0] != '"'):
				t.Errorf("%s:%d: raw is not the line as a string: %s", name, n, raw)
			case isMsg == isRaw:
				t.Errorf("%s:%d: want exactly one of msg and raw: %s", name, n, sc.Text())
			}
		}
	}
	if !bytes.Contains(outputs["tr/leaky.jsonl"], []byte(`"terminal":true`)) {
		t.Errorf("transcript lost a true literal (CI: \"true\" was taken for a secret)")
	}
}

// walkJSON calls f with every string and every object key of v.
func walkJSON(v any, path string, f func(path, s string)) {
	switch x := v.(type) {
	case string:
		f(path, x)
	case []any:
		for i, e := range x {
			walkJSON(e, path+"["+strconv.Itoa(i)+"]", f)
		}
	case map[string]any:
		for k, e := range x {
			f(path+" key", k)
			walkJSON(e, path+"."+k, f)
		}
	}
}

// excerpt returns the bytes around i, for a failure message.
func excerpt(data []byte, i int) string {
	lo, hi := max(0, i-60), min(len(data), i+60)
	return string(data[lo:hi])
}

// noPartOf fails t for each of outputs (by name) that holds 8 bytes of
// secret in a row.
func noPartOf(t *testing.T, secret string, outputs map[string][]byte) {
	t.Helper()
	for name, data := range outputs {
		for i := 0; i+8 <= len(secret); i++ {
			if j := bytes.Index(data, []byte(secret[i:i+8])); j >= 0 {
				t.Errorf("%s leaks 8 bytes of the secret, %q: …%s…", name, secret[i:i+8], excerpt(data, j))
				break
			}
		}
	}
}

// crossSecret is scenario a's secret, which scenario b's agent tells.
const crossSecret = "sk-live-ABCDEF123456"

// TestSecretsOfOtherScenarios: the agents of one run can read each
// other's environment (/proc/PID/environ, same user), so every output of
// the run is redacted of every scenario's secrets: b's agent telling a's
// secret leaks it nowhere. b's agent is given the secret in its script
// rather than reading a's process, so that nothing depends on timing.
func TestSecretsOfOtherScenarios(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: fine}]}]\n",
		"b.mock.yaml": `
sessionId: "sess-` + crossSecret + `"
turns:
  - steps: [{text: "found TOKEN_A=` + crossSecret + `"}, {stderr: "TOKEN_A=` + crossSecret + `"}]
    stopReason: "stop-` + crossSecret + `"
`,
		"cross/a.yaml": `
name: a
agent: {command: [acprun, mock-agent, ../a.mock.yaml], env: {TOKEN_A: "` + crossSecret + `"}}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
		"cross/b.yaml": `
name: b
agent: {command: [acprun, mock-agent, ../b.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true"}, "run", "cross/", "-j", "2", "-v", "-o", "r.json",
		"--junit", "junit.xml", "--events", "events.jsonl", "--transcripts", "tr")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (b's stop reason is unexpected)\n%s", res.code, res.stderr)
	}
	rep := acprun(t, dir, "report", "r.json", "-o", "r.html")
	if rep.code != 0 {
		t.Fatalf("report: exit %d\n%s", rep.code, rep.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html")
	transcripts, err := filepath.Glob(filepath.Join(dir, "tr", "*.jsonl"))
	if err != nil || len(transcripts) != 2 {
		t.Fatalf("transcripts %v (%v), want a's and b's", transcripts, err)
	}
	for _, p := range transcripts {
		outputs[filepath.Base(p)] = readFiles(t, dir, filepath.Join("tr", filepath.Base(p)))[filepath.Join("tr", filepath.Base(p))]
	}
	outputs["stdout"], outputs["stderr"] = []byte(res.stdout), []byte(res.stderr+rep.stdout+rep.stderr)
	for name, data := range outputs {
		if i := bytes.Index(data, []byte("ABCDEF")); i >= 0 {
			t.Errorf("%s leaks a's secret: …%s…", name, excerpt(data, i))
		}
	}
	if !bytes.Contains(outputs["r.json"], []byte("found TOKEN_A=[REDACTED]")) {
		t.Errorf("results lack b's redacted text:\n%s", outputs["r.json"])
	}
}

// TestProbeSecretsNeverLeave: acprun probe redacts what the agent offers,
// its stderr and its error as run redacts its outputs: the values of the
// agent's env and of acprun's secret-looking environment variables.
func TestProbeSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	const envSecret, environSecret = "sk-live-ABCDEF123456", "ghp_EnvSecretValue99"
	offers := `
agentInfo: {name: "agent-` + envSecret + `", version: "` + environSecret + `"}
authMethods: [{id: api-key, name: "key ` + envSecret + `"}]
sessionId: "session-` + environSecret + `"
updatesBeforeSessionNew:
  - update:
      sessionUpdate: available_commands_update
      availableCommands: [{name: "cmd-` + envSecret + `", description: "` + environSecret + `"}]
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"offers.mock.yaml": offers,
		"dies.mock.yaml": offers + `  - stderr: "TOKEN_A=` + envSecret + ` MY_API_KEY=` + environSecret + `"
  - exit: 3
`,
		"c.yaml": `agents:
  evil: {command: [acprun, mock-agent, offers.mock.yaml], env: {TOKEN_A: "` + envSecret + `"}}
  dying: {command: [acprun, mock-agent, dies.mock.yaml], env: {TOKEN_A: "` + envSecret + `"}}
`,
	})
	env := []string{"MY_API_KEY=" + environSecret}
	for _, tt := range []struct {
		agent string
		code  int
	}{{"evil", 0}, {"dying", 3}} {
		text := acprunEnv(t, dir, env, "probe", tt.agent, "--config", "c.yaml", "-o", tt.agent+".json")
		asJSON := acprunEnv(t, dir, env, "probe", tt.agent, "--config", "c.yaml", "--json")
		if text.code != tt.code || asJSON.code != tt.code {
			t.Fatalf("probe %s: exit %d and %d (--json), want %d\n%s\n%s", tt.agent, text.code, asJSON.code, tt.code, text.stdout, text.stderr)
		}
		outputs := map[string]string{
			"stdout": text.stdout, "stderr": text.stderr, "--json stdout": asJSON.stdout, "--json stderr": asJSON.stderr,
			"-o": string(readFiles(t, dir, tt.agent+".json")[tt.agent+".json"]),
		}
		for name, out := range outputs {
			for _, leak := range []string{"ABCDEF", "EnvSecret"} {
				if i := strings.Index(out, leak); i >= 0 {
					t.Errorf("probe %s: %s leaks a secret: …%s…", tt.agent, name, excerpt([]byte(out), i))
				}
			}
		}
		if !strings.Contains(text.stdout, "agent-[REDACTED]") {
			t.Errorf("probe %s: stdout lacks the redacted agent info:\n%s", tt.agent, text.stdout)
		}
		if tt.code != 0 && !strings.Contains(text.stderr, "TOKEN_A=[REDACTED] MY_API_KEY=[REDACTED]") {
			t.Errorf("probe %s: stderr lacks the agent's redacted stderr:\n%s", tt.agent, text.stderr)
		}
	}
}

// cutSecret is the secret of TestSecretsCutOrSplitNeverLeave.
const cutSecret = "ghp_CutSplit1234567890abcdef"

// termSecret is the secret that TestSecretsCutOrSplitNeverLeave's
// terminal prints: what acprun says of its output is cut through it, what
// the agent says of it is the agent's.
const termSecret = "ghp_TermOnlyQwertyZxcvbnmPoi"

// TestSecretsCutOrSplitNeverLeave: a secret that no one message holds
// whole, because an agent streamed it in chunks, a tail of an output was
// cut through it or a line that is not JSON escapes it, is redacted all
// the same, and so is one that ${VAR} put in the agent command --dry-run
// prints: no 8 bytes of it are left anywhere.
func TestSecretsCutOrSplitNeverLeave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Each tail is cut 18 bytes into the secret: the agent's stderr keeps
	// 32 KiB ("start ", the secret, the filler, a newline), a verify
	// command's stdout 64 KiB.
	stderrFiller := strings.Repeat("F", 32<<10+18-len("start ")-len(cutSecret)-1)
	stdoutFiller := 64<<10 + 18 - len(cutSecret)
	escaped := `\u0067hp` + cutSecret[3:]
	scenario := `
name: cut
agent: {command: [acprun, mock-agent, agent.mock.yaml%s], env: {TERM_SECRET: "` + termSecret + `"}}
client: {terminal: true}
permissions: {default: allow}
verify: ["printf ` + cutSecret + `; head -c ` + strconv.Itoa(stdoutFiller) + ` /dev/zero | tr '\\0' F; exit 1"]
turns: [{prompt: hi}]
`
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `
turns:
  - steps:
      - text: "the token is ` + cutSecret + `, done"
        chunks: 9
      - thought: "thinking of ` + cutSecret + `"
        chunks: 5
      - garbage: '{"jsonrpc":"2.0","method":"session/update","params":{"text":"cut short ` + escaped + `'
      - terminal: {command: "printf ` + termSecret + `; head -c 278 /dev/zero | tr '\\0' F", waitForExit: true, output: true, release: true, outputByteLimit: 290}
      - stderr: "start ` + cutSecret + stderrFiller + `"
`,
		"s.yaml":   fmt.Sprintf(scenario, ""),
		"dry.yaml": strings.Replace(fmt.Sprintf(scenario, ""), "acprun, mock-agent, agent.mock.yaml", `my-agent, "--x=${CUT_SECRET}"`, 1),
	})
	env := []string{"CUT_SECRET=" + cutSecret}
	res := acprunEnv(t, dir, env, "run", "s.yaml", "-v", "-o", "r.json", "--junit", "junit.xml", "--events", "events.jsonl", "--transcripts", "tr", "--html", "r.html")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (verify fails)\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html", "tr/cut.jsonl")
	outputs["stderr"] = []byte(res.stdout + res.stderr)

	// The chunks of the transcript, joined as the agent meant them.
	texts := testkit.StreamedTexts(outputs["tr/cut.jsonl"])
	streamed := texts["agent_message_chunk"] + "\n" + texts["agent_thought_chunk"]
	outputs["the transcript's chunks, joined"] = []byte(streamed)

	dry := acprunEnv(t, dir, env, "run", "dry.yaml", "--dry-run")
	if dry.code != 0 || !strings.Contains(dry.stdout, "--x=[REDACTED]") {
		t.Errorf("--dry-run: exit %d, want the agent command with --x=[REDACTED]\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	outputs["--dry-run"] = []byte(dry.stdout + dry.stderr)

	noPartOf(t, cutSecret, outputs)
	if !strings.Contains(streamed, "the token is [REDACTED], done") {
		t.Errorf("the transcript's chunks say %q, want the token redacted in place", streamed)
	}
	for _, want := range []string{`"stderrTail":\s*"\[…\]\[REDACTED\]FFF`, `"stdout":\s*"\[REDACTED\]FFF`, `"output":"\[REDACTED\]FFF`} {
		where := "r.json"
		if strings.Contains(want, "output") {
			where = "tr/cut.jsonl" // acprun's answer to terminal/output
		}
		if !regexp.MustCompile(want).Match(outputs[where]) {
			t.Errorf("%s lacks /%s/: the test no longer cuts through the secret", where, want)
		}
	}
	if bytes.Contains(outputs["tr/cut.jsonl"], []byte(`"output":"`+termSecret[18:])) {
		t.Errorf("the transcript's answer to terminal/output keeps the rest of the secret")
	}
}

// TestSecretsStreamedBetweenOtherLines: a secret an agent streams over
// chunks with other lines between them (a tool call, a chunk of another
// stream) is redacted in the transcript and the HTML report as in the
// turn's text and thoughts: no 8 bytes of it are left anywhere, and the
// chunks of each stream say [REDACTED] where it starts. So is, in the
// transcript, a secret whose beginning ends a turn's text and whose rest
// begins the next turn's: their chunks follow each other there (each
// turn's text in the results is its own).
func TestSecretsStreamedBetweenOtherLines(t *testing.T) {
	t.Parallel()
	const secret, acrossTurns = "sk-live-ABCDEF123456", "tok-turns-0987654321"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `
name: split
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {SECRET: "` + secret + `", OTHER: "` + acrossTurns + `"}}
permissions: {default: allow}
turns: [{prompt: hi}, {prompt: again}]
`,
		"agent.mock.yaml": `
turns:
  - steps:
      - text: "E sk-live-ABC"
      - tool_call: {toolCallId: t1, title: between}
      - text: "DEF123456 F "
      - thought: "T1 sk-live-ABCD"
      - text: "G "
      - thought: "EF123456 T2"
      - text: "H tok-turns-"
  - steps:
      - text: "0987654321 next turn"
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-v", "-o", "r.json", "--transcripts", "tr", "--html", "r.html")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "r.html", "tr/split.jsonl")
	outputs["stderr"] = []byte(res.stdout + res.stderr)
	texts := testkit.StreamedTexts(outputs["tr/split.jsonl"])
	outputs["the transcript's chunks, joined"] = []byte(texts["agent_message_chunk"] + "\n" + texts["agent_thought_chunk"])
	noPartOf(t, secret, outputs)
	noPartOf(t, acrossTurns, map[string][]byte{"the transcript": outputs["tr/split.jsonl"]})
	if texts["agent_message_chunk"] != "E [REDACTED] F G H [REDACTED] next turn" || texts["agent_thought_chunk"] != "T1 [REDACTED] T2" {
		t.Errorf("the transcript's chunks say %q and %q, want the secrets redacted where they start", texts["agent_message_chunk"], texts["agent_thought_chunk"])
	}
}

// TestSecretsSplitInAgentStderr: in the agent's stderr kept in the
// results and shown in its error, a long secret wrapped over two lines is
// redacted, and so is the beginning of one that ends the tail (as when
// acprun takes it between two reads of one write): no 8 bytes of it are
// left.
func TestSecretsSplitInAgentStderr(t *testing.T) {
	t.Parallel()
	const secret = "ghp_StderrSplit1234567890abcdef"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `
name: stderr
agent:
  command: [sh, -c, 'printf "key %.14s\n%s\nend %.12s" "$SECRET" "$(echo "$SECRET" | cut -c15-)" "$SECRET" >&2']
  env: {SECRET: "` + secret + `"}
turns: [{prompt: hi}]
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "r.json", "--junit", "junit.xml")
	if res.code != 3 || !strings.Contains(res.stderr, "| key [REDACTED]") {
		t.Fatalf("exit %d, want 3 (the agent exits at once), its stderr shown\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "junit.xml")
	outputs["stderr"] = []byte(res.stdout + res.stderr)
	noPartOf(t, secret, outputs)
	if want := `"stderrTail": "key [REDACTED]\nend [REDACTED]"`; !bytes.Contains(outputs["r.json"], []byte(want)) {
		t.Errorf("r.json lacks %s:\n%s", want, outputs["r.json"])
	}
}

// TestSecretsWrappedInCommandOutput: a long secret that a setup, verify
// or teardown command, or a command the agent runs in a terminal, prints
// wrapped over lines is redacted wherever acprun shows that output: the
// results, the errors, failures and warnings that quote it, stderr,
// JUnit, the events, the transcript's answer to terminal/output and the
// HTML report; so is the beginning of one that a command killed in the
// middle of it wrote. No 8 bytes of it are left.
func TestSecretsWrappedInCommandOutput(t *testing.T) {
	t.Parallel()
	const secret = "ghp_WrappedE2E1234567890abcdefXYZ"
	const wrap = "echo key $HOOK_KEY | fold -w 10"
	const killed = `printf 'key %.14s' \"$HOOK_KEY\"; kill -KILL $$` // in the middle of the secret
	request := func(id int, method, params string) string {
		return fmt.Sprintf(`printf '%%s\n' '{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"sessionId":"s1",%s}}'`+"\nread -r line\n", id, method, params)
	}
	term := `"terminalId":"term-1"`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		// The agent runs the command in a terminal and reads its output,
		// without saying it.
		"agent.sh": shHandshake + "read -r line\n" +
			request(100, "terminal/create", `"command":"`+wrap+`"`) +
			request(101, "terminal/wait_for_exit", term) +
			request(102, "terminal/output", term) +
			request(103, "terminal/release", term) +
			`printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'
while read -r line; do :; done
`,
		"s.yaml": `name: setup
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {HOOK_KEY: ` + secret + `}}
permissions: {default: deny}
setup: ["` + wrap + `; ` + wrap + ` >&2; exit 1"]
turns: [{prompt: hi}]
---
name: work
agent: {command: [sh, agent.sh], env: {HOOK_KEY: ` + secret + `}}
client: {terminal: true}
permissions: {default: deny, allow: [{kind: execute}]}
verify: ["` + wrap + `; exit 1"]
teardown: ["` + wrap + ` >&2; exit 1", "` + killed + `"]
turns: [{prompt: go}]
`,
	})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true"}, "run", "s.yaml", "-v", "-o", "r.json", "--junit", "junit.xml",
		"--events", "events.jsonl", "--transcripts", "tr", "--html", "r.html")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (setup and verify fail)\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html", "tr/work.jsonl")
	outputs["stdout and stderr"] = []byte(res.stdout + res.stderr)
	noPartOf(t, secret, outputs)
	if want := `"stdout": "key [REDACTED]"`; !bytes.Contains(outputs["r.json"], []byte(want)) {
		t.Errorf("r.json lacks the output of the command killed, %s:\n%s", want, outputs["r.json"])
	}
	if want := `"output":"key [REDACTED]\n"`; !bytes.Contains(outputs["tr/work.jsonl"], []byte(want)) {
		t.Errorf("the transcript lacks the answer to terminal/output %s:\n%s", want, outputs["tr/work.jsonl"])
	}
	for _, want := range []string{"setup `" + wrap, "verify `" + wrap, "teardown `" + wrap} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q: the commands no longer fail, and the test checks less\n%s", want, res.stderr)
		}
	}
}

// TestSecretsSplitBetweenPooledScenarios: a pooled agent (agent.reuse)
// that writes a secret to stderr across the end of one scenario and the
// start of the next, wrapped over lines, leaks no part of it through
// either scenario's stderrTail (both fail, so both are kept): the line
// break that ends the first share does not end the secret, and the rest
// that begins the second is found over its lines, as at the beginning of
// a tail cut off.
func TestSecretsSplitBetweenPooledScenarios(t *testing.T) {
	underRace(t)
	t.Parallel()
	const secret = "ghp_PooledWrap1234567890abcdefXYZ"
	dir := realTempDir(t)
	env, _ := e2eMarker(t)
	env += ", POOL_KEY: " + secret
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": closingAgent + `turns:
  - match: alpha
    steps: [{stderr: "key ` + secret[:10] + `"}, {text: done}]
  - match: beta
    steps: [{stderr: "` + secret[10:20] + `\n` + secret[20:] + ` more"}, {text: done}]
`,
		"s.yaml": reuseScenario("a", "alpha", env, ", expect: {text: {contains: nope}}") +
			reuseScenario("b", "beta", env, ", expect: {text: {contains: nope}}"),
	})
	res := acprun(t, dir, "run", "s.yaml", "-j", "1", "-v", "-o", "r.json", "--junit", "junit.xml",
		"--events", "events.jsonl", "--transcripts", "tr", "--html", "r.html")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (both fail)\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html")
	outputs["stdout and stderr"] = []byte(res.stdout + res.stderr)
	noPartOf(t, secret, outputs)
	sc := readResults(t, filepath.Join(dir, "r.json")).Scenarios
	if a, b := sc[0].StderrTail, sc[1].StderrTail; a != "key [REDACTED]\n" || b != "[REDACTED] more\n" {
		t.Errorf("stderrTail a %q, b %q; want %q and %q", a, b, "key [REDACTED]\n", "[REDACTED] more\n")
	}
}

// TestSecretsSplitBetweenTextAndThoughts: a secret an agent spreads over a
// chunk of its message and one of its thoughts leaks no part of it: the
// message's and the thoughts' chunks are one text for redaction, in the
// order they came, while the results, the transcript, -v and the HTML
// report keep the text and the thoughts apart.
func TestSecretsSplitBetweenTextAndThoughts(t *testing.T) {
	t.Parallel()
	const secret = "ghp_Interleave1234567890abcdefXYZ"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `
name: mixed
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {SECRET: "` + secret + `"}}
permissions: {default: deny}
turns: [{prompt: hi, expect: {text: {contains: nope}}}]
`,
		"agent.mock.yaml": `
turns:
  - steps:
      - text: "key ` + secret[:19] + `"
      - thought: "` + secret[19:] + ` rest"
      - text: " more words"
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-v", "-o", "r.json", "--junit", "junit.xml", "--events", "events.jsonl",
		"--transcripts", "tr", "--html", "r.html")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (the text lacks nope)\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html", "tr/mixed.jsonl")
	outputs["stdout and stderr"] = []byte(res.stdout + res.stderr)
	noPartOf(t, secret, outputs)
	turn := readResults(t, filepath.Join(dir, "r.json")).Scenarios[0].Turns[0]
	if turn.Text != "key [REDACTED] more words" || turn.Thoughts != " rest" {
		t.Errorf("text %q, thoughts %q; want the secret redacted where it starts, the rest dropped", turn.Text, turn.Thoughts)
	}
	texts := testkit.StreamedTexts(outputs["tr/mixed.jsonl"])
	if texts["agent_message_chunk"] != turn.Text || texts["agent_thought_chunk"] != turn.Thoughts {
		t.Errorf("the transcript's chunks say %q and %q, want the results' text and thoughts", texts["agent_message_chunk"], texts["agent_thought_chunk"])
	}
}

// TestMergeRedactsTheEnvironment: a shard run where a token was not set
// keeps what its agent said of it; merged in a job that holds the token
// (a secret-looking variable), the merged results and the summary merge
// prints show it [REDACTED], as report's page does.
func TestMergeRedactsTheEnvironment(t *testing.T) {
	t.Parallel()
	const token = "ghp_MergeT0ken123456"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"f.mock.yaml": "turns: [{steps: [{text: \"deploying with " + token + " now\"}]}]\n",
		"f.yaml":      "name: f\nagent: {command: [acprun, mock-agent, f.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: nope}}}]\n",
	})
	if res := acprun(t, dir, "run", "f.yaml", "-o", "shard.json"); res.code != exitFailed {
		t.Fatalf("run: exit %d, want 1\n%s", res.code, res.stderr)
	}
	if data := readFiles(t, dir, "shard.json")["shard.json"]; !bytes.Contains(data, []byte(token)) {
		t.Fatalf("the shard does not hold the token: the test no longer plants what it should\n%s", data)
	}
	res := acprunEnv(t, dir, []string{"GH_TOKEN=" + token}, "merge", "shard.json", "-o", "all.json")
	if res.code != exitFailed {
		t.Fatalf("merge: exit %d, want 1\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "all.json")
	outputs["stderr"] = []byte(res.stderr)
	for name, data := range outputs {
		if i := bytes.Index(data, []byte("MergeT0ken")); i >= 0 {
			t.Errorf("%s leaks the token: …%s…", name, excerpt(data, i))
		}
		if !bytes.Contains(data, []byte("deploying with [REDACTED] now")) {
			t.Errorf("%s lacks the text with the token redacted:\n%s", name, data)
		}
	}
}

// TestRerunKeptResultsRedacted: the earlier results a rerun keeps in the
// file it replaces (here f2's, which --run leaves out) are redacted of
// the rerun's secrets, as its own results are: the earlier run, where the
// token was not set, kept it in clear.
func TestRerunKeptResultsRedacted(t *testing.T) {
	t.Parallel()
	const token = "ghp_RerunT0ken123456"
	dir := t.TempDir()
	scenario := func(name string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, f.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: nope}}}]\n"
	}
	writeFiles(t, dir, map[string]string{
		"f.mock.yaml": "turns: [{steps: [{text: \"deploying with " + token + " now\"}]}]\n",
		"f.yaml":      scenario("f1") + "---\n" + scenario("f2"),
	})
	if res := acprun(t, dir, "run", "f.yaml", "-o", "last.json"); res.code != exitFailed {
		t.Fatalf("run: exit %d, want 1\n%s", res.code, res.stderr)
	}
	res := acprunEnv(t, dir, []string{"GH_TOKEN=" + token}, "run", "f.yaml", "--rerun-failed", "last.json", "--run", "f1", "-o", "last.json")
	if res.code != exitFailed || !strings.Contains(res.stderr, "kept in last.json") {
		t.Fatalf("rerun: exit %d, want 1 with f2 kept\n%s", res.code, res.stderr)
	}
	data := readFiles(t, dir, "last.json")["last.json"]
	if i := bytes.Index(data, []byte("RerunT0ken")); i >= 0 {
		t.Errorf("last.json leaks the token: …%s…", excerpt(data, i))
	}
	if n := bytes.Count(data, []byte("deploying with [REDACTED] now")); n != 2 {
		t.Errorf("last.json holds the redacted text %d times, want 2 (f1 rerun, f2 kept):\n%s", n, data)
	}
}
