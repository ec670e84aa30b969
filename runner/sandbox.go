package runner

import (
	"context"
	"fmt"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// This file puts a scenario's agent side in its OS sandbox (the sandbox
// key): the agent process, everything it starts, and the terminals acprun
// runs for it; the judges too (judgeSandbox), and the verify commands with
// sandbox.verify (verifySandbox); never setup or teardown. The sandbox is
// the agent process's: planned when the process starts, with a temporary
// directory of its own (TMPDIR): the scenario's, removed at its end, or,
// for a pooled process, one in the pool's directory. Scenarios whose
// sandboxes differ never share a process (the spec is part of the pool
// key).

// checkSandbox builds the scenario's sandbox spec (r.sbox) and checks,
// before anything of the scenario runs, that this host can enforce it: a
// host that cannot enforce a required sandbox ends the scenario before
// setup, as an error naming what it lacks. Planning again when the agent
// starts (startSandboxed) applies it.
func (r *scenarioRun) checkSandbox() error {
	wsDir := ""
	if r.ws != nil {
		wsDir = r.ws.Dir
	}
	r.sbox = sandboxSpec(r.sc, r.opts.Environ, wsDir)
	if r.sbox == nil {
		return nil
	}
	if len(userHomes(r.sc, r.opts.Environ)) == 0 {
		passwd := "acprun's user has none in the passwd database"
		if getenvIn(r.opts.Environ)(EnvTestNoPasswd) == "1" {
			passwd = "the passwd database is not read: " + EnvTestNoPasswd + "=1"
		}
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%s: sandbox: no home directory is known (HOME is unset, and %s): "+
			"%s are hidden nowhere; list the credentials to hide in sandbox.hide", r.sc.Sandbox.Pos, passwd, strings.Join(scenario.SandboxHide([]string{"~"}), ", ")))
	}
	// The agent sees no workspace but its own: the others (of this run
	// and of others, kept or in use, made before its agent starts or
	// after) hold copies of the paths its sandbox hides in the source, and
	// acprun's own git directory beside its copy holds the baseline of the
	// diff. A judge sees no workspace but the one it judges (as
	// Options.conceal has it).
	r.sbox.Conceal, r.sbox.Reveal = slices.Clone(r.opts.conceal), slices.Clone(r.opts.reveal)
	if r.ws != nil {
		r.sbox.Conceal, r.sbox.Reveal = []string{r.ws.Shared}, r.ws.Own()
	}
	if r.opts.judging != "" { // a judge reads its cwd, and writes nothing there
		r.sbox.Write = slices.DeleteFunc(r.sbox.Write, func(p string) bool { return p == r.sc.Agent.Cwd })
	}
	if r.gw != nil { // the gateway's port stays reachable with the network off
		r.sbox.Loopback = []sandbox.Relay{{Port: r.opts.gateway.Port(), Socket: r.opts.gateway.Socket()}}
	}
	r.sbox.Pinned = r.opts.places // what an agent of the run may have changed since
	_, err := r.planSandbox("")
	return err
}

// sandboxSpec is the spec of sc's sandbox, nil for none: what it lists,
// with the defaults added (the session cwd, the workspace wsDir unless "",
// the named agent's state; the hidden credentials), under environ with
// agent.env on top. Run and DryRun's plan alike use it.
func sandboxSpec(sc *scenario.Scenario, environ []string, wsDir string) *sandbox.Spec {
	sb := sc.Sandbox
	if sb == nil {
		return nil
	}
	getenv := agentGetenv(sc, environ)
	write := []string{sc.Agent.Cwd}
	if wsDir != "" {
		write = append(write, wsDir)
	}
	write = append(write, scenario.SandboxWrite(sc.Agent, getenv)...)
	return &sandbox.Spec{
		Write:   append(write, sb.Write...),
		Hide:    sandboxHide(sc, environ),
		Network: sb.Network,
		Ports:   slices.Clone(sb.Ports),
		Level:   sandbox.Level(sb.Level),
		TempEnv: scenario.SandboxTempEnv(sc.Agent),
	}
}

// agentGetenv looks variables up in environ with sc's agent.env on top,
// the last one of a name winning, as in exec.
func agentGetenv(sc *scenario.Scenario, environ []string) func(string) string {
	return getenvIn(mergeEnv(environ, sc.Agent.Env))
}

// getenvIn looks variables up in env, the last one of a name winning.
func getenvIn(env []string) func(string) string {
	return func(name string) string {
		v := ""
		for _, kv := range env {
			if val, ok := strings.CutPrefix(kv, name+"="); ok {
				v = val
			}
		}
		return v
	}
}

