package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	json "github.com/go-json-experiment/json/v1"
)

// ExecArg is the hidden first argument of acprun's sandbox helper, which
// Wrap puts in the command lines it returns: acprun ExecArg RULES -- ARGV…
// restricts itself by RULES (JSON, internal to this package) and execs
// ARGV; acprun ExecArg RELAY (no command) is the relay the helper starts
// (see startRelay). acprun's main hands such a command line to Exec
// before anything else; it is not a command for people.
const ExecArg = "__sandbox-exec"

// rules are what the helper does before it execs the command.
type rules struct {
	// IgnoreTerm execs the command (bwrap) with SIGTERM ignored, and
	// nothing else: see Wrap.
	IgnoreTerm bool `json:"ignoreTerm,omitempty"`
	// FS restricts writes to the write paths (and to the null devices:
	// see devices). Write lists them (Plan's); the helper gets them opened
	// by Wrap, as Opened, so that what it allows is what Wrap checked,
	// whatever their paths lead to by the time it runs.
	FS     bool       `json:"fs,omitempty"`
	Write  []string   `json:"-"`
	Opened []openPath `json:"opened,omitempty"`
	// PrivateDev, with FS, also lets the command write in /dev/shm and
	// to the terminals (/dev/tty, /dev/ptmx, /dev/pts): bubblewrap's
	// /dev, the sandbox's own (see privateDevices).
	PrivateDev bool `json:"privateDev,omitempty"`
	// DevMounts, with FS but not PrivateDev (Landlock alone), lists the
	// mounts of devpts or devtmpfs in the write paths that Plan let
	// through (best-effort, with a warning): the helper refuses to run
	// the command when a write path holds any other (see heldMounts).
	DevMounts []string `json:"devMounts,omitempty"`
	// Net restricts TCP connections to the ports in Connect, and sockets
	// to UNIX, netlink, TCP and (with UDP) UDP ones.
	Net     bool  `json:"net,omitempty"`
	Connect []int `json:"connect,omitempty"`
	UDP     bool  `json:"udp,omitempty"`
	// Relay lists the loopback ports to relay to acprun's UNIX sockets
	// inside bubblewrap's network namespace: the helper starts the relay
	// (see startRelay) before it restricts itself.
	Relay []Relay `json:"relay,omitempty"`
	// Env is the descriptor the helper inherits the command's environment
	// in (see Wrap): its own is acprun's, never the command's.
	Env int `json:"env,omitempty"`
}

// openPath is a write path as the helper gets it: the descriptor it
// inherits for it, and the file (device and inode) that must be.
type openPath struct {
	Path string `json:"path"`
	FD   int    `json:"fd"`
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
}

// Exit codes of Exec when it cannot run the command, as a shell's.
const (
	exitCannotRun = 126 // the restriction failed, or exec did
	exitNotFound  = 127
)

// Exec is the sandbox helper: args are those after ExecArg (RULES --
// ARGV…). It restricts the process by RULES and execs ARGV (looked up in
// its PATH when ARGV[0] has no slash) with the environment RULES says it
// inherits as a descriptor: the helper's own environment is acprun's
// choice, never the command's, which takes effect only at the exec, once
// the process is restricted (see Wrap). It returns only if it fails, with
// a message and an exit code for the process: ARGV never runs
// unrestricted. With a single argument it is the relay (see startRelay),
// which exits 0 once its job is done.
//
// Being a Go program, the helper also gives the command SIGTERM's default
// action back, whatever it inherited: the Go runtime installs its own
// handler for SIGTERM even over an inherited SIG_IGN, and exec resets
// handled signals to their default. Only with IgnoreTerm does it leave
// SIGTERM ignored, and exec ARGV (bwrap) with its own environment.
func Exec(args []string) (code int, err error) {
	if len(args) == 1 {
		if err := relay(args[0]); err != nil {
			return exitCannotRun, fmt.Errorf("sandbox relay: %w", err)
		}
		os.Exit(0)
	}
	if len(args) < 3 || args[1] != "--" {
		return exitCannotRun, errors.New("sandbox helper: usage: " + ExecArg + " RULES -- COMMAND [ARG…]")
	}
	var r rules
	if err := json.Unmarshal([]byte(args[0]), &r); err != nil {
		return exitCannotRun, fmt.Errorf("sandbox helper: rules: %w", err)
	}
	argv := args[2:]
	if r.IgnoreTerm {
		path, err := exec.LookPath(argv[0])
		if err != nil {
			return exitNotFound, err
		}
		signal.Ignore(syscall.SIGTERM)
		return exitCannotRun, fmt.Errorf("sandbox: exec %s: %w", path, syscall.Exec(path, argv, os.Environ()))
	}
	// Capabilities first, before the helper starts anything (the relay):
	// they are the thread's, which keeps them for the exec (see
	// restrictExec) and starts the relay.
	runtime.LockOSThread()
	if err := dropCapabilities(); err != nil {
		return exitCannotRun, fmt.Errorf("sandbox: %w", err)
	}
	if r.Env < 3 {
		return exitCannotRun, errors.New("sandbox helper: rules: no descriptor for the command's environment")
	}
	env, err := readEnv(r.Env)
	if err != nil {
		return exitCannotRun, fmt.Errorf("sandbox helper: %w", err)
	}
	if len(r.Relay) > 0 {
		if err := startRelay(r.Relay); err != nil {
			return exitCannotRun, fmt.Errorf("sandbox: %w", err)
		}
	}
	path, err := lookPath(argv[0], env)
	if err != nil {
		return exitNotFound, err
	}
	if err := restrictExec(r, path, argv, env); err != nil {
		return exitCannotRun, fmt.Errorf("sandbox: %w", err)
	}
	panic("unreachable")
}

// lookPath is exec.LookPath in env's PATH (its last definition; none:
// nowhere). It sets the helper's own PATH to that: call it once the
// helper starts nothing more (the relay gets the helper's environment).
func lookPath(file string, env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if err := os.Setenv("PATH", path); err != nil {
		return "", err
	}
	return exec.LookPath(file)
}
