package hook_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/hook"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// run runs c and fails the test if Run does not return within testkit.Failsafe.
func run(t *testing.T, ctx context.Context, c hook.Command) hook.Result {
	t.Helper()
	if c.Env == nil {
		c.Env = os.Environ()
	}
	if c.Timeout == 0 {
		c.Timeout = time.Minute
	}
	done := make(chan hook.Result, 1)
	go func() { done <- hook.Run(ctx, c) }()
	select {
	case res := <-done:
		return res
	case <-time.After(testkit.Failsafe):
		t.Fatalf("Run(%q) has not returned after %v", c.Run, testkit.Failsafe)
		return hook.Result{}
	}
}

// outcome is what a test compares of a Result.
type outcome struct {
	ExitCode                 *int
	Signal                   string
	TimedOut                 bool
	Stdout, Stderr           string
	StdoutBytes, StderrBytes int64
	Truncated                bool
}

func outcomeOf(r hook.Result) outcome {
	return outcome{r.ExitCode, r.Signal, r.TimedOut, r.Stdout, r.Stderr, r.StdoutBytes, r.StderrBytes, r.Truncated}
}

func code(n int) *int { return &n }

// ran is the outcome of a command that exited with code n after writing
// stdout and stderr.
func ran(n int, stdout, stderr string) outcome {
	return outcome{ExitCode: code(n), Stdout: stdout, Stderr: stderr, StdoutBytes: int64(len(stdout)), StderrBytes: int64(len(stderr))}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		cmd  hook.Command
		want outcome
	}{
		{"exit 0", hook.Command{Run: "echo hi"}, ran(0, "hi\n", "")},
		{"exit 3, stdout and stderr apart", hook.Command{Run: "echo out1; echo err >&2; echo out2; exit 3"}, ran(3, "out1\nout2\n", "err\n")},
		{"shell line", hook.Command{Run: "for i in 1 2; do echo $i; done | tr 12 ab && false || echo or"}, ran(0, "a\nb\nor\n", "")},
		{"complete environment", hook.Command{Run: `echo "$FOO|$HOME"`, Env: []string{"FOO=bar baz"}}, ran(0, "bar baz|\n", "")},
		{"dir", hook.Command{Run: "pwd", Dir: dir}, ran(0, dir+"\n", "")},
		{"no stdin", hook.Command{Run: "cat; echo done"}, ran(0, "done\n", "")},
		{"killed by a signal", hook.Command{Run: "echo before; kill -KILL $$"}, outcome{Signal: "SIGKILL", Stdout: "before\n", StdoutBytes: 7}},
		{"background child dies with the leader", hook.Command{Run: "(sleep 100; echo late) & echo now"}, ran(0, "now\n", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pgid int
			hook.OnStart(t, func(id int) { pgid = id })
			res := run(t, t.Context(), tt.cmd)
			if res.Err != nil {
				t.Errorf("Err = %v; want nil", res.Err)
			}
			if diff := cmp.Diff(tt.want, outcomeOf(res)); diff != "" {
				t.Errorf("Run(%q) (-want +got):\n%s", tt.cmd.Run, diff)
			}
			if res.Duration <= 0 {
				t.Errorf("Duration = %v; want > 0", res.Duration)
			}
			waitGroupGone(t, pgid)
		})
	}
}

