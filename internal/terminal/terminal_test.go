package terminal_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/terminal"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func start(t *testing.T, cfg terminal.Config) *terminal.Terminal {
	t.Helper()
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	term, err := terminal.Start(cfg)
	if err != nil {
		t.Fatalf("Start(%+v) = %v", cfg, err)
	}
	t.Cleanup(term.Close)
	return term
}

func wait(t *testing.T, term *terminal.Terminal) terminal.ExitStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Failsafe)
	defer cancel()
	st, err := term.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait = %v", err)
	}
	return st
}

// openDir opens the directory dir, closed when the test ends.
func openDir(t *testing.T, dir string) *os.File {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestTerminalDirHeld: a command starts in the very directory its Dir
// holds, not in what that directory's path leads to by then: a symlink
// swapped in its place, a directory renamed away.
func TestTerminalDirHeld(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, elsewhere := filepath.Join(base, "dir"), filepath.Join(base, "elsewhere")
	for _, d := range []string{dir, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	held := openDir(t, dir)
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	term := start(t, terminal.Config{Command: "pwd -P", Dir: held})
	wait(t, term)
	if out, _, _ := term.Output(); out != dir+".moved\n" {
		t.Errorf("the command ran in %q; want %q, the directory held", out, dir+".moved\n")
	}
}

func code(n int) terminal.ExitStatus { return terminal.ExitStatus{Code: &n} }

func TestTerminalRuns(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "only-in-env-path"), []byte("#!/bin/sh\necho found \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	held := openDir(t, dir)
	tests := []struct {
		name       string
		cfg        terminal.Config
		wantOutput string
		wantStatus terminal.ExitStatus
	}{
		{"exit code", terminal.Config{Command: "echo hi; exit 3"}, "hi\n", code(3)},
		{"stderr interleaved", terminal.Config{Command: "echo out1; echo err >&2; echo out2"}, "out1\nerr\nout2\n", code(0)},
		{"signal", terminal.Config{Command: "kill -TERM $$"}, "", terminal.ExitStatus{Signal: "SIGTERM"}},
		{"args", terminal.Config{Command: "printf", Args: []string{"%s|", "a b", "$HOME", ";"}}, "a b|$HOME|;|", code(0)},
		{"plain program", terminal.Config{Command: "true"}, "", code(0)},
		{"env", terminal.Config{Command: "echo $FOO", Env: []string{"FOO=bar baz", "PATH=/usr/bin:/bin"}}, "bar baz\n", code(0)},
		{"dir", terminal.Config{Command: "pwd -P", Dir: held}, dir + "\n", code(0)},
		{"path from env", terminal.Config{Command: "only-in-env-path", Args: []string{"x"}, Env: []string{"PATH=" + bin + ":/usr/bin:/bin"}}, "found x\n", code(0)},
		{"whole output after exit", terminal.Config{Command: "seq 1 20000"}, seq(20000), code(0)},
		{"background child is killed at exit", terminal.Config{Command: "(sleep 1000; echo late) & echo now"}, "now\n", code(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := start(t, tt.cfg)
			st := wait(t, term)
			if diff := cmp.Diff(tt.wantStatus, st); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			out, truncated, final := term.Output()
			if out != tt.wantOutput || truncated {
				t.Errorf("Output() = %q, %v; want %q, false", out, truncated, tt.wantOutput)
			}
			if final == nil || !cmp.Equal(*final, st) {
				t.Errorf("Output() status = %v; want %v", final, st)
			}
			if alive := testkit.Processes(t, testkit.InGroup(term.Pid())); len(alive) > 0 {
				t.Errorf("processes of the group still alive: %v", alive)
			}
		})
	}
}

func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// TestTerminalSandbox: a sandboxed terminal runs the command line its
// Sandbox returns for the resolved program, with its environment and its
// files as descriptors 3, …, in a session of its own (no controlling
// terminal); a Sandbox that fails starts nothing.
func TestTerminalSandbox(t *testing.T) {
	var got []string
	dir := t.TempDir()
	cfg := terminal.Config{
		Command: "sh",
		Args:    []string{"-c", `echo "$SANDBOXED $(cut -d' ' -f6 /proc/$$/stat) $$ $(readlink /proc/$$/fd/3)"`},
		Env:     []string{"PATH=/usr/bin:/bin"},
		Sandbox: func(argv, env []string) ([]string, []string, []*os.File, error) {
			got = argv
			f, err := os.Open(dir)
			return append([]string{"/usr/bin/env"}, argv...), append(env, "SANDBOXED=yes"), []*os.File{f}, err
		},
	}
	term := start(t, cfg)
	if st := wait(t, term); st.Code == nil || *st.Code != 0 {
		t.Fatalf("status %+v", st)
	}
	if len(got) == 0 || !filepath.IsAbs(got[0]) || filepath.Base(got[0]) != "sh" {
		t.Errorf("Sandbox got %q, want the resolved program first", got)
	}
	out, _, _ := term.Output()
	f := strings.Fields(out)
	if len(f) != 4 || f[0] != "yes" || f[1] != f[2] || f[3] != dir {
		t.Errorf("output %q, want the sandbox's variable, then a session id that is the shell's own pid, then %s", out, dir)
	}
	cfg.Sandbox = func(argv, env []string) ([]string, []string, []*os.File, error) {
		return nil, nil, nil, errors.New("planted")
	}
	if term, err := terminal.Start(cfg); err == nil || !strings.Contains(err.Error(), "start sh: planted") {
		if term != nil {
			term.Close()
		}
		t.Errorf("Start with a failing Sandbox: %v; want its error", err)
	}
}

func TestTerminalStartErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  terminal.Config
		want error
	}{
		{"empty", terminal.Config{Command: " "}, nil},
		{"not found", terminal.Config{Command: "no-such-program-acprun", Env: []string{"PATH=/usr/bin:/bin"}}, exec.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term, err := terminal.Start(tt.cfg)
			if err == nil {
				term.Close()
				t.Fatalf("Start(%+v) = nil error", tt.cfg)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Start(%+v) = %v; want %v", tt.cfg, err, tt.want)
			}
		})
	}
}

