package runner

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// This file puts the run's model gateway (internal/gateway) between a
// scenario's agent and its model: the agent process's base-URL variables
// point at routes of the run's server, bound to the attempt's
// gateway.Attempt while the scenario holds the process. The gateway
// records, replays or meters the model requests; the usage it reads is the
// turns' usage, its refusals are budgets passed, and a replay's
// divergence fails the turn that waited on the request (one no turn waited
// on is a warning).

// errDivergence is the cause of a turn's context when a replayed model
// request matched none of the cassette's.
var errDivergence error = &stopCause{"divergence", report.CauseDivergence}

// startGateway starts the run's gateway server when a scenario has a
// gateway; nil when none has.
func startGateway(scenarios []*scenario.Scenario) (*gateway.Server, error) {
	for _, sc := range scenarios {
		if sc.Gateway != nil && len(sc.Gateway.Targets) > 0 {
			s, err := gateway.Start()
			if err != nil {
				return nil, fmt.Errorf("model gateway: %w", err)
			}
			return s, nil
		}
	}
	return nil, nil
}

// cassetteName is the file name of the cassette of try ref of a scenario
// (ref.Retry counts the tries): its transcript's name on its own
// (report.TranscriptName of the scenario's name, agent, attempt and retry,
// without the "-2" that keeps a run's transcripts apart), with
// ".cassette.json" for ".jsonl", so that it depends on the scenario alone
// and not on the others of the run. When the file name does not keep the
// scenario's name and agent as they are (a character replaced by "_", a
// long name shortened, or an upper-case letter, which a case-insensitive
// file system does not tell from its lower case) "~" and 8 hex digits of
// the SHA-256 of the name and agent as written come before the suffix:
// "fix vet" and "fix:vet" get cassettes of their own.
func cassetteName(ref Ref) string {
	stem := strings.TrimSuffix(report.TranscriptName(ref.Name, ref.Agent, ref.Attempt, ref.Retry), ".jsonl")
	id := ref.Name
	if ref.Agent != "" {
		id += "@" + ref.Agent
	}
	if strings.TrimSuffix(report.TranscriptName(ref.Name, ref.Agent, 0, 0), ".jsonl") == strings.ToLower(id) {
		return stem + ".cassette.json"
	}
	sum := sha256.Sum256([]byte(id))
	return stem + "~" + hex.EncodeToString(sum[:4]) + ".cassette.json"
}

// CheckCassettes returns an error when two scenarios of a run with opts
// (its Repeat) that record or replay would share a cassette: the same
// name (cassetteName), compared case-insensitively as a file system may,
// in the same gateway.dir. Each error is at the later scenario and names
// the earlier; nil when every try of every scenario has its own.
func CheckCassettes(opts Options, scenarios []*scenario.Scenario) error {
	type first struct {
		ref Ref
		pos scenario.Pos
	}
	seen := map[[2]string]first{} // by gateway.dir and name in lower case
	var errs []error
	for _, j := range jobsOf(scenarios, max(opts.Repeat, 1)) {
		g := j.sc.Gateway
		if g == nil || len(g.Targets) == 0 || g.Mode == string(gateway.Meter) {
			continue
		}
		for _, ref := range j.tries() {
			name := cassetteName(ref)
			key := [2]string{g.Dir, strings.ToLower(name)}
			if f, dup := seen[key]; dup {
				errs = append(errs, fmt.Errorf("%s: gateway: scenario %s and scenario %s (at %s) would share the cassette %s: "+
					"give one of them another name (or agent), or its own gateway.dir",
					j.sc.Pos, describeRef(ref), describeRef(f.ref), f.pos, filepath.Join(g.Dir, name)))
				break
			}
			seen[key] = first{ref, j.sc.Pos}
		}
	}
	return errors.Join(errs...)
}

// CassetteError is a scenario's gateway that cannot open an attempt's
// cassette (in replay: one missing, unreadable, or that replay refuses):
// Pos is the gateway's value (the flag's place for one --gateway gives),
// Err what the gateway says of the cassette.
type CassetteError struct {
	Pos scenario.Pos
	Err error
}

func (e *CassetteError) Error() string { return posMsg(e.Pos, "gateway: "+e.Err.Error()) }

