package runner

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// judgeText is the most of the agent's reply a judge's prompt quotes.
const judgeText = 64 << 10

// judge asks a judge agent whether the work meets the rubric: a session of
// its own, one turn, in a read-only client on the workspace (no terminal,
// every permission denied), in the scenario's sandbox with the workspace
// read-only (judgeSandbox), with its own timeout and transcript. text is
// the agent's reply being judged; what names the judge in its transcript's
// file name ("judge" or "judge-turn2"). It returns the judge's result and
// the failure of the work it judged ("" when it passed). A judge that could
// give no verdict (see judgeVerdict) fails nothing: it makes the attempt an
// error, which retries run again.
func (r *scenarioRun) judge(ctx context.Context, j *scenario.Judge, text, what string) (*report.JudgeResult, string) {
	dir := r.workDir()
	agent := j.Agent
	agent.Cwd = dir
	jsc := &scenario.Scenario{
		Name:    r.sc.Name + " (" + what + ")",
		File:    r.sc.File,
		Pos:     j.Pos,
		Agent:   agent,
		Client:  scenario.Client{FS: true, ReadOnly: true, Roots: []string{dir}, Set: true},
		Policy:  approve.DenyAll(),
		Sandbox: judgeSandbox(r.sc.Sandbox, r.movedHide),
		// The scenario's graces bound the judge's cancel and stop too.
		CancelGrace: r.sc.CancelGrace,
		KillGrace:   r.sc.KillGrace,
		Turns: []scenario.Turn{{
			Pos:     j.Pos,
			Prompt:  []scenario.Part{{Pos: j.Pos, Text: judgePrompt(j.Rubric, r.red.String(text), r.red.String(r.changeSummary(ctx)))}},
			Timeout: j.Limit(),
			Expect:  scenario.Expect{Pos: j.Pos, StopReasons: []string{"end_turn"}},
		}},
	}
	opts := *r.opts
	opts.Policy, opts.Overrides = nil, Overrides{}
	// A judge starts its own agent process, outside the run's count: its
	// scenario holds one already.
	opts.procs, opts.ReuseAgents = nil, false
	opts.judging = judgeLabel(what)
	// The judge sees no workspace but the one it judges, as the attempt's
	// agent: other copies hold what the sandbox hides.
	opts.conceal, opts.reveal = nil, nil
	if r.sbox != nil {
		opts.conceal, opts.reveal = r.sbox.Conceal, r.sbox.Reveal
	}
	// The judge's reply is its verdict, read by judgeVerdict: kept
	// whatever NoText says of the scenario's turns.
	opts.NoText = false
	// The judge's outputs are redacted as the scenario's: of the run's
	// secrets, the judge's among them.
	opts.red = r.red
	// The judge's transcript is written here rather than by runScenario,
	// so that it is named after the scenario's.
	opts.Transcripts = ""
	tr := r.judgeTranscript(ctx, &opts, what)
	wrote := r.judgeWrites(ctx)
	res := runScenario(ctx, &opts, &observer{}, newJob(jsc, 0), tryTranscripts{})
	jr := &report.JudgeResult{Agent: cmp.Or(agent.Name, strings.Join(j.Agent.Command, " ")), DurationMs: res.DurationMs}
	if inv := res.Invalid; inv != nil && inv.Reason == report.InvalidUpstream {
		// The judge's provider refused the work: no verdict was measured.
		r.invalidate(report.InvalidUpstream, fmt.Sprintf("%s: judge %s: %s", j.Pos, jr.Agent, inv.Message), nil)
	}
	if tr != nil {
		incomplete(r.res, tr, judgeTranscriptLabel(what))
		jr.Transcript = tr.path
	}
	jr.Sandbox = res.Sandbox
	// What the judge did wrong is said where the scenario's own warnings
	// are, as the judge's; it changes no verdict.
	jr.Violations = res.Violations
	for _, w := range res.Warnings {
		r.res.Warnings = append(r.res.Warnings, judgeWarningPrefix(what)+w)
	}
	if w := wrote(); w != "" {
		r.res.Warnings = append(r.res.Warnings, judgeWarningPrefix(what)+w)
	}
	fail, broken := judgeVerdict(r.red, j, jr, res)
	if broken {
		r.res.Status = report.StatusError
		r.res.Error = cmp.Or(r.res.Error, fail)
		return jr, ""
	}
	return jr, fail
}

