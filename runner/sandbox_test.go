package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// landlockOnly returns the environment entries (test seams, see
// sandbox.Detect) that make a run see this host without bubblewrap, and
// skips the test when the host lacks Landlock ABI abi, unless
// ACPRUN_LANDLOCK_REQUIRED=1 says it has it: then it fails.
func landlockOnly(t *testing.T, abi int) []string {
	t.Helper()
	if h := sandbox.Detect(os.Environ()); h.LandlockABI < abi {
		msg := "Landlock ABI " + strconv.Itoa(h.LandlockABI) + " " + h.LandlockNote + ": the test needs " + strconv.Itoa(abi)
		if os.Getenv("ACPRUN_LANDLOCK_REQUIRED") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return []string{sandbox.EnvTestNoBwrap + "=1"}
}

// enforceNothing are the environment entries (test seams) that make a run
// see a host that can enforce no sandbox: no bubblewrap, no Landlock.
var enforceNothing = []string{sandbox.EnvTestNoBwrap + "=1", sandbox.EnvTestLandlockABI + "=0"}

// sandboxEnviron is acprun's environment with HOME in a directory of the
// test's own, and the passwd database not read, so that the default
// hidden paths and state directories are the test's (none), and seams
// added.
func sandboxEnviron(t *testing.T, seams ...string) []string {
	return append(append(os.Environ(), "HOME="+t.TempDir(), EnvTestNoPasswd+"=1"), seams...)
}

// TestSandboxRefusedBeforeSetup: on a host that cannot enforce a required
// sandbox the scenario ends as an error of the agent's start (exit 3),
// naming what the host lacks, before its setup runs and its agent starts.
func TestSandboxRefusedBeforeSetup(t *testing.T) {
	t.Parallel()
	rep := runScenarios(t, Options{Environ: sandboxEnviron(t, enforceNothing...)},
		"name: refused\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nsetup: [touch setup-ran]\n"+
			"sandbox: {network: off}\nturns: [{prompt: hi}]\n",
		map[string]string{"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"})
	r := rep.Scenarios[0]
	if r.Status != report.StatusError || !r.StartFailed || r.Sandbox != nil || r.Agent.InfoName != "" || len(r.Setup) > 0 {
		t.Errorf("status %s, startFailed %v, sandbox %+v, agent %q, setup %+v; want an error of the start before setup and agent",
			r.Status, r.StartFailed, r.Sandbox, r.Agent.InfoName, r.Setup)
	}
	for _, want := range []string{"s.yaml:4:10: this host cannot enforce the sandbox: ",
		"restricting writes needs bubblewrap (ACPRUN_TEST_NO_BWRAP=1), or Landlock ABI 3",
		"network off needs bubblewrap (ACPRUN_TEST_NO_BWRAP=1), or Landlock ABI 4"} {
		if !strings.Contains(r.Error, want) {
			t.Errorf("error %q, want it to say %q", r.Error, want)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(r.File), "setup-ran")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("setup ran: %v", err)
	}
}

// TestSandboxContainsAgentAndTerminals: the agent, what it spawns and the
// terminals acprun runs for it write only in the session cwd and the
// sandbox's TMPDIR, which is removed at the end; the results record the
// sandbox; setup and verify run outside it.
func TestSandboxContainsAgentAndTerminals(t *testing.T) {
	t.Parallel()
	seams := landlockOnly(t, 3)
	outside := t.TempDir()
	script := `turns:
  - steps:
      - writeFile: {path: in.txt, content: in}
      - writeFile: {path: ` + outside + `/agent, content: out}
      - spawn: "echo out > ` + outside + `/child"
      - spawn: "echo tmp > $TMPDIR/t && echo $TMPDIR"
      - terminal: {command: "echo out > ` + outside + `/terminal", waitForExit: true, output: true}
`
	rep := runScenarios(t, Options{Environ: sandboxEnviron(t, seams...)},
		"name: contained\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\n"+
			"setup: [\"touch "+outside+"/setup\"]\nverify: [\"touch "+outside+"/verify\"]\n"+
			"sandbox: {network: on}\nturns: [{prompt: hi}]\n",
		map[string]string{"agent.mock.yaml": script})
	r := rep.Scenarios[0]
	if r.Status != report.StatusPassed {
		t.Fatalf("status %s: %s %q", r.Status, r.Error, r.Failures)
	}
	dir := filepath.Dir(r.File)
	text := r.Turns[0].Text
	for _, want := range []string{
		"writeFile: ok",
		"writeFile: error: open " + outside + "/agent: permission denied",
		outside + "/child: Permission denied", // as the shell says it
		outside + "/terminal: Permission denied",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the agent said %q, want %q in it", text, want)
		}
	}
	for _, name := range []string{"agent", "child", "terminal"} {
		if _, err := os.Stat(filepath.Join(outside, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s wrote outside: %v", name, err)
		}
	}
	for _, name := range []string{"setup", "verify"} {
		if _, err := os.Stat(filepath.Join(outside, name)); err != nil {
			t.Errorf("%s ran in the sandbox: %v", name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "in.txt")); err != nil || string(b) != "in" {
		t.Errorf("in the cwd: %q, %v", b, err)
	}
	_, tmp, ok := strings.Cut(text, "spawn: exit 0: ")
	tmp, _, _ = strings.Cut(tmp, "terminal")
	if !ok || !strings.HasPrefix(tmp, "/") {
		t.Fatalf("no TMPDIR in %q", text)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the sandbox's TMPDIR %s is still there: %v", tmp, err)
	}
	sb := r.Sandbox
	if sb == nil || sb.Backend != "landlock" || sb.Network != "on" || sb.Level != "required" || len(sb.Hide) > 0 ||
		!slices.Contains(sb.Write, dir) || !slices.Contains(sb.Write, tmp) {
		t.Errorf("recorded sandbox %+v, want landlock writing in %s and %s", sb, dir, tmp)
	}
}

// TestSandboxPoolKey: scenarios reuse an agent process only when their
// sandboxes are the same.
func TestSandboxPoolKey(t *testing.T) {
	t.Parallel()
	seams := landlockOnly(t, 3)
	extra := t.TempDir()
	rep := runScenarios(t, Options{Parallel: 1, Environ: sandboxEnviron(t, seams...)},
		scenarioDoc("a", "agent.mock.yaml", true, "sandbox: {}\n")+
			scenarioDoc("b", "agent.mock.yaml", true, "sandbox: {}\n")+
			scenarioDoc("c", "agent.mock.yaml", true, "sandbox: {write: ["+extra+"]}\n")+
			scenarioDoc("d", "agent.mock.yaml", true, ""),
		map[string]string{"agent.mock.yaml": closingAgent + "turns: [{steps: [{text: hi}]}]\n"})
	var ids []string
	for _, r := range rep.Scenarios {
		if r.Status != report.StatusPassed || r.Agent.Pool == nil {
			t.Fatalf("%s: status %s, pool %+v: %s", r.Name, r.Status, r.Agent.Pool, r.Error)
		}
		ids = append(ids, r.Agent.Pool.ID)
	}
	if want := []string{"acprun#1", "acprun#1", "acprun#2", "acprun#3"}; !slices.Equal(ids, want) {
		t.Errorf("pool ids %q, want %q", ids, want)
	}
	for i, r := range rep.Scenarios {
		if (r.Sandbox != nil) != (i < 3) {
			t.Errorf("%s: sandbox %+v", r.Name, r.Sandbox)
		}
	}
	if c := rep.Scenarios[2].Sandbox; c == nil || !slices.Contains(c.Write, extra) {
		t.Errorf("c's sandbox %+v, want %s writable", c, extra)
	}
}

// TestSandboxHiddenFromClient: the paths a sandbox hides, the scenario's
// and the default ones, are refused to the agent's fs/* requests and as a
// terminal's cwd as paths outside the roots are, also through symlinks the
// agent planted, and a files expectation does not read them through such a
// symlink: acprun serves both from outside the sandbox. The refusals are
// recorded and count in neither allowed nor denied. The host is made to
// enforce nothing (best-effort): the client refuses hidden paths whatever
// the sandbox could hide.
func TestSandboxHiddenFromClient(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("PRIVATE-KEY-VALUE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const secret = "HIDDEN-SECRET-VALUE"
	rep := runScenarios(t, Options{Environ: append(append(os.Environ(), "HOME="+home), enforceNothing...)},
		"name: hidden\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"client: {fs: true, terminal: true, roots: [., "+home+"]}\npermissions: {default: allow}\n"+
			"setup: [\"mkdir secrets && echo "+secret+" > secrets/key\"]\n"+
			"sandbox: {hide: [./secrets], level: best-effort}\n"+
			"turns: [{prompt: hi, expect: {files: {contains: {out.txt: nothing}}}}]\n",
		map[string]string{"agent.mock.yaml": `turns:
  - steps:
      - spawn: "ln -s secrets/key out.txt && ln -s secrets link"
      - read: {path: secrets/key}
      - read: {path: out.txt}
      - read: {path: link/key}
      - read: {path: ` + home + `/.ssh/id_ed25519}
      - write: {path: link/key, content: pwned}
      - write: {path: secrets/new, content: pwned}
      - read: {path: agent.mock.yaml, limit: 1}
      - terminal: {command: ls, cwd: link, waitForExit: true}
`})
	r := rep.Scenarios[0]
	if r.Status != report.StatusFailed {
		t.Fatalf("status %s: %s %q; want failed (files)", r.Status, r.Error, r.Failures)
	}
	dir := filepath.Dir(r.File)
	text := r.Turns[0].Text
	if !strings.Contains(text, "read: turns:") {
		t.Errorf("the agent said %q; want the read of a file not hidden served", text)
	}
	for _, leak := range []string{secret, "PRIVATE-KEY-VALUE"} {
		if strings.Contains(text, leak) || strings.Contains(strings.Join(r.Turns[0].Failures, "\n"), leak) {
			t.Errorf("%s leaked: text %q, failures %q", leak, text, r.Turns[0].Failures)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "secrets", "key")); err != nil || string(b) != secret+"\n" {
		t.Errorf("secrets/key = %q, %v; want it unchanged", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "secrets", "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("secrets/new was written: %v", err)
	}
	var refused []string
	for _, req := range r.Turns[0].ClientRequests {
		if req.Refused != "" {
			refused = append(refused, req.Method+" "+req.Refused)
		}
	}
	want := []string{
		"fs/read_text_file " + filepath.Join(dir, "secrets/key") + " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)",
		"fs/read_text_file " + filepath.Join(dir, "out.txt") + " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)",
		"fs/read_text_file " + filepath.Join(dir, "link/key") + " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)",
		"fs/read_text_file " + filepath.Join(home, ".ssh/id_ed25519") + " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)",
		"fs/write_text_file " + filepath.Join(dir, "link/key") + " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)",
		"fs/write_text_file " + filepath.Join(dir, "secrets/new") + " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)",
		"terminal/create " + filepath.Join(dir, "link") + " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)",
	}
	if !slices.Equal(refused, want) {
		t.Errorf("refused:\n%s\nwant:\n%s", strings.Join(refused, "\n"), strings.Join(want, "\n"))
	}
	if r.Allowed != 0 || r.Denied != 0 {
		t.Errorf("allowed/denied = %d/%d; want 0/0: refused requests count in neither", r.Allowed, r.Denied)
	}
	wantFail := `files.contains: "out.txt" is a symlink to a path the sandbox hides`
	if !strings.Contains(strings.Join(r.Turns[0].Failures, "\n"), wantFail) {
		t.Errorf("failures %q; want %q", r.Turns[0].Failures, wantFail)
	}
}

// TestSandboxHidesTheUsersHome: the default hidden paths are those of
// the user running acprun, as its HOME and the passwd database say,
// whatever HOME agent.env gives the agent, and the agent's as well: an
// agent given a home of its own does not read the user's credentials
// (here through the client, which refuses what the sandbox hides on a host
// made to enforce nothing). Without HOME, the passwd database's home is
// still hidden; with no home known at all, a warning says so.
func TestSandboxHidesTheUsersHome(t *testing.T) {
	t.Parallel()
	home, agentHome := t.TempDir(), t.TempDir()
	for _, h := range []string{home, agentHome} {
		if err := os.MkdirAll(filepath.Join(h, ".ssh"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(h, ".ssh", "id_ed25519"), []byte("PRIVATE-KEY-VALUE\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rep := runScenarios(t, Options{Environ: append(append(os.Environ(), "HOME="+home), enforceNothing...)},
		"name: own-home\nagent: {command: [acprun, mock-agent, agent.mock.yaml], env: {HOME: "+agentHome+"}}\n"+
			"client: {fs: true, roots: [/]}\npermissions: {default: allow}\nsandbox: {level: best-effort}\nturns: [{prompt: hi}]\n",
		map[string]string{"agent.mock.yaml": `turns:
  - steps:
      - read: {path: ` + home + `/.ssh/id_ed25519}
      - read: {path: ` + agentHome + `/.ssh/id_ed25519}
`})
	r := rep.Scenarios[0]
	if strings.Contains(r.Turns[0].Text, "PRIVATE-KEY-VALUE") {
		t.Errorf("the agent read a key: %q", r.Turns[0].Text)
	}
	var refused []string
	for _, req := range r.Turns[0].ClientRequests {
		refused = append(refused, req.Refused)
	}
	// agent.env's values are redacted in the results: the agent's home too.
	hidden := "/.ssh/id_ed25519 is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)"
	if want := []string{home + hidden, "[REDACTED]" + hidden}; !slices.Equal(refused, want) {
		t.Errorf("refused %q, want %q", refused, want)
	}

	var noHome []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, EnvTestNoPasswd+"=") {
			noHome = append(noHome, kv)
		}
	}
	sc := &scenario.Scenario{Sandbox: &scenario.Sandbox{}}
	if u, err := user.Current(); err != nil {
		t.Logf("no passwd entry: %v", err)
	} else if got := sandboxHide(sc, noHome); !slices.Contains(got, filepath.Join(u.HomeDir, ".ssh")) {
		t.Errorf("without HOME: hidden %q, want %s/.ssh among them", got, u.HomeDir)
	}

	// With no home known at all, a warning says that nothing is hidden.
	rep = runScenarios(t, Options{Environ: append(append(noHome, EnvTestNoPasswd+"=1"), enforceNothing...)},
		"name: homeless\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nsandbox: {level: best-effort}\nturns: [{prompt: hi}]\n",
		map[string]string{"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"})
	r = rep.Scenarios[0]
	want := r.File + ":4:10: sandbox: no home directory is known (HOME is unset, and the passwd database is not read: ACPRUN_TEST_NO_PASSWD=1): " +
		"~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc, ~/.docker are hidden nowhere; list the credentials to hide in sandbox.hide"
	if !slices.Contains(r.Warnings, want) || r.Status != report.StatusPassed {
		t.Errorf("%s, warnings %q; want passed, and %q", r.Status, r.Warnings, want)
	}
}

// TestSandboxHideMissingWarned: a sandbox.hide path that does not exist
// is a warning at its entry, once, with a workspace too (which hides it
// in the source and in the copy), where it is missing from both: one that
// setup makes in the copy is hidden there, and no warning; a default
// hidden path that does not exist is no warning.
func TestSandboxHideMissingWarned(t *testing.T) {
	t.Parallel()
	rep := runScenarios(t, Options{Environ: sandboxEnviron(t, enforceNothing...)},
		"name: typo\nagent: {command: [acprun, mock-agent, ../agent.mock.yaml]}\nworkspace: {from: proj}\npermissions: {default: deny}\n"+
			"sandbox:\n  level: best-effort\n  hide:\n    - ./proj/secrets\n    - ./proj/secret\n    - ./proj/made\nsetup: [mkdir made]\nturns: [{prompt: hi}]\n",
		map[string]string{"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n", "proj/secrets/key": "k\n"})
	r := rep.Scenarios[0]
	var got []string
	for _, w := range r.Warnings {
		if strings.Contains(w, "hide path") {
			got = append(got, w)
		}
	}
	want := []string{r.File + ":9:7: sandbox hide path " + filepath.Join(filepath.Dir(r.File), "proj", "secret") + " does not exist: nothing is hidden there (check it for a typo)"}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// TestSandboxGatewayNetworkOff: with network off and a gateway, under
// bubblewrap, the agent keeps a network namespace of its own: its model
// requests reach the gateway (through the relay inside), and the
// gateway's port on another address of the host is unreachable, not
// refused; the results record network off with no port.
func TestSandboxGatewayNetworkOff(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	ip := ""
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			ip = n.IP.String()
		}
	}
	if ip == "" {
		t.Skip("this host has no address but loopback ones")
	}
	up, served := anthropicUpstream(t)
	script := `turns:
  - steps:
      - model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}
      - spawn: "P=${ANTHROPIC_BASE_URL#http://127.0.0.1:}; P=${P%%/*}; bash -c \"exec 3<>/dev/tcp/` + ip + `/$P\" 2>&1"
`
	rep := runScenarios(t, Options{Environ: sandboxEnviron(t)},
		gatewayScenario("meter", t.TempDir(), up.URL, "second", "sandbox: {network: off}\npermissions: {default: deny}"),
		map[string]string{"agent.mock.yaml": script})
	r := rep.Scenarios[0]
	if served.Load() != 1 || r.Turns[0].Failures != nil {
		t.Errorf("upstream served %d requests, turn 1 failures %q; want 1 and none\n%s", served.Load(), r.Turns[0].Failures, r.Turns[0].Text)
	}
	if text := r.Turns[0].Text; !strings.Contains(text, "Network is unreachable") {
		t.Errorf("the agent said %q; want its connection to %s on the gateway's port unreachable", text, ip)
	}
	if sb := r.Sandbox; sb == nil || sb.Network != "off" || sb.Ports != nil || !strings.HasPrefix(sb.Backend, "bubblewrap") {
		t.Errorf("recorded %+v; want bubblewrap, network off, no ports", sb)
	}
}

// TestSandboxWarningPos: a warning about one of the scenario's write or
// hidden paths is reported at that entry of sandbox.write or sandbox.hide
// (a hidden path mapped into the workspace copy at the entry it comes
// from); one about a path acprun adds (the cwd, the agent's state) or
// about none, at the sandbox; one about a default hidden path, nowhere.
func TestSandboxWarningPos(t *testing.T) {
	sb := &scenario.Sandbox{Pos: at(3, 1), Write: []string{"/a", "/b"}, WritePos: []scenario.Pos{at(5, 7), at(6, 7)},
		Hide: []string{"/src/s", "/h", "/copy/s"}, HidePos: []scenario.Pos{at(8, 7), at(9, 7), at(8, 7)}}
	r := &scenarioRun{sc: &scenario.Scenario{Sandbox: sb}, sbox: &sandbox.Spec{
		Write: []string{"/cwd", "/state", "/a", "/b"},
		Hide:  []string{"/home/.ssh", "/home/.aws", "/src/s", "/h", "/copy/s"},
	}}
	for _, tc := range []struct {
		write, hide int
		want        scenario.Pos
		ok          bool
	}{
		{3, -1, at(6, 7), true}, {2, -1, at(5, 7), true}, {1, -1, at(3, 1), true}, {-1, -1, at(3, 1), true}, {4, -1, at(3, 1), true},
		{-1, 2, at(8, 7), true}, {-1, 3, at(9, 7), true}, {-1, 4, at(8, 7), true}, {-1, 1, scenario.Pos{}, false}, {-1, 0, scenario.Pos{}, false},
	} {
		if got, ok := r.sandboxWarningPos(sandbox.Warning{Msg: "m", Write: tc.write, Hide: tc.hide}); got != tc.want || ok != tc.ok {
			t.Errorf("warning about spec write %d, hide %d at %s, %v; want %s, %v", tc.write, tc.hide, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSandboxHoldsTheJudge: a judge of a sandboxed scenario runs in the
// scenario's sandbox with the workspace it judges read-only: it writes
// only in its own TMPDIR, neither in the copy nor in the scenario's write
// paths, and its client refuses what the sandbox hides. The results record
// its sandbox.
func TestSandboxHoldsTheJudge(t *testing.T) {
	t.Parallel()
	seams := landlockOnly(t, 3)
	outside := t.TempDir()
	judge := `turns:
  - steps:
      - text: "PASS\n"
      - writeFile: {path: judged.txt, content: x}
      - writeFile: {path: ` + outside + `/judge, content: x}
      - spawn: "echo x > fixture.txt"
      - spawn: "echo tmp > $TMPDIR/t && cat $TMPDIR/t"
      - read: {path: secret.txt}
`
	rep := runScenarios(t, Options{Environ: sandboxEnviron(t, seams...), KeepWorkspaces: true},
		"name: judged\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"workspace: {from: fixture}\n"+
			"sandbox: {write: ["+outside+"], hide: [fixture/secret.txt], level: best-effort}\n"+
			"turns: [{prompt: hi}]\n"+
			"expect: {judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: r}}\n",
		map[string]string{
			"agent.mock.yaml":     "turns: [{steps: [{writeFile: {path: agent.txt, content: x}}]}]\n",
			"judge.mock.yaml":     judge,
			"fixture/fixture.txt": "fixture\n",
			"fixture/secret.txt":  "HIDDEN\n",
		})
	r := rep.Scenarios[0]
	if r.Judge == nil {
		t.Fatalf("status %s: %s %q; no judge", r.Status, r.Error, r.Failures)
	}
	j := r.Judge
	if want := "writeFile: ok"; !strings.Contains(r.Turns[0].Text, want) { // the agent's, in the copy
		t.Errorf("the agent said %q, want %q in it", r.Turns[0].Text, want)
	}
	copyDir := r.Workspace.Path
	for _, want := range []string{
		"writeFile: error: open " + filepath.Join(copyDir, "judged.txt") + ": permission denied",
		"writeFile: error: open " + outside + "/judge: permission denied",
		"fixture.txt: Permission denied", // as the shell says it
		"spawn: exit 0: tmp",
		"error: fs/read_text_file: " + filepath.Join(copyDir, "secret.txt") + " is hidden by the sandbox",
	} {
		if !strings.Contains(j.Text, want) {
			t.Errorf("the judge said %q, want %q in it", j.Text, want)
		}
	}
	if !j.Passed || r.Status != report.StatusPassed {
		t.Errorf("judge passed %v, status %s (%q); want both passed", j.Passed, r.Status, r.Failures)
	}
	for _, p := range []string{filepath.Join(copyDir, "judged.txt"), filepath.Join(outside, "judge")} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the judge wrote %s: %v", p, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(copyDir, "fixture.txt")); err != nil || string(b) != "fixture\n" {
		t.Errorf("fixture.txt in the copy = %q, %v; want it as the fixture has it", b, err)
	}
	sb := j.Sandbox
	if sb == nil || sb.Backend != "landlock" || sb.Network != "on" || sb.Level != "best-effort" ||
		slices.Contains(sb.Write, copyDir) || slices.Contains(sb.Write, outside) || len(sb.Write) != 1 {
		t.Errorf("the judge's sandbox %+v; want landlock, best-effort, writing only in its TMPDIR", sb)
	}
}

// TestSandboxVerify: with sandbox.verify the verify commands run in the
// agent's sandbox: a script the agent left writes in the cwd, not outside;
// without it they run outside, as before. The results say which ran in it.
func TestSandboxVerify(t *testing.T) {
	t.Parallel()
	seams := landlockOnly(t, 3)
	for _, inside := range []bool{true, false} {
		t.Run(map[bool]string{true: "verify: true", false: "verify: false"}[inside], func(t *testing.T) {
			outside := realDir(t)
			rep := runScenarios(t, Options{Environ: sandboxEnviron(t, seams...)},
				"name: verified\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
					"sandbox: {verify: "+strconv.FormatBool(inside)+"}\nturns: [{prompt: hi}]\nverify: [sh check.sh]\n",
				map[string]string{"agent.mock.yaml": `turns:
  - steps:
      - writeFile: {path: check.sh, content: "echo in > in.txt; echo out > ` + outside + `/out\n"}
`})
			r := rep.Scenarios[0]
			if len(r.Verify) != 1 || r.Verify[0].Sandboxed != inside {
				t.Fatalf("verify %+v; want one command, sandboxed %v (%s %s)", r.Verify, inside, r.Status, r.Error)
			}
			v := r.Verify[0]
			if b, err := os.ReadFile(filepath.Join(filepath.Dir(r.File), "in.txt")); err != nil || string(b) != "in\n" {
				t.Errorf("in.txt: %q, %v; want the write in the cwd to work", b, err)
			}
			_, err := os.Stat(filepath.Join(outside, "out"))
			switch {
			case inside && (!errors.Is(err, fs.ErrNotExist) || !strings.Contains(v.Stderr, "Permission denied") || r.Status != report.StatusFailed ||
				!strings.Contains(strings.Join(r.Failures, "\n"), "verify `sh check.sh` (in the sandbox) exited with code")):
				t.Errorf("inside: out %v, stderr %q, status %s, failures %q; want the write outside denied and verify failed, in the sandbox",
					err, v.Stderr, r.Status, r.Failures)
			case !inside && (err != nil || r.Status != report.StatusPassed):
				t.Errorf("outside: out %v, status %s; want the write outside done and verify passed", err, r.Status)
			}
		})
	}
}

// TestSandboxJudgeSeesNoOtherWorkspace: under bubblewrap a judge sees no
// workspace but the copy it judges, as the attempt's agent does: another
// copy in the workspaces' directory (kept by an earlier run, holding the
// path the sandbox hides) is hidden from it, and its results record the
// workspaces' directory hidden; the copy it judges stays readable.
func TestSandboxJudgeSeesNoOtherWorkspace(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	wsDir := t.TempDir()
	shared := filepath.Join(wsDir, "acprun-workspaces-"+strconv.Itoa(os.Getuid()))
	kept := filepath.Join(shared, "acprun-judged-kept")
	if err := os.MkdirAll(filepath.Join(kept, "secret"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kept, "secret", "key"), []byte("S3CR3T-VALUE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := `spawn: "cat README; cat ` + kept + `/secret/key 2>&1 | tr A-Z a-z"`
	rep := runScenarios(t, Options{Environ: sandboxEnviron(t), WorkspaceDir: wsDir},
		"name: judged\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"workspace: {from: fixture}\nsandbox: {hide: [fixture/secret]}\npermissions: {default: allow}\n"+
			"turns: [{prompt: hi}]\n"+
			"expect: {judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: r}}\n",
		map[string]string{
			"agent.mock.yaml":    "turns: [{steps: [{" + read + "}]}]\n",
			"judge.mock.yaml":    "turns: [{steps: [{text: \"PASS\\n\"}, {" + read + "}]}]\n",
			"fixture/README":     "fixture\n",
			"fixture/secret/key": "S3CR3T-VALUE\n",
		})
	r := rep.Scenarios[0]
	if r.Judge == nil {
		t.Fatalf("status %s: %s %q; no judge", r.Status, r.Error, r.Failures)
	}
	for who, text := range map[string]string{"the agent": r.Turns[0].Text, "the judge": r.Judge.Text} {
		if !strings.Contains(text, "fixture") || strings.Contains(text, "s3cr3t") || !strings.Contains(text, "no such file or directory") {
			t.Errorf("%s said %q; want its copy's README read and the other copy's secret/key missing", who, text)
		}
	}
	for who, sb := range map[string]*report.SandboxInfo{"the agent": r.Sandbox, "the judge": r.Judge.Sandbox} {
		if sb == nil || !slices.Contains(sb.Hide, shared) {
			t.Errorf("%s's sandbox %+v; want %s hidden", who, sb, shared)
		}
	}
}

// TestSandboxHidesOtherTemps: under bubblewrap a sandboxed agent's TMPDIR
// is its own, in the workspaces' directory, and the other agents'
// (another attempt's, of this run or another, here one planted there) are
// hidden from it, workspace or none; the run leaves nothing of its own
// there.
func TestSandboxHidesOtherTemps(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	for _, ws := range []string{"", "workspace: {from: fixture}\n"} {
		t.Run(fmt.Sprintf("workspace=%t", ws != ""), func(t *testing.T) {
			t.Parallel()
			wsDir := t.TempDir()
			shared := filepath.Join(wsDir, "acprun-workspaces-"+strconv.Itoa(os.Getuid()))
			other := filepath.Join(shared, "acprun-tmp-other")
			if err := os.MkdirAll(other, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(other, "key"), []byte("S3CR3T-VALUE\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			rep := runScenarios(t, Options{Environ: sandboxEnviron(t), WorkspaceDir: wsDir},
				"name: temps\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+ws+"sandbox: {}\npermissions: {default: allow}\nturns: [{prompt: hi}]\n",
				map[string]string{
					"agent.mock.yaml": `turns: [{steps: [{spawn: "echo mine > $TMPDIR/f && cat $TMPDIR/f && echo tmp=$TMPDIR && cat ` + other + `/key 2>&1 | tr A-Z a-z"}]}]` + "\n",
					"fixture/README":  "fixture\n",
				})
			r := rep.Scenarios[0]
			text := r.Turns[0].Text
			tmp, _, _ := strings.Cut(strings.TrimSpace(text[strings.Index(text, "tmp=")+len("tmp="):]), "\n")
			if !strings.Contains(text, ": mine\n") || filepath.Dir(tmp) != shared || strings.Contains(text, "s3cr3t") || !strings.Contains(text, "no such file or directory") {
				t.Errorf("status %s %q: the agent said %q; want its TMPDIR written, in %s, and the other agent's unread", r.Status, r.Error, text, shared)
			}
			if r.Sandbox == nil || !slices.Contains(r.Sandbox.Hide, shared) {
				t.Errorf("sandbox %+v; want %s hidden", r.Sandbox, shared)
			}
			if left, _ := os.ReadDir(shared); len(left) != 1 || left[0].Name() != "acprun-tmp-other" {
				t.Errorf("the workspaces' directory holds %v after the run; want only what was planted", left)
			}
		})
	}
}

// needBwrap skips the test on a host where bubblewrap cannot make a
// sandbox, or fails it there with ACPRUN_BWRAP_REQUIRED=1 (CI).
func needBwrap(t *testing.T) {
	t.Helper()
	if h := sandbox.Detect(os.Environ()); h.Bwrap == "" {
		if os.Getenv("ACPRUN_BWRAP_REQUIRED") == "1" {
			t.Fatal(h.NoBwrap)
		}
		t.Skip(h.NoBwrap)
	}
}
