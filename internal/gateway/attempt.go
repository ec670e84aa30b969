package gateway

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/acprun/acprun/internal/gateway/provider"
)

// maxBody bounds a request body the gateway reads: far above what a model
// accepts, low enough that a runaway agent cannot exhaust acprun's memory.
const maxBody = 256 << 20

// Attempt is one scenario attempt's share of the gateway: what its agent
// asked of its models. Its methods may be called from many goroutines.
type Attempt struct {
	cfg    Config
	client *http.Client // sends requests upstream (record, meter)
	rec    *cassette    // replay: the cassette read by Open
	paths  *pathNames
	ctx    context.Context
	stop   context.CancelFunc // cuts off the requests in flight (Close)
	run    context.Context    // Open's: its end says the run was stopped (see ending)

	// admitting serialises Admit and the counting of the request it
	// admits, so that two requests cannot both pass a budget of one.
	admitting sync.Mutex

	inflight sync.WaitGroup // requests being served; Add under mu while !closed

	mu          sync.Mutex
	closed      bool
	cut         bool     // CutShort: record writes aside
	unreachable string   // what the agent got when the provider could not be reached (Unreachable)
	calls       []*call  // every admitted request, in order
	models      []string // in first-use order
	played      []bool   // replay: by recorded exchange
	divergence  string   // replay: the divergence that ended it

	closeOnce sync.Once
	closeErr  error
}

// Open makes the attempt. In replay it reads the cassette: a missing,
// unreadable or other-version cassette is an error that names it and says
// how to record one. In record the cassette is written with ctx's values
// (outfile.WithTemps: the run's guard hears of its temporary file).
// ctx's end does not end the attempt, Close does: it says that the run was
// stopped (an interrupt, the run's time limit), and an answer the agent
// lets go of from then on is kept truncated, as one Close cuts off.
func Open(ctx context.Context, cfg Config) (*Attempt, error) {
	a := &Attempt{cfg: cfg, client: upstreamClient, paths: newPathNames(cfg.Paths, cfg.Redact), run: ctx}
	switch cfg.Mode {
	case Record:
		if cfg.Cassette == "" {
			return nil, fmt.Errorf("gateway: record needs a cassette path")
		}
	case Replay:
		rec, err := readCassette(cfg.Pinned, cfg.Cassette)
		if err != nil {
			return nil, err
		}
		a.rec = rec
		a.played = make([]bool, len(rec.Exchanges))
	case Meter:
	default:
		return nil, fmt.Errorf("gateway: unknown mode %q (record, replay or meter)", cfg.Mode)
	}
	if a.cfg.Now == nil {
		a.cfg.Now = time.Now
	}
	a.ctx, a.stop = context.WithCancel(context.WithoutCancel(ctx))
	return a, nil
}

// Spent is what the attempt's requests have cost so far: the usage of a
// request counts once its answer has reported it.
//
// Thought tokens are priced as output tokens (providers bill them so).
// A request is priced by its model, or else by the model its answer
// names; one whose answer reported usage for a model that Prices does not
// list is not priced, and its model is in Unpriced.
func (a *Attempt) Spent() Spent {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := Spent{Models: slices.Clone(a.models)}
	for _, c := range a.calls {
		if c.api != provider.Unknown {
			s.Requests++
		}
		if !c.reported {
			if c.whole && c.api != provider.Unknown {
				s.Unmetered++
			}
			continue
		}
		s.Usage = addUsage(s.Usage, c.usage)
		p, ok := a.cfg.Prices[c.model]
		if !ok {
			p, ok = a.cfg.Prices[c.answerModel]
		}
		if !ok {
			if m := cmp.Or(c.model, c.answerModel); !slices.Contains(s.Unpriced, m) {
				s.Unpriced = append(s.Unpriced, m)
			}
			continue
		}
		s.Priced++
		s.Cost += p.cost(c.usage)
	}
	return s
}

// addUsage returns the sum of u and v.
func addUsage(u, v Usage) Usage {
	return Usage{
		Input:      u.Input + v.Input,
		Output:     u.Output + v.Output,
		CacheRead:  u.CacheRead + v.CacheRead,
		CacheWrite: u.CacheWrite + v.CacheWrite,
		Thought:    u.Thought + v.Thought,
	}
}