// Unwrap returns Err.
func (e *CassetteError) Unwrap() error { return e.Err }

// CheckCassette returns the error that the first try of sc, as a run
// without --repeat makes it, meets as it opens its gateway (openGateway)
// before its agent starts, when that gateway replays: a cassette that is
// missing, not a regular file, or that replay refuses
// (gateway.CheckCassette); nil when sc's gateway does not replay (or its
// agent makes no model requests through it), or its cassette is one
// replay plays. The cassettes of its retries, and of run --repeat's
// attempts, are each read only when its try starts.
func CheckCassette(sc *scenario.Scenario) *CassetteError {
	g := sc.Gateway
	if g == nil || len(g.Targets) == 0 || g.Mode != string(gateway.Replay) {
		return nil
	}
	if err := gateway.CheckCassette(filepath.Join(g.Dir, cassetteName(newJob(sc, 0).ref))); err != nil {
		return &CassetteError{Pos: g.Pos, Err: err}
	}
	return nil
}

// describeRef names the try ref in a message: the scenario's name quoted,
// its agent, attempt and retry.
func describeRef(ref Ref) string {
	s := strconv.Quote(ref.Name)
	if ref.Agent != "" {
		s += " on agent " + ref.Agent
	}
	if ref.Attempt > 0 {
		s += fmt.Sprintf(", attempt %d", ref.Attempt)
	}
	if ref.Retry > 0 {
		s += fmt.Sprintf(", retry %d", ref.Retry)
	}
	return s
}

// recordDirs are the gateways of the scenarios that record cassettes,
// the first of each gateway.dir.
func recordDirs(scenarios []*scenario.Scenario) []*scenario.Gateway {
	var gws []*scenario.Gateway
	seen := map[string]bool{}
	for _, sc := range scenarios {
		g := sc.Gateway
		if g == nil || len(g.Targets) == 0 || g.Mode != string(gateway.Record) || seen[g.Dir] {
			continue
		}
		seen[g.Dir] = true
		gws = append(gws, g)
	}
	return gws
}

// CheckCassetteDirs checks, before any agent starts, that record can
// write its cassettes in the gateway.dir of every scenario that records,
// as the run's other output directories are checked (outfile.CheckDir):
// one missing is made, and a temporary file is tried in each, told to
// ctx's outfile.WithTemps hooks. The error is at the scenario's gateway.
func CheckCassetteDirs(ctx context.Context, scenarios []*scenario.Scenario) error {
	for _, g := range recordDirs(scenarios) {
		if err := outfile.CheckDir(ctx, g.Dir); err != nil {
			return cassetteDirError(g, err)
		}
	}
	return nil
}

// cassetteDirError is err, met making, opening or trying the cassette
// directory of g, at g.
func cassetteDirError(g *scenario.Gateway, err error) error {
	return fmt.Errorf("%s: gateway: cassettes: %w", g.Pos, err)
}

// openCassetteDirs opens the directory of every scenario that records
// cassettes (made when missing), by its gateway.dir: what record writes in
// is fixed before any agent starts (see Options.cassetteDirs). A run
// checks that it can write in them first (CheckCassetteDirs).
func openCassetteDirs(scenarios []*scenario.Scenario) (map[string]*os.Root, error) {
	dirs := map[string]*os.Root{}
	for _, g := range recordDirs(scenarios) {
		err := os.MkdirAll(g.Dir, 0o755)
		var d *os.Root
		if err == nil {
			d, err = os.OpenRoot(g.Dir)
		}
		if err != nil {
			closeCassetteDirs(dirs)
			return nil, cassetteDirError(g, err)
		}
		dirs[g.Dir] = d
	}
	return dirs, nil
}

// pinCassettes pins the cassette of every try of every job that replays
// one (cassetteName), before any agent starts: an agent whose cwd holds
// cassettes/ may put a symlink to a file of the user's in the place of a
// later attempt's (see inputfile.Pinned). The cassettes of one gateway.dir
// share one open directory (pins).
func pinCassettes(pins *inputfile.Pins, jobs []job) inputs {
	pinned := inputs{}
	for _, j := range jobs {
		g := j.sc.Gateway
		if g == nil || len(g.Targets) == 0 || g.Mode != string(gateway.Replay) {
			continue
		}
		for _, ref := range j.tries() {
			path := filepath.Join(g.Dir, cassetteName(ref))
			pinned[path] = pins.Pin(path)
		}
	}
	return pinned
}

