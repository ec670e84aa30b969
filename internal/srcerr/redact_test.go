package srcerr_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/srcerr"
)

// TestPrintRedactedLongSecret: a caret inside a secret that started more
// than a few KiB before it shows no source line, rather than one with the
// caret in the wrong place or the secret in it.
func TestPrintRedactedLongSecret(t *testing.T) {
	secret := strings.Repeat("k3y", 3000)
	e := &srcerr.Error{File: "s.yaml", Line: 1, Col: 9000, Msg: "bad", Source: "a: " + secret}
	var b strings.Builder
	srcerr.Print(&b, e, redact.New(secret))
	if want := "s.yaml:1:9000: bad\n"; b.String() != want {
		t.Errorf("Print = %q, want %q", b.String(), want)
	}
}
