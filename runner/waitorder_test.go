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

// TestTerminalOutputAfterWaitAnswer: a terminal/output that says the
// command ended (its exitStatus) is answered after the terminal's
// terminal/wait_for_exit sent before it, which the same end wakes: the
// agent reads of the exit in the order it asked, every run. The gate
// holds each output until its command (true) has ended, as it may have by
// the time an agent's output comes.
func TestTerminalOutputAfterWaitAnswer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const terminals = 20
		var script strings.Builder
		script.WriteString("turns:\n  - steps:\n")
		for i := range terminals {
			script.WriteString("      - terminal: {command: \"true\"}\n")
			for _, step := range []string{"wait_for_exit", "output"} {
				fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"%s_%d","method":"terminal/%s","params":{"sessionId":"mock-session-1","terminalId":"term-%d"}}'`+"\n", step, i, step, i+1)
			}
		}
		script.WriteString("      - text: done\n")
		var b *bubbleRun
		b = startScriptInBubble(t, script.String(), "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturns: [{prompt: go}]\n",
			func(req *acp.Request) {
				var p acp.TerminalOutputRequest
				if req.Method != acp.MethodTerminalOutput || req.DecodeParams(&p) != nil {
					return
				}
				if term, err := b.r.sess.client.terms.Get(p.TerminalID); err == nil {
					<-term.Done()
				}
			})
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		synctest.Wait()
		b.finish(t, false)
		sent := b.sentLines()
		answer := func(id string) (int, string) { // where acprun wrote the answer to id, and the answer
			for i, l := range sent {
				if strings.HasPrefix(string(l), `{"jsonrpc":"2.0","id":"`+id+`",`) {
					return i, string(l)
				}
			}
			t.Fatalf("no answer to %s", id)
			return 0, ""
		}
		for i := range terminals {
			wait, _ := answer(fmt.Sprint("wait_for_exit_", i))
			output, line := answer(fmt.Sprint("output_", i))
			if !strings.Contains(line, `"exitStatus":{"exitCode":0}`) {
				t.Fatalf("term-%d: output answered %s; want the exit", i+1, line)
			}
			if output < wait {
				t.Errorf("term-%d: output's answer (with the exit) written before wait_for_exit's", i+1)
			}
		}
	})
}

