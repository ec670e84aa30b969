package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// This file is what acprun does when opening a session goes wrong in a
// way the results name (report.Result.ErrorCause): a setup request that
// outlives its deadline gets $/cancel_request before the agent is
// stopped, so that a slow agent is told from a dead one; an agent that
// asks for authentication is told how to give it; one that speaks another
// protocol version is sent nothing more.

// errSetupTimeout is the cause of the setup's context when setupTimeout
// passes.
var errSetupTimeout error = &stopCause{"setup timeout", report.CauseSetupTimeout}

// setupWait says how a setup request that outlives its deadline is
// cancelled: grace is how long the agent gets to answer $/cancel_request
// (the scenario's cancelGrace) and abort (a second interrupt) cuts it
// short. The zero setupWait sends no $/cancel_request: a probe's timeout
// bounds the probe whole.
type setupWait struct {
	grace time.Duration
	abort <-chan struct{}
	// held names the agent's requests that wait for the session's id, as
	// heldRequests does; nil: none can.
	held func() string
}

// setupWait is how the scenario's setup requests are cancelled.
func (r *scenarioRun) setupWait() setupWait {
	return setupWait{grace: r.limits().CancelGrace, abort: r.opts.Abort, held: r.sess.heldRequests}
}

// call sends method and waits for its answer into result until ctx ends,
// as Call and Await do. When ctx ends first with the request sent, it
// sends $/cancel_request for it and waits w.grace for the answer the
// protocol still owes (a -32800 error, or a result), and returns a
// *setupTimeoutError that says how the agent took it. An answer that came
// by the deadline wins.
func (w setupWait) call(ctx context.Context, conn *acp.Conn, method string, params, result any) error {
	call := conn.Call(ctx, method, params)
	err := call.Await(ctx, result)
	if err == nil || ctx.Err() == nil || !isContextErr(err) || w.grace <= 0 {
		return err
	}
	if isClosed(call.Done()) { // answered by the deadline, or not written at all: nothing to cancel
		if err2 := call.Await(context.Background(), result); err2 == nil || !isContextErr(err2) {
			return err2
		}
		return err
	}
	te := &setupTimeoutError{rec: report.SetupCancel{Method: method, Cause: cancelCause(context.Cause(ctx))}, why: stopReason(ctx), grace: w.grace}
	if w.held != nil {
		te.held = w.held()
	}
	start := time.Now()
	notifyCtx, cancelNotify := context.WithTimeout(context.Background(), time.Second)
	err = conn.Notify(notifyCtx, acp.MethodCancelRequest, acp.CancelRequestNotification{RequestID: call.ID()})
	cancelNotify()
	if err != nil && !errors.Is(err, acp.ErrClosed) {
		te.unsent = true // the agent does not read its input: no answer can come
		te.rec.Answer = report.AnswerNone
		return te
	}
	timeoutCtx, cancelTimeout := context.WithTimeout(context.Background(), w.grace)
	defer cancelTimeout()
	graceCtx, cancelGrace := untilAbort(timeoutCtx, w.abort)
	defer cancelGrace()
	err = call.Await(graceCtx, result)
	te.rec.WaitedMs = time.Since(start).Milliseconds()
	var ae *acp.Error
	switch {
	case err == nil:
		te.rec.Answer = report.AnswerLate
	case errors.As(err, &ae) && ae.Code == acp.CodeRequestCancelled:
		te.rec.Answer = report.AnswerCancelled
	case errors.As(err, &ae):
		te.rec.Answer, te.rec.Error = report.AnswerError, ae.Summary()
	case wentAway(err):
		te.rec.Answer = report.AnswerExited
	default:
		te.rec.Answer = report.AnswerNone
		te.aborted = timeoutCtx.Err() == nil
	}
	return te
}

// setupTimeoutError is a setup request that was not answered by its
// deadline, and how the agent answered the $/cancel_request that followed.
type setupTimeoutError struct {
	rec     report.SetupCancel
	why     string // stopReason of the request's context
	grace   time.Duration
	unsent  bool // $/cancel_request could not be written
	aborted bool // a second interrupt ended the wait for its answer
	// held names the agent's requests that waited for the session's id
	// meanwhile (see session.heldRequests); "" for none.
	held string
}

func (e *setupTimeoutError) Error() string {
	if e.held == "" {
		return e.error()
	}
	return e.error() + "; " + e.held
}

func (e *setupTimeoutError) error() string {
	deadline := "before " + e.why
	if e.rec.Cause == report.CauseSetupTimeout {
		deadline = fmt.Sprintf("within the setup timeout (%s)", setupTimeout)
	}
	var answer string
	switch {
	case e.unsent:
		return fmt.Sprintf("not answered %s, and acprun could not send $/cancel_request: the agent does not read its input (hung)", deadline)
	case e.rec.Answer == report.AnswerCancelled:
		answer = "the agent answered it cancelled (code -32800): it is alive, and slow"
	case e.rec.Answer == report.AnswerLate:
		answer = "the agent answered the request after all: it is alive, and too slow"
	case e.rec.Answer == report.AnswerError:
		answer = "the agent answered the request with an error: " + e.rec.Error
	case e.rec.Answer == report.AnswerExited:
		answer = "the agent closed its output before answering"
	case e.aborted:
		answer = "no answer came before a second interrupt"
	default:
		answer = fmt.Sprintf("the agent did not answer within cancelGrace (%s): it is hung or dead", e.grace)
	}
	return fmt.Sprintf("not answered %s; acprun sent $/cancel_request and %s", deadline, answer)
}

// causeError is an error of the handshake whose cause the results name
// (report.ErrorAuth, report.ErrorProtocolVersion).
type causeError struct {
	cause string
	err   error
}

