package jsonpos_test

import (
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/acprun/acprun/internal/jsonpos"
)

func TestOffset(t *testing.T) {
	data := []byte(`{"a": {"B": [1, {"c":  "x"}]}, "d": null}`)
	for path, want := range map[string]int64{"": 0, "a": 6, "a.b": 12, "a.b.1": 16, "a.b.1.c": 23, "d": 36} {
		if got, ok := jsonpos.Offset(data, path); !ok || got != want {
			t.Errorf("Offset(%q) = %d, %v; want %d", path, got, ok, want)
		}
	}
	for _, path := range []string{"x", "a.b.2", "a.b.-1", "d.e"} {
		if got, ok := jsonpos.Offset(data, path); ok {
			t.Errorf("Offset(%q) = %d; want none", path, got)
		}
	}
}
