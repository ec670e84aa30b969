package suggest_test

import (
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
	"github.com/acprun/acprun/internal/suggest"
)

func TestClosest(t *testing.T) {
	valid := []string{"name", "turnTimeout", "turns", "description", "prompt", "maxDenied"}
	tests := []struct{ word, want string }{
		{"promt", "prompt"},
		{"Name", "name"},
		{"turn_timeout", "turnTimeout"},
		{"trun", "turns"},       // a swap of neighbours
		{"desc", "description"}, // a prefix
		{"max-denied", "maxDenied"},
		{"xy", ""},
		{"zzzzzz", ""},
	}
	for _, tt := range tests {
		got, _ := suggest.Closest(tt.word, valid)
		if got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
