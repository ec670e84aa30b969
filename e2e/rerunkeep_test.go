package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rerunKeepSuite writes the suite of TestRerunFailedKeepsUnselected in
// dir: x fails until the file "fixed" is there, y always fails. x is
// tagged fixme; -o's file is results.
func rerunKeepSuite(t *testing.T, dir string) {
	t.Helper()
	scenario := func(name, command, tags string) string {
		return "name: " + name + "\nagent: {command: [" + command + "]}\npermissions: {default: deny}\n" + tags +
			"turns:\n  - prompt: hi\n    expect: {text: {contains: hello}}\n"
	}
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml":  "turns:\n  - steps:\n      - text: \"hello\"\n",
		"bad.mock.yaml": "turns:\n  - steps:\n      - text: \"goodbye\"\n",
		"x.yaml":        scenario("x", filepath.Join(dir, "x.sh"), "tags: [fixme]\n"),
		"y.yaml":        scenario("y", "acprun, mock-agent, bad.mock.yaml", ""),
	})
	script := "#!/bin/sh\nd=$(dirname \"$0\"); if [ -e \"$d/fixed\" ]; then exec acprun mock-agent \"$d/ok.mock.yaml\"; else exec acprun mock-agent \"$d/bad.mock.yaml\"; fi\n"
	if err := os.WriteFile(filepath.Join(dir, "x.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// statuses are the name and status of every result of the results file
// path, in its order.
func statuses(t *testing.T, path string) []string {
	t.Helper()
	var got []string
	for _, sc := range readResults(t, path).Scenarios {
		got = append(got, sc.Name+":"+string(sc.Status))
	}
	return got
}

// TestRerunFailedKeepsUnselected: a rerun narrowed by --run, --tag,
// --shard or a narrower path, whose -o is the file --rerun-failed read,
// keeps in it the earlier failures it did not select (a failed scenario,
// or one an earlier --fail-fast kept from running), says so in its
// summary, and exits as what it ran did; the next --rerun-failed reruns
// them. With -o another file, the rerun's results are its own alone.
func TestRerunFailedKeepsUnselected(t *testing.T) {
	t.Parallel()
	path := []string{"PATH=" + filepath.Dir(acprunBin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	tests := []struct {
		name    string
		first   []string // how the earlier run ran, besides run . -o last.json
		y       string   // y's status in it
		narrow  []string // the narrower rerun
		spelled string   // how the rerun's -o names last.json
	}{
		{"run", nil, "failed", []string{".", "--run", "^x$"}, "last.json"},
		{"tag", nil, "failed", []string{".", "--tag", "fixme"}, "./last.json"},
		{"shard", nil, "failed", []string{".", "--shard", "1/2"}, "last.json"},
		{"path", nil, "failed", []string{"x.yaml"}, "sub/../last.json"},
		{"not run", []string{"-j", "1", "--fail-fast"}, "interrupted", []string{".", "--run", "^x$"}, "last.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			rerunKeepSuite(t, dir)
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			last := filepath.Join(dir, "last.json")
			res := acprunEnv(t, dir, path, append([]string{"run", ".", "-o", "last.json", "-q"}, tt.first...)...)
			if res.code != exitFailed {
				t.Fatalf("first run: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
			}
			if diff := cmp.Diff([]string{"x:failed", "y:" + tt.y}, statuses(t, last)); diff != "" {
				t.Fatalf("first run's results (-want +got):\n%s", diff)
			}
			writeFiles(t, dir, map[string]string{"fixed": ""})

			args := append(append([]string{"run"}, tt.narrow...), "--rerun-failed", "last.json", "-o", tt.spelled, "-q")
			res = acprunEnv(t, dir, path, args...)
			if res.code != exitOK {
				t.Fatalf("narrower rerun: exit %d, want %d: what it ran passed\n%s", res.code, exitOK, res.stderr)
			}
			note := "1 scenario not selected, kept in " + tt.spelled + " for the next --rerun-failed: y (" + map[string]string{"failed": "failed", "interrupted": "not run"}[tt.y] + ")\n"
			if !strings.Contains(res.stderr, note) {
				t.Errorf("narrower rerun: stderr does not say %q:\n%s", note, res.stderr)
			}
			if !strings.Contains(res.stderr, "1 passed, 0 failed in ") {
				t.Errorf("narrower rerun: the totals are not of what it ran:\n%s", res.stderr)
			}
			if diff := cmp.Diff([]string{"x:passed", "y:" + tt.y}, statuses(t, last)); diff != "" {
				t.Errorf("narrower rerun's results (-want +got):\n%s", diff)
			}

			res = acprunEnv(t, dir, path, "run", ".", "--rerun-failed", "last.json", "-o", "last.json", "--allow-empty")
			if res.code != exitFailed || strings.Contains(res.stderr, "nothing to rerun") {
				t.Fatalf("next rerun: exit %d, want %d, y run again\n%s", res.code, exitFailed, res.stderr)
			}
			if strings.Contains(res.stderr, "kept in") {
				t.Errorf("next rerun: it says it kept something, with nothing left out:\n%s", res.stderr)
			}
			if diff := cmp.Diff([]string{"y:failed"}, statuses(t, last)); diff != "" {
				t.Errorf("next rerun's results (-want +got):\n%s", diff)
			}
		})
	}

	// -o another file: the rerun's results are its own, the file read is left as it was.
	t.Run("other file", func(t *testing.T) {
		t.Parallel()
		dir := realTempDir(t)
		rerunKeepSuite(t, dir)
		if res := acprunEnv(t, dir, path, "run", ".", "-o", "last.json", "-q"); res.code != exitFailed {
			t.Fatalf("first run: exit %d\n%s", res.code, res.stderr)
		}
		writeFiles(t, dir, map[string]string{"fixed": ""})
		res := acprunEnv(t, dir, path, "run", ".", "--rerun-failed", "last.json", "--run", "^x$", "-o", "again.json", "-q")
		if res.code != exitOK || strings.Contains(res.stderr, "kept in") {
			t.Errorf("rerun -o again.json: exit %d, want 0 and nothing kept\n%s", res.code, res.stderr)
		}
		if diff := cmp.Diff([]string{"x:passed"}, statuses(t, filepath.Join(dir, "again.json"))); diff != "" {
			t.Errorf("again.json (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"x:failed", "y:failed"}, statuses(t, filepath.Join(dir, "last.json"))); diff != "" {
			t.Errorf("last.json was changed (-want +got):\n%s", diff)
		}
	})
}
