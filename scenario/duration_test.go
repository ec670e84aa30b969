package scenario_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acprun/acprun/scenario"
)

// TestDurationsAgreeWithTheSchema checks that Load and JSONSchema take and
// refuse the same values for every duration key: a positive duration for
// the limits, and zero or more for answerDelay (0s answers at once).
func TestDurationsAgreeWithTheSchema(t *testing.T) {
	sch := compileSchema(t)
	base := "name: x\nagent: {command: [a]}\nturns: [{prompt: hi}]\n"
	keys := []struct {
		name string
		src  func(v string) string
		zero bool // 0s is taken
	}{
		{"timeout", func(v string) string { return base + "timeout: " + v + "\n" }, false},
		{"turnTimeout", func(v string) string { return base + "turnTimeout: " + v + "\n" }, false},
		{"idleTimeout", func(v string) string { return base + "idleTimeout: " + v + "\n" }, false},
		{"cancelGrace", func(v string) string { return base + "cancelGrace: " + v + "\n" }, false},
		{"killGrace", func(v string) string { return base + "killGrace: " + v + "\n" }, false},
		{"turn timeout", func(v string) string {
			return strings.Replace(base, "{prompt: hi}", "{prompt: hi, timeout: "+v+"}", 1)
		}, false},
		{"setup timeout", func(v string) string { return base + "setup: [{run: make, timeout: " + v + "}]\n" }, false},
		{"answerDelay", func(v string) string {
			return base + "permissions: {default: deny, answerDelay: " + v + "}\n"
		}, true},
	}
	values := []struct {
		v        string
		positive bool // a positive duration with a unit
		zero     bool // zero, with a unit
	}{
		{"90s", true, false}, {"1h30m", true, false}, {"0.5s", true, false}, {".5s", true, false},
		{"1m0s", true, false}, {"0s1ms", true, false},
		{"0s", false, true}, {"0m0s", false, true}, {"0.0s", false, true},
		{"'0'", false, false}, {"0", false, false}, {"'90'", false, false}, {"-1s", false, false},
		{"soon", false, false}, {"1x", false, false}, {"''", false, false},
	}
	for _, k := range keys {
		for _, tt := range values {
			t.Run(fmt.Sprintf("%s %s", k.name, tt.v), func(t *testing.T) {
				src := k.src(tt.v)
				want := tt.positive || tt.zero && k.zero
				_, _, loadErr := scenario.LoadBytes("/s/x.yaml", []byte(src), opts)
				var schemaErr error
				for _, doc := range yamlDocs(t, []byte(src)) {
					schemaErr = sch.Validate(doc)
				}
				if got := loadErr == nil; got != want {
					t.Errorf("Load takes it: %v, want %v (%v)\n%s", got, want, loadErr, src)
				}
				if got := schemaErr == nil; got != want {
					t.Errorf("the schema takes it: %v, want %v (%v)\n%s", got, want, schemaErr, src)
				}
			})
		}
	}
}
