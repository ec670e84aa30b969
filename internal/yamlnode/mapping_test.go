package yamlnode_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// parse returns the first node of src's document.
func parse(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	return doc.Content[0]
}

// show renders what Pairs returned: "key=value@line:col" for pairs and
// "kind@line:col" for problems.
func show(pairs []yamlnode.Pair, probs []yamlnode.Problem, ok bool) []string {
	out := []string{fmt.Sprint("ok=", ok)}
	for _, kv := range pairs {
		out = append(out, fmt.Sprintf("%s=%s@%d:%d", kv.Key, yamlnode.Deref(kv.V).Value, kv.K.Line, kv.K.Column))
	}
	names := map[yamlnode.Kind]string{
		yamlnode.NotMapping: "not a mapping", yamlnode.KeyNotName: "key not a name", yamlnode.DuplicateKey: "duplicate",
		yamlnode.MergeKey: "merge key", yamlnode.BadMerge: "bad merge", yamlnode.MergeTooMuch: "too much merging",
	}
	for _, pr := range probs {
		s := fmt.Sprintf("%s@%d:%d", names[pr.Kind], pr.Node.Line, pr.Node.Column)
		if pr.First != nil {
			s += fmt.Sprintf(" first@%d", pr.First.Line)
		}
		out = append(out, s)
	}
	return out
}

func TestPairs(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "keys in order",
			src:  "b: 1\na: 2\n",
			want: []string{"ok=true", "b=1@1:1", "a=2@2:1"},
		},
		{
			name: "not a mapping",
			src:  "- a\n",
			want: []string{"ok=false", "not a mapping@1:1"},
		},
		{
			name: "alias to a mapping",
			src:  "x: &m {a: 1}\ny: *m\n",
			want: []string{"ok=true", "x=@1:1", "y=@2:1"},
		},
		{
			name: "key that is not a name, and a duplicate",
			src:  "a: 1\n[k]: 2\na: 3\nb: 4\n",
			want: []string{"ok=true", "a=1@1:1", "b=4@4:1", "key not a name@2:1", "duplicate@3:1 first@1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := show(yamlnode.Pairs(parse(t, tt.src), yamlnode.Options{}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Pairs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMerge reads the mapping under the key m of each source.
func TestMerge(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		merge bool
		want  []string
	}{
		{
			name: "refused",
			src:  "base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n",
			want: []string{"ok=true", "y=2@4:3", "merge key@3:3"},
		},
		{
			name:  "own keys first and winning",
			src:   "base: &b {x: 1, y: 1}\nm:\n  <<: *b\n  y: 2\n",
			merge: true,
			want:  []string{"ok=true", "y=2@4:3", "x=1@1:11"},
		},
		{
			name:  "a list of mappings, the first winning",
			src:   "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nm:\n  <<: [*a, *b]\n",
			merge: true,
			want:  []string{"ok=true", "x=1@1:8", "z=3@2:14"},
		},
		{
			name:  "nested merges",
			src:   "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nm: {<<: *b}\n",
			merge: true,
			want:  []string{"ok=true", "y=2@2:16", "x=1@1:8"},
		},
		{
			name:  "a merge of a scalar, and of a list with a scalar",
			src:   "m:\n  <<: 3\n  k: {<<: [x]}\n",
			merge: true,
			want:  []string{"ok=true", "k=@3:3", "bad merge@2:7"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := parse(t, tt.src)
			var m *yaml.Node
			for i := 0; i+1 < len(root.Content); i += 2 {
				if root.Content[i].Value == "m" {
					m = root.Content[i+1]
				}
			}
			got := show(yamlnode.Pairs(m, yamlnode.Options{Merge: tt.merge}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Pairs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeBomb: merges that multiply through aliases are cut short with
// one problem instead of eating time and memory.
func TestMergeBomb(t *testing.T) {
	var src strings.Builder
	src.WriteString("a0: &a0 {k: 1}\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&src, "a%d: &a%d {<<: [*a%d, *a%d, *a%d]}\n", i, i, i-1, i-1, i-1)
	}
	src.WriteString("m: {<<: *a30}\n")
	root := parse(t, src.String())
	_, probs, ok := yamlnode.Pairs(root.Content[len(root.Content)-1], yamlnode.Options{Merge: true})
	if !ok || len(probs) != 1 || probs[0].Kind != yamlnode.MergeTooMuch {
		t.Errorf("Pairs = %v, %v; want one MergeTooMuch problem", probs, ok)
	}
}
