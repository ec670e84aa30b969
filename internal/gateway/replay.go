package gateway

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/acprun/acprun/internal/gateway/provider"
)

// replay answers c from the cassette: the exchange it matches, or, when
// it matches none, a divergence. A divergence for which the runner
// cancelled the agent's turn (OnEvent reports it; without OnEvent, every
// one) is the attempt's: the replay has gone off its cassette, and every
// later request gets its answer. One for which it cancelled none (no turn
// was running, or the running one had answered without it: a request no
// turn waited on, such as a background one after the last turn) is
// answered with the same error, and the requests after it are matched as
// before.
func (a *Attempt) replay(ctx context.Context, w http.ResponseWriter, c *call) {
	ex, msg, first := a.match(c)
	if ex == nil {
		cancelled := first && a.event(Diverged, msg) // told before it is answered, as a refusal is
		if first && (cancelled || a.cfg.OnEvent == nil) {
			a.diverge(msg)
		}
		answer(w, replyOf(provider.Invalid(c.api, msg)).told(cancelled))
		return
	}
	a.play(ctx, w, c, ex)
}

// match finds the recorded exchange c plays: the first unplayed one it
// matches, the next or a later one (concurrent requests may come in
// either order, and a background request in the middle of others). When
// none does, it returns the divergence, and first is true unless the
// attempt had diverged already (later requests all get that divergence).
func (a *Attempt) match(c *call) (ex *exchange, divergence string, first bool) {
	got := c.summary(a)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.divergence != "" {
		return nil, a.divergence, false
	}
	var closest *exchange // the one to compare with, for the message
	for i := range a.rec.Exchanges {
		if a.played[i] {
			continue
		}
		rec := &a.rec.Exchanges[i]
		if diffRequest(&rec.Request, &got, a.cfg.Messages) == "" {
			a.played[i] = true
			return rec, "", false
		}
		if closest == nil || closest.Request.Method+closest.Request.Path != c.method+c.path && rec.Request.Method+rec.Request.Path == c.method+c.path {
			closest = rec
		}
	}
	what := fmt.Sprintf("not in the cassette (it has %s)", requests(len(a.rec.Exchanges)))
	if closest != nil {
		what = diffRequest(&closest.Request, &got, a.cfg.Messages)
	}
	return nil, fmt.Sprintf("request %d (%s %s): %s", c.n, c.method, c.path, what), true
}

// diverge makes msg the attempt's divergence, unless it has one already
// (two requests of a turn that diverged at once).
func (a *Attempt) diverge(msg string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.divergence == "" {
		a.divergence = msg
	}
}

// play streams the recorded answer of ex to w, metering it as c's; with
// Timing, at the recorded pace. It meters what forward metered: a stream's
// events as a provider.Splitter cuts them, a last one cut short (no blank
// line after it) not, as clients discard it; a whole answer unless it
// broke off.
//
// An answer the recorded agent went away from (Abandoned) is held open
// after its last event, or before its headers when none came, until the
// agent goes away again, so that the turn ends as recorded (cancelled at
// its deadline), not on an answer broken off or missing.
func (a *Attempt) play(ctx context.Context, w http.ResponseWriter, c *call, ex *exchange) {
	resp := &ex.Response
	if resp.Status == 0 { // abandoned before the answer started (see check)
		<-ctx.Done()
		if a.closing() {
			cutOff(w, false)
		}
		return
	}
	w.Header()["Content-Type"] = nil // none recorded: none sniffed either
	if resp.ContentType != "" {
		w.Header().Set("Content-Type", resp.ContentType)
	}
	w.WriteHeader(resp.Status)
	rc := http.NewResponseController(w)
	rc.Flush()
	sse := isSSE(resp.ContentType)
	m := provider.NewMeter(c.api)
	var split provider.Splitter
	for _, e := range resp.Events {
		if a.cfg.Timing && !sleep(ctx, time.Duration(e.MS)*time.Millisecond) || ctx.Err() != nil {
			if a.closing() {
				cutOff(w, true)
			}
			return // the agent went away
		}
		b := e.bytes()
		if e.Data != "" {
			b = []byte(a.paths.expand(e.Data))
		}
		w.Write(b)
		rc.Flush()
		if sse {
			for _, ev := range split.Feed(b) {
				m.Event(provider.Parse(ev))
			}
		} else if !resp.Truncated && !resp.Abandoned {
			m.Body(b)
		}
		a.report(c, m)
	}
	if sse && split.RestEnds() {
		m.Event(provider.Parse(split.Rest()))
		a.report(c, m)
	}
	if resp.Truncated {
		panic(http.ErrAbortHandler)
	}
	if resp.Abandoned {
		<-ctx.Done()
		if a.closing() {
			cutOff(w, true)
		}
		return
	}
	a.answeredWhole(c, resp.Status)
}

// sleep waits d, or until ctx ends: false then.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// requests is "1 request", "2 requests"…
func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}