func TestTerminalArgv(t *testing.T) {
	tests := []struct {
		cfg  terminal.Config
		want []string
	}{
		{terminal.Config{Command: "ls"}, []string{"ls"}},
		{terminal.Config{Command: "/usr/bin/go-1.2_x+y"}, []string{"/usr/bin/go-1.2_x+y"}},
		{terminal.Config{Command: "ls -la"}, []string{"/bin/sh", "-c", "ls -la"}},
		{terminal.Config{Command: "a|b"}, []string{"/bin/sh", "-c", "a|b"}},
		{terminal.Config{Command: "FOO=1"}, []string{"/bin/sh", "-c", "FOO=1"}},
		{terminal.Config{Command: "echo $x"}, []string{"/bin/sh", "-c", "echo $x"}},
		{terminal.Config{Command: "*.sh"}, []string{"/bin/sh", "-c", "*.sh"}},
		{terminal.Config{Command: "~/bin/x"}, []string{"/bin/sh", "-c", "~/bin/x"}},
		{terminal.Config{Command: "café"}, []string{"/bin/sh", "-c", "café"}},
		{terminal.Config{Command: "a^b%c@d,e:f"}, []string{"a^b%c@d,e:f"}},
		{terminal.Config{Command: "ls -la", Args: []string{"x"}}, []string{"ls -la", "x"}},
		{terminal.Config{Command: "git", Args: []string{"status", "--short"}}, []string{"git", "status", "--short"}},
	}
	for _, tt := range tests {
		t.Run(tt.cfg.Command, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, terminal.Argv(tt.cfg)); diff != "" {
				t.Errorf("Argv(%+v) (-want +got):\n%s", tt.cfg, diff)
			}
		})
	}
}

