package e2e_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
)

// The end of an attempt: what the agent changed and left running, and the
// checks of verify, whatever the way its session ended.

// TestChangesListedWhenTheSessionDoesNotOpen: an agent that wrote files
// while it answered session/new, which then failed (a model it does not
// offer), has its changes listed and its protected files checked, as after
// a last turn: the protected file it overwrote makes the attempt invalid.
// Changes that cannot be listed (the agent removed its workspace) are
// null in the results, not an empty list.
func TestChangesListedWhenTheSessionDoesNotOpen(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"proj/a.txt": "hi\n",
		"pre.mock.yaml": `models: {currentModelId: small, availableModels: [{modelId: small, name: Small}]}
updatesBeforeSessionNew:
  - spawn: "echo pwned > a.txt; touch created.txt"
turns:
  - steps: [{text: done}]
`,
		"gone.mock.yaml": `updatesBeforeSessionNew:
  - spawn: 'rm -rf "$PWD"'
  - exit: 3
turns:
  - steps: [{text: done}]
`,
		"s.yaml": `name: pre
agent: {command: [acprun, mock-agent, pre.mock.yaml], model: big}
workspace: {from: proj, protect: [a.txt]}
permissions: {default: deny}
turns:
  - prompt: hi
---
name: gone
agent: {command: [acprun, mock-agent, gone.mock.yaml]}
workspace: {from: proj}
permissions: {default: deny}
turns:
  - prompt: hi
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != exitAgent {
		t.Errorf("exit %d, want %d (the sessions did not open)\n%s", res.code, exitAgent, res.stderr)
	}
	pre := scenarioNamed(t, out, "pre")
	w := workspaceOf(t, pre)
	if pre.Status != "invalid" || pre.Invalid == nil || !cmp.Equal([]string{"a.txt"}, pre.Invalid.Files) {
		t.Errorf("pre: status %s, invalid %+v (error %q); want invalid, the agent changed a.txt", pre.Status, pre.Invalid, pre.Error)
	}
	if !strings.Contains(pre.Error, `the agent does not offer model "big"`) {
		t.Errorf("pre: error %q, want the model's", pre.Error)
	}
	if diff := cmp.Diff([][]string{{"created.txt"}, {"a.txt"}, {}}, [][]string{w.Created, w.Modified, w.Deleted}); diff != "" {
		t.Errorf("pre: created, modified, deleted (-want +got):\n%s", diff)
	}
	assertFile(t, filepath.Join(w.Path, "a.txt"), "pwned\n")

	// The raw results: unknown lists are null, known empty ones [].
	var raw struct {
		Scenarios []struct {
			Name      string
			Workspace map[string]json.RawMessage
		}
	}
	readJSON(t, filepath.Join(dir, "out.json"), &raw)
	for _, sc := range raw.Scenarios {
		want := map[string]string{"pre": "[]", "gone": "null"}[sc.Name]
		if got := string(sc.Workspace["deleted"]); got != want {
			t.Errorf("%s: workspace.deleted = %s, want %s (error %s)", sc.Name, got, want, sc.Workspace["error"])
		}
	}
	if gone := scenarioNamed(t, out, "gone"); gone.Workspace == nil || gone.Workspace.Error == "" {
		t.Errorf("gone: workspace %+v, want an error saying why its changes are not known", gone.Workspace)
	}
}

// TestLeftoversKilledBeforeVerify: a process the agent left running
// outside its process group is killed once the agent is stopped, with a
// warning, before the workspace is listed and verified. Here it appends to
// log.txt without end: verify copies the file, then fails as soon as the
// file grows past the copy (the process still runs), and passes once the
// process is gone or a zombie; the change set lists the file, and the
// workspace kept holds it as verify saw it. What a verify command leaves
// running is killed too: nothing of the attempt outlives acprun.
func TestLeftoversKilledBeforeVerify(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	dir := realTempDir(t)
	ready, pidFile := filepath.Join(dir, "ready.fifo"), filepath.Join(dir, "daemon.pid")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	marker := "E2E_ATTEMPT_END=" + t.Name() + "-" + strconv.Itoa(os.Getpid())
	writeFiles(t, dir, map[string]string{
		"proj/a.txt": "hi\n",
		"bg.mock.yaml": `turns:
  - steps:
      - spawn: "(setsid sh -c 'echo $$ > ` + pidFile + `; echo x >> log.txt; echo > ` + ready + `; while :; do echo x >> log.txt; done' </dev/null >/dev/null 2>&1 &); read x < ` + ready + `"
      - text: done
`,
		"check.sh": `cp log.txt copy.txt
pid=$(cat ` + pidFile + `)
while :; do
  case "$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)" in ''|Z|X) exit 0 ;; esac
  cmp -s log.txt copy.txt || { echo "log.txt grew during verify"; exit 1; }
