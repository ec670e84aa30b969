package yamlnode_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/yamlnode"
)

// read decodes src's first document and expands its aliases.
func read(t *testing.T, src string) (*yamlnode.Reader, *yaml.Node) {
	t.Helper()
	r := &yamlnode.Reader{Name: "s.yaml", Src: []byte(src)}
	var doc yaml.Node
	if err := yaml.Unmarshal(r.Src, &doc); err != nil {
		t.Fatal(err)
	}
	r.ExpandAliases(&doc)
	return r, doc.Content[0]
}

// placed lists n and what is under it as value@line:col, with where a
// copy is written: value@line:col<&anchor@line:col.
func placed(r *yamlnode.Reader, n *yaml.Node) []string {
	s := fmt.Sprintf("%s@%d:%d", n.Value, n.Line, n.Column)
	if n.Kind == yaml.AliasNode {
		s = "*" + s
	}
	if o := r.Origin(n); o != (srcerr.Origin{}) {
		s += fmt.Sprintf("<&%s@%d:%d", o.Anchor, o.Line, o.Col)
	}
	out := []string{s}
	for _, c := range n.Content {
		out = append(out, placed(r, c)...)
	}
	return out
}

// TestExpandAliases: an alias becomes a copy of what it stands for, every
// node of it at the alias and written where the anchor's node is; an
// alias inside the anchor is copied too, at the same outer alias; the
// anchor's own nodes are left as they are.
func TestExpandAliases(t *testing.T) {
	r, root := read(t, "a: &t x\nb: &m {k: *t}\nc: [*m, *t]\n")
	want := []string{
		"@1:1", "a@1:1", "x@1:4",
		"b@2:1", "@2:4", "k@2:8", "x@2:11<&t@1:4", // b's own alias, expanded in place
		"c@3:1", "@3:4",
		"@3:5<&m@2:4", "k@3:5<&m@2:8", "x@3:5<&t@1:4", // the copy of m, its alias's copy inside
		"x@3:9<&t@1:4",
	}
	if diff := cmp.Diff(want, placed(r, root)); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	// A problem at a copy is at the alias and says where it is written.
	r.Errorf(root.Content[5].Content[0].Content[0], "bad %s", "k")
	if got, want := r.Errs[0].Error(), "s.yaml:3:5: bad k (written at line 2, column 8, in the anchor &m)"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	if got, want := r.Errs[0].Source, "c: [*m, *t]"; got != want {
		t.Errorf("source line = %q, want the alias's %q", got, want)
	}
}

// TestExpandAliasesInsideTheirValue: an alias inside the value it stands
// for is an error at the alias, which then stands for an empty value.
func TestExpandAliasesInsideTheirValue(t *testing.T) {
	r, root := read(t, "a: &t {b: [1, {c: *t}]}\n")
	if len(r.Errs) != 1 || !strings.HasPrefix(r.Errs[0].Error(), "s.yaml:1:19: the alias *t is inside the value it stands for (&t, at line 1, column 4)") {
		t.Fatalf("errors = %v, want one at the alias", r.Errs)
	}
	c := root.Content[1].Content[1].Content[1].Content[1]
	if c.Kind != yaml.MappingNode || len(c.Content) != 0 || c.Line != 1 || c.Column != 19 {
		t.Errorf("the alias became %v (%d items) at %d:%d, want an empty mapping at 1:19", c.Kind, len(c.Content), c.Line, c.Column)
	}
}

// TestExpandAliasesBomb: aliases that multiply are copied up to a bound;
// past it the aliases are kept (Deref follows them), so that expanding
// costs neither time nor memory without bound.
func TestExpandAliasesBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s*l%d]\n", i, i, strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 9), i-1)
	}
	b.WriteString("small: &s y\nlast: *s\n")
	_, root := read(t, b.String())
	aliases := 0
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.AliasNode {
			aliases++
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	if aliases == 0 {
		t.Error("every alias of the bomb expanded")
	}
	if last := root.Content[len(root.Content)-1]; last.Kind != yaml.AliasNode || yamlnode.Deref(last).Value != "y" {
		t.Errorf("an alias after the bound: %+v, want it kept, standing for y", last)
	}
}

// TestCopied: a copy of a copy made after ExpandAliases is written where
// the first is; a copy of a node written where it is stays without an
// origin.
func TestCopied(t *testing.T) {
	r, root := read(t, "a: &t x\nb: *t\n")
	for _, n := range []*yaml.Node{root.Content[1], root.Content[3]} {
		c := *n
		r.Copied(&c, n)
		if got, want := r.Origin(&c), r.Origin(n); got != want {
			t.Errorf("copy of %s@%d:%d has origin %+v, want %+v", n.Value, n.Line, n.Column, got, want)
		}
	}
}

