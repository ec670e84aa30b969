package gateway

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/testkit"
)

// TestOpenReplayErrors: a cassette that cannot be replayed is an error
// that names it (never a temporary file) and says what to do; one that is
// not a regular file (a FIFO, a link to /dev/zero) or is too large is
// refused before a byte is read.
func TestOpenReplayErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	missing := filepath.Join(dir, "missing.cassette.json")
	fifo, zero, huge := filepath.Join(dir, "fifo.json"), filepath.Join(dir, "zero.json"), write("huge.json", "")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, maxCassetteBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want string
	}{
		{missing, "cassette " + missing + " does not exist: record it with --gateway record"},
		{dir, "cassette " + dir + ": not a regular file (a directory): give a file"},
		{fifo, "cassette " + fifo + ": not a regular file (a FIFO): give a file"},
		{zero, "cassette " + zero + ": not a regular file (a character device): give a file"},
		{huge, "cassette " + huge + ": larger than 1024 MiB, the most acprun reads of it"},
		{write("v2.json", `{"version": 2, "exchanges": []}`), "cassette " + filepath.Join(dir, "v2.json") + " is version 2; this acprun reads version 1: record it again with --gateway record"},
		{write("nov.json", `{"exchanges": []}`), "cassette " + filepath.Join(dir, "nov.json") + " has no version: it is not an acprun cassette; record it again with --gateway record"},
		{write("syntax.json", "{\"version\": 1,\n  \"exchanges\": [}\n"), filepath.Join(dir, "syntax.json") + ":2:17: not a valid cassette: invalid character '}' looking for beginning of value; record it again with --gateway record"},
		// At the end of the last line, as a results or state file's error
		// is: the file has no line 2.
		{write("cut.json", "{\"version\": 1,\n"), filepath.Join(dir, "cut.json") + ":1:15: not a valid cassette: unexpected end of JSON input; record it again with --gateway record"},
		{write("accent.json", "{\"version\": 1, \"exchanges\": [é]}"), filepath.Join(dir, "accent.json") + ":1:30: not a valid cassette: invalid character 'é' looking for beginning of value; record it again with --gateway record"},
		{write("type.json", "{\"version\": 1,\n \"exchanges\": [{\"response\": {\"status\": \"200\"}}]}"), filepath.Join(dir, "type.json") + ":2:44: not a valid cassette: exchanges[0].response.status is a string, not a whole number; record it again with --gateway record"},
		{write("array.json", "[]"), filepath.Join(dir, "array.json") + ":1:1: not a valid cassette: it is an array, not an object; record it again with --gateway record"},
		{write("exobj.json", "{\"version\": 1, \"exchanges\": {}}"), filepath.Join(dir, "exobj.json") + ":1:29: not a valid cassette: exchanges is an object, not an array; record it again with --gateway record"},
		{write("bool.json", "{\"version\": true}"), filepath.Join(dir, "bool.json") + ":1:16: not a valid cassette: version is true or false, not a whole number; record it again with --gateway record"},
		{write("nomethod.json", `{"version": 1, "exchanges": [{"request": {"path": "/v1/x"}, "response": {"status": 200}}]}`), "cassette " + filepath.Join(dir, "nomethod.json") + ": exchange 1: the request has no method; record it again with --gateway record"},
		{write("status.json", `{"version": 1, "exchanges": [{"request": {"method": "GET", "path": "/v1/x"}, "response": {"status": 1200}}]}`), "cassette " + filepath.Join(dir, "status.json") + ": exchange 1: the response's status 1200 is not an HTTP status; record it again with --gateway record"},
		// Status 0 only for an answer abandoned before its headers came.
		{write("status0.json", `{"version": 1, "exchanges": [{"request": {"method": "GET", "path": "/v1/x"}, "response": {"status": 0, "events": [{"ms": 1, "data": "x"}], "abandoned": true}}]}`), "cassette " + filepath.Join(dir, "status0.json") + ": exchange 1: the response's status 0 is not an HTTP status; record it again with --gateway record"},
	}
	for _, c := range cases {
		_, err := Open(t.Context(), Config{Mode: Replay, Cassette: c.path})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", filepath.Base(c.path), err, c.want)
		}
	}
	if _, err := Open(t.Context(), Config{Mode: "rewind"}); err == nil || !strings.Contains(err.Error(), `unknown mode "rewind"`) {
		t.Errorf("unknown mode: %v", err)
	}
}

