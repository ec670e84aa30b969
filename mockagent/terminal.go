package mockagent

import (
	"context"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/yamlnode"
)

// terminalStep runs a command in a terminal of the client.
type terminalStep struct {
	command         string
	args            []string
	env             []acp.EnvVariable
	cwd             string
	outputByteLimit *int64
	toolCallID      string
	waitForExit     bool
	output          bool
	kill            bool
	killFirst       bool // kill before output, as an agent's timeout does
	release         bool
}

func (st *terminalStep) parse(p *parser, a action) {
	given, _ := p.object(a.V, "terminal", fields{
		"command": set(&st.command, p.nonEmpty, "terminal.command"),
		"args":    set(&st.args, p.strings, "terminal.args"),
		"env": func(v *yaml.Node) {
			st.env = []acp.EnvVariable{}
			kvs, _ := p.entries(v, "terminal.env")
			for _, kv := range kvs {
				val, _ := p.str(kv.V, "terminal.env value")
				st.env = append(st.env, acp.EnvVariable{Name: kv.Key, Value: val})
			}
		},
		"cwd":             set(&st.cwd, p.nonEmpty, "terminal.cwd"),
		"outputByteLimit": setPtr(&st.outputByteLimit, p.count, "terminal.outputByteLimit"),
		"toolCallId":      set(&st.toolCallID, p.nonEmpty, "terminal.toolCallId"),
		"waitForExit":     set(&st.waitForExit, p.bool, "terminal.waitForExit"),
		"output":          set(&st.output, p.bool, "terminal.output"),
		"kill":            set(&st.kill, p.bool, "terminal.kill"),
		"killFirst":       set(&st.killFirst, p.bool, "terminal.killFirst"),
		"release":         set(&st.release, p.bool, "terminal.release"),
	})
	if !given["command"] {
		p.Errorf(yamlnode.Deref(a.V), "terminal: command is required")
	}
	if st.killFirst && !st.kill {
		p.Errorf(yamlnode.Deref(a.V), "terminal: killFirst orders the kill: add kill: true")
	}
}

// play plays a terminal step: create, then wait_for_exit, output, kill
// (before output with killFirst) and release as asked. A cancel while waiting for the exit kills and
// releases the terminal.
func (st *terminalStep) play(pl *player) *ending {
	var created acp.CreateTerminalResponse
	cwd := ""
	if st.cwd != "" {
		cwd = abs(pl.sess.cwd, st.cwd)
	}
	err := pl.call(pl.a.ctx, acp.MethodTerminalCreate, acp.CreateTerminalRequest{
		SessionID: pl.sess.id, Command: st.command, Args: st.args, Env: st.env, Cwd: cwd, OutputByteLimit: st.outputByteLimit,
	}, &created)
	id := created.TerminalID
	if end := pl.outcome(acp.MethodTerminalCreate, err, func() error { return pl.say("terminal: %s", id) }); end != nil || err != nil {
		return end
	}
	if st.toolCallID != "" {
		running := acp.StatusInProgress
		pl.track(st.toolCallID, &running, false)
		if pl.notify(acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: st.toolCallID, Status: &running, Content: []acp.ToolCallContent{acp.TerminalToolContent(id)},
		}}) != nil {
			return died()
		}
	}
	ref := acp.TerminalOutputRequest{SessionID: pl.sess.id, TerminalID: id}
	// simple makes a call whose result is only reported as ok or an error.
	simple := func(method, label string) *ending {
		err := pl.call(pl.a.ctx, method, ref, nil) // kill and release take the same params as output
		return pl.outcome(method, err, func() error { return pl.say("%s: ok", label) })
	}
	if st.waitForExit {
		ctx, stop := context.WithCancel(pl.a.ctx)
		defer stop()
		if ch := pl.cancelled(); ch != nil {
			go func() {
				select {
				case <-ch:
					stop()
				case <-ctx.Done():
				}
			}()
		}
		var res acp.WaitForTerminalExitResponse
		err := pl.call(ctx, acp.MethodTerminalWaitForExit, ref, &res)
		// Whether the cancel came first is what the stream says: the call
		// returns an answer only once every message before it, a
		// session/cancel among them, was handled. ctx, stopped by the
		// goroutine above, may not be stopped yet when the answer (the
		// command killed by the client on the cancel) completes the call.
		if !pl.gone() && pl.cancelRequested() {
			// Cancelled while the command runs: stop it, as a real agent would.
			if pl.say("error: %s: cancelled", acp.MethodTerminalWaitForExit) != nil {
				return died()
			}
			if end := simple(acp.MethodTerminalKill, "kill"); end != nil {
				return end
			}
			return simple(acp.MethodTerminalRelease, "release")
		}
		if end := pl.outcome(acp.MethodTerminalWaitForExit, err, func() error {
			return pl.say("exit: %s", exitText(res.ExitCode, res.Signal))
		}); end != nil {
			return end
		}
	}
	if st.kill && st.killFirst {
		if end := simple(acp.MethodTerminalKill, "kill"); end != nil {
			return end
		}
	}
	if st.output {
		var res acp.TerminalOutputResponse
		err := pl.call(pl.a.ctx, acp.MethodTerminalOutput, ref, &res)
		if end := pl.outcome(acp.MethodTerminalOutput, err, func() error {
			label := "output"
			if res.Truncated {
				label = "output (truncated)"
			}
			if res.ExitStatus != nil {
				label += ", exit " + exitText(res.ExitStatus.ExitCode, res.ExitStatus.Signal)
			}
			return pl.say("%s: %s", label, res.Output)
		}); end != nil {
			return end
		}
	}
	if st.kill && !st.killFirst {
		if end := simple(acp.MethodTerminalKill, "kill"); end != nil {
			return end
		}
	}
	if st.release {
		return simple(acp.MethodTerminalRelease, "release")
	}
	return nil
}

func exitText(code *int, signal *string) string {
	switch {
	case code != nil:
		return fmt.Sprint(*code)
	case signal != nil:
		return "signal " + *signal
	}
	return "unknown"
}
