package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

// TestRoutes: a route's URL is on the server's port with an ID no one
// guesses; an unknown or closed route is 404, an unbound one 503, and a
// route unbound between scenarios binds again.
func TestRoutes(t *testing.T) {
	up := newUpstream(t)
	up.answers["/v1/x"] = answerSpec{200, "application/json", `{"ok":true}`}
	s := startServer(t)
	r1, r2 := s.NewRoute(up.URL), s.NewRoute(up.URL)
	re := regexp.MustCompile(fmt.Sprintf(`^http://127\.0\.0\.1:%d/r/[0-9a-f]{32}$`, s.Port()))
	if s.Port() == 0 || !re.MatchString(r1.URL()) || r1.URL() == r2.URL() {
		t.Fatalf("port %d, URLs %s and %s", s.Port(), r1.URL(), r2.URL())
	}
	base := strings.TrimSuffix(r1.URL(), "/r/"+after(r1.URL(), "/r/"))
	for _, path := range []string{"/", "/v1/x", "/r/", "/r/0123/v1/x", "/r/" + after(r1.URL(), "/r/") + "x/v1/x"} {
		if got := send(t, "GET", base, path, "", nil); got.status != 404 {
			t.Errorf("%s: %d %s, want 404", path, got.status, got.body)
		}
	}
	got := send(t, "POST", r1.URL(), "/v1/x", `{}`, nil)
	if got.status != 503 || !strings.Contains(got.body, "no scenario is running") {
		t.Errorf("unbound: %d %q, want 503 saying so", got.status, got.body)
	}
	a := open(t, Config{Mode: Meter})
	r1.Bind(a)
	if got := send(t, "POST", r1.URL(), "/v1/x", `{}`, nil); got.status != 200 {
		t.Errorf("bound: %d %s", got.status, got.body)
	}
	r1.Bind(nil)
	if got := send(t, "POST", r1.URL(), "/v1/x", `{}`, nil); got.status != 503 {
		t.Errorf("unbound again: %d %s", got.status, got.body)
	}
	r1.Bind(a)
	r1.Close()
	if got := send(t, "POST", r1.URL(), "/v1/x", `{}`, nil); got.status != 404 {
		t.Errorf("closed: %d %s, want 404", got.status, got.body)
	}
	r2.Bind(a)
	if got := send(t, "POST", r2.URL(), "/v1/x", `{}`, nil); got.status != 200 {
		t.Errorf("the other route: %d %s", got.status, got.body)
	}
}

// after is what follows sep in s, "" when it has none.
func after(s, sep string) string {
	_, a, _ := strings.Cut(s, sep)
	return a
}

// TestUpstreamUnreachable: a 502 naming the upstream, never the key in
// the query nor the password in the upstream (a proxy's: masked as
// redact.URL masks it); kept as the agent got it, neither of them either
// (see TestUnreachableUpstream).
func TestUpstreamUnreachable(t *testing.T) {
	dead := testkit.RefusedURL(t)
	s := startServer(t)
	a := open(t, Config{Mode: Record, Cassette: t.TempDir() + "/c.json"})
	route := s.NewRoute(dead)
	route.Bind(a)
	got := send(t, "POST", route.URL(), "/v1beta/models/g:generateContent?key=AIzaSecretKey0123456789", `{}`, nil)
	if got.status != 502 || !strings.Contains(got.body, dead) || strings.Contains(got.body, "AIzaSecretKey") {
		t.Errorf("got %d %q, want 502 naming %s and not the key", got.status, got.body, dead)
	}
	proxy := s.NewRoute(strings.Replace(dead, "http://", "http://proxyuser:Pr0xyPassw0rdXYZ@", 1))
	proxy.Bind(a)
	got = send(t, "POST", proxy.URL(), "/v1/messages", `{}`, nil)
	if shown := strings.Replace(dead, "http://", "http://proxyuser:xxxxx@", 1); got.status != 502 || !strings.Contains(got.body, shown) || strings.Contains(got.body, "Pr0xyPassw0rdXYZ") {
		t.Errorf("through a proxy: got %d %q, want 502 naming %s, not the password", got.status, got.body, shown)
	}
	a.Close()
	raw, c := readCassetteFile(t, a.cfg.Cassette)
	if len(c.Exchanges) != 2 || c.Exchanges[0].Response.Status != 502 || c.Exchanges[1].Response.Status != 502 ||
		strings.Contains(string(raw), "AIzaSecretKey") || strings.Contains(string(raw), "Pr0xyPassw0rdXYZ") {
		t.Errorf("kept %+v; want both 502s, without the key or the password", c.Exchanges)
	}
}

// TestSocket: the server serves its routes on its UNIX socket as on its
// port (a sandbox with the network off relays the port to it), in a
// temporary directory whose path is longer than a socket's may be; Close
// removes the socket and its directory.
func TestSocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the gateway has a UNIX socket on Linux only")
	}
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	if err := os.Mkdir(long, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	up := newUpstream(t)
	up.answers["/v1/x"] = answerSpec{200, "application/json", `{"ok":true}`}
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	r := s.NewRoute(up.URL)
	r.Bind(open(t, Config{Mode: Meter}))
	if !strings.HasPrefix(s.Socket(), long+"/") {
		t.Fatalf("socket %s, want it in %s", s.Socket(), long)
	}
	dir, err := os.Open(filepath.Dir(s.Socket()))
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(s.Socket())))
	}}}
	resp, err := client.Post(r.URL()+"/v1/x", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"ok":true}` {
		t.Errorf("through the socket: %d %s", resp.StatusCode, body)
	}
	client.CloseIdleConnections()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(s.Socket())); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Close: %s is there (%v)", filepath.Dir(s.Socket()), err)
	}
}
