package runner

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/attach"
	"github.com/acprun/acprun/replay"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// runTurn runs turn i and returns its result, checked on what the agent
// sent before the prompt's answer. The checks of the workspace the turn
// left (files, judge) wait for the agent to be quiet (see checkWork).
func (r *scenarioRun) runTurn(ctx context.Context, i int) report.TurnResult {
	turn := r.sc.Turns[i]
	start := time.Now()
	prompt, warnings := r.promptBlocks(turn)
	t := r.sess.startTurn(i+1, turn.PromptText(), warnings, r.dropText(turn.Expect))

	lim := r.limits()
	turnCtx, cancel := context.WithTimeoutCause(ctx, lim.Turns[i], errTurnTimeout)
	defer cancel()
	if idle := lim.Idle; idle > 0 {
		var cancelIdle context.CancelCauseFunc
		turnCtx, cancelIdle = context.WithCancelCause(turnCtx)
		defer cancelIdle(nil)
		go r.sess.act.watchIdle(turnCtx, cancelIdle, idle, r.agent.Conn)
	}
	if b := r.watchBudget(i); b != nil {
		turnCtx, b.cancel = context.WithCancelCause(turnCtx)
		defer b.cancel(nil)
		r.sess.watch(t, b)
	}
	var aboveGateway context.Context // turnCtx without the gateway's stop; nil without a gateway
	if r.gw != nil {
		var stop context.CancelCauseFunc
		aboveGateway = turnCtx
		turnCtx, stop = context.WithCancelCause(turnCtx)
		defer stop(nil)
		r.sess.watchGateway(t, stop, r.gw.Spent())
	}

	// turnCtx also bounds the write: an agent that stops reading its stdin
	// cannot hold the turn past its deadline.
	req := acp.PromptRequest{SessionID: r.sess.sessionID, Prompt: prompt}
	call := r.sess.sendPrompt(turnCtx, t, r.agent.Conn, req)
	var resp acp.PromptResponse
	var out turnOutcome
	expired, err := awaitAnswer(turnCtx, t, call, &resp)
	if expired {
		cause := context.Cause(turnCtx)
		out.cancelCause = cancelCause(cause)
		var answeredFirst bool
		answeredFirst, err = r.cancel(t, call, &resp, cancelMeta(out.cancelCause, foundAtGateway(aboveGateway, cause)))
		// Ignored only by an answer read after the cancel was written: one
		// already on its way could not heed it. A turn cancelled in the
		// stream, by the update that passed a budget, never is: where the
		// agent read the cancel is not in its stream, and the same
		// messages must give the same result however fast the runner got
		// to the cancel (see budgetWatch).
		out.cancelIgnored = err == nil && resp.StopReason != acp.StopCancelled && !answeredFirst && !r.sess.budgetPassed(t)
	}
	r.answered(ctx, &out, resp, err)
	out.duration = time.Since(start)
	spent := r.gatewaySpent()
	if u := r.gatewayUsage(t, spent); u != nil {
		out.usage = u // what the model reported, not what the agent says it did
	}
	gwFailure := r.sess.gatewayFailure(t)
	if out.cancelCause == report.CauseDivergence && gwFailure == "" {
		// The turn had answered before its cancel went out, so before the
		// request that diverged was answered: it did not wait on it (a
		// background request), and finished by itself (see gatewayEvent).
		out.cancelCause = ""
	}
	graceCtx, cancelGrace := context.WithTimeout(context.Background(), lim.CancelGrace)
	defer cancelGrace()
	answersCtx, cancelAnswers := untilAbort(graceCtx, r.opts.Abort)
	defer cancelAnswers()
	rec := r.sess.finish(answersCtx, t, out)
	switch {
	case gwFailure != "" || r.sess.budgetPassed(t):
		// The gateway refused the agent's requests: whatever error the
		// agent answered with is the gateway's doing, not its provider's.
	case out.upstream != "" && !slices.Contains(turn.Expect.StopReasons, report.OutcomeError):
		// Unless the turn expects an error: then the error is what it measures.
		r.invalidate(report.InvalidUpstream, fmt.Sprintf("turn %d: %s; the provider refused the work: %s", rec.Index, rec.Error, out.upstream), nil)
	default:
		if n, why := upstreamNotice(rec.Notices); n != nil {
			r.invalidate(report.InvalidUpstream, fmt.Sprintf("turn %d: the agent's error notice %s; the provider refused the work: %s", rec.Index, noticeQuoted(*n), why), nil)
		}
	}
	failures := checkTurn(r.red, turn.Expect, &rec)
	if out.replayDiverged != "" {
		// The error is the replay's, not the recorded agent's: the turn
		// fails whatever it expects (an expected stopReason error too),
		// and the divergence says why.
		failures = []string{out.replayDiverged}
	}
	if gwFailure != "" {
		if rec.CancelCause == report.CauseDivergence {
			// The replay went off its cassette: what the turn did after is
			// not the agent's measure, and the divergence says why.
			failures = nil
		}
		failures = append(failures, gwFailure)
	}
	if e := turn.Expect.Usage; e != nil {
		failures = append(failures, checkTurnUsage(e, &rec, r.turnSpent(i), r.sc.CostCurrency())...)
	}
	if over := r.sess.budgetFailure(t, &rec, spent); over != "" {
		failures = append(failures, over)
		r.overBudget = fmt.Sprintf("turn %d passed a budget", rec.Index)
	}
	r.sess.checked(t, failures, nil)
	rec.Failures = append(slices.Clip(failures), rec.Failures...) // as snapshot has them: the tool calls that ran unasked last
	r.unchecked = rec.Index
	return rec
}