// closeCassetteDirs closes what openCassetteDirs opened.
func closeCassetteDirs(dirs map[string]*os.Root) {
	for _, d := range dirs {
		d.Close()
	}
}

// openGateway opens the attempt's share of the gateway (r.gw) when the
// scenario has one and its agent makes model requests (it has targets).
// In replay a missing or unreadable cassette is an error that keeps the
// scenario from starting.
func (r *scenarioRun) openGateway(ctx context.Context) error {
	g := r.sc.Gateway
	if g == nil || len(g.Targets) == 0 {
		return nil
	}
	home, _ := os.UserHomeDir()
	paths := map[string][]string{}
	for name, path := range map[string]string{"<workspace>": r.sc.Agent.Cwd, "<home>": home, "<tmp>": os.TempDir()} {
		if path != "" {
			// The agent may say the path as its getcwd() does, symlinks resolved.
			paths[name] = []string{path, workspace.ResolveExisting(filepath.Clean(path))}
		}
	}
	cassette := filepath.Join(g.Dir, cassetteName(r.ref))
	att, err := gateway.Open(ctx, gateway.Config{
		Mode:     gateway.Mode(g.Mode),
		Cassette: cassette,
		Dir:      r.opts.cassetteDirs[g.Dir],
		Pinned:   r.opts.cassettes[cassette],
		Timing:   g.Timing,
		Redact:   cassetteRedactor(r.sc, r.opts.Environ),
		Messages: r.red, // a divergence's cut excerpts: the run's secrets, not the cassette's alone
		Paths:    paths,
		Prices:   g.Prices,
		Admit:    r.admitModelRequest,
		OnEvent:  r.gatewayEvent,
	})
	if err != nil {
		return &CassetteError{Pos: g.Pos, Err: err}
	}
	r.gw = att
	r.res.Gateway = &report.GatewayInfo{Mode: g.Mode}
	if g.Mode != string(gateway.Meter) {
		r.res.Gateway.Cassette = cassette
	}
	return nil
}

// closeGateway ends the attempt's share of the gateway once its agent has
// stopped or gone back to its pool, and records what went through it. A
// recording that could not be written (its directory removed during the
// run, a full disk) is an output lost, as a transcript is (LostOutputs:
// the run exits 4), not the agent's failure; one that the run's end cut
// short (see cutShort) does not replace the cassette, and a warning says
// where it is, once it is written.
func (r *scenarioRun) closeGateway() {
	if r.gw == nil {
		return
	}
	info := r.res.Gateway
	// A recording the run's end cut short, or of an attempt the provider
	// refused (invalid: upstream) or could not be reached in, is not the
	// scenario's: replayed, the refusal would make every replay invalid,
	// and rerunning would not help. It goes beside the cassette.
	why := r.cut
	switch {
	case why != "":
	case r.invalid != nil && r.invalid.Reason == report.InvalidUpstream:
		why = "the provider refused the work (the attempt is invalid)"
	case r.gw.Unreachable() != "":
		// A recording of the provider's outage, kept whole (a replay of it
		// answers the same), would replace a good one.
		why = "the provider could not be reached (" + strings.TrimPrefix(r.gw.Unreachable(), "acprun gateway: ") + ")"
	}
	cut := r.sc.Gateway.Mode == string(gateway.Record) && why != ""
	if cut {
		r.gw.CutShort()
	}
	err := r.gw.Close()
	sp := r.gw.Spent()
	info.Requests, info.Models = sp.Requests, sp.Models
	info.Unplayed = r.gw.Unplayed()
	if n := info.Unplayed; n > 0 && r.gw.Divergence() == "" { // after a divergence, the failure says it
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("gateway: %d recorded model request(s) were not asked for in this replay", n))
	}
	strays := r.sess.strayRequests() // the attempt is closed: no more come
	info.Unrecorded = len(strays)
	r.res.Warnings = append(r.res.Warnings, strays...)
	r.res.Warnings = append(r.res.Warnings, unpricedWarnings(r.sc, sp)...)
	if w := unmeteredWarning(r.sc, sp); w != "" {
		r.res.Warnings = append(r.res.Warnings, w)
	}
	switch {
	case err != nil: // Close's only error: the recording not written
		msg := fmt.Sprintf("gateway: %v; the recording was lost", err)
		r.res.Warnings = append(r.res.Warnings, msg)
		r.res.LostOutputs = append(r.res.LostOutputs, msg)
		info.Cassette = "" // none was written
	case cut:
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("gateway: %s, so the recording does not replace the cassette %s: what it kept is in %s",
			why, info.Cassette, r.gw.Written()))
		info.Cassette = r.gw.Written()
	}
}

