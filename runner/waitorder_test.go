package runner

import (
	"strings"
	"testing"
	"testing/synctest"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
)

// TestWaitForExitServedInItsPlace: terminal/wait_for_exit, sent behind
// other terminal requests without waiting for their answers, looks its
// terminal up in its place in the line, once every request sent before it
// was served: after a terminal/release of its terminal it finds none, and
// behind the terminal/create of the id it finds the command, every run. Its
// wait (as long as the command's) goes on beside the line. The test holds
// the line with a request of its own still being served, so that each
// request reaches its place before the one before it is served.
func TestWaitForExitServedInItsPlace(t *testing.T) {
	t.Parallel()
	const (
		create  = `{"sessionId":"s","command":"true"}`
		release = `{"sessionId":"s","terminalId":"term-1"}`
		wait    = `{"sessionId":"s","terminalId":"term-1"}`
	)
	for _, tc := range []struct {
		name    string
		created bool   // the terminal is created before the line is held
		before  string // the request sent before wait_for_exit
		want    string // in wait_for_exit's answer or error
	}{
		{"after release", true, acp.MethodTerminalRelease, "unknown terminal"},
		{"after create", false, acp.MethodTerminalCreate, `"exitCode":0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &session{sessionID: "s", policy: &approve.Policy{Default: approve.Allow},
					obs: (&observer{}).forJob(Ref{Name: "a"}, redact.New()), client: terminalClient(t, t.TempDir())}
				call := func(method, params string) string {
					res, err := s.Handle(t.Context(), &acp.Request{ID: &acp.ID{}, Method: method, Params: []byte(params)})
					if err != nil {
						return err.Error()
					}
					b, _ := json.Marshal(res)
					return string(b)
				}
				if tc.created {
					if got := call(acp.MethodTerminalCreate, create); !strings.Contains(got, "term-1") {
						t.Fatalf("terminal/create = %s", got)
					}
				}
				s.mu.Lock()
				_, hold := s.lineLocked() // a request sent before them, being served
				s.mu.Unlock()
				params := map[string]string{acp.MethodTerminalRelease: release, acp.MethodTerminalCreate: create}
				beforeDone := make(chan string, 1)
				go func() { beforeDone <- call(tc.before, params[tc.before]) }()
				synctest.Wait() // in its place, behind hold
				waitDone := make(chan string, 1)
				go func() { waitDone <- call(acp.MethodTerminalWaitForExit, wait) }()
				synctest.Wait()
				close(hold)
				<-beforeDone
				if got := <-waitDone; !strings.Contains(got, tc.want) {
					t.Errorf("terminal/wait_for_exit = %s, want %s", got, tc.want)
				}
			})
		})
	}
}