// checkWork checks the workspace the last turn played left, its files, and
// asks its judge, unless that was done; then the turn is over, and the
// Observer is told. It runs once the agent has been quiet after the turn's
// answer: before the next prompt, after the wait for quiet (playTurns), or
// after the last turn once the agent has stopped (play). Its fs/* and
// terminal/* requests meanwhile wait for the checks to end.
func (r *scenarioRun) checkWork(ctx context.Context) {
	index := r.unchecked
	if index == 0 {
		return
	}
	r.unchecked = 0
	t := r.sess.turnState(index)
	release := r.sess.holdRequests(t)
	rec := r.sess.snapshot(t)
	failures := r.checkTurnWork(ctx, r.sc.Turns[index-1].Expect, &rec)
	release()
	r.sess.checked(t, failures, rec.Judge)
	r.res.Turns[index-1] = r.sess.snapshot(t)
	r.jo.turn(r.res.Turns[index-1])
}

// answered records in out how the prompt was answered: resp, or the
// error err that came instead. ctx bounds the wait for an agent whose
// output ended to exit (exitDescription).
func (r *scenarioRun) answered(ctx context.Context, out *turnOutcome, resp acp.PromptResponse, err error) {
	var ae *acp.Error
	var ia *acp.InvalidAnswerError
	switch {
	case err == nil:
		out.stopReason, out.usage = string(resp.StopReason), promptUsage(resp.Usage)
		for _, m := range resp.Malformed {
			r.sess.violation(fmt.Sprintf("session/prompt: %s", m))
		}
		switch {
		case out.stopReason == "":
			out.stopReason = report.OutcomeError
			out.err = "the agent answered session/prompt without a stopReason"
		case report.IsOutcome(out.stopReason):
			// The agent answered: it neither exited nor hung, and its turn
			// ran. A name of acprun's outcomes must not pass for one.
			out.stopReason = report.OutcomeError
			out.err = fmt.Sprintf("the agent answered session/prompt with stopReason %q: not an ACP stop reason but a name acprun reserves for its own outcomes (a protocol violation)", resp.StopReason)
		}
	case errors.Is(err, errNotSent):
		out.stopReason = report.OutcomeSkipped
		out.err = err.Error()
	case errors.Is(err, errUnresponsive):
		out.stopReason = report.OutcomeUnresponsive
		out.err = strings.TrimPrefix(err.Error(), errUnresponsive.Error()+": ")
	case r.stoppedReading(ctx, err):
		r.agent.Kill()
		out.stopReason = report.OutcomeUnresponsive
		out.err = errStoppedReading
	case wentAway(err):
		// EPIPE: the prompt was written to an agent that is exiting.
		out.stopReason = report.OutcomeAgentExited
		out.err = r.exitDescription(ctx)
	case errors.As(err, &ae):
		out.stopReason = report.OutcomeError
		out.err = "session/prompt: " + ae.Summary()
		if out.replayDiverged = r.replayDivergence(ae); out.replayDiverged == "" {
			out.upstream = upstream(ae) // (a divergence quotes the prompt, not a provider)
		}
		switch {
		case len(ae.Data) == 0 || string(ae.Data) == "null":
		case len(ae.Data) > maxErrorData:
			out.err += fmt.Sprintf("; its data (%d bytes) was not kept: over %d bytes", len(ae.Data), maxErrorData)
		default:
			out.errData = ae.Data
		}
	case errors.As(err, &ia):
		out.stopReason = report.OutcomeError
		out.err = "session/prompt: invalid answer: " + ia.Problem
	default:
		out.stopReason = report.OutcomeError
		out.err = fmt.Sprintf("session/prompt: %v", err)
	}
}

