package output

import (
	"cmp"
	"io"
	"strings"

	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/internal/termtext"
)

// AgentRow is one named agent of acprun agents' table.
type AgentRow struct {
	Name    string
	Command []string // the agent's argv
	Auth    string   // its auth method; "" for none
	// AuthEnv are the variables it expects its credentials in, each with
	// whether it is set: "ANTHROPIC_API_KEY (set)"; nil for none known.
	AuthEnv []string
	// Source says where the agent is defined: built-in, or the config
	// file, and whether it replaces a built-in agent.
	Source      string
	Description string
}

// Agents writes the named agents as an aligned table with a heading: the
// command shell-quoted, a missing auth method or auth env as "-", the
// auth env joined with ", " and each description on one line; the
// control characters and bidi controls of every cell (a config file's
// values) escaped (termtext.Printable), as run --dry-run and probe
// write them.
func Agents(w io.Writer, rows []AgentRow) error {
	table := [][]string{{"NAME", "COMMAND", "AUTH", "AUTH ENV", "SOURCE", "DESCRIPTION"}}
	for _, r := range rows {
		row := []string{r.Name, shellquote.Join(r.Command), cmp.Or(r.Auth, "-"), cmp.Or(strings.Join(r.AuthEnv, ", "), "-"),
			r.Source, collapseSpace(r.Description)}
		for i, c := range row {
			row[i] = termtext.Printable(c)
		}
		table = append(table, row)
	}
	return writeTable(w, table)
}
