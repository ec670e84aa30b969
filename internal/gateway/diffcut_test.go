package gateway

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
)

// TestDiffRequestCutRedacted: a divergence's excerpts of a request, cut
// to 80 characters at either end, show no part of a secret a cut goes
// through, of the secrets the run redacts its outputs of (Config.Messages),
// which the cassette's redactor may not know: the cuts are redacted
// knowing the whole value.
func TestDiffRequestCutRedacted(t *testing.T) {
	const secret = "sk-proj-Q3vZp9LmT2xWc8RkY6nBh4JdF1sGa7UeXo5MiPq0Vt3LzKw9NbCyHs2Dg6Rf8Tj1Yu4Ie7Oa0Pl5Mk9"
	red := redact.New(secret)
	shows := func(s string) bool {
		for i := 0; i+8 <= len(secret); i++ {
			if strings.Contains(s, secret[i:i+8]) {
				return true
			}
		}
		return false
	}
	req := func(body string) *request {
		return &request{Method: "POST", Path: "/x", Body: json.RawMessage(body)}
	}
	filler := strings.Repeat("y", 70)
	for _, c := range []struct{ name, rec, got string }{
		{"the end cut", `{"t":"a"}`, `{"t":"` + filler + ` ` + secret + `"}`},
		{"the start cut", `{"t":"` + filler + filler + secret + `A"}`, `{"t":"` + filler + filler + secret + `B"}`},
		{"a value shown whole, cut", `{"t":1}`, `{"t":{"k":"` + filler[:60] + secret + `"}}`},
	} {
		msg := diffRequest(req(c.rec), req(c.got), red)
		if out := red.String(msg); shows(out) || !strings.Contains(out, redact.Marker) {
			t.Errorf("%s: %s; want no part of the secret", c.name, out)
		}
	}
}
