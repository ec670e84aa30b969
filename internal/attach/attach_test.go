package attach

import (
	"bytes"
	"encoding/base64"
	"mime"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
	json "github.com/go-json-experiment/json/v1"
)

// TestFile: the bytes decide between text and blob; a text file's type
// comes from the fixed table, else text/plain.
func TestFile(t *testing.T) {
	t.Parallel()
	utf16 := "\xff\xfeh\x00i\x00\n\x00"
	tests := []struct {
		name, data string
		want       Form
	}{
		{"a.ts", "export const a = 1\n", Form{"text/x-typescript", true}},
		{"A.MD", "# Title\n", Form{"text/markdown", true}},
		{"spec", "plain text\nwith lines\tand tabs", Form{"text/plain", true}},
		{"a.weird", "héllo", Form{"text/plain", true}},
		{"empty.bin", "", Form{"text/plain", true}},
		{"ansi.log", "\x1b[31mred\x1b[0m\r\n\f", Form{"text/plain", true}},
		{"utf16.log", utf16, Form{"application/octet-stream", false}},
		{"nul.txt", "bin\x00ary", Form{"application/octet-stream", false}},
		{"bad.txt", "bad \xff utf-8", Form{"application/octet-stream", false}},
		{"bell.txt", "ding\a", Form{"application/octet-stream", false}},
		{"my pic.png", "\x89PNG\r\n\x1a\nrest", Form{"image/png", false}},
		{"photo.txt", "\xff\xd8\xff\xe0", Form{"image/jpeg", false}},
		{"a", "GIF89a...", Form{"image/gif", false}},
		{"a", "RIFF\x00\x00\x00\x00WEBPVP8 ", Form{"image/webp", false}},
		{"doc.pdf", "%PDF-1.7", Form{"application/pdf", false}},
		{"a.zip", "PK\x03\x04", Form{"application/zip", false}},
		{"a.gz", "\x1f\x8b\x08\x00", Form{"application/gzip", false}},
	}
	for _, tt := range tests {
		if got := File(tt.name, []byte(tt.data)); got != tt.want {
			t.Errorf("File(%q, %q) = %+v, want %+v", tt.name, tt.data, got, tt.want)
		}
	}
}

// TestFileHostIndependent: the form does not come from the host's mime
// database: with the mime package told that these extensions are
// video/mp2t (as Apache's mime.types says of .ts), File decides the same.
func TestFileHostIndependent(t *testing.T) {
	want := map[string]string{".ts": "text/x-typescript", ".md": "text/markdown", ".txt": "text/plain", ".json": "application/json", ".go": "text/x-go"}
	for ext := range want {
		if err := mime.AddExtensionType(ext, "video/mp2t"); err != nil {
			t.Fatal(err)
		}
	}
	for ext, mt := range want {
		if got := File("a"+ext, []byte("text\n")); got != (Form{mt, true}) {
			t.Errorf("File(a%s) with the host saying video/mp2t = %+v, want %s text", ext, got, mt)
		}
	}
}

// TestSize: the size as sent, JSON-escaped text or base64.
func TestSize(t *testing.T) {
	t.Parallel()
	data := []byte("a\x00b")
	if got := (Form{Text: true}).Size(data); got != 8 {
		t.Errorf("text size of %q = %d, want 8", data, got)
	}
	if got, want := (Form{}).Size(data), len(base64.StdEncoding.EncodeToString(data)); got != want {
		t.Errorf("blob size of %q = %d, want %d", data, got, want)
	}
}

// TestImage: an image's type comes from its bytes.
func TestImage(t *testing.T) {
	t.Parallel()
	for data, want := range map[string]string{
		"\x89PNG\r\n\x1a\nx": "image/png", "\xff\xd8\xff\xe0": "image/jpeg", "GIF87a": "image/gif",
		"RIFF\x00\x00\x00\x00WEBPVP8 ": "image/webp", "png": "", "%PDF-1.7": "", "": "",
	} {
		if got := Image([]byte(data)); got != want {
			t.Errorf("Image(%q) = %q, want %q", data, got, want)
		}
	}
}

// TestJSONSize: JSONSize is the size of a string in the JSON acp sends
// (its encoder, without HTML escaping), or more.
func TestJSONSize(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "plain text\n", "tab\tquote\"backslash\\cr\r", "\x00\x01\x1f\x7f", "<a & b>",
		"héllo, 世界, 🙂", "\u2028\u2029", "bad \xff\xfe utf-8 \xe2\x82", "\b\f",
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := buf.Len() - len(`""`+"\n")
		got := JSONSize([]byte(s))
		if got < want || got > want+8 {
			t.Errorf("JSONSize(%q) = %d, encoded %d (%s)", s, got, want, buf.Bytes())
		}
	}
}
