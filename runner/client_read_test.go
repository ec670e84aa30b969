package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/jail"
	"github.com/acprun/acprun/report"
)

// TestReadLines: readLines returns the lines asked for as the whole file
// cut into lines would give them, lines longer than its buffer included,
// and refuses an answer that would take more than its max as JSON,
// saying which lines fit.
func TestReadLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("l", 3*readChunk+5) + "\n"
	tests := []struct {
		name         string
		src          string
		first, limit int
		max          int
		want         string
		tooLarge     *answerTooLarge // nil: want
	}{
		{"whole", "a\nb\nc\n", 1, -1, 100, "a\nb\nc\n", nil},
		{"from line 2", "a\nb\nc\n", 2, -1, 100, "b\nc\n", nil},
		{"line and limit", "a\nb\nc\nd\n", 2, 2, 100, "b\nc\n", nil},
		{"limit zero", "a\nb\n", 1, 0, 100, "", nil},
		{"past the end", "a\nb\n", 3, -1, 100, "", nil},
		{"no newline at the end", "a\nb", 2, 5, 100, "b", nil},
		{"empty file", "", 1, -1, 100, "", nil},
		{"empty lines", "\n\n\n", 2, 1, 100, "\n", nil},
		{"long lines", "a\n" + long + long + "z", 2, -1, 10 * readChunk, long + long + "z", nil},
		{"after long lines", long + long + "z\n", 3, -1, 10, "z\n", nil},
		{"exactly the max", "abcd\n", 1, -1, 6, "abcd\n", nil},
		{"a byte too many", "abcde\n", 1, -1, 6, "", &answerTooLarge{max: 6, first: 1, line: 1}},
		{"lines that fit", "ab\ncd\nef\ngh\n", 2, -1, 8, "", &answerTooLarge{max: 8, first: 2, line: 4}},
		{"NUL bytes count six", "\x00\x00\n", 1, -1, 13, "", &answerTooLarge{max: 13, first: 1, line: 1, nul: true}},
		{"NUL bytes that fit", "\x00\x00\n", 1, -1, 14, "\x00\x00\n", nil},
		{"quotes count two", `""""` + "\n", 1, -1, 9, "", &answerTooLarge{max: 9, first: 1, line: 1}},
		{"a long line alone", "a\n" + long, 2, -1, readChunk, "", &answerTooLarge{max: readChunk, first: 2, line: 2}},
		{"limit stops before the large line", "a\n" + long, 1, 1, 10, "a\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readLines(t.Context(), strings.NewReader(tt.src), tt.first, tt.limit, tt.max)
			if tt.tooLarge != nil {
				var big *answerTooLarge
				if !errors.As(err, &big) || *big != *tt.tooLarge {
					t.Fatalf("readLines = %q, %v; want %+v", got, err, *tt.tooLarge)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("readLines = %.80q, %v; want %.80q", got, err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := readLines(ctx, strings.NewReader("a\n"), 1, -1, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("readLines after its context ended: %v, want context.Canceled", err)
	}
}

// TestClientReadTooLarge: a read whose answer would exceed maxAnswer
// is refused (recorded as a refusal, not a failure), saying what to do: a
// 60 MiB file of NUL bytes (a single line: it cannot be read this way),
// a text file larger than the cap (read it in parts: the lines that fit
// are named); a slice of the same file is served, and so is a small file
// that holds NUL bytes.
func TestClientReadTooLarge(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := newTestClient(t, ClientConfig{FS: true, Cwd: root, Roots: []string{root}})
	zeros, text, nul := filepath.Join(root, "big.bin"), filepath.Join(root, "big.txt"), filepath.Join(root, "nul.txt")
	f, err := os.Create(zeros)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(60 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	line := strings.Repeat("x", 1023) + "\n" // 1025 bytes as JSON
	if err := os.WriteFile(text, []byte(strings.Repeat(line, 9<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nul, []byte("a\x00b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const cap = "the answer would be larger than 8 MiB, the most acprun sends at once (counted as JSON, where a NUL or other control byte takes 6 bytes): "
	fits := maxAnswer / len(`x`+strings.Repeat("x", 1022)+`\n`)
	for _, tt := range []struct {
		name    string
		params  acp.ReadTextFileRequest
		refused string
		want    string
	}{
		{"NUL bytes", acp.ReadTextFileRequest{Path: zeros},
			zeros + ": " + cap + "line 1 alone is larger, fs/read_text_file cannot read it; it holds NUL bytes: is it a text file?", ""},
		{"text", acp.ReadTextFileRequest{Path: text},
			text + ": " + cap + "read the file in parts with line and limit (lines 1 to " + strconv.Itoa(fits) + " fit)", ""},
		{"text from line 100", acp.ReadTextFileRequest{Path: text, Line: clientInt(100)},
			text + ": " + cap + "read the file in parts with line and limit (lines 100 to " + strconv.Itoa(99+fits) + " fit)", ""},
		{"a slice", acp.ReadTextFileRequest{Path: text, Line: clientInt(9000), Limit: clientInt(2)}, "", line + line},
		{"the lines that fit", acp.ReadTextFileRequest{Path: text, Limit: clientInt(fits)}, "", strings.Repeat(line, fits)},
		{"past the NUL bytes", acp.ReadTextFileRequest{Path: zeros, Line: clientInt(2)}, "", ""},
		{"a small file with NUL bytes", acp.ReadTextFileRequest{Path: nul}, "", "a\x00b\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.params.SessionID = "s"
			res, rec, err := clientCall(t, c, acp.MethodFSReadTextFile, tt.params)
			if tt.refused != "" {
				want := report.ClientRequest{Method: acp.MethodFSReadTextFile, Path: tt.params.Path, Refused: tt.refused}
				if err == nil || err.Code != acp.CodeInvalidParams || err.Message != tt.refused || rec != want {
					t.Errorf("err = %v, record %+v; want code %d and the record %+v", err, rec, acp.CodeInvalidParams, want)
				}
				return
			}
			got, _ := res["content"].(string)
			if err != nil || got != tt.want || rec.Refused != "" || rec.Bytes != len(tt.want) {
				t.Errorf("err = %v, %d bytes, record %+v; want %d bytes served", err, len(got), rec, len(tt.want))
			}
		})
	}
}

// TestClientReadAttached: a file a prompt attached is served to
// fs/read_text_file by its path even outside the roots (the agent got a
// resource_link to it), read-only, once the prompt has given it and as
// the prompt gave it; another file beside it is not, nor one changed
// since.
func TestClientReadAttached(t *testing.T) {
	t.Parallel()
	root, outside := clientTree(t)
	spec, other := filepath.Join(outside, "spec.md"), filepath.Join(outside, "other.md")
	for _, p := range []string{spec, other} {
		if err := os.WriteFile(p, []byte("line 1\nline 2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	attached := NewAttachments(os.ReadFile)
	c := newTestClient(t, ClientConfig{FS: true, Cwd: root, Roots: []string{root}, Attached: attached})
	read := func(path string) (string, report.ClientRequest, *acp.Error) {
		res, rec, err := clientCall(t, c, acp.MethodFSReadTextFile, acp.ReadTextFileRequest{SessionID: "s", Path: path, Line: clientInt(2)})
		got, _ := res["content"].(string)
		return got, rec, err
	}
	if _, rec, err := read(spec); err == nil || !strings.Contains(rec.Refused, "outside the allowed roots") {
		t.Errorf("before a prompt gave it: %v, record %+v; want refused", err, rec)
	}
	attached.Give(spec, []byte("line 1\nline 2\n"))
	if got, rec, err := read(spec); err != nil || got != "line 2\n" || rec.Refused != "" {
		t.Errorf("attached file read: %q, %v, record %+v; want line 2", got, err, rec)
	}
	if _, rec, err := read(other); err == nil || !strings.Contains(rec.Refused, "outside the allowed roots") {
		t.Errorf("a file beside it: %v, record %+v; want refused", err, rec)
	}
	if _, rec, err := clientCall(t, c, acp.MethodFSWriteTextFile, acp.WriteTextFileRequest{SessionID: "s", Path: spec, Content: "x"}); err == nil || !strings.Contains(rec.Refused, "outside the allowed roots") {
		t.Errorf("a write to it: %v, record %+v; want refused", err, rec)
	}
	if err := os.WriteFile(spec, []byte("planted\nby the agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, rec, err := read(spec); err == nil || got != "" || !strings.Contains(rec.Refused, "the attached file has changed since its prompt gave it") {
		t.Errorf("changed since: %q, %v, record %+v; want refused", got, err, rec)
	}
}

// TestClientReadAttachedHidden: a file a prompt attached under a path the
// sandbox hides, inside the roots, is served to fs/read_text_file as it
// is outside them (the scenario gave it to the agent); another file in
// the hidden path is not, and neither is written.
func TestClientReadAttachedHidden(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	private := filepath.Join(root, "private")
	brief, other := filepath.Join(private, "brief.md"), filepath.Join(private, "other.md")
	if err := os.Mkdir(private, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{brief, other} {
		if err := os.WriteFile(p, []byte("BRIEF\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	attached := NewAttachments(os.ReadFile)
	c := newTestClient(t, ClientConfig{FS: true, Cwd: root, Roots: []string{root}, Hidden: []string{private}, Attached: attached})
	read := func(path string) (string, report.ClientRequest, *acp.Error) {
		res, rec, err := clientCall(t, c, acp.MethodFSReadTextFile, acp.ReadTextFileRequest{SessionID: "s", Path: path})
		got, _ := res["content"].(string)
		return got, rec, err
	}
	const hidden = "is hidden by the sandbox"
	if _, rec, err := read(brief); err == nil || !strings.Contains(rec.Refused, hidden) {
		t.Errorf("before a prompt gave it: %v, record %+v; want refused", err, rec)
	}
	attached.Give(brief, []byte("BRIEF\n"))
	if got, rec, err := read(brief); err != nil || got != "BRIEF\n" || rec.Refused != "" || rec.Bytes != len("BRIEF\n") {
		t.Errorf("attached file read: %q, %v, record %+v; want it served", got, err, rec)
	}
	if _, rec, err := read(other); err == nil || !strings.Contains(rec.Refused, hidden) {
		t.Errorf("a file beside it: %v, record %+v; want refused", err, rec)
	}
	if _, rec, err := clientCall(t, c, acp.MethodFSWriteTextFile, acp.WriteTextFileRequest{SessionID: "s", Path: brief, Content: "x"}); err == nil || !strings.Contains(rec.Refused, hidden) {
		t.Errorf("a write to it: %v, record %+v; want refused", err, rec)
	}
	if b, err := os.ReadFile(brief); err != nil || string(b) != "BRIEF\n" {
		t.Errorf("brief.md = %q, %v; want it unchanged", b, err)
	}
}

// TestClientNotAFile: a socket is not a regular file, to read as to
// write, and a symlink loop is no file either: both are the agent's bad
// params (-32602) with a message that says so, not an internal error
// with the system's.
func TestClientNotAFile(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	sock, loop := filepath.Join(root, "sock"), filepath.Join(root, "loop")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, ClientConfig{FS: true, Terminal: true, Cwd: root, Roots: []string{root}, Policy: &approve.Policy{Default: approve.Allow}})
	for _, tt := range []struct {
		method string
		params any
		want   string
	}{
		{acp.MethodFSReadTextFile, acp.ReadTextFileRequest{SessionID: "s", Path: sock}, sock + " is not a regular file"},
		{acp.MethodFSWriteTextFile, acp.WriteTextFileRequest{SessionID: "s", Path: sock, Content: "x"}, sock + " is not a regular file"},
		{acp.MethodFSReadTextFile, acp.ReadTextFileRequest{SessionID: "s", Path: loop}, loop + ": too many levels of symbolic links (a symlink loop?)"},
		{acp.MethodFSWriteTextFile, acp.WriteTextFileRequest{SessionID: "s", Path: loop, Content: "x"}, loop + ": too many levels of symbolic links (a symlink loop?)"},
		{acp.MethodFSReadTextFile, acp.ReadTextFileRequest{SessionID: "s", Path: loop + "/x"}, loop + "/x: too many levels of symbolic links (a symlink loop?)"},
		{acp.MethodTerminalCreate, acp.CreateTerminalRequest{SessionID: "s", Command: "true", Cwd: loop}, loop + ": too many levels of symbolic links (a symlink loop?)"},
	} {
		_, rec, err := clientCall(t, c, tt.method, tt.params)
		if err == nil || err.Code != acp.CodeInvalidParams || err.Message != tt.want || rec.Error != tt.want {
			t.Errorf("%s %+v: %v, record %+v; want %d %q", tt.method, tt.params, err, rec, acp.CodeInvalidParams, tt.want)
		}
	}
}

// TestClientJailChanged: a write the jail refuses because its path
// changed while being opened (the agent raced its own request) is the
// agent's bad params, recorded as refused.
func TestClientJailChanged(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := newTestClient(t, ClientConfig{FS: true, Cwd: root, Roots: []string{root}})
	path := filepath.Join(root, "d", "f.txt")
	rec := report.ClientRequest{Method: acp.MethodFSWriteTextFile, Path: path}
	err := c.jailError(&rec, path, fmt.Errorf("open %s: %s: a symlink or a file took its place: %w", path, filepath.Dir(path), jail.ErrChanged))
	want := path + " changed while acprun opened it (a symlink or a file took the place of a directory on its path): nothing written"
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || ae.Message != want || rec.Refused != want {
		t.Errorf("%v, record %+v; want %d %q, refused", err, rec, acp.CodeInvalidParams, want)
	}
}
