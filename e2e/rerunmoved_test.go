package e2e_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRerunFailedAfterTheFileChanged: a and b failed; then a and b swap
// places in their file, and a narrowed rerun (--run a) replaces the
// results, keeping b's. a's new result is at the line b's kept one
// records: two scenarios' results, which the next --rerun-failed, merge
// and report read (they refused the file acprun had just written: "the
// same result … acprun writes each result once"), and the next rerun
// runs b.
func TestRerunFailedAfterTheFileChanged(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	scenario := func(name, want string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns:\n  - prompt: hi\n    expect: {text: {contains: " + want + "}}\n"
	}
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps:\n      - text: \"done\"\n",
		"s.yaml":      scenario("a", "nope") + "---\n" + scenario("b", "nope"),
	})
	if res := acprun(t, dir, "run", "s.yaml", "-o", "last.json", "-q"); res.code != exitFailed {
		t.Fatalf("first run: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	writeFiles(t, dir, map[string]string{"s.yaml": scenario("b", "nope") + "---\n" + scenario("a", "done")})
	if res := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "last.json", "--run", "^a$", "-o", "last.json", "-q"); res.code != 0 {
		t.Fatalf("rerun of a: exit %d, want 0\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"a:passed", "b:failed"}, statuses(t, filepath.Join(dir, "last.json"))); diff != "" {
		t.Errorf("the rerun's results (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"merge", "last.json", "-o", "all.json"}, exitFailed}, // b failed
		{[]string{"report", "last.json", "-o", "r.html"}, 0},
	} {
		if res := acprun(t, dir, tt.args...); res.code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s", tt.args[0], res.code, tt.code, res.stderr)
		}
	}
	res := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "last.json", "-o", "last.json")
	if res.code != exitFailed {
		t.Fatalf("next rerun: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	if diff := cmp.Diff([]string{"b:failed"}, statuses(t, filepath.Join(dir, "last.json"))); diff != "" {
		t.Errorf("the next rerun's results (-want +got):\n%s", diff)
	}
}
