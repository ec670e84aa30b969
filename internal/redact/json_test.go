package redact_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
)

func TestJSON(t *testing.T) {
	r := redact.New("ghp_abcdefgh", `sk-"live"`, "pässwörd", "key-😀-1", "tok/abcdefg", "true")
	tests := []struct {
		name, in, want string
	}{
		{"string value", `{"a":"ghp_abcdefgh"}`, `{"a":"[REDACTED]"}`},
		{"part of a value", `{"a":"x ghp_abcdefgh y"}`, `{"a":"x [REDACTED] y"}`},
		{"object key", `{"ghp_abcdefgh":1}`, `{"[REDACTED]":1}`},
		{"identifier", `{"toolCallId":"call-ghp_abcdefgh","optionId":"allow-ghp_abcdefgh"}`,
			`{"toolCallId":"call-[REDACTED]","optionId":"allow-[REDACTED]"}`},
		{"\\u escape", `{"a":"\u0067hp_abcdefgh"}`, `{"a":"[REDACTED]"}`},
		{"every character escaped", `{"a":"\u0067\u0068\u0070\u005F\u0061\u0062\u0063\u0064\u0065\u0066\u0067\u0068"}`, `{"a":"[REDACTED]"}`},
		{"\\u escape in a key", `{"\u0067hp_abcdefgh":"v"}`, `{"[REDACTED]":"v"}`},
		{"escaped quotes", `{"k":"sk-\"live\""}`, `{"k":"[REDACTED]"}`},
		{"\\u escaped quotes", `{"k":"sk-\u0022live\u0022"}`, `{"k":"[REDACTED]"}`},
		{"non-ASCII escaped", `{"k":"p\u00e4ssw\u00F6rd"}`, `{"k":"[REDACTED]"}`},
		{"surrogate pair", `{"k":"key-\ud83d\ude00-1"}`, `{"k":"[REDACTED]"}`},
		{"escaped slash", `{"k":"tok\/abcdefg"}`, `{"k":"[REDACTED]"}`},
		{"top-level string", `"ghp_abcdefgh"`, `"[REDACTED]"`},
		{"nested arrays", `[[["x ghp_abcdefgh"]],{"k":[1,"ghp_abcdefgh",[]]},[]]`,
			`[[["x [REDACTED]"]],{"k":[1,"[REDACTED]",[]]},[]]`},
		{"numbers byte for byte", `{"s":"ghp_abcdefgh","n":[1e400,-0,12345678901234567890,1.0E+2,0.10,-1.5e-300]}`,
			`{"s":"[REDACTED]","n":[1e400,-0,12345678901234567890,1.0E+2,0.10,-1.5e-300]}`},
		{"literals untouched, true is no secret", `{"ci":true,"f":false,"n":null,"s":"true","t":"ghp_abcdefgh"}`,
			`{"ci":true,"f":false,"n":null,"s":"true","t":"[REDACTED]"}`},
		{"key order kept", `{"z":1,"a":"ghp_abcdefgh","m":{"y":2,"b":3}}`, `{"z":1,"a":"[REDACTED]","m":{"y":2,"b":3}}`},
		{"unchanged strings keep their escapes", `{"e":"caf\u00e9\n","s":"ghp_abcdefgh"}`, `{"e":"caf\u00e9\n","s":"[REDACTED]"}`},
		{"a redacted string is re-encoded", `{"s":"caf\u00e9 ghp_abcdefgh\t\u0001"}`, "{\"s\":\"café [REDACTED]\\t\\u0001\"}"},
		{"compact once changed", "{ \"a\" : \"ghp_abcdefgh\" ,\n  \"b\" : [ 1 , 2 ] }\n", `{"a":"[REDACTED]","b":[1,2]}`},
		{"JSON-escaped secret in a JSON string", `{"rawInput":"{\"token\":\"sk-\\\"live\\\"\"}"}`, `{"rawInput":"{\"token\":\"[REDACTED]\"}"}`},
		{"\\u-escaped secret in a JSON string", `{"s":"{\"t\":\"\\u0067hp_abcdefgh\"}"}`, `{"s":"{\"t\":\"[REDACTED]\"}"}`},
		{"key collision: a suffix for the redacted key", `{"ghp_abcdefgh":1,"[REDACTED]":2}`, `{"[REDACTED]#2":1,"[REDACTED]":2}`},
		{"key collision: in document order", `{"ghp_abcdefgh":1,"pässwörd":2,"x":3,"key-😀-1":4}`,
			`{"[REDACTED]":1,"[REDACTED]#2":2,"x":3,"[REDACTED]#3":4}`},
		{"key collision: the first free suffix", `{"[REDACTED]#2":0,"ghp_abcdefgh":1,"[REDACTED]":2}`,
			`{"[REDACTED]#2":0,"[REDACTED]#3":1,"[REDACTED]":2}`},
		{"key collision: duplicate keys", `{"ghp_abcdefgh":1,"ghp_abcdefgh":2}`, `{"[REDACTED]":1,"[REDACTED]#2":2}`},
		{"key collision: per object", `{"a":{"ghp_abcdefgh":1},"b":{"pässwörd":2}}`, `{"a":{"[REDACTED]":1},"b":{"[REDACTED]":2}}`},
		{"key collision: keys with escapes", `{"\u005bREDACTED]":1,"ghp_abcdefgh":2}`, `{"\u005bREDACTED]":1,"[REDACTED]#2":2}`},
		{"invalid JSON is text", `{"a":"ghp_abcdefgh"`, `{"a":"[REDACTED]"`},
		{"invalid JSON with an escape", `{"a":"\u0067hp_abcdefgh", oops`, `{"a":"[REDACTED]", oops`},
		{"not JSON at all", `panic: ghp_abcdefgh`, `panic: [REDACTED]`},
		{"no secret, backslashes", `{"a":"line\nline \"q\" \u00e9"}`, `{"a":"line\nline \"q\" \u00e9"}`},
		{"no secret, white space kept", "{ \"a\" : 1 }\n", "{ \"a\" : 1 }\n"},
		{"secret across tokens is no string's", `{"ghp_":"abcdefgh"}`, `{"ghp_":"abcdefgh"}`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.JSON([]byte(tt.in))
			if string(got) != tt.want {
				t.Errorf("JSON(%s) = %s; want %s", tt.in, got, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid(got) {
				t.Errorf("JSON(%s) = %s: not valid JSON", tt.in, got)
			}
		})
	}
}

// TestJSONUnchanged checks that JSON returns its input itself when there
// is nothing to redact.
func TestJSONUnchanged(t *testing.T) {
	r := redact.New("ghp_abcdefgh")
	for _, in := range []string{
		`{"a":"plain"}`,                  // no secret
		`{"a":"esc\n\u0067hp_"}`,         // escapes, no secret
		`{"ghp_":"abcdefgh"}`,            // the secret across tokens
		`not json, has a \ backslash`,    // text
		`{"x":"ghp_abcdefg"} ghp_abcdef`, // invalid, near misses
	} {
		raw := []byte(in)
		if got := r.JSON(raw); &got[0] != &raw[0] || len(got) != len(raw) {
			t.Errorf("JSON(%s) = %s; want the input itself", in, got)
		}
	}
}

// decodedStrings returns every string and key of valid JSON b, decoded by
// encoding/json.
func decodedStrings(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		if s, ok := tok.(string); ok {
			out = append(out, s)
		}
	}
}

