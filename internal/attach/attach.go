// Package attach decides how a file a prompt attaches travels to the
// agent: as text or as a base64 blob, with which mime type, and how many
// bytes it then takes in the message. The decision depends on the file's
// name and bytes only, never on the host (its mime database), so that a
// scenario sends the same prompt on every machine. The scenario's load
// checks the size as sent with it, and the run sends with it.
package attach

import (
	"bytes"
	"encoding/base64"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Form is how a file is sent: its mime type, and whether as text (else as
// a base64 blob).
type Form struct {
	MimeType string
	Text     bool
}

// File decides how the file name, holding data, is sent. The bytes decide
// first: a known binary signature (PNG, JPEG, GIF, WEBP, PDF, zip, gzip)
// is a blob of that type; text (valid UTF-8 without binary control
// bytes, see isText) is text, typed by the extension when textTypes knows
// it, else text/plain; anything else is an application/octet-stream blob.
func File(name string, data []byte) Form {
	if mt := signature(data); mt != "" {
		return Form{MimeType: mt}
	}
	if !isText(data) {
		return Form{MimeType: "application/octet-stream"}
	}
	if mt := textTypes[strings.ToLower(filepath.Ext(name))]; mt != "" {
		return Form{MimeType: mt, Text: true}
	}
	return Form{MimeType: "text/plain", Text: true}
}

// Size is how many bytes data takes in the message when sent in form f:
// its length inside a JSON string (JSONSize) for text, its base64 length
// for a blob.
func (f Form) Size(data []byte) int {
	if f.Text {
		return JSONSize(data)
	}
	return base64.StdEncoding.EncodedLen(len(data))
}

// Image returns the mime type of an image from its bytes: image/png,
// image/jpeg, image/gif or image/webp, else "" (not one of these).
func Image(data []byte) string {
	if mt := signature(data); strings.HasPrefix(mt, "image/") {
		return mt
	}
	return ""
}

// isText reports whether data is text: valid UTF-8 without binary control
// bytes. Tab, newline, carriage return, form feed and escape (the colours
// of a terminal's log) are text; NUL (UTF-16 text has them) and the other
// C0 controls are not.
func isText(data []byte) bool {
	for _, b := range data {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x1b {
			return false
		}
	}
	return utf8.Valid(data)
}

// textTypes are the mime types of common text files by extension
// (lowercase), fixed here rather than read from the host.
var textTypes = map[string]string{
	".txt": "text/plain", ".log": "text/plain", ".text": "text/plain",
	".md": "text/markdown", ".markdown": "text/markdown",
	".csv": "text/csv", ".tsv": "text/tab-separated-values",
	".html": "text/html", ".htm": "text/html", ".css": "text/css",
	".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript", ".jsx": "text/javascript",
	".ts": "text/x-typescript", ".tsx": "text/x-typescript",
	".json": "application/json", ".xml": "application/xml", ".svg": "image/svg+xml",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".sql": "application/sql", ".sh": "application/x-sh",
	".go": "text/x-go", ".py": "text/x-python", ".rb": "text/x-ruby", ".rs": "text/x-rust",
	".java": "text/x-java", ".c": "text/x-c", ".h": "text/x-c",
	".cc": "text/x-c++", ".cpp": "text/x-c++", ".hpp": "text/x-c++",
	".diff": "text/x-diff", ".patch": "text/x-diff",
}

// signatures are the leading bytes of the binary formats a prompt is most
// likely to attach, with their mime types.
var signatures = []struct {
	magic []byte
	mime  string
}{
	{[]byte("\x89PNG\r\n\x1a\n"), "image/png"},
	{[]byte("\xff\xd8\xff"), "image/jpeg"},
	{[]byte("GIF87a"), "image/gif"},
	{[]byte("GIF89a"), "image/gif"},
	{[]byte("%PDF-"), "application/pdf"},
	{[]byte("PK\x03\x04"), "application/zip"},
	{[]byte("\x1f\x8b\x08"), "application/gzip"},
}

// signature returns the mime type of data's known binary signature, else "".
func signature(data []byte) string {
	for _, s := range signatures {
		if bytes.HasPrefix(data, s.magic) {
			return s.mime
		}
	}
	if len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")) {
		return "image/webp"
	}
	return ""
}

// JSONSize is how many bytes b takes inside a JSON string as acp sends it,
// or a little more: a quote, a backslash, \t, \n and \r take two bytes,
// another control byte six (\u0000), U+2028 and U+2029 six, a byte that
// is not UTF-8 three (the U+FFFD it becomes).
func JSONSize(b []byte) int {
	n := 0
	for len(b) > 0 {
		if c := b[0]; c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\t' || c == '\n' || c == '\r':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			b = b[1:]
			continue
		}
		r, w := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && w == 1:
			n += 3
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += w
		}
		b = b[w:]
	}
	return n
}