// TestCancelledWaitsAnsweredInOrder: the terminal/wait_for_exits of
// several terminals pending when a cancel kills their commands (here for
// the turn's budget, at a usage_update in the stream after them) are
// answered in the order the agent sent them, every run, although the
// kill wakes them all at once. The agent then releases the terminals, so
// that the turn ends only once the waits were answered.
func TestCancelledWaitsAnsweredInOrder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const terminals = 20
		var script strings.Builder
		script.WriteString("onCancel: ignore\nturns:\n  - steps:\n")
		for range terminals {
			script.WriteString("      - terminal: {command: sleep, args: [\"1000\"], outputByteLimit: 1000}\n")
		}
		garbage := func(method, id string, i int) {
			fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"%s","method":"terminal/%s","params":{"sessionId":"mock-session-1","terminalId":"term-%d"}}'`+"\n", id, method, i+1)
		}
		var want []string
		for i := range terminals {
			garbage("wait_for_exit", fmt.Sprint("w", i), i)
			want = append(want, fmt.Sprint("w", i))
		}
		script.WriteString("      - usage_update: {used: 1, size: 10, cost: {amount: 5, currency: USD}}\n      - waitForCancel: true\n")
		for i := range terminals {
			garbage("release", fmt.Sprint("r", i), i)
		}
		script.WriteString("      - text: done\n")
		b := startScriptInBubble(t, script.String(), "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturns: [{prompt: go, budget: {maxCost: 1}}]\n", nil)
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		synctest.Wait()
		res := b.finish(t, false)
		if tr := res.Turns[0]; tr.CancelCause != "budget" {
			t.Fatalf("turn %+v; want it cancelled for its budget", tr)
		}
		var got []string
		for _, l := range b.sentLines() {
			var m struct {
				ID     string          `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(l, &m) == nil && strings.HasPrefix(m.ID, "w") {
				got = append(got, m.ID)
				if !strings.Contains(string(m.Result), `"signal":"SIGKILL"`) {
					t.Errorf("%s answered %s; want the command killed", m.ID, l)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("waits answered in the order %v; want the order they were sent, %v", got, want)
		}
	})
}

// TestWaitLookedUpAfterCancelInOrder: a terminal/wait_for_exit that finds
// its terminal only once a cancel killed the command (the requests before
// it still being served then) is answered after the waits sent before it
// that the kill ended, every run, as those are among themselves. The gate
// kills the terminals (as a cancel does) just before the second wait of
// each pair is handled.
func TestWaitLookedUpAfterCancelInOrder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const pairs = 10
		var script strings.Builder
		script.WriteString("turns:\n  - steps:\n")
		garbage := func(method, id string, term int) {
			fmt.Fprintf(&script, `      - garbage: '{"jsonrpc":"2.0","id":"%s","method":"terminal/%s","params":{"sessionId":"mock-session-1","terminalId":"term-%d"}}'`+"\n", id, method, term)
		}
		for i := range pairs {
			script.WriteString("      - terminal: {command: sleep, args: [\"1000\"]}\n      - terminal: {command: sleep, args: [\"1000\"]}\n")
			garbage("wait_for_exit", fmt.Sprint("a", i), 2*i+1)
			garbage("wait_for_exit", fmt.Sprint("b", i), 2*i+2)
			garbage("release", fmt.Sprint("ra", i), 2*i+1)
			garbage("release", fmt.Sprint("rb", i), 2*i+2)
		}
		script.WriteString("      - text: done\n")
		var b *bubbleRun
		b = startScriptInBubble(t, script.String(), "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturns: [{prompt: go}]\n",
			func(req *acp.Request) {
				if req.Method == acp.MethodTerminalWaitForExit && req.ID != nil && strings.HasPrefix(req.ID.String(), `"b`) {
					b.r.sess.client.killAll()
				}
			})
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		synctest.Wait()
		b.finish(t, false)
		var got, want []string
		for i := range pairs {
			want = append(want, fmt.Sprint("a", i), fmt.Sprint("b", i))
		}
		for _, l := range b.sentLines() {
			var m struct {
				ID     string          `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(l, &m) == nil && (strings.HasPrefix(m.ID, "a") || strings.HasPrefix(m.ID, "b")) {
				got = append(got, m.ID)
				if !strings.Contains(string(m.Result), `"signal":"SIGKILL"`) {
					t.Errorf("%s answered %s; want the command killed", m.ID, l)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("waits answered in the order %v; want the order they were sent, %v", got, want)
		}
	})
}

// TestOutputAfterCancelFindsTheKill: a cancel's kill of the running
// commands takes its place among the agent's terminal requests where the
// turn was cancelled (here at a usage_update that passes the turn's
// budget): a terminal/output the agent sends after it says the command
// was killed, every run, not that it still runs.
func TestOutputAfterCancelFindsTheKill(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		script := `onCancel: ignore
turns:
  - steps:
      - terminal: {command: sleep, args: ["1000"]}
      - usage_update: {used: 1, size: 10, cost: {amount: 5, currency: USD}}
      - garbage: '{"jsonrpc":"2.0","id":"o1","method":"terminal/output","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - waitForCancel: true
      - garbage: '{"jsonrpc":"2.0","id":"r1","method":"terminal/release","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - text: done
`
		b := startScriptInBubble(t, script, "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturns: [{prompt: go, budget: {maxCost: 1}}]\n", nil)
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		synctest.Wait()
		res := b.finish(t, false)
		if tr := res.Turns[0]; tr.CancelCause != "budget" {
			t.Fatalf("turn %+v; want it cancelled for its budget", tr)
		}
		var answered bool
		for _, l := range b.sentLines() {
			var m struct {
				ID     string          `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(l, &m) == nil && m.ID == "o1" {
				answered = true
				if !strings.Contains(string(m.Result), `"exitStatus":{"signal":"SIGKILL"}`) {
					t.Errorf("terminal/output after the cancel answered %s; want the command killed", l)
				}
			}
		}
		if !answered {
			t.Error("terminal/output not answered")
		}
	})
}
