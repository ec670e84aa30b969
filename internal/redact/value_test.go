package redact_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/redact"
)

// The types below mirror acprun's results (report.Report and friends),
// with a few more kinds of field.
type (
	stopReason string

	report struct {
		Scenarios    []result           `json:"scenarios"`
		ByStopReason map[stopReason]int `json:"byStopReason,omitempty"`
		Override     *string            `json:"override,omitempty"`
	}
	result struct {
		Name         string            `json:"name"`
		Tags         []string          `json:"tags,omitempty"`
		Agent        agentInfo         `json:"agent"`
		Failures     []string          `json:"failures,omitempty"`
		Warnings     []string          `json:"warnings,omitempty"`
		Error        string            `json:"error,omitempty"`
		ExitCode     *int              `json:"exitCode,omitempty"`
		StderrTail   string            `json:"stderrTail,omitempty"`
		SetupUpdates map[string]int    `json:"setupUpdates,omitempty"`
		Labels       map[string]string `json:"labels,omitempty"`
		Turns        []turn            `json:"turns"`
		Extra        any               `json:"extra,omitempty"`
		Matrix       [2]string         `json:"matrix"`
		Nested       [][]string        `json:"nested,omitempty"`
		Files        map[string][]byte `json:"files,omitempty"`
		private      string
	}
	agentInfo struct {
		Name    string   `json:"name,omitempty"`
		Command []string `json:"command"`
	}
	turn struct {
		Prompt      string               `json:"prompt"`
		StopReason  stopReason           `json:"stopReason"`
		Text        string               `json:"text"`
		ToolCalls   []toolCall           `json:"toolCalls,omitempty"`
		Permissions []*permission        `json:"permissions,omitempty"`
		Usage       *usage               `json:"usage,omitempty"`
		Updates     map[string]int       `json:"updates,omitempty"`
		ByTool      map[string]*toolCall `json:"byTool,omitempty"`
	}
	toolCall struct {
		ID        string          `json:"toolCallId"`
		Title     string          `json:"title"`
		Locations []string        `json:"locations,omitempty"`
		RawInput  json.RawMessage `json:"rawInput,omitempty"`
		Content   json.RawMessage `json:"content,omitempty"`
	}
	permission struct {
		ToolCallID string   `json:"toolCallId"`
		Commands   []string `json:"commands,omitempty"`
		OptionID   string   `json:"optionId,omitempty"`
		Reason     string   `json:"reason,omitempty"`
	}
	usage struct {
		TotalTokens int64   `json:"totalTokens"`
		Cost        float64 `json:"cost"`
		Currency    string  `json:"currency"`
	}
)

const secret = "ghp_s3cr3tT0ken"