// judgeWrites lists the workspace's changes before a judge runs, and
// returns what says, once it has run, how the judge changed the workspace
// ("" when it did not): without a sandbox a judge that writes with its
// own tools, not through acprun's read-only client, writes in it, and
// what it writes is taken for the agent's (a turn's judge's, by the change
// set, workspace.protect and the later turns; any judge's, by verify).
// With a sandbox, which holds the workspace read-only for a judge, or
// without a workspace, it lists nothing.
func (r *scenarioRun) judgeWrites(ctx context.Context) func() string {
	if r.ws == nil || r.sc.Sandbox != nil {
		return func() string { return "" }
	}
	c0, m0, d0, err := r.ws.Changes(ctx)
	if err != nil {
		return func() string { return "" }
	}
	return func() string {
		c1, m1, d1, err := r.ws.Changes(ctx)
		if err != nil {
			return ""
		}
		var what []string
		for _, l := range []struct {
			verb       string
			was, after []string
		}{{"created", c0, c1}, {"modified", m0, m1}, {"deleted", d0, d1}} {
			was := make(map[string]bool, len(l.was))
			for _, p := range l.was {
				was[p] = true
			}
			if ps := slices.DeleteFunc(slices.Clone(l.after), func(p string) bool { return was[p] }); len(ps) > 0 {
				what = append(what, l.verb+" "+listed(ps)) // paths the judge chose, each one line
			}
		}
		if len(what) == 0 {
			return ""
		}
		return fmt.Sprintf("the workspace changed while it ran (%s): a judge without a sandbox writes with its own tools, "+
			"and what it writes counts as the agent's; give the scenario a sandbox: to keep its judges read-only", strings.Join(what, "; "))
	}
}

// judgeSandbox is the sandbox of a judge for a scenario whose sandbox is
// sb (nil: none). A judge reads what the agent left in its cwd, project
// settings whose hooks run commands included, so it is held as the agent
// was: the same hidden paths (and moved, where the agent moved those of
// the workspace: see followHidden), network, ports and level, and, as
// Options.conceal has it, no workspace but the one it judges. It may
// write only its own state and its private temporary directory: neither
// the scenario's write paths nor, as Options.judging has it, its cwd.
func judgeSandbox(sb *scenario.Sandbox, moved []string) *scenario.Sandbox {
	if sb == nil {
		return nil
	}
	j := *sb
	j.Write, j.WritePos = nil, nil
	j.Hide, j.Ports = slices.Concat(sb.Hide, moved), slices.Clone(sb.Ports)
	return &j
}

// The names of judges in their transcripts' file names (judge's what).
const judgeWhat = "judge" // the scenario's judge

// turnJudgeWhat names the judge of turn index (from 1).
func turnJudgeWhat(index int) string { return fmt.Sprintf("judge-turn%d", index) }

// judgeWarningPrefix starts the scenario's warnings that are those of the
// judge named what: "judge: " or "turn 2: judge: ".
func judgeWarningPrefix(what string) string {
	if n, ok := strings.CutPrefix(what, "judge-turn"); ok {
		return "turn " + n + ": judge: "
	}
	return "judge: "
}

// judgeTranscriptName is the file name of the transcript of the judge
// named what, of the try whose transcript is named transcript: beside it,
// "NAME.judge.jsonl" or "NAME.judge-turn2.jsonl", unless that name is
// taken (see transcriptNames).
func judgeTranscriptName(transcript, what string) string {
	return strings.TrimSuffix(transcript, ".jsonl") + "." + what + ".jsonl"
}

