package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// transcript writes every message of one scenario as JSONL:
// {"t": ms since start, "dir": "c2a"|"a2c", "msg": {…}}, where msg is the
// JSON-RPC message object; a line that is not a JSON object (garbage on the
// agent's stdout) is kept as a string in "raw" instead of "msg".
//
// Messages are redacted one by one, but the chunks of a message an agent
// streams are redacted as the text they make: a secret split between
// chunks is redacted too (redact.Redactor.Pieces). While the text so far
// ends with what may begin a secret, its last chunks, and every line
// after them, wait to be written until what follows tells: the next
// chunk, or the end of the stream, which is the agent's next line that is
// not one of its chunks.
type transcript struct {
	path  string
	start time.Time
	red   *redact.Redactor

	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	err  error
	held []transcriptLine // lines not written yet, in order
	open string           // the stream of the agent's last line, if a chunk
}

// transcriptLine is one line of a transcript before it is written.
type transcriptLine struct {
	dir  string // "a2c" or "c2a"
	line []byte
	at   time.Time
	// chunk is set for a text chunk of a streamed message: its stream
	// (session and kind), its text, and that text redacted with the
	// stream's text around it.
	chunk       bool
	stream      string
	text, final string
	wait        bool // the chunk waits for what follows it
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
	l := transcriptLine{dir: "a2c", line: line, at: at}
	if dir == acp.Sent {
		l.dir = "c2a"
	} else {
		l.stream, l.text, l.chunk = streamedText(line)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	if l.dir == "a2c" {
		t.open = l.stream // what another stream held is all there is
	}
	t.held = append(t.held, l)
	t.release(false)
	if n := len(t.held); n > 0 { // then this line is held too, at the end
		t.held[n-1].line = bytes.Clone(line) // it is the caller's
	}
}

// release writes the lines held, in order, up to the first chunk that
// must wait for what follows it; all of them when all is set (the end).
// The caller holds t.mu.
func (t *transcript) release(all bool) {
	streams := map[string][]int{} // the held chunks of each stream
	for i, l := range t.held {
		if l.chunk {
			streams[l.stream] = append(streams[l.stream], i)
		}
	}
	for _, idx := range streams {
		pieces := make([]string, len(idx))
		for k, i := range idx {
			pieces[k] = t.held[i].text
		}
		final, wait := t.red.Pieces(pieces)
		if all || t.held[idx[0]].stream != t.open {
			wait = 0 // the stream has ended
		}
		for k, i := range idx {
			t.held[i].final, t.held[i].wait = final[k], k >= len(idx)-wait
		}
	}
	n := 0
	for n < len(t.held) && (all || !t.held[n].wait) && t.err == nil {
		t.write(t.held[n])
		n++
	}
	t.held = slices.Delete(t.held, 0, n)
}

// write writes line l, redacted.
func (t *transcript) write(l transcriptLine) {
	// Redacted inside its decoded strings and keys: valid JSON stays valid.
	msg := t.red.JSON(l.line)
	key := "msg"
	if trimmed := bytes.TrimLeft(msg, " \t\r"); len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(msg) {
		key = "raw"
		msg, _ = json.Marshal(t.red.String(string(l.line)))
	} else if l.chunk && l.final != t.red.String(l.text) {
		// A secret goes on from this chunk into another.
		msg = setString(msg, l.final, "params", "update", "content", "text")
	} else if out, ok := cutOutput(l); ok {
		msg = setString(msg, t.red.Cut(out), "result", "output")
	}
	_, t.err = fmt.Fprintf(t.w, `{"t":%d,"dir":%q,%q:%s}`+"\n", l.at.Sub(t.start).Milliseconds(), l.dir, key, msg)
	if t.err == nil {
		// One line at a time reaches the file: a killed run keeps its
		// transcript, and a reader can follow it.
		t.err = t.w.Flush()
	}
}

// streamedText returns the stream (session and kind) and the text of line
// when it is a text chunk of a streamed message (agent_message_chunk,
// agent_thought_chunk, user_message_chunk).
func streamedText(line []byte) (stream, text string, ok bool) {
	var n struct {
		Method string `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Type string  `json:"type"`
					Text *string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil || n.Method != acp.MethodSessionUpdate {
		return "", "", false
	}
	u := n.Params.Update
	switch u.SessionUpdate {
	case acp.UpdateAgentMessageChunk, acp.UpdateAgentThoughtChunk, acp.UpdateUserMessageChunk:
		if u.Content.Type == acp.ContentText && u.Content.Text != nil {
			return n.Params.SessionID + "\x00" + u.SessionUpdate, *u.Content.Text, true
		}
	}
	return "", "", false
}

// cutOutput returns the output of line l when it is acprun's answer to
// terminal/output with output cut off at its beginning (truncated).
func cutOutput(l transcriptLine) (string, bool) {
	if l.dir != "c2a" {
		return "", false
	}
	var r struct {
		Result struct {
			Output    *string `json:"output"`
			Truncated bool    `json:"truncated"`
		} `json:"result"`
	}
	if json.Unmarshal(l.line, &r) != nil || r.Result.Output == nil || !r.Result.Truncated {
		return "", false
	}
	return *r.Result.Output, true
}

// setString returns the JSON object msg with the string at path set to s;
// msg as it is when that fails.
func setString(msg []byte, s string, path ...string) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(msg, &obj) != nil {
		return msg
	}
	var v []byte
	if len(path) == 1 {
		v, _ = json.Marshal(s)
	} else {
		inner, ok := obj[path[0]]
		if !ok {
			return msg
		}
		if v = setString(inner, s, path[1:]...); bytes.Equal(v, inner) {
			return msg
		}
	}
	obj[path[0]] = v
	out, err := json.Marshal(obj)
	if err != nil {
		return msg
	}
	return out
}

func (t *transcript) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.release(true)
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	t.f.Close()
}
