package e2e_test

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSandboxAttachedHiddenFile: a file a prompt attaches under a path the
// sandbox hides is served to fs/read_text_file, read-only, whether it lies
// in the client's roots (the session cwd holds it) or outside them (the
// agent works in a workspace); another file in the hidden path is refused
// either way, and so is a write to the attached file.
func TestSandboxAttachedHiddenFile(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	brief, other := filepath.Join(dir, "private", "brief.md"), filepath.Join(dir, "private", "other.md")
	writeFiles(t, dir, map[string]string{
		"private/brief.md": "BRIEF\n",
		"private/other.md": "OTHER-SECRET\n",
		"src/a.txt":        "x\n",
		"a.mock.yaml": "turns:\n  - steps:\n      - read: {path: " + brief + "}\n      - read: {path: " + other + "}\n" +
			"      - write: {path: " + brief + ", content: pwned}\n",
		"s.yaml": `name: in-roots
agent: {command: [acprun, mock-agent, a.mock.yaml]}
client: {fs: true}
sandbox: {hide: [./private]}
permissions: {default: allow}
turns:
  - prompt: [{text: read the brief}, {file: ./private/brief.md}]
    expect: {text: {contains: "read: BRIEF"}}
---
name: outside-roots
agent: {command: [acprun, mock-agent, a.mock.yaml]}
workspace: {from: ./src}
client: {fs: true}
sandbox: {hide: [./private]}
permissions: {default: allow}
turns:
  - prompt: [{text: read the brief}, {file: ./private/brief.md}]
    expect: {text: {contains: "read: BRIEF"}}
`,
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	if res.code != exitOK {
		t.Errorf("exit %d; want 0\n%s", res.code, res.stderr)
	}
	for _, sc := range out.Scenarios {
		tr := sc.Turns[0]
		if strings.Contains(tr.Text, "OTHER-SECRET") {
			t.Errorf("%s: the other hidden file leaked: %q", sc.Name, tr.Text)
		}
		var got []string
		for _, r := range tr.ClientRequests {
			got = append(got, r.Method+" "+r.Path+": "+r.Refused)
		}
		hiddenOrOutside := " is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)"
		if sc.Name == "outside-roots" {
			hiddenOrOutside = " is outside the allowed roots (" + sc.Workspace.Path + ")"
		}
		want := []string{
			"fs/read_text_file " + brief + ": ",
			"fs/read_text_file " + other + ": " + other + hiddenOrOutside,
			"fs/write_text_file " + brief + ": " + brief + hiddenOrOutside,
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: requests:\n%s\nwant:\n%s", sc.Name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if b, err := os.ReadFile(brief); err != nil || string(b) != "BRIEF\n" {
		t.Errorf("private/brief.md = %q, %v; want it unchanged", b, err)
	}
}

// TestClientNotAFile: reading a UNIX socket is refused as not a regular
// file, as writing it is, and a symlink loop is named as one: the agent's
// bad params (-32602), not an internal error with the system's message.
func TestClientNotAFile(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	ws := filepath.Join(dir, "ws")
	writeFiles(t, dir, map[string]string{
		"ws/a.txt": "x\n",
		"m.mock.yaml": `turns:
  - steps:
      - read: {path: sock}
      - write: {path: sock, content: x}
      - read: {path: loop}
      - write: {path: loop/x.txt, content: x}
`,
		"s.yaml": "name: sock\nagent: {command: [acprun, mock-agent, ../m.mock.yaml], cwd: ./ws}\nclient: {fs: true}\n" +
			"permissions: {default: allow}\nturns: [{prompt: go}]\n",
	})
	sock := filepath.Join(ws, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Symlink("loop", filepath.Join(ws, "loop")); err != nil {
		t.Fatal(err)
	}
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Errorf("exit %d; want 0\n%s", res.code, res.stderr)
	}
	tr := out.Scenarios[0].Turns[0]
	var got []string
	for _, r := range tr.ClientRequests {
		got = append(got, r.Method+": "+r.Error)
	}
	loop := filepath.Join(ws, "loop")
	want := []string{
		"fs/read_text_file: " + sock + " is not a regular file",
		"fs/write_text_file: " + sock + " is not a regular file",
		"fs/read_text_file: " + loop + ": too many levels of symbolic links (a symlink loop?)",
		"fs/write_text_file: " + loop + "/x.txt: too many levels of symbolic links (a symlink loop?)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Count(tr.Text, "(-32602)") != len(want) {
		t.Errorf("the agent was told %q; want every error -32602", tr.Text)
	}
}