// sandboxHide lists the paths sc's sandbox hides (nil without one): the
// default hidden paths under each of userHomes, then what sandbox.hide
// lists. The sandbox hides them from the agent's processes, and the
// client's jail refuses them to its fs/* and terminal/* requests and to
// the files expectations, which acprun serves from outside the sandbox.
func sandboxHide(sc *scenario.Scenario, environ []string) []string {
	if sc.Sandbox == nil {
		return nil
	}
	return append(scenario.SandboxHide(userHomes(sc, environ)), sc.Sandbox.Hide...)
}

// EnvTestNoPasswd, set to 1 in acprun's environment, keeps acprun from
// looking its user's home up in the passwd database (see userHomes): a
// test seam, so that a test that gives acprun a HOME of its own sees no
// credentials of the real user's, or none at all without HOME.
const EnvTestNoPasswd = "ACPRUN_TEST_NO_PASSWD"

// userHomes lists the home directories whose credentials a sandbox hides:
// those of the user running acprun, as acprun's HOME (in environ) and the
// passwd database give them, whatever HOME agent.env gives the agent, and
// the agent's HOME too when it is another. None when none is known.
func userHomes(sc *scenario.Scenario, environ []string) []string {
	var homes []string
	add := func(home string) {
		if home = filepath.Clean(home); filepath.IsAbs(home) && !slices.Contains(homes, home) {
			homes = append(homes, home)
		}
	}
	getenv := getenvIn(environ)
	add(getenv("HOME"))
	if u, err := user.Current(); err == nil && getenv(EnvTestNoPasswd) != "1" {
		add(u.HomeDir)
	}
	add(agentGetenv(sc, environ)("HOME"))
	return homes
}

// host is what this host can enforce, detected once per run (with
// Options.Self as acprun's own executable, and the test seams of
// Options.Environ).
func (o *Options) host() sandbox.Host {
	if o.sandboxHost == nil {
		_, environ := processDefaults("", o.Environ)
		return sandbox.Detect(environ)
	}
	return o.sandboxHost()
}

// detectHost returns Options.sandboxHost for a run: Detect(environ),
// once, with self as acprun's own executable.
func detectHost(self string, environ []string) func() sandbox.Host {
	return sync.OnceValue(func() sandbox.Host {
		h := sandbox.Detect(environ)
		if self != "" {
			h.Self = self
		}
		return h
	})
}

// sandboxed plans the sandbox of the scenario's agent process, whose
// temporary directory is tmp, and returns argv with its program resolved
// against dir, the process's working directory, and the PATH first (the
// sandbox's helper would look it up elsewhere), to start with the
// sandbox's Wrap.
func (r *scenarioRun) sandboxed(argv []string, dir, tmp string) ([]string, *sandbox.Applied, error) {
	a, err := r.planSandbox(tmp)
	if err != nil {
		return nil, nil, err
	}
	prog, err := LookPath(argv[0], dir)
	if err != nil {
		return nil, nil, fmt.Errorf("start %s: %v", argv[0], err)
	}
	return append([]string{prog}, argv[1:]...), &a, nil
}

// planSandbox plans the scenario's sandbox (r.sbox) with tmp as its
// temporary directory ("": none), on this host; an error is at the
// scenario's sandbox key.
func (r *scenarioRun) planSandbox(tmp string) (sandbox.Applied, error) {
	spec := *r.sbox
	spec.TempDir = tmp
	// Where the agent moved some of them (see followHidden).
	spec.Hide = slices.Concat(spec.Hide, r.movedHide)
	if shared := workspace.SharedOf(tmp); shared != "" { // none for no tmp
		// The other agents' temporary directories are beside it.
		spec.Conceal = append(slices.Clone(spec.Conceal), shared)
		spec.Reveal = append(slices.Clone(spec.Reveal), tmp)
	}
	a, err := sandbox.Plan(spec, r.opts.host())
	if err != nil {
		return a, fmt.Errorf("%s: %w", r.sc.Sandbox.Pos, err)
	}
	return a, nil
}

// sandboxTemp makes the private temporary directory of a sandboxed agent
// process in dir ("": the system's temporary directory): in the
// workspaces' shared directory there (workspace.MakePrivate), which the
// sandboxes hide (see planSandbox), so that no other agent reads it, of
// this run or another. workspace.RemovePrivate removes it.
func sandboxTemp(dir string) (string, error) {
	tmp, err := workspace.MakePrivate(dir, "acprun-tmp")
	if err != nil {
		return "", fmt.Errorf("sandbox temporary directory: %w", err)
	}
	return tmp, nil
}

