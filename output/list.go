package output

import (
	"fmt"
	"io"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/termtext"
)

// ListEntry is one scenario a run would run, as acprun list shows it. Its
// JSON form (acprun list --json) always has every key: tags is [] and vars
// {} when the scenario has none, and agent is "" when it runs its own
// command.
type ListEntry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Column      int      `json:"column"`
	Agent       string   `json:"agent"` // the named agent it runs against; "" for its own
	Tags        []string `json:"tags"`
	Turns       int      `json:"turns"` // how many turns it has
	// Vars are the values of a parametrised scenario by name ({} when it
	// has none).
	Vars map[string]string `json:"vars"`
}

// ListJSON writes the entries as one indented JSON array: [] when there
// are none.
func ListJSON(w io.Writer, entries []ListEntry) error {
	out := make([]ListEntry, len(entries))
	for i, e := range entries {
		if e.Tags == nil {
			e.Tags = []string{}
		}
		if e.Vars == nil {
			e.Vars = map[string]string{}
		}
		out[i] = e
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// List writes one line per scenario: file:line and name, then @agent and
// [tags] when it has them, separated by tabs.
func List(w io.Writer, entries []ListEntry) error {
	for _, e := range entries {
		line := fmt.Sprintf("%s:%d\t%s", e.File, e.Line, e.Name)
		if e.Agent != "" {
			line += "\t@" + e.Agent
		}
		if len(e.Tags) > 0 {
			line += "\t[" + strings.Join(e.Tags, " ") + "]"
		}
		if _, err := fmt.Fprintln(w, termtext.Escape(line, true)); err != nil { // a file's name an agent chose
			return err
		}
	}
	return nil
}

// Validated writes validate's one-line summary of valid files: how many
// scenarios, turns and files.
func Validated(w io.Writer, scenarios, turns, files int) error {
	_, err := fmt.Fprintf(w, "OK: %d %s, %d %s in %d %s\n",
		scenarios, plural(scenarios, "scenario", "scenarios"),
		turns, plural(turns, "turn", "turns"),
		files, plural(files, "file", "files"))
	return err
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