func (e *causeError) Error() string { return e.err.Error() }
func (e *causeError) Unwrap() error { return e.err }

// noteSetupError records in the result why the session could not be
// opened (its ErrorCause, the $/cancel_request sent), and returns err
// positioned at the scenario's agent when it is about the agent's
// authentication or protocol version.
func (r *scenarioRun) noteSetupError(err error) error {
	var te *setupTimeoutError
	if errors.As(err, &te) {
		rec := te.rec
		r.res.SetupCancel = &rec
		if !report.ExternalCause(rec.Cause) {
			r.res.ErrorCause = report.ErrorSetupTimeout
		}
		return err
	}
	var ce *causeError
	if !errors.As(err, &ce) {
		return err
	}
	r.res.ErrorCause = ce.cause
	if p := r.sc.Agent.Pos; p.Line > 0 {
		return fmt.Errorf("%s: agent: %w", p, err)
	}
	return err
}

// versionError says that the agent answered initialize with version v,
// which acprun does not speak.
func versionError(v int) error {
	err := fmt.Errorf("initialize: the agent speaks ACP protocol version %d, which acprun does not support (acprun speaks version %d); acprun sent it nothing more", v, acp.ProtocolVersion)
	if v > acp.ProtocolVersion {
		err = fmt.Errorf("initialize: the agent speaks ACP protocol version %d, which acprun does not support yet (acprun speaks version %d); acprun sent it nothing more: use a release of the agent that speaks version %d", v, acp.ProtocolVersion, acp.ProtocolVersion)
	}
	return &causeError{report.ErrorProtocolVersion, err}
}

// authWords find an authentication error in an error message, for the
// agents that do not answer with auth_required's code.
var authWords = regexp.MustCompile(`(?i)\b(auth(entication|orization)? (is )?required|unauthori[sz]ed|unauthenticated|not (logged|signed) in|log ?in required|api[ _-]?key|credentials?)\b`)

// isAuthError reports whether err is the agent's answer that it needs
// authentication: auth_required (-32000), or an error that says so.
func isAuthError(err error) bool {
	var ae *acp.Error
	return errors.As(err, &ae) && (ae.Code == acp.CodeAuthRequired || authWords.MatchString(ae.Message))
}

// authError says that the agent answered method (session/new) with err,
// an authentication error: how to authenticate, from the methods it
// offers and the environment its registry entry expects.
func (h *handshake) authError(res *handshakeResult, method string, err error) error {
	var ids, terminal []string
	for _, m := range res.init.AuthMethods {
		switch {
		case m.Type != acp.AuthTypeTerminal:
			ids = append(ids, m.ID)
		case len(m.Args) > 0:
			terminal = append(terminal, fmt.Sprintf("%s: the agent's command with %s, in a terminal", m.ID, shorten(h.red, shellquote.Join(m.Args), maxShownData)))
		default:
			terminal = append(terminal, m.ID)
		}
	}
	launch := h.launchHint(res.init.AuthMethods, "")
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the agent requires authentication", method)
	switch {
	case res.authenticated != "":
		fmt.Fprintf(&b, " although acprun authenticated with %q first%s", res.authenticated, launch)
	case len(ids) > 0:
		fmt.Fprintf(&b, " (%s one of: %s%s)", h.authHint, strings.Join(ids, ", "), launch)
	case len(terminal) == 0:
		b.WriteString(" and offers no auth method")
	}
	if len(terminal) > 0 {
		fmt.Fprintf(&b, "; or log in once, by hand, with its terminal login (%s)", strings.Join(terminal, ", "))
	}
	b.WriteString(h.envHint())
	return &causeError{report.ErrorAuth, fmt.Errorf("%s: %w", b.String(), err)}
}

// envHint says which variables the agent's registry entry expects for its
// credentials and whether they are set ("; it expects ANTHROPIC_API_KEY
// (not set) in its environment"), or "" when none are known.
func (h *handshake) envHint() string {
	if len(h.authEnv) == 0 {
		return ""
	}
	return "; it expects " + strings.Join(h.authEnv, ", ") + " in its environment"
}

// unsetEnvHint is envHint when one of the variables is not set, for an
// error that need not be about authentication but may come of it (an
// agent that fails session/new with "Internal error" for want of its key),
// or "".
func (h *handshake) unsetEnvHint() string {
	for _, e := range h.authEnv {
		if strings.HasSuffix(e, " (not set)") {
			return h.envHint() + ", which may be why"
		}
	}
	return ""
}

// maxShownData caps the data of the agent's error shown in a message.
const maxShownData = 300

// withData adds to err, when it is the agent's JSON-RPC error answer, the
// error's data, compact and cut at maxShownData characters: an agent
// often says what went wrong there alone ({"details": "Query closed before
// response received"} under "Internal error").
func withData(red *redact.Redactor, err error) error {
	var ae *acp.Error
	if !errors.As(err, &ae) || len(ae.Data) == 0 || string(ae.Data) == "null" {
		return err
	}
	var b bytes.Buffer
	if json.Compact(&b, ae.Data) != nil {
		return err
	}
	return fmt.Errorf("%w (its data: %s)", err, shorten(red, b.String(), maxShownData))
}

// AuthEnv lists the variables a's registry entry expects for its
// credentials (a.AuthEnv), each said set or not set in its environment
// (environ, with agent.env on top): "ANTHROPIC_API_KEY (set)"; never their
// values. The auth error and acprun agents say them.
func AuthEnv(a scenario.Agent, environ []string) []string {
	var out []string
	env := mergeEnv(environ, a.Env)
	for _, name := range a.AuthEnv {
		state := "not set"
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name && v != "" {
				state = "set"
			}
		}
		out = append(out, fmt.Sprintf("%s (%s)", name, state))
	}
	return out
}
