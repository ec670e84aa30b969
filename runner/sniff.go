package runner

import (
	"bytes"
	"unicode/utf8"
)

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
	{[]byte("\x1f\x8b\x08"), "application/x-gzip"},
}

// sniffType guesses the mime type of a file whose name says nothing, from
// its first bytes: a known binary signature, else text/plain for UTF-8 text
// without binary control bytes, else application/octet-stream. (What
// net/http's DetectContentType does for these cases, without linking
// net/http into acprun.)
func sniffType(data []byte) string {
	head := data[:min(len(data), 512)]
	for _, s := range signatures {
		if bytes.HasPrefix(head, s.magic) {
			return s.mime
		}
	}
	if len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")) {
		return "image/webp"
	}
	for _, b := range head {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x1b {
			return "application/octet-stream"
		}
	}
	if !utf8.Valid(data) {
		return "application/octet-stream"
	}
	return "text/plain; charset=utf-8"
}
