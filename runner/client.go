package runner

import (
	"context"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
)

// ClientConfig says what acprun serves the agent as a client.
type ClientConfig struct {
	FS, Terminal, ReadOnly bool
	Roots                  []string // absolute
	Cwd                    string   // session cwd, absolute
	Policy                 *approve.Policy
	Env                    []string // base environment of terminals
}

// clientServer serves the agent's fs/* and terminal/* requests.
// PLACEHOLDER: replaced by the full implementation.
type clientServer struct{ cfg ClientConfig }

func newClientServer(cfg ClientConfig) *clientServer { return &clientServer{cfg: cfg} }

// capabilities returns what initialize advertises.
func (c *clientServer) capabilities() acp.ClientCapabilities { return acp.ClientCapabilities{} }

// serves reports whether method is one this server answers.
func (c *clientServer) serves(method string) bool { return false }

// handle serves one request and returns the result, its record, and an error
// (an *acp.Error for refusals).
func (c *clientServer) handle(ctx context.Context, req *acp.Request) (any, ClientRequest, error) {
	return nil, ClientRequest{Method: req.Method}, acp.MethodNotFound(req.Method)
}

// killAll kills every running terminal (the turn was cancelled).
func (c *clientServer) killAll() {}

// close releases every terminal and waits for them (the scenario ended).
func (c *clientServer) close() {}
