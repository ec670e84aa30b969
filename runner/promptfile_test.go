package runner

import (
	"mime"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/scenario"
)

// TestPromptBlocksNotRegular: a prompt part that became a FIFO or a link
// to /dev/zero after validation is not read (which would block, or never
// end) but sent as a link, with a warning saying why.
func TestPromptBlocksNotRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "z.png")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	r := &scenarioRun{opts: &Options{}, sess: &session{}}
	r.init.AgentCapabilities.PromptCapabilities = acp.PromptCapabilities{EmbeddedContext: true, Image: true}
	pos := scenario.Pos{File: "s.yaml", Line: 3, Col: 7}
	done := make(chan struct{})
	var blocks []acp.ContentBlock
	var warnings []string
	go func() {
		defer close(done)
		blocks, warnings = r.promptBlocks(scenario.Turn{Prompt: []scenario.Part{
			{Pos: pos, File: fifo},
			{Pos: pos, Image: zero, MimeType: "image/png"},
		}})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a failsafe: it ends at once
		t.Fatal("promptBlocks blocked on a FIFO")
	}
	if len(blocks) != 2 || blocks[0].Type != acp.ContentResourceLink || blocks[1].Type != acp.ContentResourceLink || len(warnings) != 2 {
		t.Fatalf("blocks %+v, warnings %q; want two links and two warnings", blocks, warnings)
	}
	for i, want := range []string{fifo + ": not a regular file (a FIFO): give a file; sent as a link",
		zero + ": not a regular file (a character device): give a file; sent as a link"} {
		if !strings.HasPrefix(warnings[i], "s.yaml:3:7: ") || !strings.Contains(warnings[i], want) {
			t.Errorf("warning %q, want s.yaml:3:7: ... %q", warnings[i], want)
		}
	}
}

// TestPromptBlocksImageAsLink: an image goes to an agent that does not
// accept images as a resource_link to its file (which every agent
// accepts), with a warning: a prompt of images alone never goes out empty.
func TestPromptBlocksImageAsLink(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "shot one.png")
	if err := os.WriteFile(img, []byte("\x89PNG\r\n\x1a\nxxxx"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &scenarioRun{opts: &Options{}, sess: &session{}}
	pos := scenario.Pos{File: "s.yaml", Line: 8, Col: 16}
	blocks, warnings := r.promptBlocks(scenario.Turn{Prompt: []scenario.Part{{Pos: pos, Image: img, MimeType: "image/png"}}})
	want := []acp.ContentBlock{{Type: acp.ContentResourceLink, URI: fileURI(img), Name: "shot one.png", MimeType: "image/png"}}
	if diff := gocmp.Diff(blocks, want); diff != "" {
		t.Errorf("blocks (-got +want):\n%s", diff)
	}
	wantWarning := "s.yaml:8:16: the agent does not accept images (promptCapabilities.image); image shot one.png sent as a link"
	if len(warnings) != 1 || warnings[0] != wantWarning {
		t.Errorf("warnings %q, want [%q]", warnings, wantWarning)
	}
}

// TestInputsPlantedLink: the files prompts attach and the golden files
// are pinned when the run starts (pinInputs): a symlink an agent put in
// the place of one since (to a file of the user's) is not followed, so
// the file it points at goes neither into the prompt nor into the
// failures; the turn's attachment is sent as a link, with a warning.
func TestInputsPlantedLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "id_rsa")
	spec, golden := filepath.Join(dir, "spec.md"), filepath.Join(dir, "golden.txt")
	for p, data := range map[string]string{victim: "SECRET\n", spec: "spec\n", golden: "want\n", filepath.Join(dir, "out.txt"): "got\n"} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pos := scenario.Pos{File: "s.yaml", Line: 3, Col: 7}
	files := &scenario.FilesExpect{Pos: pos, Golden: []scenario.FileGolden{{Pos: pos, Path: "out.txt", Golden: golden}}}
	turn := scenario.Turn{Prompt: []scenario.Part{{Pos: pos, File: spec}}, Expect: scenario.Expect{Files: files}}
	var pins inputfile.Pins
	defer pins.Close()
	in := pinInputs(&pins, []*scenario.Scenario{{Turns: []scenario.Turn{turn}}})
	for _, p := range []string{spec, golden} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, p); err != nil {
			t.Fatal(err)
		}
	}
	r := &scenarioRun{opts: &Options{inputs: in}, sess: &session{}}
	r.init.AgentCapabilities.PromptCapabilities = acp.PromptCapabilities{EmbeddedContext: true}
	blocks, warnings := r.promptBlocks(turn)
	want := "s.yaml:3:7: " + spec + ": replaced by a symbolic link since the run started, which acprun does not follow (an agent may have put it there); sent as a link"
	if len(blocks) != 1 || blocks[0].Type != "resource_link" || len(warnings) != 1 || warnings[0] != want {
		t.Errorf("blocks %+v, warnings %q; want a link and %q", blocks, warnings, want)
	}
	fails := checkFiles(t.Context(), nil, files, dir, nil, nil, nil, false, in)
	wantFail := "s.yaml:3:7: files.golden: cannot read the golden file: " + golden + ": replaced by a symbolic link"
	if len(fails) != 1 || !strings.HasPrefix(fails[0], wantFail) || strings.Contains(fails[0], "SECRET") {
		t.Errorf("files.golden: %q; want %q…", fails, wantFail)
	}
}

// TestFileBlockForm: an attached file is sent as its bytes say, whatever
// the host's mime database says of its extension (here .ts as Apache's
// mime.types has it, an MPEG stream): TypeScript as text; UTF-16 text,
// full of NULs, as a blob, not as text/plain.
func TestFileBlockForm(t *testing.T) {
	if err := mime.AddExtensionType(".ts", "video/mp2t"); err != nil {
		t.Fatal(err)
	}
	ts := fileBlock("file:///p/a.ts", "/p/a.ts", []byte("export const a = 1\n"))
	if r := ts.Resource; r == nil || r.Text != "export const a = 1\n" || r.Blob != "" || r.MimeType != "text/x-typescript" {
		t.Errorf("a.ts sent as %+v, want text/x-typescript text", r)
	}
	utf16 := []byte("\xff\xfeh\x00i\x00\n\x00")
	log := fileBlock("file:///p/a.log", "/p/a.log", utf16)
	if r := log.Resource; r == nil || r.Blob == "" || r.Text != "" || r.MimeType != "application/octet-stream" {
		t.Errorf("a UTF-16 a.log sent as %+v, want an application/octet-stream blob", r)
	}
}
