package gateway

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
)

// TestUnmetered: a request answered in full without usage is Unmetered,
// in meter and in the replay of its recording; one whose answer reports
// usage, or that was not answered in full (a 502), is not.
func TestUnmetered(t *testing.T) {
	const (
		bare    = `{"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}]}`
		metered = `{"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":3,"output_tokens":1}}`
	)
	s := startServer(t)
	for _, tt := range []struct {
		name, body string
		want       int
	}{{"no usage", bare, 1}, {"usage", metered, 0}} {
		t.Run(tt.name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, tt.body)
			}))
			defer up.Close()
			cas := filepath.Join(t.TempDir(), "c.json")
			for _, mode := range []Mode{Record, Replay} {
				a := open(t, Config{Mode: mode, Cassette: cas})
				route := s.NewRoute(up.URL)
				route.Bind(a)
				if got := send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil); got.status != 200 || got.body != tt.body {
					t.Fatalf("%s: answered %d %q", mode, got.status, got.body)
				}
				if sp := a.Spent(); sp.Unmetered != tt.want || sp.Requests != 1 {
					t.Errorf("%s: Spent() = %+v, want Unmetered %d of 1 request", mode, sp, tt.want)
				}
				if err := a.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
