package e2e_test

import (
	"strings"
	"testing"
)

// TestNumbersTooLarge: a number or a duration too large to hold is said to
// be too large, with the most it may be, where it used to be worded as a
// number of the wrong type or a duration in the wrong syntax.
func TestNumbersTooLarge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"n.yaml": `name: n
agent: {command: [acprun, mock-agent, s.mock.yaml]}
permissions: {default: deny}
budget: {maxTotalTokens: 9223372036854775808, maxRequests: 1e30}
timeout: 3000000h
turns: [{prompt: hi}]
`})
	res := acprun(t, dir, "validate", "n.yaml")
	for _, w := range []string{
		`n.yaml:4:26: 9223372036854775808 is too large: the most it may be is 9223372036854775807`,
		`n.yaml:4:60: 1e30 is too large: the most it may be is 9223372036854775807`,
		`n.yaml:5:10: bad duration "3000000h": too large: the most it may be is 2562047h47m16.854775807s`,
	} {
		if res.code != 2 || !strings.Contains(res.stderr, w) {
			t.Errorf("validate: exit %d, want 2 and %q:\n%s", res.code, w, res.stderr)
		}
	}
}
