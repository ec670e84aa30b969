package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamesNotUTF8: a scenario file whose name is not valid UTF-8 (a
// Latin-1 café.yaml) used to run under a name the results recorded with
// U+FFFD, which --rerun-failed then never matched: it was skipped and the
// rerun passed. Arguments were read with U+FFFD too: the file named was
// "missing", -o wrote another file, --prompt sent other text. Now each
// is refused before anything runs (exit 2), naming it with the bad byte
// escaped and saying what to rename; so is a run in a working directory
// whose path is not UTF-8, which the results record and the agents are
// given.
func TestNamesNotUTF8(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	scenario := func(name, want string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n    expect: {text: {contains: " + want + "}}\n"
	}
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml": "turns:\n  - steps:\n      - text: hello\n",
		"caf\xe9.yaml": scenario("latin1", "nope"),
		"plain.yaml":   scenario("plain", "nope"),
	})
	r := acprun(t, dir, "run", ".", "-o", "last.json", "-q")
	want := `caf\xe9.yaml: the path is not valid UTF-8, which results (JSON) cannot record: rename caf\xe9.yaml`
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("run .: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	if r := acprun(t, dir, "validate", "*.yaml"); r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("validate *.yaml: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	for _, tt := range []struct {
		args []string
		bad  string
	}{
		{[]string{"run", "caf\xe9.yaml"}, `caf\xe9.yaml`},
		{[]string{"run", "plain.yaml", "-q", "-o", "res\xe9.json"}, `res\xe9.json`},
		{[]string{"run", "plain.yaml", "-q", "--junit", "j\xe9.xml"}, `j\xe9.xml`},
		{[]string{"run", "plain.yaml", "-q", "--transcripts", "t\xe9"}, `t\xe9`},
		{[]string{"run", "--agent", "mock", "--prompt", "caf\xe9"}, `caf\xe9`},
	} {
		r := acprun(t, dir, tt.args...)
		want := "acprun: the argument \"" + tt.bad + "\" is not valid UTF-8: acprun takes names and text in UTF-8 only (its results are JSON); rename the file, or give the text in UTF-8\n"
		if r.code != 2 || r.stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, want)
		}
	}
	// A secret the cut around the bad byte goes through shows no part.
	secret := "sk-ant-" + strings.Repeat("S3cr3t", 9)
	r = acprunEnv(t, dir, []string{"ANTHROPIC_API_KEY=" + secret}, "run", "--agent", "mock", "--prompt", "key "+secret+"bbbbbbbbbb\xe9")
	if r.code != 2 || !strings.Contains(r.stderr, `"key [REDACTED]bbbbbbbbbb\xe9"`) || strings.Contains(r.stderr, "S3cr3t") {
		t.Errorf("a secret in an argument that is not UTF-8: exit %d, stderr %q; want 2, the secret redacted whole", r.code, r.stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("the refused runs wrote files: %v", entries)
	}

	// A working directory whose path is not UTF-8.
	wd := filepath.Join(dir, "w\xe9")
	writeFiles(t, wd, map[string]string{
		"ok.mock.yaml": "turns:\n  - steps:\n      - text: hello\n",
		"plain.yaml":   scenario("plain", "hello"),
	})
	r = acprun(t, wd, "run", ".", "-o", "r.json")
	want = "acprun: the working directory " + strings.ReplaceAll(wd, "\xe9", `\xe9`) + " is not valid UTF-8: results record it, and agents are given their directory in it, as JSON, which holds UTF-8 only; rename w\\xe9, or run from another directory\n"
	if r.code != 2 || r.stderr != want {
		t.Errorf("run in w\\xe9: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(wd, "r.json")); err == nil {
		t.Error("the refused run in w\\xe9 wrote r.json")
	}
	if r := acprun(t, wd, "validate", "."); r.code != 0 {
		t.Errorf("validate in w\\xe9: exit %d, stderr %q; want 0", r.code, r.stderr)
	}
}
