package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	json "github.com/go-json-experiment/json/v1"
)

// Relay is a port acprun serves the agent on, on the loopback interface
// (127.0.0.1:Port, the model gateway), that a sandbox with the network off
// keeps reachable. Under bubblewrap the sandbox keeps a network namespace
// of its own, where 127.0.0.1 is not the host's: a relay acprun starts
// inside it listens on 127.0.0.1:Port there and relays each connection to
// Socket, a UNIX socket on which acprun serves the same. The agent then
// reaches acprun's port and nothing else: no other host, no abstract UNIX
// socket of the host's. Under Landlock alone, Port is allowed, on every
// address.
type Relay struct {
	Port int `json:"port"`
	// Socket is the UNIX socket's path (absolute), which the sandbox must
	// not hide.
	Socket string `json:"socket"`
}

// relayJob is what the relay gets (acprun ExecArg JOB): the relays, and
// whether it is the process that serves them (with their listeners as
// descriptors 3, 4, …) or the one that starts it.
type relayJob struct {
	Relay []Relay `json:"relay"`
	Serve bool    `json:"serve,omitempty"`
}

// startRelay starts the relays rs in the helper, inside bubblewrap's
// namespaces, before it restricts itself: the relay is acprun's own code,
// outside the command's Landlock domain, which keeps the command from
// tracing it. It returns once they listen, so that the command, started
// next, finds them. The relay is no child of the command's: a first
// process (acprun ExecArg JOB) listens, starts the one that serves the
// listeners in a session of its own, and exits, which leaves that one to
// the PID namespace's init (bubblewrap's). When the command exits, that
// init does, and the kernel kills every process of the namespace: the
// relay ends with the sandbox.
func startRelay(rs []Relay) error {
	b, err := json.Marshal(relayJob{Relay: rs})
	if err != nil {
		return err
	}
	cmd := exec.Command("/proc/self/exe", ExecArg, string(b))
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("relay of the loopback ports: %w", err)
	}
	return nil
}

// relay is the relay's process: with job's Serve, the one that serves the
// listeners it inherits; without, the one that makes them and starts it.
func relay(arg string) error {
	var job relayJob
	if err := json.Unmarshal([]byte(arg), &job); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	if job.Serve {
		return serveRelay(job.Relay)
	}
	files := make([]*os.File, 0, len(job.Relay))
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, r := range job.Relay {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.Port)))
		if err != nil {
			return err
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close() // f listens on
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	job.Serve = true
	b, err := json.Marshal(job)
	if err != nil {
		return err
	}
	cmd := exec.Command("/proc/self/exe", ExecArg, string(b))
	cmd.ExtraFiles, cmd.Stderr = files, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd.Start()
}

// serveRelay relays the connections to each listener it inherits (as
// descriptors 3, 4, …, in the order of rs) to its relay's socket, until
// the sandbox ends: signals to the sandbox's process group do not end it.
// It reaches each socket through its directory's descriptor in
// /proc/self/fd, as the gateway binds it: a socket's path holds at most
// 107 bytes.
func serveRelay(rs []Relay) error {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	errs := make(chan error, len(rs))
	for i, r := range rs {
		ln, err := net.FileListener(os.NewFile(uintptr(3+i), "relay"))
		if err != nil {
			return fmt.Errorf("port %d: %w", r.Port, err)
		}
		dir, err := os.Open(filepath.Dir(r.Socket))
		if err != nil {
			return fmt.Errorf("port %d: %w", r.Port, err)
		}
		defer dir.Close() // open for as long as the relay serves
		socket := fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(r.Socket))
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					errs <- fmt.Errorf("port %d: %w", r.Port, err)
					return
				}
				go relayConn(c.(*net.TCPConn), socket, r.Socket)
			}
		}()
	}
	return <-errs
}

// relayConn copies c to a new connection to socket (named name) and
// back, each way to its end.
func relayConn(c *net.TCPConn, socket, name string) {
	defer c.Close()
	u, err := net.Dial("unix", socket)
	if err != nil {
		fmt.Fprintf(os.Stderr, "acprun: sandbox relay to %s: %v\n", name, err)
		return
	}
	defer u.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(u, c)
		u.(*net.UnixConn).CloseWrite()
		close(done)
	}()
	io.Copy(c, u)
	c.CloseWrite()
	<-done
}
