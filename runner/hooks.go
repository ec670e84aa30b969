package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/acprun/acprun/internal/hook"
	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// tailLines is how much of a failed command's output a failure shows.
const tailLines = 20

// tailWidth caps each line of that output in a failure, in characters, as
// the excerpts of the agent's text and stderr are capped (output's
// excerptWidth): one long line would otherwise go whole into the
// failures, the summary, JUnit and annotations. The results keep the
// output itself (the command's stdout and stderr) uncut.
const tailWidth = 200

// shown is what the results and messages show of a command's output: hr's
// output redacted (see redactOutput), its beginning a cut where it was cut
// off, and its end one where the command was stopped (its timeout, the
// run's end) or killed by a signal, maybe in the middle of a write. What
// the command's expectations check is its output itself: contains and
// matches all of its stdout (hook.Command), the negative checks the part
// kept.
func (r *scenarioRun) shown(hr hook.Result) hook.Result {
	killed := hr.TimedOut || hr.Signal != "" || hr.Err != nil
	tail := func(s string, total int64) string { return redactOutput(r.red, s, int64(len(s)) < total, killed) }
	hr.Stdout, hr.Stderr = tail(hr.Stdout, hr.StdoutBytes), tail(hr.Stderr, hr.StderrBytes)
	return hr
}

// recorded is cr as the results keep it: its output as shown (see shown).
func (r *scenarioRun) recorded(cr report.CommandResult, hr hook.Result) report.CommandResult {
	hr = r.shown(hr)
	cr.Stdout, cr.Stderr = hr.Stdout, hr.Stderr
	return cr
}

// runCommand runs one setup, verify or teardown command in the workspace
// (or the session cwd) and records it; in a sandbox when sb is not nil
// (sandbox.Applied.Wrap).
func (r *scenarioRun) runCommand(ctx context.Context, cmd scenario.Command, sb *sandbox.Applied) (report.CommandResult, hook.Result) {
	hc := hook.Command{Run: cmd.Run, Dir: r.workDir(), Env: r.commandEnv(), Timeout: cmd.Limit()}
	// Looked for in all of stdout: what it must hold, then what it must
	// not (see verify).
	e := cmd.Expect
	value := func(l scenario.Located) string { return l.Value }
	re := func(p scenario.Pattern) *regexp.Regexp { return p.Re }
	hc.StdoutContains = append(mapped(e.StdoutContains, value), mapped(e.StdoutNotContains, value)...)
	if e.StdoutMatches != nil {
		hc.StdoutMatches = []*regexp.Regexp{e.StdoutMatches.Re}
	}
	hc.StdoutMatches = append(hc.StdoutMatches, mapped(e.StdoutNotMatches, re)...)
	if sb != nil {
		hc.Sandbox = sb.Wrap
	}
	hr := hook.Run(ctx, hc)
	cr := report.CommandResult{
		Run: cmd.Run, Line: cmd.Pos.Line,
		ExitCode: hr.ExitCode, Signal: hr.Signal, TimedOut: hr.TimedOut,
		DurationMs: hr.Duration.Milliseconds(),
		Stdout:     hr.Stdout, Stderr: hr.Stderr, StdoutBytes: hr.StdoutBytes, StderrBytes: hr.StderrBytes,
		Truncated: hr.Truncated, Sandboxed: sb != nil,
	}
	switch {
	case errors.Is(hr.Err, hook.ErrNotStarted):
		cr.Error = notRunPrefix + stopReason(ctx)
	case hr.Err != nil && ctx.Err() != nil:
		cr.Error = stoppedPrefix + stopReason(ctx)
	case hr.Err != nil:
		cr.Error = hr.Err.Error()
	}
	return cr, hr
}

// stoppedPrefix starts the Error of a command that acprun stopped because
// the scenario or the run ended.
const stoppedPrefix = "stopped: "

