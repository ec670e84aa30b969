package acp

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// permissionSeeds are permission request params: the first ones of shapes
// fastPermission takes, then many it must leave to encoding/json.
var permissionSeeds = []string{
	`{"sessionId":"flood-1","toolCall":{"toolCallId":"t1","title":"read file","kind":"read","status":"pending"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}`,
	` { "options" : [ ] , "toolCall" : { "rawInput" : { "command" : "ls -l" , "n" : [1, 2.5e3, true, null] } , "toolCallId" : "t" } , "sessionId" : "s" } `,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","title":"Write","kind":"edit","locations":[{"path":"/p/a","line":3},{"path":"/p/b"}],"rawOutput":"x","_meta":{"a":1},"name":"w"},"options":[{"optionId":"o","name":"O","kind":"allow_always","_meta":null}],"_meta":{"x":[1]}}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","title":"caf\u00e9 \"q\"","rawInput":null},"options":[],"extra":{"deep":[[{}]]},"alsoExtra":1}`,
	"{\"sessionId\":\"s1\",\"toolCall\":{\"toolCallId\":\"t\",\"title\":\"bad \xff utf8\"},\"options\":[]}",
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","locations":[]},"options":[{"optionId":"x"}]}`,
	`{}`,
	// Left to encoding/json:
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","content":[{"type":"diff","path":"/a","newText":"x"}]},"options":[]}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","title":"Write","kind":"edit","locations":[{"path":"/p/a","line":"3"}]},"options":[]}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","locations":[{"path":"/p/a","line":-3}]},"options":[]}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","locations":[{"path":"/p/a","line":1.5}]},"options":[]}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","locations":[{"path":"/p/a","line":12345678901}]},"options":[]}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","kind":7,"status":"done?"},"options":[]}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":1},"options":[]}`,
	`{"sessionId":2,"toolCall":{"toolCallId":"t"},"options":[]}`,
	`{"sessionId":null,"toolCall":null,"options":null}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","title":null},"options":[]}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t"},"options":"allow"}`,
	`{"sessionId":"s1","sessionId":"s2","toolCall":{"toolCallId":"t"}}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","title":"a","title":"b"}}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t"},"options":[{"optionId":"a","optionId":"b"}]}`,
	`{"SessionID":"s1","toolCall":{"TOOLCALLID":"t"},"options":[{"OptionId":"a"}]}`,
	`{"sessionid":"s1","toolCall":{"toolcallid":"t"}}`,
	`{"ſessionId":"s1"}`,
	`{"session\u0049d":"s1"}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t"}} x`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t"},}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t"},"options":[{"optionId":"a"},]}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t\x01"}}`,
	`{"sessionId":"s1","toolCall":{"toolCallId":"t","rawInput":{"a":}}}`,
	`[]`, `null`, `{"sessionId":"s1"`, ``, `"s"`,
}

// fastPermissionTakes is how many of permissionSeeds fastPermission takes.
const fastPermissionTakes = 7

func decodePermissionBoth(t *testing.T, data []byte) {
	t.Helper()
	var want RequestPermissionRequest
	werr := json.Unmarshal(data, &want)
	got, err := DecodeRequestPermission(data)
	if fmt.Sprint(err) != fmt.Sprint(werr) {
		t.Fatalf("%q: error %v; json.Unmarshal gives %v", data, err, werr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: decoded differently from json.Unmarshal (-want +got):\n%s", data, diff)
	}
	var fast RequestPermissionRequest
	if fastPermission(data, &fast) {
		if werr != nil {
			t.Fatalf("%q: taken by the fast path; json.Unmarshal fails: %v", data, werr)
		}
		if diff := cmp.Diff(want, fast); diff != "" {
			t.Fatalf("%q: the fast path decoded it differently (-want +got):\n%s", data, diff)
		}
	}
}

func TestDecodeRequestPermissionIsUnmarshal(t *testing.T) {
	for _, s := range permissionSeeds {
		decodePermissionBoth(t, []byte(s))
	}
}

func TestFastPermissionTakesUsualShapes(t *testing.T) {
	for i, s := range permissionSeeds {
		var r RequestPermissionRequest
		if got, want := fastPermission([]byte(s), &r), i < fastPermissionTakes; got != want {
			t.Errorf("%q: taken by the fast path = %v; want %v", s, got, want)
		}
	}
}

func FuzzDecodeRequestPermission(f *testing.F) {
	for _, s := range permissionSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { decodePermissionBoth(t, data) })
}

// TestPermissionAnswerAppendsAsEncoded: the answers appended without
// reflection are the bytes encoding/json gives.
func TestPermissionAnswerAppendsAsEncoded(t *testing.T) {
	for _, r := range []RequestPermissionResponse{
		Selected("allow"), Selected(""), Selected(`a"b\c<d>&e` + "\u2028\x01é"), Cancelled(),
		{Outcome: RequestPermissionOutcome{Outcome: "other", OptionID: "x"}},
	} {
		want, err := encodeValue(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalValue(r)
		if err != nil || string(got) != string(want) {
			t.Errorf("marshalValue(%+v) = %s, %v; encoding/json gives %s", r, got, err, want)
		}
		if _, ok := r.appendJSON(nil); !ok {
			t.Errorf("%+v: not appended", r)
		}
	}
	withMeta := Selected("allow")
	withMeta.Meta = json.RawMessage(`{"a":1}`)
	if _, ok := withMeta.appendJSON(nil); ok {
		t.Error("an answer with _meta was appended; want it left to encoding/json")
	}
}