func TestValue(t *testing.T) {
	r := redact.New(secret, "sk-other-secret")
	code := 3
	override := "--allow-all " + secret
	got := report{
		Override: &override,
		ByStopReason: map[stopReason]int{
			"end_turn": 2, secret: 1, "sk-other-secret": 4, "[REDACTED]": 5, "x-" + secret: 6,
		},
		Scenarios: []result{{
			Name:       "deploy " + secret,
			Tags:       []string{"ci", secret},
			Agent:      agentInfo{Name: "claude", Command: []string{"agent", "--token=" + secret}},
			Failures:   []string{"turn 1: text does not contain " + secret},
			Warnings:   []string{`prompt part "` + secret + `" not supported`},
			Error:      "agent exited: token " + secret,
			ExitCode:   &code,
			StderrTail: "auth failed for \"" + secret + "\"\n",
			SetupUpdates: map[string]int{
				"available_commands_update": 1, "call-" + secret: 2,
			},
			Labels:  map[string]string{"owner": "me", secret: secret},
			Extra:   map[string]any{"k": secret, secret: []any{1.5, secret, json.RawMessage(`{"a":"\u0067hp_s3cr3tT0ken"}`)}},
			Matrix:  [2]string{"linux", secret},
			Nested:  [][]string{{secret}, nil, {}},
			Files:   map[string][]byte{"out.txt": []byte("echo " + secret), secret: nil},
			private: secret,
			Turns: []turn{{
				Prompt:     "use " + secret,
				StopReason: stopReason("end_turn"),
				Text:       "done",
				ToolCalls: []toolCall{{
					ID:        "call-" + secret,
					Title:     "Run echo " + secret,
					Locations: []string{"/tmp/" + secret},
					RawInput:  json.RawMessage(`{"command":"echo \u0067hp_s3cr3tT0ken","n":1e400,"ok":true}`),
					Content:   json.RawMessage(`[{"type":"text","text":"ghp_s3cr3tT0ken"}]`),
				}},
				Permissions: []*permission{{ToolCallID: "call-" + secret, OptionID: "allow-" + secret, Commands: []string{"echo " + secret}}, nil},
				Usage:       &usage{TotalTokens: 10, Cost: 0.5, Currency: "USD"},
				Updates:     map[string]int{"agent_message_chunk": 3},
				ByTool:      map[string]*toolCall{"call-" + secret: {ID: "call-" + secret}},
			}, {}},
		}},
	}
	r.Value(&got)

	redactedOverride := "--allow-all [REDACTED]"
	want := report{
		Override: &redactedOverride,
		// Unredacted keys keep their names; redacted ones take suffixes
		// in the order of their original keys: "ghp_…" < "sk-other-secret".
		ByStopReason: map[stopReason]int{
			"end_turn": 2, "[REDACTED]": 5, "[REDACTED]#2": 1, "[REDACTED]#3": 4, "x-[REDACTED]": 6,
		},
		Scenarios: []result{{
			Name:         "deploy [REDACTED]",
			Tags:         []string{"ci", "[REDACTED]"},
			Agent:        agentInfo{Name: "claude", Command: []string{"agent", "--token=[REDACTED]"}},
			Failures:     []string{"turn 1: text does not contain [REDACTED]"},
			Warnings:     []string{`prompt part "[REDACTED]" not supported`},
			Error:        "agent exited: token [REDACTED]",
			ExitCode:     &code,
			StderrTail:   "auth failed for \"[REDACTED]\"\n",
			SetupUpdates: map[string]int{"available_commands_update": 1, "call-[REDACTED]": 2},
			Labels:       map[string]string{"owner": "me", "[REDACTED]": "[REDACTED]"},
			Extra:        map[string]any{"k": "[REDACTED]", "[REDACTED]": []any{1.5, "[REDACTED]", json.RawMessage(`{"a":"[REDACTED]"}`)}},
			Matrix:       [2]string{"linux", "[REDACTED]"},
			Nested:       [][]string{{"[REDACTED]"}, nil, {}},
			Files:        map[string][]byte{"out.txt": []byte("echo [REDACTED]"), "[REDACTED]": nil},
			private:      secret, // unexported: left alone
			Turns: []turn{{
				Prompt:     "use [REDACTED]",
				StopReason: "end_turn",
				Text:       "done",
				ToolCalls: []toolCall{{
					ID:        "call-[REDACTED]",
					Title:     "Run echo [REDACTED]",
					Locations: []string{"/tmp/[REDACTED]"},
					RawInput:  json.RawMessage(`{"command":"echo [REDACTED]","n":1e400,"ok":true}`),
					Content:   json.RawMessage(`[{"type":"text","text":"[REDACTED]"}]`),
				}},
				Permissions: []*permission{{ToolCallID: "call-[REDACTED]", OptionID: "allow-[REDACTED]", Commands: []string{"echo [REDACTED]"}}, nil},
				Usage:       &usage{TotalTokens: 10, Cost: 0.5, Currency: "USD"},
				Updates:     map[string]int{"agent_message_chunk": 3},
				ByTool:      map[string]*toolCall{"call-[REDACTED]": {ID: "call-[REDACTED]"}},
			}, {}},
		}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("Value (-want +got):\n%s", diff)
	}
}

// TestValueCollisionsDeterministic runs the same collision many times: Go
// maps iterate in a different order each time, the outcome must not.
func TestValueCollisionsDeterministic(t *testing.T) {
	r := redact.New("secret-aaaa", "secret-bbbb", "secret-cccc")
	want := map[string]int{"[REDACTED]": 1, "[REDACTED]#2": 2, "[REDACTED]#3": 3, "x": 0}
	for range 50 {
		m := map[string]int{"secret-cccc": 3, "secret-aaaa": 1, "secret-bbbb": 2, "x": 0}
		r.Value(m) // a map passed as it is changes in place
		if diff := cmp.Diff(want, m); diff != "" {
			t.Fatalf("Value (-want +got):\n%s", diff)
		}
	}
}

func TestValueKinds(t *testing.T) {
	r := redact.New(secret)
	type pair struct{ A, B string }
	type inner struct{ S string }
	type kinds struct {
		Any       any
		AnyStr    any
		AnyRaw    any
		AnyNum    any
		AnyPtr    any
		NilAny    any
		NilPtr    *inner
		NilMap    map[string]string
		NilSlice  []string
		Bytes     []byte
		Text      []byte // not JSON: redacted as text
		AnyKeys   map[any]int
		PairKeys  map[pair]int
		IntKeys   map[int]string
		Inner     *inner
		Embedded  inner
		inner     // unexported embedded: left alone
		Func      func()
		Chan      chan string
		ArrayPtrs [2]*inner
	}
	in := &inner{S: secret}
	got := kinds{
		Any:       []any{secret, map[string]any{secret: 1}},
		AnyStr:    secret,
		AnyRaw:    json.RawMessage(`"` + secret + `"`),
		AnyNum:    42,
		AnyPtr:    in,
		Bytes:     []byte(`{"k":"` + secret + `"}`),
		Text:      []byte("cat " + secret),
		AnyKeys:   map[any]int{secret: 1, stopReason(secret): 2, "[REDACTED]": 3, 7: 4},
		PairKeys:  map[pair]int{{"a", secret}: 1, {"a", "[REDACTED]"}: 2, {"b", secret}: 3},
		IntKeys:   map[int]string{1: secret},
		Inner:     in, // the same pointer twice
		Embedded:  inner{S: secret},
		inner:     inner{S: secret},
		Func:      func() {},
		Chan:      make(chan string),
		ArrayPtrs: [2]*inner{{S: secret}, nil},
	}
	r.Value(&got)

	want := map[string]any{
		"Any":     []any{"[REDACTED]", map[string]any{"[REDACTED]": 1}},
		"AnyStr":  "[REDACTED]",
		"AnyRaw":  json.RawMessage(`"[REDACTED]"`),
		"AnyNum":  42,
		"AnyPtr":  &inner{S: "[REDACTED]"},
		"Bytes":   []byte(`{"k":"[REDACTED]"}`),
		"Text":    []byte("cat [REDACTED]"),
		"AnyKeys": map[any]int{"[REDACTED]": 3, "[REDACTED]#2": 1, stopReason("[REDACTED]"): 2, 7: 4},
		// {"a", secret} collides with {"a", "[REDACTED]"} and cannot take a
		// suffix: it is dropped.
		"PairKeys":  map[pair]int{{"a", "[REDACTED]"}: 2, {"b", "[REDACTED]"}: 3},
		"IntKeys":   map[int]string{1: "[REDACTED]"},
		"Inner":     &inner{S: "[REDACTED]"},
		"Embedded":  inner{S: "[REDACTED]"},
		"inner":     inner{S: secret},
		"ArrayPtrs": [2]*inner{{S: "[REDACTED]"}, nil},
	}
	v := reflect.ValueOf(got)
	for name, w := range want {
		f := v.FieldByName(name)
		var g any
		if f.CanInterface() {
			g = f.Interface()
		} else {
			g = inner{S: f.Field(0).String()}
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	if got.NilPtr != nil || got.NilMap != nil || got.NilSlice != nil || got.NilAny != nil {
		t.Errorf("nil fields were set: %+v", got)
	}
}

func TestValueNotPointer(t *testing.T) {
	r := redact.New(secret)
	type rec struct {
		S string
		M map[string]string
	}
	v := rec{S: secret, M: map[string]string{"k": secret}}
	r.Value(v) // must not panic; the copy's string cannot change
	r.Value(secret)
	r.Value([]byte(secret))
	if v.S != secret {
		t.Errorf("S = %q; a copy was passed", v.S)
	}
	if v.M["k"] != "[REDACTED]" {
		t.Errorf(`M["k"] = %q; maps are references and are redacted`, v.M["k"])
	}
	s := []string{secret}
	r.Value(s)
	if s[0] != "[REDACTED]" {
		t.Errorf("s[0] = %q; slice elements are redacted", s[0])
	}
}

func TestValueCycles(t *testing.T) {
	r := redact.New(secret)
	type node struct {
		Name string
		Next *node
		Kids []*node
		M    map[string]*node
		Any  any
	}
	n := &node{Name: secret}
	n.Next = n
	n.Kids = []*node{n, n}
	n.M = map[string]*node{secret: n}
	n.Any = n
	type loop []any
	l := loop{nil, secret}
	l[0] = l
	m := map[string]any{"k": secret}
	m["self"] = m

	r.Value(n)
	r.Value(&l)
	r.Value(m)
	if n.Name != "[REDACTED]" || n.M["[REDACTED]"] != n {
		t.Errorf("node = %+v", n)
	}
	if l[1] != "[REDACTED]" || m["k"] != "[REDACTED]" {
		t.Errorf("loop = %v, map[k] = %v", l[1], m["k"])
	}
}

// TestValueDeep checks that a chain too deep to walk is cut, where it is
// too deep, rather than left with secrets in it.
func TestValueDeep(t *testing.T) {
	type node struct {
		Name string
		Next *node
	}
	head := &node{Name: secret}
	for p, i := head, 0; i < 6000; i++ {
		p.Next = &node{Name: secret}
		p = p.Next
	}
	redact.New(secret).Value(head)
	n := 0
	for p := head; p != nil; p = p.Next {
		if p.Name != "[REDACTED]" && (p.Name != "" || p.Next != nil) {
			t.Fatalf("node %d: Name = %q; want it redacted, or cleared where the chain is cut", n, p.Name)
		}
		n++
	}
	if n < 1000 || n > 6000 {
		t.Errorf("the chain has %d nodes; want it cut below 6001, and well walked", n)
	}
}

// plant sets every string, byte slice, map key, pointer, slice and
// interface reachable in v to something that holds secret, each in one of
// the forms an agent could use. It returns how many places it planted.
func plant(v reflect.Value, secret string) int {
	forms := []string{
		secret,
		"prefix " + secret + " suffix",
		"call-" + secret,
		`{"k":"` + jsonEscaped(secret) + `"}`,
		`log "` + uEscaped(secret) + `"`,
		fmt.Sprintf("%q", secret),
	}
	n := 0
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(forms[n%len(forms)])
			n++
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			walk(v.Elem())
		case reflect.Interface:
			v.Set(reflect.ValueOf(map[string]any{secret: []any{secret, 1}}))
			n++
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				v.SetBytes([]byte(`{"` + uEscaped(secret) + `":"` + uEscaped(secret) + `","n":[1e400,true],` +
					`"call-` + jsonEscaped(secret) + `":{"x":"` + jsonEscaped(secret) + `"}}`))
				n++
				return
			}
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			walk(v.Index(0))
			walk(v.Index(1))
		case reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			v.Set(reflect.MakeMap(v.Type()))
			kt := v.Type().Key()
			keys := []reflect.Value{reflect.New(kt).Elem()}
			if kt.Kind() == reflect.String {
				// A secret key, one that redacts to the same, and one
				// already named like a redacted key.
				keys = []reflect.Value{
					reflect.ValueOf(secret).Convert(kt),
					reflect.ValueOf("call-" + secret).Convert(kt),
					reflect.ValueOf(strings.ToUpper(secret[:1]) + secret[1:] + "|" + secret).Convert(kt),
					reflect.ValueOf(redact.Marker).Convert(kt),
				}
				n += 3
			}
			for _, k := range keys {
				e := reflect.New(v.Type().Elem()).Elem()
				walk(e)
				v.SetMapIndex(k, e)
			}
		}
	}
	walk(v)
	return n
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// uEscaped writes every character of s as \uXXXX.
func uEscaped(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	return b.String()
}

// decodeJSON decodes b keeping numbers as they are (1e400 does not fit a
// float64).
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the value")
	}
	return v, nil
}

