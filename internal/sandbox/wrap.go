package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// Wrap returns the command line and the environment that run argv with
// env inside the sandbox a applies: argv itself under backend none. The
// command is looked up in env's PATH when argv[0] has no slash (resolve
// it first to look it up elsewhere), and starts in the working directory
// it is started in. env gets TMPDIR, and the Spec's TempEnv, set to the
// Spec's TempDir.
//
// Under backend none env2 is env, so set. Otherwise the process started
// is acprun's helper, and env2 its environment: empty, for the caller to
// add its own variables to (a reap mark), never the command's. The
// command's environment may hold anything (an agent chooses its
// terminals'), LD_PRELOAD and the like included, which the dynamic loader
// acts on in every process started with it: the helper, and bwrap, run
// before the sandbox is in force. So env travels apart, in a file of
// its own (a sealed memfd), which the last helper reads and
// execs the command with once it has restricted itself: the command gets
// env whole, and nothing runs with it outside the sandbox.
//
// The process must be given files, as its descriptors 3, 4, …
// (exec.Cmd.ExtraFiles), to close once it has started: under Landlock the
// write paths, opened now, each checked to be the file Plan found (a write
// path that leads elsewhere now is an error), whose helper allows writes
// beneath what they are, whatever their paths lead to by the time it
// runs; then the command's environment.
//
// Everything the command starts stays inside. Under Landlock alone the
// process started becomes the command (the helper execs it). Under
// bubblewrap it becomes bwrap, with SIGTERM ignored, and the command runs
// inside as bwrap's grandchild, in the same process group: a SIGTERM to
// the group reaches the command, which exits as it would unsandboxed
// (bwrap then exits with its status: 128+n for a command killed by signal
// n); a SIGKILL to the group kills bwrap, and with it the whole sandbox.
func (a Applied) Wrap(argv, env []string) (argv2, env2 []string, files []*os.File, err error) {
	if a.tempDir != "" {
		for _, name := range append([]string{"TMPDIR"}, a.tempEnv...) {
			env = setEnv(env, name, a.tempDir)
		}
	}
	if a.self == "" {
		return argv, env, nil, nil
	}
	r := a.rules
	if r.FS {
		if files, r.Opened, err = openWrite(r.Write); err != nil {
			return nil, nil, nil, err
		}
	}
	f, err := envFile(env)
	if err != nil {
		for _, f := range files {
			f.Close()
		}
		return nil, nil, nil, fmt.Errorf("sandbox: the command's environment: %w", err)
	}
	r.Env = 3 + len(files)
	files = append(files, f)
	argv = append(a.helper(r), argv...)
	if a.bwrap != "" {
		out := append(a.helper(rules{IgnoreTerm: true}), a.bwrap)
		out = append(out, bwrapBase(a.unshareNet, a.setpcap)...)
		argv = append(append(out, mounts(a.Write, a.hides)...), argv...)
	}
	return argv, []string{}, files, nil
}

// mounts are the arguments of bwrap that bind the write paths writable and
// hide (or reveal again) the hidden ones, up to its "--": each path after
// the paths that hold it, so that what is bound inside a hidden directory
// goes over it; the hidden directories made read-only last, once what is
// revealed inside them has its mount point there.
func mounts(write []string, hs []hidden) []string {
	type mount struct {
		path string
		args []string
	}
	var ms []mount
	for _, w := range write {
		ms = append(ms, mount{w, []string{"--bind", w, w}})
	}
	var readOnly []string
	for _, h := range hs {
		switch {
		case h.reveal && slices.Contains(write, h.path):
			// bound writable above
		case h.reveal:
			ms = append(ms, mount{h.path, []string{"--ro-bind", h.path, h.path}})
		case h.dir:
			ms = append(ms, mount{h.path, []string{"--tmpfs", h.path}})
			readOnly = append(readOnly, "--remount-ro", h.path)
		default:
			ms = append(ms, mount{h.path, []string{"--ro-bind", "/dev/null", h.path}})
		}
	}
	slices.SortStableFunc(ms, func(x, y mount) int { return strings.Compare(x.path, y.path) })
	var out []string
	for _, m := range ms {
		out = append(out, m.args...)
	}
	return append(append(out, readOnly...), "--")
}

// helper is the command line of the helper with r, before the command's.
func (a Applied) helper(r rules) []string {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // strings, bools and ints
	}
	return []string{a.self, ExecArg, string(b), "--"}
}

// bwrapBase are the arguments of bwrap before the write and hidden paths:
// a read-only root with a /dev and a /proc of its own, its own PID and
// IPC namespaces (and network namespace), no capabilities (acprun may run
// as root), and no process left behind once bwrap has died.
//
// The IPC namespace keeps the command from the host's System V shared
// memory, semaphores and message queues, and POSIX message queues, which
// are no files: in the host's, it would read, write and remove those of
// the user's other programs, and leave its own behind the sandbox.
//
// bwrap run by root drops the command's capabilities but leaves it the
// bounding set (it empties it only in a user namespace); with setpcap
// (Host.Setpcap: acprun runs as root) it keeps CAP_SETPCAP for the helper
// inside, which empties the bounding set with it, and drops it with every
// other capability, before anything else it does (see dropCapabilities).
//
// The /proc is read-only too: bwrap makes no user namespace, so a command
// run by root, who owns the kernel's settings (/proc/sys), would write
// them, whatever its capabilities, for the whole host (kernel.core_pattern
// runs a program as root outside the sandbox); bwrap itself makes only a
// few entries read-only, and not /proc/sys as root. What the command
// loses is writing its own processes' entries (/proc/self/oom_score_adj),
// which Landlock denies anyway.
func bwrapBase(unshareNet, setpcap bool) []string {
	args := []string{
		"--die-with-parent",
		"--unshare-pid",
		"--unshare-ipc",
		"--cap-drop", "ALL",
	}
	if setpcap {
		args = append(args, "--cap-add", "CAP_SETPCAP")
	}
	args = append(args,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--remount-ro", "/proc",
	)
	if unshareNet {
		args = append(args, "--unshare-net")
	}
	return args
}

// setEnv returns a copy of env with name set to value, last (exec keeps
// the last definition), and its other definitions removed.
func setEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