func TestRunKeepsTheTails(t *testing.T) {
	seq := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%d\n", i)
		}
		return b.String()
	}
	long := seq(100_000)
	tests := []struct {
		name       string
		run        string
		limit      int
		wantStdout string
		wantStderr string
		outBytes   int64
		errBytes   int64
		truncated  bool
	}{
		// "é" is 2 bytes, "€" 3 and "😀" 4.
		{"cut inside a 2-byte char", `printf 'abcdéfgh'`, 4, "fgh", "", 9, 0, true},
		{"cut before a 2-byte char", `printf 'abcdéfgh'`, 5, "éfgh", "", 9, 0, true},
		{"cut inside a 3-byte char", `printf 'a€b€c€'`, 6, "c€", "", 12, 0, true},
		{"cut inside a 4-byte char", `printf '😀😀😀'`, 6, "😀", "", 12, 0, true},
		{"cut inside, nothing left", `printf 'x😀'`, 3, "", "", 5, 0, true},
		{"exactly the limit", `printf 'héllo'`, 6, "héllo", "", 6, 0, false},
		{"stderr on its own", `printf 'short'; printf 'abcdéfgh' >&2`, 5, "short", "éfgh", 5, 9, true},
		{"many reads", "seq 1 100000; seq 1 100000 >&2", 100, long[len(long)-100:], long[len(long)-100:], int64(len(long)), int64(len(long)), true},
		{"default limit", "seq 1 100000", 0, long[len(long)-hook.DefaultLimit:], "", int64(len(long)), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, t.Context(), hook.Command{Run: tt.run, Limit: tt.limit})
			want := outcome{ExitCode: code(0), Stdout: tt.wantStdout, Stderr: tt.wantStderr, StdoutBytes: tt.outBytes, StderrBytes: tt.errBytes, Truncated: tt.truncated}
			if diff := cmp.Diff(want, outcomeOf(res)); diff != "" {
				t.Errorf("Run(%q) with limit %d (-want +got):\n%s", tt.run, tt.limit, diff)
			}
		})
	}
}

// TestRunFindsInTheWholeStdout: StdoutContains and StdoutMatches are
// looked for in all the command printed, not only in the part kept: a
// text at its start is found, and a pattern anchored at its start matches,
// however much came after, and one anchored there that matches the cut
// does not.
func TestRunFindsInTheWholeStdout(t *testing.T) {
	res := run(t, t.Context(), hook.Command{
		Run:            "echo MARKER-START; seq 1 100000; echo the end >&2",
		Limit:          16,
		StdoutContains: []string{"MARKER-START", "\n99999\n", "MARKER-END", "the end"},
		StdoutMatches:  []*regexp.Regexp{regexp.MustCompile(`^MARKER-START\n1\n`), regexp.MustCompile(`^98\n`)},
	})
	if !res.Truncated || strings.Contains(res.Stdout, "MARKER") {
		t.Fatalf("Stdout %q (truncated %v): want only the end kept", res.Stdout, res.Truncated)
	}
	if diff := cmp.Diff([]bool{true, true, false, false}, res.StdoutContains); diff != "" {
		t.Errorf("StdoutContains (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, false}, res.StdoutMatched); diff != "" {
		t.Errorf("StdoutMatched (-want +got): stdout begins with the first pattern, not the second\n%s", diff)
	}
}

// TestRunTimeoutKillsTheGroup stops a command that never ends by its
// timeout: the leader and its background child are gone afterwards.
func TestRunTimeoutKillsTheGroup(t *testing.T) {
	var pgid int
	hook.OnStart(t, func(id int) { pgid = id })
	child := filepath.Join(t.TempDir(), "child")
	res := run(t, t.Context(), hook.Command{
		Run:     "sleep 100 & echo $! > " + child + "; echo started; sleep 100",
		Timeout: time.Second,
	})
	if res.Err != nil {
		t.Errorf("Err = %v; want nil (a timeout is TimedOut)", res.Err)
	}
	if !res.TimedOut || res.ExitCode != nil || res.Signal != "SIGTERM" {
		t.Errorf("TimedOut %v, ExitCode %v, Signal %q; want true, nil, SIGTERM", res.TimedOut, res.ExitCode, res.Signal)
	}
	if pgid == 0 {
		t.Fatal("no process group id reported")
	}
	if !strings.HasPrefix("started\n", res.Stdout) {
		t.Errorf("Stdout = %q; want %q, or nothing if stopped before", res.Stdout, "started\n")
	}
	if data, err := os.ReadFile(child); err != nil || len(data) == 0 {
		// Only on a machine that took a second to fork: the test still
		// checks the leader.
		t.Logf("the command was stopped before it started its background child (%v)", err)
	}
	waitGroupGone(t, pgid)
}

// TestRunEscapedGrandchild runs a command whose grandchild leaves the
// process group (setsid), drops its mark (see package reap), so it is not
// killed, and keeps stdout and stderr open: Run returns after the
// leader's exit all the same, with what the leader wrote.
func TestRunEscapedGrandchild(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "pid")
	// The grandchild tells the leader its pid once it is in its own
	// session, still holding the pipes; the leader writes it down for the
	// test and exits.
	res := run(t, t.Context(), hook.Command{
		Run: "(setsid env -u " + reap.Var + " sh -c 'echo $$ > " + ready + "; exec sleep 100' &); read pid < " + ready + "; echo $pid > " + pidFile + "; echo hi",
	})
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	escaped, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Kill(escaped, unix.SIGKILL) })
	if res.Err != nil {
		t.Errorf("Err = %v; want nil", res.Err)
	}
	if diff := cmp.Diff(ran(0, "hi\n", ""), outcomeOf(res)); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	if testkit.Dying(escaped) {
		t.Errorf("the escaped grandchild %d is gone; the test did not test an escape", escaped)
	}
}