// leaks returns where JSON b, decoded and decoded again where a string is
// JSON itself, holds secret in any form.
func leaks(t *testing.T, b []byte, secret string) []string {
	t.Helper()
	var out []string
	for _, form := range []string{secret, jsonEscaped(secret), uEscaped(secret)} {
		if strings.Contains(string(b), form) {
			out = append(out, fmt.Sprintf("%q in the JSON text", form))
		}
	}
	var check func(path string, v any)
	checkString := func(path, s string) {
		for _, form := range []string{secret, jsonEscaped(secret), uEscaped(secret)} {
			if strings.Contains(s, form) {
				out = append(out, fmt.Sprintf("%s: %q holds %q", path, s, form))
			}
		}
		if inner, err := decodeJSON([]byte(s)); err == nil {
			check(path+"(JSON)", inner)
		}
	}
	check = func(path string, v any) {
		switch v := v.(type) {
		case string:
			checkString(path, v)
		case []any:
			for i, e := range v {
				check(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case map[string]any:
			for k, e := range v {
				checkString(path+" key", k)
				check(path+"."+k, e)
			}
		}
	}
	doc, err := decodeJSON(b)
	if err != nil {
		t.Fatalf("marshalled value is not valid JSON: %v", err)
	}
	check("$", doc)
	return out
}

// TestValueProperty plants secrets in every string-ish field, element and
// key of the results types, then checks that after Value none is left in
// their JSON, in any form, and that the JSON is valid.
func TestValueProperty(t *testing.T) {
	for _, secret := range []string{"ghp_s3cr3tT0ken", `sk-"live"-\path`, "pässwörd-😀-1", "tab\tnew\nline"} {
		t.Run(secret, func(t *testing.T) {
			var v report
			n := plant(reflect.ValueOf(&v).Elem(), secret)
			if n < 50 {
				t.Fatalf("planted %d secrets; the sample type should hold more", n)
			}
			entries := mapEntries(reflect.ValueOf(v))
			before, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if len(leaks(t, before, secret)) < n {
				t.Fatalf("the check finds fewer than the %d planted secrets before redaction", n)
			}

			redact.New(secret).Value(&v)
			after, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("marshal after Value: %v", err)
			}
			for _, l := range leaks(t, after, secret) {
				t.Error(l)
			}
			// No map entry is lost to a collision.
			if got, want := mapEntries(reflect.ValueOf(v)), entries; got != want {
				t.Errorf("%d map entries after Value; want %d", got, want)
			}
		})
	}
}

// mapEntries counts the entries of every map reachable from v.
func mapEntries(v reflect.Value) int {
	n := 0
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			n += mapEntries(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += mapEntries(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			n += mapEntries(v.Index(i))
		}
	case reflect.Map:
		n += v.Len()
		for _, k := range v.MapKeys() {
			n += mapEntries(v.MapIndex(k))
		}
	}
	return n
}
