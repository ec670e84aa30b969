package e2e_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// sandboxHost is this host as Detect finds it with the built binary as
// the Landlock helper; without bubblewrap when noBwrap. The test is
// skipped when the host lacks Landlock ABI 4 (or bubblewrap), and fails
// instead under ACPRUN_LANDLOCK_REQUIRED=1 (ACPRUN_BWRAP_REQUIRED=1).
func sandboxHost(t *testing.T, noBwrap bool) sandbox.Host {
	t.Helper()
	h := sandbox.Detect(os.Environ())
	if h.LandlockABI < 4 {
		msg := "Landlock ABI " + strconv.Itoa(h.LandlockABI) + " " + h.LandlockNote + ": the test needs 4"
		if os.Getenv("ACPRUN_LANDLOCK_REQUIRED") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	h.Self = acprunBin
	if noBwrap {
		h.Bwrap = ""
		h.NoBwrap = "left out by the test"
	} else if h.Bwrap == "" {
		if os.Getenv("ACPRUN_BWRAP_REQUIRED") == "1" {
			t.Fatal(h.NoBwrap)
		}
		t.Skip(h.NoBwrap)
	}
	return h
}

// TestSandboxHelper: the built binary's hidden __sandbox-exec entry
// restricts the command it execs and everything that command starts, alone
// and inside bubblewrap.
func TestSandboxHelper(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash (for /dev/tcp) not found")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		name    string
		noBwrap bool
		backend string
		denied  string
	}{
		{"landlock", true, "landlock", "Permission denied"},
		{"bubblewrap+landlock", false, "bubblewrap+landlock", "Read-only file system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := realTempDir(t)
			work, tmp, outside := filepath.Join(root, "work"), filepath.Join(root, "tmp"), filepath.Join(root, "outside")
			for _, d := range []string{work, tmp, outside} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// Ports 1 and the listener's: a connection to the listener
			// works; the same without its port in the list is denied.
			for _, ports := range [][]int{{1, port}, {1}} {
				a, err := sandbox.Plan(sandbox.Spec{Write: []string{work}, TempDir: tmp, Network: true, Ports: ports}, sandboxHost(t, tc.noBwrap))
				if err != nil {
					t.Fatal(err)
				}
				if a.Backend != tc.backend {
					t.Fatalf("backend %s", a.Backend)
				}
				script := `echo in > "$WORK/in"; echo tmp > "$TMPDIR/tmp"; ` +
					`echo out > "$OUTSIDE/out"; bash -c 'echo out > "$OUTSIDE/grandchild"'; ` +
					`if exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(port) + `; then echo connected; fi`
				argv, env, files, err := a.Wrap([]string{"bash", "-c", script}, append(os.Environ(), "WORK="+work, "OUTSIDE="+outside))
				if err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env, cmd.ExtraFiles = env, files
				out, _ := cmd.CombinedOutput()
				for _, f := range files {
					f.Close()
				}
				if got := strings.Count(string(out), "/outside/out: "+tc.denied) + strings.Count(string(out), "/outside/grandchild: "+tc.denied); got != 2 {
					t.Errorf("ports %v: %d writes denied, want 2:\n%s", ports, got, out)
				}
				if connected := strings.Contains(string(out), "connected"); connected != (len(ports) == 2) {
					t.Errorf("ports %v: connected %v:\n%s", ports, connected, out)
				}
				for _, f := range []string{filepath.Join(work, "in"), filepath.Join(tmp, "tmp")} {
					if _, err := os.Stat(f); err != nil {
						t.Errorf("ports %v: %v\n%s", ports, err, out)
					}
				}
				for _, f := range []string{"out", "grandchild"} {
					if _, err := os.Stat(filepath.Join(outside, f)); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("ports %v: %s written outside (%v)", ports, f, err)
					}
				}
			}
		})
	}
}

// needSandbox skips the test when this host lacks Landlock ABI 4 (or,
// with bwrap, bubblewrap), and fails it instead under
// ACPRUN_LANDLOCK_REQUIRED=1 (ACPRUN_BWRAP_REQUIRED=1). It returns the
// environment that makes acprun see the host as the test wants it:
// without bubblewrap unless bwrap, HOME in home (and the passwd
// database's home left out: the credentials hidden are home's).
func needSandbox(t *testing.T, bwrap bool, home string) []string {
	t.Helper()
	sandboxHost(t, !bwrap)
	env := []string{"HOME=" + home, runner.EnvTestNoPasswd + "=1"}
	if !bwrap {
		env = append(env, sandbox.EnvTestNoBwrap+"=1")
	}
	return env
}

// runSandboxed runs `acprun run ARGS -o out.json` in dir with env added,
// and reads the results.
func runSandboxed(t *testing.T, dir string, env []string, args ...string) (result, report.Results) {
	t.Helper()
	res := acprunEnv(t, dir, env, append(append([]string{"run"}, args...), "-o", "out.json")...)
	path := filepath.Join(dir, "out.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("acprun run %v: exit %d and no results (%v)\nstderr:\n%s", args, res.code, err, res.stderr)
	}
	return res, readResults(t, path)
}

// absent fails the test when path exists.
func absent(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %s exists (%v)", what, path, err)
	}
}

// TestSandboxContainsTheAgent: with sandbox, the agent's own writes
// outside its write paths fail and leave nothing, from the agent, from a
// child it spawns and from a terminal acprun runs for it; writes in the
// session cwd and TMPDIR work; hidden paths (the scenario's and the
// default ~/.ssh) cannot be read; the results record what was applied.
// Under bubblewrap, and under Landlock alone (which cannot hide).
func TestSandboxContainsTheAgent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		backend string
		bwrap   bool
		denied  string // how the system says a write outside failed
	}{
		{"bubblewrap+landlock", true, "read-only file system"},
		{"landlock", false, "permission denied"},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			dir, outside, home, secret := realTempDir(t), realTempDir(t), realTempDir(t), realTempDir(t)
			env := needSandbox(t, tc.bwrap, home)
			hide, reads := "", ""
			if tc.bwrap {
				writeFiles(t, home, map[string]string{".ssh/id_ed25519": "private key"})
				writeFiles(t, secret, map[string]string{"token": "s3cret"})
				hide = "hide: [" + secret + "], "
				reads = "      - readFile: " + secret + "/token\n      - readFile: ~/.ssh/id_ed25519\n"
				reads = strings.ReplaceAll(reads, "~", home)
			}
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": `turns:
  - steps:
      - writeFile: {path: in.txt, content: in}
      - writeFile: {path: ` + outside + `/agent, content: out}
      - spawn: "echo out > ` + outside + `/child"
      - spawn: "echo tmp > $TMPDIR/t && cat $TMPDIR/t"
      - terminal: {command: "echo out > ` + outside + `/terminal", waitForExit: true, output: true}
` + reads,
				"s.yaml": "name: contained\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n" +
					"permissions: {default: allow}\nsandbox: {" + hide + "network: on}\nturns: [{prompt: hi}]\n",
			})
			res, out := runSandboxed(t, dir, env, "s.yaml")
			if res.code != exitOK {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			sc := out.Scenarios[0]
			text := sc.Turns[0].Text
			for _, want := range []string{
				"writeFile: ok",
				"writeFile: error: open " + outside + "/agent: " + tc.denied,
				outside + "/child: ",
				"spawn: exit 0: tmp",
				outside + "/terminal: ",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("the agent said %q, want %q in it", text, want)
				}
			}
			if tc.bwrap && (!strings.Contains(text, "readFile: error: open "+secret+"/token: no such file or directory") ||
				!strings.Contains(text, "readFile: error: open "+home+"/.ssh/id_ed25519: no such file or directory") ||
				strings.Contains(text, "s3cret") || strings.Contains(text, "private key")) {
				t.Errorf("the agent read hidden paths: %q", text)
			}
			for _, name := range []string{"agent", "child", "terminal"} {
				absent(t, filepath.Join(outside, name), "written outside by the "+name)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "in.txt")); err != nil || string(b) != "in" {
				t.Errorf("written in the cwd: %q, %v", b, err)
			}
			sb := sc.Sandbox
			if sb == nil {
				t.Fatal("no sandbox in the results")
			}
			if sb.Backend != tc.backend || sb.Network != "on" || sb.Level != "required" || !slices.Contains(sb.Write, dir) || len(sb.Write) != 2 {
				t.Errorf("recorded %+v; want %s, network on, required, writing in %s and its TMPDIR", sb, tc.backend, dir)
			}
			for _, w := range sb.Write {
				if w != dir {
					absent(t, w, "the sandbox's TMPDIR after the run")
				}
			}
			// And the workspaces' directory, where the other agents'
			// TMPDIRs are, but for its own.
			shared := "acprun-workspaces-" + strconv.Itoa(os.Getuid())
			if hidden := slices.Sorted(slices.Values(sb.Hide)); tc.bwrap && (len(hidden) != 3 || !slices.Contains(hidden, home+"/.ssh") || !slices.Contains(hidden, secret) ||
				!slices.ContainsFunc(hidden, func(p string) bool { return filepath.Base(p) == shared })) {
				t.Errorf("hidden %q, want %s, %s/.ssh and the workspaces' directory %s", sb.Hide, secret, home, shared)
			}
		})
	}
}

// TestSandboxNetwork: a TCP connection to a loopback listener fails under
// network off and works under network on; with ports, only to those.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr, port := l.Addr().String(), strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	for _, bwrap := range []bool{true, false} {
		t.Run("bwrap="+strconv.FormatBool(bwrap), func(t *testing.T) {
			dir := realTempDir(t)
			env := needSandbox(t, bwrap, realTempDir(t))
			var src string
			for _, sb := range []string{"{network: off}", "{network: on}", "{ports: [" + port + "]}", "{ports: [1]}"} {
				src += "---\nname: '" + sb + "'\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nsandbox: " + sb + "\nturns: [{prompt: hi}]\n"
			}
			writeFiles(t, dir, map[string]string{"agent.mock.yaml": "turns: [{steps: [{connect: " + addr + "}]}]\n", "s.yaml": src})
			res, out := runSandboxed(t, dir, env, "s.yaml")
			if res.code != exitOK {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			for i, want := range []bool{false, true, true, false} {
				sc := out.Scenarios[i]
				text := sc.Turns[0].Text
				if ok := text == "connect: ok"; ok != want || !ok && !strings.HasPrefix(text, "connect: error: ") {
					t.Errorf("%s: the agent said %q, want success %v", sc.Name, text, want)
				}
				if wantNet := map[bool]string{false: "off", true: "on"}[i > 0]; sc.Sandbox == nil || sc.Sandbox.Network != wantNet {
					t.Errorf("%s: recorded %+v, want network %s", sc.Name, sc.Sandbox, wantNet)
				}
			}
		})
	}
}

// TestSandboxNetworkOffListens: the explorer's case. With the network
// off nothing outside connects in: under Landlock alone the agent cannot
// listen on a TCP port (a bound one), on any address; under bubblewrap it
// listens in the sandbox's own network namespace, which nothing outside
// reaches. With the network on it listens as usual.
func TestSandboxNetworkOffListens(t *testing.T) {
	t.Parallel()
	for _, bwrap := range []bool{true, false} {
		t.Run("bwrap="+strconv.FormatBool(bwrap), func(t *testing.T) {
			dir := realTempDir(t)
			env := needSandbox(t, bwrap, realTempDir(t))
			var src string
			for _, sb := range []string{"{network: off}", "{network: on}", "{ports: [443]}"} {
				src += "---\nname: '" + sb + "'\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nsandbox: " + sb + "\nturns: [{prompt: hi}]\n"
			}
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": "turns: [{steps: [{listen: '0.0.0.0:0'}, {listen: '127.0.0.1:0'}, {listen: '[::]:0'}]}]\n",
				"s.yaml":          src,
			})
			res, out := runSandboxed(t, dir, env, "s.yaml")
			if res.code != exitOK {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			for i, sc := range out.Scenarios {
				text := sc.Turns[0].Text
				refused := !bwrap && i == 0
				if n := strings.Count(text, "listen: ok"); refused && n > 0 || !refused && n != 3 {
					t.Errorf("%s: the agent said %q; want its listening refused %v", sc.Name, text, refused)
				}
				if refused && strings.Count(text, "bind: permission denied") != 3 {
					t.Errorf("%s: the agent said %q; want each bind denied", sc.Name, text)
				}
			}
		})
	}
}

// TestSandboxLevels: on a host lacking what the sandbox needs (the test
// seams lower the Landlock ABI and hide bubblewrap), level required ends
// the scenario with exit 3 before its agent starts, naming what is
// missing; best-effort runs it with what the host can do, and warns.
func TestSandboxLevels(t *testing.T) {
	t.Parallel()
	real := sandboxHost(t, true)
	dir, hidden := realTempDir(t), realTempDir(t)
	// The agent is a shell that marks its start, then the mock agent.
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"agent.sh":        "touch \"$STARTED\"\nexec " + acprunBin + " mock-agent agent.mock.yaml\n",
	})
	started := filepath.Join(dir, "started")
	env := []string{"HOME=" + realTempDir(t), runner.EnvTestNoPasswd + "=1", "STARTED=" + started, sandbox.EnvTestNoBwrap + "=1", sandbox.EnvTestLandlockABI + "=3"}
	lowered := "Landlock ABI 4 (Linux 6.7; this host has ABI 3: lowered from " + strconv.Itoa(real.LandlockABI) + " by ACPRUN_TEST_LANDLOCK_ABI=3)"
	for _, tc := range []struct {
		name, sandbox string
		missing       string
	}{
		{"network off", "{network: off}", "network off needs bubblewrap (ACPRUN_TEST_NO_BWRAP=1), or " + lowered},
		{"ports", "{ports: [443]}", "allowed ports needs " + lowered},
		{"hide", "{hide: [" + hidden + "]}", "hiding paths (" + hidden + ") needs bubblewrap (ACPRUN_TEST_NO_BWRAP=1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFiles(t, dir, map[string]string{
				"s.yaml": "name: required\nagent: {command: [sh, agent.sh]}\nsandbox: " + tc.sandbox + "\nturns: [{prompt: hi}]\n",
			})
			res, out := runSandboxed(t, dir, env, "s.yaml")
			sc := out.Scenarios[0]
			if res.code != exitAgent || sc.Status != report.StatusError || !sc.StartFailed {
				t.Errorf("exit %d, status %s, startFailed %v; want 3, error, true\n%s", res.code, sc.Status, sc.StartFailed, res.stderr)
			}
			want := "s.yaml:3:10: this host cannot enforce the sandbox: " + tc.missing
			if !strings.Contains(sc.Error, want) || !strings.Contains(res.stderr, want) {
				t.Errorf("error %q, want it (and stderr) to say %q\nstderr:\n%s", sc.Error, want, res.stderr)
			}
			absent(t, started, "the agent started")

			writeFiles(t, dir, map[string]string{
				"s.yaml": "name: best-effort\nagent: {command: [sh, agent.sh]}\n" +
					"sandbox: {level: best-effort, " + strings.Trim(tc.sandbox, "{}") + "}\nturns: [{prompt: hi}]\n",
			})
			res, out = runSandboxed(t, dir, env, "s.yaml")
			sc = out.Scenarios[0]
			if res.code != exitOK || sc.Status != report.StatusPassed {
				t.Fatalf("best-effort: exit %d, status %s: %s\n%s", res.code, sc.Status, sc.Error, res.stderr)
			}
			warning := "s.yaml:3:10: sandbox (best-effort) not enforced: " + tc.missing
			if !slices.Contains(sc.Warnings, warning) || !strings.Contains(res.stderr, warning) {
				t.Errorf("warnings %q, want %q (on stderr too)\nstderr:\n%s", sc.Warnings, warning, res.stderr)
			}
			if sb := sc.Sandbox; sb == nil || sb.Backend != "landlock" || sb.Level != "best-effort" || sb.Network != "on" || len(sb.Hide) > 0 {
				t.Errorf("recorded %+v; want landlock (writes only), best-effort, network on, nothing hidden", sb)
			}
			if err := os.Remove(started); err != nil {
				t.Errorf("the agent did not start: %v", err)
			}
		})
	}
}

// TestSandboxSigtermGrace: acprun stops a sandboxed agent as any other:
// SIGTERM, then the agent's own time to exit (killGrace), then SIGKILL.
// Under bubblewrap the SIGTERM reaches the agent, not only bwrap, whose
// death would kill the agent at once. The agent here is a shell running
// the mock agent: on SIGTERM it takes its time, then writes down that it
// did.
func TestSandboxSigtermGrace(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "ignoreEOF: true\nagentCapabilities: {sessionCapabilities: {close: true}}\nturns: [{steps: [{text: hi}]}]\n",
		"agent.sh": "trap 'sleep 0.5; echo graceful > got; exit 0' TERM\n" +
			acprunBin + " mock-agent agent.mock.yaml\n",
		"s.yaml": "name: grace\nagent: {command: [sh, agent.sh]}\nkillGrace: 1m\npermissions: {default: deny}\nsandbox: {}\nturns: [{prompt: hi}]\n",
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != exitOK || sc.Sandbox == nil || sc.Sandbox.Backend != "bubblewrap+landlock" || sc.Agent.Stop != report.StopClean {
		t.Fatalf("exit %d, sandbox %+v, stop %q\n%s", res.code, sc.Sandbox, sc.Agent.Stop, res.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "got")); err != nil || string(b) != "graceful\n" {
		t.Errorf("the agent's SIGTERM trap wrote %q, %v: it did not get its grace", b, err)
	}
	if len(sc.Warnings) > 0 {
		t.Errorf("warnings %q", sc.Warnings)
	}
}

// TestSandboxValidate: validate reports bad sandbox values in scenarios and
// in the config's defaults at their positions, before anything runs.
func TestSandboxValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		files map[string]string
		want  []string
	}{
		{map[string]string{
			"s.yaml": "name: bad\nagent: {command: [a]}\nsandbox: {level: strict, ports: [70000], write: [\"~root/x\"]}\nturns: [{prompt: hi}]\n",
		}, []string{
			`s.yaml:3:18: unknown sandbox level "strict" (valid levels: required, best-effort)`,
			`s.yaml:3:34: expected a TCP port from 1 to 65535, got 70000`,
			`s.yaml:3:50: sandbox write path ~root/x: only ~ and ~/ stand for the home directory`,
		}},
		{map[string]string{
			"acprun.yaml": "defaults:\n  sandbox: {network: maybe}\n",
			"s.yaml":      "name: good\nagent: {command: [a]}\nturns: [{prompt: hi}]\n",
		}, []string{
			`acprun.yaml:2:22: expected network: on (connections allowed, to ports only when it lists some) or off (no connection), got "maybe"`,
		}},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, tc.files)
		res := acprun(t, dir, "validate", "s.yaml")
		if res.code != exitUsage {
			t.Errorf("exit %d, want %d\n%s", res.code, exitUsage, res.stderr)
		}
		for _, want := range tc.want {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
			}
		}
	}
}

// TestSandboxHiddenFromClient: a path the sandbox hides is hidden from
// the fs/* requests acprun serves from outside the sandbox as it is from
// the agent's own processes and its terminals: reading and writing it, also
// through a symlink the agent planted, is refused and recorded, and a files
// expectation does not read it through such a symlink.
func TestSandboxHiddenFromClient(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	const secret = "HIDDEN-SECRET-VALUE"
	writeFiles(t, dir, map[string]string{
		"ws/secrets/key": secret + "\n",
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: cat secrets/key, waitForExit: true, output: true}
      - spawn: "ln -s secrets/key out.txt"
      - read: {path: secrets/key}
      - read: {path: out.txt}
      - write: {path: secrets/key, content: pwned}
`,
		"s.yaml": "name: hidden\nagent: {command: [acprun, mock-agent, ../agent.mock.yaml], cwd: ./ws}\n" +
			"client: {fs: true, terminal: true}\npermissions: {default: allow}\nsandbox: {hide: [./ws/secrets]}\n" +
			"turns: [{prompt: hi, expect: {files: {contains: {out.txt: nothing}}}}]\n",
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	if res.code != exitFailed {
		t.Fatalf("exit %d; want 1 (the files expectation)\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	text, failures := sc.Turns[0].Text, strings.Join(sc.Turns[0].Failures, "\n")
	if !strings.Contains(text, "secrets/key: No such file or directory") {
		t.Errorf("the agent said %q; want its terminal's cat to find nothing", text)
	}
	if strings.Contains(text, secret) || strings.Contains(failures, secret) || strings.Contains(res.stdout+res.stderr, secret) {
		t.Errorf("the hidden file leaked: text %q, failures %q\nstdout:\n%s\nstderr:\n%s", text, failures, res.stdout, res.stderr)
	}
	if want := `files.contains: "out.txt" is a symlink to a path the sandbox hides`; !strings.Contains(failures, want) {
		t.Errorf("failures %q; want %q", failures, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "ws", "secrets", "key")); err != nil || string(b) != secret+"\n" {
		t.Errorf("ws/secrets/key = %q, %v; want it unchanged", b, err)
	}
	var refused []string
	for _, r := range sc.Turns[0].ClientRequests {
		if strings.HasPrefix(r.Method, "fs/") {
			refused = append(refused, r.Method+": "+r.Refused)
		}
	}
	hidden := " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)"
	want := []string{
		"fs/read_text_file: " + filepath.Join(dir, "ws", "secrets", "key") + hidden,
		"fs/read_text_file: " + filepath.Join(dir, "ws", "out.txt") + hidden,
		"fs/write_text_file: " + filepath.Join(dir, "ws", "secrets", "key") + hidden,
	}
	if !slices.Equal(refused, want) {
		t.Errorf("fs requests:\n%s\nwant:\n%s", strings.Join(refused, "\n"), strings.Join(want, "\n"))
	}
}

// TestSandboxHidesInTheWorkspaceCopy: with a workspace, a path the sandbox
// hides in its source is hidden in each attempt's copy too, where the
// agent works, from the agent's own processes and from the client alike;
// a write path in the source is the copy's.
func TestSandboxHidesInTheWorkspaceCopy(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	const secret = "HIDDEN-SECRET-VALUE"
	writeFiles(t, dir, map[string]string{
		"ws/secrets/key": secret + "\n",
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: cat secrets/key, waitForExit: true, output: true}
      - read: {path: secrets/key}
`,
		"s.yaml": "name: hidden\nagent: {command: [acprun, mock-agent, " + filepath.Join(dir, "agent.mock.yaml") + "]}\nworkspace: {from: ws}\n" +
			"client: {fs: true, terminal: true}\npermissions: {default: allow}\nsandbox: {hide: [./ws/secrets]}\n" +
			"turns: [{prompt: hi}]\n",
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d; want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if text := sc.Turns[0].Text; strings.Contains(text, secret) || !strings.Contains(text, "secrets/key: No such file or directory") {
		t.Errorf("the agent said %q; want its terminal's cat of the copy's secrets/key to find nothing", text)
	}
	var refused []string
	for _, r := range sc.Turns[0].ClientRequests {
		if r.Method == "fs/read_text_file" {
			refused = append(refused, r.Refused)
		}
	}
	if len(refused) != 1 || !strings.HasSuffix(refused[0], "is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)") {
		t.Errorf("fs/read_text_file of the copy's secrets/key: refused %q; want it hidden", refused)
	}
}

// TestSandboxWriteWarningAtItsEntry: a sandbox write path that does not
// exist is a warning at its entry of the write list, not at the sandbox
// or its write key; the host's lacks (none here: the test seams take
// bubblewrap and Landlock away) stay at the sandbox.
func TestSandboxWriteWarningAtItsEntry(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"exists/.keep":    "",
		"s.yaml": "name: w\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
			"sandbox:\n  level: best-effort\n  write:\n    - ./exists\n    - ./missing\nturns: [{prompt: hi}]\n",
	})
	env := []string{"HOME=" + realTempDir(t), runner.EnvTestNoPasswd + "=1", sandbox.EnvTestNoBwrap + "=1", sandbox.EnvTestLandlockABI + "=0"}
	res, out := runSandboxed(t, dir, env, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != exitOK {
		t.Fatalf("exit %d: %s\n%s", res.code, sc.Error, res.stderr)
	}
	want := "s.yaml:8:7: sandbox write path " + filepath.Join(dir, "missing") + " does not exist: nothing can be written there (create it before the run)"
	if !slices.Contains(sc.Warnings, want) || !strings.Contains(res.stderr, want) {
		t.Errorf("warnings %q, want %q (on stderr too)\nstderr:\n%s", sc.Warnings, want, res.stderr)
	}
	for _, w := range sc.Warnings {
		if strings.Contains(w, "not enforced") && !strings.HasPrefix(w, "s.yaml:5:3: ") {
			t.Errorf("warning %q, want it at the sandbox (s.yaml:5:3)", w)
		}
	}
}

// TestSandboxHidesTheUsersHome: the tester's case. An agent given a HOME
// of its own by agent.env does not read the credentials of the user
// running acprun (its HOME): they stay hidden, by absolute path, and the
// agent's home's are hidden as well. The results record both.
func TestSandboxHidesTheUsersHome(t *testing.T) {
	t.Parallel()
	dir, home, agentHome := realTempDir(t), realTempDir(t), realTempDir(t)
	env := needSandbox(t, true, home)
	writeFiles(t, home, map[string]string{".ssh/id_rsa": "PRIVATE-KEY-DATA\n", ".aws/credentials": "[default] aws_secret\n"})
	writeFiles(t, agentHome, map[string]string{".ssh/id_rsa": "AGENT-KEY-DATA\n"})
	writeFiles(t, dir, map[string]string{
		"proj/f.txt": "x\n",
		"home.mock.yaml": "turns:\n  - steps:\n      - readFile: " + home + "/.ssh/id_rsa\n      - readFile: " + home + "/.aws/credentials\n" +
			"      - readFile: " + agentHome + "/.ssh/id_rsa\n",
		"home.yaml": "name: home\nagent: {command: [acprun, mock-agent, " + filepath.Join(dir, "home.mock.yaml") + "], env: {HOME: " + agentHome + "}}\n" +
			"workspace: {from: proj}\nsandbox: {}\npermissions: {default: deny}\nturns:\n  - prompt: read the real home's key\n",
	})
	res, out := runSandboxed(t, dir, env, "home.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	text := sc.Turns[0].Text
	for _, leak := range []string{"PRIVATE-KEY-DATA", "aws_secret", "AGENT-KEY-DATA"} {
		if strings.Contains(text, leak) {
			t.Errorf("the agent read %s: %q", leak, text)
		}
	}
	if n := strings.Count(text, "readFile: error: "); n != 3 {
		t.Errorf("the agent said %q; want its 3 reads to fail", text)
	}
	// agent.env's values are redacted in the results: the agent's home too.
	if sb := sc.Sandbox; sb == nil || !slices.Contains(sb.Hide, home+"/.ssh") || !slices.Contains(sb.Hide, home+"/.aws") || !slices.Contains(sb.Hide, "[REDACTED]/.ssh") {
		t.Errorf("recorded %+v; want %s/.ssh, %[2]s/.aws and the agent's home's .ssh hidden", sb, home)
	}
}

// TestSandboxPathsThroughALink: the tester's case. With a workspace,
// sandbox.hide, sandbox.write and client.roots paths that reach the
// workspace's source through a symlink are moved into the attempt's copy,
// as when named directly: the copy's hidden file stays hidden, and
// neither the sandbox nor the client lets the agent write in the source.
func TestSandboxPathsThroughALink(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	const secret = "TOPSECRET1"
	doc := "---\nname: %s\nagent: {command: [acprun, mock-agent, %s]}\nworkspace: {from: proj}\n%s\npermissions: {default: allow}\nturns: [{prompt: go}]\n"
	writeFiles(t, dir, map[string]string{
		"proj/secrets/key": secret + "\n",
		"proj/sub/.keep":   "",
		"proj/out/.keep":   "",
		"hide.mock.yaml":   "turns:\n  - steps:\n      - readFile: secrets/key\n      - read: {path: secrets/key}\n",
		"write.mock.yaml":  "turns:\n  - steps:\n      - writeFile: {path: " + dir + "/proj/out/escaped.txt, content: x}\n      - writeFile: {path: out/in.txt, content: x}\n",
		"roots.mock.yaml":  "turns:\n  - steps:\n      - write: {path: " + dir + "/proj/sub/escaped.txt, content: x}\n      - write: {path: sub/in.txt, content: x}\n",
		"s.yaml": fmt.Sprintf(doc, "hide", filepath.Join(dir, "hide.mock.yaml"), "sandbox: {hide: [./plink/secrets]}\nclient: {fs: true}") +
			fmt.Sprintf(doc, "write", filepath.Join(dir, "write.mock.yaml"), "sandbox: {write: [./plink/out]}") +
			fmt.Sprintf(doc, "roots", filepath.Join(dir, "roots.mock.yaml"), "client: {fs: true, roots: [./plink/sub]}\nsandbox: {}"),
	})
	if err := os.Symlink("proj", filepath.Join(dir, "plink")); err != nil {
		t.Fatal(err)
	}
	res, out := runSandboxed(t, dir, env, "s.yaml", "--keep-workspaces")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	byName := map[string]report.Result{}
	for _, sc := range out.Scenarios {
		byName[sc.Name] = sc
	}
	hide := byName["hide"]
	if text := hide.Turns[0].Text; strings.Contains(text, secret) || strings.Count(text, "error") < 2 {
		t.Errorf("hide: the agent said %q; want both reads of the copy's secrets/key refused", text)
	}
	if ws := workspaceOf(t, hide); hide.Sandbox == nil || !slices.Contains(hide.Sandbox.Hide, filepath.Join(ws.Path, "secrets")) {
		t.Errorf("hide: recorded %+v; want the copy's secrets hidden", hide.Sandbox)
	}
	write := byName["write"]
	if ws := workspaceOf(t, write); write.Sandbox == nil || !slices.Contains(write.Sandbox.Write, filepath.Join(ws.Path, "out")) || slices.Contains(write.Sandbox.Write, filepath.Join(dir, "proj", "out")) {
		t.Errorf("write: recorded %+v; want the copy's out writable, not the source's", write.Sandbox)
	}
	if text := write.Turns[0].Text; !strings.Contains(text, "escaped.txt: read-only file system") || !strings.Contains(text, "writeFile: ok") {
		t.Errorf("write: the agent said %q; want the write in the source refused, the one in the copy done", text)
	}
	roots := byName["roots"]
	if text := roots.Turns[0].Text; !strings.Contains(text, "is outside the allowed roots") || !strings.Contains(text, "write: ok") {
		t.Errorf("roots: the agent said %q; want the write in the source refused, the one in the copy done", text)
	}
	for _, f := range []string{"proj/out/escaped.txt", "proj/sub/escaped.txt", "proj/out/in.txt", "proj/sub/in.txt"} {
		absent(t, filepath.Join(dir, f), "written in the source")
	}
}

// TestSandboxHideMissing: the tester's case. A sandbox.hide path that does
// not exist (a typo) is a warning at its entry, as a write path's is; the
// dry run marks it as hiding nothing.
func TestSandboxHideMissing(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	writeFiles(t, dir, map[string]string{
		"proj/secrets/key": "k\n",
		"fe.mock.yaml":     "turns: [{steps: [{text: hi}]}]\n",
		"mh.yaml": "name: mh\nagent: {command: [acprun, mock-agent, " + filepath.Join(dir, "fe.mock.yaml") + "]}\nworkspace: {from: proj}\n" +
			"sandbox:\n  hide: [./proj/secret, ./proj/.env]\n  write: [./nope-dir]\npermissions: {default: allow}\nturns:\n  - prompt: go\n",
	})
	res, out := runSandboxed(t, dir, env, "mh.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	want := []string{
		"mh.yaml:6:11: sandbox write path " + filepath.Join(dir, "nope-dir") + " does not exist: nothing can be written there (create it before the run)",
		"mh.yaml:5:10: sandbox hide path " + filepath.Join(dir, "proj", "secret") + " does not exist: nothing is hidden there (check it for a typo)",
		"mh.yaml:5:25: sandbox hide path " + filepath.Join(dir, "proj", ".env") + " does not exist: nothing is hidden there (check it for a typo)",
	}
	var got []string
	for _, w := range out.Scenarios[0].Warnings {
		if strings.Contains(w, "does not exist") {
			got = append(got, w)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	for _, w := range want {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, res.stderr)
		}
	}
	dry := acprunEnv(t, dir, env, "run", "--dry-run", "mh.yaml")
	wantHide := "    hide  " + filepath.Join(dir, "proj", "secret") + " (does not exist: nothing is hidden there), " +
		filepath.Join(dir, "proj", ".env") + " (does not exist: nothing is hidden there)\n"
	if dry.code != exitOK || !strings.Contains(dry.stdout+dry.stderr, wantHide) {
		t.Errorf("dry run: exit %d, want %q in:\n%s%s", dry.code, wantHide, dry.stdout, dry.stderr)
	}
}

// TestSandboxPlantedCwd: a suite's scenario in a subdirectory of another's
// gets its own cwd by default; the first, sandboxed, may write its own
// cwd, and so replace the second's with a symlink to your home. The
// second attempt does not run: its sandbox would have let its agent write
// where the link leads (it resolves its write paths, the cwd first, when
// it starts), and its agent, client and verify would have worked there.
func TestSandboxPlantedCwd(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, bwrap bool) {
		dir, home := realTempDir(t), realTempDir(t)
		env := needSandbox(t, bwrap, home)
		victim := plantVictim(t, home)
		scenario := "name: %s\nagent: {command: [acprun, mock-agent, %s]}\nsandbox: {}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
		writeFiles(t, dir, map[string]string{
			"suite/a.mock.yaml": "turns:\n  - steps:\n      - spawn: \"mv sub sub.moved && ln -s " + home + " sub\"\n      - text: ok\n",
			"b.mock.yaml":       "turns:\n  - steps:\n      - writeFile: {path: .bashrc, content: \"pwned\\n\"}\n      - text: ok\n",
			"suite/a.yaml":      fmt.Sprintf(scenario, "a", "a.mock.yaml"),
			"suite/sub/b.yaml":  fmt.Sprintf(scenario, "b", filepath.Join(dir, "b.mock.yaml")),
		})
		res, out := runSandboxed(t, dir, env, "suite/", "-j", "1")
		if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
			t.Errorf("b's sandboxed agent wrote where the planted link leads: %q", data)
		}
		if res.code != exitFailed || out.Scenarios[0].Turns[0].Text != "spawn: exit 0: ok" {
			t.Fatalf("exit %d, a's turn %q (want the link planted and b not run)\n%s", res.code, out.Scenarios[0].Turns[0].Text, res.stderr)
		}
		sub := filepath.Join(dir, "suite", "sub")
		want := "suite/sub/b.yaml:1:1: agent.cwd " + sub + " led to " + sub + " when the run started and leads to " + home + " now: " +
			"a symbolic link was put in its way since, which acprun does not follow (an agent of this run may have put it there); the attempt does not run"
		if b := out.Scenarios[1]; b.Status != report.StatusError || b.Error != want {
			t.Errorf("b: %s, %q; want an error %q", b.Status, b.Error, want)
		}
	})
}

// TestSandboxPlantedDuringSetup: as TestSandboxPlantedCwd, but a's agent
// plants the link while b's setup runs, after b's attempt has started
// (-j 2; fifos order the two). b's places are checked again right before
// its agent starts: b's agent does not start.
func TestSandboxPlantedDuringSetup(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, bwrap bool) {
		dir, home := realTempDir(t), realTempDir(t)
		env := needSandbox(t, bwrap, home)
		victim := plantVictim(t, home)
		suite := filepath.Join(dir, "suite")
		started, planted := filepath.Join(suite, "started.fifo"), filepath.Join(suite, "planted.fifo")
		scenario := "name: %s\nagent: {command: [acprun, mock-agent, %s]}\nsandbox: {}\npermissions: {default: deny}\n%sturns: [{prompt: hi}]\n"
		// Each end of a FIFO waits for the other at most a minute: a
		// scenario that fails early leaves the other to fail, not hang.
		setup := "setup: [\"timeout 60 sh -c 'echo started > " + started + "' && timeout 60 cat " + planted + "\"]\n"
		writeFiles(t, dir, map[string]string{
			"suite/a.mock.yaml": "turns:\n  - steps:\n      - spawn: \"timeout 60 cat started.fifo && mv sub sub.moved && ln -s " + home + " sub && timeout 60 sh -c 'echo planted > planted.fifo'\"\n",
			"b.mock.yaml":       "turns:\n  - steps:\n      - writeFile: {path: .bashrc, content: \"pwned\\n\"}\n",
			"suite/a.yaml":      fmt.Sprintf(scenario, "a", "a.mock.yaml", ""),
			"suite/sub/b.yaml":  fmt.Sprintf(scenario, "b", filepath.Join(dir, "b.mock.yaml"), setup),
		})
		for _, f := range []string{started, planted} {
			if err := syscall.Mkfifo(f, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, out := runSandboxed(t, dir, env, "suite/", "-j", "2")
		if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
			t.Errorf("b's sandboxed agent wrote where the planted link leads: %q", data)
		}
		if res.code != exitFailed || out.Scenarios[0].Turns[0].Text != "spawn: exit 0: started" {
			t.Fatalf("exit %d, a's turn %q (want the link planted and b's agent not started)\n%s", res.code, out.Scenarios[0].Turns[0].Text, res.stderr)
		}
		sub := filepath.Join(suite, "sub")
		want := "suite/sub/b.yaml:1:1: agent.cwd " + sub + " led to " + sub + " when the run started and leads to " + home + " now: " +
			"a symbolic link was put in its way since, which acprun does not follow (an agent of this run may have put it there); its agent does not start"
		if b := out.Scenarios[1]; b.Status != report.StatusError || b.Error != want || len(b.Setup) != 1 || b.Agent.InfoName != "" {
			t.Errorf("b: %s, %q, setup %d, agent %q; want an error %q after its setup, before its agent", b.Status, b.Error, len(b.Setup), b.Agent.InfoName, want)
		}
	})
}

// eachBackend runs f as a subtest under bubblewrap and under Landlock
// alone.
func eachBackend(t *testing.T, f func(t *testing.T, bwrap bool)) {
	for _, bwrap := range []bool{true, false} {
		t.Run(map[bool]string{true: "bubblewrap", false: "landlock"}[bwrap], func(t *testing.T) { f(t, bwrap) })
	}
}

// plantVictim writes home/.bashrc, which a planted link would let an
// agent overwrite, and returns its path.
func plantVictim(t *testing.T, home string) string {
	t.Helper()
	writeFiles(t, home, map[string]string{".bashrc": "precious\n"})
	return filepath.Join(home, ".bashrc")
}

// TestSandboxHoldsTheJudge: a judge of a sandboxed scenario runs in its
// sandbox, the workspace read-only: a script the agent planted in the copy,
// run by the judge (as a judge agent runs the hooks of project settings it
// finds in its cwd), writes neither outside nor in the copy, and the
// hidden paths stay hidden from it. The results record the judge's
// sandbox.
func TestSandboxHoldsTheJudge(t *testing.T) {
	t.Parallel()
	dir, outside, home := realTempDir(t), realTempDir(t), realTempDir(t)
	env := needSandbox(t, true, home)
	writeFiles(t, home, map[string]string{".ssh/id_ed25519": "PRIVATE-KEY-VALUE"})
	writeFiles(t, dir, map[string]string{
		"ws/README": "fixture\n",
		"agent.mock.yaml": `turns:
  - steps:
      - writeFile: {path: check.sh, content: "echo pwned > ` + outside + `/planted; echo pwned > README; cat ~/.ssh/id_ed25519\n"}
`,
		"judge.mock.yaml": `turns:
  - steps:
      - text: "PASS\n"
      - spawn: "sh check.sh"
      - spawn: "echo tmp > $TMPDIR/t && cat $TMPDIR/t"
`,
		"s.yaml": "name: judged\nagent: {command: [acprun, mock-agent, " + filepath.Join(dir, "agent.mock.yaml") + "]}\n" +
			"workspace: {from: ws}\nsandbox: {write: [" + outside + "]}\nturns: [{prompt: hi}]\n" +
			"expect: {judge: {agent: {command: [acprun, mock-agent, " + filepath.Join(dir, "judge.mock.yaml") + "]}, rubric: r}}\n",
	})
	res, out := runSandboxed(t, dir, env, "s.yaml", "--keep-workspaces")
	if res.code != exitOK {
		t.Fatalf("exit %d; want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	j := sc.Judge
	if j == nil || !j.Passed {
		t.Fatalf("judge %+v; want one that passed", j)
	}
	for _, want := range []string{
		outside + "/planted: Read-only file system",
		"README: Read-only file system",
		"id_ed25519: No such file or directory",
		"spawn: exit 0: tmp",
	} {
		if !strings.Contains(j.Text, want) {
			t.Errorf("the judge said %q, want %q in it", j.Text, want)
		}
	}
	if strings.Contains(j.Text, "PRIVATE-KEY-VALUE") {
		t.Errorf("the judge read ~/.ssh: %q", j.Text)
	}
	absent(t, filepath.Join(outside, "planted"), "written outside by the planted script")
	if b, err := os.ReadFile(filepath.Join(sc.Workspace.Path, "README")); err != nil || string(b) != "fixture\n" {
		t.Errorf("README in the copy = %q, %v; want it as the fixture has it", b, err)
	}
	sb := j.Sandbox
	if sb == nil || sb.Backend != "bubblewrap+landlock" || len(sb.Write) != 1 || slices.Contains(sb.Write, sc.Workspace.Path) ||
		!slices.Contains(sb.Hide, home+"/.ssh") {
		t.Errorf("the judge's sandbox %+v; want bubblewrap+landlock writing only in its TMPDIR and hiding %s/.ssh", sb, home)
	}
}

// TestSandboxVerify: with sandbox.verify the verify commands run in the
// agent's sandbox: a script the agent planted in the copy, run by verify,
// writes neither outside nor in your home, and cannot read what is hidden;
// --dry-run and the results say so.
func TestSandboxVerify(t *testing.T) {
	t.Parallel()
	dir, outside, home := realTempDir(t), realTempDir(t), realTempDir(t)
	env := needSandbox(t, true, home)
	victim := plantVictim(t, home)
	writeFiles(t, home, map[string]string{".ssh/id_ed25519": "PRIVATE-KEY-VALUE"})
	writeFiles(t, dir, map[string]string{
		"ws/README": "fixture\n",
		"agent.mock.yaml": `turns:
  - steps:
      - writeFile: {path: check.sh, content: "echo pwned > ` + outside + `/planted; echo pwned > ` + victim + `; cat ` + home + `/.ssh/id_ed25519; echo in > in.txt\n"}
`,
		"s.yaml": "name: verified\nagent: {command: [acprun, mock-agent, " + filepath.Join(dir, "agent.mock.yaml") + "]}\n" +
			"workspace: {from: ws}\nsandbox: {verify: true}\nturns: [{prompt: hi}]\nverify: [sh check.sh]\n",
	})
	plan := acprunEnv(t, dir, env, "run", "s.yaml", "--dry-run")
	if want := "  verify:   sh check.sh (timeout 10m0s, in the sandbox)\n"; plan.code != exitOK || !strings.Contains(plan.stdout, want) {
		t.Errorf("--dry-run: exit %d, want %q in:\n%s", plan.code, want, plan.stdout)
	}
	res, out := runSandboxed(t, dir, env, "s.yaml", "--keep-workspaces")
	if res.code != exitOK { // the script's last line, a write in the copy, works
		t.Fatalf("exit %d; want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if len(sc.Verify) != 1 || !sc.Verify[0].Sandboxed {
		t.Fatalf("verify %+v; want one command, run in the sandbox", sc.Verify)
	}
	v := sc.Verify[0]
	for _, want := range []string{outside + "/planted: Read-only file system", victim + ": Read-only file system", "id_ed25519: No such file or directory"} {
		if !strings.Contains(v.Stderr, want) {
			t.Errorf("verify's stderr %q; want %q in it", v.Stderr, want)
		}
	}
	if strings.Contains(v.Stdout+v.Stderr, "PRIVATE-KEY-VALUE") {
		t.Errorf("verify read ~/.ssh: %q", v.Stdout)
	}
	absent(t, filepath.Join(outside, "planted"), "written outside by the planted script")
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("the planted script wrote %s: %q", victim, data)
	}
	if b, err := os.ReadFile(filepath.Join(sc.Workspace.Path, "in.txt")); err != nil || string(b) != "in\n" {
		t.Errorf("in.txt in the copy = %q, %v; want verify's write there to work", b, err)
	}
}

// TestSandboxHidesOtherWorkspaces: the tester's case. A path hidden in the
// workspace source is hidden in every copy, from every agent: an
// attempt's agent does not read it in another attempt's copy, kept by a
// failing attempt of the same run or of an earlier run; it sees no other
// workspace at all, only its own copy.
func TestSandboxHidesOtherWorkspaces(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	const secret = "supersecret-12345"
	ws := filepath.Join(dir, "ws")
	writeFiles(t, dir, map[string]string{
		"fixture/.env":    "API_TOKEN=" + secret + "\n",
		"fixture/main.go": "code\n",
		// Every file under the workspaces' directory it can read, and
		// what the directory holds.
		"x.mock.yaml": "turns:\n  - steps:\n      - spawn: 'echo \"me=$PWD\"; grep -rs " + secret + " " + ws + " || echo found-nothing; " +
			"ls -a " + ws + "/* | tr \"\\n\" \" \"'\n",
		"s.yaml": `name: cross
agent: {command: [acprun, mock-agent, x.mock.yaml]}
workspace: {from: ./fixture}
sandbox: {hide: [./fixture/.env], network: off}
permissions: {default: deny}
turns:
  - prompt: go
    expect:
      text: {notContains: ["supersecret"]}
      files: {exists: [never-made.txt]}   # fails the attempt: its copy is kept
`,
	})
	for run := range 2 { // the second run meets the first's kept copies
		res, out := runSandboxed(t, dir, env, "s.yaml", "--repeat", "2", "-j", "1", "--workspace-dir", "ws")
		if res.code != 1 || len(out.Scenarios) != 2 {
			t.Fatalf("run %d: exit %d, %d results; want 1, 2\n%s", run, res.code, len(out.Scenarios), res.stderr)
		}
		for _, sc := range out.Scenarios {
			text := sc.Turns[0].Text
			if strings.Contains(text, secret) || !strings.Contains(text, "found-nothing") {
				t.Errorf("run %d attempt %d: the agent said %q; want the hidden .env of no copy read", run, sc.Attempt, text)
			}
			if w := workspaceOf(t, sc); !w.Kept || !strings.Contains(text, "me="+w.Path) {
				t.Errorf("run %d attempt %d: the agent said %q in %+v", run, sc.Attempt, text, w)
			}
		}
	}
	// The kept copies still hold it, for setup, verify and the user.
	n := 0
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == ".env" {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				n++
			}
		}
		return nil
	})
	if n != 4 {
		t.Errorf("%d kept copies hold .env, want 4", n)
	}
}

// TestSandboxJudgeSeesNoOtherWorkspace: the explorer's case. A sandboxed
// scenario's judges (the turn's and the scenario's) see no workspace but
// the copy they judge, as the agent does: the copy an earlier run kept,
// which holds the path the sandbox hides, cannot be read from them, and
// the results record the workspaces' directory hidden from them too.
func TestSandboxJudgeSeesNoOtherWorkspace(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	const secret = "S3CR3T-VALUE"
	ws := filepath.Join(dir, "ws")
	// Every copy's secret/key, and the README of its own copy: in
	// lower case, so that the secret said is told from the secret read.
	read := `{spawn: "cat README; cat ` + ws + `/*/*/secret/key 2>&1 | tr A-Z a-z"}`
	writeFiles(t, dir, map[string]string{
		"src/README":      "fixture\n",
		"src/secret/key":  secret + "\n",
		"agent.mock.yaml": "turns: [{steps: [" + read + "]}]\n",
		"judge.mock.yaml": "turns: [{steps: [{text: \"PASS\\n\"}, " + read + "]}]\n",
		"s.yaml": `name: judged
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: ./src}
sandbox: {hide: [./src/secret]}
permissions: {default: allow}
turns:
  - prompt: go
    expect:
      judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: anything}
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: anything}
`,
	})
	for run := range 2 { // the second run meets the first's kept copy
		res, out := runSandboxed(t, dir, env, "s.yaml", "--keep-workspaces", "--workspace-dir", "ws")
		if res.code != exitOK || len(out.Scenarios) != 1 {
			t.Fatalf("run %d: exit %d, %d results; want 0, 1\n%s", run, res.code, len(out.Scenarios), res.stderr)
		}
		sc := out.Scenarios[0]
		shared := filepath.Dir(workspaceOf(t, sc).Path)
		for who, j := range map[string]*report.JudgeResult{"the turn's judge": sc.Turns[0].Judge, "the judge": sc.Judge} {
			if j == nil || !j.Passed {
				t.Fatalf("run %d: %s %+v; want one that passed", run, who, j)
			}
			if !strings.Contains(j.Text, "fixture") || strings.Contains(strings.ToLower(j.Text), "s3cr3t") ||
				!strings.Contains(j.Text, "no such file or directory") {
				t.Errorf("run %d: %s said %q; want the copy it judges read, and no secret/key of any copy", run, who, j.Text)
			}
			if j.Sandbox == nil || !slices.Contains(j.Sandbox.Hide, shared) {
				t.Errorf("run %d: %s's sandbox %+v; want %s hidden", run, who, j.Sandbox, shared)
			}
		}
		if text := sc.Turns[0].Text; strings.Contains(text, "s3cr3t") || !strings.Contains(text, "fixture") {
			t.Errorf("run %d: the agent said %q", run, text)
		}
	}
}

// TestSandboxHidesTheBaseline: the tester's case. A path hidden in a git
// workspace that setup wrote is not readable from acprun's own git
// directory beside the copy, where the baseline of the diff is: the
// agent's sandbox hides it (a clone's git directory, there too, stays
// readable with git), and the baseline leaves the hidden path out.
func TestSandboxHidesTheBaseline(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	const secret = "supersecret-12345"
	writeFiles(t, dir, map[string]string{
		"repo/README": "hi\n",
		"leak.mock.yaml": `turns:
  - steps:
      - readFile: .env
      - spawn: 'git --git-dir="$PWD.git/git" log --oneline | wc -l; for o in $(find "$PWD.git" "$PWD/.." -type f -path "*/objects/??/*" 2>/dev/null); do h=$(echo $o | sed "s#.*/objects/\(..\)/#\1#"); git --git-dir="$(echo $o | sed "s#/objects/.*##")" cat-file -p $h 2>&1; done'
`,
		"s.yaml": `---
name: worktree
agent: {command: [acprun, mock-agent, leak.mock.yaml]}
workspace: {git: ./repo}
setup: ['echo "API_TOKEN=supersecret-12345" > .env']
sandbox: {hide: [./repo/.env], network: off}
permissions: {default: deny}
turns:
  - prompt: go
    expect:
      text: {notContains: ["supersecret"]}
---
name: clone
agent: {command: [acprun, mock-agent, leak.mock.yaml]}
workspace: {git: ./bare.git}
setup: ['echo "API_TOKEN=supersecret-12345" > .env']
sandbox: {hide: [./bare.git/.env], network: off}
permissions: {default: deny}
turns:
  - prompt: go
    expect:
      text: {notContains: ["supersecret"]}
`,
	})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n"}, args...)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	git("-C", "repo", "init", "-q")
	git("-C", "repo", "add", "README")
	git("-C", "repo", "commit", "-qm", "init")
	git("clone", "-q", "--bare", "repo", "bare.git")
	res, out := runSandboxed(t, dir, env, "s.yaml", "--keep-workspaces")
	if res.code != exitOK {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for _, sc := range out.Scenarios {
		if len(sc.Turns) == 0 {
			t.Fatalf("%s: %s %s", sc.Name, sc.Status, sc.Error)
		}
		text := sc.Turns[0].Text
		if strings.Contains(text, secret) || !strings.Contains(text, "readFile: error") {
			t.Errorf("%s: the agent said %q; want .env hidden, in the copy and in acprun's git directory", sc.Name, text)
		}
		if sc.Name == "clone" && !strings.Contains(text, "spawn: exit 0: 1\n") {
			t.Errorf("clone: the agent said %q; want its clone's git directory readable (git log: 1 commit)", text)
		}
		if w := workspaceOf(t, sc); strings.Contains(w.Diff, ".env") {
			t.Errorf("%s: the diff shows the hidden .env:\n%s", sc.Name, w.Diff)
		}
	}
}

// TestSandboxHidesOtherAgentsTemps: the explorer's case. Under bubblewrap
// an agent's TMPDIR (where Claude Code keeps its tools' output) is its
// own: another agent's, of this run or another (here one planted in the
// workspaces' directory, where acprun makes them all), is hidden from it,
// a pooled agent's (reuse: true) too, with a workspace or without.
func TestSandboxHidesOtherAgentsTemps(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	shared := filepath.Join(dir, "ws", "acprun-workspaces-"+strconv.Itoa(os.Getuid()))
	other := filepath.Join(shared, "acprun-tmp-planted")
	const secret = "private-b-data"
	writeFiles(t, dir, map[string]string{
		"x.mock.yaml": "turns:\n  - steps:\n      - spawn: 'echo mine > $TMPDIR/f && cat $TMPDIR/f; cat " + other + "/b-secret.txt 2>&1'\n",
		"fixture/a":   "a\n",
		"s.yaml": `name: plain
agent: {command: [acprun, mock-agent, x.mock.yaml]}
sandbox: {}
permissions: {default: deny}
turns: [{prompt: go}]
---
name: pooled
agent: {command: [acprun, mock-agent, x.mock.yaml], reuse: true}
workspace: {from: ./fixture}
sandbox: {}
permissions: {default: deny}
turns: [{prompt: go}]
`,
	})
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "b-secret.txt"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, out := runSandboxed(t, dir, env, "s.yaml", "--workspace-dir", "ws")
	if res.code != 0 || len(out.Scenarios) != 2 {
		t.Fatalf("exit %d, %d results; want 0, 2\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	for _, sc := range out.Scenarios {
		if text := sc.Turns[0].Text; !strings.Contains(text, "mine") || strings.Contains(text, secret) || !strings.Contains(text, "No such file") {
			t.Errorf("%s: the agent said %q; want its own TMPDIR written and the planted one unread", sc.Name, text)
		}
	}
}