// noteSandbox records in the scenario's results what the sandbox of the
// process that serves it applies, with its warnings, and has the
// scenario's terminals run in it.
func (r *scenarioRun) noteSandbox(a *sandbox.Applied) {
	if a == nil {
		return
	}
	r.sess.client.sandbox.Store(a) // the terminals created from now on run in it
	r.res.Sandbox = &report.SandboxInfo{Backend: a.Backend, Write: a.Write, Hide: a.Hide, Network: a.Network, Ports: a.Ports, Level: string(a.Level)}
	// An entry of sandbox.hide inside a workspace's source is hidden in
	// the source and in the copy, and missing only when missing from both
	// (setup may make it in the copy): then it is warned about once.
	missing := map[int]bool{}
	for _, w := range a.Warnings {
		if w.Hide >= 0 {
			missing[w.Hide] = true
		}
	}
	hideTold := map[scenario.Pos]bool{}
	var hide []string
	if r.sbox != nil {
		hide = r.sbox.Hide
	}
	for i := range hide {
		if pos, ok := r.sandboxWarningPos(sandbox.Warning{Write: -1, Hide: i}); ok && !missing[i] {
			hideTold[pos] = true // there, it exists
		}
	}
	for _, w := range a.Warnings {
		pos, ok := r.sandboxWarningPos(w)
		if !ok || w.Hide >= 0 && hideTold[pos] {
			continue
		}
		if w.Hide >= 0 {
			hideTold[pos] = true
		}
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%s: %s", pos, w.Msg))
	}
}

// sandboxWarningPos is where the sandbox warning w is reported: at the
// entry of sandbox.write or sandbox.hide that it is about, else at the
// sandbox. ok is false for a warning not to report: that a default hidden
// path does not exist (~/.docker need not). The scenario's own paths come
// last in the spec (see sandboxSpec), and its hidden paths mapped into a
// workspace copy after them, at the same entries (see makeWorkspace).
func (r *scenarioRun) sandboxWarningPos(w sandbox.Warning) (pos scenario.Pos, ok bool) {
	sb := r.sc.Sandbox
	switch {
	case r.sbox == nil:
	case w.Write >= 0:
		if i := w.Write - (len(r.sbox.Write) - len(sb.Write)); i >= 0 && i < len(sb.WritePos) {
			return sb.WritePos[i], true
		}
	case w.Hide >= 0:
		i := w.Hide - (len(r.sbox.Hide) - len(sb.Hide))
		if i < 0 {
			return pos, false
		}
		if i < len(sb.HidePos) {
			return sb.HidePos[i], true
		}
	}
	return sb.Pos, true
}

// removeSandboxTemp removes the scenario's own sandbox temporary
// directory, once everything of its agent has stopped.
func (r *scenarioRun) removeSandboxTemp() {
	if r.sboxTemp != "" {
		if err := workspace.RemovePrivate(r.sboxTemp); err != nil {
			r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("sandbox temporary directory: %v", err))
		}
	}
}

// verifySandbox is the sandbox the verify commands run in with
// sandbox.verify: the agent's (r.sbox: its write and hidden paths, its
// network, and where the agent moved its hidden paths: followHidden, whose
// walk ctx stops), with a temporary directory of its own, which done
// removes. Nil (and a done that does nothing) without sandbox.verify.
func (r *scenarioRun) verifySandbox(ctx context.Context) (sb *sandbox.Applied, done func(), err error) {
	if r.sbox == nil || !r.sc.Sandbox.Verify {
		return nil, func() {}, nil
	}
	if err := r.followHidden(ctx); err != nil {
		return nil, nil, err
	}
	tmp, err := sandboxTemp(r.opts.WorkspaceDir)
	if err != nil {
		return nil, nil, err
	}
	done = func() { _ = workspace.RemovePrivate(tmp) }
	a, err := r.planSandbox(tmp)
	if err != nil || a.Backend == "none" { // best-effort on a host that can do nothing
		done()
		return nil, func() {}, err
	}
	return &a, done, nil
}

// followHidden adds to the paths the sandbox hides (r.hidden, and
// r.movedHide, which planSandbox and the judges' sandboxes add) where the
// agent moved those of its workspace (workspace.HiddenMoved): the
// sandboxes planned after it ran (a judge's, a verify command's) and the
// files expectations hide them there too. It returns why they could not
// be found; the caller then runs nothing that could read them.
func (r *scenarioRun) followHidden(ctx context.Context) error {
	if r.ws == nil || r.sbox == nil {
		return nil
	}
	moved, err := r.ws.HiddenMoved(ctx)
	if err != nil {
		return err
	}
	for _, p := range moved {
		if !slices.Contains(r.movedHide, p) {
			r.movedHide = append(r.movedHide, p)
			r.hidden = append(slices.Clone(r.hidden), p)
		}
	}
	return nil
}