// dropText reports whether a turn with expectations e keeps no text: with
// Options.NoText, unless its expectations or a judge read the text.
func (r *scenarioRun) dropText(e scenario.Expect) bool {
	return r.opts.NoText && len(e.TextContains) == 0 && e.TextMatches == nil && len(e.TextNotContains) == 0 && len(e.TextNotMatches) == 0 &&
		e.Judge == nil && r.sc.Expect.Judge == nil
}

// checkTurnWork checks the turn's files in the workspace as the turn left
// them, and asks its judge (askJudge).
func (r *scenarioRun) checkTurnWork(ctx context.Context, e scenario.Expect, rec *report.TurnResult) []string {
	fails := r.checkFiles(e.Files)
	jr, fail := r.askJudge(ctx, e.Judge, func() string { return rec.Text }, turnJudgeWhat(rec.Index), fmt.Sprintf("the judge of turn %d", rec.Index))
	rec.Judge = jr // nil when not asked, as it was
	if fail != "" {
		fails = append(fails, fail)
	}
	return fails
}

// askJudge asks judge j (nil for none) about text() unless the run has
// ended or the attempt is already an error (see errored), and returns its
// verdict (nil when not asked) and the failure it gives ("" for none).
// what names it in its transcript's name (see judge), whose in what the
// end of the run cut short ("its judge", "the judge of turn 2").
func (r *scenarioRun) askJudge(ctx context.Context, j *scenario.Judge, text func() string, what, whose string) (*report.JudgeResult, string) {
	switch {
	case j == nil:
		return nil, ""
	case ctx.Err() != nil:
		r.cutShort("before " + whose + " was asked")
		return nil, judgeNotAsked(j, stopReason(ctx))
	case r.errored():
		return nil, judgeNotAsked(j, notAskedErrored)
	}
	if err := r.followHidden(ctx); err != nil {
		return nil, judgeNotAsked(j, fmt.Sprintf("it could read what the sandbox hides: %v", err))
	}
	jr, fail := r.judge(ctx, j, text(), what)
	if !jr.Passed {
		r.cutShort("while " + whose + " was asked")
	}
	return jr, fail
}

// awaitAnswer waits for turn t's answer to call until ctx ends. expired
// reports that the turn must be cancelled: ctx ended and no answer had
// come, or the turn was cancelled in the stream before its answer.
func awaitAnswer(ctx context.Context, t *turnState, call *acp.Call, resp *acp.PromptResponse) (expired bool, err error) {
	return afterAwait(ctx, t, call, resp, call.Await(ctx, resp))
}

// afterAwait decides what err, returned by call.Await(ctx, resp), means.
// A turn marked cancelled in the stream, by an update that came before its
// answer (a budget passed, see spend), is cancelled whether or not its
// answer has been dispatched since: the stream decides, not which of the
// runner and the connection got there first. Otherwise an answer
// dispatched by the time the deadline is handled wins: a turn that
// finished by itself is never cancelled nor flagged.
func afterAwait(ctx context.Context, t *turnState, call *acp.Call, resp *acp.PromptResponse, err error) (expired bool, _ error) {
	// Once Await returned the answer, every update before it was handled:
	// cancelled is closed by then if one of them cancelled the turn.
	if isClosed(t.cancelled) {
		return true, err
	}
	if err == nil || ctx.Err() == nil || !isContextErr(err) {
		return false, err
	}
	if isClosed(call.Done()) {
		// Done also when the call failed here (its write was cut short):
		// only an answer, or the end of the connection, wins.
		if err2 := call.Await(context.Background(), resp); err2 == nil || !isContextErr(err2) {
			return false, err2
		}
	}
	return true, err
}

