package e2e_test

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestNoRetryOnceStoppedSaysSo: with --fail-fast=cancel and -j 3, an
// attempt that errored after the run had stopped is not retried, and its
// results and summary say why. FIFOs order it: b-crashes errors, a-fails
// fails while b-crashes is in its teardown, and c-waits, cancelled by the
// stop, lets that teardown end.
func TestNoRetryOnceStoppedSaysSo(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: a-fails
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {text: {contains: "yes"}}
---
name: b-crashes
agent: {command: [acprun, mock-agent, crash.mock.yaml]}
permissions: {default: deny}
retries: 2
teardown: ['cat c.fifo; echo > a.fifo; cat b.fifo']
turns:
  - prompt: hi
---
name: c-waits
agent: {command: [acprun, mock-agent, c.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
`,
		"a.mock.yaml":     "turns: [{steps: [{waitFor: a.fifo}, {text: \"no\"}]}]\n",
		"crash.mock.yaml": "turns: [{steps: [{exit: 3}]}]\n",
		"c.mock.yaml": "turns: [{onCancel: ignore, steps: [{writeFile: {path: c.fifo, content: in turn}}, {waitForCancel: true}, " +
			"{writeFile: {path: b.fifo, content: stopped}}]}]\n",
	})
	for _, name := range []string{"a.fifo", "b.fifo", "c.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, out := runResults(t, dir, "s.yaml", "-j", "3", "--fail-fast=cancel")
	if res.code != exitFailed {
		t.Errorf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	sc := scenarioNamed(t, out, "b-crashes")
	const warning = "not retried: the run stopped at its first failed scenario (--fail-fast)"
	if sc.Status != "error" || sc.Retried || !slices.Contains(sc.Warnings, warning) {
		t.Errorf("b-crashes: %s, retried %t, warnings %q; want one error, not retried, warning %q", sc.Status, sc.Retried, sc.Warnings, warning)
	}
	if !strings.Contains(res.stderr, "    warning: "+warning+"\n") {
		t.Errorf("the summary does not say why b-crashes was not retried:\n%s", res.stderr)
	}
}
