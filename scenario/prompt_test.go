package scenario_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestPromptFromFile: prompt: {file: PATH} sends the file's text as it is
// (not interpolated, final newline kept), read when the file is loaded,
// relative to the scenario file; in a list, file: still attaches.
func TestPromptFromFile(t *testing.T) {
	scs, _, err := scenario.Load([]string{"testdata/prompt-file.yaml"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	turns := scs[0].Turns
	want := []scenario.Part{{
		Pos:  scenario.Pos{File: "testdata/prompt-file.yaml", Line: 6, Col: 20},
		Text: "Run the nightly maintenance: update ${DEPS} and fix what breaks.\n\nKeep $$ as is.\n",
	}}
	if diff := cmp.Diff(want, turns[0].Prompt); diff != "" {
		t.Errorf("prompt: {file: ...} (-want +got):\n%s", diff)
	}
	if got := turns[0].PromptText(); got != want[0].Text {
		t.Errorf("PromptText = %q, want the file's text", got)
	}
	if got := turns[1].Prompt[1]; got.File != filepath.Join(dir, "NOTES.md") || got.Text != "" {
		t.Errorf("file: in a list of parts = %+v, want an attachment of NOTES.md", got)
	}
}

// TestPromptFileErrors: a prompt file that cannot be the prompt is an
// error at the file: value, found when the scenario file is loaded; a
// FIFO is refused without being opened, so loading cannot hang.
func TestPromptFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("empty.md", []byte(" \n\t\n"))
	write("latin1.md", []byte("caf\xe9\n"))
	write("big.md", []byte(strings.Repeat("x", scenario.MaxPromptBytes+1)))
	write("ok.md", []byte("fine\n"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `name: x
agent: {command: [a]}
turns:
  - prompt: {file: missing.md}
  - prompt: {file: sub}
  - prompt: {file: empty.md}
  - prompt: {file: latin1.md}
  - prompt: {file: big.md}
  - prompt: {file: fifo.md}
  - prompt: {file: ""}
  - prompt: {}
  - prompt: {text: hi}
  - prompt: {file: ok.md, image: x.png}
  - prompt: {file: [ok.md]}
`
	_, _, err := scenario.LoadBytes(filepath.Join(dir, "bad.yaml"), []byte(src), opts)
	got := errorLines(t, err)
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], dir+string(filepath.Separator))
	}
	want := []string{
		`bad.yaml:4:20: prompt file "missing.md" does not exist`,
		`bad.yaml:5:20: prompt file "sub" is not a regular file (a directory): give a file`,
		`bad.yaml:6:20: prompt file "empty.md" is empty`,
		`bad.yaml:7:20: prompt file "latin1.md" is not UTF-8 text`,
		`bad.yaml:8:20: prompt file "big.md" is larger than 4 MiB, the most a prompt may hold (attach a long text as a file part instead: prompt: [{file: PATH}])`,
		`bad.yaml:9:20: prompt file "fifo.md" is not a regular file (a FIFO): give a file`,
		`bad.yaml:10:20: prompt file path is empty`,
		`bad.yaml:11:13: prompt is empty: give a string, {file: PATH} or a list of text, file and image parts`,
		`bad.yaml:12:14: unknown key "text" (valid keys: file); a prompt mapping reads the prompt from a file (prompt: {file: PATH}); for several parts write a list: prompt: [{text: ...}]`,
		`bad.yaml:13:27: unknown key "image" (valid keys: file); a prompt mapping reads the prompt from a file (prompt: {file: PATH}); for several parts write a list: prompt: [{image: ...}]`,
		`bad.yaml:14:20: expected a string, got a list`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestReadPrompt: the text of stdin or a file is kept byte for byte, but
// for a byte order mark, and decoded from UTF-16 with one; what cannot be
// a prompt is an error that says why.
func TestReadPrompt(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "Fix the build.\n", want: "Fix the build.\n"},
		{in: "  indented\r\nkept ${X}", want: "  indented\r\nkept ${X}"},
		{in: "", err: "is empty"},
		{in: "\n \n", err: "is empty"},
		{in: "\xff", err: "is not UTF-8 text"},
		// UTF-16 with a byte order mark, as a scenario file may be, is read
		// as its text; the mark is no part of it, nor UTF-8's.
		{in: "\xff\xfeF\x00i\x00x\x00 \x00\x14 \n\x00", want: "Fix \u2014\n"},
		{in: "\xfe\xff\x00F\x00i\x00x\xd8\x3d\xde\x00", want: "Fix\U0001F600"},
		{in: "\ufeffFix", want: "Fix"},
		{in: "\xff\xfe\x3d\xd8F\x00", err: "is not UTF-8 text"}, // a surrogate without its pair
		{in: "\xff\xfe \x00\n\x00", err: "is empty"},
		{in: strings.Repeat("é", scenario.MaxPromptBytes/2) + "x", err: "is larger than 4 MiB"},
	}
	for _, tt := range tests {
		got, err := scenario.ReadPrompt(strings.NewReader(tt.in))
		switch {
		case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
			t.Errorf("ReadPrompt(%.20q) = %q, %v; want error %q", tt.in, got, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ReadPrompt(%.20q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestWithPrompts: the copy has one turn per prompt, each with its text
// and the default expectation; the scenario itself is unchanged.
func TestWithPrompts(t *testing.T) {
	scs, _, err := scenario.Load([]string{"testdata/prompt-file.yaml"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	sc := scs[0]
	pos := scenario.Pos{File: "-"}
	c := sc.WithPrompts([]scenario.Prompt{{Text: "from stdin\n", Pos: pos}})
	if len(c.Turns) != 1 || c.Turns[0].PromptText() != "from stdin\n" || c.Turns[0].Pos != pos {
		t.Fatalf("turns = %+v, want one turn sending the text", c.Turns)
	}
	if diff := cmp.Diff([]string{"end_turn"}, c.Turns[0].Expect.StopReasons); diff != "" || c.Turns[0].Expect.StopReasonSet {
		t.Errorf("expect = %+v, want the default end_turn", c.Turns[0].Expect)
	}
	second := scenario.Pos{File: "--prompt"}
	c2 := sc.WithPrompts([]scenario.Prompt{{Text: "one", Pos: pos}, {Text: "two", Pos: second}})
	if len(c2.Turns) != 2 || c2.Turns[0].PromptText() != "one" || c2.Turns[1].PromptText() != "two" ||
		c2.Turns[1].Pos != second || c2.Turns[1].Expect.Pos != second || len(c2.Turns[1].Expect.StopReasons) != 1 {
		t.Errorf("two prompts: turns = %+v, want the two texts in order, each at its position, expecting end_turn", c2.Turns)
	}
	if len(sc.Turns) != 2 || c.Name != sc.Name || c.Policy != sc.Policy {
		t.Errorf("the original changed or the copy lost its settings: %d turns, copy %q", len(sc.Turns), c.Name)
	}
}

// TestPromptFilesBudget: a prompt file named by many turns is read once
// and counted once; distinct prompt files past MaxPromptFileBytes in all
// are an error at the first one over.
func TestPromptFilesBudget(t *testing.T) {
	dir := t.TempDir()
	big := []byte(strings.Repeat("x", scenario.MaxPromptBytes))
	var turns strings.Builder
	for i := range scenario.MaxPromptFileBytes/scenario.MaxPromptBytes + 1 {
		name := filepath.Join(dir, "p"+string(rune('a'+i))+".md")
		if err := os.WriteFile(name, big, 0o644); err != nil {
			t.Fatal(err)
		}
		// Each file twice: the second costs nothing.
		fmt.Fprintf(&turns, "  - prompt: {file: %s}\n  - prompt: {file: %s}\n", filepath.Base(name), filepath.Base(name))
	}
	src := "name: x\nagent: {command: [a]}\nturns:\n" + turns.String()
	_, _, err := scenario.LoadBytes(filepath.Join(dir, "bad.yaml"), []byte(src), opts)
	got := errorLines(t, err)
	line := 4 + 2*(scenario.MaxPromptFileBytes/scenario.MaxPromptBytes)
	want := []string{fmt.Sprintf("%s:%d:20: prompt file \"pe.md\": the prompt files of this file hold more than 16 MiB in all; split the scenarios over several files",
		filepath.Join(dir, "bad.yaml"), line)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestPromptAttachmentsBounded: the files and images one prompt attaches
// take at most MaxAttachmentBytes together as sent (they travel in one
// message): text JSON-escaped, an image or a binary file base64. More is
// an error at the part that goes over, before anything runs; another turn
// has a budget of its own. A UTF-16 log of 5.5 MiB goes as a blob of 7.3
// MiB; 3.5 MiB of quotes take 7 MiB escaped.
func TestPromptAttachmentsBounded(t *testing.T) {
	dir := t.TempDir()
	png := "\x89PNG\r\n\x1a\n"
	for name, data := range map[string]string{
		"a.txt":      strings.Repeat("a", 4<<20),
		"b.png":      png + strings.Repeat("\x00", 4<<20-len(png)),
		"big.txt":    strings.Repeat("a", scenario.MaxAttachmentBytes+1),
		"c.txt":      strings.Repeat("c", 1<<20),
		"utf16.log":  strings.Repeat("h\x00", 11<<18),
		"quotes.txt": strings.Repeat(`"`, 7<<19),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := `name: x
agent: {command: [a]}
turns:
  - prompt: [{file: a.txt}, {file: c.txt}]
  - prompt: [{file: a.txt}, {text: hi}, {image: b.png}]
  - prompt: [{file: big.txt}]
  - prompt: [{image: b.png}]
  - prompt: [{file: utf16.log}]
  - prompt: [{file: quotes.txt}]
`
	_, _, err := scenario.LoadBytes(filepath.Join(dir, "s.yaml"), []byte(src), opts)
	over := "in its message, more than the 6 MiB a prompt may attach (text goes JSON-escaped, an image or a binary file base64, and agents built on the Go ACP SDK drop a message over 10 MiB): give the agent the file's path in a text part for it to read, or attach less"
	want := []string{
		"s.yaml:5:49: b.png: the files and images of this prompt take at least 8.0 MiB " + over,
		"s.yaml:6:21: big.txt: the files and images of this prompt take at least 6291457 bytes " + over,
		"s.yaml:8:21: utf16.log: the files and images of this prompt take 7.3 MiB " + over,
		"s.yaml:9:21: quotes.txt: the files and images of this prompt take 7.0 MiB " + over,
	}
	var got []string
	for _, l := range errorLines(t, err) {
		got = append(got, strings.TrimPrefix(l, dir+"/"))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestPromptImageTypeFromBytes: an image's mime type is what its bytes
// say, not its extension; bytes that are not a PNG, JPEG, GIF or WEBP
// image are an error at the image's position.
func TestPromptImageTypeFromBytes(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"shot.png": "\xff\xd8\xff\xe0 a JPEG", "shot": "\x89PNG\r\n\x1a\n", "fake.png": "png",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := "name: x\nagent: {command: [a]}\nturns:\n  - prompt: [{image: shot.png}, {image: shot}]\n"
	scs, _, err := scenario.LoadBytes(filepath.Join(dir, "s.yaml"), []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	p := scs[0].Turns[0].Prompt
	if p[0].MimeType != "image/jpeg" || p[1].MimeType != "image/png" {
		t.Errorf("mime types %q, %q; want image/jpeg, image/png", p[0].MimeType, p[1].MimeType)
	}
	_, _, err = scenario.LoadBytes(filepath.Join(dir, "s.yaml"), []byte("name: x\nagent: {command: [a]}\nturns:\n  - prompt: [{text: hi}, {image: fake.png}]\n"), opts)
	want := []string{`s.yaml:4:34: image "fake.png" is not a PNG, JPEG, GIF or WEBP image (by its first bytes)`}
	var got []string
	for _, l := range errorLines(t, err) {
		got = append(got, strings.TrimPrefix(l, dir+"/"))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
