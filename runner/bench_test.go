package runner

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/scenario"
)

// BenchmarkDeadlineToCancel measures the time from a turn's deadline to the
// session/cancel notification written to the agent (target: ≤ 10 ms).
func BenchmarkDeadlineToCancel(b *testing.B) {
	bin := agentBin(b)
	dir := b.TempDir()
	script := filepath.Join(dir, "agent.mock.yaml")
	if err := os.WriteFile(script, []byte("turns:\n  - steps: [{waitForCancel: true}]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	const timeout = 50 * time.Millisecond
	sc := &scenario.Scenario{
		Name:        "bench",
		Agent:       scenario.Agent{Command: []string{bin, "mock-agent", script}, Cwd: dir},
		TurnTimeout: timeout,
		CancelGrace: 5 * time.Second,
		KillGrace:   time.Second,
		Turns:       []scenario.Turn{{Prompt: []scenario.Part{{Text: "go"}}}},
	}
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		tap := &cancelTap{}
		opts := &Options{Environ: os.Environ(), Abort: make(chan struct{}), tap: tap.record}
		runScenario(context.Background(), opts, &observer{}, newJob(sc, 0), tryTranscripts{})
		if tap.prompt.IsZero() || tap.cancel.IsZero() {
			b.Fatalf("prompt at %v, cancel at %v: want both", tap.prompt, tap.cancel)
		}
		total += tap.cancel.Sub(tap.prompt) - timeout
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-deadline-to-cancel")
}

// cancelTap records when the prompt and the cancel were written.
type cancelTap struct {
	mu             sync.Mutex
	prompt, cancel time.Time
}

func (c *cancelTap) record(dir acp.Direction, line []byte, at time.Time) {
	if dir != acp.Sent {
		return
	}
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m.Method {
	case acp.MethodSessionPrompt:
		c.prompt = at
	case acp.MethodSessionCancel:
		c.cancel = at
	}
}

// BenchmarkGraceExpiryToGroupGone measures the time from the end of the
// cancel grace (the agent is unresponsive) to its whole process group gone,
// grandchild included (target: ≤ 100 ms).
func BenchmarkGraceExpiryToGroupGone(b *testing.B) {
	bin := agentBin(b)
	dir := b.TempDir()
	script := filepath.Join(dir, "agent.mock.yaml")
	if err := os.WriteFile(script, []byte("ignoreSigterm: true\nturns:\n  - steps: [{spawnGrandchild: true}, {hang: true}]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for b.Loop() {
		a, err := startAgent(agentConfig{Argv: []string{bin, "mock-agent", script}, Env: os.Environ(), Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		var init acp.InitializeResponse
		if err := a.Conn.Call(ctx, acp.MethodInitialize, acp.InitializeRequest{ProtocolVersion: 1}).Await(ctx, &init); err != nil {
			b.Fatal(err)
		}
		var ns acp.NewSessionResponse
		if err := a.Conn.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: dir}).Await(ctx, &ns); err != nil {
			b.Fatal(err)
		}
		a.Conn.Call(ctx, acp.MethodSessionPrompt, acp.PromptRequest{SessionID: ns.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
		waitHanging(b, a)
		pgid := a.Pid()
		start := time.Now() // the grace has just expired: kill
		a.Kill()
		for groupAlive(pgid) {
			time.Sleep(time.Millisecond)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-grace-to-gone")
}

// waitHanging waits until the mock agent says on stderr that it hangs.
func waitHanging(b *testing.B, a *Agent) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(a.StderrTail(nil), "hanging") {
		if time.Now().After(deadline) {
			b.Fatalf("the mock agent never hung; stderr: %s", a.StderrTail(nil))
		}
		time.Sleep(time.Millisecond)
	}
}

// groupAlive reports whether a process of group pgid is alive (zombies
// excepted).
func groupAlive(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		f, err := os.Open(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		line, _ := bufio.NewReader(f).ReadString('\n')
		f.Close()
		i := strings.LastIndexByte(line, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(line[i+1:])
		if len(fields) > 2 && fields[0] != "Z" && fields[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}
