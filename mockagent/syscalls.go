package mockagent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/acprun/acprun/internal/yamlnode"
)

// The steps of this file act with the agent's own system calls, not
// through the client's fs/* and terminal/* methods, as agents that run
// their tools themselves do: what an OS sandbox around the agent holds and
// no permission rule sees. Each says how it went in an agent_message_chunk:
// "<step>: ok" (or what it read, or how the command exited), or
// "<step>: error: <the system's error>". $NAME and ${NAME} in their paths
// and addresses are expanded from the agent's environment; relative paths
// are relative to the session cwd.

// connectTimeout bounds a connect step, for networks that drop packets
// instead of refusing them.
const connectTimeout = 10 * time.Second

// writeFileStep writes a file itself.
type writeFileStep struct{ fileContent }

func (st *writeFileStep) play(pl *player) *ending {
	err := os.WriteFile(abs(pl.sess.cwd, os.ExpandEnv(st.path)), []byte(st.content), 0o644)
	return check(pl.sayOutcome("writeFile", "ok", err))
}

// readFileStep reads the file arg itself.
type readFileStep struct{ nonEmptyArg }

func (st *readFileStep) play(pl *player) *ending {
	b, err := os.ReadFile(abs(pl.sess.cwd, os.ExpandEnv(st.arg)))
	return check(pl.sayOutcome("readFile", string(b), err))
}

// spawnStep runs the shell line arg as a child of the agent (a grandchild
// of the client) in the session cwd, and waits for it.
type spawnStep struct{ nonEmptyArg }

func (st *spawnStep) play(pl *player) *ending {
	cmd := exec.CommandContext(pl.a.ctx, "/bin/sh", "-c", st.arg)
	cmd.Dir = pl.sess.cwd
	out, err := cmd.CombinedOutput()
	status := "exit 0"
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		status = fmt.Sprintf("exit %d", ee.ExitCode())
	case errors.As(err, &ee):
		status = ee.ProcessState.String() // signal: killed
	case err != nil:
		return check(pl.say("spawn: error: %v", err))
	}
	return check(pl.say("spawn: %s: %s", status, strings.TrimSpace(string(out))))
}

// hostPortArg is a step's HOST:PORT argument ($NAME and ${NAME} expanded
// when played).
type hostPortArg struct{ nonEmptyArg }

// parseAs parses the argument of the step named step.
func (h *hostPortArg) parseAs(p *parser, a action, step string) {
	h.nonEmptyArg.parse(p, a)
	if _, _, err := net.SplitHostPort(h.arg); h.arg != "" && err != nil && !strings.Contains(h.arg, "$") {
		p.Errorf(yamlnode.Deref(a.V), "%s: want HOST:PORT, got %q", step, h.arg)
	}
}

// connectStep opens a TCP connection to arg itself, and closes it.
type connectStep struct{ hostPortArg }

func (st *connectStep) parse(p *parser, a action) { st.parseAs(p, a, "connect") }

func (st *connectStep) play(pl *player) *ending {
	ctx, cancel := context.WithTimeout(pl.a.ctx, connectTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", os.ExpandEnv(st.arg))
	if err == nil {
		c.Close()
	}
	return check(pl.sayOutcome("connect", "ok", err))
}

// listenStep listens on the TCP address arg itself (port 0: any), and
// closes the listener.
type listenStep struct{ hostPortArg }

func (st *listenStep) parse(p *parser, a action) { st.parseAs(p, a, "listen") }

func (st *listenStep) play(pl *player) *ending {
	l, err := net.Listen("tcp", os.ExpandEnv(st.arg))
	if err == nil {
		l.Close()
	}
	return check(pl.sayOutcome("listen", "ok", err))
}

// sayOutcome says "step: ok" (what ok holds), or "step: error: …".
func (pl *player) sayOutcome(step, ok string, err error) error {
	if err != nil {
		return pl.say("%s: error: %v", step, err)
	}
	return pl.say("%s: %s", step, ok)
}
