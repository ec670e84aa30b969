// Package reporttest holds sample reports for the tests of report and of
// the formats that print one: runs with every kind of outcome, of a matrix
// of agents, repeated, and retried. Each is a results file in testdata,
// as acprun writes one, read with report.Read. It also holds what tests
// of a result compare it by (ToolCallsByTurn).
package reporttest

import (
	"embed"
	"strings"

	"github.com/acprun/acprun/report"
)

//go:embed testdata/*.json
var files embed.FS

// read reads testdata/name.json.
func read(name string) report.Results {
	f, err := files.Open("testdata/" + name + ".json")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	res, err := report.Read(f)
	if err != nil {
		panic(err)
	}
	return res
}

// Sample is a run with every kind of outcome: a pass, a failure against
// a named agent with a skipped turn, a crash and an agent that did not
// start. Its times are whole milliseconds.
func Sample() report.Report { return read("sample").Report() }

// Matrix is one scenario run twice (--repeat 2) against two named
// agents (--agent), plus one plain scenario: four results whose turns
// only their agent and attempt tell apart.
func Matrix() report.Report { return read("matrix").Report() }

// MatrixRefs is byStopReason of Matrix, as its results file holds it.
func MatrixRefs() map[string][]report.TurnRef { return read("matrix").ByStopReason }

// Repeat is a --repeat run against two named agents: login.yaml's
// "login" five times each (claude passes attempts 2 and 4, codex all),
// and another "login", in admin/login.yaml, twice against claude only,
// failing both times.
func Repeat() report.Report { return read("repeat").Report() }

// Retried is a scenario repeated twice whose first attempt passed on
// its second try, and a scenario that failed all its tries.
func Retried() report.Report { return read("retried").Report() }

// Complete completes r's DurationMs from Duration, for itself and its turns,
// as the runner does.
func Complete(r report.Result) report.Result {
	r.DurationMs = r.Duration.Milliseconds()
	for i := range r.Turns {
		r.Turns[i].DurationMs = r.Turns[i].Duration.Milliseconds()
	}
	return r
}

// ToolCallsByTurn is each turn of r's tool calls, each as its id, kind,
// title, status and late status, joined by " | ".
func ToolCallsByTurn(r report.Result) [][]string {
	out := make([][]string, len(r.Turns))
	for i, t := range r.Turns {
		for _, c := range t.ToolCalls {
			out[i] = append(out[i], strings.Join([]string{c.ID, c.Kind, c.Title, c.Status, c.LateStatus}, " | "))
		}
	}
	return out
}
