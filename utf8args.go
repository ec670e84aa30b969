package main

import (
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/pathtext"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
)

// notUTF8Arg refuses the first of args that is not valid UTF-8. The
// command-line parser would read each bad byte as U+FFFD: a file named
// in Latin-1 would be another, missing name, an output would be written
// under another name, a prompt sent other than typed; and results, being
// JSON, could not record such a name anyway. The argument is shown with
// its bad bytes escaped (\xe9), around the first when it is long.
// It is redacted by red whole before it is cut: a cut through a secret
// would leave its start, which red no longer recognizes.
func notUTF8Arg(args []string, red *redact.Redactor) error {
	for _, a := range args {
		if !utf8.ValidString(a) {
			return fmt.Errorf("the argument \"%s\" is not valid UTF-8: acprun takes names and text in UTF-8 only (its results are JSON); rename the file, or give the text in UTF-8", aroundBadByte(red.String(a)))
		}
	}
	return nil
}

// aroundContext is how many bytes aroundBadByte keeps on either side of
// the first bad byte of a long argument.
const aroundContext = 40

// aroundBadByte is s, which is not valid UTF-8, escaped for a message:
// whole when it is short, else the part around its first bad byte, cut
// at characters and marked "…" where cut.
func aroundBadByte(s string) string {
	bad := 0
	for bad < len(s) {
		r, n := utf8.DecodeRuneInString(s[bad:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		bad += n
	}
	start, end := max(0, bad-aroundContext), min(len(s), bad+1+aroundContext)
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	out := termtext.Printable(s[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}

// notUTF8Dir refuses dir, the working directory, when its path is not
// valid UTF-8: why says what would hold it as JSON, which can only hold
// UTF-8 text (U+FFFD in place of each bad byte: a directory that does
// not exist).
func notUTF8Dir(dir, why string) error {
	if utf8.ValidString(dir) {
		return nil
	}
	return exitError{code: exitUsage, err: fmt.Errorf("the working directory %s is not valid UTF-8: %s, as JSON, which holds UTF-8 only; rename %s, or run from another directory",
		termtext.Printable(dir), why, termtext.Printable(pathtext.NotUTF8(dir)))}
}

// notUTF8WorkDir is notUTF8Dir of the working directory; nil when there
// is none (it is gone), which is said where it is used.
func notUTF8WorkDir(why string) error {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	return notUTF8Dir(wd, why)
}
