package replay

import (
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/acprun/acprun/internal/redact"
)

// TestDescribeAnswerCutRedacted: a divergence's answer, cut at 200
// characters through a secret, shows no part of it.
func TestDescribeAnswerCutRedacted(t *testing.T) {
	const secret = "sk-proj-Q3vZp9LmT2xWc8RkY6nBh4JdF1sGa7Ue"
	red := redact.New(secret)
	result := `{"content":"` + strings.Repeat("x", 170) + secret + `"}`
	got := describeAnswer(red, []byte(result), nil)
	if strings.Contains(got, "sk-proj") || !strings.HasSuffix(got, redact.Marker+"…") {
		t.Errorf("describeAnswer = %q; want it cut, ending %s…", got, redact.Marker)
	}
}
