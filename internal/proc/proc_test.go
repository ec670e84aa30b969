package proc_test

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(parentEnv) == "1" {
		os.Exit(startAndWait())
	}
	switch os.Getenv(ttyEnv) {
	case "1":
		os.Exit(openTTYs())
	case "child":
		fmt.Println(openTTY())
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// parentEnv set to 1 makes the test binary a parent of a process Start
// started (startAndWait).
const parentEnv = "PROC_TEST_PARENT"

// startAndWait starts `sleep 1000` (which ignores its input, in a group
// of its own), prints its pid and waits for the end of its own stdin.
func startAndWait() int {
	p, err := proc.Start(proc.Config{Args: []string{"sleep", "1000"}, Env: os.Environ()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(p.Pid())
	io.Copy(io.Discard, os.Stdin)
	p.Kill()
	<-p.Done()
	return 0
}

// await fails the test unless c is closed within testkit.Failsafe.
func await(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(testkit.Failsafe):
		t.Fatalf("%s: not within %v", what, testkit.Failsafe)
	}
}

func start(t *testing.T, cfg proc.Config) *proc.Process {
	t.Helper()
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	p, err := proc.Start(cfg)
	if err != nil {
		t.Fatalf("Start(%q) = %v", cfg.Args, err)
	}
	t.Cleanup(func() { p.Kill(); <-p.Done() })
	return p
}

func sh(line string) []string { return []string{"/bin/sh", "-c", line} }

func TestExitStatus(t *testing.T) {
	code := func(n int) *int { return &n }
	tests := []struct {
		line   string
		code   *int
		signal string
	}{
		{"exit 0", code(0), ""},
		{"exit 3", code(3), ""},
		{"kill -TERM $$", nil, "SIGTERM"},
		{"kill -KILL $$", nil, "SIGKILL"},
	}
	for _, tt := range tests {
		p := start(t, proc.Config{Args: sh(tt.line)})
		await(t, p.Exited(), tt.line)
		gotCode, gotSignal := p.ExitStatus()
		if !cmp.Equal(gotCode, tt.code) || gotSignal != tt.signal {
			t.Errorf("%s: ExitStatus() = %v, %q; want %v, %q", tt.line, gotCode, gotSignal, tt.code, tt.signal)
		}
	}
}

func TestExitStatusBeforeExit(t *testing.T) {
	p := start(t, proc.Config{Args: sh("exec sleep 1000")})
	if code, signal := p.ExitStatus(); code != nil || signal != "" {
		t.Errorf("ExitStatus() of a running process = %v, %q; want nil, \"\"", code, signal)
	}
	p.Kill()
	await(t, p.Exited(), "exit after Kill")
	if _, signal := p.ExitStatus(); signal != "SIGKILL" {
		t.Errorf("ExitStatus() after Kill: signal %q; want SIGKILL", signal)
	}
}

func TestStartErrors(t *testing.T) {
	for _, cfg := range []proc.Config{
		{},
		{Args: []string{"no-such-program-acprun"}},
		{Args: sh("true"), Dir: "/no/such/dir"},
	} {
		out, err := proc.NewOutput(100)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Stdout = out.File()
		if p, err := proc.Start(cfg); err == nil {
			p.Kill()
			t.Errorf("Start(%+v) started pid %d; want an error", cfg, p.Pid())
		}
		// Start closed the file it was given: the reading ends.
		await(t, out.ReadDone(), "the output's end after a failed Start")
	}
}

// TestOutput: what the process writes to stdout and stderr, one pipe,
// is in the tail once Done is closed.
func TestOutput(t *testing.T) {
	out, err := proc.NewOutput(100)
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, proc.Config{Args: sh("echo out; echo err >&2"), Stdout: out.File(), Stderr: out.File(), Readers: []proc.Reader{out}})
	await(t, p.Done(), "Done")
	if got := string(out.Tail().Bytes()); got != "out\nerr\n" {
		t.Errorf("output %q; want %q", got, "out\nerr\n")
	}
}

// TestOutputTake: Take returns every byte written before it, whether the
// reader took it from the pipe already or not, and starts a new tail,
// which follows the one taken.
func TestOutputTake(t *testing.T) {
	out, err := proc.NewOutput(100)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		out.File().Close()
		await(t, out.ReadDone(), "the end of the output")
	}()
	for i, s := range []string{"one\n", "two\n", "", "three\n"} {
		if _, err := out.File().WriteString(s); err != nil {
			t.Fatal(err)
		}
		tail := out.Take()
		if got := string(tail.Bytes()); got != s {
			t.Errorf("Take() = %q; want %q, what was written since the last Take", got, s)
		}
		if tail.Follows() != (i > 0) {
			t.Errorf("Take() %d: Follows() = %v; want %v", i, tail.Follows(), i > 0)
		}
	}
}

