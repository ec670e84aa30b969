package redact_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/redact"
)

func TestSecrets(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		environ []string
		want    []string
	}{
		{
			name: "every fit env value, longest first",
			env:  map[string]string{"A": "from-scenario", "B": "abcd", "C": "sk-live-123456"},
			want: []string{"sk-live-123456", "from-scenario", "abcd"},
		},
		{
			name: "env values too short or too common",
			env: map[string]string{
				"CI": "true", "DEBUG": "FALSE", "VERBOSE": "yes", "COLOR": "off", "X": "",
				"NAME": "abc", "JP": "日本語", "PORT": "8080", "RATE": "-1.5e3", "VERSION": "1.2.3",
				"DATE": "2026-01-31", "TIME": "12:30:00", "PAD": "  on  ", "NULL": "null", "NONE": "None",
				"PART": "fals", "LIST": "[1, 2]", "MARK": "REDACTED", "SPACE": "     ",
			},
			want: nil,
		},
		{
			name: "the common values of mode and log-level variables, in any case",
			env: map[string]string{
				"NODE_ENV": "test", "RAILS_ENV": "Production", "APP_ENV": "development", "STAGE": "staging",
				"LOG_LEVEL": "DEBUG", "RUST_LOG": "info", "LEVEL": "warning", "L2": "warn", "L3": "error", "L4": "trace",
				"PROFILE": "default", "TARGET": "release", "WHERE": "local", "MODE": "testing", "M2": "prod", "M3": "dev",
				"M4": "ci", "V": "verbose", "F": "fatal", "S": "stage", "D": "develop",
			},
			want: nil,
		},
		{
			name: "a common value inside a longer one is a secret",
			env:  map[string]string{"A": "test-token-1", "B": "production-db-pass"},
			want: []string{"production-db-pass", "test-token-1"},
		},
		{
			name: "4 characters, not 4 bytes",
			env:  map[string]string{"JP": "日本語x"},
			want: []string{"日本語x"},
		},
		{
			name: "secret-looking names of environ, in any case",
			environ: []string{
				"OPENAI_API_KEY=sk-live-123456", "GITHUB_TOKEN=ghp_abcdefgh", "db_passwd=hunter2hunter2",
				"Cookie_Jar=chocolate-chip", "MY_CREDENTIALS=user:pass@host", "AWS_SESSION_TOKEN=FwoGZXIvYXdzEBY",
				"AUTHORIZATION=Bearer abcdefgh", "CLIENT_SECRET=s3cr3t-value",
			},
			want: []string{
				"Bearer abcdefgh", "FwoGZXIvYXdzEBY",
				"chocolate-chip", "hunter2hunter2", "sk-live-123456", "user:pass@host",
				"ghp_abcdefgh", "s3cr3t-value",
			},
		},
		{
			name: "environ: other names, short values, numbers, booleans",
			environ: []string{
				"HOME=/root/somewhere", "PATH=/usr/bin:/bin", "SHORT_KEY=1234567", "XDG_SESSION_TYPE=wayland",
				"TOKENIZERS_PARALLELISM=false", "AUTH_PORT=1234567890", "NOVALUE_KEY", "EMPTY_TOKEN=",
				"SPACED_TOKEN=   abc    ",
			},
			want: nil,
		},
		{
			name:    "a value in both appears once",
			env:     map[string]string{"GITHUB_TOKEN": "ghp_abcdefgh"},
			environ: []string{"GITHUB_TOKEN=ghp_abcdefgh", "GH_TOKEN=ghp_abcdefgh"},
			want:    []string{"ghp_abcdefgh"},
		},
		{
			name:    "the value is everything after the first =",
			environ: []string{"API_KEY=abc=def=ghi"},
			want:    []string{"abc=def=ghi"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redact.Secrets(tt.env, tt.environ)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Secrets(%v, %q) (-want +got):\n%s", tt.env, tt.environ, diff)
			}
		})
	}
}