// TestRunInterrupted ends ctx while the command runs: SIGTERM ends it,
// or SIGKILL after the grace when it ignores SIGTERM.
func TestRunInterrupted(t *testing.T) {
	for _, tt := range []struct {
		name, trap, signal string
	}{
		{"SIGTERM", "", "SIGTERM"},
		{"SIGTERM ignored", "trap '' TERM; ", "SIGKILL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var pgid int
			hook.OnStart(t, func(id int) { pgid = id })
			ready, readLine, _ := testkit.FIFO(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan hook.Result, 1)
			go func() {
				done <- hook.Run(ctx, hook.Command{Run: tt.trap + "echo ready > " + ready + "; sleep 100", Env: os.Environ(), Timeout: time.Minute})
			}()
			if line := readLine(); line != "ready" {
				t.Fatalf("ready line = %q", line)
			}
			cancel()
			var res hook.Result
			select {
			case res = <-done:
			case <-time.After(testkit.Failsafe):
				t.Fatalf("Run has not returned %v after ctx ended", testkit.Failsafe)
			}
			if !errors.Is(res.Err, context.Canceled) {
				t.Errorf("Err = %v; want %v", res.Err, context.Canceled)
			}
			if res.ExitCode != nil || res.Signal != tt.signal || res.TimedOut {
				t.Errorf("ExitCode %v, Signal %q, TimedOut %v; want nil, %s, false", res.ExitCode, res.Signal, res.TimedOut, tt.signal)
			}
			waitGroupGone(t, pgid)
		})
	}
}

// TestRunDoesNotStart: a command Run cannot or must not start never runs,
// and has no duration (not the time its checks took: the results of a
// command that did not run are the same every run).
func TestRunDoesNotStart(t *testing.T) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		cmd  hook.Command
		want func(error) bool
	}{
		{"bad dir", t.Context(), hook.Command{Run: "echo hi", Dir: filepath.Join(t.TempDir(), "missing"), Timeout: time.Minute},
			func(err error) bool {
				return errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), "missing")
			}},
		{"dir is a file", t.Context(), hook.Command{Run: "echo hi", Dir: "/dev/null", Timeout: time.Minute},
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "/dev/null: not a directory") }},
		{"ctx already ended", cancelled, hook.Command{Run: "echo hi", Timeout: time.Minute},
			func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"empty command", t.Context(), hook.Command{Run: " ", Timeout: time.Minute},
			func(err error) bool { return err != nil }},
		{"no timeout", t.Context(), hook.Command{Run: "echo hi"},
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "timeout") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := false
			hook.OnStart(t, func(int) { started = true })
			res := hook.Run(tt.ctx, tt.cmd)
			if !tt.want(res.Err) {
				t.Errorf("Err = %v; not the error wanted", res.Err)
			}
			if started || res.ExitCode != nil || res.Signal != "" || res.Stdout != "" || res.Duration != 0 {
				t.Errorf("started %v, ExitCode %v, Signal %q, Stdout %q, Duration %v; want a command that never ran", started, res.ExitCode, res.Signal, res.Stdout, res.Duration)
			}
		})
	}
}