// cost is what u costs at p.
func (p Price) cost(u Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output+u.Thought)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// Divergence is the divergence that ended a replay (see replay): the
// first for which the runner cancelled a turn; "" for none.
func (a *Attempt) Divergence() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.divergence
}

// Unplayed is the number of recorded exchanges a replay has not served.
func (a *Attempt) Unplayed() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, p := range a.played {
		if !p {
			n++
		}
	}
	return n
}

// PartialSuffix ends the name of what the recording of an attempt cut
// short (CutShort) was written to: the cassette's path with it.
const PartialSuffix = ".partial"

// CutShort says that the attempt's recording is not the scenario's:
// something outside its scenario (an interrupt, the run's time limit) cut
// it short, or the provider refused the work. In record Close then writes
// it beside the cassette, at the cassette's path with PartialSuffix, and
// leaves the cassette as it was.
// Call it before Close.
func (a *Attempt) CutShort() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cut = true
}

// noteUnreachable records msg, what the agent was answered when the
// provider could not be reached, unless an earlier one was.
func (a *Attempt) noteUnreachable(msg string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.unreachable == "" {
		a.unreachable = msg
	}
}

// Unreachable is what the agent was answered (a 502) the first time the
// attempt could not reach its provider, "" when it always could: a
// recording of it is of the provider's outage, not of the agent.
func (a *Attempt) Unreachable() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.unreachable
}

// Written is the path Close writes the recording to in record: the
// cassette's, or with PartialSuffix once the attempt was cut short.
func (a *Attempt) Written() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cut {
		return a.cfg.Cassette + PartialSuffix
	}
	return a.cfg.Cassette
}

// Close ends the attempt: requests still going to it fail; in record it
// writes the cassette (atomically; see CutShort and Written). Close waits
// for requests in flight to end or be cut off.
//
// A request cut off before its answer started gets a 503; one whose
// answer was streaming has its connection broken, so that the agent sees
// an unfinished answer, not a short one. Requests that reach the attempt
// after Close get a 503. In record, an answer cut off is kept as far as it
// went, marked truncated (replay breaks it off at the same point); so is
// one whose agent let go of it after Open's ctx ended (the run was
// stopped, and its turn cancelled for that), whichever end the request's
// handler saw first, and a request not answered then is kept abandoned
// either way. Close may be called more than once; later calls return the
// first one's error.
func (a *Attempt) Close() error {
	a.closeOnce.Do(func() {
		a.mu.Lock()
		a.closed = true
		a.mu.Unlock()
		a.stop()
		a.inflight.Wait()
		if a.cfg.Mode == Record {
			// a.ctx has ended (stop): what it keeps of Open's ctx is its values.
			a.closeErr = writeCassette(context.WithoutCancel(a.ctx), a.cfg.Dir, a.Written(), a.recorded())
		}
	})
	return a.closeErr
}

// recorded is the cassette of what the attempt kept, in the order the
// requests came.
func (a *Attempt) recorded() *cassette {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := &cassette{Version: cassetteVersion, Exchanges: []exchange{}}
	for _, call := range a.calls {
		if call.kept != nil {
			c.Exchanges = append(c.Exchanges, *call.kept)
		}
	}
	return c
}

// enter registers a request in flight; false once the attempt is closed.
func (a *Attempt) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.inflight.Add(1)
	return true
}

// serve handles one request of the attempt's agent: rest is its path
// after the route's prefix, upstream the route's upstream.
func (a *Attempt) serve(w http.ResponseWriter, req *http.Request, upstream, rest string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBody))
	if err != nil {
		plain(w, http.StatusBadRequest, fmt.Sprintf("acprun gateway: reading the request: %v", err))
		return
	}
	if !a.enter() {
		plain(w, http.StatusServiceUnavailable, endedMessage)
		return
	}
	defer a.inflight.Done()
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	defer context.AfterFunc(a.ctx, cancel)()

	c := newCall(req, rest, body)
	defer func() { c.body = nil }() // the attempt keeps c, not its body
	a.cfg.Messages.Add(c.keys.Values()...)
	if a.cfg.Mode == Replay {
		if d := a.Divergence(); d != "" {
			answer(w, replyOf(provider.Invalid(c.api, d)))
			return
		}
	}
	if req.Method == http.MethodHead {
		// A connectivity check (claude sends one to its base URL per
		// session): not a model request, and not part of the record.
		if a.cfg.Mode == Replay {
			w.WriteHeader(http.StatusOK)
			return
		}
		c.probe = true
	}
	if msg := a.admit(c); msg != "" {
		// Told before it is answered: the runner has cancelled the turn
		// before the agent can end it on the refusal.
		cancelled := a.event(Refused, msg)
		answer(w, replyOf(provider.RateLimited(c.api, msg)).told(cancelled))
		return
	}
	if a.cfg.Mode == Replay {
		a.replay(ctx, w, c)
		return
	}
	a.forward(ctx, w, req.Header, c, upstream)
}