done
`,
		"s.yaml": `name: bg
agent:
  command: [acprun, mock-agent, bg.mock.yaml]
  env: {E2E_ATTEMPT_END: "` + strings.TrimPrefix(marker, "E2E_ATTEMPT_END=") + `"}
workspace: {from: proj}
verify:
  - sh ` + filepath.Join(dir, "check.sh") + `
  - (setsid sleep 1000 </dev/null >/dev/null 2>&1 &)
permissions: {default: deny}
turns:
  - prompt: hi
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws", "--keep-workspaces")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if live := testkit.Leftovers(t, testkit.WithEnv(marker)); len(live) > 0 {
		t.Errorf("left running after acprun exited: %v", live)
	}
	sc := scenarioNamed(t, out, "bg")
	w := workspaceOf(t, sc)
	if diff := cmp.Diff([]string{"log.txt"}, w.Created); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if want := "the agent left 1 process running outside its process group (daemonized, setsid); acprun killed them"; !strings.Contains(strings.Join(sc.Warnings, "\n"), want) {
		t.Errorf("warnings %q, want one saying %q", sc.Warnings, want)
	}
	files := readFiles(t, w.Path, "log.txt", "copy.txt")
	if len(files["log.txt"]) != len(files["copy.txt"]) {
		t.Errorf("log.txt has %d bytes, verify's copy %d: the agent's process wrote on after it was stopped", len(files["log.txt"]), len(files["copy.txt"]))
	}
}

// TestVerifyStdoutChecksSeeAllOfIt: a verify command's stdout contains and
// matches look at everything it printed, not only at the last 64 KiB the
// results keep: a text at its start is found and a pattern anchored there
// matches; what it never printed fails, and a pattern anchored at the
// start does not match at the cut, each at the check that failed.
func TestVerifyStdoutChecksSeeAllOfIt(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	const long = `echo MARKER-START; head -c 100000 /dev/zero | tr '\\0' a; echo`
	scenarios := `name: found
agent: {command: [acprun, mock-agent, n.mock.yaml]}
permissions: {default: deny}
verify:
  - run: "` + long + `"
    expect: {stdout: {contains: MARKER-START, matches: "^MARKER"}}
turns:
  - prompt: hi
---
name: absent
agent: {command: [acprun, mock-agent, n.mock.yaml]}
permissions: {default: deny}
verify:
  - run: "` + long + `"
    expect: {stdout: {contains: MARKER-END, matches: "^a"}}
turns:
  - prompt: hi
`
	writeFiles(t, dir, map[string]string{"n.mock.yaml": "turns:\n  - steps: [{text: done}]\n", "s.yaml": scenarios})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Errorf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	found := scenarioNamed(t, out, "found")
	if found.Status != "passed" {
		t.Errorf("found: %s %q, want passed", found.Status, found.Failures)
	}
	if len(found.Verify) != 1 || found.Verify[0].StdoutBytes != 100014 || !found.Verify[0].Truncated {
		t.Errorf("found: verify %+v, want 100014 bytes of stdout, its end kept", found.Verify)
	}
	absent := scenarioNamed(t, out, "absent")
	// Each at the check that failed, as every expectation's failure is.
	wants := []string{
		posAfter(t, "s.yaml", scenarios, "name: absent", "MARKER-END") + ": verify `" + strings.ReplaceAll(long, `\\`, `\`) + "`: stdout does not contain \"MARKER-END\"; output ends:\n",
		posAfter(t, "s.yaml", scenarios, "name: absent", `"^a"`) + ": verify `" + strings.ReplaceAll(long, `\\`, `\`) + "`: stdout does not match /^a/; output ends:\n",
	}
	if len(absent.Failures) != len(wants) {
		t.Fatalf("absent: failures %q, want %d", absent.Failures, len(wants))
	}
	for i, want := range wants {
		if !strings.HasPrefix(absent.Failures[i], want) {
			t.Errorf("absent: failure %d = %q, want it to begin %q", i, absent.Failures[i], want)
		}
	}
}
