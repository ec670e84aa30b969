package acp_test

import (
	"errors"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
)

// TestUsageCounts: the token counts of a prompt's usage are integers of
// at least 0 (format uint64) and its totalTokens, inputTokens and
// outputTokens are required: a negative or missing one is malformed, so the
// usage is left out and listed in Malformed, as one that is not an integer
// is; a negative optional count takes its default.
func TestUsageCounts(t *testing.T) {
	usage := func(total, in, out int64) *acp.Usage {
		return &acp.Usage{TotalTokens: total, InputTokens: in, OutputTokens: out}
	}
	for _, tt := range []struct {
		name, in  string
		want      *acp.Usage
		malformed []string
	}{
		{"zero", `{"totalTokens":0,"inputTokens":0,"outputTokens":0}`, usage(0, 0, 0), nil},
		{"a negative total", `{"totalTokens":-5000,"inputTokens":5000,"outputTokens":0}`, nil,
			[]string{`usage.totalTokens: want a non-negative integer, got number -5000 (usage ignored)`}},
		{"a negative whole float", `{"totalTokens":5,"inputTokens":-1.0,"outputTokens":0}`, nil,
			[]string{`usage.inputTokens: want a non-negative integer, got number -1.0 (usage ignored)`}},
		{"a negative output", `{"totalTokens":5,"inputTokens":5,"outputTokens":-1}`, nil,
			[]string{`usage.outputTokens: want a non-negative integer, got number -1 (usage ignored)`}},
		{"no total", `{"inputTokens":1000,"outputTokens":1000}`, nil,
			[]string{`usage.totalTokens: missing, and it is required (usage ignored)`}},
		{"a null total", `{"totalTokens":null,"inputTokens":1000,"outputTokens":1000}`, nil,
			[]string{`usage.totalTokens: want a non-negative integer, got null (usage ignored)`}},
		{"no input", `{"totalTokens":5,"outputTokens":5}`, nil,
			[]string{`usage.inputTokens: missing, and it is required (usage ignored)`}},
		{"a negative thoughtTokens", `{"totalTokens":5,"inputTokens":3,"outputTokens":2,"thoughtTokens":-1}`, usage(5, 3, 2),
			[]string{`usage.thoughtTokens: want a non-negative integer, got number -1; the field took its default`}},
		{"a negative cachedReadTokens", `{"totalTokens":5,"inputTokens":3,"outputTokens":2,"cachedReadTokens":-7}`, usage(5, 3, 2),
			[]string{`usage.cachedReadTokens: want a non-negative integer, got number -7; the field took its default`}},
		{"a null cachedWriteTokens", `{"totalTokens":5,"inputTokens":3,"outputTokens":2,"cachedWriteTokens":null}`, usage(5, 3, 2), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r acp.PromptResponse
			if err := json.Unmarshal([]byte(`{"stopReason":"end_turn","usage":`+tt.in+`}`), &r); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if diff := cmp.Diff(tt.want, r.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.malformed, r.Malformed); diff != "" {
				t.Errorf("malformed (-want +got):\n%s", diff)
			}
			// Usage decoded on its own is as strict.
			var u acp.Usage
			err := json.Unmarshal([]byte(tt.in), &u)
			if tt.want == nil && err == nil {
				t.Errorf("Unmarshal(%s) into a Usage: no error", tt.in)
			}
		})
	}
}

// TestUsageUpdateCounts: usage_update's used and size are required
// integers of at least 0: a negative, null or missing one is a malformed
// required field, and the update fails to decode, naming it.
func TestUsageUpdateCounts(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"sessionUpdate":"usage_update","used":-1,"size":10}`, `session update "usage_update": used: want a non-negative integer, got number -1`},
		{`{"sessionUpdate":"usage_update","used":1,"size":-10,"cost":{"amount":1,"currency":"USD"}}`, `session update "usage_update": size: want a non-negative integer, got number -10`},
		{`{"sessionUpdate":"usage_update","size":10}`, `session update "usage_update": used: missing, and it is required`},
		{`{"sessionUpdate":"usage_update","used":null,"size":10}`, `session update "usage_update": used: want a non-negative integer, got null`},
		{`{"sessionUpdate":"usage_update","used":"5","size":10}`, `session update "usage_update": used: want a non-negative integer, got string "5"`},
	} {
		var u acp.SessionUpdate
		if err := json.Unmarshal([]byte(tt.in), &u); err == nil || err.Error() != tt.want {
			t.Errorf("Unmarshal(%s) = %v; want %s", tt.in, err, tt.want)
		}
	}
	var u acp.SessionUpdate
	in := `{"sessionUpdate":"usage_update","used":0,"size":0,"cost":{"amount":0,"currency":"USD"}}`
	if err := json.Unmarshal([]byte(in), &u); err != nil || u.UsageUpdate == nil || u.Malformed != nil {
		t.Errorf("Unmarshal(%s) = %+v, %v; want it decoded", in, u, err)
	}
}

// TestClientRequestErrorsInSchemaWords: params of a client request that
// do not decode are said in the schema's words, not Go's.
func TestClientRequestErrorsInSchemaWords(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`"x"`, `want an object, got string "x"`},
		{`["s1"]`, `want an object, got an array`},
		{`{"sessionId":"s1","path":5}`, `path: want a string, got a number`},
		{`{"sessionId":"s1","path":"/a","line":"3"}`, `line: want an integer, got a string`},
	} {
		var r acp.ReadTextFileRequest
		err := json.Unmarshal([]byte(tt.in), &r)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Unmarshal(%s) = %v; want %s", tt.in, err, tt.want)
		}
		var te *json.UnmarshalTypeError
		if err != nil && !errors.As(err, &te) {
			t.Errorf("Unmarshal(%s) = %v; want it to wrap the decoding's error", tt.in, err)
		}
	}
}
