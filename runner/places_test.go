package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestCheckPlaces: an attempt does not run when a path of its scenario
// that acprun resolves then (here its session cwd, in a directory an
// earlier agent could write, and a sandbox write path missing when the
// run started) leads elsewhere than when the run started, through a
// symlink put in its way since; a path left as it was, or made a
// directory in its place, passes.
func TestCheckPlaces(t *testing.T) {
	t.Parallel()
	suite, home := realDir(t), realDir(t)
	sub := filepath.Join(suite, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pos := scenario.Pos{File: "sub/b.yaml", Line: 1, Col: 1}
	sc := &scenario.Scenario{Pos: pos, Agent: scenario.Agent{Cwd: sub}, Client: scenario.Client{Roots: []string{sub}}}
	cache, out := filepath.Join(suite, "cache"), filepath.Join(suite, "out")
	sbox := &scenario.Scenario{Pos: pos, Agent: scenario.Agent{Cwd: suite},
		Sandbox: &scenario.Sandbox{Pos: pos, Write: []string{cache, out}, WritePos: []scenario.Pos{{File: "a.yaml", Line: 3, Col: 18}, {File: "a.yaml", Line: 3, Col: 25}}}}
	opts := &Options{Environ: []string{"HOME=" + home, EnvTestNoPasswd + "=1"}}
	opts.places = pinPlaces([]*scenario.Scenario{sc, sbox}, opts.Environ)
	check := func(sc *scenario.Scenario) error {
		return (&scenarioRun{opts: opts, sc: sc}).checkPlaces("the attempt does not run")
	}
	if err := check(sc); err != nil {
		t.Fatalf("nothing changed: %v", err)
	}
	if err := os.Mkdir(cache, 0o755); err != nil { // missing, then made
		t.Fatal(err)
	}
	if err := check(sbox); err != nil {
		t.Fatalf("a write path made a directory: %v", err)
	}
	if err := os.Symlink(home, out); err != nil { // missing, then a link
		t.Fatal(err)
	}
	want := "a.yaml:3:25: sandbox write path " + out + " led to " + out + " when the run started and leads to " + home + " now: a symbolic link was put in its way since"
	if err := check(sbox); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a write path made a link: %v; want %s…", err, want)
	}
	if err := os.Rename(sub, sub+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, sub); err != nil {
		t.Fatal(err)
	}
	want = "sub/b.yaml:1:1: agent.cwd " + sub + " led to " + sub + " when the run started and leads to " + home + " now: " +
		"a symbolic link was put in its way since, which acprun does not follow (an agent of this run may have put it there); the attempt does not run"
	if err := check(sc); err == nil || err.Error() != want {
		t.Errorf("the cwd replaced by a link: %v; want %s", err, want)
	}
	if err := (&scenarioRun{opts: &Options{}, sc: sc}).checkPlaces("the attempt does not run"); err != nil {
		t.Errorf("outside Run: %v; want nothing checked", err)
	}
}

// realDir is a new test directory with its symlinks resolved.
func realDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPlacesCheckedAfterSetup: a place checked when the attempt started is
// checked again right before its agent starts, after a setup that may run
// long while another agent of the run writes: a sandbox write path that
// became a link to elsewhere meanwhile (here by the setup itself, in the
// test's stead) keeps the agent from starting, and it writes nothing there.
func TestPlacesCheckedAfterSetup(t *testing.T) {
	t.Parallel()
	seams := landlockOnly(t, 3)
	outside := realDir(t)
	rep := runScenarios(t, Options{Environ: sandboxEnviron(t, seams...)},
		"name: swapped\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"setup: [\"rm -r cache && ln -s "+outside+" cache\"]\n"+
			"sandbox: {write: [./cache]}\nturns: [{prompt: hi}]\n",
		map[string]string{
			"agent.mock.yaml": "turns: [{steps: [{writeFile: {path: cache/planted, content: x}}]}]\n",
			"cache/.keep":     "",
		})
	r := rep.Scenarios[0]
	dir := filepath.Dir(r.File)
	cache := filepath.Join(dir, "cache")
	want := r.File + ":4:19: sandbox write path " + cache + " led to " + cache + " when the run started and leads to " + outside + " now: " +
		"a symbolic link was put in its way since, which acprun does not follow (an agent of this run may have put it there); its agent does not start"
	if r.Status != report.StatusError || r.Error != want || r.Agent.InfoName != "" || len(r.Setup) != 1 {
		t.Errorf("status %s, error %q, agent %q, setup %d; want an error before the agent started:\n%s", r.Status, r.Error, r.Agent.InfoName, len(r.Setup), want)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the agent wrote through the link: %v", err)
	}
}

// TestSandboxPlanChecksPlaces: the sandbox planned as the agent starts
// checks its write paths against where they led when the run started, as
// checkPlaces does before: a link put in the way in between (by an agent
// running at the same time) keeps the agent from starting.
func TestSandboxPlanChecksPlaces(t *testing.T) {
	t.Parallel()
	seams := landlockOnly(t, 3)
	dir, home, tmp := realDir(t), realDir(t), realDir(t)
	cache := filepath.Join(dir, "cache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	pos := scenario.Pos{File: "s.yaml", Line: 4, Col: 10}
	sc := &scenario.Scenario{Pos: pos, Agent: scenario.Agent{Cwd: dir},
		Sandbox: &scenario.Sandbox{Pos: pos, Write: []string{cache}, Network: true, Level: scenario.SandboxRequired}}
	opts := &Options{Environ: append([]string{"HOME=" + home, EnvTestNoPasswd + "=1"}, seams...)}
	opts.places = pinPlaces([]*scenario.Scenario{sc}, opts.Environ)
	r := &scenarioRun{opts: opts, sc: sc}
	if err := r.checkSandbox(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.sandboxed([]string{"/bin/true"}, dir, tmp); err != nil {
		t.Fatalf("nothing changed: %v", err)
	}
	if err := os.Rename(cache, cache+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, cache); err != nil {
		t.Fatal(err)
	}
	want := "s.yaml:4:10: sandbox write path " + cache + " led to " + cache + " when the run started and leads to " + home + " now"
	if _, _, err := r.sandboxed([]string{"/bin/true"}, dir, tmp); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("after the swap: %v; want %s…", err, want)
	}
}
