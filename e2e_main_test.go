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

// readResults decodes a JSON results file into v.
func readResults(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read results: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode results: %v\n%s", err, data)
	}
}

// results mirrors the JSON results closely enough for the tests.
type results struct {
	SchemaVersion int                        `json:"schemaVersion"`
	ByStopReason  map[string][]turnRef       `json:"byStopReason"`
	Summary       map[string]json.RawMessage `json:"summary"`
	Scenarios     []scenarioResult           `json:"scenarios"`
	Extra         map[string]json.RawMessage `json:"-"`
}

type turnRef struct {
	Scenario string `json:"scenario"`
	Turn     int    `json:"turn"`
}

type scenarioResult struct {
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	Failures   []string `json:"failures"`
	Warnings   []string `json:"warnings"`
	Error      string   `json:"error"`
	StderrTail string   `json:"stderrTail"`
	Allowed    int      `json:"allowed"`
	Denied     int      `json:"denied"`
	Transcript string   `json:"transcript"`
	// SetupUpdates counts updates that came before the first turn.
	SetupUpdates map[string]int    `json:"setupUpdates"`
	Turns        []json.RawMessage `json:"turns"`
}

// lineCol is the file:line:col position of byte offset off in content.
func lineCol(file, content string, off int) string {
	line := strings.Count(content[:off], "\n") + 1
	col := off - (strings.LastIndexByte(content[:off], '\n') + 1) + 1
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}
