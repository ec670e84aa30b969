package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/report"
)

// This file ends a scenario's use of its agent process: session/close
// after the last turn, then the process goes back to its pool (agent.reuse)
// or is stopped, at once after a clean end.

// cleanEndWait is how long acprun waits, after a clean end (see cleanEnd),
// between closing the agent's stdin and SIGTERM: time for an agent that
// exits at the end of its input to do so by itself, and no more. Nothing of
// the agent's is left to wait for then: every turn has its answer and the
// session is closed. After anything else the wait is killGrace, since the
// agent may still be flushing.
const cleanEndWait = 50 * time.Millisecond

// closeTimeout bounds the agent's silence while acprun waits for the
// answer to session/close: the clock restarts with each message of the
// agent's that acprun handles, and stops while acprun is behind (see
// activity). closeBound bounds the whole wait.
const (
	closeTimeout = 2 * time.Second
	closeBound   = 30 * time.Second
)

// stopAgent ends the scenario's use of its agent process, if one was
// started. It first closes the session (closeSession). A pooled process
// that nothing unfits (see unfit) then goes back to its pool for the next
// scenario; any other process is stopped: the end of its input, a wait,
// SIGTERM, killGrace, SIGKILL. The wait before SIGTERM is cleanEndWait
// after a clean end (cleanEnd), else killGrace; the results do not depend
// on which step the agent exited at. The stop ends by the deadline of
// scCtx (the scenario's timeout, or the run's): the waits are clipped to
// what is left of it, and at the deadline the agent is killed. Once the
// deadline has passed (the scenario timed out), the agent is killed at
// once: its timeout is the scenario's error.
func (r *scenarioRun) stopAgent(scCtx context.Context) {
	if r.agent == nil {
		return
	}
	r.closeSession(scCtx)
	clean := r.cleanEnd(scCtx)
	if r.proc.pool != nil {
		why := r.unfit(scCtx)
		if why == "" {
			r.keep()
			return
		}
		r.res.Agent.Pool.Retired = why
	}
	r.stop(scCtx, clean)
}

// closeSession sends session/close for the scenario's session when the
// agent offers it, once the session was open and while the agent runs, and
// records the answer. It waits until the agent has been silent for
// closeTimeout, closeBound at most, and not past the scenario's deadline
// (once that has passed it sends nothing), cancelGrace after the scenario
// was cut short (graceAfter) or a second interrupt. An agent
// whose output ends before it answers (it ended after its last turn) gets
// no record, as one whose end was seen before the send: which of the two
// it is depends on timing alone.
func (r *scenarioRun) closeSession(scCtx context.Context) {
	id := r.sess.currentSessionID()
	if !r.opened || id == "" || !r.proc.offersClose() || isClosed(r.agent.Exited()) || isClosed(r.agent.Conn.ReadDone()) || deadlinePassed(scCtx) {
		return
	}
	r.sendClose(scCtx, id)
}

// sendClose sends session/close for session id and records the answer, as
// closeSession says.
func (r *scenarioRun) sendClose(scCtx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), closeBound)
	defer cancel()
	limit := fmt.Sprintf("within %s", closeBound)
	if d, ok := scCtx.Deadline(); ok && time.Until(d) < closeBound {
		ctx, cancel = context.WithDeadline(ctx, d)
		defer cancel()
		limit = "before " + causeText(cancelCause(r.deadlineCause(d)))
	}
	ctx, cancelAbort := untilAbort(ctx, r.opts.Abort)
	defer cancelAbort()
	grace := r.limits().CancelGrace
	ctx, stopGrace := graceAfter(ctx, scCtx, grace)
	defer stopGrace()
	ctx, silent := context.WithCancelCause(ctx)
	defer silent(nil)
	go r.sess.act.watchIdle(ctx, silent, closeTimeout, r.agent.Conn)
	start := time.Now()
	call := r.agent.Conn.NewCall(acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: id})
	r.proc.bind.closing(id, call) // before the answer can come
	r.agent.Conn.Send(ctx, call)
	err := r.awaitClose(ctx, call)
	if errors.Is(err, acp.ErrClosed) {
		return // the agent's output ended first: see closeSession
	}
	c := &report.SessionClose{OK: err == nil, DurationMs: time.Since(start).Milliseconds()}
	var ae *acp.Error
	var ia *acp.InvalidAnswerError
	switch {
	case err == nil:
	case errors.As(err, &ae):
		c.Error = ae.Summary()
	case errors.As(err, &ia):
		c.Error = "invalid answer: " + ia.Problem
	case isClosed(r.opts.Abort):
		c.Error = "not answered before a second interrupt"
	case errors.Is(err, errCloseGrace):
		c.Error = fmt.Sprintf("not answered within cancelGrace (%s) after %s", grace, stopReason(scCtx))
	case errors.Is(err, errIdleTimeout):
		c.Error = fmt.Sprintf("not answered: the agent was silent for %s", closeTimeout)
	default:
		c.Error = "not answered " + limit
	}
	if !c.OK {
		r.res.Warnings = append(r.res.Warnings, "session/close: "+c.Error+"; the agent was stopped as after an error (killGrace)")
	}
	r.res.SessionClose = c
}

