package runner

import (
	"fmt"
	"time"

	json "github.com/go-json-experiment/json/v1"
)

// agentExit is the record of an agent that exited on its own while acprun
// used it: {"code": 3} or {"signal": "SIGSEGV"}.
type agentExit struct {
	Code   *int   `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"`
}

// exited writes, as the transcript's last line, that the agent exited on
// its own during the scenario, with code or by signal:
// {"t": ms, "dir": "a2c", "exit": {"code": 3}}. acprun replay ends there as
// the recorded agent did, instead of waiting for a request it never got.
// The lines held before it are written first.
func (t *transcript) exited(at time.Time, code *int, signal string) {
	rec, _ := json.Marshal(agentExit{Code: code, Signal: signal}) // an int and a string always marshal
	t.mu.Lock()
	defer t.mu.Unlock()
	t.release(true)
	t.q.Add(fmt.Sprintf(`{"t":%d,"dir":"a2c","exit":%s}`+"\n", at.Sub(t.start).Milliseconds(), rec), true)
}

// recordExit writes the agent's exit at the end of the transcript tr when
// it exited on its own during the scenario (the results' exitCode or
// signal).
func (r *scenarioRun) recordExit(tr *transcript) {
	if r.res.ExitCode != nil || r.res.Signal != "" {
		tr.exited(time.Now(), r.res.ExitCode, r.res.Signal)
	}
}
