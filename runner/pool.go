package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/gateway"
	process "github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/replay"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// This file is agent reuse (agent.reuse, run --reuse-agents): scenarios
// whose agents are started the same way share a pool of agent processes,
// each initialized once; every scenario still opens its own session and
// closes it at its end. It also keeps the run's count of agent processes
// within -j, pooled or not.

// pool holds the agent processes a run keeps between scenarios, and
// counts every agent process the run's scenarios start (judges aside):
// at most slots of them live at once, idle pooled ones included.
type pool struct {
	slots   int
	baseDir string // where the pool's directory is made ("": the temp dir)

	mu       sync.Mutex
	live     int               // processes holding a slot
	idle     []*proc           // kept for the next scenario, oldest first
	noReuse  map[string]string // keys whose agent cannot be reused, and why
	numbered map[string]int    // the processes named so far, by name
	tellers  map[string]Ref    // the try each note is told in (see pickTellers)
	dir      string            // the pool's directory (see workDir), once made
	guard    *reap.Guard       // the run's, given the pool's directory
}

func newPool(slots int, baseDir string, guard *reap.Guard) *pool {
	return &pool{slots: max(slots, 1), baseDir: baseDir, guard: guard, noReuse: map[string]string{}, numbered: map[string]int{}, tellers: map[string]Ref{}}
}

// workDir is the directory of the temporary directories of pooled
// processes (a sandbox's TMPDIR): made by acprun for them, not a
// scenario's, which goes at the scenario's end.
func (pl *pool) workDir() (string, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.dir != "" {
		return pl.dir, nil
	}
	// In the workspaces' shared directory, as a scenario's agent's is
	// (sandboxTemp): the sandboxes hide it.
	dir, err := workspace.MakePrivate(pl.baseDir, "acprun-agents")
	if err != nil {
		return "", fmt.Errorf("agent processes' directory: %w", err)
	}
	pl.dir = dir
	pl.guard.Remove(dir)
	return dir, nil
}

// name numbers a new pooled process of the agent called base: "claude#1".
func (pl *pool) name(base string) string {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.numbered[base]++
	return base + "#" + strconv.Itoa(pl.numbered[base])
}

// reserve takes a slot for a new agent process. When every slot is taken
// and some pooled process is idle, the oldest idle one is stopped to make
// room; abort cuts its stop short. Judges start their processes outside
// the count, and a process is never refused a slot: at most one per
// running scenario is busy, so an idle one is there to stop.
func (pl *pool) reserve(abort <-chan struct{}) {
	pl.mu.Lock()
	var evict *proc
	if pl.live >= pl.slots && len(pl.idle) > 0 {
		evict = pl.idle[0]
		pl.idle = pl.idle[1:]
	} else {
		pl.live++
	}
	pl.mu.Unlock()
	if evict != nil {
		evict.stopIdle(abort) // its slot passes to the new process
	}
}

// release gives back the slot of a process that stopped.
func (pl *pool) release() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.live--
}

// take returns an idle process of key for a scenario, nil when there is
// none. An idle process that exited, closed its output or misbehaved
// while idle is stopped instead (and its slot given back); why says what
// became of them. One that closed its output is waited for up to its
// killGrace, or until abort, as a running one is (Agent.exitsWithin), and
// said to have exited when it does.
func (pl *pool) take(key string, abort <-chan struct{}) (p *proc, why []string) {
	ctx, cancel := untilAbort(context.Background(), abort)
	defer cancel()
	for {
		pl.mu.Lock()
		i := slices.IndexFunc(pl.idle, func(p *proc) bool { return p.key == key })
		if i < 0 {
			pl.mu.Unlock()
			return nil, why
		}
		p = pl.idle[i]
		pl.idle = slices.Delete(pl.idle, i, i+1)
		pl.mu.Unlock()
		problem := p.bind.strayProblem()
		if isClosed(p.agent.Exited()) || p.agent.outputClosed() {
			problem = p.agent.endReason(ctx, p.killGrace) + " while idle"
		}
		if problem == "" {
			return p, why
		}
		why = append(why, fmt.Sprintf("agent process %s (pid %d) was not reused: %s", p.id, p.agent.Pid(), problem))
		p.stopIdle(abort)
		pl.release()
	}
}