// notRunPrefix starts the Error of a command that never started because
// the scenario or the run had ended first: a verify command after the
// scenario's timeout, which has then not passed.
const notRunPrefix = "not run: "

// stopReason says why ctx ended, for messages: a stop at --fail-fast or
// --max-failures names the flag the user gave (failFastCause).
func stopReason(ctx context.Context) string {
	cause := context.Cause(ctx)
	if c, ok := errors.AsType[*failFastCause](cause); ok {
		return c.why
	}
	return causeText(cancelCause(cause))
}

// deadlineCause is the cause of d, the deadline of the scenario's context:
// the run's --timeout when that is no later, else the scenario's timeout.
func (r *scenarioRun) deadlineCause(d time.Time) error {
	if run, ok := r.runCtx.Deadline(); ok && !d.Before(run) {
		return ErrRunTimeout
	}
	return errScenarioTimeout
}

// causeText says what ended the run's or the scenario's context, by its
// cancel cause (report.CauseRunTimeout…), for messages: any cause but a
// deadline or --fail-fast is an interrupt. stopReason, when the context
// is at hand, says more.
func causeText(cause string) string {
	switch cause {
	case report.CauseScenarioTimeout:
		return "the scenario's timeout passed"
	case report.CauseRunTimeout:
		return "the run's --timeout passed"
	case report.CauseFailFast:
		return "the run stopped at --fail-fast (or --max-failures)"
	}
	return "acprun was interrupted"
}

// ended says how a command ended, for messages: "" when it exited with
// want.
func ended(cr report.CommandResult, timeout time.Duration, want int) string {
	if msg := stopped(cr, timeout); msg != "" {
		return msg
	}
	if *cr.ExitCode != want {
		return fmt.Sprintf("exited with code %d, want %d", *cr.ExitCode, want)
	}
	return ""
}

// stopped says why a command did not exit by itself, for messages: ""
// when it did, and cr.ExitCode is its exit code.
func stopped(cr report.CommandResult, timeout time.Duration) string {
	switch {
	case cr.TimedOut:
		return fmt.Sprintf("timed out after %s and was killed", timeout)
	case strings.HasPrefix(cr.Error, stoppedPrefix):
		return "was " + cr.Error
	case strings.HasPrefix(cr.Error, notRunPrefix):
		return cr.Error
	case cr.Error != "":
		return "could not run: " + cr.Error
	case cr.Signal != "":
		return "was killed by " + cr.Signal
	case cr.ExitCode == nil:
		return "did not exit"
	}
	return ""
}

// withTail appends the last lines of a command's output, as shown, to msg,
// each cut at tailWidth characters (marked "…").
func (r *scenarioRun) withTail(msg string, hr hook.Result) string {
	if errors.Is(hr.Err, hook.ErrNotStarted) {
		return msg // no output to show: it never ran
	}
	tail := strings.TrimRight(r.shown(hr).Tail(tailLines), "\n")
	if tail == "" {
		return msg + " (no output)"
	}
	lines := strings.Split(tail, "\n")
	for i, l := range lines {
		lines[i] = shorten(r.red, l, tailWidth)
	}
	return msg + "; output ends:\n" + strings.Join(lines, "\n")
}

// setup runs the setup commands in order; the first that does not exit 0
// ends the scenario as an error.
func (r *scenarioRun) setup(ctx context.Context) error {
	for _, c := range r.sc.Setup {
		cr, hr := r.runCommand(ctx, c, nil)
		r.res.Setup = append(r.res.Setup, r.recorded(cr, hr))
		if msg := ended(cr, c.Limit(), 0); msg != "" {
			return fmt.Errorf("%s", r.withTail(fmt.Sprintf("%s: setup `%s` %s", c.Pos, c.Run, msg), hr))
		}
	}
	return nil
}

