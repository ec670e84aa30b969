package main

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// module is the module's import path.
const module = "github.com/acprun/acprun"

// importRule forbids the packages of the module that from matches to
// depend, directly or not, on those forbidden matches. Paths are relative
// to the module ("" for its root).
type importRule struct {
	rule      string // as README.md's Development section says it
	from      func(rel string) bool
	forbidden func(rel string) bool
}

// is matches the package rel and those under it.
func is(pkg string) func(string) bool {
	return func(rel string) bool { return rel == pkg || strings.HasPrefix(rel, pkg+"/") }
}

// importRules are the layering README.md's Development section gives.
var importRules = []importRule{
	{"runner never imports output", is("runner"), is("output")},
	{"acp imports nothing of acprun", is("acp"), func(rel string) bool { return !is("acp")(rel) }},
	{"approve imports neither acp nor runner", is("approve"), func(rel string) bool { return is("acp")(rel) || is("runner")(rel) }},
	{"scenario never imports runner", is("scenario"), is("runner")},
	{"internal/* never imports a top-level package", is("internal"), func(rel string) bool { return !is("internal")(rel) }},
}

// importViolations checks the rules on imports, the direct imports of the
// module's packages by import path (others are left out), and says for
// each violation which package reaches which forbidden one, and how.
func importViolations(rules []importRule, imports map[string][]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		rel, ok := relPath(pkg)
		if !ok {
			continue
		}
		for _, r := range rules {
			if !r.from(rel) {
				continue
			}
			if chain := findImport(pkg, imports, r.forbidden); chain != nil {
				out = append(out, r.rule+": "+strings.Join(chain, " imports "))
			}
		}
	}
	return out
}

// findImport returns the shortest chain of imports from pkg to a package
// of the module that forbidden matches; nil when there is none.
func findImport(pkg string, imports map[string][]string, forbidden func(rel string) bool) []string {
	from := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range imports[p] {
			rel, ok := relPath(q)
			if _, seen := from[q]; !ok || seen {
				continue
			}
			from[q] = p
			if forbidden(rel) {
				chain := []string{q}
				for c := p; c != ""; c = from[c] {
					chain = append([]string{c}, chain...)
				}
				return chain
			}
			queue = append(queue, q)
		}
	}
	return nil
}

// relPath is pkg relative to the module, and whether it is one of its.
func relPath(pkg string) (string, bool) {
	if pkg == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(pkg, module+"/")
	return rel, ok
}

// TestImportRules checks the layering of the packages (README.md's
// Development section) on what `go list -deps` says they import.
func TestImportRules(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports", "./...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		imports[p.ImportPath] = p.Imports
	}
	for _, pkg := range []string{"runner", "acp", "approve", "scenario", "internal/proc"} {
		if _, ok := imports[module+"/"+pkg]; !ok {
			t.Fatalf("go list did not list %s: the rules would check nothing", pkg)
		}
	}
	for _, v := range importViolations(importRules, imports) {
		t.Error(v)
	}
	for _, v := range stdJSONImports(imports) {
		t.Error(v)
	}
}

// stdJSON is the JSON implementation the module does not use: every
// package encodes and decodes with github.com/go-json-experiment/json/v1.
const stdJSON = "encoding/json"

// stdJSONImports names the module's packages that import encoding/json
// directly, except the benchmarks' limit client, whose job is to be the
// standard library's decode loop.
func stdJSONImports(imports map[string][]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		rel, ok := relPath(pkg)
		if !ok || rel == "bench/limitclient" || !slices.Contains(imports[pkg], stdJSON) {
			continue
		}
		out = append(out, "one JSON implementation: "+pkg+" imports "+stdJSON+"; use github.com/go-json-experiment/json/v1")
	}
	return out
}

// TestStdJSONImportsFail: a package of the module that imports
// encoding/json is named, the limit client and packages of other modules
// are not.
func TestStdJSONImportsFail(t *testing.T) {
	got := stdJSONImports(map[string][]string{
		module + "/report":            {"bytes", stdJSON},
		module + "/bench/limitclient": {stdJSON},
		"github.com/alecthomas/kong":  {stdJSON},
		module + "/acp":               {"github.com/go-json-experiment/json/v1"},
	})
	want := []string{"one JSON implementation: " + module + "/report imports encoding/json; use github.com/go-json-experiment/json/v1"}
	if !slices.Equal(got, want) {
		t.Errorf("stdJSONImports:\ngot  %q\nwant %q", got, want)
	}
}

