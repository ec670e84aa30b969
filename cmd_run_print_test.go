package main

import (
	"bytes"
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
		if err := printReply(&out, rep, tt.terminal); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("terminal %v: printed %q, want %q", tt.terminal, out.String(), tt.want)
		}
	}
}
