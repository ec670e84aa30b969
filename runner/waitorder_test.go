package runner

import (
	"fmt"
	"slices"
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

// TestTerminalExitAnswersInOrder: the answers of a terminal's
// terminal/wait_for_exit, kill and release requests, sent without waiting
// for the answers, are written in the order the agent sent them, every
// run: a wait_for_exit pending when a release (or kill) ends its command
// is answered first, although the command's end wakes both (a kill is
// otherwise answered before the command is gone), and two waits of one
// command in their order. Each terminal's command (sleep) ends only when
// a kill or release ends it; the answers are read as acprun wrote them.
func TestTerminalExitAnswersInOrder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const terminals = 20
		req := func(id, method, params string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":{"sessionId":"mock-session-1",%s}}`, id, method, params)
		}
		var requests []string
		order := make([][]string, terminals) // each terminal's answers, in the order they are due
		for i := range terminals {
			ref := fmt.Sprintf(`"terminalId":"term-%d"`, i+1)
			requests = append(requests, req(fmt.Sprintf("c%d", i), acp.MethodTerminalCreate, `"command":"sleep","args":["1000"]`))
			steps := []string{"wait1", "wait2", "release"}
			if i%2 == 1 {
				steps = []string{"wait1", "kill", "wait2", "release"}
			}
			for _, step := range steps {
				id := fmt.Sprintf("%s_%d", step, i)
				method := map[string]string{"wait1": acp.MethodTerminalWaitForExit, "wait2": acp.MethodTerminalWaitForExit,
					"kill": acp.MethodTerminalKill, "release": acp.MethodTerminalRelease}[step]
				requests = append(requests, req(id, method, ref))
				order[i] = append(order[i], id)
			}
		}
		res, sent := playRequests(t, t.TempDir(), requests, func(b *bubbleRun) { b.r.sess.client.cfg.Terminal = true })

		for _, r := range res.Turns[0].ClientRequests {
			if r.Refused != "" || r.Error != "" {
				t.Errorf("client request %+v: want it served", r)
			}
		}
		at := func(id string) int { return strings.Index(sent, `{"jsonrpc":"2.0","id":"`+id+`",`) }
		for i, want := range order {
			for _, id := range want {
				if at(id) < 0 {
					t.Fatalf("no answer to %s in what acprun sent:\n%s", id, sent)
				}
			}
			got := slices.Clone(want)
			slices.SortFunc(got, func(a, b string) int { return at(a) - at(b) })
			if !slices.Equal(got, want) {
				t.Errorf("term-%d: answers written in the order %v; want the order the requests came, %v", i+1, got, want)
			}
		}
	})
}
