package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/output"
)

// acprunBin is the acprun binary built once for the end-to-end tests.
var acprunBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acprun-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	acprunBin = filepath.Join(dir, "acprun")
	build := exec.Command("go", "build", "-race", "-o", acprunBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build acprun:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// Every temporary file of the tests and of what they start (the
	// workspaces acprun keeps, t.TempDir) goes under dir, removed at the end.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one acprun invocation produced.
type result struct {
	code   int
	stdout string
	stderr string
}

// acprun runs the built binary in dir with args and returns what it did.
func acprun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(acprunBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run acprun %v: %v", args, err)
	}
	if strings.Contains(stderr.String(), "WARNING: DATA RACE") {
		t.Errorf("acprun %v: the race detector fired:\n%s", args, stderr.String())
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// writeFiles writes name → content files under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readJSON decodes the JSON file at path into v. The results are read with
// readResults; readJSON is for a test that checks their raw shape (a key
// written or left out) with a small struct of its own.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", filepath.Base(path), err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v\n%s", filepath.Base(path), err, data)
	}
}

// readResults decodes the JSON results file at path into the product's
// own type, so the tests read the document as acprun merge does.
func readResults(t *testing.T, path string) output.Results {
	t.Helper()
	var out output.Results
	readJSON(t, path, &out)
	return out
}

// runResults runs `acprun run s.yaml -o out.json ARGS` in dir and reads
// the results.
func runResults(t *testing.T, dir string, args ...string) (result, output.Results) {
	t.Helper()
	res := acprun(t, dir, append([]string{"run", "s.yaml", "-o", "out.json"}, args...)...)
	return res, readResults(t, filepath.Join(dir, "out.json"))
}

// runOne runs s.yaml on agent.mock.yaml in a new directory and returns
// what acprun did, the results and the directory.
func runOne(t *testing.T, script, scenario string, args ...string) (result, output.Results, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": script, "s.yaml": scenario})
	res, out := runResults(t, dir, args...)
	return res, out, dir
}

// lineCol is the file:line:col position of byte offset off in content.
func lineCol(file, content string, off int) string {
	line := strings.Count(content[:off], "\n") + 1
	col := off - (strings.LastIndexByte(content[:off], '\n') + 1) + 1
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}