// TestTerminalTruncation checks that the output keeps its last bytes, cut at a
// character boundary, with multi-byte text.
func TestTerminalTruncation(t *testing.T) {
	tests := []struct {
		name   string
		script string // printf format
		limit  int
		want   string
		trunc  bool
	}{
		// "é" is 2 bytes: 10 bytes, limit 5 would start inside the 3rd.
		{"cut inside a 2-byte char", `printf 'ééééé'`, 5, "éé", true},
		{"cut at a boundary", `printf 'ééééé'`, 6, "ééé", true},
		// "€" is 3 bytes.
		{"cut inside a 3-byte char", `printf 'a€b€c€'`, 6, "c€", true},
		{"cut before a 3-byte char", `printf 'a€b€c€'`, 7, "€c€", true},
		// "😀" is 4 bytes.
		{"cut inside a 4-byte char", `printf '😀😀😀'`, 6, "😀", true},
		{"cut inside, last bytes", `printf 'x😀'`, 3, "", true},
		{"under the limit", `printf 'héllo'`, 10, "héllo", false},
		{"exactly the limit", `printf 'héllo'`, 6, "héllo", false},
		{"a limit of 0 keeps none", `printf 'abcdef'`, 0, "", true},
		{"a limit of 0, no output", `true`, 0, "", false},
		// Bytes that are no character are sent as U+FFFD, 3 bytes: the
		// output still fits the limit.
		{"invalid bytes", `printf 'ab\377\376cd'`, 3, "cd", true},
		{"invalid bytes within the limit", `printf 'ab\377cd'`, 7, "ab\uFFFDcd", false},
		{"much more than the limit", `i=0; while [ $i -lt 3000 ]; do printf 'ünïcödé-'; i=$((i+1)); done; printf END`, 100, "-" + strings.Repeat("ünïcödé-", 8) + "END", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := start(t, terminal.Config{Command: tt.script, OutputLimit: &tt.limit})
			wait(t, term)
			out, truncated, _ := term.Output()
			if out != tt.want || truncated != tt.trunc {
				t.Errorf("Output() = %q, %v; want %q, %v", out, truncated, tt.want, tt.trunc)
			}
			if len(out) > tt.limit {
				t.Errorf("len(output) = %d; want <= %d", len(out), tt.limit)
			}
		})
	}
}

func TestTerminalKillKillsTheGroup(t *testing.T) {
	ready, readLine, _ := testkit.FIFO(t)
	term := start(t, terminal.Config{Command: "sleep 1000 & echo $! > " + ready + "; wait"})
	child, err := strconv.Atoi(readLine())
	if err != nil {
		t.Fatal(err)
	}
	if got := testkit.Processes(t, testkit.InGroup(term.Pid())); !cmp.Equal(got, sortedPids(term.Pid(), child)) {
		t.Fatalf("group before kill = %v; want leader %d and child %d", got, term.Pid(), child)
	}
	term.Kill()
	st := wait(t, term)
	if diff := cmp.Diff(terminal.ExitStatus{Signal: "SIGKILL"}, st); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if alive := testkit.Processes(t, testkit.InGroup(term.Pid())); len(alive) > 0 {
		t.Errorf("processes of the group still alive after Kill: %v", alive)
	}
	// The terminal stays readable after a kill.
	if _, _, final := term.Output(); final == nil || final.Signal != "SIGKILL" {
		t.Errorf("Output() status = %v; want SIGKILL", final)
	}
}

