package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/termtext"
)

// Pos is a position in a scenario file. Line and Col are 1-based; Line 0
// means the file as a whole.
type Pos struct {
	File      string
	Line, Col int
	// Origin is where the value is written when Line and Col are those of
	// a YAML alias that stands for it (see yamlnode.Reader.ExpandAliases).
	Origin srcerr.Origin
}

// String returns "file:line:col", or "file" when Line is 0, with the
// control characters of the file's name escaped (termtext.Printable): the
// name of a file an agent left among the scenarios cannot drive the
// terminal of the run that reads it.
func (p Pos) String() string {
	file := termtext.Printable(p.File)
	if p.Line == 0 {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
}

func (p Pos) compare(q Pos) int {
	return cmp.Or(strings.Compare(p.File, q.File), cmp.Compare(p.Line, q.Line), cmp.Compare(p.Col, q.Col))
}

// Errors is every problem found by Load, sorted by file, line and column,
// each with the text of its line (see srcerr.Print).
type Errors []*srcerr.Error

// Error returns one error per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the errors, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// loadErrors is the error of Load and LoadBytes: their problems, which
// errors.As finds as an Errors, and the scenarios they read
// (ReadScenarios).
type loadErrors struct {
	Errors
	read []*Scenario
}

// As makes errors.As find the problems as an Errors.
func (e *loadErrors) As(target any) bool {
	if t, ok := target.(*Errors); ok {
		*t = e.Errors
		return true
	}
	return false
}

// ReadScenarios returns the scenarios that Load or LoadBytes read before
// returning err, their problems (or an error that wraps them): those of
// every file they loaded, a file with problems among them, as far as each
// could be read (none of a file that could not be read, nor of a document
// with a YAML syntax error or after it); nil for any other error. They
// are fit for nothing but knowing the secrets they hold (their agents'
// env values, as for a run), which the problems' source lines may repeat
// and the caller redacts from them: they are neither to run nor to show.
func ReadScenarios(err error) []*Scenario {
	if le, ok := errors.AsType[*loadErrors](err); ok {
		return le.read
	}
	return nil
}

// Warning is a problem that does not stop the scenario from running.
type Warning struct {
	Pos Pos
	Msg string
}

// String returns "file:line:col: msg".
func (w Warning) String() string { return w.Pos.String() + ": " + w.Msg }

// NoPermissionsWarnings returns a warning for each scenario of scs that has
// no permissions (the runner then denies every permission request and
// terminal command), once per scenario however often it is in scs (an
// --agent matrix), sorted by position. Load does not give them: a command
// gives them for the scenarios it will run, unless a flag replaces every
// scenario's permissions.
func NoPermissionsWarnings(scs []*Scenario) []Warning {
	var ws []Warning
	for _, s := range scs {
		if w, ok := s.NoPermissionsWarning(); ok {
			ws = append(ws, w)
		}
	}
	return SortWarnings(ws)
}

// UnusedPricesWarnings returns a warning at the prices of cfg (nil for
// no config) when it has some and no scenario of scs has a gateway: only
// a gateway prices what an agent spends, so the prices price nothing in
// a run of scs. A command gives it for the scenarios it will run, or
// checks, which names as the warning says them ("of this run", "in the
// files validated").
func UnusedPricesWarnings(cfg *Config, scs []*Scenario, which string) []Warning {
	if cfg == nil || len(cfg.Prices) == 0 || slices.ContainsFunc(scs, func(s *Scenario) bool { return s.Gateway != nil }) {
		return nil
	}
	return []Warning{{Pos: cfg.PricesPos, Msg: "prices: no scenario " + which + " has a gateway, so the prices price nothing; " +
		"a gateway counts what the agents' model requests cost (gateway: meter, in a scenario or the config's defaults, or run --gateway meter)"}}
}

// UnsetErrors returns the problems of the unset variables the scenarios
// of scs use (see LoadOptions.DeferUnset), sorted by position, each once
// however often its scenario is in scs (an --agent matrix); nil when
// there are none. A command returns them for the scenarios it will run.
func UnsetErrors(scs []*Scenario) Errors {
	var errs Errors
	for _, s := range scs {
		errs = append(errs, s.Unset...)
	}
	return sorted(errs)
}

// UnsetWarnings is UnsetErrors as warnings that name the scenario that
// needs each variable, for scenarios that will not run now.
func UnsetWarnings(scs []*Scenario) []Warning {
	var ws []Warning
	for _, s := range scs {
		for _, e := range s.Unset {
			ws = append(ws, Warning{Pos: Pos{File: e.File, Line: e.Line, Col: e.Col, Origin: e.Origin},
				Msg: fmt.Sprintf("%s%s; scenario %q needs it to run", e.Msg, e.Origin.Note(), s.Name)})
		}
	}
	return SortWarnings(ws)
}

// NoPermissionsWarning is the warning of a scenario that has no
// permissions, and whether it has none. The scenario of a run without a
// scenario file (OneShot) is told to allow some with run's flags.
func (s *Scenario) NoPermissionsWarning() (Warning, bool) {
	if s.Policy != nil {
		return Warning{}, false
	}
	how := "add permissions to allow some"
	if s.Pos == OneShotPos {
		how = "allow some with --allow, e.g. --allow read --allow 'execute:go test *'"
	}
	return Warning{Pos: s.Pos, Msg: "no permissions: every permission request and terminal command will be denied (" + how + ")"}, true
}

// scenariosNamed is `scenario "a"` or `scenarios "a", "b"`: the first five
// of names, and how many more.
func scenariosNamed(names []string) string {
	const most = 5
	quoted := make([]string, 0, most)
	for _, n := range names[:min(len(names), most)] {
		quoted = append(quoted, strconv.Quote(n))
	}
	if len(names) == 1 {
		return "scenario " + quoted[0]
	}
	s := "scenarios " + strings.Join(quoted, ", ")
	if len(names) > most {
		s += fmt.Sprintf(" and %d more", len(names)-most)
	}
	return s
}

// WarningsBesides returns what the warnings ws, which Load gave with the
// scenarios loaded, say besides the warnings of the scenarios of run
// (Scenario.Warnings, which their results carry): the warnings about a
// file, or about a scenario that does not run. A warning that Load gave
// once for several scenarios, naming them (one about the config's
// defaults), names only those that do not run, and is left out when they
// all run. run's scenarios are told apart by name, as Load keeps them.
func WarningsBesides(ws []Warning, loaded, run []*Scenario) []Warning {
	runs := map[string]bool{}
	for _, s := range run {
		runs[s.Name] = true
	}
	var out []Warning
	for _, w := range ws {
		if w, ok := besides(w, loaded, runs); ok {
			out = append(out, w)
		}
	}
	return out
}

// besides is w, a warning Load gave, as WarningsBesides gives it: with
// false when the scenarios of loaded that carry it all run.
func besides(w Warning, loaded []*Scenario, runs map[string]bool) (Warning, bool) {
	carriers := map[string][]string{} // by the message each carries, their names
	for _, s := range loaded {
		for _, sw := range s.Warnings {
			if sw.Pos == w.Pos && strings.HasPrefix(w.Msg, sw.Msg) && !slices.Contains(carriers[sw.Msg], s.Name) {
				carriers[sw.Msg] = append(carriers[sw.Msg], s.Name)
			}
		}
	}
	for msg, names := range carriers {
		named := w.Msg != msg
		if named && w.Msg != msg+" ("+scenariosNamed(names)+")" {
			continue
		}
		rest := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return runs[n] })
		switch {
		case len(rest) == 0:
			return w, false
		case named:
			w.Msg = msg + " (" + scenariosNamed(rest) + ")"
		}
		return w, true
	}
	return w, true
}

// SortWarnings sorts ws by position, drops repeats and returns it.
func SortWarnings(ws []Warning) []Warning {
	slices.SortStableFunc(ws, func(a, b Warning) int { return a.Pos.compare(b.Pos) })
	return slices.Compact(ws)
}
