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
