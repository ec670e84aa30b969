package shellquote_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/acprun/acprun/internal/shellquote"
)

func TestWord(t *testing.T) {
	lenient := shellquote.Quoter{Keep: shellquote.Literal + "*~^", KeepNonASCII: true}
	tests := []struct {
		q    shellquote.Quoter
		in   string
		want string
	}{
		{shellquote.Shell, "ls", "ls"},
		{shellquote.Shell, "@zed-industries/claude-code-acp", "@zed-industries/claude-code-acp"},
		{shellquote.Shell, "--flag=a,b:c%d+e_f.g", "--flag=a,b:c%d+e_f.g"},
		{shellquote.Shell, "", "''"},
		{shellquote.Shell, "a b", "'a b'"},
		{shellquote.Shell, "it's", `'it'\''s'`},
		{shellquote.Shell, "'", `''\'''`},
		{shellquote.Shell, "$HOME", "'$HOME'"},
		{shellquote.Shell, "*.go", "'*.go'"},
		{shellquote.Shell, "~/x", "'~/x'"},
		{shellquote.Shell, "a^b", "'a^b'"},
		{shellquote.Shell, "héllo", "'héllo'"},
		{shellquote.Shell, "a\nb", "'a\nb'"},
		{shellquote.Quoter{}, "a-b", "'a-b'"},
		{shellquote.Quoter{}, "ab12", "ab12"},
		{lenient, "*.go", "*.go"},
		{lenient, "~/x^", "~/x^"},
		{lenient, "héllo", "héllo"},
		{lenient, "a b", "'a b'"},
		{lenient, "", "''"},
	}
	for _, tt := range tests {
		if got := tt.q.Word(tt.in); got != tt.want {
			t.Errorf("%+v.Word(%q) = %q, want %q", tt.q, tt.in, got, tt.want)
		}
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{nil, ""},
		{[]string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"}, "npx -y @agentclientprotocol/claude-agent-acp"},
		{[]string{"sh", "-c", "echo 'hi' && exit 1"}, `sh -c 'echo '\''hi'\'' && exit 1'`},
		{[]string{"a", "", "b"}, "a '' b"},
	}
	for _, tt := range tests {
		if got := shellquote.Join(tt.argv); got != tt.want {
			t.Errorf("Join(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

// TestJoinRoundTrip checks that /bin/sh splits a joined line back into
// the same words.
func TestJoinRoundTrip(t *testing.T) {
	argv := []string{"plain", "", "a b", "it's", "$HOME", "*", "~", "a\tb\nc", `back\slash`, "héllo", "--x=y", "^", "!", "#c", "`id`", `"q"`}
	out, err := exec.Command("/bin/sh", "-c", `for w in `+shellquote.Join(argv)+`; do printf '%s\0' "$w"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, argv) {
		t.Errorf("sh read %q back as %q", argv, got)
	}
}

// TestQuotedPart: a part of a word is found in the word as Word writes
// it by its Quoted form, wherever the part starts and ends (what finds a
// secret in a line acprun quoted).
func TestQuotedPart(t *testing.T) {
	for _, word := range []string{"--password=it's-a-secret", "'quoted'", "a''b", "plain-word", "a b's c"} {
		quoted := shellquote.Word(word)
		for i := 0; i <= len(word); i++ {
			for j := i; j <= len(word); j++ {
				if part := shellquote.Quoted(word[i:j]); !strings.Contains(quoted, part) {
					t.Errorf("Word(%q) = %q lacks Quoted(%q) = %q", word, quoted, word[i:j], part)
				}
			}
		}
	}
	if got, want := shellquote.Quoted("it's"), `it'\''s`; got != want {
		t.Errorf("Quoted(%q) = %q, want %q", "it's", got, want)
	}
}
