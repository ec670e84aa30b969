// Package bench_test runs bench/run.sh in its quick mode, so that the
// benchmark scripts keep working. It asserts that every measurement was
// made, never how fast: times depend on the machine.
package bench_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
)

func TestRunShQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acprun and runs the benchmarks in their quick mode")
	}
	cmd := exec.Command("sh", "run.sh")
	cmd.Env = append(os.Environ(), "QUICK=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("QUICK=1 run.sh: %v\n%s\n%s", err, out, stderr.String())
	}
	table := string(out)
	for _, row := range []string{
		"update flood 2k×64 B wall (all recorded)",
		"update flood 2k×64 B peak RSS",
		"update flood 2k×64 B peak RSS --no-text",
		"50 permission round trips",
		"acprun --version (median)",
		"acprun run --dry-run (median)",
		"20 mock scenarios -j 32 CPU/scenario beyond the agent's",
		"20 mock scenarios -j 32 peak RSS",
		"deadline → session/cancel p99",
		"grace expiry → process group gone (max)",
		"2 one-turn scenarios, 100ms start, ignoring EOF",
		"2 one-turn scenarios, 100ms start, reuse: true",
	} {
		line := lineWith(table, row)
		if line == "" {
			t.Errorf("no row %q in the table:\n%s", row, table)
			continue
		}
		if !strings.HasSuffix(line, "PASS") && !strings.HasSuffix(line, "MISS") {
			t.Errorf("row %q was not measured: %q", row, line)
		}
	}
	if !strings.Contains(table, "machine: ") {
		t.Errorf("the table does not name the machine:\n%s", table)
	}
}

// lineWith returns the line of s that starts with prefix, trimmed; "" when
// there is none.
func lineWith(s, prefix string) string {
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, prefix) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