// TestOutputHeldOnceRead: once reading has stopped, the tail holds just
// the bytes kept, however the reads cut what was written: 600 bytes read
// in two reads of 300 (the buffer grown to 512, then doubled) leave 600
// held, as one read of 600 would.
func TestOutputHeldOnceRead(t *testing.T) {
	reads := make(chan int, 2)
	out, err := proc.NewOutputTo(1<<20, readSizes(reads))
	if err != nil {
		t.Fatal(err)
	}
	half := strings.Repeat("x", 300)
	for range 2 {
		if _, err := out.File().WriteString(half); err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(half); n += <-reads { // read before the next write
		}
	}
	out.File().Close()
	await(t, out.ReadDone(), "the end of the output")
	if got := out.Held(); got != 2*len(half) {
		t.Errorf("Held() = %d once reading stopped; want %d, the bytes kept", got, 2*len(half))
	}
	if got := string(out.Tail().Bytes()); got != half+half {
		t.Errorf("output %q; want %q", got, half+half)
	}
}

// readSizes is an io.Writer that sends the size of each write.
type readSizes chan<- int

func (r readSizes) Write(p []byte) (int, error) {
	r <- len(p)
	return len(p), nil
}

// stubbornReader is a Reader whose pipe never ends: it stops only when
// told to.
type stubbornReader struct {
	done       chan struct{}
	stopped    atomic.Bool
	toEnd      atomic.Bool // ReadToEnd was called
	toEndFirst atomic.Bool // ReadToEnd was called before StopReading
	unread     atomic.Int64
}

func (r *stubbornReader) Unread() int { return int(r.unread.Load()) }

func (r *stubbornReader) ReadDone() <-chan struct{} { return r.done }

func (r *stubbornReader) ReadToEnd() { r.toEnd.Store(true) }

func (r *stubbornReader) StopReading() {
	if !r.stopped.Swap(true) {
		r.toEndFirst.Store(r.toEnd.Load())
		close(r.done)
	}
}

// TestReadersAreStoppedAfterDrainDelay: a reader whose pipe is held open
// by someone outside the group is stopped once the leader has exited;
// one that read its end is not.
func TestReadersAreStoppedAfterDrainDelay(t *testing.T) {
	out, err := proc.NewOutput(100)
	if err != nil {
		t.Fatal(err)
	}
	held := &stubbornReader{done: make(chan struct{})}
	p := start(t, proc.Config{Args: sh("echo bye"), Stdout: out.File(), Readers: []proc.Reader{held, out}})
	await(t, p.Done(), "Done with a pipe that never ends")
	if !held.stopped.Load() {
		t.Error("the reader of the held pipe was not stopped")
	}
	if !held.toEndFirst.Load() {
		t.Error("the reader of the held pipe was stopped without being told to read to the end first")
	}
	if got := string(out.Tail().Bytes()); got != "bye\n" {
		t.Errorf("output %q; want %q", got, "bye\n")
	}
}

