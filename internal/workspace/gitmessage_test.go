package workspace

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/redact"
)

// cutSecret is a secret longer than the cut of a git message.
const cutSecret = "sk-proj-Q3vZp9LmT2xWc8RkY6nBh4JdF1sGa7UeXo5MiPq0Vt3LzKw9NbCyHs2Dg6Rf8Tj1Yu4Ie7Oa0Pl5Mk9"

// showsPart reports whether s shows 8 bytes or more of cutSecret.
func showsPart(s string) bool {
	for i := 0; i+8 <= len(cutSecret); i++ {
		if strings.Contains(s, cutSecret[i:i+8]) {
			return true
		}
	}
	return false
}

// TestGitMessageCutRedacted: git's error line, cut at 300 bytes, shows no
// part of a secret the cut goes through, nor of one the start of the
// kept stderr cut (Spec.Redact): the cut is redacted knowing the whole
// line.
func TestGitMessageCutRedacted(t *testing.T) {
	t.Parallel()
	red := redact.New(cutSecret)
	line := "error: pathspec '" + strings.Repeat("x", 270) + " " + cutSecret + "' did not match"
	if got := gitMessage(red, []byte("hint: x\n"+line+"\n"), false); showsPart(got) || !strings.HasSuffix(got, redact.Marker+"…") {
		t.Errorf("gitMessage = %q; want the secret's start %s", got, redact.Marker)
	}
	tail := cutSecret[20:] + " is not a repository\n"
	if got := gitMessage(red, []byte(tail), true); showsPart(got) || !strings.HasPrefix(got, redact.Marker+" is not") {
		t.Errorf("gitMessage of a cut stderr = %q; want the secret's rest %s", got, redact.Marker)
	}
	if got := gitMessage(nil, []byte(line), false); !strings.HasSuffix(got, " sk-proj-Q3vZ…") {
		t.Errorf("gitMessage without a redactor = %q; want the line cut as it is", got)
	}

	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if _, err := runGit(context.Background(), runs{red: red}, dir, "init", "--quiet"); err != nil {
		t.Fatal(err)
	}
	_, err := runGit(context.Background(), runs{red: red}, dir, "checkout", strings.Repeat("x", 270)+" "+cutSecret)
	if err == nil || showsPart(red.String(err.Error())) || !strings.Contains(err.Error(), redact.Marker+"…") {
		t.Errorf("git checkout: %v; want an error with the secret's start %s", err, redact.Marker)
	}
}