// TestNewDrops checks the second layer: New itself drops unfit values, so
// a caller that skips Secrets gets the same protection.
func TestNewDrops(t *testing.T) {
	text := `{"ci":true,"x":"true","y":"TRUE yes no on off 8080 1.2.3 null none fals [1,2] abc test Production DEBUG info staging"} [REDACTED]`
	for _, v := range []string{
		"", "a", "abc", "日本語", "true", "True", "TRUE", "false", "yes", "no", "on", "off", "null", "none",
		"fals", "alse", "test", "Production", "DEBUG", "info", "staging", "8080", "1.2.3", "-1.5e3", "[1,2]", `{"":1}`, "    ", " true ", "REDACTED", "[RED", "ACTED]",
	} {
		r := redact.New(v)
		if got := r.String(text); got != text {
			t.Errorf("New(%q).String(%q) = %q; want it unchanged", v, text, got)
		}
		if got := r.JSON([]byte(text)); string(got) != text {
			t.Errorf("New(%q).JSON(%q) = %q; want it unchanged", v, text, got)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"no secret", []string{"ghp_abcdefgh"}, "nothing here", "nothing here"},
		{"every occurrence", []string{"ghp_abcdefgh"}, "a ghp_abcdefgh b ghp_abcdefgh", "a [REDACTED] b [REDACTED]"},
		{"several secrets", []string{"ghp_abcdefgh", "sk-live-1234"}, "ghp_abcdefgh/sk-live-1234", "[REDACTED]/[REDACTED]"},
		{"JSON-escaped quote", []string{`sk-"live"`}, `error: {"key":"sk-\"live\""}`, `error: {"key":"[REDACTED]"}`},
		{"JSON-escaped, unquoted", []string{`sk-"live"`}, `bad value sk-\"live\" here`, `bad value [REDACTED] here`},
		{"JSON-escaped backslash", []string{`C:\secret\dir`}, `path "C:\\secret\\dir"`, `path "[REDACTED]"`},
		{"Go %q with a control character", []string{"bell\x07ring"}, fmt.Sprintf("got %q", "bell\x07ring"), `got "[REDACTED]"`},
		{"JSON \\u00XX control character", []string{"bell\x07ring"}, `x bell\u0007ring`, `x [REDACTED]`},
		{"Go HTML-escaped JSON", []string{"a<b>&c-secret"}, `{"v":"a\u003cb\u003e\u0026c-secret"} trailing`, `{"v":"[REDACTED]"} trailing`},
		{"non-ASCII as \\u, as Python writes it", []string{"pässwörd"}, `{"pw": "p\u00e4ssw\u00f6rd"}`, `{"pw": "[REDACTED]"}`},
		{"beyond U+FFFF as a surrogate pair", []string{"key-😀-1"}, `x key-\ud83d\ude00-1`, `x [REDACTED]`},
		{"\\u-escaped in a JSON literal", []string{"ghp_abcdefgh"}, `log {"t":"\u0067hp_abcdefgh"} end`, `log {"t":"[REDACTED]"} end`},
		{"the rest of the literal is kept", []string{"ghp_abcdefgh"}, `"say \u0067hp_abcdefgh\n now"`, `"say [REDACTED]\n now"`},
		{"a stray quote before the literal", []string{"ghp_abcdefgh"}, `5" long, "\u0067hp_abcdefgh"`, `5" long, "[REDACTED]"`},
		{"literal inside a JSON string", []string{"ghp_abcdefgh"}, `{"s":"{\"t\":\"\\u0067hp_abcdefgh\"}"}`, `{"s":"{\"t\":\"[REDACTED]\"}"}`},
		{"a literal cut short", []string{"ghp_abcdefgh"}, `{"t":"key \u0067hp_abcdefgh and`, `{"t":"key [REDACTED] and`},
		{"escapes outside any literal", []string{"ghp_abcdefgh"}, `token=\u0067hp_abcdefgh;`, `token=[REDACTED];`},
		{"escaped forms mixed", []string{`pa"ss\wo<rd>&é漢`}, `x pa\"ss\\wo\u003crd>&\u00e9\u6f22 y`, `x [REDACTED] y`},
		{"a backslash that escapes nothing", []string{"ghp_abcdefgh"}, `C:\q \u00 \u0067hp_abcdefgh`, `C:\q \u00 [REDACTED]`},
		{"escaped slash", []string{"tok/abcdefg"}, `{"a":"tok\/abcdefg"}`, `{"a":"[REDACTED]"}`},
		{"a literal without the secret is kept", []string{"ghp_abcdefgh"}, `"\u0041bc" ghp_abcdefgh`, `"\u0041bc" [REDACTED]`},
		{"overlapping secrets are one", []string{"abcdefgh1", "fgh1xyz9"}, "<abcdefgh1xyz9>", "<[REDACTED]>"},
		{"overlapping occurrences are one", []string{"abab"}, "xabababx", "x[REDACTED]x"},
		{"adjacent occurrences", []string{"ghp_abcdefgh"}, "ghp_abcdefghghp_abcdefgh", "[REDACTED][REDACTED]"},
		{"a secret containing another", []string{"sk-live", "sk-live-123456"}, "sk-live-123456 sk-live", "[REDACTED] [REDACTED]"},
		{"trailing newline of a value", []string{"tok-abcdef\n"}, "got tok-abcdef.", "got [REDACTED]."},
		{"each line of a multi-line value", []string{"-----BEGIN KEY-----\nMIIBVwIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END KEY-----\n"},
			"line hkiG9w0BAQEFAASC", "line [REDACTED]"},
		{"case matters", []string{"ghp_abcdefgh"}, "GHP_ABCDEFGH", "GHP_ABCDEFGH"},
		{"as acprun's shell quoting writes it", []string{"Tr0ub4dor's-Horse-99"},
			`psql '--password=Tr0ub4dor'\''s-Horse-99' -c 'select 1'`, `psql '--password=[REDACTED]' -c 'select 1'`},
		{"shell-quoted, starting with a quote", []string{"'Tr0ub4dor-99"}, `PW=''\''Tr0ub4dor-99' psql`, `PW='[REDACTED]' psql`},
		{"shell-quoted, then Go-quoted", []string{"Tr0ub4dor's-Horse-99"},
			fmt.Sprintf("allows %q", `psql '-pTr0ub4dor'\''s-Horse-99'`), `allows "psql '-p[REDACTED]'"`},
		{"over shell words, one quoted for its '", []string{"don't tell anyone"},
			`echo 'don'\''t' tell anyone; ls`, `echo [REDACTED]; ls`},
		{"over shell words, one quoted for its !", []string{"hunter2! now-1234"},
			`echo 'hunter2!' now-1234 > out`, `echo [REDACTED] > out`},
		{"over shell words, from a plain one into a quoted one", []string{"now hunter2!"},
			`echo now 'hunter2!'`, `echo [REDACTED]`},
		{"over shell words, from inside one quoted word into another", []string{"pass wo!rd"},
			`login 'my-pass' 'wo!rd-1' -v`, `login [REDACTED] -v`},
		{"over shell words, after a quoted one", []string{"tell any1"},
			`echo 'x' 'don'\''t' tell any1`, `echo 'x' 'don'\''t' [REDACTED]`},
		{"over shell words, then Go-quoted", []string{"don't tell anyone"},
			fmt.Sprintf("allows %q", `echo 'don'\''t' tell anyone`), `allows "echo [REDACTED]"`},
		{"quotes of prose are not shell words", []string{"ghp_abcdefgh"}, "it's Bob's 'idea' isn't it", "it's Bob's 'idea' isn't it"},
		{"a quote without its end stands for itself", []string{"s tell any1"}, "it's tell any1", "it'[REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := redact.New(tt.secrets...)
			got := r.String(tt.in)
			if got != tt.want {
				t.Errorf("New(%q).String(%q) = %q; want %q", tt.secrets, tt.in, got, tt.want)
			}
			if again := r.String(got); again != got {
				t.Errorf("String is not stable: String(%q) = %q", got, again)
			}
		})
	}
}

