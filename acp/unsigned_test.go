package acp_test

import (
	"errors"
	"fmt"
	"math"
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

// TestNegativeUnsignedMembers: every member the schema bounds at minimum
// 0 is checked as token counts are: a negative tool call location line
// takes its default (it is optional), listed in Malformed with its path,
// in a tool_call, a tool_call_update and a permission request's toolCall;
// a negative line, limit or outputByteLimit fails the request's params,
// naming the member. 0 is well-formed.
func TestNegativeUnsignedMembers(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []acp.ToolCallLocation
		problem  string
	}{
		{"tool_call", `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Read","locations":[{"path":"/x","line":-5},{"path":"/y","line":0}]}`,
			[]acp.ToolCallLocation{{Path: "/x"}, {Path: "/y", Line: ptr(0)}},
			`locations[0].line: want a non-negative integer, got number -5; the field took its default`},
		{"tool_call_update whole float", `{"sessionUpdate":"tool_call_update","toolCallId":"t","locations":[{"path":"/y","line":3},{"path":"/x","line":-1.0}]}`,
			[]acp.ToolCallLocation{{Path: "/y", Line: ptr(3)}, {Path: "/x"}},
			`locations[1].line: want a non-negative integer, got number -1.0; the field took its default`},
	} {
		var u acp.SessionUpdate
		if err := json.Unmarshal([]byte(tt.in), &u); err != nil {
			t.Fatalf("%s: Unmarshal: %v", tt.name, err)
		}
		var got []acp.ToolCallLocation
		if u.ToolCall != nil {
			got = u.ToolCall.Locations
		} else {
			got = u.ToolCallUpdate.Locations
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: locations (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff([]string{tt.problem}, u.Malformed); diff != "" {
			t.Errorf("%s: malformed (-want +got):\n%s", tt.name, diff)
		}
	}

	var p acp.RequestPermissionRequest
	in := `{"sessionId":"s1","toolCall":{"toolCallId":"t","locations":[{"path":"/x","line":-7}]},"options":[]}`
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatalf("Unmarshal(%s): %v", in, err)
	}
	want := []string{`toolCall.locations[0].line: want a non-negative integer, got number -7; the field took its default`}
	if diff := cmp.Diff(want, p.Malformed); diff != "" || p.ToolCall.Locations[0].Line != nil {
		t.Errorf("permission request: line %v; malformed (-want +got):\n%s", p.ToolCall.Locations[0].Line, diff)
	}

	var l acp.ToolCallLocation
	if err := json.Unmarshal([]byte(`{"path":"/x","line":-1}`), &l); err == nil || err.Error() != "line: want a non-negative integer, got number -1" {
		t.Errorf("a ToolCallLocation on its own with line -1: err %v; want line: want a non-negative integer, got number -1", err)
	}

	for _, tt := range []struct {
		in   string
		v    any
		want string
	}{
		{`{"sessionId":"s1","path":"/a","line":-1}`, new(acp.ReadTextFileRequest), `line: want a non-negative integer, got number -1`},
		{`{"sessionId":"s1","path":"/a","line":1,"limit":-2}`, new(acp.ReadTextFileRequest), `limit: want a non-negative integer, got number -2`},
		{`{"sessionId":"s1","command":"ls","outputByteLimit":-1}`, new(acp.CreateTerminalRequest), `outputByteLimit: want a non-negative integer, got number -1`},
		{`{"sessionId":"s1","path":"/a","line":0,"limit":0}`, new(acp.ReadTextFileRequest), ``},
		{`{"sessionId":"s1","command":"ls","outputByteLimit":0}`, new(acp.CreateTerminalRequest), ``},
	} {
		err := json.Unmarshal([]byte(tt.in), tt.v)
		if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && got != tt.want {
			t.Errorf("Unmarshal(%s) = %v; want %q", tt.in, err, tt.want)
		}
	}
}

// TestClientRequestWholeNumbers: a request's line, limit and
// outputByteLimit take a whole number written as a float (5.0, 1e0), as
// usage counts and tool call locations do, and an outputByteLimit past the
// largest int64, up to the largest uint64 (the schema's uint64), as the
// largest int64; a fraction, a negative number and a number past uint64
// are still refused, said as the agent wrote them.
func TestClientRequestWholeNumbers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want acp.ReadTextFileRequest
	}{
		{`{"sessionId":"s1","path":"/a","line":1.0,"limit":2e0}`, acp.ReadTextFileRequest{SessionID: "s1", Path: "/a", Line: ptr(1), Limit: ptr(2)}},
		{`{"sessionId":"s1", "limit" : 32768.0 ,"path":"/a","line":3}`, acp.ReadTextFileRequest{SessionID: "s1", Path: "/a", Line: ptr(3), Limit: ptr(32768)}},
		{`{"sessionId":"s1","path":"/a","Line":0.0e1}`, acp.ReadTextFileRequest{SessionID: "s1", Path: "/a", Line: ptr(0)}},
	} {
		var r acp.ReadTextFileRequest
		if err := json.Unmarshal([]byte(tt.in), &r); err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, r); diff != "" {
			t.Errorf("Unmarshal(%s) (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, tt := range []struct {
		limit string
		want  int64
	}{
		{"5.0", 5},
		{"1e0", 1},
		{"8388608.0", 8 << 20},
		{"9223372036854775807", math.MaxInt64},
		{"9223372036854775808", math.MaxInt64},
		{"18446744073709551615", math.MaxInt64},
	} {
		in := `{"sessionId":"s1","command":"ls","args":["-l"],"outputByteLimit":` + tt.limit + `,"cwd":"/w"}`
		var r acp.CreateTerminalRequest
		if err := json.Unmarshal([]byte(in), &r); err != nil {
			t.Errorf("Unmarshal(%s): %v", in, err)
			continue
		}
		want := acp.CreateTerminalRequest{SessionID: "s1", Command: "ls", Args: []string{"-l"}, Cwd: "/w", OutputByteLimit: ptr(tt.want)}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Errorf("Unmarshal(%s) (-want +got):\n%s", in, diff)
		}
	}
	for _, tt := range []struct {
		in   string
		v    any
		want string
	}{
		{`{"sessionId":"s1","path":"/a","line":1.5}`, new(acp.ReadTextFileRequest), `line: want an integer, got number 1.5`},
		{`{"sessionId":"s1","path":"/a","line":-2.0}`, new(acp.ReadTextFileRequest), `line: want a non-negative integer, got number -2.0`},
		{`{"sessionId":"s1","path":5,"line":1.0}`, new(acp.ReadTextFileRequest), `path: want a string, got a number`},
		{`{"sessionId":"s1","command":"ls","outputByteLimit":18446744073709551616}`, new(acp.CreateTerminalRequest), `outputByteLimit: want an integer, got number 18446744073709551616`},
		{`{"sessionId":"s1","command":"ls","outputByteLimit":-9223372036854775809}`, new(acp.CreateTerminalRequest), `outputByteLimit: want a non-negative integer, got number -9223372036854775809`},
		{`{"sessionId":"s1","command":"ls","outputByteLimit":1e30}`, new(acp.CreateTerminalRequest), `outputByteLimit: want an integer, got number 1e30`},
	} {
		err := json.Unmarshal([]byte(tt.in), tt.v)
		if got := fmt.Sprint(err); got != tt.want {
			t.Errorf("Unmarshal(%s) = %v; want %q", tt.in, err, tt.want)
		}
	}
}