func FuzzJSON(f *testing.F) {
	for _, seed := range []struct{ in, secret string }{
		{`{"a":"ghp_abcdefgh","ghp_abcdefgh":[1e400,-0,true]}`, "ghp_abcdefgh"},
		{`{"a":"\u0067hp_abcdefgh","[REDACTED]":null}`, "ghp_abcdefgh"},
		{`["sk-\"live\"",{"k":"sk-\u0022live\u0022"}]`, `sk-"live"`},
		{`{"s":"{\"t\":\"\\u0067hp_abcdefgh\"}"}`, "ghp_abcdefgh"},
		{`{"k":"key-\ud83d\ude00-1","x":"\ud800"}`, "key-😀-1"},
		{`{"ci":true,"s":"true"}`, "true"},
		{`{"a":"b"`, "abcd"},
		{`12345678901234567890`, "1234"},
		{"{\"a\" :\n \"p\\u00e4ssw\\u00f6rd\" }", "pässwörd"},
	} {
		f.Add([]byte(seed.in), seed.secret)
	}
	f.Fuzz(func(t *testing.T, in []byte, secret string) {
		if !utf8.ValidString(secret) || strings.ContainsRune(secret, utf8.RuneError) {
			// encoding/json decodes invalid UTF-8 to U+FFFD, which would
			// make such a secret appear where the bytes do not hold it.
			return
		}
		r := redact.New(secret)
		kept := r.String(secret) != secret // New took it as a secret
		out := r.JSON(in)
		if !kept && !bytes.Equal(out, in) {
			t.Fatalf("JSON(%q) with no fit secret %q = %q; want it unchanged", in, secret, out)
		}
		if again := r.JSON(out); !bytes.Equal(again, out) {
			t.Fatalf("JSON is not stable: JSON(%q) = %q, then %q", in, out, again)
		}
		if !json.Valid(in) {
			if kept && bytes.Contains(out, []byte(secret)) {
				t.Fatalf("JSON(%q) = %q: holds %q", in, out, secret)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("JSON(%q) = %q: not valid JSON", in, out)
		}
		if !kept {
			return
		}
		for _, s := range decodedStrings(t, out) {
			if strings.Contains(s, secret) {
				t.Fatalf("JSON(%q) = %q: string %q holds %q", in, out, s, secret)
			}
		}
	})
}
