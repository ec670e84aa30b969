package runner

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
)

// The tests check what acprun sends against the ACP schema through
// internal/acpschema/acpvalidate, in a process of its own: linked into this
// test binary, the JSON Schema library would compile its metaschemas (its
// package init) every time the binary starts again as the mock agent,
// hundreds of times a run.

// schemaProblems runs acpvalidate with args on input and returns the
// lines it printed, one for each message that is not valid; none when
// every one is.
func schemaProblems(t testing.TB, input []byte, args ...string) []string {
	t.Helper()
	bin, err := testkit.Build("github.com/acprun/acprun/internal/acpschema/acpvalidate")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(input)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		t.Fatalf("acpvalidate %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if len(out) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// validateAs checks that v marshals to a valid instance of the ACP schema
// definition def.
func validateAs(t testing.TB, def string, v any) error {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if problems := schemaProblems(t, data, "def", def); len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// validSent checks every line acprun sent against the ACP schema, and
// returns their methods (those of requests and notifications) in order.
func validSent(t *testing.T, lines [][]byte) []string {
	t.Helper()
	for _, p := range schemaProblems(t, append(bytes.Join(lines, []byte("\n")), '\n'), "client") {
		t.Errorf("sent %s", p)
	}
	var methods []string
	for _, l := range lines {
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(l, &m) == nil && m.Method != "" {
			methods = append(methods, m.Method)
		}
	}
	return methods
}

// schemaJSON is the text of the vendored ACP schema.
func schemaJSON(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "internal", "acpschema", "testdata", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