// TestImportRulesFail: each rule finds its violation, however deep, and
// names the chain of imports that leads to it.
func TestImportRulesFail(t *testing.T) {
	m := func(rel string) string { return module + "/" + rel }
	for _, tt := range []struct {
		imports map[string][]string
		want    string
	}{
		{map[string][]string{m("runner"): {"fmt", m("report")}, m("report"): {m("output/progress")}},
			"runner never imports output: " + m("runner") + " imports " + m("report") + " imports " + m("output/progress")},
		{map[string][]string{m("acp"): {"encoding/json", m("internal/redact")}},
			"acp imports nothing of acprun: " + m("acp") + " imports " + m("internal/redact")},
		{map[string][]string{m("approve"): {m("internal/shellquote"), m("acp")}},
			"approve imports neither acp nor runner: " + m("approve") + " imports " + m("acp")},
		{map[string][]string{m("scenario"): {m("approve"), m("report")}, m("report"): {m("runner")}},
			"scenario never imports runner: " + m("scenario") + " imports " + m("report") + " imports " + m("runner")},
		{map[string][]string{m("internal/proc"): {"os", m("internal/reap")}, m("internal/reap"): {m("report")}},
			"internal/* never imports a top-level package: " + m("internal/proc") + " imports " + m("internal/reap") + " imports " + m("report") + "\n" +
				"internal/* never imports a top-level package: " + m("internal/reap") + " imports " + m("report")},
		{map[string][]string{m("internal/reap"): {module}},
			"internal/* never imports a top-level package: " + m("internal/reap") + " imports " + module},
		{map[string][]string{m("runner"): {m("report"), m("acp")}, m("scenario"): {m("approve")}, m("approve"): {m("internal/shellquote")}},
			""},
	} {
		if got := strings.Join(importViolations(importRules, tt.imports), "\n"); got != tt.want {
			t.Errorf("imports %v:\ngot  %q\nwant %q", tt.imports, got, tt.want)
		}
	}
}

// TestImportRulesDocumented: README.md's Development section states each
// rule the test checks (code spans aside), so that the two cannot drift.
func TestImportRulesDocumented(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Development\n")
	if !ok {
		t.Fatal("README.md has no Development section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	text := strings.Join(strings.Fields(strings.ReplaceAll(section, "`", "")), " ")
	for _, r := range importRules {
		if !strings.Contains(text, r.rule) {
			t.Errorf("README.md's Development section does not say %q", r.rule)
		}
	}
}

// raceExit is the package whose import ends a -race test binary without
// the race runtime's second of sleep.
const raceExit = module + "/internal/raceexit"

// jsonSchema is the JSON Schema library the tests validate with.
const jsonSchema = "github.com/santhosh-tekuri/jsonschema/v6"

// TestEveryTestBinaryEndsWithoutTheRaceSleep checks that the test binary
// of every package with tests depends on internal/raceexit: one left out
// adds a second to `go test -race ./...`. And runner's, which starts again
// as the mock agent hundreds of times, does not link the JSON Schema
// library, whose package init is most of such a start.
func TestEveryTestBinaryEndsWithoutTheRaceSleep(t *testing.T) {
	out, err := exec.Command("go", "list", "-test", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	binaries := 0
	for line := range strings.Lines(string(out)) {
		pkg, deps, _ := strings.Cut(strings.TrimSpace(line), " ")
		if !strings.HasSuffix(pkg, ".test") {
			continue
		}
		binaries++
		if pkg == module+"/runner.test" && slices.Contains(strings.Fields(deps), jsonSchema) {
			t.Errorf("the tests of runner link %s, whose init compiles its metaschemas every time the test binary starts again as the mock agent: validate through internal/acpschema/acpvalidate", jsonSchema)
		}
		if !slices.Contains(strings.Fields(deps), raceExit) {
			t.Errorf("the tests of %s do not import %s: add `_ %q` to one of its test files", strings.TrimSuffix(pkg, ".test"), raceExit, raceExit)
		}
	}
	if binaries < 10 {
		t.Fatalf("go list named %d test binaries: the check saw nothing", binaries)
	}
}
