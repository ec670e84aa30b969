package textfind

import (
	"regexp"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestFinder: what a Finder finds in a stream written in parts is what
// strings.Contains and MatchString find in the whole of it, wherever the
// parts are cut, however long the stream, and once the pattern is decided
// the rest is taken without blocking.
func TestFinder(t *testing.T) {
	long := strings.Repeat("a", 20<<10) // five times a bufio.Reader's buffer
	tests := []struct {
		name    string
		writes  []string
		texts   []string
		pattern string
	}{
		{"nothing written", nil, []string{"", "x"}, `^$`},
		{"a text cut in two", []string{"…MAR", "KER-START…"}, []string{"MARKER-START", "MARKER-END"}, ``},
		{"a text cut in four", []string{"xa", "b", "c", "dx"}, []string{"abcd", "xabcdx", "abcde"}, ``},
		{"at the start of a long stream", []string{"MARKER-START\n", long, long, "\n"}, []string{"MARKER-START", "START\na"}, `^MARKER`},
		{"not anchored at a line", []string{"x\n", "ok pkg\n", long}, nil, `^ok`},
		{"a line, with (?m)", []string{long, "\nok pkg\n", long}, nil, `(?m)^ok\s+pkg$`},
		{"the end of the stream", []string{long, "summary: 3 passed"}, []string{"3 passed"}, `passed$`},
		{"not the end of the stream", []string{long, "summary: 3 passed\n"}, nil, `passed$`},
		{"across the parts", []string{"BEGIN", long, "END"}, nil, `(?s)BEGIN.*END`},
		{"decided, then a long rest", []string{"M", long, long, long}, nil, `^M`},
		{"invalid UTF-8", []string{"\xff\xfe", "é"}, []string{"\xfe\xc3", "é"}, `^\x{FFFD}\x{FFFD}é$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res []*regexp.Regexp
			if tt.pattern != "" {
				// The pattern twice: each pattern has its own matcher.
				res = []*regexp.Regexp{regexp.MustCompile(tt.pattern), regexp.MustCompile(`(?s)\A.*` + tt.pattern)}
			}
			f := New(tt.texts, res)
			for _, w := range tt.writes {
				if n, err := f.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%d bytes) = %d, %v; want %d, nil", len(w), n, err, len(w))
				}
			}
			found, matched := f.Close()
			whole := strings.Join(tt.writes, "")
			want := make([]bool, len(tt.texts))
			for i, s := range tt.texts {
				want[i] = strings.Contains(whole, s)
			}
			if diff := cmp.Diff(want, found); diff != "" {
				t.Errorf("found (-want +got):\n%s", diff)
			}
			want = nil
			for _, re := range res {
				want = append(want, re.MatchString(whole))
			}
			if diff := cmp.Diff(want, matched, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("matched (-want MatchString of the whole +got):\n%s", diff)
			}
		})
	}
}