// verify runs every verify command after the last turn, in the sandbox
// with sandbox.verify (verifySandbox); each is an expectation of the
// scenario.
func (r *scenarioRun) verify(ctx context.Context) {
	if len(r.sc.Verify) == 0 {
		return
	}
	sb, done, err := r.verifySandbox(ctx)
	if err != nil {
		r.workFails = append(r.workFails, fmt.Sprintf("%v; no verify command ran", err))
		return
	}
	defer done()
	for _, c := range r.sc.Verify {
		cr, hr := r.runCommand(ctx, c, sb)
		var fails []string
		e := c.Expect
		if msg := ended(cr, c.Limit(), e.ExitCode); msg != "" {
			// A command that exited by itself failed its exit code, where
			// the file gives it; any other end is the command's own.
			pos := c.Pos
			if stopped(cr, c.Limit()) == "" {
				pos = cmp.Or(e.ExitCodePos, c.Pos)
			}
			if strings.HasPrefix(cr.Error, stoppedPrefix) || strings.HasPrefix(cr.Error, notRunPrefix) {
				r.cutShort("during verify") // if the run's end stopped it, or kept it from starting
			}
			where := ""
			if sb != nil { // what it could not write says why
				where = " (in the sandbox)"
			}
			fails = append(fails, r.withTail(fmt.Sprintf("%s: verify `%s`%s %s", pos, c.Run, where, msg), hr))
		} else {
			// The whole of stdout, not only the part kept (see hook.Command).
			for i, l := range e.StdoutContains {
				if !hr.StdoutContains[i] {
					fails = append(fails, r.withTail(fmt.Sprintf("%s: verify `%s`: stdout does not contain %q", l.Pos, c.Run, l.Value), hr))
				}
			}
			matched := hr.StdoutMatched
			if m := e.StdoutMatches; m != nil {
				if !matched[0] {
					fails = append(fails, r.withTail(fmt.Sprintf("%s: verify `%s`: stdout does not match /%s/", m.Pos, c.Run, m.Re), hr))
				}
				matched = matched[1:]
			}
			// What it must not hold, in all of stdout (see runCommand).
			seen := slices.Concat(hr.StdoutContains[len(e.StdoutContains):], matched)
			lost := cr.StdoutBytes - int64(len(cr.Stdout))
			for _, f := range checkForbidden(r.red, fmt.Sprintf("verify `%s`: stdout", c.Run), cr.Stdout, lost, seen, e.StdoutNotContains, e.StdoutNotMatches) {
				fails = append(fails, r.withTail(f, hr))
			}
		}
		passed := len(fails) == 0
		cr.Passed = &passed
		r.res.Verify = append(r.res.Verify, r.recorded(cr, hr))
		r.workFails = append(r.workFails, fails...)
	}
}

// teardown runs every teardown command, whatever happened before; one
// that fails gives a warning. No interrupt cuts it short, not even a
// second one (Options.Abort, which skips the waits, not the cleanup):
// each command is bounded by its own timeout, and by the deadline of
// scCtx, the scenario's timeout or the run's --timeout; but the teardown
// has at least cancelGrace from its start, so that a scenario that ran
// into its deadline is still cleaned up. (A third interrupt makes acprun
// exit at once, and the run's guard kills the commands.)
func (r *scenarioRun) teardown(scCtx context.Context) {
	if len(r.sc.Teardown) == 0 {
		return
	}
	ctx := context.Background()
	if d, ok := scCtx.Deadline(); ok {
		var stop context.CancelFunc
		ctx, stop = context.WithDeadlineCause(ctx, later(d, time.Now().Add(r.limits().CancelGrace)), r.deadlineCause(d))
		defer stop()
	}
	for _, c := range r.sc.Teardown {
		cr, hr := r.runCommand(ctx, c, nil)
		r.res.Teardown = append(r.res.Teardown, r.recorded(cr, hr))
		if msg := ended(cr, c.Limit(), 0); msg != "" {
			r.res.Warnings = append(r.res.Warnings, r.withTail(fmt.Sprintf("%s: teardown `%s` %s", c.Pos, c.Run, msg), hr))
		}
	}
}