// judgeLabel names the judge named what, for messages: "the judge" or
// "the judge of turn 2".
func judgeLabel(what string) string {
	if n, ok := strings.CutPrefix(what, "judge-turn"); ok {
		return "the judge of turn " + n
	}
	return "the judge"
}

// judgeTranscriptLabel says which judge's transcript it is, the judge
// named what, for messages: "the transcript of the judge (of turn 2)".
func judgeTranscriptLabel(what string) string { return "the transcript of " + judgeLabel(what) }

// judgeTranscript opens the transcript of a judge named what, and taps
// opts' connections into it; nil when the run keeps no transcripts or it
// cannot be made.
func (r *scenarioRun) judgeTranscript(ctx context.Context, opts *Options, what string) *transcript {
	name := r.transcripts.judges[what]
	if r.opts.Transcripts == "" || name == "" {
		return nil
	}
	tr, err := newTranscript(ctx, r.opts, name, r.red)
	if err != nil {
		lost(r.res, err, judgeTranscriptLabel(what))
		return nil
	}
	opts.tap = taps(tr, opts.tap)
	return tr
}

// judgeVerdict fills jr from res, the judge's run, and returns the
// failure of the work it judged: "" when the judge's reply matches
// j.Pass, else why not, or why the judge gave no verdict. broken is set
// when it could not give one, having failed to run (it did not start,
// crashed, broke the protocol, or was cancelled: it timed out): the
// failure is then no failure of the work. A judge that answered otherwise
// than with end_turn (a refusal) gave no verdict, and fails the work.
func judgeVerdict(red *redact.Redactor, j *scenario.Judge, jr *report.JudgeResult, res report.Result) (failure string, broken bool) {
	cancelCause := ""
	if len(res.Turns) > 0 {
		t := res.Turns[0]
		jr.StopReason, jr.Text, jr.Error = t.StopReason, t.Text, t.Error
		cancelCause = t.CancelCause
	}
	// The judge's turn's own error, else its run's: the run's names the
	// judge's turn ("turn 1: …"), which is no turn of the scenario's.
	jr.Error = cmp.Or(jr.Error, res.Error)
	switch {
	case jr.Error != "" || jr.StopReason != "end_turn" || cancelCause != "":
		var why []string
		switch cancelCause {
		case "":
		case report.CauseTurnTimeout:
			why = append(why, fmt.Sprintf("it did not answer within its timeout (%s), so acprun cancelled it", j.Limit()))
		default:
			why = append(why, "acprun cancelled it after "+cancelCause)
		}
		if jr.Error != "" {
			why = append(why, jr.Error)
		} else {
			why = append(why, "it ended with stopReason "+stopText(jr.StopReason))
		}
		return fmt.Sprintf("%s: judge %s gave no verdict: %s", j.Pos, jr.Agent, strings.Join(why, "; ")), jr.Error != "" || cancelCause != ""
	case j.Pass != nil && j.Pass.MatchString(jr.Text):
		jr.Passed = true
		return "", false
	}
	return fmt.Sprintf("%s: judge %s: the reply does not match /%s/: %s", j.Pos, jr.Agent, j.Pass, strconv.Quote(shorten(red, strings.Join(strings.Fields(jr.Text), " "), 300))), false
}

// judgePrompt is what a judge is asked.
func judgePrompt(rubric, text, changes string) string {
	if len(text) > judgeText {
		text = text[:judgeText] + "\n[reply cut]"
	}
	return "You are judging the work of a coding agent. The workspace it worked in is your cwd; you may read it, but not change it.\n\n" +
		"Rubric:\n" + rubric + "\n\n" +
		"The agent's reply:\n" + text + "\n\n" +
		"What it changed:\n" + changes + "\n\n" +
		"Start your reply with the verdict: PASS if the work meets the rubric, otherwise FAIL. Then say why in one or two sentences."
}