// maxErrorData caps the data of session/prompt's JSON-RPC error kept in a
// turn's result: the agent is untrusted and its data is free-form.
const maxErrorData = 16 << 10

// turnOutcome is how a turn ended, as the runner saw it.
type turnOutcome struct {
	stopReason    string
	cancelCause   string
	cancelIgnored bool
	err           string
	errData       json.RawMessage // the data of session/prompt's JSON-RPC error
	// upstream, when not empty, says what in that error says the agent's
	// provider refused the work (a rate limit, a quota, an overload): the
	// attempt is invalid.
	upstream string
	// replayDiverged is the divergence a replay (agent: {replay: …})
	// answered the prompt with: acprun's messages parted from the
	// recording, and the turn is no measure of the recorded agent.
	replayDiverged string
	usage          *report.Usage
	duration       time.Duration
}

var (
	errUnresponsive = errors.New("unresponsive")
	// errNotSent: the turn's deadline (or an interrupt) came before its
	// prompt was written; the turn never ran.
	errNotSent = errors.New("the prompt was not sent: the turn was cancelled before it was written")
)

// cancel runs the protocol's cancel steps for a turn whose deadline passed
// (or that passed a budget): session/cancel, pending permission requests
// answered cancelled, tool calls marked cancelled, then a grace period for
// the prompt's answer. When no answer comes the agent is killed and
// errUnresponsive returned. answeredFirst reports that the answer had been
// read when session/cancel was about to be written: it cannot be the
// agent's answer to the cancel. An answer already handled (a turn that
// passed a budget in the stream) gets no session/cancel: its turn is over.
// The cancel's _meta is meta (cancelMeta: its cause, report.MetaCancelCause,
// and whether the gateway found it, report.MetaCancelAt), so that a
// transcript says why acprun cancelled: a replay cannot play past a cancel
// whose cause was outside the scenario, and does not wait for one whose
// cause was at the gateway.
func (r *scenarioRun) cancel(t *turnState, call *acp.Call, resp *acp.PromptResponse, meta json.RawMessage) (answeredFirst bool, _ error) {
	r.sess.cancelTurn(t)
	// Taken before the write: once the cancel is out, the agent's answer to
	// it may be read before Notify returns.
	answeredFirst = call.Answered()
	if answeredFirst && isClosed(call.Done()) {
		// The answer was handled already (a turn that passed a budget in
		// the stream, see afterAwait): there is no turn left to cancel.
		r.sess.sentCancel(t, true)
		return true, call.Await(context.Background(), resp)
	}
	// cancelGrace bounds the whole: the write of session/cancel (after the
	// rest of a prompt whose write the deadline cut short) and the wait
	// for the answer, so that an agent that reads late gets the same
	// outcome whatever the size of its prompt.
	grace := r.limits().CancelGrace
	start, lag0 := time.Now(), r.agent.Conn.Lag().Total
	timeoutCtx, cancelTimeout := context.WithTimeout(context.Background(), grace)
	defer cancelTimeout()
	graceCtx, cancelGrace := untilAbort(timeoutCtx, r.opts.Abort)
	defer cancelGrace()
	err := r.agent.Conn.Notify(graceCtx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: r.sess.sessionID, Meta: meta})
	r.sess.sentCancel(t, answeredFirst)
	// The turn's context may be over (a timeout): the wait for an agent
	// that closed its input is bounded by killGrace alone.
	if err != nil && !errors.Is(err, acp.ErrClosed) && (!errors.Is(err, syscall.EPIPE) || r.stoppedReading(context.Background(), err)) {
		// The agent does not read what we write: it cannot be cancelled.
		// (An agent that is exiting is told by the prompt's end.)
		r.agent.Kill()
		switch {
		case errors.Is(err, syscall.EPIPE):
			return answeredFirst, fmt.Errorf("%w: %s", errUnresponsive, errStoppedReading)
		case timeoutCtx.Err() == nil && graceCtx.Err() != nil:
			return answeredFirst, fmt.Errorf("%w: the agent did not read session/cancel before a second interrupt; it was stopped", errUnresponsive)
		}
		return answeredFirst, fmt.Errorf("%w: the agent did not read its input within %s (cancelGrace); it was stopped", errUnresponsive, grace)
	}
	if isClosed(call.Done()) {
		// Ended without an answer while the stream is sound (the cancel
		// went out): the deadline came before a byte of the prompt was
		// written, so the agent never got it.
		if err := call.Await(context.Background(), nil); err != nil && isContextErr(err) {
			return answeredFirst, errNotSent
		}
	}
	aborted, err := r.awaitCancelled(call, resp, start, lag0, grace)
	if err != nil && isContextErr(err) {
		r.agent.Kill()
		if aborted {
			return answeredFirst, fmt.Errorf("%w: no answer to session/cancel before a second interrupt; the agent was stopped", errUnresponsive)
		}
		return answeredFirst, fmt.Errorf("%w: no answer to session/cancel within %s; the agent was stopped", errUnresponsive, grace)
	}
	return answeredFirst, err
}

