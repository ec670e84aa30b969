package approve_test

import (
	"testing"

	"github.com/acprun/acprun/approve"
)

func TestMatchTitle(t *testing.T) {
	tests := []struct {
		pattern, title string
		want           bool
	}{
		{"Run tests", "Run tests", true},
		{"run TESTS", "Run tests", true}, // case-insensitive, as rules match titles
		{"Run *", "Run go test ./...", true},
		{"*a.txt", "Read src/a.txt", true}, // '*' crosses '/'
		{"Read ?.txt", "Read a.txt", true},
		{"Read ?.txt", "Read ab.txt", false},
		{"Run tests", "Run tests now", false},
		{"Edit*", "Read a.txt", false},
		{"*", "", true},
	}
	for _, tt := range tests {
		if got := approve.MatchTitle(tt.pattern, tt.title); got != tt.want {
			t.Errorf("MatchTitle(%q, %q) = %v, want %v", tt.pattern, tt.title, got, tt.want)
		}
	}
}

func TestMatchPath(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"a.txt", "a.txt", true},
		{"*.txt", "a.txt", true},
		{"*.txt", "dir/a.txt", false}, // '*' stays in its segment
		{"**/*.txt", "dir/sub/a.txt", true},
		{"**/*.txt", "a.txt", true}, // '**' matches no segment too
		{"src/**", "src/a/b.go", true},
		{"src/**", "src", true},
		{"src/**", "srcx/a.go", false},
		{"./src/*.go", "src/a.go", true}, // both are cleaned
		{"src/*.go", "./src//a.go", true},
		{"/abs/*", "/abs/a", false}, // absolute patterns never match
		{"*", "/abs", false},
		{"[", "[", false}, // malformed
		{"A.txt", "a.txt", false},
	}
	for _, tt := range tests {
		if got := approve.MatchPath(tt.pattern, tt.path); got != tt.want {
			t.Errorf("MatchPath(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestCheckPathGlob: path globs that are malformed or could never match
// what they seem to say are refused; every other glob is accepted.
func TestCheckPathGlob(t *testing.T) {
	tests := []struct {
		pattern, want string // want "" for none
	}{
		{"src/**", ""},
		{"**/.env", ""},
		{"/etc/**", ""},
		{"src/*.go", ""},
		{"a/[a-z]?/[^0-9]x", ""},
		{"[{]x}", ""},   // a class holding {, and a lone }
		{`a/\[x\]`, ""}, // escaped brackets
		{"[a-a]", ""},   // a range of one
		{`[\]-\]]`, ""}, // escaped bounds
		{"[é-ü]", ""},   // runes, not bytes
		{"src/{a,b}/**", `bad pattern "src/{a,b}/**": {a,b} is not a glob here: write one pattern for each (or [{] for a literal {)`},
		{"{a,b", `bad pattern "{a,b": {a,b} is not a glob here: write one pattern for each (or [{] for a literal {)`},
		{"**/[z-a]", `bad pattern "**/[z-a]": range z-a is empty, so [...] matches nothing: write a-z`},
		{"x[^b-a]", `bad pattern "x[^b-a]": range b-a is empty, so [...] matches nothing: write a-b`},
		{"[", `bad pattern "[": malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal [`},
		{"a/[]", `bad pattern "a/[]": malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal [`},
		{"***", `bad pattern "***": ** matches any number of directories only as a whole segment (a/**/b): within a segment write *`},
		{"src/a**", `bad pattern "src/a**": ** matches any number of directories only as a whole segment (a/**/b): within a segment write *`},
		// [!...] is the shell's negation, but path.Match reads ! literally.
		{"keys/[!.]*", `bad pattern "keys/[!.]*": [!.] does not negate here, it matches "!" or any of the others: write [^.] for any character but those (or [\!.] to match "!" too)`},
		{"[!a-z]x", `bad pattern "[!a-z]x": [!a-z] does not negate here, it matches "!" or any of the others: write [^a-z] for any character but those (or [\!a-z] to match "!" too)`},
		{"x[!]", `bad pattern "x[!]": [!] does not negate here, it matches "!" alone: write \! or [\!] for "!"`},
		{`[\!.]*`, ""}, // an escaped !
		{"[.!]*", ""},  // ! not first
		{"[^!]*", ""},
		{"a!b", ""},
		// A trailing / is dropped: the pattern would match the directory
		// itself, nothing in it.
		{"secrets/", `bad pattern "secrets/": a trailing / is dropped, so it matches the directory secrets alone, nothing in it: write secrets/** for the directory and everything in it (or secrets for the directory alone)`},
		{"/etc/ssh//", `bad pattern "/etc/ssh//": a trailing / is dropped, so it matches the directory /etc/ssh alone, nothing in it: write /etc/ssh/** for the directory and everything in it (or /etc/ssh for the directory alone)`},
		{"**/.git/", `bad pattern "**/.git/": a trailing / is dropped, so it matches the directory **/.git alone, nothing in it: write **/.git/** for the directory and everything in it (or **/.git for the directory alone)`},
		{"/", ""}, // the root itself
	}
	for _, tt := range tests {
		err := approve.CheckPathGlob(tt.pattern)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckPathGlob(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}

// TestCheckNameGlob: tool and title globs have only * and ?, so brackets
// and braces, taken literally, are refused.
func TestCheckNameGlob(t *testing.T) {
	tests := []struct {
		pattern, want string
	}{
		{"mcp__github__*", ""},
		{"Read ?.txt", ""},
		{"[", `bad pattern "[": [...] is not a glob here (only * and ? are): write one pattern for each, or ? for any one character`},
		{"Run ]", `bad pattern "Run ]": [...] is not a glob here (only * and ? are): write one pattern for each, or ? for any one character`},
		{"{Edit,Write}", `bad pattern "{Edit,Write}": {a,b} is not a glob here: write one pattern for each`},
	}
	for _, tt := range tests {
		err := approve.CheckNameGlob(tt.pattern)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckNameGlob(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}
