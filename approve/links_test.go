package approve_test

import (
	"testing"

	"github.com/acprun/acprun/approve"
)

// TestLinkFree: a verdict is link-free when the request touches no path,
// when a deny rule matches it on its paths as written (or on no path), or
// when every rule with a path matcher fails on another matcher; then
// following the links gives the same verdict as not following them. Where
// a path rule still applies, links can change the verdict, and each such
// case here is one where they do.
func TestLinkFree(t *testing.T) {
	resolve := fakeResolve(map[string]string{"/p/lnk": "/s/secret", "/w": "/real/w"})
	at := func(cwd string, req approve.Request) approve.Request {
		req.Cwd, req.Resolve = cwd, resolve
		return req
	}
	edit := func(cwd string, locs ...string) approve.Request {
		return at(cwd, approve.Request{Kind: "edit", Locations: locs})
	}
	denyS := approve.Rule{Pos: "d:9", Path: []string{"/s/**"}}
	allowAll := approve.Rule{Pos: "a:9", Path: []string{"**"}}
	for _, tt := range []struct {
		name   string
		policy *approve.Policy
		req    approve.Request
		why    string // "" when links may change the verdict
	}{
		{"no path", &approve.Policy{Deny: []approve.Rule{denyS}, Allow: []approve.Rule{allowAll}}, at("/p", execReq("rm -rf build")),
			"the request touches no path"},
		{"a deny on the command", &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{denyS, {Pos: "d:1", Command: []string{"rm *"}}}, Allow: []approve.Rule{allowAll}},
			at("/p", execReq("rm x > out")),
			`deny rule d:1 matched command "rm x > out" without following a link, and a deny rule beats every allow`},
		{"a deny on a path as written", &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{"**/.env"}}}, Allow: []approve.Rule{allowAll}},
			edit("/p", "lnk/x", ".env"),
			`deny rule d:1 matched path "/p/.env" without following a link, and a deny rule beats every allow`},
		{"no path rule", &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Command: []string{"echo *"}}}}, at("/p", execReq("echo x > lnk/x")),
			"no rule has a path matcher"},
		{"the path rules fail on their kind or command", &approve.Policy{
			Deny:  []approve.Rule{{Pos: "d:1", Kind: []string{"edit"}, Path: []string{"/s/**"}}, {Pos: "d:2", Command: []string{"rm *"}, Path: []string{"/s/**"}}},
			Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"edit"}, Path: []string{"**"}}, {Pos: "a:2", Command: []string{"echo *"}}}},
			at("/p", execReq("echo x > lnk/x")),
			"every rule with a path matcher fails on another of its matchers"},
		{"no policy", nil, edit("/p", "lnk/x"), "there is no rule"},
		// Links matter: each of these decides otherwise with them followed.
		{"a deny path rule a link leads into", &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{denyS}}, at("/p", execReq("echo x > lnk/x")), ""},
		{"an allow path rule a link leads out of", &approve.Policy{Allow: []approve.Rule{allowAll}}, edit("/p", "lnk/x"), ""},
		{"an allow path rule under the resolved cwd", &approve.Policy{Allow: []approve.Rule{allowAll}}, edit("/w", "/real/w/b.go"), ""},
		{"an allow rule's command with a path rule", &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Command: []string{"echo *"}, Path: []string{"/s/**"}}}},
			at("/p", execReq("echo x > lnk/x")), ""},
	} {
		why, ok := tt.policy.LinkFree(tt.req)
		if why != tt.why || ok != (tt.why != "") {
			t.Errorf("%s: LinkFree() = %q, %v; want %q", tt.name, why, ok, tt.why)
		}
		written := tt.req
		written.Resolve = nil
		followed, asWritten := tt.policy.Evaluate(tt.req).Verdict, tt.policy.Evaluate(written).Verdict
		if (followed == asWritten) != ok {
			t.Errorf("%s: with the links followed %s, on the paths as written %s; LinkFree() = %v", tt.name, followed, asWritten, ok)
		}
	}
}
