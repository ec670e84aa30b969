package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/yamlnode"
)

// MaxPromptBytes bounds a prompt read from a file (prompt: {file: PATH},
// run --prompt FILE) or from stdin (run --prompt -); MaxPromptFileBytes
// bounds the prompt files of one scenario file together (each counted
// once, however many turns name it).
const (
	MaxPromptBytes     = MaxFileBytes
	MaxPromptFileBytes = 4 * MaxPromptBytes
)

// promptFileKeys are the keys of a prompt given as a mapping.
var promptFileKeys = []string{"file"}

// tooLongPrompt is the end of the message about a prompt over
// MaxPromptBytes.
var tooLongPrompt = fmt.Sprintf("is larger than %d MiB, the most a prompt may hold (attach a long text as a file part instead: prompt: [{file: PATH}])", MaxPromptBytes>>20)

// ReadPrompt reads a prompt's text from r: UTF-8, or UTF-16 with a byte
// order mark as a scenario file may be (yamlnode.UTF8Text), not only
// white space, at most MaxPromptBytes (read, and in UTF-8). A byte order
// mark is no part of the text, which is otherwise kept as it is, final
// newline included; it is not interpolated. Its errors are predicates
// ("is empty"), for the caller to put after what it read: "stdin is
// empty".
func ReadPrompt(r io.Reader) (string, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPromptBytes+1))
	if err == nil && len(data) <= MaxPromptBytes {
		data = bytes.TrimPrefix(yamlnode.UTF8Text(data), []byte("\ufeff"))
	}
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot be read: %w", bareError(err))
	case len(data) > MaxPromptBytes:
		return "", errors.New(tooLongPrompt)
	case !utf8.Valid(data):
		return "", errors.New("is not UTF-8 text")
	case strings.TrimSpace(string(data)) == "":
		return "", errors.New("is empty")
	}
	return string(data), nil
}

// ReadPromptFile reads a prompt's text from the file path, as ReadPrompt
// does. The file must be a regular file (or a symbolic link to one), so
// that a FIFO or a device can never make loading hang. Its errors are
// predicates, as ReadPrompt's.
func ReadPromptFile(path string) (string, error) {
	f, err := inputfile.Open(path, MaxPromptBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", errors.New("does not exist")
	case errors.Is(err, inputfile.ErrTooLarge):
		return "", errors.New(tooLongPrompt)
	case errors.Is(err, inputfile.ErrNotRegular):
		return "", fmt.Errorf("is %w", bareError(err))
	case err != nil:
		return "", fmt.Errorf("cannot be read: %w", bareError(err))
	}
	defer f.Close()
	return ReadPrompt(f)
}

// bareError is err without the operation and path of an *fs.PathError,
// or the reason of an *inputfile.Error: the message says the path.
func bareError(err error) error {
	err = inputfile.Bare(err)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// promptFile reads a prompt given as a mapping, prompt: {file: PATH}: the
// prompt is the text of PATH, relative to the scenario file, read now so
// that validate and run --dry-run show it. Like an inline prompt it is not
// interpolated. (In a list of parts, file: attaches a file instead.)
func (p *fileParser) promptFile(n *yaml.Node) []Part {
	m, ok := p.mapping(n, promptFileKeys, func(key string) string {
		return "a prompt mapping reads the prompt from a file (prompt: {file: PATH}); for several parts write a list: prompt: [{" + key + ": ...}]"
	})
	if !ok {
		return nil
	}
	v := m.value("file")
	if v == nil {
		if m.empty() {
			p.Errorf(n, "prompt is empty: give a string, {file: PATH} or a list of text, file and image parts")
		}
		return nil
	}
	path, ok := p.str(v)
	if !ok {
		return nil
	}
	v = yamlnode.Deref(v)
	if path == "" {
		p.Errorf(v, "prompt file path is empty")
		return nil
	}
	if !p.noNUL(v, path) {
		return nil
	}
	abs := p.abs(path)
	text, seen := p.prompts[abs]
	if !seen {
		var err error
		if text, err = ReadPromptFile(abs); err != nil {
			p.Errorf(v, "prompt file %q %v", path, err)
			return nil
		}
		if p.prompts == nil {
			p.prompts = map[string]string{}
		}
		if p.promptBytes+len(text) > MaxPromptFileBytes {
			p.Errorf(v, "prompt file %q: the prompt files of this file hold more than %d MiB in all; split the scenarios over several files", path, MaxPromptFileBytes>>20)
			p.prompts[abs] = "" // reported once; the file does not load anyway
			return nil
		}
		p.prompts[abs] = text
		p.promptBytes += len(text)
	}
	return []Part{{Pos: p.pos(v), Text: text}}
}

// Prompt is the text of a turn given on the command line (run --prompt),
// and where it came from, for the turn's messages.
type Prompt struct {
	Text string
	Pos  Pos
}

// WithPrompts returns a copy of the scenario whose turns are one turn per
// prompt, in order, as run --prompt makes them: each sends its text, has
// the default expectation (stopReason end_turn) and the scenario's turn
// timeout. The scenario's own expectations, setup, verify and teardown
// stay.
func (sc *Scenario) WithPrompts(prompts []Prompt) *Scenario {
	c := *sc
	c.Turns = make([]Turn, len(prompts))
	for i, p := range prompts {
		c.Turns[i] = Turn{
			Pos:    p.Pos,
			Prompt: []Part{{Pos: p.Pos, Text: p.Text}},
			Expect: Expect{Pos: p.Pos, StopReasons: []string{"end_turn"}},
		}
	}
	return &c
}
