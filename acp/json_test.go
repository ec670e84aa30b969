package acp_test

import (
	stdjson "encoding/json"
	"fmt"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
)

// TestDecodeParamsAsEncodingJSON: DecodeParams gives what encoding/json's
// Unmarshal gives, values and error texts alike (they reach the agent in
// -32602 answers and the results in violations).
func TestDecodeParamsAsEncodingJSON(t *testing.T) {
	for _, params := range []string{
		``,
		`null`,
		`{"sessionId":"s","path":"/a","line":3}`,
		`{"sessionId":"s","path":3}`,
		`{"sessionId":"s","path":"/a","line":"3"}`,
		`{"sessionId":"s","path":}`,
		`["s"]`,
		`{"sessionId":"s"} {}`,
		"{\"sessionId\":\"bad \xff\"}",
		`{"sessionId":"a","sessionId":"b","PATH":"/x"}`,
	} {
		var got, want acp.ReadTextFileRequest
		gotErr := (&acp.Request{Params: json.RawMessage(params)}).DecodeParams(&got)
		wantErr := stdjson.Unmarshal([]byte(params), &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("DecodeParams(%q) (-encoding/json +got):\n%s", params, diff)
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("DecodeParams(%q) = %v; encoding/json says %v", params, gotErr, wantErr)
		}
	}
}
