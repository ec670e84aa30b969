package srcerr_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/srcerr"
)

func TestError(t *testing.T) {
	tests := []struct {
		e    srcerr.Error
		want string
	}{
		{srcerr.Error{File: "s.yaml", Line: 4, Col: 14, Msg: "bad"}, "s.yaml:4:14: bad"},
		{srcerr.Error{File: "t.jsonl", Line: 3, Msg: "bad"}, "t.jsonl:3: bad"},
		{srcerr.Error{File: "s.yaml", Msg: "no such file"}, "s.yaml: no such file"},
		{srcerr.Error{File: "s.yaml", Line: 12, Col: 14, Msg: "bad", Origin: srcerr.Origin{Anchor: "t", Line: 3, Col: 9}},
			"s.yaml:12:14: bad (written at line 3, column 9, in the anchor &t)"},
		{srcerr.Error{File: "s/\x1b]0;t\a.yaml", Line: 2, Col: 1, Msg: "bad"}, `s/\x1b]0;t\x07.yaml:2:1: bad`},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%+v.Error() = %q, want %q", tt.e, got, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	errs := []*srcerr.Error{
		{File: "b", Line: 1, Col: 1}, {File: "a", Line: 2, Col: 1}, {File: "a", Line: 1, Col: 9},
		{File: "a", Line: 1, Col: 2}, {File: "a"},
	}
	slices.SortStableFunc(errs, srcerr.Compare)
	var got []string
	for _, e := range errs {
		got = append(got, fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col))
	}
	if want := []string{"a:0:0", "a:1:2", "a:1:9", "a:2:1", "b:1:1"}; !cmp.Equal(got, want) {
		t.Errorf("sorted = %q, want %q", got, want)
	}
}