// unpricedWarnings say which models of sp's requests have no price, and
// whether some requests named no model at all (neither the request nor
// its answer), so that the costs counted (the turns' usage, what
// budget.maxCost holds) are a lower bound; none when every request was
// priced, or when sc neither prices models nor has a maxCost (costs are
// not asked for).
func unpricedWarnings(sc *scenario.Scenario, sp gateway.Spent) []string {
	if len(sp.Unpriced) == 0 || (len(sc.Gateway.Prices) == 0 && !hasMaxCost(sc)) {
		return nil
	}
	const lower = "so the turns' cost (and what budget.maxCost counted) is a lower bound"
	var ws []string
	if slices.Contains(sp.Unpriced, "") {
		ws = append(ws, "gateway: some model requests named no model, neither in the request nor in its answer: their cost is unknown, "+lower)
	}
	names := mapped(slices.DeleteFunc(slices.Clone(sp.Unpriced), func(m string) bool { return m == "" }), strconv.Quote)
	if len(names) > 0 {
		ws = append(ws, fmt.Sprintf("gateway: no price for %s %s in the config's prices: the cost of %s requests is unknown, "+lower+"; add %s to prices",
			pluralWord(len(names), "model", "models"), listed(names), pluralWord(len(names), "its", "their"), pluralWord(len(names), "it", "them")))
	}
	return ws
}

// unmeteredWarning says how many model requests were answered without
// the usage that sc's token or cost budget counts, so that it could not
// hold them; "" when none was, or sc has no such budget.
func unmeteredWarning(sc *scenario.Scenario, sp gateway.Spent) string {
	if sp.Unmetered == 0 || !anyBudget(sc, func(b *scenario.UsageExpect) bool { return b.MaxTotalTokens != nil || b.MaxCost != nil }) {
		return ""
	}
	return fmt.Sprintf("gateway: the provider answered %d of %d model requests without token usage, so budget.maxTotalTokens and budget.maxCost could not count them",
		sp.Unmetered, sp.Requests)
}

// hasMaxCost reports whether sc or one of its turns has a budget.maxCost.
func hasMaxCost(sc *scenario.Scenario) bool {
	return anyBudget(sc, func(b *scenario.UsageExpect) bool { return b.MaxCost != nil })
}

// anyBudget reports whether sc, or one of its turns, has a budget for
// which has is true.
func anyBudget(sc *scenario.Scenario, has func(*scenario.UsageExpect) bool) bool {
	ok := func(b *scenario.UsageExpect) bool { return b != nil && has(b) }
	return ok(sc.Budget) || slices.ContainsFunc(sc.Turns, func(t scenario.Turn) bool { return ok(t.Budget) })
}

// gatewayEnv returns env with the agent pointed at the routes: each
// target's variable holds its route's URL (or, for a JSON variable, the
// URL at the target's path in it), and in replay each API-key variable a
// dummy key.
func gatewayEnv(env map[string]string, targets []scenario.GatewayTarget, routes []*gateway.Route, replay bool) (map[string]string, error) {
	out := maps.Clone(env)
	if out == nil {
		out = map[string]string{}
	}
	for i, t := range targets {
		if t.JSONPath == nil {
			out[t.Env] = routes[i].URL()
		} else {
			doc, err := setJSONPath(out[t.Env], t.JSONPath, routes[i].URL())
			if err != nil {
				return nil, fmt.Errorf("gateway: %s: %w", t.Env, err)
			}
			out[t.Env] = doc
		}
		if replay && t.KeyEnv != "" {
			out[t.KeyEnv] = gateway.DummyKey
		}
	}
	return out, nil
}

