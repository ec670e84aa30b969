package runner

import "testing"

func TestSniffType(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"\x89PNG\r\n\x1a\nrest", "image/png"},
		{"\xff\xd8\xff\xe0", "image/jpeg"},
		{"GIF89a...", "image/gif"},
		{"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"},
		{"%PDF-1.7", "application/pdf"},
		{"PK\x03\x04", "application/zip"},
		{"plain text\nwith lines\tand tabs", "text/plain; charset=utf-8"},
		{"héllo", "text/plain; charset=utf-8"},
		{"", "text/plain; charset=utf-8"},
		{"bin\x00ary", "application/octet-stream"},
		{"bad \xff utf-8", "application/octet-stream"},
	}
	for _, tt := range tests {
		if got := sniffType([]byte(tt.in)); got != tt.want {
			t.Errorf("sniffType(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