// endedMessage answers requests to an attempt that has ended.
const endedMessage = "acprun gateway: the scenario attempt this agent worked for has ended"

// admit asks Admit about c, if it is a model request (of a known API),
// and takes c when admitted; it returns the refusal, "" for none.
func (a *Attempt) admit(c *call) string {
	a.admitting.Lock()
	defer a.admitting.Unlock()
	if a.cfg.Admit != nil && c.api != provider.Unknown {
		if msg := a.cfg.Admit(a.Spent()); msg != "" {
			return msg
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, c)
	c.n = len(a.calls)
	a.addModel(c.model)
	return ""
}

// addModel adds m to the models used; a.mu is held.
func (a *Attempt) addModel(m string) {
	if m != "" && !slices.Contains(a.models, m) {
		a.models = append(a.models, m)
	}
}

// answeredWhole notes that c's answer, of status, has been given in
// full: with a 2xx status, one that reported no usage is Unmetered.
func (a *Attempt) answeredWhole(c *call, status int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c.whole = status >= 200 && status < 300
}

// report takes the usage and model m has read so far as c's.
func (a *Attempt) report(c *call, m *provider.Meter) {
	u, ok := m.Usage()
	model := m.Model()
	a.mu.Lock()
	defer a.mu.Unlock()
	if ok {
		c.usage = u
		c.reported = true
	}
	if model != "" && c.answerModel == "" {
		c.answerModel = model
		if c.model == "" {
			a.addModel(model)
		}
	}
}

// event tells OnEvent, if set, and reports whether the agent's turn was
// cancelled before the answer.
func (a *Attempt) event(kind EventKind, msg string) bool {
	return a.cfg.OnEvent != nil && a.cfg.OnEvent(Event{Kind: kind, Message: msg})
}

// closing reports whether the attempt is being closed (its requests are
// being cut off).
func (a *Attempt) closing() bool { return a.ctx.Err() != nil }

// ending reports whether the recording is ending: the attempt is being
// closed, or the run was stopped (Open's ctx ended: an interrupt, the
// run's time limit), after which the runner cancels the agent's turn and
// then closes the attempt. An answer broken off now was cut off by that
// end, whichever of the agent's end (its turn cancelled, it aborts the
// request) and the gateway's (Close) the request's handler saw first:
// the run's stop comes before both.
func (a *Attempt) ending() bool { return a.closing() || a.run.Err() != nil }

// cutOff ends a request that Close cut off: a 503 if its answer had not
// started, else a broken connection.
func cutOff(w http.ResponseWriter, started bool) {
	if !started {
		plain(w, http.StatusServiceUnavailable, endedMessage)
		return
	}
	panic(http.ErrAbortHandler)
}

// reply is a whole answer of the gateway's own (an error in a provider's
// shape).
type reply struct {
	status int
	header http.Header
	body   []byte
}

// replyOf makes a reply of what the provider package returns.
func replyOf(status int, header http.Header, body []byte) reply {
	return reply{status, header, body}
}

// told returns r saying (CancelledHeader) that the agent's turn was
// cancelled before it, if cancelled.
func (r reply) told(cancelled bool) reply {
	if cancelled {
		r.header.Set(CancelledHeader, "session/cancel")
	}
	return r
}

// answer writes r.
func answer(w http.ResponseWriter, r reply) {
	for k, vs := range r.header {
		w.Header()[k] = vs
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(r.status)
	w.Write(r.body)
}
