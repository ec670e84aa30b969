package e2e_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestFilesLargeFile: files.golden, contains and matches check a file of
// any size, in memory that does not grow with it: a 64 MiB file (more
// than the 16 MiB they once refused) that the agent left identical to its
// golden file passes them all, one whose golden file differs in a byte
// fails with a message that says where and quotes a line's beginning, not
// the file, and acprun's peak memory stays below half the file's size.
// Built without the race detector, whose memory would count.
func TestFilesLargeFile(t *testing.T) {
	t.Parallel()
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	line := strings.Repeat("x", 1023) + "\n"
	content := strings.Repeat(line, 64<<10) + "the end"
	bad := []byte(content)
	bad[48<<20+10] = 'y' // line 49153, column 11
	const head = `agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: fixture}
permissions: {default: allow}
turns:
  - prompt: go
    expect:
      files:
`
	pass := "name: pass\n" + head + `        golden: {out.txt: golden/out.txt}
        contains: {out.txt: "x\nthe end"}
        matches: {out.txt: '^x+\n'}
`
	fail := "name: fail\n" + head + `        golden: {out.txt: golden/bad.txt}
        contains: {out.txt: nowhere}
`
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
		"fixture/out.txt": content,
		"golden/out.txt":  content,
		"golden/bad.txt":  string(bad),
		"pass.yaml":       pass,
		"fail.yaml":       fail,
	})
	if res := acprun(t, dir, "validate", "--strict", "."); res.code != exitOK {
		t.Fatalf("acprun validate --strict: exit %d\n%s", res.code, res.stderr)
	}
	res, peak := runMeasured(t, bin, dir, "run", ".", "-o", "out.json")
	if res.code != exitFailed {
		t.Errorf("acprun run: exit %d, want %d (one scenario fails)\n%s", res.code, exitFailed, res.stderr)
	}
	got := byName(t, readResults(t, dir+"/out.json"))
	if r := got["pass"]; r.Status != report.StatusPassed {
		t.Errorf("pass: status %s, want passed (failures %q, error %q)", r.Status, r.Failures, r.Error)
	}
	x := strings.Repeat("x", 60)
	checkFailures(t, "fail.yaml", fail, got["fail"].Failures, []wantFailure{
		{1, "golden: {out.txt: «golden/bad.txt}", `files.golden: "out.txt" differs from {ANY}golden/bad.txt: 67108871 bytes, golden 67108871 bytes; first difference at byte 50331659, line 49153: "` + x + `…", golden "` + x[:10] + "y" + x[11:] + `…"`},
		{1, "contains: {out.txt: «nowhere}", `files.contains: "out.txt" does not contain "nowhere" (67108871 bytes, first line "` + x + `…")`},
	})
	if limit := int64(len(content) / 2); peak > limit {
		t.Errorf("acprun run's peak resident memory %d MiB, want at most %d MiB (the file is %d MiB)", peak>>20, limit>>20, len(content)>>20)
	}
}