// put keeps an idle process for the next scenario of its key.
func (pl *pool) put(p *proc) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.idle = append(pl.idle, p)
}

// notReusable records that the agent of key cannot be reused, and why.
func (pl *pool) notReusable(key, why string) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.noReuse[key] = why
}

// whyNotReusable says why the agent of key cannot be reused; "" when it
// can be, or is not known yet.
func (pl *pool) whyNotReusable(key string) string {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.noReuse[key]
}

// pickTellers picks, for each reason why a scenario that asks to reuse its
// agent runs its agent on a process of its own all the same (ownProcess),
// the try that says it, once in the run: the first try of the first such
// job in the run's order, the same every run whichever job starts first.
// Call it before the jobs run.
func (pl *pool) pickTellers(jobs []job, reuseAgents bool) {
	for _, j := range jobs {
		if !j.sc.Agent.Reuse && !reuseAgents {
			continue
		}
		if why := ownProcess(j.sc); why != "" {
			if _, ok := pl.tellers[why]; !ok {
				pl.tellers[why] = j.ref
			}
		}
	}
}

// tells reports whether note is told in the try ref (see pickTellers).
func (pl *pool) tells(note string, ref Ref) bool {
	t, ok := pl.tellers[note]
	return ok && t == ref
}

// close stops every idle process, all at once, and removes the pool's
// directory; abort cuts the stops short.
func (pl *pool) close(abort <-chan struct{}) {
	pl.mu.Lock()
	idle := pl.idle
	pl.idle = nil
	dir := pl.dir
	pl.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range idle {
		wg.Go(func() {
			p.stopIdle(abort)
			pl.release()
		})
	}
	wg.Wait()
	if dir != "" {
		_ = workspace.RemovePrivate(dir)
	}
}

// stopIdle stops a process no scenario is bound to, after the clean end
// of the last one it served: the end of its input, cleanEndWait, SIGTERM,
// its killGrace, SIGKILL; then what it left outside its process group.
// Nothing of it goes to any scenario's results.
func (p *proc) stopIdle(abort <-chan struct{}) {
	ctx, cancel := untilAbort(context.Background(), abort)
	defer cancel()
	p.agent.CloseAfter(ctx, cleanEndWait, p.killGrace, time.Time{})
	p.mark.Kill()
	p.closeRoutes()
}

// reuses reports whether the scenario asks to share its agent process.
func (r *scenarioRun) reuses() bool {
	return r.opts.procs != nil && (r.sc.Agent.Reuse || r.opts.ReuseAgents)
}

// Why a scenario that asks to reuse its agent runs on a process of its
// own all the same (see ownProcess).
const (
	ownReplay = "agent: {replay: …} plays the one session its transcript recorded: every scenario starts its own replay"
	ownFiles  = "a scenario whose verdict looks at what the agent left in the file system (a workspace, verify, expect.files or a judge) " +
		"runs its agent on a process of its own, stopped before that is looked at, as without reuse: a process kept running could change it meanwhile"
)

// ownProcess says why scenario sc, were it to ask to reuse its agent,
// runs it on a process of its own all the same, started and stopped as
// without reuse; "" when it may share one. A replay serves one session.
// And the workspace a scenario's verdict looks at after its agent's part
// (its change set, workspace.protect, verify, expect.files, the judge)
// must be the one the agent left: a pooled process goes on running, and
// what it does on its own after session/close (a background task) would
// land while it is looked at. So would a turn's own expect.files and
// judge: the last turn played, which may be any turn, is checked after
// the agent is stopped. Only scenarios whose verdict it cannot change
// share processes.
func ownProcess(sc *scenario.Scenario) string {
	if tr, _ := sc.Agent.ReplayTranscript(); tr != "" {
		return ownReplay
	}
	if sc.Workspace != nil || len(sc.Verify) > 0 || looksAtFiles(sc.Expect) ||
		slices.ContainsFunc(sc.Turns, func(t scenario.Turn) bool { return looksAtFiles(t.Expect) }) {
		return ownFiles
	}
	return ""
}

