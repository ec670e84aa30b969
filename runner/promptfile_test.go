package runner

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/scenario"
)

// TestPromptBlocksNotRegular: a prompt part that became a FIFO or a link
// to /dev/zero after validation is not read (which would block, or never
// end) but sent as a link (a file) or left out (an image), with a warning
// saying why.
func TestPromptBlocksNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "z.png")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	r := &scenarioRun{}
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
	if len(blocks) != 1 || len(warnings) != 2 {
		t.Fatalf("blocks %+v, warnings %q; want a link and two warnings", blocks, warnings)
	}
	for i, want := range []string{fifo + ": not a regular file (a FIFO): give a file; sent as a link",
		zero + ": not a regular file (a character device): give a file; image not sent"} {
		if !strings.HasPrefix(warnings[i], "s.yaml:3:7: ") || !strings.Contains(warnings[i], want) {
			t.Errorf("warning %q, want s.yaml:3:7: ... %q", warnings[i], want)
		}
	}
}
