package mockagent

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/yamlnode"
)

// This file is how the mock agent sets a session up the hard way: it
// asks for authentication (authRequired), answers a setup request late or
// never (delay) and takes $/cancel_request for it (onCancelRequest), and
// checks the extra roots of a session (additionalDirectories), which the
// showRoots step says.

// delayMethods are the requests the script's delay may hold back.
var delayMethods = []string{acp.MethodInitialize, acp.MethodAuthenticate, acp.MethodSessionNew, acp.MethodSessionLoad,
	acp.MethodSessionResume, acp.MethodSessionSetMode, acp.MethodSessionSetConfigOption, acp.MethodSessionSetModel}

// never is the delay of a request that is never answered by itself.
const never time.Duration = -1

// authRequired parses authRequired: true, false or always.
func (p *parser) authRequired(n *yaml.Node, s *Script) {
	if r := yamlnode.Deref(n); r.Kind == yaml.ScalarNode && r.ShortTag() == "!!str" {
		if _, ok := p.oneOf(n, "authRequired", "always"); ok {
			s.authRequired, s.authAlways = true, true
		}
		return
	}
	s.authRequired, _ = p.bool(n, "authRequired")
}

// delays parses delay: {METHOD: DURATION or never}.
func (p *parser) delays(n *yaml.Node) map[string]time.Duration {
	kvs, ok := p.entries(n, "delay")
	if !ok {
		return nil
	}
	out := map[string]time.Duration{}
	for _, kv := range kvs {
		if !slices.Contains(delayMethods, kv.Key) {
			p.Errorf(kv.K, "delay: unknown method %q (want one of: %s)", kv.Key, strings.Join(delayMethods, ", "))
			continue
		}
		if v := yamlnode.Deref(kv.V); v.ShortTag() == "!!str" && v.Value == "never" {
			out[kv.Key] = never
			continue
		}
		if d, ok := p.duration(kv.V, "delay."+kv.Key, "500ms or 1s, or never"); ok {
			out[kv.Key] = d
		}
	}
	return out
}

// needsAuth reports whether session/new, load and resume are refused
// with auth_required.
func (a *agent) needsAuth() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.s.authAlways || a.s.authRequired && !a.authenticated
}

// delay holds back a request the script delays, for d (never: until Run
// ends). The messages behind it are handled meanwhile, so that a
// $/cancel_request for it can end the wait (see onCancelRequest): the
// request is then answered -32800.
func (a *agent) delay(ctx context.Context, req *acp.Request, d time.Duration) error {
	cancelled := make(chan struct{})
	key := req.ID.String()
	a.mu.Lock()
	a.delayed[key] = cancelled
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.delayed, key)
		a.mu.Unlock()
	}()
	acp.Async(ctx)
	var done <-chan time.Time
	if d != never {
		t := time.NewTimer(d)
		defer t.Stop()
		done = t.C
	}
	select {
	case <-done:
		return nil
	case <-cancelled:
		return acp.NewError(acp.CodeRequestCancelled, "Request cancelled")
	case <-a.ctx.Done():
		return a.ctx.Err()
	}
}

// cancelRequest handles $/cancel_request: a request still delayed is
// answered -32800 at once, unless the script's onCancelRequest is ignore.
// Other requests are answered as they would be.
func (a *agent) cancelRequest(req *acp.Request) {
	var p acp.CancelRequestNotification
	if req.DecodeParams(&p) != nil || a.s.ignoreCancelRequest {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch, ok := a.delayed[p.RequestID.String()]; ok {
		close(ch)
		delete(a.delayed, p.RequestID.String())
	}
}

// checkDirs checks the additionalDirectories of session/new, load or
// resume: only when the script advertises them, each absolute.
func (a *agent) checkDirs(req *acp.Request, dirs []string) error {
	if len(dirs) > 0 && a.s.capabilities.SessionCapabilities.AdditionalDirectories == nil {
		return acp.NewError(acp.CodeInvalidParams, "%s: additionalDirectories given, but not advertised (sessionCapabilities.additionalDirectories)", req.Method)
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return acp.NewError(acp.CodeInvalidParams, "%s: additionalDirectories must be absolute paths, got %q", req.Method, d)
		}
	}
	return nil
}

// showRootsStep says the session's roots: its cwd, then its
// additionalDirectories ("roots: /work, /data").
type showRootsStep struct{ onlyTrue }

func (st *showRootsStep) play(pl *player) *ending {
	return check(pl.say("roots: %s", strings.Join(append([]string{pl.sess.cwd}, pl.sess.dirs...), ", ")))
}