// errCloseGrace ends the wait for the answer to session/close cancelGrace
// after the scenario was cut short (see graceAfter).
var errCloseGrace = errors.New("cancelGrace passed after the scenario was cut short")

// graceAfter returns ctx, ended with errCloseGrace once grace has passed
// since scCtx ended (an interrupt, --fail-fast=cancel; a deadline clips
// ctx itself), whenever it ended: a cut-short scenario's agent gets
// cancelGrace to answer session/close, as it gets it to answer
// session/cancel, however long it keeps talking.
func graceAfter(ctx, scCtx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-scCtx.Done():
		case <-ctx.Done():
			return
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel(errCloseGrace)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// awaitClose waits for the answer to call, session/close, within ctx. A
// write of it that the agent refused (it exited, or closed its input) is
// waited out as an answer that does not come: until the agent's output
// ends (an error wrapping acp.ErrClosed) or ctx does (its cause), as when
// its pipe still took the line.
func (r *scenarioRun) awaitClose(ctx context.Context, call *acp.Call) error {
	err := call.Await(ctx, nil)
	var ae *acp.Error
	var ia *acp.InvalidAnswerError
	if err == nil || errors.As(err, &ae) || errors.As(err, &ia) || errors.Is(err, acp.ErrClosed) || ctx.Err() != nil {
		return err // an answer, the output's end, or ctx's
	}
	select {
	case <-r.agent.Conn.ReadDone():
		return fmt.Errorf("session/close: %w", acp.ErrClosed)
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// deadlinePassed reports whether scCtx ended at the scenario's or the
// run's deadline (not at an interrupt).
func deadlinePassed(scCtx context.Context) bool {
	cause := context.Cause(scCtx)
	return errors.Is(cause, errScenarioTimeout) || errors.Is(cause, ErrRunTimeout)
}

// cleanEnd reports whether the scenario ended cleanly: the session opened,
// every turn ran and was answered by the agent with a stop reason, none
// was cancelled by acprun, nothing was interrupted, timed out or failed,
// and the agent answered session/close. Nothing of the agent's is left to
// wait for then. Without session/close the agent may still be sending the
// session's late updates (after the last answer) when its input ends: it
// gets killGrace to exit by itself, so what is recorded does not depend on
// how fast it sends them.
func (r *scenarioRun) cleanEnd(scCtx context.Context) bool {
	if scCtx.Err() != nil || !r.opened || r.res.Error != "" || len(r.res.Turns) != len(r.sc.Turns) {
		return false
	}
	if c := r.res.SessionClose; c == nil || !c.OK {
		return false // the session is not closed: the agent may still send some of it
	}
	for _, t := range r.res.Turns {
		if t.CancelCause != "" || t.StopReason == "" || report.IsOutcome(t.StopReason) {
			return false
		}
	}
	return true
}

// unfit says why the scenario's pooled process must not serve another
// scenario; "" when it may. One that exited or closed its output is
// waited for up to killGrace, and said to have exited when it does (see
// Agent.endReason). Once session/close was answered it first drains the
// session (see drain). Last it kills what the agent left
// running outside its process group during the scenario (the scenario's
// warnings): a process that left some is not kept either.
func (r *scenarioRun) unfit(scCtx context.Context) string {
	for _, t := range r.res.Turns {
		switch t.StopReason {
		case report.OutcomeAgentExited, report.OutcomeUnresponsive:
			return fmt.Sprintf("turn %d ended %s", t.Index, t.StopReason)
		}
	}
	quiet := true
	if c := r.res.SessionClose; c != nil && c.OK && scCtx.Err() == nil {
		quiet = r.drain(scCtx)
	}
	switch {
	case isClosed(r.agent.Exited()) || isClosed(r.agent.Conn.ReadDone()):
		ctx, cancel := untilAbort(scCtx, r.opts.Abort)
		defer cancel()
		return r.agent.endReason(ctx, r.limits().KillGrace)
	case scCtx.Err() != nil:
		return stopReason(scCtx)
	case !r.opened:
		return "the session did not open"
	case r.res.SessionClose == nil || !r.res.SessionClose.OK:
		return "session/close failed"
	case !quiet:
		return "the agent did not go quiet after session/close was answered: it kept sending, or acprun was still serving one of its requests"
	case r.sess.violated():
		return "the agent broke the protocol (see violations)"
	}
	if stray := r.proc.bind.strayProblem(); stray != "" {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("agent process %s (pid %d): %s; it was no scenario's (dropped, or refused for a request), and the process is not reused", r.proc.id, r.agent.Pid(), stray))
		return stray
	}
	if n := r.sess.client.terms.Running(); n > 0 {
		return fmt.Sprintf("the agent left %d terminal(s) running", n)
	}
	if left := r.proc.mark.KillOutside(r.agent.Pid()); len(left) > 0 {
		r.warnLeftovers(left)
		return "processes it started left its process group"
	}
	return ""
}

// drain waits, once session/close was answered, until the agent has been
// quiet for settleQuiet and every request of the session that acprun was
// serving has been answered, as before a prompt (waitQuiet): what the
// agent sends in that time is still the scenario's (its updates late,
// its requests for the closed session refused, see binding), every run,
// and nothing of the session is left running when the process goes back
// to its pool. It reports whether the agent became quiet; false for one
// that kept busy (or talking) for settleMax.
func (r *scenarioRun) drain(scCtx context.Context) bool {
	conn := r.agent.Conn
	r.sess.act.waitQuiet(scCtx, conn, settleQuiet, settleMax, r.agent.Exited())
	return r.sess.act.idleFor(time.Now(), conn.Lag()) >= settleQuiet
}

// keep gives the scenario's pooled process back to its pool, unbound: what
// it wrote to stderr so far is the scenario's.
func (r *scenarioRun) keep() {
	p := r.proc
	r.res.Agent.Stop = report.StopKept
	p.bind.served(r.sess.currentSessionID())
	p.bind.unbind()
	p.bindRoutes(nil)
	r.stderr = r.agent.TakeStderr(r.red)
	p.killGrace = r.limits().KillGrace
	p.pool.put(p)
}

// stop stops the scenario's agent process (see stopAgent): sooner after a
// clean end. What it left running outside its process group is killed,
// when it carries a mark of its own (the scenario's is swept at the end).
func (r *scenarioRun) stop(scCtx context.Context, clean bool) {
	abortCtx, cancel := untilAbort(context.Background(), r.opts.Abort)
	defer cancel()
	grace := r.limits().KillGrace
	eofWait := grace
	r.res.Agent.Stop = report.StopGrace
	if clean {
		eofWait = cleanEndWait
		r.res.Agent.Stop = report.StopClean
	}
	deadline, _ := scCtx.Deadline()
	passed := deadlinePassed(scCtx) // before the stop: the timeout is the scenario's error
	killed, late := r.agent.CloseAfter(abortCtx, eofWait, grace, deadline)
	switch {
	case !killed || abortCtx.Err() != nil || passed:
	case late:
		<-scCtx.Done() // its deadline has passed: at once
		which := "the run's --timeout"
		if errors.Is(context.Cause(scCtx), errScenarioTimeout) {
			which = fmt.Sprintf("the scenario timeout (%s)", r.sc.Timeout)
		}
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("the agent had not exited by %s, after the end of its input; it was killed (SIGKILL)", which))
	case clean:
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("the agent did not exit within %s of the end of its input (the scenario had ended cleanly), nor within killGrace (%s) of SIGTERM; it was killed (SIGKILL)", cleanEndWait, grace))
	default:
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("the agent did not exit within killGrace (%s) of the end of its input, nor of SIGTERM; it was killed (SIGKILL)", grace))
	}
	p := r.proc
	p.bind.unbind()
	p.closeRoutes()
	r.stderr = r.agent.TakeStderr(r.red)
	if p.mark != r.mark {
		r.warnLeftovers(p.mark.Kill())
	}
	if p.slot {
		r.opts.procs.release()
	}
}