// TestQuotedForms: a value's forms in a quoted string, as JSON writers
// escape it: Go (HTML too), Python (non-ASCII as \uXXXX), PHP ("/" as
// "\/" besides), and Go's %q.
func TestQuotedForms(t *testing.T) {
	got := redact.QuotedForms(`/a/R&D é"`)
	want := []string{
		`/a/R&D é"`,
		`/a/R&D é\"`,
		`/a/R&D \u00e9\"`,
		`/a/R\u0026D é\"`,
		`\/a\/R&D é\"`,
		`\/a\/R&D \u00e9\"`,
		`\/a\/R\u0026D é\"`,
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestStringLeavesNoSecret checks the case where a replacement and the
// text after it form another secret.
func TestStringLeavesNoSecret(t *testing.T) {
	secrets := []string{"SECRETKEY1", "D]abc"}
	got := redact.New(secrets...).String("x SECRETKEY1abc y")
	for _, s := range secrets {
		if strings.Contains(got, s) {
			t.Errorf("String = %q; contains %q", got, s)
		}
	}
	if !strings.HasPrefix(got, "x [REDACTE") || !strings.HasSuffix(got, " y") {
		t.Errorf("String = %q; want the text around the secrets kept", got)
	}
}

func TestNilAndEmpty(t *testing.T) {
	type rec struct{ S string }
	for name, r := range map[string]*redact.Redactor{"nil": nil, "empty": redact.New(), "only unfit": redact.New("true", "")} {
		t.Run(name, func(t *testing.T) {
			if got := r.String("true ghp"); got != "true ghp" {
				t.Errorf("String = %q", got)
			}
			raw := []byte(`{"a":"\u0074rue"}`)
			if got := r.JSON(raw); &got[0] != &raw[0] {
				t.Errorf("JSON = %q; want raw itself", got)
			}
			v := rec{S: "true"}
			r.Value(&v)
			r.Value(nil)
			if v.S != "true" {
				t.Errorf("Value changed %q", v.S)
			}
		})
	}
}

// TestValues: the secrets a Redactor keeps, given to New, redact as it
// does: values dropped (unfit, notSecret) stay out, the trimmed form and
// the lines of a multi-line secret stay in.
func TestValues(t *testing.T) {
	r := redact.NewExcept(func(v string) bool { return v == "scenario-name" }, " ghp_abcdefghijklmnop1234 ", "true", "scenario-name", "line one\nline two", "sk-1234")
	got := r.Values()
	slices.Sort(got)
	want := []string{" ghp_abcdefghijklmnop1234 ", "ghp_abcdefghijklmnop1234", "line one", "line one\nline two", "line two", "sk-1234"}
	if !slices.Equal(got, want) {
		t.Errorf("Values = %q, want %q", got, want)
	}
	again := redact.New(r.Values()...)
	for _, s := range []string{"a ghp_abcdefghijklmnop1234 b", `{"k":"line one\nline two"}`, "true scenario-name sk-1234", "line two"} {
		if a, b := r.String(s), again.String(s); a != b {
			t.Errorf("New(Values()).String(%q) = %q, want %q", s, b, a)
		}
	}
	if (*redact.Redactor)(nil).Values() != nil {
		t.Error("a nil Redactor has values")
	}
}

// TestAdd: secrets added to a Redactor in use are redacted from then on,
// taken as NewExcept takes them (unfit values and those notSecret reports
// dropped), while other goroutines redact with it; a nil one takes none.
func TestAdd(t *testing.T) {
	r := redact.NewExcept(func(v string) bool { return v == "scenario-name" }, "ghp_given1234567")
	const text = "ghp_given1234567 sk-learnt-98765 true scenario-name"
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			if got := r.String(text); !strings.HasPrefix(got, "[REDACTED] ") {
				t.Errorf("String(%q) = %q while secrets are added", text, got)
				return
			}
		}
	}()
	r.Add("sk-learnt-98765", "true", "scenario-name", "ghp_given1234567")
	<-done
	const want = "[REDACTED] [REDACTED] true scenario-name"
	if got := r.String(text); got != want {
		t.Errorf("after Add: String(%q) = %q; want %q", text, got, want)
	}
	got := r.Values()
	slices.Sort(got)
	if want := []string{"ghp_given1234567", "sk-learnt-98765"}; !slices.Equal(got, want) {
		t.Errorf("after Add: Values = %q; want %q", got, want)
	}
	empty := redact.New()
	empty.Add("sk-learnt-98765")
	if got := empty.String(text); got != "ghp_given1234567 [REDACTED] true scenario-name" {
		t.Errorf("an empty Redactor after Add: String = %q", got)
	}
	(*redact.Redactor)(nil).Add("sk-learnt-98765")
}

