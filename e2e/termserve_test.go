package e2e_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalRunningOutputRedacted: the output of a command still
// running, which ends partway through a secret, is written redacted to
// the transcript and the HTML report (the rest of the secret may follow),
// while the agent gets it as it is.
func TestTerminalRunningOutputRedacted(t *testing.T) {
	t.Parallel()
	const secret = "supersecretvalue123"
	dir := t.TempDir()
	// The agent asks for the output until it holds the 16 bytes printed.
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + `read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":100,"method":"terminal/create","params":{"sessionId":"s1","command":"printf tok=%s \"$MY_TOKEN\" | head -c 16; exec sleep 600"}}'
read -r line
n=101
while [ $n -lt 100000 ]; do
  printf '{"jsonrpc":"2.0","id":%d,"method":"terminal/output","params":{"sessionId":"s1","terminalId":"term-1"}}\n' $n
  read -r line
  n=$((n+1))
  case $line in *'"output":"tok=supersecretv"'*)
    ` + chunk("saw it") + `    break;;
  esac
done
printf '{"jsonrpc":"2.0","id":%d,"method":"terminal/release","params":{"sessionId":"s1","terminalId":"term-1"}}\n' $n
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'
id=4
while read -r line; do
  printf '{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}\n' $id
  id=$((id+1))
done
`,
		"s.yaml": `name: partial
agent: {command: [sh, agent.sh], env: {MY_TOKEN: ` + secret + `}}
client: {terminal: true}
permissions: {default: deny, allow: [{kind: execute}]}
turns:
  - prompt: go
    expect: {text: {contains: saw it}}
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "r.json", "--transcripts", "tr", "--html", "r.html")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0 (the agent saw the output as it is)\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "r.html", "tr/partial.jsonl")
	for name, data := range outputs {
		if strings.Contains(string(data), secret[:8]) {
			t.Errorf("%s holds the beginning of the secret, %q", name, secret[:8])
		}
	}
	if tr := string(outputs["tr/partial.jsonl"]); !strings.Contains(tr, `"output":"tok=[REDACTED]"`) {
		t.Errorf("the transcript lacks the answer with the output redacted:\n%s", tr)
	}
}

// TestTerminalCwdMissing: a terminal whose cwd does not exist is refused
// with an answer that says so.
func TestTerminalCwdMissing(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, `turns:
  - steps:
      - terminal: {command: pwd, cwd: gone}
`, `name: gone
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {allow: [{kind: execute}]}
turns:
  - prompt: hi
`)
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "Resource not found: the cwd " + filepath.Join(real, "gone") + " does not exist"
	tr := out.Scenarios[0].Turns[0]
	if !strings.Contains(tr.Text, "error: terminal/create: "+want+" (-32002)") {
		t.Errorf("the agent was told %q; want %q", tr.Text, want)
	}
	if cs := creates(t, out.Scenarios[0]); len(cs) != 1 || cs[0].Error != want {
		t.Errorf("terminal/create records %+v; want one with error %q", cs, want)
	}
}

// TestTerminalOutputFitsAnAnswer: by default, terminal/output sends at
// most 8 MiB of output as JSON, the most acprun sends at once, however
// many bytes the command wrote (a NUL takes 6 there): the end that fits,
// truncated.
func TestTerminalOutputFitsAnAnswer(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, `turns:
  - steps:
      - terminal: {command: "head -c 2000000 /dev/zero; printf end", waitForExit: true, output: true, release: true}
`, `name: big
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {allow: [{kind: execute}]}
turns:
  - prompt: hi
`, "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	const maxAnswer = 8 << 20
	wantBytes := (maxAnswer-len("end"))/len(`\u0000`) + len("end")
	found := false
	for _, r := range out.Scenarios[0].Turns[0].ClientRequests {
		if r.Method == "terminal/output" {
			found = true
			if r.Bytes != wantBytes || !r.Truncated {
				t.Errorf("terminal/output record %+v; want %d bytes, truncated", r, wantBytes)
			}
		}
	}
	if !found {
		t.Fatal("no terminal/output record")
	}
	f, err := os.Open(filepath.Join(dir, out.Scenarios[0].Transcript))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if l := sc.Text(); strings.Contains(l, `"c2a"`) && len(l) > maxAnswer+200 {
			t.Errorf("acprun sent a line of %d bytes, want at most 8 MiB and the message around it", len(l))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
