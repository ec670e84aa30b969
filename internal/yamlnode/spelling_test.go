package yamlnode_test

import (
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// TestSpelling: a scalar as written, where that differs from its value:
// a ' doubled in single quotes, escapes in double quotes, lines folded (in quotes,
// plain or in a block scalar); "" where it reads as written. A copy of an
// alias is read where its anchor is; a value changed since it was read (a
// rendered template) has no spelling.
func TestSpelling(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"plain", "v: plain-secret\n", ""},
		{"single-quoted as written", "v: 'a secret'\n", ""},
		{"doubled quote", "v: 'it''s-a-secret'\n", "it''s-a-secret"},
		{"hex escape", `v: "Tr0ub4dor\x73-Horse"` + "\n", `Tr0ub4dor\x73-Horse`},
		{"escapes", `v: "a\u0073\U00000073\e\"\\b"` + "\n", `a\u0073\U00000073\e\"\\b`},
		{"in a flow mapping", `m: {v: "x\"y-secret", o: 1}` + "\n", `x\"y-secret`},
		{"anchor and tag", "v: &a !!str 'it''s-a-secret'\n", "it''s-a-secret"},
		{"quoted over lines", "v: \"first half\n  second half\"\n", "first half\n  second half"},
		{"plain over lines", "m: {v: first half\n  second half, o: 1}\n", "first half\n  second half"},
		{"folded", "v: >-  # note\n  folded\n  text\nw: 1\n", "folded\n  text"},
		{"literal", "v: |\n  lit\n  eral\nw: 1\n", "lit\n  eral"},
		{"CRLF", "v: 'it''s-a-secret'\r\nw: 1\r\n", "it''s-a-secret"},
		{"after a BOM", "\ufeffv: \"\\x41BCD\"\n", `\x41BCD`},
		{"non-ASCII before it", "m: {é: ü, v: 'it''s'}\n", "it''s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &yamlnode.Reader{Src: []byte(tt.src)}
			v := valueOf(t, r, "v")
			if got := r.Spelling(v); got != tt.want {
				t.Errorf("Spelling of %q in %q = %q, want %q", v.Value, tt.src, got, tt.want)
			}
		})
	}

	r := &yamlnode.Reader{Src: []byte("a: &x \"s\\x65cret-value\"\nv: *x\n")}
	if got, want := r.Spelling(valueOf(t, r, "v")), `s\x65cret-value`; got != want {
		t.Errorf("Spelling of a copy of an alias = %q, want %q (at its anchor)", got, want)
	}
	r = &yamlnode.Reader{Src: []byte("v: 'it''s {{.x}}'\n")}
	v := valueOf(t, r, "v")
	v.Value = "it's rendered"
	if got := r.Spelling(v); got != "" {
		t.Errorf("Spelling of a changed value = %q, want \"\"", got)
	}
}

// valueOf returns the value of key in the top mapping of r's source
// (v in {m: {v: …}} too), its aliases expanded.
func valueOf(t *testing.T, r *yamlnode.Reader, key string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(r.Src, &doc); err != nil {
		t.Fatal(err)
	}
	r.ExpandAliases(&doc)
	m := doc.Content[0]
	if m.Content[0].Value == "m" {
		m = m.Content[1]
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	t.Fatalf("no %s in %q", key, r.Src)
	return nil
}
