// Package testkit is what the tests of several packages share: acprun
// built once per test binary, the temporary files of a test binary kept
// under one directory, processes looked up in /proc and waited for, named
// pipes through which a test and the commands it starts exchange lines,
// golden files (-update), the files a test writes at once, a writer that
// blocks until released, the test binary started again to hold a lock,
// tests and commands run where file permissions bind root too, and fake
// model servers for real agents (OpenAI
// Chat Completions and Responses, Gemini, Anthropic Messages). Only tests
// import it.
package testkit

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
)

// Failsafe bounds every wait of the tests that use this package: reaching
// it is a failure, never a synchronisation.
const Failsafe = 20 * time.Second

// dir is the directory Main made for the test binary, "" outside Main.
var dir string

// builds maps what Build was asked for to its sync.OnceValues.
var builds sync.Map

// Main runs the tests of m with everything temporary under one new
// directory, removed when they end: TMPDIR points inside it (so
// t.TempDir, and every process the tests start, write there), and Build
// puts its binaries there. setup, unless nil, runs before the tests; its
// error ends the test binary with code 1. Main exits with m's code.
//
// The tests that use Main wait on the processes they start far more than
// they compute, so unless -test.parallel says otherwise, four times as
// many parallel tests run at once as there are CPUs (Go's default is as
// many).
func Main(m *testing.M, setup func() error) { MainParallel(m, setup, 4) }

// MainParallel is Main with perCPU parallel tests per CPU, for tests that
// wait still more than Main's.
func MainParallel(m *testing.M, setup func() error, perCPU int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(perCPU*runtime.GOMAXPROCS(0)))
	}
	os.Exit(runMain(m, setup))
}

func runMain(m *testing.M, setup func() error) int {
	defaultInterrupts()
	d, err := os.MkdirTemp("", "acprun-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(d)
	tmp := filepath.Join(d, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("TMPDIR", tmp)
	dir = d
	if setup != nil {
		if err := setup(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	running.Store(true)
	return m.Run()
}

// running is set once Main runs the tests: from then on go test logs the
// files they open (see DependOnSources).
var running atomic.Bool

// sourcesNoted is done once DependOnSources has opened the module's
// directories while the tests ran.
var sourcesNoted sync.Once

// DependOnSources makes the tests' result depend on every file of the
// module they are in, as go test's cache sees it: it opens each directory
// of the module (but .git), and go test, which keys a cached result on the
// files the tests opened, hashes the names, sizes and times of their
// entries. Tests that run a binary Build made need it: the binary's
// sources are not all linked into the test binary (the CLI's package is
// not), and a change to them would otherwise give a cached pass of the old
// code. Build calls it; tests whose binary was built before they ran (in
// Main's setup, whose opens go test does not see) call it themselves.
func DependOnSources() {
	if !running.Load() {
		return
	}
	sourcesNoted.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			return // not in a module: nothing to depend on
		}
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil || !d.IsDir():
				return nil
			case d.Name() == ".git":
				return filepath.SkipDir
			}
			if f, err := os.Open(path); err == nil {
				f.Close()
			}
			return nil
		})
	})
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", errors.New("no go.mod")
		}
		d = up
	}
}

// defaultInterrupts gives the processes the tests start the default
// SIGINT and SIGHUP when the test binary was started with them ignored
// (under nohup, or as a background job of a non-interactive shell): they
// would inherit the SIG_IGN, and acprun, which keeps an inherited SIG_IGN
// as its user meant, would never see the interrupts and hangups the tests
// send it. A signal caught here is reset to the default at exec; the test
// binary itself goes on ignoring it (nothing reads the channel).
func defaultInterrupts() {
	var ignored []os.Signal
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGHUP} {
		if signal.Ignored(sig) {
			ignored = append(ignored, sig)
		}
	}
	if len(ignored) > 0 {
		signal.Notify(make(chan os.Signal, 1), ignored...)
	}
}

// Build builds the main package pkg (an import path, or a directory
// relative to the test's) with flags added to go build, and returns the
// binary's path, named after the package's last element. The first call
// for pkg and flags builds; the others share its result. Main must run the
// tests.
func Build(pkg string, flags ...string) (string, error) { return build(nil, pkg, flags) }

// BuildStatic is Build with cgo off (CGO_ENABLED=0), as the README builds
// acprun: a static binary, which starts without the dynamic loader, a
// millisecond less for each of the thousands of processes an end-to-end
// suite starts.
func BuildStatic(pkg string, flags ...string) (string, error) {
	return build([]string{"CGO_ENABLED=0"}, pkg, flags)
}

// build is Build with env added to go build's environment.
func build(env []string, pkg string, flags []string) (string, error) {
	DependOnSources()
	key := strings.Join(append(append(slices.Clone(env), pkg), flags...), "\x00")
	build, _ := builds.LoadOrStore(key, sync.OnceValues(func() (string, error) {
		if dir == "" {
			return "", errors.New("testkit.Build: the tests do not run under testkit.Main")
		}
		out, err := os.MkdirTemp(dir, "build-")
		if err != nil {
			return "", err
		}
		abs, err := filepath.Abs(pkg) // an import path too ends in the package's name
		if err != nil {
			return "", err
		}
		bin := filepath.Join(out, filepath.Base(abs))
		cmd := exec.Command("go", append(append([]string{"build", "-o", bin}, flags...), pkg)...)
		cmd.Env = append(os.Environ(), env...)
		if log, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", strings.Join(append(flags, pkg), " "), err, log)
		}
		return bin, nil
	}))
	return build.(func() (string, error))()
}
