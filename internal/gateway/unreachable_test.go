package gateway

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

// TestUnreachableUpstream: a request whose provider cannot be reached is
// answered 502, saying so; in record the exchange is kept as the agent
// got it, for a replay to answer the same, and Unreachable says what it
// was (the runner keeps such a recording beside the cassette). In meter
// Unreachable says it too; an attempt that always reached its provider
// says "".
func TestUnreachableUpstream(t *testing.T) {
	s := startServer(t)
	gone := testkit.RefusedURL(t)
	for _, mode := range []Mode{Record, Meter} {
		t.Run(string(mode), func(t *testing.T) {
			cas := filepath.Join(t.TempDir(), "c.json")
			a := open(t, Config{Mode: mode, Cassette: cas})
			if got := a.Unreachable(); got != "" {
				t.Fatalf("Unreachable() before any request = %q", got)
			}
			route := s.NewRoute(gone)
			route.Bind(a)
			got := send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil)
			if got.status != http.StatusBadGateway || !strings.Contains(got.body, "acprun gateway: upstream "+gone) {
				t.Fatalf("answered %d %q, want 502 naming the upstream", got.status, got.body)
			}
			if u := a.Unreachable(); u != strings.TrimSuffix(got.body, "\n") {
				t.Errorf("Unreachable() = %q, want what the agent got, %q", u, got.body)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if mode != Record {
				return
			}
			_, c := readCassetteFile(t, cas)
			if len(c.Exchanges) != 1 {
				t.Fatalf("cassette: %d exchanges, want the request", len(c.Exchanges))
			}
			r := c.Exchanges[0].Response
			var kept strings.Builder
			for _, e := range r.Events {
				kept.Write(e.bytes())
			}
			if r.Status != http.StatusBadGateway || kept.String() != got.body || r.Truncated || r.Abandoned {
				t.Errorf("kept %d %q (truncated %v, abandoned %v), want the 502 the agent got, %q", r.Status, kept.String(), r.Truncated, r.Abandoned, got.body)
			}

			// Replayed, it answers the same.
			replay := open(t, Config{Mode: Replay, Cassette: cas})
			route = s.NewRoute(gone)
			route.Bind(replay)
			if again := send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil); again.status != got.status || again.body != got.body {
				t.Errorf("replay answered %d %q, want %d %q", again.status, again.body, got.status, got.body)
			}
		})
	}
}
