package output

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/acprun/acprun/internal/shellquote"
)

// AgentRow is one named agent of acprun agents' table.
type AgentRow struct {
	Name    string
	Command []string // the agent's argv
	Auth    string   // its auth method; "" for none
	// Source says where the agent is defined: built-in, or the config
	// file, and whether it replaces a built-in agent.
	Source      string
	Description string
}

// Agents writes the named agents as an aligned table with a heading: the
// command shell-quoted, a missing auth method as "-" and each description
// on one line.
func Agents(w io.Writer, rows []AgentRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCOMMAND\tAUTH\tSOURCE\tDESCRIPTION")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, shellquote.Join(r.Command), orDash(r.Auth), r.Source, collapseSpace(r.Description))
	}
	return tw.Flush()
}
