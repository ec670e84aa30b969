package pathtext

import (
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
)

func TestReplace(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"/w/a", "<w>"},
		{"cd /w/a && ls /w/a/src", "cd <w> && ls <w>/src"},
		{"in /w/a.", "in <w>."},
		{"/w/a.txt /w/ab /x/w/a", "/w/a.txt /w/ab /x/w/a"},
		{"\"/w/a\"", "\"<w>\""},
		{"nothing here", "nothing here"},
	} {
		if got := Replace(tt.s, "/w/a", "<w>"); got != tt.want {
			t.Errorf("Replace(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
	// A recording's path moved to a live run's.
	for _, tt := range []struct{ s, want string }{
		{"/rec", "/live"},
		{"/rec/a.txt", "/live/a.txt"},
		{"file:///rec/a.txt", "file:///live/a.txt"},
		{"cat /rec/a /rec/b", "cat /live/a /live/b"},
		{"/recording/a", "/recording/a"},
		{"/x/rec/a", "/x/rec/a"},
		{"/rec.bak", "/rec.bak"},
		{"(/rec)", "(/live)"},
	} {
		if got := Replace(tt.s, "/rec", "/live"); got != tt.want {
			t.Errorf("Replace(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestNotUTF8(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"caf\xe9.yaml", "caf\xe9.yaml"},
		{"/tmp/d\xe9j\xe0/sub\xff/a.yaml", "d\xe9j\xe0"},
		{"suite/caf\xe9.yaml", "caf\xe9.yaml"},
		{"/tmp/ok", "/tmp/ok"},
	} {
		if got := NotUTF8(tt.path); got != tt.want {
			t.Errorf("NotUTF8(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