// setJSONPath returns the JSON object doc ("" for an empty one) with the
// string value at path, objects made on the way.
func setJSONPath(doc string, path []string, value string) (string, error) {
	root := map[string]any{}
	if strings.TrimSpace(doc) != "" {
		if err := json.Unmarshal([]byte(doc), &root); err != nil {
			return "", fmt.Errorf("not a JSON object: %w", err)
		}
	}
	m := root
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
	b, err := json.Marshal(root)
	return string(b), err
}

// gatewayRoutes makes the routes of a new agent process of the scenario,
// one per target, bound to the attempt.
func (r *scenarioRun) gatewayRoutes() []*gateway.Route {
	g := r.sc.Gateway
	routes := make([]*gateway.Route, len(g.Targets))
	for i, t := range g.Targets {
		routes[i] = r.opts.gateway.NewRoute(t.Upstream) // "" in replay: nothing is forwarded
		routes[i].Bind(r.gw)
	}
	return routes
}

// bindRoutes binds the routes of the scenario's agent process to a, nil
// to unbind them.
func (p *proc) bindRoutes(a *gateway.Attempt) {
	for _, rt := range p.routes {
		rt.Bind(a)
	}
}

// closeRoutes removes the routes of an agent process that has stopped (or
// never started) from the run's gateway, so that the server no longer
// holds the attempt they were bound to, nor what it kept.
func (p *proc) closeRoutes() {
	for _, rt := range p.routes {
		rt.Close()
	}
}

// admitModelRequest is the gateway's Admit: it refuses a model request
// that would start past the scenario's or the running turn's budget. A
// turn runs until the agent has written its answer, as gatewayEvent
// decides: it catches up with the agent's output first (catchUp), so a
// background request made right after the answer falls under the
// scenario's budget only, every run.
func (r *scenarioRun) admitModelRequest(sp gateway.Spent) string {
	r.catchUp()
	s := r.sess
	s.mu.Lock()
	defer s.mu.Unlock()
	var t *turnState
	if t = s.current(); t != nil && t.late() {
		t = nil // between turns: only the scenario's budget applies
	}
	if msg := overBudget(r.sc.Budget, "the scenario's", r.sc.CostCurrency(), sp, gateway.Spent{}); msg != "" {
		return msg
	}
	if t != nil {
		return overBudget(r.sc.Turns[t.rec.Index-1].Budget, "the turn's", r.sc.CostCurrency(), sp, t.gwStart)
	}
	return ""
}

// overBudget says how spending sp, of which before was spent before the
// budget's span began, leaves no room for another request in budget b,
// whose maxCost and the requests' cost are in currency; "" when it does.
func overBudget(b *scenario.UsageExpect, whose, currency string, sp, before gateway.Spent) string {
	if b == nil {
		return ""
	}
	reqs := sp.Requests - before.Requests
	tokens := sp.Usage.Total() - before.Usage.Total()
	cost := sp.Cost - before.Cost
	switch {
	case b.MaxRequests != nil && int64(reqs) >= *b.MaxRequests:
		return fmt.Sprintf("%s: budget.maxRequests: the agent's model requests reached %s budget of %d; acprun refused the next one at the gateway and stopped the scenario there",
			cmp.Or(b.MaxRequestsPos, b.Pos), whose, *b.MaxRequests)
	case b.MaxTotalTokens != nil && tokens >= *b.MaxTotalTokens:
		return fmt.Sprintf("%s: budget.maxTotalTokens: the agent's model requests used %d tokens, %s budget is %d; acprun refused the next one at the gateway and stopped the scenario there",
			cmp.Or(b.MaxTokensPos, b.Pos), tokens, whose, *b.MaxTotalTokens)
	case b.MaxCost != nil && roundCost(cost) >= *b.MaxCost: // the priced requests' cost: unpriced ones are told at the end (unpricedWarning)
		return fmt.Sprintf("%s: budget.maxCost: the agent's model requests cost %s, %s budget is %s; acprun refused the next one at the gateway and stopped the scenario there",
			cmp.Or(b.MaxCostPos, b.Pos), formatCost(cost, currency), whose, formatCost(*b.MaxCost, currency))
	}
	return ""
}