// TestWriteCassetteErrors: a cassette that cannot be written is an error
// naming it, not the temporary file, and leaves nothing behind.
func TestWriteCassetteErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	path := filepath.Join(blocker, "c.json")
	err := writeCassette(t.Context(), nil, path, &cassette{Version: 1})
	if err == nil || !strings.HasPrefix(err.Error(), "write cassette "+path+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("got %v", err)
	}
	// A directory in the cassette's place: the rename fails.
	target := filepath.Join(dir, "taken")
	os.MkdirAll(filepath.Join(target, "x"), 0o755)
	err = writeCassette(t.Context(), nil, target, &cassette{Version: 1})
	if err == nil || !strings.HasPrefix(err.Error(), "write cassette "+target+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("got %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left %v", entries)
	}
}

// TestWriteCassetteInDir: written in its directory opened beforehand, a
// cassette replaces a symlink put at its place since, rather than write
// through it.
func TestWriteCassetteInDir(t *testing.T) {
	dir := t.TempDir()
	root := openRoot(t, dir)
	victim := filepath.Join(t.TempDir(), "bashrc")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	path := filepath.Join(dir, "g.cassette.json")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := writeCassette(t.Context(), root, path, &cassette{Version: 1}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("written through the link: %q", data)
	}
	if c, err := readCassette(nil, path); err != nil || c.Version != 1 {
		t.Errorf("the cassette: %+v, %v", c, err)
	}
}

// TestCloseTellsItsTemporaryFile: in record, Close writes the cassette
// in its directory through a temporary file whose path it tells Open's
// ctx's outfile.WithTemps hook before it makes it (the run's guard
// removes it if acprun is killed mid-write), even when that ctx has
// ended.
func TestCloseTellsItsTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.cassette.json")
	ctx, check := testkit.TempsOf(t, path)
	a, err := Open(ctx, Config{Mode: Record, Cassette: path, Dir: openRoot(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	check()
	if c, err := readCassette(nil, path); err != nil || c.Version != 1 {
		t.Errorf("the cassette: %+v, %v", c, err)
	}
}

// openRoot opens dir as an os.Root, closed at the end of the test.
func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// TestReadCassettePinned: replay reads a cassette pinned beforehand, and
// refuses a symlink put at its place since (to a file of the user's),
// rather than read what it points at.
func TestReadCassettePinned(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.cassette.json")
	writeCassetteFile(t, path, &cassette{Version: 1})
	var pins inputfile.Pins
	defer pins.Close()
	pin := pins.Pin(path)
	if c, err := readCassette(pin, path); err != nil || c.Version != 1 {
		t.Fatalf("the cassette: %+v, %v", c, err)
	}
	victim := filepath.Join(t.TempDir(), "id_rsa")
	os.WriteFile(victim, []byte("SECRET\n"), 0o600)
	os.Remove(path)
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	_, err := readCassette(pin, path)
	if want := "cassette " + path + ": replaced by a symbolic link since the run started"; !errors.Is(err, inputfile.ErrLink) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a planted link: %v; want %s…", err, want)
	}
}

// TestEventBytes: answers that are not UTF-8 are kept in base64 and
// replayed byte for byte.
func TestEventBytes(t *testing.T) {
	for _, p := range [][]byte{[]byte("data: héllo\n\n"), {0x1f, 0x8b, 0xff, 0x00}} {
		e := newEvent(3, p)
		if string(e.bytes()) != string(p) || (e.Base64 != "") == (e.Data != "") {
			t.Errorf("%q: event %+v gives %q", p, e, e.bytes())
		}
	}
}
