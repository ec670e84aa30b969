package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// transcript writes every message of one scenario as JSONL:
// {"t": ms since start, "dir": "c2a"|"a2c", "msg": {…}}, where msg is the
// JSON-RPC message object; a line that is not a JSON object (garbage on the
// agent's stdout) is kept as a string in "raw" instead of "msg".
type transcript struct {
	path  string
	start time.Time
	red   *redact.Redactor

	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	err error
}

// transcriptNames gives every try of every job of a run its own transcript
// file name (report.TranscriptName): names[i][n] is for try n of job i (n
// from 0, one name per retry its scenario allows). Names that would collide
// (case-insensitively, for case-insensitive file systems) get "-2", "-3"…
// in job order, so the same run gives the same names every time.
func transcriptNames(jobs []job) [][]string {
	names := make([][]string, len(jobs))
	used := map[string]bool{}
	for i, j := range jobs {
		for try := range j.sc.Retries + 1 {
			name := report.TranscriptName(j.ref.Name, j.ref.Agent, j.ref.Attempt, try)
			base := strings.TrimSuffix(name, ".jsonl")
			for n := 2; used[strings.ToLower(name)]; n++ {
				name = fmt.Sprintf("%s-%d.jsonl", base, n)
			}
			used[strings.ToLower(name)] = true
			names[i] = append(names[i], name)
		}
	}
	return names
}

// TranscriptFiles returns the names of the files a run of scenarios with
// opts (its Repeat) may write in its transcripts directory, as Run names
// them: the transcript of every try of every attempt, and beside each the
// transcripts of its judges. Run writes nothing else there. Names are
// unique case-insensitively, as Run makes them (transcriptNames).
func TranscriptFiles(opts Options, scenarios []*scenario.Scenario) []string {
	jobs := jobsOf(scenarios, max(opts.Repeat, 1))
	var files []string
	for i, names := range transcriptNames(jobs) {
		var judges []string
		if sc := jobs[i].sc; sc.Expect.Judge != nil {
			judges = append(judges, judgeWhat)
		}
		for k, t := range jobs[i].sc.Turns {
			if t.Expect.Judge != nil {
				judges = append(judges, turnJudgeWhat(k+1))
			}
		}
		for _, name := range names {
			files = append(files, name)
			for _, what := range judges {
				files = append(files, judgeTranscriptName(name, what))
			}
		}
	}
	return files
}

// newTranscript creates the transcript file name in opts' Transcripts
// directory. A symlink at its place (an agent's, to a file of the user's)
// is removed first, never followed; a FIFO there is written to, as a
// shell redirection would (tests follow a transcript so), once it has a
// reader: one that has none is waited for until ctx ends (an interrupt),
// and not at all once it has (outfile.OpenIn).
func newTranscript(ctx context.Context, opts *Options, name string, red *redact.Redactor) (*transcript, error) {
	dir := opts.transcripts
	if dir == nil {
		d, err := os.OpenRoot(opts.Transcripts)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		dir = d
	}
	if fi, err := dir.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if err := dir.Remove(name); err != nil {
			return nil, err
		}
	}
	f, err := outfile.OpenIn(ctx, dir, name)
	if err != nil {
		return nil, err
	}
	return &transcript{path: filepath.Join(opts.Transcripts, name), start: time.Now(), red: red, f: f, w: bufio.NewWriter(f)}, nil
}

// tap is the connection's acp.Options.Tap.
func (t *transcript) tap(dir acp.Direction, line []byte, at time.Time) {
	d := "a2c"
	if dir == acp.Sent {
		d = "c2a"
	}
	// Redacted inside its decoded strings and keys: valid JSON stays valid.
	msg := t.red.JSON(line)
	key := "msg"
	if trimmed := bytes.TrimLeft(msg, " \t\r"); len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(msg) {
		key = "raw"
		msg, _ = json.Marshal(t.red.String(string(line)))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	_, t.err = fmt.Fprintf(t.w, `{"t":%d,"dir":%q,%q:%s}`+"\n", at.Sub(t.start).Milliseconds(), d, key, msg)
	if t.err == nil {
		// One line at a time reaches the file: a killed run keeps its
		// transcript, and a reader can follow it.
		t.err = t.w.Flush()
	}
}

func (t *transcript) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	t.f.Close()
}