// costPassed says how the priced cost of the agent's model requests, sp of
// which before was spent before the budget's span began, passed budget
// b's maxCost once they were answered: what the last request admitted
// (overBudget) spent is judged here, at the turn's end. Both are in
// currency. "" when it did not, or b has no maxCost.
func costPassed(b *scenario.UsageExpect, whose, currency string, sp, before gateway.Spent) string {
	if b == nil || b.MaxCost == nil {
		return ""
	}
	cost := sp.Cost - before.Cost
	if roundCost(cost) <= *b.MaxCost {
		return ""
	}
	return fmt.Sprintf("%s: budget.maxCost: the agent's model requests cost %s, over %s budget of %s; acprun stopped the scenario there",
		cmp.Or(b.MaxCostPos, b.Pos), formatCost(cost, currency), whose, formatCost(*b.MaxCost, currency))
}

// gatewayEvent is the gateway's OnEvent: a refused request passes the
// running turn's budget, a divergence fails it; either cancels it. It
// returns once session/cancel is out (or the turn has ended), and the
// gateway answers the request only then: the agent gets the cancel before
// the error, so a prompt it fails on that error does not race the cancel,
// and the turn's cancelCause never depends on which came first. It
// reports whether session/cancel is out, which the gateway's answer says
// (gateway.CancelledHeader), so that an agent that reads the answer first
// can end its turn on the cancel all the same: the mock agent does.
//
// A divergence fails the turn only if the turn waited on the request:
// its session/cancel went out before its answer was read. A request that
// diverged while no turn ran (before the first prompt, after a turn's
// answer), or whose turn had answered by the time its cancel went out
// (the answer was on its way as the request came), was answered with the
// error after the turn had ended: no turn's outcome depended on it. It is
// a stray: a warning (strayRequests), and false, so that the replay goes
// on (a background request, such as claude's title or prompt suggestion
// after its turn, made in one run and not in another, changes no verdict).
//
// Whether the turn had answered is what the agent had written when it made
// the request, not how far acprun had read it: before it decides,
// gatewayEvent catches up with the agent's output (catchUp).
func (r *scenarioRun) gatewayEvent(ev gateway.Event) bool {
	r.catchUp()
	t := r.gatewayStop(ev)
	if t == nil {
		return false
	}
	select {
	case <-t.cancelSent:
	case <-t.ended:
	}
	if ev.Kind == gateway.Diverged && r.sess.gatewayFailure(t) == "" {
		r.sess.stray(ev.Message, fmt.Sprintf("turn %d had answered without it", t.rec.Index))
		return false
	}
	return isClosed(t.cancelSent)
}

// catchUp handles, before a gateway event is decided on, everything the
// agent had written to its stdout by the time its request came
// (acp.Conn.CatchUp): the lines still in the pipe and in the connection's
// buffer, read and handled first. An agent that answers its prompt, then
// at once asks its model in the background (claude's title or prompt
// suggestion) has answered by then, however far behind acprun's reading of
// its updates was: the request is a stray every run, never the turn's
// failure on some runs. What the agent writes after the request comes
// later, and is not waited for. Only while a turn waits for its answer:
// otherwise no line handled changes the decision. The run's context and
// settleBound bound the wait (a handler that does not return, an agent
// that does not read what acprun answers it); past them the event is
// decided on what was handled. Where the pipe cannot say what waits in it
// (outside Linux) it catches up with what acprun has read only, as the
// wait for quiet does.
func (r *scenarioRun) catchUp() {
	s := r.sess
	s.mu.Lock()
	var conn *acp.Conn
	if t := s.current(); t != nil && t.prompt != nil && !t.late() {
		conn = t.conn
	}
	s.mu.Unlock()
	if conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(r.runCtx, settleBound)
	defer cancel()
	_ = conn.CatchUp(ctx) // past the bound, decided on what was handled
}

