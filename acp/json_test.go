package acp_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
)

// TestDecodeParamsAsEncodingJSON: DecodeParams gives what encoding/json's
// Unmarshal gives, values and error texts alike (they reach the agent in
// -32602 answers and the results in violations).
func TestDecodeParamsAsEncodingJSON(t *testing.T) {
	for _, params := range []string{
		``,
		`null`,
		`{"sessionId":"s","path":"/a","line":3}`,
		`{"sessionId":"s","path":3}`,
		`{"sessionId":"s","path":"/a","line":"3"}`,
		`{"sessionId":"s","path":}`,
		`["s"]`,
		`{"sessionId":"s"} {}`,
		"{\"sessionId\":\"bad \xff\"}",
		`{"sessionId":"a","sessionId":"b","PATH":"/x"}`,
	} {
		var got, want acp.ReadTextFileRequest
		gotErr := (&acp.Request{Params: json.RawMessage(params)}).DecodeParams(&got)
		wantErr := json.Unmarshal([]byte(params), &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("DecodeParams(%q) (-encoding/json +got):\n%s", params, diff)
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("DecodeParams(%q) = %v; encoding/json says %v", params, gotErr, wantErr)
		}
	}
}

// TestOneJSONPath: the package encodes and decodes every message with the
// one JSON implementation its doc names; of encoding/json it uses the
// RawMessage type only, so that no message takes another path.
func TestOneJSONPath(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		std := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "encoding/json" {
				std = "json"
				if imp.Name != nil {
					std = imp.Name.Name
				}
			}
		}
		if std == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == std && sel.Sel.Name != "RawMessage" {
				t.Errorf("%s: encoding/json.%s: use jsonv1.%[2]s, the package's one JSON implementation", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
