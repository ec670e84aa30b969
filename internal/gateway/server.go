package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Server is the run's gateway: one loopback listener shared by every
// route, and a UNIX socket that serves the same, for the sandboxes that
// keep a network namespace of their own (see Socket). Its methods may be
// called from many goroutines.
type Server struct {
	ln   net.Listener // nil for a server that only handles (tests)
	dir  string       // the UNIX socket's private directory
	http *http.Server

	mu     sync.Mutex
	routes map[string]*Route // by ID
}

// Start starts a Server listening on 127.0.0.1 on a port of its own, and,
// on Linux, on a UNIX socket in a private directory of the system's
// temporary directory (see Socket).
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("gateway: listen on loopback: %w", err)
	}
	s := newServer()
	s.ln = ln
	s.http = &http.Server{
		Handler:           http.HandlerFunc(s.serveHTTP),
		ReadHeaderTimeout: time.Minute,
		// An agent that drops a connection is no news for acprun's user.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	if runtime.GOOS == "linux" { // bubblewrap's, and /proc's
		var uln net.Listener
		if s.dir, uln, err = listenUnix(); err != nil {
			ln.Close()
			return nil, fmt.Errorf("gateway: listen on a UNIX socket: %w", err)
		}
		go s.http.Serve(uln)
	}
	go s.http.Serve(ln)
	return s, nil
}

// listenUnix listens on the UNIX socket gateway.sock of a new private
// directory of the system's temporary directory, which it returns. It
// binds through the directory's descriptor in /proc/self/fd: a socket's
// path holds at most 107 bytes, and the temporary directory's alone may
// be longer.
func listenUnix() (dir string, ln net.Listener, err error) {
	dir, err = os.MkdirTemp("", "acprun-gateway-")
	if err != nil {
		return "", nil, err
	}
	d, err := os.Open(dir)
	if err == nil {
		ln, err = net.Listen("unix", fmt.Sprintf("/proc/self/fd/%d/gateway.sock", d.Fd()))
		d.Close()
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // Close removes dir
	return dir, ln, nil
}

// newServer returns a Server with no listener: its serveHTTP works, its
// Port is 0 and its routes' URLs have no port.
func newServer() *Server {
	return &Server{routes: make(map[string]*Route)}
}

// Port is the TCP port the server listens on (for the sandbox).
func (s *Server) Port() int {
	if s.ln == nil {
		return 0
	}
	return s.ln.Addr().(*net.TCPAddr).Port
}

// Socket is the path of the UNIX socket the server also listens on: a
// sandbox with the network off relays the port to it (see
// sandbox.Relay); "" for a server that only handles, and off Linux.
func (s *Server) Socket() string {
	if s.dir == "" {
		return ""
	}
	return filepath.Join(s.dir, "gateway.sock")
}

// Close stops the server: the listeners close (the UNIX socket and its
// directory are removed) and requests in flight end.
func (s *Server) Close() error {
	if s.http == nil {
		return nil
	}
	err := s.http.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	if rmErr := os.RemoveAll(s.dir); err == nil {
		err = rmErr
	}
	if err != nil {
		return fmt.Errorf("gateway: close: %w", err)
	}
	return nil
}

// Route is one way into the server, for one agent process and one
// upstream: requests under its URL are forwarded to Upstream + the rest of
// their path, and handled by the Attempt it is bound to.
type Route struct {
	s        *Server
	id       string
	upstream string

	mu      sync.Mutex
	attempt *Attempt
}

// NewRoute makes a route to upstream (a base URL such as
// "https://api.anthropic.com" or "https://api.openai.com/v1"; unused in
// replay, may be ""). The route is unbound: its requests are answered 503
// until Bind.
//
// An upstream of "" in record or meter means the default upstream of the
// API each request is for (see provider.DefaultUpstream).
func (s *Server) NewRoute(upstream string) *Route {
	r := &Route{s: s, id: newID(), upstream: strings.TrimRight(upstream, "/")}
	s.mu.Lock()
	s.routes[r.id] = r
	s.mu.Unlock()
	return r
}

// newID returns a route ID no one can guess: 128 random bits in hex.
func newID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// URL is the base URL the agent is given in place of its upstream:
// "http://127.0.0.1:PORT/r/ID".
func (r *Route) URL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/r/%s", r.s.Port(), r.id)
}

// Bind makes a the attempt the route's requests go to; nil unbinds it
// (between the scenarios of a reused agent process). Requests already
// going to the previous attempt stay with it (its Close ends them).
func (r *Route) Bind(a *Attempt) {
	r.mu.Lock()
	r.attempt = a
	r.mu.Unlock()
}

// bound is the attempt the route is bound to, nil for none.
func (r *Route) bound() *Attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempt
}

// Close removes the route from the server: its URL answers 404 from then
// on. Requests in flight go on (their attempt's Close ends them).
func (r *Route) Close() {
	r.s.mu.Lock()
	delete(r.s.routes, r.id)
	r.s.mu.Unlock()
}

// serveHTTP serves every request of the server: /r/ID/REST goes to route
// ID's attempt as REST.
func (s *Server) serveHTTP(w http.ResponseWriter, req *http.Request) {
	path := req.URL.EscapedPath()
	tail, ok := strings.CutPrefix(path, "/r/")
	id, rest, _ := strings.Cut(tail, "/")
	s.mu.Lock()
	route := s.routes[id]
	s.mu.Unlock()
	if !ok || route == nil {
		plain(w, http.StatusNotFound, "acprun gateway: no such route")
		return
	}
	a := route.bound()
	if a == nil {
		plain(w, http.StatusServiceUnavailable, "acprun gateway: no scenario is running on this route (the agent process is between scenarios)")
		return
	}
	a.serve(w, req, route.upstream, "/"+rest)
}

// plain answers with a text message.
func plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}
