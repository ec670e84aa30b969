package runner

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/acp"
)

// TestTerminalBudgetCountsUntilReported: a terminal counts in the session's
// 64 MiB for its outputByteLimit until the agent was told its command
// ended, ended or not: eight commands of 8 MiB that have all ended, none
// of them waited for, leave no room for a ninth, every run. Once a
// terminal/wait_for_exit or a terminal/output has reported an exit, that
// terminal counts for the output it kept, and a terminal of 8 MiB fits
// in the room it made.
func TestTerminalBudgetCountsUntilReported(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	limit := ptr(int64(8 << 20))
	var ids []string
	for range terminalBudget / (8 << 20) {
		ids = append(ids, clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "true", OutputByteLimit: limit}))
	}
	for _, id := range ids { // ended, which the agent was not told
		term, err := c.terms.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := term.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	create := func() (string, string) {
		res, rec, err := clientCall(t, c, acp.MethodTerminalCreate, acp.CreateTerminalRequest{SessionID: "s", Command: "true", OutputByteLimit: limit})
		if err != nil {
			return "", rec.Refused
		}
		id, _ := res["terminalId"].(string)
		return id, ""
	}
	if id, refused := create(); !strings.Contains(refused, "may hold 64 MiB of output") {
		t.Fatalf("a ninth terminal of 8 MiB, the eight before it ended unreported: created %q, refused %q; want refused, the eight at their limits", id, refused)
	}
	for _, tc := range []struct {
		method string
		ref    string // the terminal whose exit it reports
	}{
		{acp.MethodTerminalWaitForExit, ids[0]},
		{acp.MethodTerminalOutput, ids[1]},
	} {
		res, _, err := clientCall(t, c, tc.method, termRef(tc.ref))
		if err != nil {
			t.Fatalf("%s: %v", tc.method, err)
		}
		if _, ok := res["exitCode"]; !ok && res["exitStatus"] == nil {
			t.Fatalf("%s = %v; want the exit reported", tc.method, res)
		}
		if _, refused := create(); refused != "" { // and it takes the room made
			t.Fatalf("a terminal of 8 MiB once %s reported the exit of %s: refused %q; want it created", tc.method, tc.ref, refused)
		}
	}
}
