package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// statusesOf are the statuses acprun writes in results of schemaVersion
// version: version 2 added interrupted, version 3 invalid.
func statusesOf(version int) []Status {
	all := []Status{StatusPassed, StatusFailed, StatusError, StatusInterrupted, StatusInvalid}
	switch version {
	case 1:
		return all[:3]
	case 2:
		return all[:4]
	}
	return all
}

// shape is what Unmarshal does not tell of a results document: which of
// its scenarios' results are null (nil), and of each result which
// members acprun always writes it has (see resultShape).
type shape struct {
	Scenarios []*resultShape `json:"scenarios"`
}

// resultShape is one scenario's result of a shape: each of its members
// that acprun always writes is empty when it is left out and "null" when
// null; Turns holds nil for a null turn.
type resultShape struct {
	Name   json.RawMessage `json:"name"`
	Status json.RawMessage `json:"status"`
	File   json.RawMessage `json:"file"`
	Line   json.RawMessage `json:"line"`
	Turns  []*struct{}     `json:"turns"`
}

// checkResults refuses, in res decoded from data, what acprun never
// writes and its readers depend on: a null scenario result or turn; a
// result without its name, status, file or line (merge keys results on
// file, line, name, agent and attempt, --rerun-failed on file, name and
// agent, and every reader counts statuses), or with any of them null; an empty
// name; a status that is not one of those acprun writes in res's
// schemaVersion. An empty file and line 0 are what a run without a
// scenario file (--prompt) writes. Only once a result has a zero name,
// status, file, line or turn index, which null and left out members
// decode to, is data decoded again to tell them apart (see shape).
func checkResults(data []byte, res Results) *dataError {
	var sh *shape
	for i, sc := range res.Scenarios {
		at := "scenarios." + strconv.Itoa(i)
		if sh == nil && zeroed(sc) {
			sh = &shape{}
			if err := json.Unmarshal(data, sh); err != nil || len(sh.Scenarios) != len(res.Scenarios) {
				return wholeError("not acprun results") // not reached: data decoded once already
			}
		}
		var rs *resultShape // nil: nothing of sc is left out or null
		if sh != nil {
			if rs = sh.Scenarios[i]; rs == nil {
				return valueError(at, fmt.Sprintf("not acprun results: %s: want an object (a scenario's result), got null", at))
			}
		}
		if derr := checkResult(at, sc, rs, res.SchemaVersion); derr != nil {
			return derr
		}
	}
	return nil
}

// zeroed reports whether sc has a zero name, status, file or line, or a
// turn with index 0: what a member left out or null decodes to.
func zeroed(sc Result) bool {
	if sc.Name == "" || sc.Status == "" || sc.File == "" || sc.Line == 0 {
		return true
	}
	return slices.ContainsFunc(sc.Turns, func(t TurnResult) bool { return t.Index == 0 })
}

// checkResult refuses sc, the scenario's result at path at, of results
// of schemaVersion version, when it lacks its name, status, file or line
// (rs says which it has; nil: all of them) or has one null, its name is
// empty, its status not one acprun writes, or it has a null turn.
func checkResult(at string, sc Result, rs *resultShape, version int) *dataError {
	if derr := rs.member(at, "name", "a string"); derr != nil {
		return derr
	}
	if sc.Name == "" {
		return valueError(at+".name", fmt.Sprintf("not acprun results: %s.name: want a scenario's name, got \"\"", at))
	}
	if derr := rs.member(at, "status", "a string"); derr != nil {
		return derr
	}
	if ok := statusesOf(version); !slices.Contains(ok, sc.Status) {
		return valueError(at+".status", fmt.Sprintf("not acprun results: %s.status: %q is not a status acprun writes%s (%s)", at, sc.Status, inVersion(version), statusList(ok)))
	}
	if derr := rs.member(at, "file", "a string"); derr != nil {
		return derr
	}
	if derr := rs.member(at, "line", "a whole number"); derr != nil {
		return derr
	}
	if rs != nil {
		for j, t := range rs.Turns {
			if t == nil {
				return valueError(fmt.Sprintf("%s.turns.%d", at, j), fmt.Sprintf("not acprun results: %s.turns.%d: want an object (a turn), got null", at, j))
			}
		}
	}
	return nil
}

// member refuses member name of the result at path at when it is left
// out, or null where kind is wanted; nil rs has every member.
func (rs *resultShape) member(at, name, kind string) *dataError {
	if rs == nil {
		return nil
	}
	raw := map[string]json.RawMessage{"name": rs.Name, "status": rs.Status, "file": rs.File, "line": rs.Line}[name]
	switch {
	case len(raw) == 0:
		return valueError(at, fmt.Sprintf("not acprun results: %s: no %q; acprun writes the name, status, file and line of every scenario's result", at, name))
	case string(raw) == "null":
		return valueError(at+"."+name, fmt.Sprintf("not acprun results: %s.%s: want %s, got null", at, name, kind))
	}
	return nil
}

// inVersion says which results a status list is of: "" for the current
// schemaVersion, " in schemaVersion N" for an older one.
func inVersion(version int) string {
	if version < SchemaVersion {
		return fmt.Sprintf(" in schemaVersion %d", version)
	}
	return ""
}

// statusList is statuses for a message: "passed, failed, error".
func statusList(statuses []Status) string {
	s := make([]string, len(statuses))
	for i, st := range statuses {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}