// TestTerminalReleaseLeavesNothing releases a command that started a background
// child: no process of its group may be left.
func TestTerminalReleaseLeavesNothing(t *testing.T) {
	ready, readLine, _ := testkit.FIFO(t)
	m := terminal.NewManager(1 << 30)
	t.Cleanup(func() { m.Close() })
	id, term, err := m.Create(terminal.Config{Command: "sleep 1000 & echo started > " + ready + "; echo out; wait", Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if got := readLine(); got != "started" {
		t.Fatalf("ready line = %q", got)
	}
	if n := len(testkit.Processes(t, testkit.InGroup(term.Pid()))); n != 2 {
		t.Fatalf("%d processes in the group before release; want 2", n)
	}
	if _, err := m.Release(id); err != nil {
		t.Fatalf("Release(%s) = %v", id, err)
	}
	if alive := testkit.Processes(t, testkit.InGroup(term.Pid())); len(alive) > 0 {
		t.Errorf("processes of the group still alive after Release: %v", alive)
	}
	if _, err := m.Get(id); !errors.Is(err, terminal.ErrUnknown) {
		t.Errorf("Get(%s) after Release = %v; want %v", id, err, terminal.ErrUnknown)
	}
	if _, err := m.Release(id); !errors.Is(err, terminal.ErrUnknown) {
		t.Errorf("second Release(%s) = %v; want %v", id, err, terminal.ErrUnknown)
	}
}

// TestTerminalEscapedChildDoesNotBlock: a child that left the process group and
// holds the output pipe must not keep Wait or Release waiting. It drops
// its mark (see package reap) too, or it would be killed.
func TestTerminalEscapedChildDoesNotBlock(t *testing.T) {
	ready, readLine, _ := testkit.FIFO(t)
	goOn, _, sayGo := testkit.FIFO(t)
	m := terminal.NewManager(1 << 30)
	t.Cleanup(func() { m.Close() })
	// setsid (without forking: the background child is no group leader)
	// puts the child in a new session and group, still holding stdout;
	// once it is there, it tells the test, which lets the leader end.
	id, term, err := m.Create(terminal.Config{
		Command: "setsid env -u " + reap.Var + " sh -c 'echo $$ > " + ready + "; exec sleep 1000' & read x < " + goOn + "; echo bye",
		Env:     os.Environ(),
	})
	if err != nil {
		t.Fatal(err)
	}
	escaped, err := strconv.Atoi(readLine())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(escaped, syscall.SIGKILL) })
	sayGo("go")
	if diff := cmp.Diff(code(0), wait(t, term)); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if out, _, _ := term.Output(); out != "bye\n" {
		t.Errorf("Output() = %q; want %q", out, "bye\n")
	}
	if _, err := m.Release(id); err != nil {
		t.Errorf("Release = %v", err)
	}
	if testkit.Dying(escaped) {
		t.Errorf("the escaped child %d is gone; the test did not test an escape", escaped)
	}
}

