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