// TestPrint: each error joined is on its own line, a positioned one
// followed by its source line and caret; an error that wraps positioned
// ones in more context is printed as its text alone.
//
// With a redactor, an error's file, message and source line are redacted,
// and any other error's text, "file:line:col:" left as it is; the caret
// stays under the character it was under in the redacted line (a tab
// after a secret included), under the Marker of a secret that character
// was in, and past the end of a line when it was.
func TestPrint(t *testing.T) {
	first := &srcerr.Error{File: "s.yaml", Line: 2, Col: 3, Msg: "bad key", Source: "  promt: hi"}
	second := &srcerr.Error{File: "s.yaml", Line: 5, Col: 1, Msg: "no source"}
	whole := &srcerr.Error{File: "s.yaml", Msg: "no scenario in file", Source: "ignored"}
	const secret = "supersecretvalue123"
	red := redact.New(secret)
	tests := []struct {
		name string
		red  *redact.Redactor
		err  error
		want string
	}{
		{
			name: "one",
			err:  first,
			want: "s.yaml:2:3: bad key\n    2 |   promt: hi\n      |   ^\n",
		},
		{
			name: "joined",
			err:  errors.Join(first, second, whole, errors.New("plain")),
			want: "s.yaml:2:3: bad key\n    2 |   promt: hi\n      |   ^\n" +
				"s.yaml:5:1: no source\n" +
				"s.yaml: no scenario in file\n" +
				"plain\n",
		},
		{
			name: "wrapped in context",
			err:  fmt.Errorf("loading: %w", first),
			want: "loading: s.yaml:2:3: bad key\n",
		},
		{
			red:  red,
			name: "message and file",
			err:  &srcerr.Error{File: secret + ".mock.yaml", Line: 3, Col: 18, Msg: "workspace /tmp/x:" + secret + "@h does not exist", Source: `workspace: {git: "${TOKEN}"}`},
			want: "[REDACTED].mock.yaml:3:18: workspace /tmp/x:[REDACTED]@h does not exist\n" +
				`    3 | workspace: {git: "${TOKEN}"}` + "\n" +
				"      |                  ^\n",
		},
		{
			red:  red,
			name: "secret before the column",
			err:  &srcerr.Error{File: "s.yaml", Line: 2, Col: 31, Msg: "bad", Source: "env: {A: " + secret + ", B: x}"},
			want: "s.yaml:2:31: bad\n" +
				"    2 | env: {A: [REDACTED], B: x}\n" +
				"      |                      ^\n",
		},
		{
			red:  red,
			name: "column inside the secret",
			err:  &srcerr.Error{File: "s.yaml", Line: 2, Col: 15, Msg: "bad", Source: "env: {A: " + secret + ", B: x}"},
			want: "s.yaml:2:15: bad\n" +
				"    2 | env: {A: [REDACTED], B: x}\n" +
				"      |          ^\n",
		},
		{
			red:  red,
			name: "tab after the secret",
			err:  &srcerr.Error{File: "s.yaml", Line: 1, Col: 24, Msg: "bad", Source: "a: " + secret + "\tb"},
			want: "s.yaml:1:24: bad\n" +
				"    1 | a: [REDACTED]   b\n" +
				"      |                 ^\n",
		},
		{
			red:  red,
			name: "column past the end",
			err:  &srcerr.Error{File: "s.yaml", Line: 1, Col: 26, Msg: "bad", Source: "a: " + secret},
			want: "s.yaml:1:26: bad\n" +
				"    1 | a: [REDACTED]\n" +
				"      |              ^\n",
		},
		{
			red:  red,
			name: "wide characters before the secret",
			err:  &srcerr.Error{File: "s.yaml", Line: 1, Col: 25, Msg: "bad", Source: "名前: " + secret + " x"},
			want: "s.yaml:1:25: bad\n" +
				"    1 | 名前: [REDACTED] x\n" +
				"      |                  ^\n",
		},
		{
			red:  red,
			name: "joined and wrapped",
			err:  errors.Join(fmt.Errorf("--agent a: %w", &srcerr.Error{File: "acprun.yaml", Line: 2, Col: 5, Msg: "cwd " + secret}), errors.New("plain "+secret)),
			want: "--agent a: acprun.yaml:2:5: cwd [REDACTED]\nplain [REDACTED]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			srcerr.Print(&b, tt.err, tt.red)
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("Print (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAtOffset: an offset is said as its line and column (in characters,
// from 1) with the text of its line; an offset past either end is at
// that end, an offset inside a character at that character.
func TestAtOffset(t *testing.T) {
	data := []byte("{\r\n  \"é\": x\r\n}\n名\xff\xe2\x82")
	tests := []struct {
		off  int
		want srcerr.Error
	}{
		{0, srcerr.Error{File: "f", Line: 1, Col: 1, Msg: "m", Source: "{"}},
		{11, srcerr.Error{File: "f", Line: 2, Col: 8, Msg: "m", Source: `  "é": x`}},
		{3, srcerr.Error{File: "f", Line: 2, Col: 1, Msg: "m", Source: `  "é": x`}},
		{-5, srcerr.Error{File: "f", Line: 1, Col: 1, Msg: "m", Source: "{"}},
		{6, srcerr.Error{File: "f", Line: 2, Col: 4, Msg: "m", Source: `  "é": x`}},
		{7, srcerr.Error{File: "f", Line: 2, Col: 4, Msg: "m", Source: `  "é": x`}},
		{8, srcerr.Error{File: "f", Line: 2, Col: 5, Msg: "m", Source: `  "é": x`}},
		{15, srcerr.Error{File: "f", Line: 3, Col: 2, Msg: "m", Source: "}"}},
		{17, srcerr.Error{File: "f", Line: 4, Col: 1, Msg: "m", Source: "名\xff\xe2\x82"}},
		{18, srcerr.Error{File: "f", Line: 4, Col: 1, Msg: "m", Source: "名\xff\xe2\x82"}},
		// Bytes that are no character count one each.
		{19, srcerr.Error{File: "f", Line: 4, Col: 2, Msg: "m", Source: "名\xff\xe2\x82"}},
		{21, srcerr.Error{File: "f", Line: 4, Col: 4, Msg: "m", Source: "名\xff\xe2\x82"}},
		{99, srcerr.Error{File: "f", Line: 4, Col: 5, Msg: "m", Source: "名\xff\xe2\x82"}},
	}
	for _, tt := range tests {
		if got := srcerr.AtOffset("f", data, tt.off, "m"); !cmp.Equal(*got, tt.want) {
			t.Errorf("AtOffset(%d) = %+v, want %+v", tt.off, *got, tt.want)
		}
	}
}

// TestUnique: an error given twice is kept once, and so is an error at an
// alias that its value also has where it is written; an error at an alias
// that the value has only there, or with another message where it is
// written, is kept.
func TestUnique(t *testing.T) {
	from := srcerr.Origin{Anchor: "t", Line: 3, Col: 9}
	written := &srcerr.Error{File: "s.yaml", Line: 3, Col: 9, Msg: "bad duration"}
	again := &srcerr.Error{File: "s.yaml", Line: 8, Col: 14, Msg: "bad duration", Origin: from}
	inContext := &srcerr.Error{File: "s.yaml", Line: 9, Col: 14, Msg: "must be greater than zero", Origin: from}
	otherFile := &srcerr.Error{File: "t.yaml", Line: 8, Col: 14, Msg: "bad duration", Origin: from}
	twice := *written
	got := srcerr.Unique([]*srcerr.Error{again, written, inContext, &twice, otherFile})
	if want := []*srcerr.Error{written, inContext, otherFile}; !cmp.Equal(got, want) {
		t.Errorf("Unique = %v, want %v", got, want)
	}
}