// awaitCancelled waits for the answer to a cancelled prompt's call into
// resp, until grace after start, the cancel's, plus the time acprun has
// been behind reading and handling what the agent sent since then
// (acp.Conn.Lag, from lag0), as the idle clock counts it: an agent whose
// answer waits behind a backlog acprun has not read yet (a flood that
// filled the pipe) is not unresponsive, however slowly acprun reads, and
// the same agent gets the same outcome every run. settleBound bounds what
// the lag adds (an agent that floods without end). aborted says a second
// interrupt ended the wait; err is the answer's (nil for an answer), or a
// context's when none came.
func (r *scenarioRun) awaitCancelled(call *acp.Call, resp *acp.PromptResponse, start time.Time, lag0, grace time.Duration) (aborted bool, err error) {
	abortCtx, stop := untilAbort(context.Background(), r.opts.Abort)
	defer stop()
	conn := r.agent.Conn
	last := start.Add(grace + settleBound)
	deadline := start.Add(grace)
	for {
		ctx, cancel := context.WithDeadline(abortCtx, deadline)
		err = call.Await(ctx, resp)
		cancel()
		switch {
		case err == nil || !isContextErr(err):
			return false, err // an answer, or the end of the connection
		case abortCtx.Err() != nil:
			return true, err
		}
		next := start.Add(grace + conn.Lag().Total - lag0)
		if next.After(last) {
			next = last
		}
		if !next.After(time.Now()) {
			return false, err
		}
		deadline = next
	}
}

// isContextErr reports whether err is not an answer (an *acp.Error) nor
// the end of the connection: a context's end.
func isContextErr(err error) bool {
	var ae *acp.Error
	return !errors.Is(err, acp.ErrClosed) && !errors.As(err, &ae)
}

// cancelMeta is the _meta of a session/cancel sent for cause, which the
// model gateway found when atGateway is set.
func cancelMeta(cause string, atGateway bool) json.RawMessage {
	m := map[string]string{report.MetaCancelCause: cause}
	if atGateway {
		m[report.MetaCancelAt] = report.CancelAtGateway
	}
	meta, _ := json.Marshal(m) // a map of strings always marshals
	return meta
}

// foundAtGateway reports whether cause, that of a turn's context, is one
// the gateway gave it (gatewayStop: a model request refused over a budget,
// or one that diverged from its cassette) rather than one of the contexts
// above the gateway's stop (a timeout, a budget passed by the usage the
// agent reported): above, the turn's context without that stop, has
// another cause, or none yet. above is nil without a gateway.
func foundAtGateway(above context.Context, cause error) bool {
	return above != nil && context.Cause(above) != cause
}

// stopCause is a cause acprun gives a context it ends (errTurnTimeout,
// errBudget…): its text, and its name in the results (report.Cause*).
type stopCause struct{ text, name string }

func (c *stopCause) Error() string { return c.text }

// cancelCause names the cause of a turn's context's end, as the results
// give it: a stopCause's name, else an interrupt.
func cancelCause(cause error) string {
	if c, ok := errors.AsType[*stopCause](cause); ok {
		return c.name
	}
	return report.CauseInterrupt
}

// exitDescription says how the agent ended once its connection did: how
// it exited, else that it closed its output. An agent exits before its
// files are closed (see proc.Process.Exiting), so one that is exiting when
// its connection ends is waited for; one that is not may still be about
// to (it closed its output first): it is waited for up to killGrace, or
// until ctx ends, before it is said to have closed its output (see
// Agent.exitsWithin).
func (r *scenarioRun) exitDescription(ctx context.Context) string {
	if !r.agent.exitsWithin(ctx, r.limits().KillGrace) {
		return "the agent closed its output"
	}
	r.res.ExitCode, r.res.Signal = r.agent.ExitStatus()
	return r.agent.exitReason()
}

