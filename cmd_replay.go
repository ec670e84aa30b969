package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/acprun/acprun/replay"
)

// replayCmd is `acprun replay TRANSCRIPT`: an ACP agent on stdin/stdout
// that plays back the agent side of a recorded transcript.
type replayCmd struct {
	// Transcript is the path as given, so that errors name the file as
	// the user wrote it.
	Transcript string `arg:"" help:"Transcript to play, as written by acprun run --transcripts DIR."`
	Timing     bool   `help:"Wait the recorded gaps between the agent's messages (default: no waiting)."`
}

// Help is the long help.
func (c *replayCmd) Help() string {
	return `Plays back the agent side of a transcript recorded by "acprun run --transcripts
DIR", speaking ACP (JSON-RPC) on stdin/stdout, so that scenarios run again
against a recorded agent for free. In a scenario:

  agent: {replay: transcripts/fix-vet.jsonl}   # relative to the scenario file

Requests other than session/prompt get the answer recorded for the same call
of that method. The session must be set up as recorded: session/set_mode,
session/set_model and session/set_config_option must carry the recorded
params (the session id aside), none recorded before a prompt may be left out,
and session/new must offer the recorded MCP servers, by name (its cwd and the
servers' paths and secrets are not compared). Each prompt must equal the
recorded one; then the agent's
updates, raw lines and requests of that turn are sent again in order, and the
prompt is answered with the recorded stop reason. The client's answers to the
agent's requests (a permission's outcome and option, an fs or terminal
result) must equal the recorded ones.

When the client diverges from the recording (another answer, prompt or
setting, more prompts than recorded, a method the recording lacks), the turn
stops and its prompt (or the diverging request) is answered with a JSON-RPC
error "replay diverged: turn N: REQUEST: recorded X, got Y"; the same line
goes to stderr. acprun fails such a turn whatever it expects. Later prompts are still
played, each checked on its own. A session/cancel ends the turn with
stopReason cancelled; where the recording holds the cancel, the replay waits
for it there, as the recorded agent did. Where acprun sent that cancel for a
cause outside the scenario (its _meta says interrupt, runTimeout or
failFast), no replaying run cancels there: the turn ends at once with a
JSON-RPC error saying the recording cannot be replayed past that point.
A turn that a deadline cancelled (turnTimeout; the scenario's timeout: every
turn) plays at the recorded pace, so that the deadline, not idleTimeout, ends
it again. A setup request acprun cancelled ($/cancel_request) is answered
once the client cancels it too. A recording that ends in a request neither answered
nor cancelled (the recorded agent exited there) ends the replay there too,
with exit code 3.

Paths under the recorded session cwd are moved to the replay's. What acprun
sends is compared with the recording once both are redacted with the run's
secrets (which acprun hands to a replay it starts; run by hand, those of the
secret-looking variables of the environment): a recorded [REDACTED] matches a
secret redacted there, of another value too, and no other text. A transcript
holds one session. A transcript that is missing or invalid is reported as
file:line:col before anything is sent, with exit code 2.`
}

// Run plays the transcript on stdin/stdout.
func (c *replayCmd) Run(ctx context.Context, g *globals) error {
	rec, err := replay.Load(c.Transcript)
	if err != nil {
		return usageError(g, nil, err)
	}
	for _, n := range rec.Notes {
		fmt.Fprintf(g.Stderr, "acprun replay: %s\n", n)
	}
	err = replay.Run(ctx, rec, g.stdin(ctx), g.Stdout, g.Stderr, replay.Options{Timing: c.Timing, Redact: replay.RedactorOf(os.Environ())})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return exitError{code: exitInterrupted}
	case errors.Is(err, replay.ErrRecordingEnded):
		// The recorded agent went there; stderr has said so. It exits
		// with the recorded code when the transcript gives one.
		if ae, ok := errors.AsType[*replay.AgentExit](err); ok && ae.Code != nil && *ae.Code >= 0 && *ae.Code <= 255 {
			if *ae.Code == 0 {
				return nil
			}
			return exitError{code: *ae.Code}
		}
		return exitError{code: exitAgent}
	}
	return exitError{code: exitAgent, err: err}
}