func TestResultTail(t *testing.T) {
	r := hook.Result{Stdout: "o1\no2\no3\n", Stderr: "e1\ne2\n"}
	tests := []struct {
		r    hook.Result
		n    int
		want string
	}{
		{r, 2, "e1\ne2"},
		{r, 3, "o3\ne1\ne2"},
		{r, 10, "o1\no2\no3\ne1\ne2"},
		{r, 0, ""},
		{hook.Result{Stdout: "no newline"}, 1, "no newline"},
		{hook.Result{Stderr: "only\nstderr\n\n"}, 5, "only\nstderr"},
		{hook.Result{}, 3, ""},
	}
	for _, tt := range tests {
		if got := tt.r.Tail(tt.n); got != tt.want {
			t.Errorf("Result{Stdout: %q, Stderr: %q}.Tail(%d) = %q; want %q", tt.r.Stdout, tt.r.Stderr, tt.n, got, tt.want)
		}
	}
}

// waitGroupGone fails the test unless every process of group pgid is dead
// or dying: neither zombie nor exiting ones are counted (zombies of
// orphans stay in the group until init reaps them, which init in a
// container may never do, so kill(-pgid, 0) is no test). A process that
// was sent SIGKILL just before Run returned may not have run yet to see
// it: such a process is waited for, up to testkit.Failsafe, by its pidfd,
// which a process killed by nobody would not pass (they all sleep 100 s).
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid == 0 {
		t.Fatal("no process group id reported")
	}
	for _, pid := range testkit.Processes(t, testkit.InGroup(pgid)) {
		if !testkit.Exited(t, pid) {
			t.Errorf("process %d of group %d still alive %v after Run returned", pid, pgid, testkit.Failsafe)
		}
	}
}

// TestRunSandbox: a command with a Sandbox runs the command line it
// returns, with its environment and its files as descriptors 3, …, in a
// session of its own; a Sandbox that fails runs nothing.
func TestRunSandbox(t *testing.T) {
	dir := t.TempDir()
	var got []string
	c := hook.Command{
		Run: `echo "$SANDBOXED $(cut -d' ' -f6 /proc/$$/stat) $$ $(readlink /proc/$$/fd/3)"`,
		Sandbox: func(argv, env []string) ([]string, []string, []*os.File, error) {
			got = argv
			f, err := os.Open(dir)
			return append([]string{"/usr/bin/env"}, argv...), append(env, "SANDBOXED=yes"), []*os.File{f}, err
		},
	}
	res := run(t, context.Background(), c)
	if res.Err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	if len(got) != 3 || got[0] != "/bin/sh" || got[1] != "-c" {
		t.Errorf("Sandbox got %q, want the shell's command line", got)
	}
	f := strings.Fields(res.Stdout)
	if len(f) != 4 || f[0] != "yes" || f[1] != f[2] || f[3] != dir {
		t.Errorf("stdout %q, want the sandbox's variable, a session id that is the shell's own pid, then %s", res.Stdout, dir)
	}
	marker := filepath.Join(dir, "ran")
	c = hook.Command{Run: "touch " + marker, Sandbox: func(argv, env []string) ([]string, []string, []*os.File, error) {
		return nil, nil, nil, errors.New("planted")
	}}
	if res := run(t, context.Background(), c); res.Err == nil || res.Err.Error() != "start: planted" {
		t.Errorf("a failing Sandbox: %+v; want its error", res)
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
}
