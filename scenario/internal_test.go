package scenario

import (
	"testing"

	"github.com/acprun/acprun/approve"
	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "a", "E": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		in, want string
		probs    []problem
	}{
		{"plain", "plain", nil},
		{"${A}-${A:-x}-${E:-d}-${U:-u}-${E}", "a-a-d-u-", nil},
		{"$$A $A $ $$ $", "$A $A $ $ $", nil},
		{"$${A}", "${A}", nil},
		{"x${U}y", "xy", []problem{{1, "environment variable U is not set (write ${U:-default} to give a default)", true}}},
		{"${A-b}", "", []problem{{0, `bad variable reference "${A-b}": use ${NAME} or ${NAME:-default}`, false}}},
		{"ab${A", "ab${A", []problem{{2, `unterminated variable reference "${A": missing }`, false}}},
		{"${:-x}", "", []problem{{0, `bad variable reference "${:-x}": use ${NAME} or ${NAME:-default}`, false}}},
		{"${A:-x$B}", "a", nil},   // defaults are literal: $B is not expanded
		{"${U:-x$B}", "x$B", nil}, // nor here
		// a reference inside a default is an error (a shell would expand it),
		// at its ${, whether or not the default is needed
		{"${A:-${B}}", "}", []problem{{5, "${ inside the default of ${A:-…}: a default is taken literally, not expanded: write the value itself", false}}},
		{"x ${U:-${V:-deep}}", "x }", []problem{{7, "${ inside the default of ${U:-…}: a default is taken literally, not expanded: write the value itself", false}}},
	}
	for _, tt := range tests {
		got, probs := expand(tt.in, lookup)
		if got != tt.want {
			t.Errorf("expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if diff := cmp.Diff(tt.probs, probs, cmp.AllowUnexported(problem{})); diff != "" {
			t.Errorf("expand(%q) problems (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestSplitCommandOffsets(t *testing.T) {
	words, offs, prob := splitCommand(`a 'b c'  "d\"e"`)
	if prob != nil {
		t.Fatalf("splitCommand: %v", prob.msg)
	}
	if diff := cmp.Diff([]string{"a", "b c", `d"e`}, words); diff != "" {
		t.Errorf("words (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]int{{0}, {3, 4, 5}, {10, 12, 13}}, offs); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`a 'b`, `a "b\"`} {
		if _, _, prob := splitCommand(bad); prob == nil {
			t.Errorf("splitCommand(%q) gave no problem", bad)
		}
	}
}

// TestGlobSegments: the segments after a glob's plain start match as a
// rule's path matcher matches them, ** crossing directories.
func TestGlobSegments(t *testing.T) {
	tests := []struct {
		pat, path string
		want      bool
	}{
		{"**/*.yaml", "a.yaml", true},
		{"**/*.yaml", "x/y/a.yaml", true},
		{"x/**", "x/y/z", true},
		{"x/**/z", "x/z", true},
		{"x/**/z", "x/a/b/z", true},
		{"x/**/z", "x/a/b/c", false},
		{"*.yaml", "x/a.yaml", false},
	}
	for _, tt := range tests {
		if got := approve.MatchPath(tt.pat, tt.path); got != tt.want {
			t.Errorf("MatchPath(%q, %q) = %v, want %v", tt.pat, tt.path, got, tt.want)
		}
	}
}

// TestWellKnownTargetsAgree: the built-in agents that read the same
// base-URL variable (codex and qwen OPENAI_BASE_URL) give it the same
// upstream and key, so that wellKnownTarget may take any agent's.
func TestWellKnownTargetsAgree(t *testing.T) {
	seen := map[string]GatewayTarget{}
	for _, b := range builtinAgents {
		for _, k := range b.gateway {
			if k.JSONPath != nil {
				continue
			}
			if first, ok := seen[k.Env]; ok && (first.Upstream != k.Upstream || first.KeyEnv != k.KeyEnv) {
				t.Errorf("%s: %s is %+v, another agent's is %+v", b.name, k.Env, k, first)
			}
			seen[k.Env] = k
		}
	}
}