// errStoppedReading says that the agent refused a write while it lives on.
const errStoppedReading = "the agent stopped reading its input; it was stopped"

// stoppedReading reports whether err is a write the agent refused (EPIPE:
// it closed its input) while it is not exiting: it lives on but reads
// nothing, and so cannot be prompted or cancelled. A write to an agent
// that is exiting fails the same way; that one is told by how it exited.
// An agent that closed its input may be about to exit too: it is waited
// for up to killGrace, or until ctx ends, as exitDescription waits, so
// that the same agent gets the same outcome every run.
func (r *scenarioRun) stoppedReading(ctx context.Context, err error) bool {
	return errors.Is(err, syscall.EPIPE) && !errors.Is(err, acp.ErrClosed) && !r.agent.exitsWithin(ctx, r.limits().KillGrace)
}

// fileURI is the file:// URI of an absolute path, escaped as RFC 8089 asks
// (a space is %20, a # or ? is not taken for a fragment or a query).
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// fileBlock embeds a file as attach.File decides: as text, or as a base64
// blob.
func fileBlock(uri, path string, data []byte) acp.ContentBlock {
	f := attach.File(path, data)
	if f.Text {
		return acp.ResourceBlock(uri, f.MimeType, string(data))
	}
	return acp.BlobResourceBlock(uri, f.MimeType, base64.StdEncoding.EncodeToString(data))
}

// promptBlocks builds the prompt's content blocks within what the agent
// accepts, with a warning for each part it had to change: a file or an
// image it cannot take goes as a resource_link, which every agent
// accepts, so no part is dropped and no prompt goes out empty (the
// client serves a linked file to fs/read_text_file: ClientConfig.Attached).
func (r *scenarioRun) promptBlocks(turn scenario.Turn) ([]acp.ContentBlock, []string) {
	caps := r.init.AgentCapabilities.PromptCapabilities
	var blocks []acp.ContentBlock
	var warnings []string
	for _, p := range turn.Prompt {
		path := cmp.Or(p.File, p.Image)
		if path == "" {
			blocks = append(blocks, acp.TextBlock(p.Text))
			continue
		}
		link := acp.ResourceLinkBlock(fileURI(path), filepath.Base(path))
		link.MimeType = p.MimeType // an image's; "" for a file
		switch {
		case p.File != "" && !caps.EmbeddedContext:
			// The client serves the linked file, as it is now, from now on.
			if data, err := r.opts.inputs.read(path, scenario.MaxAttachmentBytes); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: %v; the agent cannot read the file it is sent a link to", p.Pos, err))
			} else {
				r.sess.attached.Give(path, data)
			}
			blocks = append(blocks, link)
			continue
		case p.File == "" && !caps.Image:
			warnings = append(warnings, fmt.Sprintf("%s: the agent does not accept images (promptCapabilities.image); image %s sent as a link", p.Pos, filepath.Base(p.Image)))
			blocks = append(blocks, link)
			continue
		}
		data, err := r.opts.inputs.read(path, scenario.MaxAttachmentBytes)
		switch {
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("%s: %v; sent as a link", p.Pos, err))
			blocks = append(blocks, link)
		case p.File != "":
			r.sess.attached.Give(path, data) // the agent may read it too
			blocks = append(blocks, fileBlock(link.URI, p.File, data))
		case attach.Image(data) == "":
			warnings = append(warnings, fmt.Sprintf("%s: image %s is no longer a PNG, JPEG, GIF or WEBP image; sent as a link", p.Pos, filepath.Base(p.Image)))
			blocks = append(blocks, link)
		default:
			blocks = append(blocks, acp.ImageBlock(attach.Image(data), base64.StdEncoding.EncodeToString(data)))
		}
	}
	return blocks, warnings
}

// replayDivergence is the message of ae, the error a prompt was answered
// with, when it is a replay's divergence (replay.DivergedPrefix) and the
// agent is acprun's replay; "" otherwise. Another agent's error that says
// so is its own error.
func (r *scenarioRun) replayDivergence(ae *acp.Error) string {
	if tr, _ := r.sc.Agent.ReplayTranscript(); tr == "" || !strings.HasPrefix(ae.Message, replay.DivergedPrefix) {
		return ""
	}
	return r.red.String(ae.Message)
}
