package runner

import (
	"os"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/scenario"
)

// inputs are files acprun reads once agents may have written where they
// are, by path, each pinned (inputfile.Pins) before any agent starts: the
// files and images prompts attach (read at their turn) and the golden
// files of files expectations (read after the agent's work), pinInputs;
// the cassettes replay reads, pinCassettes. An agent whose cwd holds one
// (beside the scenario file, by default) may put a symlink to a file of
// the user's in its place (spec.md -> ~/.ssh/id_rsa) for a later turn,
// attempt or scenario: the link is refused rather than followed into the
// prompt, the transcript or the failures. A nil inputs (outside Run)
// reads each file by its path.
type inputs map[string]*inputfile.Pinned

// pinInputs pins the attachments and golden files of scenarios in pins.
func pinInputs(pins *inputfile.Pins, scenarios []*scenario.Scenario) inputs {
	in := inputs{}
	pin := func(path string) {
		if path != "" && in[path] == nil {
			in[path] = pins.Pin(path)
		}
	}
	golden := func(e *scenario.FilesExpect) {
		if e != nil {
			for _, g := range e.Golden {
				pin(g.Golden)
			}
		}
	}
	for _, sc := range scenarios {
		golden(sc.Expect.Files)
		for _, t := range sc.Turns {
			for _, p := range t.Prompt {
				pin(p.File)
				pin(p.Image)
			}
			golden(t.Expect.Files)
		}
	}
	return in
}

// read reads the file path (one of the run's inputs), a regular file of
// at most limit bytes: pinned, or by its path outside Run.
func (in inputs) read(path string, limit int64) ([]byte, error) {
	if p := in[path]; p != nil {
		return p.Read(limit)
	}
	return inputfile.Read(path, limit) // never a FIFO's wait
}

// open opens the file path (one of the run's inputs), a regular file of
// any size, to be read as a stream: pinned, or by its path outside Run.
func (in inputs) open(path string) (*os.File, error) {
	if p := in[path]; p != nil {
		return p.Open()
	}
	return inputfile.Open(path, -1) // never a FIFO's wait
}
