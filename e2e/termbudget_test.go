package e2e_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTerminalOutputBudget: a session's terminals may hold at most 64 MiB
// of output, a running command counted at its outputByteLimit. Past it,
// terminal/create is refused (-32602, recorded as refused, counted in
// neither allowed nor denied) with a message that tells the agent what to
// do, and the first refusal is warned of; a terminal that keeps no output
// still fits.
func TestTerminalOutputBudget(t *testing.T) {
	t.Parallel()
	big := "      - terminal: {command: sleep 1000, outputByteLimit: 8388608}\n"
	res, out, _ := runOne(t, "turns:\n  - steps:\n"+strings.Repeat(big, 9)+
		"      - terminal: {command: sleep 1000, outputByteLimit: 0}\n"+
		"      - terminal: {command: sleep 1000}\n", `name: budget
agent: {name: mock, args: [agent.mock.yaml]}
client: {terminal: true}
permissions: {allow: [{kind: execute, command: "sleep *"}]}
turns:
  - prompt: hi
`)
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	tr := sc.Turns[0]
	refusal := func(limit string) string {
		return "the session's terminals may hold 64 MiB of output (each its outputByteLimit, until its exit was reported by terminal/wait_for_exit or terminal/output, then the output it kept); " +
			"this one's output limit of " + limit + " (outputByteLimit, 4 MiB by default) would take them past 64 MiB, the most acprun keeps for them: " +
			"release the terminals no longer needed (terminal/release), or ask for a smaller outputByteLimit"
	}
	var text strings.Builder
	for i := 1; i <= 8; i++ {
		text.WriteString("terminal: term-" + string(rune('0'+i)))
	}
	text.WriteString("error: terminal/create: " + refusal("8 MiB") + " (-32602)")
	text.WriteString("terminal: term-9")
	text.WriteString("error: terminal/create: " + refusal("4 MiB") + " (-32602)")
	if diff := cmp.Diff(text.String(), tr.Text); diff != "" {
		t.Errorf("the agent was told (-want +got):\n%s", diff)
	}
	var refused []string
	for _, r := range tr.ClientRequests {
		if r.Refused != "" {
			refused = append(refused, r.Refused)
		}
	}
	if diff := cmp.Diff([]string{refusal("8 MiB"), refusal("4 MiB")}, refused); diff != "" {
		t.Errorf("refused requests (-want +got):\n%s", diff)
	}
	if sc.Allowed != 9 || sc.Denied != 0 {
		t.Errorf("allowed/denied %d/%d; want 9/0: a refusal past the budget is no decision of the policy", sc.Allowed, sc.Denied)
	}
	warning := `terminal/create ("sleep 1000") refused: the agent's unreleased terminals may hold 64 MiB of output, and its output limit of 8 MiB would take them past 64 MiB, ` +
		"the most acprun keeps for a session's terminals; later terminals past it are refused too, without a warning"
	if diff := cmp.Diff([]string{warning}, tr.Warnings); diff != "" {
		t.Errorf("turn warnings (-want +got):\n%s", diff)
	}
}

// TestTerminalOutputBudgetUntilReported: a terminal counts in the 64 MiB
// for its outputByteLimit until the agent was told its command ended,
// whether it has ended or not: after eight commands of 8 MiB the agent
// never waited for, a ninth is refused, every run, however fast they
// ended. Waited for (terminal/wait_for_exit), they count for the output
// they kept, and the ninth runs.
func TestTerminalOutputBudgetUntilReported(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, wait string
		want       string // the ninth terminal/create, as the agent was told
	}{
		{"not waited for", "", "error: terminal/create: the session's terminals may hold 64 MiB of output"},
		{"waited for", ", waitForExit: true", "terminal: term-9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			step := "      - terminal: {command: \"true\", outputByteLimit: 8388608" + tc.wait + "}\n"
			res, out, _ := runOne(t, "turns:\n  - steps:\n"+strings.Repeat(step, 8)+
				"      - terminal: {command: \"true\", outputByteLimit: 8388608}\n", `name: budget
agent: {name: mock, args: [agent.mock.yaml]}
client: {terminal: true}
permissions: {default: allow}
turns:
  - prompt: hi
`)
			if res.code != exitOK {
				t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
			}
			text := out.Scenarios[0].Turns[0].Text
			_, ninth, _ := strings.Cut(text, "terminal: term-8")
			if tc.wait != "" {
				ninth = strings.TrimPrefix(ninth, "exit: 0")
			}
			if !strings.HasPrefix(ninth, tc.want) {
				t.Errorf("the agent was told %q; want the ninth terminal/create to say %q", text, tc.want)
			}
		})
	}
}

// TestTerminalOutputBudgetOutputKept: a terminal whose exit was reported
// counts in the 64 MiB for the output it kept, to the byte, however
// acprun's reads cut it: 3 MiB kept, with seven more terminals of 8 MiB,
// leave room for exactly 5 MiB.
func TestTerminalOutputBudgetOutputKept(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, "turns:\n  - steps:\n"+
		"      - terminal: {command: head -c 3145728 /dev/zero, outputByteLimit: 8388608, waitForExit: true}\n"+
		strings.Repeat("      - terminal: {command: \"true\", outputByteLimit: 8388608}\n", 7)+
		"      - terminal: {command: \"true\", outputByteLimit: 5242880}\n", `name: budget
agent: {name: mock, args: [agent.mock.yaml]}
client: {terminal: true}
permissions: {default: allow}
turns:
  - prompt: hi
`)
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	if text := out.Scenarios[0].Turns[0].Text; !strings.HasSuffix(text, "terminal: term-8terminal: term-9") {
		t.Errorf("the agent was told %q; want the ninth terminal, of 5 MiB, created", text)
	}
}
