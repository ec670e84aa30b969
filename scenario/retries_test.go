package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

func TestRetries(t *testing.T) {
	cfg, err := scenario.LoadConfigBytes("c.yaml", []byte("defaults:\n  retries: 2\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	src := `name: default
agent: {command: [a]}
turns: [{prompt: hi}]
---
name: own
agent: {command: [a]}
retries: 0
turns: [{prompt: hi}]
---
name: float
agent: {command: [a]}
retries: 3.0
turns: [{prompt: hi}]
`
	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), scenario.LoadOptions{LookupEnv: env, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, sc := range scs {
		got[sc.Name] = sc.Retries
	}
	if diff := cmp.Diff(map[string]int{"default": 2, "own": 0, "float": 3}, got); diff != "" {
		t.Errorf("retries (-want +got):\n%s", diff)
	}
}

func TestRetriesErrors(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"-1", `s.yaml:3:10: expected a whole number from 0 to 10 (how many times an attempt that errored or was invalid is run again), got -1`},
		{"11", `s.yaml:3:10: expected a whole number from 0 to 10 (how many times an attempt that errored or was invalid is run again), got 11`},
		{"1.5", `s.yaml:3:10: expected a whole number from 0 to 10 (how many times an attempt that errored or was invalid is run again), got 1.5`},
		{"two", `s.yaml:3:10: expected a whole number from 0 to 10 (how many times an attempt that errored or was invalid is run again), got a string`},
	} {
		src := "name: x\nagent: {command: [a]}\nretries: " + tc.value + "\nturns: [{prompt: hi}]\n"
		_, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
		if diff := cmp.Diff([]string{tc.want}, errorLines(t, err)); diff != "" {
			t.Errorf("retries: %s (-want +got):\n%s", tc.value, diff)
		}
	}
	_, err := scenario.LoadConfigBytes("c.yaml", []byte("defaults:\n  retries: 50\n"), opts)
	if diff := cmp.Diff([]string{`c.yaml:2:12: expected a whole number from 0 to 10 (how many times an attempt that errored or was invalid is run again), got 50`}, errorLines(t, err)); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}
