package replay

import (
	"testing"

	"github.com/acprun/acprun/internal/redact"
)

// TestSameJSONNullIsAbsent: a member that is null matches one that is
// absent (another client's answer to terminal/wait_for_exit says
// "signal": null, acprun's says nothing), at any depth; a value, or a
// different one, does not; nor does a whole value that is missing.
func TestSameJSONNullIsAbsent(t *testing.T) {
	red := redact.New()
	for _, tt := range []struct {
		rec, got string
		same     bool
	}{
		{`{"exitCode":0,"signal":null}`, `{"exitCode":0}`, true},
		{`{"exitCode":0}`, `{"exitCode":0,"signal":null}`, true},
		{`{"a":[{"b":null,"c":1}]}`, `{"a":[{"c":1}]}`, true},
		{`{"exitCode":0,"signal":null}`, `{"exitCode":0,"signal":"SIGTERM"}`, false},
		{`{"exitCode":0}`, `{"exitCode":0,"signal":"SIGTERM"}`, false},
		{`{"exitCode":null}`, `{"exitCode":0}`, false},
		{`[null]`, `[]`, false},
		{`null`, ``, false},
	} {
		if got := sameJSON(red, []byte(tt.rec), []byte(tt.got)); got != tt.same {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", tt.rec, tt.got, got, tt.same)
		}
	}
}