// TestSource: Source leads from a copy (of a copy) back to the node read,
// whose value is the one written, in the Reader that recorded it and in
// those Again made before or after; a node that is no copy is its own,
// an alias the node it stands for.
func TestSource(t *testing.T) {
	r, root := read(t, "a: &t \"x{{.v}}\"\nb: *t\nc: y\n")
	n := root.Content[1]
	before := r.Again()
	c := *n
	c.Value = "x1"
	r.Copied(&c, n)
	cc := c
	before.Copied(&cc, &c)
	after := r.Again()
	for name, rd := range map[string]*yamlnode.Reader{"r": r, "before": &before, "after": &after} {
		if got := rd.Source(&cc); got != n {
			t.Errorf("%s: Source of a copy of a copy = %+v, want the node read, %q", name, got, n.Value)
		}
	}
	if got := r.Source(root.Content[5]); got != root.Content[5] {
		t.Errorf("Source of a node read = %+v, want itself", got)
	}
	alias := &yaml.Node{Kind: yaml.AliasNode, Alias: n}
	if got := r.Source(alias); got != n {
		t.Errorf("Source of an alias = %+v, want what it stands for", got)
	}
}

// TestReported: a problem at a node Reported marked, or at a copy made of
// it, is not recorded, in the Reader that marked it and in those Again
// made before or after; other nodes' problems are.
func TestReported(t *testing.T) {
	r, root := read(t, "a: \"{{.nope}}\"\nb: 5q\n")
	n := root.Content[1]
	before := r.Again()
	r.Reported(n)
	after := r.Again()
	c := *n
	before.Copied(&c, n)
	for name, rd := range map[string]*yamlnode.Reader{"r": r, "before": &before, "after": &after} {
		rd.Errorf(n, "bad duration")
		rd.Errorf(&c, "bad duration")
		rd.Errorf(root.Content[3], "bad duration")
		if len(rd.Errs) != 1 || rd.Errs[0].Line != 2 {
			t.Errorf("%s: errors %v, want the one at line 2 alone", name, rd.Errs)
		}
	}
}

// TestAgain: a Reader made to read a file's nodes again knows where the
// copies in them are written, without the problems found before.
func TestAgain(t *testing.T) {
	r, root := read(t, "a: &t x\nb: *t\n")
	r.Errorf(nil, "first")
	again := r.Again()
	if len(again.Errs) != 0 {
		t.Errorf("Again has the problems %v", again.Errs)
	}
	again.Errorf(root.Content[3], "bad")
	if got, want := again.Errs[0].Error(), "s.yaml:2:4: bad (written at line 1, column 4, in the anchor &t)"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}

// TestExpandAliasesRefusesUnknownTags: a tag that is not one of YAML's
// own (a local !include or !env, !!binary, a full tag URI) is an error at
// the tag, once however many aliases repeat it, on a key, a scalar, a
// mapping or a list; YAML's own tags and the non-specific "!" are not.
func TestExpandAliasesRefusesUnknownTags(t *testing.T) {
	r, _ := read(t, `ok: [!!str 12, !!int "3", !!float 1, !!bool "true", !!null "", !!map {}, !!seq [], ! x]
prompt: !include prompt.md
env: {K: !env HOME, !k key: v}
bin: !!binary aGVsbG8=
m: &m !foo {x: 1}
s: !bar [1]
uri: !<tag:example.com,2000:x> y
again: [*m, *m]
`)
	var got []string
	for _, e := range r.Errs {
		got = append(got, fmt.Sprintf("%d:%d %s", e.Line, e.Col, strings.SplitN(e.Msg, ": ", 2)[0]))
	}
	want := []string{
		"2:9 unknown YAML tag !include",
		"3:10 unknown YAML tag !env",
		"3:21 unknown YAML tag !k",
		"4:6 unknown YAML tag !!binary",
		"5:4 unknown YAML tag !foo", // at its anchor, where the node starts
		"6:4 unknown YAML tag !bar",
		"7:6 unknown YAML tag tag:example.com,2000:x",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	const hint = `acprun reads only YAML's own tags (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq); write the value without it: "${VAR}" for an environment variable (where acprun expands them), prompt: [{file: PATH}] for a prompt's text from a file`
	if len(r.Errs) == 0 || r.Errs[0].Msg != "unknown YAML tag !include: "+hint {
		t.Errorf("first error = %v, want it to say what to write instead: %s", r.Errs, hint)
	}
}
