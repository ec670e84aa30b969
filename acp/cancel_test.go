package acp_test

import (
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/acpschema"
)

// TestCancelRequestSchema: $/cancel_request's params, with a number or a
// string id, validate against the schema's CancelRequestNotification, and
// the id goes out as it came in.
func TestCancelRequestSchema(t *testing.T) {
	v := acpschema.Load(t)
	for _, in := range []string{`{"requestId":3}`, `{"requestId":"c-1"}`} {
		var n acp.CancelRequestNotification
		if err := json.Unmarshal([]byte(in), &n); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("marshalled %s, want %s", out, in)
		}
		if err := v.Validate("CancelRequestNotification", out); err != nil {
			t.Errorf("%s: %v", out, err)
		}
	}
}