// looksAtFiles reports whether expectations e read the file system.
func looksAtFiles(e scenario.Expect) bool {
	return e.Files != nil || e.Judge != nil
}

// poolKey says which scenarios may share a process: those of the same
// agent (the same named agent, or none: an --agent matrix's agents never
// share one, nor is a process named after another agent) started with the
// same command (argv, as without reuse) in the same directory (the
// agent's cwd, which relative paths of the command are relative to) and
// with the same environment, in the same sandbox, are offered the same
// client capabilities and authenticate the same way.
func (r *scenarioRun) poolKey(argv []string) string {
	env := make([]string, 0, len(r.sc.Agent.Env))
	for k, v := range r.sc.Agent.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	key, _ := json.Marshal(struct {
		Name      string
		Argv, Env []string
		Dir       string
		Caps      any
		Auth      string
		Sandbox   *sandbox.Spec
		Gateway   []any
	}{r.sc.Agent.Name, argv, env, r.sc.Agent.Cwd, r.sess.client.capabilities(), r.sc.Agent.Auth, r.sbox, gatewayKey(r.sc.Gateway)})
	return string(key)
}

// poolName is the name of the scenario's agent in pool ids.
func (r *scenarioRun) poolName() string {
	if r.sc.Agent.Name != "" {
		return r.sc.Agent.Name
	}
	if len(r.sc.Agent.Command) > 0 {
		return filepath.Base(r.sc.Agent.Command[0])
	}
	return "agent"
}

// reuseWhere prefixes a message about agent.reuse with where it was set.
func (r *scenarioRun) reuseWhere() string {
	if p := r.sc.Agent.ReusePos; r.sc.Agent.Reuse && p.Line > 0 {
		return p.String() + ": agent.reuse: "
	}
	return "--reuse-agents: "
}

// acquire gets the scenario its agent process, bound to it: an idle one of
// its pool when it reuses its agent and one is there, else a new one,
// initialized. The command is the same either way. r.proc and r.agent are
// set as soon as a process runs, so that a failure can be told and the
// process stopped.
func (r *scenarioRun) acquire(ctx context.Context) error {
	pl := r.opts.procs
	argv := ResolveCommand(r.sc.Agent.Command, r.sc.File, r.sc.Agent.Cwd, r.opts.Self).Argv
	key := ""
	if why := ownProcess(r.sc); r.reuses() && why != "" {
		if pl.tells(why, r.ref) {
			r.res.Warnings = append(r.res.Warnings, r.reuseWhere()+why+" (said once in the run)")
		}
	} else if r.reuses() {
		key = r.poolKey(argv)
		if why := pl.whyNotReusable(key); why != "" {
			r.res.Warnings = append(r.res.Warnings, r.reuseWhere()+why)
			key = "" // as without reuse
		} else {
			p, why := pl.take(key, r.opts.Abort)
			r.res.Warnings = append(r.res.Warnings, why...)
			if p != nil {
				r.serveWith(p)
				return nil
			}
		}
	}
	if e := CheckProgram(&r.sc.Agent, argv[0], r.sc.Agent.Cwd); e != nil {
		return e // as validate --strict says it, not as exec does
	}
	if pl != nil {
		pl.reserve(r.opts.Abort)
	}
	p, err := r.startProc(ctx, argv, key)
	if p != nil && pl != nil {
		p.slot = true
	} else if pl != nil {
		pl.release()
	}
	if err != nil || key == "" {
		return err
	}
	if !p.offersClose() {
		why := "the agent does not offer session/close (agentCapabilities.sessionCapabilities.close), which ends each scenario's session on a shared process: its processes are not reused, every scenario starts its own"
		pl.notReusable(key, why)
		r.res.Warnings = append(r.res.Warnings, r.reuseWhere()+why)
		return nil
	}
	p.pool, p.key, p.id = pl, key, pl.name(r.poolName())
	r.serveWith(p)
	return nil
}

