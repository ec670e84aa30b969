package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdoutKeepsItsNames: acprun's stdout, a writer in front of the file
// it was given, is still known by that file's other names: -o naming the
// file stdout was redirected to is a second output on stdout beside
// --events -.
func TestStdoutKeepsItsNames(t *testing.T) {
	redirected := filepath.Join(t.TempDir(), "out.txt")
	f, err := os.Create(redirected)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stderr bytes.Buffer
	code := run([]string{"run", "s.yaml", "-o", redirected, "--events", "-"}, strings.NewReader(""), f, &stderr)
	want := "acprun: -o " + redirected + " and --events -: only one output can go to stdout; give the others a file\n"
	if code != exitUsage || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), exitUsage, want)
	}
}
