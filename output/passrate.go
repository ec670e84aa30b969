package output

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/report"
)

// passRateKey is what the pass-rate table finds a scenario's command by.
type passRateKey struct{ file, name, agent string }

// passRateColumn is one agent column of the pass-rate table.
type passRateColumn struct{ key, label string }

// passRateColumns returns the agent columns of the pass-rate table, in
// the order the agents first appear, and the column of each rate. A named
// agent's column is labelled by its name. When no agent is named, one
// column, "pass rate", holds every scenario's own command. Otherwise each
// command gets a column of its own, labelled by its program's base name
// ("claude-code-acp"), or when that is some other column's label too by
// the whole command with that base name ("acprun mock-agent a.mock.yaml"),
// or else the whole command as written.
func passRateColumns(rates []report.PassRate, commands map[passRateKey][]string) ([]passRateColumn, []int) {
	command := func(p report.PassRate) []string { return commands[passRateKey{p.File, p.Scenario, p.Agent}] }
	named := slices.ContainsFunc(rates, func(p report.PassRate) bool { return p.Agent != "" })
	keyOf := func(p report.PassRate) string {
		switch {
		case p.Agent != "":
			return "name\x00" + p.Agent
		case !named:
			return "command"
		}
		return "command\x00" + strings.Join(command(p), "\x00")
	}
	var cols []passRateColumn
	var firsts []report.PassRate
	index := map[string]int{}
	of := make([]int, len(rates))
	for i, p := range rates {
		k := keyOf(p)
		c, ok := index[k]
		if !ok {
			c = len(cols)
			index[k] = c
			cols = append(cols, passRateColumn{key: k})
			firsts = append(firsts, p)
		}
		of[i] = c
	}
	labels := []func(report.PassRate) string{
		func(p report.PassRate) string { return commandBase(command(p)) },
		func(p report.PassRate) string {
			if len(command(p)) == 0 {
				return ""
			}
			return shellquote.Join(append([]string{commandBase(command(p))}, command(p)[1:]...))
		},
		func(p report.PassRate) string { return shellquote.Join(command(p)) },
	}
	for i, p := range firsts {
		switch {
		case p.Agent != "":
			cols[i].label = p.Agent
		case !named:
			cols[i].label = "pass rate"
		}
	}
	for _, lab := range labels {
		used := map[string]int{}
		for i, p := range firsts {
			if cols[i].label == "" {
				used[lab(p)]++
			} else {
				used[cols[i].label]++
			}
		}
		for i, p := range firsts {
			if cols[i].label == "" && used[lab(p)] == 1 {
				cols[i].label = lab(p)
			}
		}
	}
	for i, p := range firsts {
		if cols[i].label == "" {
			cols[i].label = shellquote.Join(command(p)) // two commands that quote alike
		}
		if cols[i].label == "" {
			cols[i].label = "(no command)"
		}
	}
	return cols, of
}

// commandBase is the base name of a command's program, "" for none.
func commandBase(command []string) string {
	if len(command) == 0 {
		return ""
	}
	return filepath.Base(command[0])
}

// passRateCell is one cell of the pass-rate table: "3/5 (60%)", or "no
// verdict" when no attempt gave one, for several attempts pass@k and
// pass^k at k = attempts, the attempts interrupted, not run or invalid,
// which are not samples, and the rate against its minimum when there is one ("min
// 80%: met").
func passRateCell(p report.PassRate) string {
	rate, _ := p.Percents()
	s := fmt.Sprintf("%d/%d (%s)", p.Passed, p.Attempts, rate)
	if p.Attempts == 0 {
		s = "no verdict"
	}
	if n := p.Attempts; n > 1 {
		s += fmt.Sprintf(" pass@%d=%.2f pass^%d=%.2f", n, p.PassAtK.At(n), n, p.PassHatK.At(n))
	}
	for _, n := range p.NoVerdict() {
		s += ", " + n
	}
	if p.Met != nil {
		s += ", " + minPassRate(p)
	}
	return s
}

// passRateTable writes the pass rates side by side: one row per scenario,
// one column per agent, each column as wide as its widest cell. A scenario
// whose name another file uses too is shown with its file. Names, files and
// commands are printable.
func passRateTable(w io.Writer, rates []report.PassRate, rep report.Report) {
	type row struct{ file, name string }
	commands := map[passRateKey][]string{}
	for _, r := range rep.Scenarios {
		commands[passRateKey{r.File, r.Name, r.Agent.Name}] = r.Agent.Command
	}
	cols, colOf := passRateColumns(rates, commands)
	var rows []row
	cell := map[row]map[int]string{}
	files := map[string]map[string]bool{} // name → files
	for i, p := range rates {
		r := row{p.File, p.Scenario}
		if cell[r] == nil {
			cell[r] = map[int]string{}
			rows = append(rows, r)
			if files[p.Scenario] == nil {
				files[p.Scenario] = map[string]bool{}
			}
			files[p.Scenario][p.File] = true
		}
		cell[r][colOf[i]] = passRateCell(p)
	}

	grid := [][]string{{"scenario"}}
	for _, c := range cols {
		grid[0] = append(grid[0], c.label)
	}
	for _, r := range rows {
		name := r.name
		if len(files[r.name]) > 1 {
			name += " (" + r.file + ")"
		}
		line := []string{name}
		for c := range cols {
			txt, ok := cell[r][c]
			if !ok {
				txt = "-"
			}
			line = append(line, txt)
		}
		grid = append(grid, line)
	}

	for _, line := range grid {
		for i, c := range line {
			line[i] = printable(c) // names and commands a file chose
		}
	}
	fmt.Fprintln(w)
	_ = writeTable(w, grid)
}
