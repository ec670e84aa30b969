package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/termtext"
)

// TestRefusesArgumentsNotUTF8: an argument that is not valid UTF-8 (a
// Latin-1 file name, say) is refused before anything runs, naming it
// with the bad byte escaped, rather than parsed with U+FFFD in place of
// its bad bytes, which named another file ("caf\uFFFD.yaml: no such
// file"), wrote an output under another name or sent another prompt.
func TestRefusesArgumentsNotUTF8(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "caf\xe9.yaml"}, `caf\xe9.yaml`},
		{[]string{"run", ".", "-o", "res\xe9.json"}, `res\xe9.json`},
		{[]string{"run", ".", "--junit=j\xe9.xml"}, `--junit=j\xe9.xml`},
		{[]string{"run", "--agent", "mock", "--prompt", "caf\xe9 au lait"}, `caf\xe9 au lait`},
		{[]string{"validate", "\xff"}, `\xff`},
		{[]string{"run", "--prompt", strings.Repeat("é", 60) + "\xe9" + strings.Repeat("b", 60)},
			"…" + strings.Repeat("é", 20) + `\xe9` + strings.Repeat("b", 40) + "…"},
		{[]string{"probe", "--", "agent", "--flag=\xe9"}, `--flag=\xe9`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		want := "acprun: the argument \"" + tt.want + "\" is not valid UTF-8: acprun takes names and text in UTF-8 only (its results are JSON); rename the file, or give the text in UTF-8\n"
		if code != exitUsage || stderr.String() != want || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tt.args, code, stdout.String(), stderr.String(), exitUsage, want)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("files were written: %v", entries)
	}
	// A secret the cut around the bad byte would go through is redacted
	// whole first: no part of it shows.
	secret := "sk-ant-" + strings.Repeat("S3cr3t", 9)
	t.Setenv("ANTHROPIC_API_KEY", secret)
	var stdout, stderr bytes.Buffer
	run([]string{"run", "--prompt", "key " + secret + strings.Repeat("b", 10) + "\xe9"}, strings.NewReader(""), &stdout, &stderr)
	if want := `"key [REDACTED]` + strings.Repeat("b", 10) + `\xe9"`; !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "S3cr3t") {
		t.Errorf("stderr %q; want %s in it and no part of the secret", stderr.String(), want)
	}
}

// TestRefusesWorkDirNotUTF8: run and probe refuse a working directory
// whose path is not valid UTF-8 before anything starts: results record
// it (their dir, which --rerun-failed and report resolve files and
// transcripts against) and agents are given their directory under it,
// both as JSON, which would hold U+FFFD in place of the bad bytes: a
// directory that does not exist. (The agent is not there: it is not
// started.) Commands that record nothing of it
// (validate) work there.
func TestRefusesWorkDirNotUTF8(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "w\xe9", "suite")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if err := os.WriteFile("s.yaml", []byte("name: s\nagent: {command: [no-such-agent-utf8]}\npermissions: {}\nturns: [{prompt: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shown := termtext.Printable(dir)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", ".", "-o", "r.json"}, "acprun: the working directory " + shown + " is not valid UTF-8: results record it, and agents are given their directory in it, as JSON, which holds UTF-8 only; rename w\\xe9, or run from another directory\n"},
		{[]string{"probe", "--", "no-such-agent-utf8"}, "acprun: the working directory " + shown + " is not valid UTF-8: the agent is given it as its directory, as JSON, which holds UTF-8 only; rename w\\xe9, or run from another directory\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || stderr.String() != tt.want || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tt.args, code, stdout.String(), stderr.String(), exitUsage, tt.want)
		}
	}
	if _, err := os.Stat("r.json"); err == nil {
		t.Error("run wrote r.json")
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"validate", "."}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Errorf("validate: exit %d, stderr %q; want 0", code, stderr.String())
	}
}