func TestTerminalManager(t *testing.T) {
	m := terminal.NewManager(1 << 30)
	var ids []string
	var terms []*terminal.Terminal
	for range 3 {
		id, term, err := m.Create(terminal.Config{Command: "sleep 1000", Env: os.Environ()})
		if err != nil {
			t.Fatal(err)
		}
		ids, terms = append(ids, id), append(terms, term)
	}
	if diff := cmp.Diff([]string{"term-1", "term-2", "term-3"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ids, m.KillAll()); diff != "" {
		t.Errorf("KillAll's running terminals (-want +got):\n%s", diff)
	}
	for i, term := range terms {
		if diff := cmp.Diff(terminal.ExitStatus{Signal: "SIGKILL"}, wait(t, term)); diff != "" {
			t.Errorf("%s after KillAll (-want +got):\n%s", ids[i], diff)
		}
		if got, err := m.Get(ids[i]); err != nil || got != term {
			t.Errorf("Get(%s) after KillAll = %v, %v; want the terminal", ids[i], got, err)
		}
	}
	if got := m.KillAll(); len(got) != 0 {
		t.Errorf("KillAll once they ended: running %v; want none", got)
	}
	id, running, err := m.Create(terminal.Config{Command: "sleep 1000", Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if left := m.Close(); !slices.Equal(left, []string{id}) {
		t.Errorf("Close = %q; want the one still running, %s", left, id)
	}
	select {
	case <-running.Done():
	default:
		t.Errorf("%s still running after Close", id)
	}
	if _, err := m.Get(id); !errors.Is(err, terminal.ErrUnknown) {
		t.Errorf("Get after Close = %v; want %v", err, terminal.ErrUnknown)
	}
	if _, _, err := m.Create(terminal.Config{Command: "true"}); !errors.Is(err, terminal.ErrClosed) {
		t.Errorf("Create after Close = %v; want %v", err, terminal.ErrClosed)
	}
	m.Close() // twice is fine
}

func TestTerminalWaitHonoursContext(t *testing.T) {
	term := start(t, terminal.Config{Command: "sleep 1000"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := term.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait(cancelled ctx) = %v; want %v", err, context.Canceled)
	}
	if _, _, st := term.Output(); st != nil {
		t.Errorf("Output() status of a running command = %v; want nil", st)
	}
}

func sortedPids(a, b int) []int {
	if a > b {
		a, b = b, a
	}
	return []int{a, b}
}

// TestManagerRunning counts the commands still running: not one that
// exited, nor one released.
func TestManagerRunning(t *testing.T) {
	m := terminal.NewManager(1 << 30)
	t.Cleanup(func() { m.Close() })
	_, done, err := m.Create(terminal.Config{Command: "true", Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := done.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := m.Running(); n != 0 {
		t.Errorf("Running() = %d with one command that exited; want 0", n)
	}
	id, _, err := m.Create(terminal.Config{Command: "sleep 1000", Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Running(); n != 1 {
		t.Errorf("Running() = %d with one command running; want 1", n)
	}
	if _, err := m.Release(id); err != nil {
		t.Fatal(err)
	}
	if n := m.Running(); n != 0 {
		t.Errorf("Running() = %d once the running command was released; want 0", n)
	}
}

// TestManagerBudget: a terminal whose output limit would take what the
// terminals count for past the budget is refused, a running command
// counted at its limit, a finished one too until its exit was reported,
// then at what it holds, a released one not at all.
func TestManagerBudget(t *testing.T) {
	const budget = 10 << 10
	m := terminal.NewManager(budget)
	defer m.Close()
	create := func(command string, limit int) (string, *terminal.Terminal, error) {
		return m.Create(terminal.Config{Command: command, Env: os.Environ(), OutputLimit: &limit})
	}
	sleeping, _, err := create("sleep 1000", 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	_, done, err := create("printf abc", 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, done)
	if got := m.Held(); got != 8<<10 {
		t.Fatalf("Held = %d with a command ended unreported; want %d: both at their limits", got, 8<<10)
	}
	done.MarkReported()
	held := 4<<10 + len("abc") // the finished one holds its output
	if got := m.Held(); got != held {
		t.Fatalf("Held = %d; want %d", got, held)
	}
	if _, _, err := create("sleep 1000", 4<<10); err != nil {
		t.Fatalf("a terminal within the budget: %v", err)
	}
	held += 4 << 10
	_, _, err = create("sleep 1000", 4<<10)
	var over *terminal.BudgetError
	if !errors.As(err, &over) || *over != (terminal.BudgetError{Held: held, Limit: 4 << 10, Budget: budget}) {
		t.Fatalf("a terminal past the budget: %v; want a BudgetError with held %d", err, held)
	}
	if _, _, err := create("sleep 1000", budget-held); err != nil {
		t.Fatalf("a terminal that fills the budget exactly: %v", err)
	}
	if _, _, err := create("true", 1); err == nil {
		t.Fatal("a terminal past a full budget was started")
	}
	if _, err := m.Release(sleeping); err != nil {
		t.Fatal(err)
	}
	if _, _, err := create("sleep 1000", 4<<10); err != nil {
		t.Errorf("a terminal after one was released: %v", err)
	}
}

// TestTerminalHoldsAtMostItsLimit: a command that prints far more than
// the output limit leaves its terminal holding no more than the limit.
func TestTerminalHoldsAtMostItsLimit(t *testing.T) {
	const limit = 1 << 20
	m := terminal.NewManager(1 << 30)
	defer m.Close()
	_, term, err := m.Create(terminal.Config{Command: "head -c 20000000 /dev/zero", Env: os.Environ(), OutputLimit: &[]int{limit}[0]})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, term)
	term.MarkReported()
	if got := m.Held(); got > limit {
		t.Errorf("the terminal holds %d bytes; want at most its limit, %d", got, limit)
	}
	if out, truncated, _ := term.Output(); len(out) != limit || !truncated {
		t.Errorf("output of %d bytes, truncated %v; want %d, true", len(out), truncated, limit)
	}
}
