package redact

import (
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestJSONLeavesLiterals checks the JSON layer on its own: even with
// secrets that New would drop, numbers and literals are never touched and
// the result stays valid. (TestNewDrops checks the other layer.)
func TestJSONLeavesLiterals(t *testing.T) {
	r := &table{forms: []string{"true", "null", "1e400", "12345"}}
	in := `{"a":true,"b":[null,false,1e400,-12345.0],"true":"true","s":"x null y"}`
	want := `{"a":true,"b":[null,false,1e400,-12345.0],"[REDACTED]":"[REDACTED]","s":"x [REDACTED] y"}`
	got := r.JSON([]byte(in))
	if string(got) != want {
		t.Errorf("JSON(%s) = %s; want %s", in, got, want)
	}
	if !json.Valid(got) {
		t.Errorf("JSON(%s) = %s: not valid JSON", in, got)
	}
}

// TestUnquote compares unquote with encoding/json on valid UTF-8.
func TestUnquote(t *testing.T) {
	for _, lit := range []string{
		`plain`, `a\"b\\c\/d\be\ff\ng\rh\ti`, `\u0067\u00e9\u20AC`, `\ud83d\ude00`,
		`\ud800`, `\udc00x`, `\ud800\u0041`, `\ud83d\ud83d\ude00`, `\ud800\\`, ``,
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+lit+`"`), &want); err != nil {
			t.Fatalf("json.Unmarshal(%q): %v", lit, err)
		}
		if got := string(unquote(nil, lit)); got != want {
			t.Errorf("unquote(%q) = %q; want %q", lit, got, want)
		}
	}
}
