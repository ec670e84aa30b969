package runner

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/acprun/acprun/acp"
)

// TestCloseByDeadline: CloseAfter's graces end at its deadline. An agent that
// ignores the end of its input and SIGTERM is killed at the deadline,
// though the grace is an hour, and late says so; one that exits at the end
// of its input is neither killed nor late; one already gone when the
// deadline has passed is not reported killed.
func TestCloseByDeadline(t *testing.T) {
	t.Parallel()
	start := func(script string, opts *acp.Options) *Agent {
		t.Helper()
		a, err := startAgent(agentConfig{Argv: []string{"/bin/sh", "-c", script}, Env: os.Environ(), Conn: opts})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	// The agent says on stdout (not JSON-RPC: a violation) that it ignores
	// SIGTERM now.
	ready := make(chan struct{})
	var once sync.Once
	stubborn := start("trap '' TERM; echo ready; while :; do sleep 1; done",
		&acp.Options{OnViolation: func(acp.Violation) { once.Do(func() { close(ready) }) }})
	<-ready
	began := time.Now()
	killed, late := stubborn.CloseAfter(context.Background(), time.Hour, time.Hour, time.Now().Add(200*time.Millisecond))
	if !killed || !late {
		t.Errorf("stubborn agent: killed %v, late %v; want both", killed, late)
	}
	// An upper bound only, far below the hour of grace.
	if took := time.Since(began); took > time.Minute {
		t.Errorf("CloseAfter took %s past a deadline 200ms away", took)
	}

	polite := start("cat >/dev/null", nil)
	if killed, late := polite.CloseAfter(context.Background(), time.Hour, time.Hour, time.Now().Add(time.Hour)); killed || late {
		t.Errorf("agent exiting at the end of its input: killed %v, late %v; want neither", killed, late)
	}

	gone := start("exit 0", nil)
	<-gone.Exited()
	if killed, late := gone.CloseAfter(context.Background(), time.Hour, time.Hour, time.Now().Add(-time.Second)); killed || late {
		t.Errorf("agent already gone: killed %v, late %v; want neither", killed, late)
	}
}
