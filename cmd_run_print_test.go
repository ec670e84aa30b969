package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestPrintReplyOnATerminal: on a terminal, --print writes the reply with
// what could drive the terminal (an escape that retitles it or clears it,
// OSC 52 that writes the clipboard, a carriage return that overwrites the
// line, a bidi override, invalid UTF-8) escaped as \xNN and \uNNNN, its
// lines and tabs kept (a CRLF as a line break); elsewhere (a pipe, a
// file) it writes the reply's bytes as they are.
func TestPrintReplyOnATerminal(t *testing.T) {
	text := "reply \x1b]0;PWNED\x07 \x1b[2J\x1b]52;c;ZXZpbA==\x07\r\n\tindented \u202eevil\xff\n\rFAKE ##[error]x\n"
	rep := report.Report{Scenarios: []report.Result{{Turns: []report.TurnResult{{StopReason: "end_turn", Text: text}}}}}
	for _, tt := range []struct {
		terminal bool
		want     string
	}{
		{false, text},
		{true, "reply \\x1b]0;PWNED\\x07 \\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\n\tindented \\u202eevil\\xff\n\\x0dFAKE #\\x23[error]x\n"},
	} {
		var out bytes.Buffer
		to := replyBytes
		if tt.terminal {
			to = replyTerminal
		}
		if err := printReply(&out, rep, to); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("terminal %v: printed %q, want %q", tt.terminal, out.String(), tt.want)
		}
	}
}

// TestPrintReplyInAStepLog: under GitHub Actions, a reply printed where a
// step's log may read it has every workflow command an agent wrote
// (::error, ::add-mask:: after blanks, a ::stop-commands:: of its own,
// ##[set-output] anywhere in a line) broken by a zero-width space, which
// shows as the text did; every other byte is as the agent sent it.
func TestPrintReplyInAStepLog(t *testing.T) {
	text := "::error file=x::forged annotation\n  ::add-mask::x\n::stop-commands::mine\nok ##[set-output name=a]b\na::b # c\r\n::mine::\nend ::"
	want := ":\u200b:error file=x::forged annotation\n  :\u200b:add-mask::x\n:\u200b:stop-commands::mine\nok #\u200b#[set-output name=a]b\na::b # c\r\n:\u200b:mine::\nend ::\n"
	rep := report.Report{Scenarios: []report.Result{{Turns: []report.TurnResult{{StopReason: "end_turn", Text: text}}}}}
	var out bytes.Buffer
	if err := printReply(&out, rep, replyStepLog); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// TestReplyDest: --print escapes for a terminal, breaks workflow commands
// under GitHub Actions for anything but a regular file (a pipe may be the step's
// log), and writes it as it is otherwise.
func TestReplyDest(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "review.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tt := range []struct {
		name   string
		stdout any
		github bool
		want   replyTo
	}{
		{"a file", f, false, replyBytes},
		{"a file under GitHub Actions", f, true, replyBytes},
		{"a pipe", w, false, replyBytes},
		{"a pipe under GitHub Actions", w, true, replyStepLog},
		{"a writer under GitHub Actions", &strings.Builder{}, true, replyStepLog},
	} {
		if got := replyDest(tt.stdout, tt.github); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