// TestDrainReadsWhatThePipeHolds: past DrainDelay, a reader is stopped
// only once its pipe is empty, however long reading what the process wrote
// takes; a pipe that never empties is given up on after MaxDrain.
func TestDrainReadsWhatThePipeHolds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		slow := &stubbornReader{done: make(chan struct{})}
		slow.unread.Store(64 << 10)
		empty := &stubbornReader{done: make(chan struct{})}
		flooded := &stubbornReader{done: make(chan struct{})}
		flooded.unread.Store(1)
		drained := make(chan struct{})
		go func() {
			proc.Drain([]proc.Reader{slow, empty, flooded})
			close(drained)
		}()

		time.Sleep(proc.DrainDelay + proc.DrainPoll)
		synctest.Wait()
		if slow.stopped.Load() {
			t.Fatal("a reader was stopped while its pipe held bytes it had not read")
		}
		slow.unread.Store(0) // it read them
		time.Sleep(proc.DrainPoll)
		synctest.Wait()
		if !slow.stopped.Load() || !empty.stopped.Load() {
			t.Fatalf("readers of empty pipes stopped: %v, %v; want both", slow.stopped.Load(), empty.stopped.Load())
		}
		if flooded.stopped.Load() {
			t.Fatal("the reader of a pipe still written to was stopped before MaxDrain")
		}
		<-drained
		if !flooded.stopped.Load() {
			t.Error("the reader of a pipe that never empties was not stopped")
		}
		if elapsed := time.Since(start); elapsed != proc.MaxDrain {
			t.Errorf("drained after %v, want MaxDrain (%v)", elapsed, proc.MaxDrain)
		}
	})
}

// TestPipeUnread: PipeUnread counts the bytes a pipe holds, down to 0 as
// they are read, and 0 once its read end is closed.
func TestPipeUnread(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n := proc.PipeUnread(r); n != 0 {
		t.Errorf("an empty pipe: PipeUnread = %d, want 0", n)
	}
	if _, err := w.WriteString("0123456789"); err != nil {
		t.Fatal(err)
	}
	if n := proc.PipeUnread(r); n != 10 {
		t.Errorf("after 10 bytes: PipeUnread = %d, want 10", n)
	}
	if _, err := r.Read(make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	if n := proc.PipeUnread(r); n != 6 {
		t.Errorf("after reading 4: PipeUnread = %d, want 6", n)
	}
	r.Close()
	if n := proc.PipeUnread(r); n != 0 {
		t.Errorf("closed: PipeUnread = %d, want 0", n)
	}
}

// TestSandboxEnv: under a Sandbox, the process started gets the
// environment the Sandbox returns (its wrapper's), with the command's reap
// mark set in it, not the command's environment nor acprun's (when it
// returns none); the Sandbox gets the command's, marked with the
// process's own mark when Start reaps.
func TestSandboxEnv(t *testing.T) {
	t.Setenv("PROC_TEST_ACPRUNS", "acprun's")
	for _, tc := range []struct {
		name    string
		reap    bool
		wrapEnv []string
	}{
		{"reaped", true, []string{"WRAPPER=yes"}},
		{"not reaped", false, []string{"WRAPPER=yes"}},
		{"no environment", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			out, err := proc.NewOutput(1000)
			if err != nil {
				t.Fatal(err)
			}
			p := start(t, proc.Config{
				Args: []string{"/bin/true"},
				Env:  []string{reap.Var + "=run", "COMMAND=yes"},
				Reap: tc.reap,
				Sandbox: func(argv, env []string) ([]string, []string, []*os.File, error) {
					got = env
					return sh(`echo "$` + reap.Var + `|$WRAPPER|$COMMAND|$PROC_TEST_ACPRUNS"`), tc.wrapEnv, nil, nil
				},
				Stdout: out.File(), Readers: []proc.Reader{out},
			})
			await(t, p.Done(), "Done")
			mark := reap.Of(got)
			if tc.reap && !strings.HasPrefix(string(mark), "run.") || !tc.reap && mark != "run" || !slices.Contains(got, "COMMAND=yes") {
				t.Errorf("the sandbox got %q; want COMMAND, and the mark run%s", got, map[bool]string{true: " or a Sub of it"}[tc.reap])
			}
			want := string(mark) + "|" + map[bool]string{true: "yes"}[tc.wrapEnv != nil] + "||\n"
			if got := string(out.Tail().Bytes()); got != want {
				t.Errorf("the process saw %q; want %q: the wrapper's environment, with the command's mark", got, want)
			}
		})
	}
}
