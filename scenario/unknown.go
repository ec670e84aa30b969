package scenario

import (
	"fmt"
	"strings"

	"github.com/acprun/acprun/internal/suggest"
)

// unknownMsg says that word is not one of valid, e.g.
// `unknown key "promt" (did you mean "prompt"?)` or
// `unknown key "x" (valid keys: a, b)`.
func unknownMsg(noun, word string, valid []string, plural string) string {
	if s, ok := suggest.Closest(word, valid); ok {
		return fmt.Sprintf("unknown %s %q (did you mean %q?)", noun, word, s)
	}
	return fmt.Sprintf("unknown %s %q (valid %s: %s)", noun, word, plural, strings.Join(valid, ", "))
}
