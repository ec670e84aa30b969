package redact_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/acprun/acprun/internal/redact"
)

// TestError: an error's text is redacted, and errors.Is still sees the
// error it wraps; nil stays nil.
func TestError(t *testing.T) {
	red := redact.New("sk-live-abcdef123456")
	err := red.Error(fmt.Errorf("open /tmp/sk-live-abcdef123456: %w", fs.ErrNotExist))
	if got, want := err.Error(), "open /tmp/[REDACTED]: file does not exist"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = false, want true", err)
	}
	if err := red.Error(nil); err != nil {
		t.Errorf("Error(nil) = %v, want nil", err)
	}
}