// gatewayStop records ev as the running turn's failure and cancels the
// turn; it returns the turn, nil when none runs (a divergence then is a
// stray, see gatewayEvent). A turn whose answer has been handled runs no
// more, whether or not the runner has taken the answer yet.
func (r *scenarioRun) gatewayStop(ev gateway.Event) *turnState {
	s := r.sess
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.current()
	if t == nil || t.late() || t.stop == nil {
		// A refusal between turns fails nothing: the next turn's request is
		// refused too.
		if ev.Kind == gateway.Diverged {
			when := "before turn 1's prompt"
			switch {
			case t == nil:
			case t.late():
				when = fmt.Sprintf("after turn %d had answered", t.rec.Index)
			default: // its prompt is not sent before stop is set (watchGateway)
				when = fmt.Sprintf("before turn %d's prompt", t.rec.Index)
			}
			s.strayLocked(ev.Message, "it came "+when)
		}
		return nil
	}
	switch ev.Kind {
	case gateway.Refused:
		// A budget passed, as spend finds one: the turn's first is its
		// failure (two requests at once may both be refused).
		if b := t.budget; b != nil && b.passed == "" {
			b.passed = ev.Message
		}
		t.stop(errBudget)
	case gateway.Diverged:
		t.gwFailure = cmp.Or(t.gwFailure, "gateway: "+ev.Message)
		t.stop(errDivergence)
	}
	return t
}

// gatewaySpent is what the gateway has seen of the attempt's model
// requests so far; nil without a gateway. The turn's end takes it once, so
// that its usage (gatewayUsage) and its budget (budgetFailure) are judged
// on the same requests.
func (r *scenarioRun) gatewaySpent() *gateway.Spent {
	if r.gw == nil {
		return nil
	}
	sp := r.gw.Spent()
	return &sp
}

// gatewayUsage is the usage of the turn's model requests, as the gateway
// read it from their answers by the time it had spent sp (gatewaySpent);
// nil when the turn made none, or none of its answers reported usage (then
// the agent's own report stands), or without a gateway (sp nil).
func (r *scenarioRun) gatewayUsage(t *turnState, sp *gateway.Spent) *report.Usage {
	if sp == nil {
		return nil
	}
	r.sess.mu.Lock()
	before := t.gwStart
	r.sess.mu.Unlock()
	u := sp.Usage
	b := before.Usage
	if sp.Requests == before.Requests || (u == b && sp.Priced == before.Priced) {
		return nil
	}
	out := &report.Usage{
		InputTokens:       u.Input - b.Input,
		OutputTokens:      u.Output - b.Output,
		CachedReadTokens:  u.CacheRead - b.CacheRead,
		CachedWriteTokens: u.CacheWrite - b.CacheWrite,
		ThoughtTokens:     u.Thought - b.Thought,
		TotalTokens:       u.Total() - b.Total(),
	}
	if sp.Priced > before.Priced { // a lower bound when some were not priced (unpricedWarning)
		out.Cost, out.Currency = roundCost(sp.Cost-before.Cost), r.sc.Gateway.Currency
	}
	return out
}

// gatewayKey is what of a scenario's gateway its agent process's pool key
// holds: the mode and the targets (the routes are the process's own).
func gatewayKey(g *scenario.Gateway) []any {
	if g == nil {
		return nil
	}
	return []any{g.Mode, g.Targets}
}

// watchGateway readies the running turn t for the gateway: stop cancels
// it, start is what the gateway had seen before it.
func (s *session) watchGateway(t *turnState, stop context.CancelCauseFunc, start gateway.Spent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.stop, t.gwStart = stop, start
}

// gatewayFailure is the gateway's failure of turn t, "" for none: the
// replay's divergence it was cancelled for, if it waited on the request
// (its session/cancel went out before its answer was read; see
// gatewayEvent).
func (s *session) gatewayFailure(t *turnState) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !isClosed(t.cancelSent) || t.answeredFirst {
		return ""
	}
	return t.gwFailure
}

// stray keeps the warning of a replay's request that matched no recorded
// one, msg, and that no turn waited on, as when says.
func (s *session) stray(msg, when string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strayLocked(msg, when)
}

// strayLocked is stray with s.mu held.
func (s *session) strayLocked(msg, when string) {
	s.strays = append(s.strays, fmt.Sprintf("gateway: %s; %s, so it fails no turn: the replay answered it with an error", msg, when))
}

// strayRequests are the warnings of the replay's requests that no turn
// waited on and that matched no recorded one, in the order they came.
func (s *session) strayRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.strays)
}

// budgetPassed reports whether turn t passed a budget while it ran.
func (s *session) budgetPassed(t *turnState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return t.budget != nil && t.budget.passed != ""
}