func TestCut(t *testing.T) {
	r := redact.New("ghp_abcdefghijklmnop1234", "pa ss")
	tests := []struct{ in, want string }{
		{"abcdefghijklmnop1234 FFF", "[REDACTED] FFF"},               // the cut went through the secret
		{"1234 FFF", "[REDACTED] FFF"},                               // four bytes of its end
		{"234 FFF", "234 FFF"},                                       // fewer tell nothing
		{"FFF ghp_abcdefghijklmnop1234", "FFF [REDACTED]"},           // whole secrets as String
		{"mnop1234ghp_abcdefghijklmnop1234", "[REDACTED][REDACTED]"}, // both
		{"nothing", "nothing"},
	}
	for _, tt := range tests {
		if got := r.Cut(tt.in); got != tt.want {
			t.Errorf("Cut(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	if got := (*redact.Redactor)(nil).Cut("1234"); got != "1234" {
		t.Errorf("nil Redactor: Cut = %q", got)
	}
}

// TestParted: the parts of a secret that a text holds unquoted in a
// shell line are redacted from what a policy split out of it, each alone;
// parts too short to be secrets are left, as at a cut.
func TestParted(t *testing.T) {
	r := redact.New("pa55;word|XKEYX2&x", `Q&<é>"\ab-XKEYX-9`, "unused-secret")
	tests := []struct {
		texts []string
		in    []string
		want  []string
	}{
		{[]string{"mysql -ppa55;word|XKEYX2&x db"}, // as written
			[]string{"mysql -ppa55", "word", "XKEYX2", "x db"},
			[]string{"mysql -p[REDACTED]", "[REDACTED]", "[REDACTED]", "x db"}},
		{[]string{`{"command":"echo Q&<\u00e9>\"\\ab-XKEYX-9 && rm -rf /x"}`}, // escaped in JSON
			[]string{"echo Q", `<é>"\ab-XKEYX-9 && rm -rf /x`, `/w/\ab-XKEYX-9 && rm -rf /x`},
			[]string{"echo Q", `<é>"\[REDACTED] && rm -rf /x`, `/w/\[REDACTED] && rm -rf /x`}},
		{[]string{"echo hi", "word"}, // no secret in the texts: nothing more
			[]string{"word", "XKEYX2"},
			[]string{"word", "XKEYX2"}},
	}
	for _, tt := range tests {
		p := r.Parted(tt.texts...)
		var got []string
		for _, s := range tt.in {
			got = append(got, p.String(s))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parted(%q) (-want +got):\n%s", tt.texts, diff)
		}
	}
	if p := r.Parted("no secret here"); p != r {
		t.Errorf("Parted of texts without a secret = %p, want r itself", p)
	}
	if got := (*redact.Redactor)(nil).Parted("x").String("word"); got != "word" {
		t.Errorf("nil Redactor: Parted.String = %q", got)
	}
}

func TestCutEnd(t *testing.T) {
	r := redact.New("ghp_abcdefghijklmnop1234", `to"ken99`)
	tests := []struct{ in, want string }{
		{"FFF ghp_abcdefghij", "FFF [REDACTED]"},                     // the cut went through the secret
		{"FFF ghp_", "FFF [REDACTED]"},                               // four bytes of its start
		{"FFF ghp", "FFF ghp"},                                       // fewer tell nothing
		{`{"t": "to\"ke`, `{"t": "[REDACTED]`},                       // in a quoted form
		{"ghp_abcdefghijklmnop1234 FFF", "[REDACTED] FFF"},           // whole secrets as String
		{"ghp_abcdefghijklmnop1234ghp_abcd", "[REDACTED][REDACTED]"}, // both
		{"nothing", "nothing"},
	}
	for _, tt := range tests {
		if got := r.CutEnd(tt.in); got != tt.want {
			t.Errorf("CutEnd(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	if got := (*redact.Redactor)(nil).CutEnd("ghp_"); got != "ghp_" {
		t.Errorf("nil Redactor: CutEnd = %q", got)
	}
}

func TestWrapped(t *testing.T) {
	r := redact.New("ghp_abcdefghijklmnop1234", "main")
	tests := []struct{ in, want string }{
		{"token ghp_abcdefghij\nklmnop1234 end", "token [REDACTED] end"},                           // one line break
		{"ghp_abcdefgh\r\nijklmnop\r\n1234\nnext", "[REDACTED]\nnext"},                             // several, \r\n
		{"a ghp_abcdefghijklmnop1234\nb ghp_abc\ndefghijklmnop1234", "a [REDACTED]\nb [REDACTED]"}, // whole and wrapped
		{"schema\ninfo main", "schema\ninfo [REDACTED]"},                                           // a short secret only whole
		{"ghp_abcdefghij\nklmnop", "ghp_abcdefghij\nklmnop"},                                       // not all of it
		{"no line break", "no line break"},
	}
	for _, tt := range tests {
		if got := r.Wrapped(tt.in, false, false); got != tt.want {
			t.Errorf("Wrapped(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	if got := (*redact.Redactor)(nil).Wrapped("a\nb", true, true); got != "a\nb" {
		t.Errorf("nil Redactor: Wrapped = %q", got)
	}
}

// TestWrappedCut: at a cut, the rest or the beginning of a secret is
// redacted as Cut and CutEnd redact it, that of a long secret also when
// wrapped over lines or ended by a line break there; a short secret is
// not looked for over lines.
func TestWrappedCut(t *testing.T) {
	r := redact.New("ghp_abcdefghijklmnop1234", "ab12cd34")
	tests := []struct {
		in               string
		cutStart, cutEnd bool
		want             string
	}{
		{"mnop1234 FFF\n", true, false, "[REDACTED] FFF\n"},                // as Cut
		{"FFF ghp_abcd", false, true, "FFF [REDACTED]"},                    // as CutEnd
		{"ijkl\nmnop\n1234 FFF\n", true, false, "[REDACTED] FFF\n"},        // a wrapped rest
		{"\nklmnop1234\nFFF", true, false, "\n[REDACTED]\nFFF"},            // after a line break
		{"FFF\nkey ghp_abcd\n", false, true, "FFF\nkey [REDACTED]\n"},      // ended by a line break
		{"FFF ghp_ab\r\ncdef\r\n", false, true, "FFF [REDACTED]\r\n"},      // wrapped
		{"ijkl\nmnop\n1234 FFF\n", false, false, "ijkl\nmnop\n1234 FFF\n"}, // no cut
		{"FFF ab12\n", false, true, "FFF ab12\n"},                          // a short secret ends at a line break
		{"FFF ab12", false, true, "FFF [REDACTED]"},                        // but not without one
		{"FFF gh\np", false, true, "FFF gh\np"},                            // fewer than 4 bytes tell nothing
	}
	for _, tt := range tests {
		if got := r.Wrapped(tt.in, tt.cutStart, tt.cutEnd); got != tt.want {
			t.Errorf("Wrapped(%q, %v, %v) = %q; want %q", tt.in, tt.cutStart, tt.cutEnd, got, tt.want)
		}
	}
}

func TestPieces(t *testing.T) {
	r := redact.New("ghp_abcdefghijklmnop1234")
	tests := []struct {
		name   string
		pieces []string
		want   []string
		held   int
	}{
		{"split over pieces", []string{"the token is ghp", "_abcd", "efghijklmnop", "1234, done"},
			[]string{"the token is [REDACTED]", "", "", ", done"}, 0},
		{"within one piece", []string{"a ghp_abcdefghijklmnop1234 b", "c"}, []string{"a [REDACTED] b", "c"}, 0},
		{"an end that may begin one is held", []string{"hello ", "world g", "hp_ab"}, []string{"hello ", "world g", "hp_ab"}, 2},
		{"nothing to hold", []string{"hello ", "world"}, []string{"hello ", "world"}, 0},
		{"escaped over pieces", []string{`say \u0067`, `hp_abcdefghijklmnop1234!`}, []string{"say [REDACTED]", "!"}, 0},
		{"empty", nil, []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, held := r.Pieces(tt.pieces)
			if !slices.Equal(got, tt.want) || held != tt.held {
				t.Errorf("Pieces(%q) = %q, %d; want %q, %d", tt.pieces, got, held, tt.want, tt.held)
			}
		})
	}
}

// TestPiecesCutEnd: a text in pieces whose end was cut off has the end
// that may begin a secret, 4 bytes or more, redacted where it starts and
// dropped from the pieces after, besides the secrets within it.
func TestPiecesCutEnd(t *testing.T) {
	r := redact.New("ghp_abcdefghijklmnop1234")
	tests := []struct {
		pieces, want []string
	}{
		{[]string{"the token is gh", "p_abc"}, []string{"the token is [REDACTED]", ""}},
		{[]string{"a ghp_abcdefghijklmnop1234 b ", "ghp_ab"}, []string{"a [REDACTED] b ", "[REDACTED]"}},
		{[]string{"too short to tell: ", "ghp"}, []string{"too short to tell: ", "ghp"}},
		{[]string{"nothing ", "to cut"}, []string{"nothing ", "to cut"}},
	}
	for _, tt := range tests {
		if got := r.PiecesCutEnd(tt.pieces); !slices.Equal(got, tt.want) {
			t.Errorf("PiecesCutEnd(%q) = %q; want %q", tt.pieces, got, tt.want)
		}
	}
}

// TestPiecesStreamed feeds a text to Pieces a few bytes at a time, as a
// transcript does, releasing what is not held: the released pieces never
// hold any part of a secret of 5 bytes or more.
func TestPiecesStreamed(t *testing.T) {
	secret := "ghp_abcdefghijklmnop1234"
	r := redact.New(secret, "ghp_zzzz9999")
	text := "a ghp_ghp_abcdefghijklmnop1234ghp_zzzz9999 b ghp_abcdefghijklmnop123 c" + secret
	for size := 1; size <= 7; size++ {
		var held, out []string
		for i := 0; i < len(text); i += size {
			held = append(held, text[i:min(i+size, len(text))])
			red, n := r.Pieces(held)
			out = append(out, red[:len(red)-n]...)
			held = held[len(held)-n:]
		}
		red, _ := r.Pieces(held)
		got := strings.Join(append(out, red...), "")
		want := "a ghp_[REDACTED][REDACTED] b ghp_abcdefghijklmnop123 c[REDACTED]"
		if got != want {
			t.Errorf("%d bytes a piece: %q; want %q", size, got, want)
		}
	}
}

// TestURL: a URL's password is masked as url.URL.Redacted masks it, and
// is a secret to redact, decoded, as Go writes it and as the URL writes it
// (escapes spelled otherwise: lowercase hex, a letter escaped), with the
// user:password in base64 of a Basic Authorization header; a URL without
// one, or a value that is not a URL, is left as it is and has none.
func TestURL(t *testing.T) {
	tests := []struct {
		in, shown string
		secrets   []string
	}{
		{"http://proxyuser:Pr0xyPassw0rdXYZ@127.0.0.1:18779/v1", "http://proxyuser:xxxxx@127.0.0.1:18779/v1", []string{"Pr0xyPassw0rdXYZ", "cHJveHl1c2VyOlByMHh5UGFzc3cwcmRYWVo="}},
		{"https://u:p%40ss%2Fword@proxy.example", "https://u:xxxxx@proxy.example", []string{"p@ss/word", "dTpwQHNzL3dvcmQ=", "p%40ss%2Fword"}},
		{"https://onlyuser@proxy.example/v1", "https://onlyuser@proxy.example/v1", nil},
		{"https://api.anthropic.com", "https://api.anthropic.com", nil},
		// Escapes Go would spell otherwise (lowercase hex, a letter that
		// needs none): the password as written is a secret too.
		{"http://proxyuser:Pr0xy%2fPassw0rd@127.0.0.1:3128/v1", "http://proxyuser:xxxxx@127.0.0.1:3128/v1", []string{"Pr0xy/Passw0rd", "cHJveHl1c2VyOlByMHh5L1Bhc3N3MHJk", "Pr0xy%2FPassw0rd", "Pr0xy%2fPassw0rd"}},
		{"https://u:s3cr%65tpw@proxy.example", "https://u:xxxxx@proxy.example", []string{"s3cretpw", "dTpzM2NyZXRwdw==", "s3cr%65tpw"}},
		{"https://u%73er:p%40ss%2fw%6Frd@proxy.example/v1?x#y", "https://user:xxxxx@proxy.example/v1?x#y", []string{"p@ss/word", "dXNlcjpwQHNzL3dvcmQ=", "p%40ss%2Fword", "p%40ss%2fw%6Frd"}},
		{"http://u:p@ss:w%6Frd@h/a@b", "http://u:xxxxx@h/a@b", []string{"p@ss:word", "dTpwQHNzOndvcmQ=", "p%40ss%3Aword", "p@ss:w%6Frd"}},
		{"http://u:@h", "http://u:xxxxx@h", nil},
		// Not a URL (a bad escape; a / or # in the password, which ends
		// the authority): no password (scenario keeps a bad upstream whole).
		{"http://u:p%zzword@h", "http://u:p%zzword@h", nil},
		{"http://user:abc/def+ghi@proxy:3128/v1", "http://user:abc/def+ghi@proxy:3128/v1", nil},
		{"u:p%zzword@h", "u:p%zzword@h", nil}, // no authority
	}
	for _, tt := range tests {
		if got := redact.URL(tt.in); got != tt.shown {
			t.Errorf("URL(%q) = %q; want %q", tt.in, got, tt.shown)
		}
		if got := redact.URLPassword(tt.in); !slices.Equal(got, tt.secrets) {
			t.Errorf("URLPassword(%q) = %q; want %q", tt.in, got, tt.secrets)
		}
	}
}

// TestNewExcept: a value notSecret reports is not looked for, whether it
// is a secret itself, its trimmed form or a line of a multi-line one; the
// rest of the secrets still are.
func TestNewExcept(t *testing.T) {
	notSecret := func(v string) bool { return v == "passed" || v == "sonnet-4" }
	r := redact.NewExcept(notSecret, "passed", " sonnet-4 ", "line-one-key\npassed", "sk-live-123456")
	tests := []struct{ in, want string }{
		{"status passed", "status passed"},
		{"model sonnet-4", "model sonnet-4"},
		{"key line-one-key, passed", "key [REDACTED], passed"},
		{"key sk-live-123456", "key [REDACTED]"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	if got := redact.NewExcept(nil, "passed").String("it passed"); got != "it [REDACTED]" {
		t.Errorf("NewExcept(nil).String = %q; want New's", got)
	}
}

// TestURLSecrets: a URL's secrets are its password (URLPassword) and the
// values of its secret-looking query parameters, decoded and as the URL
// writes them; other parameters, and a value that is not a URL, give
// none.
func TestURLSecrets(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"https://mcp.example.com/sse?api_key=sk-Q1&Token=t%2Fk-42&limit=5", []string{"sk-Q1", "t%2Fk-42", "t/k-42"}},
		{"https://bot:pw-9@mcp.example.com/?sig=abc", []string{"pw-9", "Ym90OnB3LTk=", "abc"}},
		{"https://mcp.example.com/sse?limit=5&q=key", nil},
		{"https://mcp.example.com/sse", nil},
		{"not a url %zz", nil},
	}
	for _, tt := range tests {
		if got := redact.URLSecrets(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("URLSecrets(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	for name, want := range map[string]bool{"X-Api-Key": true, "access_token": true, "Authorization": true, "X-Amz-Signature": true, "limit": false, "model": false} {
		if got := redact.SecretParam(name); got != want {
			t.Errorf("SecretParam(%q) = %v; want %v", name, got, want)
		}
	}
}

// TestURLPasswordInBasicAuth: the Authorization header Go's HTTP client
// sends for a URL with a user and password (as the gateway does to a
// proxy upstream) is redacted of URLPassword's secrets.
func TestURLPasswordInBasicAuth(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Get("Authorization") }))
	defer srv.Close()
	u := strings.Replace(srv.URL, "://", "://proxyuser:pr%40xyPassw0rd77@", 1)
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	header := <-got
	if red := redact.New(redact.URLPassword(u)...).String(header); red != "Basic "+redact.Marker {
		t.Errorf("redacted Authorization %q = %q; want the credentials redacted", header, red)
	}
}

// TestStringShellQuotesEdges: texts made of quotes and escapes that start
// or end a quoted word anywhere are read without a panic, and redacted
// stably.
func TestStringShellQuotesEdges(t *testing.T) {
	r := redact.New("ab'cd", "x y!z")
	for _, in := range []string{
		"'", "''", `\'`, `'\'`, `'\''`, `''\'''`, `'ab'\'`, `'ab'\''`, `'ab'\''cd`, `ab\'cd`,
		`'x' 'y!z`, `'x y!'z`, `'x' y'!z'`, `"'x y!z'"`, `'x y!z' '`, `\\'x y!z'`,
	} {
		got := r.String(in)
		if again := r.String(got); again != got {
			t.Errorf("String(%q) = %q, not stable: %q", in, got, again)
		}
		for _, s := range []string{"ab'cd", "x y!z"} {
			if strings.Contains(got, s) {
				t.Errorf("String(%q) = %q holds %q", in, got, s)
			}
		}
	}
	if got, want := r.String(`run 'x' 'y!z' and ab\'cd`), `run [REDACTED] and [REDACTED]`; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
