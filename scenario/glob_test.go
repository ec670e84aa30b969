package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestGlobsChecked: every glob is checked when read, at its value: a
// permission rule's path, tool and title, a tool call pattern and a
// workspace's protect. Braces, empty ranges, ** within a segment and
// brackets where only * and ? are special are refused; a command pattern
// is a shell line as written, so its [ and { are accepted.
func TestGlobsChecked(t *testing.T) {
	const (
		braces = `{a,b} is not a glob here: write one pattern for each`
		class  = `[...] is not a glob here (only * and ? are): write one pattern for each, or ? for any one character`
	)
	dir := t.TempDir()
	src := `name: x
agent: {command: [a]}
permissions:
  deny:
    - path: "src/{a,b}/**"
    - path: ["{a,b", "**/[z-a]", "***"]
    - {tool: "[", title: "{Edit,Write}"}
    - command: ["rm [", "[ -f * ]", "mkdir {a,b}"]
workspace: {from: ., protect: ["tests/{a,b}"]}
turns:
  - prompt: hi
    expect: {toolCalls: {used: ["[", edit], notUsed: ["Bash{"]}}
`
	_, _, err := scenario.LoadBytes(dir+"/x.yaml", []byte(src), opts)
	f := dir + "/x.yaml:"
	want := []string{
		f + `5:13: bad pattern "src/{a,b}/**": ` + braces + ` (or [{] for a literal {)`,
		f + `6:14: bad pattern "{a,b": ` + braces + ` (or [{] for a literal {)`,
		f + `6:22: bad pattern "**/[z-a]": range z-a is empty, so [...] matches nothing: write a-z`,
		f + `6:34: bad pattern "***": ** matches any number of directories only as a whole segment (a/**/b): within a segment write *`,
		f + `7:14: bad pattern "[": ` + class,
		f + `7:26: bad pattern "{Edit,Write}": ` + braces,
		f + `9:32: bad pattern "tests/{a,b}": ` + braces + ` (or [{] for a literal {)`,
		f + `12:33: bad pattern "[": ` + class,
		f + `12:55: bad pattern "Bash{": ` + braces,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestGlobsShellNegationAndTrailingSlash: a class starting with ! (the
// shell's negation, a literal ! to path.Match) is refused wherever a path
// glob is written, at its value; a trailing / is refused in a permission
// rule's path (it would match the directory alone) and stands for the
// directory's tree in workspace.protect and files.unchanged.
func TestGlobsShellNegationAndTrailingSlash(t *testing.T) {
	dir := t.TempDir()
	src := `name: x
agent: {command: [a]}
permissions:
  default: allow
  deny: [{path: "keys/[!.]*"}, {path: "secrets/"}]
workspace: {from: ., protect: ["tests/", "[!a]x"]}
turns:
  - prompt: hi
    expect: {files: {unchanged: ["vendor/", "b/[!b]"]}}
`
	_, _, err := scenario.LoadBytes(dir+"/x.yaml", []byte(src), opts)
	f := dir + "/x.yaml:"
	const neg = `does not negate here, it matches "!" or any of the others: write `
	want := []string{
		f + `5:17: bad pattern "keys/[!.]*": [!.] ` + neg + `[^.] for any character but those (or [\!.] to match "!" too)`,
		f + `5:39: bad pattern "secrets/": a trailing / is dropped, so it matches the directory secrets alone, nothing in it: write secrets/** for the directory and everything in it (or secrets for the directory alone)`,
		f + `6:42: bad pattern "[!a]x": [!a] ` + neg + `[^a] for any character but those (or [\!a] to match "!" too)`,
		f + `9:45: bad pattern "b/[!b]": [!b] ` + neg + `[^b] for any character but those (or [\!b] to match "!" too)`,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
