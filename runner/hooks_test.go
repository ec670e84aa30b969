package runner

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCommandTailLinesCut: a failed setup, verify or teardown quotes the
// last lines of its output with each line cut at tailWidth characters, as
// the excerpts of the agent's text and stderr are, while the results keep
// the output whole.
func TestCommandTailLinesCut(t *testing.T) {
	t.Parallel()
	const (
		long  = "head -c 5000 /dev/zero | tr '\\\\0' y; echo; "
		agent = "agent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	)
	want := strings.Repeat("y", tailWidth) + "…"
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": "name: setup\n" + agent + `setup: ["` + long + `echo short; exit 1"]` + "\n" +
			"---\nname: verify\n" + agent + `verify: ["` + long + `echo short >&2; exit 1"]` + "\n" +
			`teardown: ["` + long + `exit 1"]` + "\n",
	}, Options{})
	if len(rep.Scenarios) != 2 {
		t.Fatalf("%d scenarios, want 2", len(rep.Scenarios))
	}
	setup, verify := rep.Scenarios[0], rep.Scenarios[1]
	if len(verify.Failures) != 1 || len(verify.Warnings) == 0 {
		t.Fatalf("verify: failures %q, warnings %q; want a failure and a teardown warning", verify.Failures, verify.Warnings)
	}
	for what, msg := range map[string]string{
		"setup error":      setup.Error,
		"verify failure":   verify.Failures[0],
		"teardown warning": verify.Warnings[len(verify.Warnings)-1],
	} {
		_, tail, ok := strings.Cut(msg, "; output ends:\n")
		if !ok {
			t.Errorf("%s = %q, want the output's last lines", what, msg)
			continue
		}
		lines := strings.Split(tail, "\n")
		if lines[0] != want {
			t.Errorf("%s: long line = %q (%d characters), want %d y then …", what, lines[0], utf8.RuneCountInString(lines[0]), tailWidth)
		}
		if what != "teardown warning" && (len(lines) != 2 || lines[1] != "short") {
			t.Errorf("%s: lines after the long one = %q, want short", what, lines[1:])
		}
	}
	if len(setup.Setup) != 1 || len(verify.Verify) != 1 {
		t.Fatalf("setup %+v, verify %+v: want one command each", setup.Setup, verify.Verify)
	}
	if n := len(setup.Setup[0].Stdout); n != 5000+len("\nshort\n") {
		t.Errorf("setup's stdout in the results: %d bytes, want the whole output", n)
	}
	if n := len(verify.Verify[0].Stdout); n != 5001 {
		t.Errorf("verify's stdout in the results: %d bytes, want the whole output", n)
	}
}