// startProc starts an agent process bound to the scenario, in the
// session's cwd, and initializes it. With a pool key it gets a mark of its
// own (a Sub of the run's), and its temporary directory in the pool's, so
// that it can outlive the scenario; else the scenario's.
func (r *scenarioRun) startProc(ctx context.Context, argv []string, key string) (*proc, error) {
	p := &proc{bind: newBinding(r.red), mark: r.mark}
	dir, tmpDir := r.sc.Agent.Cwd, r.opts.WorkspaceDir
	if key != "" {
		d, err := r.opts.procs.workDir()
		if err != nil {
			return nil, err
		}
		tmpDir, p.mark = d, r.opts.mark.Sub()
	}
	agentEnv := r.sc.Agent.Env
	if r.gw != nil {
		p.routes = r.gatewayRoutes()
		defer func() {
			if p.agent == nil { // it never ran: no stop closes them
				p.closeRoutes()
			}
		}()
		var err error
		if agentEnv, err = gatewayEnv(agentEnv, r.sc.Gateway.Targets, p.routes, r.sc.Gateway.Mode == string(gateway.Replay)); err != nil {
			return nil, err
		}
	}
	env := p.mark.Set(mergeEnv(r.opts.Environ, agentEnv))
	if tr, _ := r.sc.Agent.ReplayTranscript(); tr != "" {
		// acprun's replay compares what it gets with the recording as
		// redacted: it needs the secrets to redact the same way.
		env = append(env, replay.SecretsEnv(r.red))
	}
	var wrap process.Wrap
	if r.sbox != nil {
		tmp, err := sandboxTemp(tmpDir)
		if err != nil {
			return nil, err
		}
		if key == "" {
			r.sboxTemp = tmp // the pool's go with its directory
			r.opts.guard.Remove(tmp)
		}
		if argv, p.sandbox, err = r.sandboxed(argv, dir, tmp); err != nil {
			return nil, err
		}
		wrap = p.sandbox.Wrap
	}
	r.noteSandbox(p.sandbox) // before the process can ask for a terminal
	p.bind.bind(r.link())    // the scenario sees the process from its start
	agent, err := startAgent(agentConfig{
		Argv:    argv,
		Env:     env,
		Dir:     dir,
		Sandbox: wrap,
		Handler: p.bind,
		Conn:    &acp.Options{Peer: "agent", OnViolation: p.bind.violation, Tap: p.bind.tap},
	})
	if err != nil {
		return nil, err
	}
	p.agent = agent
	r.proc, r.agent = p, agent
	hs := handshake{
		red:      r.red,
		caps:     r.sess.client.capabilities(),
		version:  r.opts.Version,
		auth:     r.sc.Agent.Auth,
		authPos:  r.sc.Agent.AuthPos,
		authHint: r.authHint(),
		authEnv:  AuthEnv(r.sc.Agent, r.opts.Environ),
		command:  r.sc.Agent.Command,
		wait:     r.setupWait(),
	}
	p.init, err = hs.initialize(ctx, agent.Conn)
	p.bind.endPrelude()
	r.noteInit()
	return p, err
}

// serveWith binds the scenario to a pooled process.
func (r *scenarioRun) serveWith(p *proc) {
	p.sessions++
	r.proc, r.agent = p, p.agent
	if p.sessions > 1 { // a new process is bound from its start
		p.agent.TakeStderr(nil) // what it wrote while idle is no scenario's
		r.noteSandbox(p.sandbox)
		p.bind.bind(r.link())
		p.bindRoutes(r.gw)
	}
	r.res.Agent.Pool = &report.PoolInfo{ID: p.id, Pid: p.agent.Pid(), Sessions: p.sessions}
	r.noteInit()
}

// noteInit records what the agent answered to initialize.
func (r *scenarioRun) noteInit() {
	got := r.proc.init
	if !got.initialized {
		return
	}
	r.init = got.init
	r.res.Agent.ProtocolVersion = got.init.ProtocolVersion
	if i := got.init.AgentInfo; i != nil {
		r.res.Agent.InfoName, r.res.Agent.InfoVersion = i.Name, i.Version
	}
	r.res.Warnings = append(r.res.Warnings, got.warnings...)
}
