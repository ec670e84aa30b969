package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
	"github.com/acprun/acprun/internal/writequeue"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// transcript writes every message of one scenario as JSONL:
// {"t": ms since start, "dir": "c2a"|"a2c", "msg": {…}}, where msg is the
// JSON-RPC message object; a line that is not a JSON object (garbage on the
// agent's stdout) is kept as a string in "raw" instead of "msg".
//
// It holds only what the agent was sent: a line acprun writes waits, and
// the lines after it with it, until its write has ended (acp.Written); one
// whose write failed (acp.Unsent: the agent had closed its input or
// exited) is left out.
//
// Messages are redacted one by one, but the chunks an agent streams are
// redacted as the text they make, stream by stream (a session's message
// and thoughts as one, in arrival order; then its message, thoughts, user
// message and each compaction's summary each on its own), over the whole
// transcript: a secret split
// between chunks is redacted too (redact.Redactor.Pieces), whatever lines
// come between them, the end of a turn and the start of the next among
// them, for the chunks of consecutive turns follow each other in the file.
// While a stream's text so far ends with what may begin a secret, its last
// chunks, and every line after them, wait to be written until what
// follows tells: the stream's next chunk, or the transcript's end. No
// longer than maxHeld bytes of lines wait so.
//
// The lines are written to the file by a goroutine of its own, so that a
// FIFO whose reader is slow never holds up the turn, nor acprun's writes
// to the agent (a session/cancel at a deadline). Past maxTranscriptHeld
// bytes waiting for it (a stuck reader) lines are dropped, and a record
// {"t": ms, "dropped": n} takes their place (gap).
type transcript struct {
	path  string
	start time.Time
	red   *redact.Redactor
	f     *os.File
	q     *writequeue.Queue // to f

	mu   sync.Mutex
	held []transcriptLine // lines not queued yet, in order
	// tails holds, for a stream whose chunks waited past maxHeld, the
	// end of its text written then that may begin a secret, which the
	// stream's next chunks may finish.
	tails map[string]string
}

// maxHeld is how many bytes of lines a transcript holds at most for chunks
// that wait for what follows them: past it, the chunks are written with
// the end of their text that may begin a secret redacted, as if cut there
// (redact.Redactor.PiecesCutEnd).
const maxHeld = 1 << 20

// maxTranscriptHeld is how many bytes of a transcript may wait for its
// file before its lines are dropped. A regular file, or a reader that
// follows the transcript, keeps up, and little waits; only a FIFO whose
// reader is stuck fills it. The bound is a transcript's, not the run's.
// 64 MiB is more than most scenarios' whole transcripts, and small beside
// what the agent itself takes.
const maxTranscriptHeld = 64 << 20

// transcriptLine is one line of a transcript before it is written.
type transcriptLine struct {
	dir  string // "a2c" or "c2a"
	line []byte
	at   time.Time
	// writing is set for a line of acprun's while its write has not
	// ended: it waits to be written, or left out.
	writing bool
	// chunk is set for a text chunk of a streamed message: its text, and
	// for each of the streams it is redacted in, in turn (see
	// redactChunks), the stream ("" for none), the text redacted with the
	// stream's around it (that of the last is final), and whether it
	// waits for what follows it there (that of the last: to be written).
	chunk  bool
	text   string
	stream [2]string
	out    [2]string
	wait   [2]bool
}

// The streams a chunk is redacted in, in turn: first a session's message
// and thoughts as one text (jointStream), for a secret an agent spreads
// over both, then its own (ownStream): a session's message, its thoughts,
// its user message.
const (
	jointStream = iota
	ownStream
)

// tryTranscripts names the transcript files of one try of a job: its own
// and its judges'.
type tryTranscripts struct {
	// name is the try's transcript ("" for none).
	name string
	// judges are its judges' transcripts, by the judge's what (judgeWhat,
	// turnJudgeWhat).
	judges map[string]string
}

// transcriptNames gives every try of every job of a run, and each of its
// judges, its own transcript file name: names[i][n] is for try n of job i
// (n from 0, one per retry its scenario allows). A try's is
// report.TranscriptName, a judge's judgeTranscriptName beside it. Names
// that would collide (case-insensitively, for case-insensitive file
// systems) get "-2", "-3"…: the tries' first, in job order, so that a
// try's name does not depend on judges, then the judges', in job, try and
// judge order (judgeWhats). The same run gives the same names every time.
func transcriptNames(jobs []job) [][]tryTranscripts {
	names := make([][]tryTranscripts, len(jobs))
	used := map[string]bool{}
	unique := func(name string) string {
		base := strings.TrimSuffix(name, ".jsonl")
		for n := 2; used[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s-%d.jsonl", base, n)
		}
		used[strings.ToLower(name)] = true
		return name
	}
	for i, j := range jobs {
		for try := range j.sc.Retries + 1 {
			name := unique(report.TranscriptName(j.ref.Name, j.ref.Agent, j.ref.Attempt, try))
			names[i] = append(names[i], tryTranscripts{name: name})
		}
	}
	for i, j := range jobs {
		whats := judgeWhats(j.sc)
		if len(whats) == 0 {
			continue
		}
		for try := range names[i] {
			t := &names[i][try]
			t.judges = map[string]string{}
			for _, what := range whats {
				t.judges[what] = unique(judgeTranscriptName(t.name, what))
			}
		}
	}
	return names
}

// judgeWhats names the judges of scenario sc (see judge's what): its own
// first, then its turns', in order.
func judgeWhats(sc *scenario.Scenario) []string {
	var whats []string
	if sc.Expect.Judge != nil {
		whats = append(whats, judgeWhat)
	}
	for k, t := range sc.Turns {
		if t.Expect.Judge != nil {
			whats = append(whats, turnJudgeWhat(k+1))
		}
	}
	return whats
}

// TranscriptFiles returns the names of the files a run of scenarios with
// opts (its Repeat) may write in its transcripts directory, as Run names
// them (transcriptNames): the transcript of every try of every attempt,
// each followed by the transcripts of its judges. Run writes nothing else
// there. Names are unique case-insensitively.
func TranscriptFiles(opts Options, scenarios []*scenario.Scenario) []string {
	jobs := jobsOf(scenarios, max(opts.Repeat, 1))
	var files []string
	for i, tries := range transcriptNames(jobs) {
		whats := judgeWhats(jobs[i].sc)
		for _, t := range tries {
			files = append(files, t.name)
			for _, what := range whats {
				files = append(files, t.judges[what])
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
// and not at all once it has (outfile.OpenIn). Its lines wait for the
// FIFO's reader until ctx ends too (outfile.UntilDone): the rest is then
// lost.
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
	path := filepath.Join(opts.Transcripts, name)
	if fi, err := dir.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if err := dir.Remove(name); err != nil {
			return nil, inDir(err, path)
		}
	}
	f, err := outfile.OpenIn(ctx, dir, name)
	if err != nil {
		return nil, inDir(err, path)
	}
	return startTranscript(path, f, outfile.UntilDone(ctx, f), red, maxTranscriptHeld), nil
}

// startTranscript returns the transcript at path, written to w, whose
// lines are dropped past limit bytes waiting for w; close closes f, the
// file of w.
func startTranscript(path string, f *os.File, w io.Writer, red *redact.Redactor, limit int) *transcript {
	t := &transcript{path: path, start: time.Now(), red: red, f: f}
	t.q = writequeue.New(w, writequeue.Buf{Limit: limit, Note: t.gap})
	return t
}

// gap is the record that takes the place of n lines dropped, written
// before the next line kept: valid JSONL, which acprun replay refuses
// and acprun report shows.
func (t *transcript) gap(n int) string {
	return fmt.Sprintf(`{"t":%d,"dropped":%d}`+"\n", time.Since(t.start).Milliseconds(), n)
}

// inDir returns err, from work on a file of the transcripts directory
// through its os.Root, naming path (the directory and the name) instead of
// the bare name the Root's errors give.
func inDir(err error, path string) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && !filepath.IsAbs(pe.Path) && pe.Path == filepath.Base(path) {
		return &fs.PathError{Op: strings.TrimSuffix(pe.Op, "at"), Path: path, Err: pe.Err} // openat: open
	}
	return err
}

// lost records in res that a transcript could not be written (err from
// newTranscript, what "the transcript" or "the transcript of the judge"),
// as a warning and in LostTranscripts, which make the run exit 4. A FIFO
// given up for want of a reader once the run was interrupted or out of
// time is only a warning: the scenario is cut short anyway.
func lost(res *report.Result, err error, what string) {
	res.Warnings = append(res.Warnings, fmt.Sprintf("transcript: %v", err))
	if _, ok := errors.AsType[*outfile.NoReaderError](err); ok {
		return
	}
	res.LostTranscripts = append(res.LostTranscripts, fmt.Sprintf("%v; %s was not written", err, what))
}

// incomplete records in res that the transcript t, once written, lost
// lines: lines were dropped for a reader that did not keep up (gap), or a
// write failed (no space left, a FIFO's reader quit). As lost does, it
// warns of each and records it in LostTranscripts (the run exits 4).
// Lines given up for a reader that did not read them by an interrupt are
// only a warning: the run exits as interrupted.
func incomplete(res *report.Result, t *transcript, what string) {
	err := t.close()
	if n := t.q.Dropped(); n > 0 {
		dropped := fmt.Sprintf("%s: %s dropped", t.path, plural(n, "line", "lines"))
		res.Warnings = append(res.Warnings, fmt.Sprintf(`transcript: %s: its reader did not keep up (records {"dropped": n} mark where)`, dropped))
		res.LostTranscripts = append(res.LostTranscripts, fmt.Sprintf("%s; %s is incomplete", dropped, what))
	}
	if err != nil {
		how := outfile.Fate(err)
		res.Warnings = append(res.Warnings, fmt.Sprintf("transcript: %v; it %s", err, how))
		if ue, ok := errors.AsType[*outfile.UnreadError](err); ok && !errors.Is(ue.Cause, ErrRunTimeout) {
			return // an interrupt
		}
		res.LostTranscripts = append(res.LostTranscripts, fmt.Sprintf("%v; %s %s", err, what, how))
	}
}

// tap is the connection's acp.Options.Tap.
func (t *transcript) tap(dir acp.Direction, line []byte, at time.Time) {
	l := transcriptLine{dir: "a2c", line: line, at: at}
	switch dir {
	case acp.Written, acp.Unsent:
		t.wrote(dir == acp.Written)
		return
	case acp.Sent:
		l.dir, l.writing = "c2a", true
	}
	l.parse()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held = append(t.held, l)
	t.release(false)
	if n := len(t.held); n > 0 { // then this line is held too, at the end
		t.held[n-1].line = bytes.Clone(line) // it is the caller's
	}
}

// wrote ends the write of acprun's line held: it is kept when ok (the
// agent got it), left out otherwise.
func (t *transcript) wrote(ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.IndexFunc(t.held, func(l transcriptLine) bool { return l.writing })
	if i < 0 {
		return
	}
	if ok {
		t.held[i].writing = false
	} else {
		t.held = slices.Delete(t.held, i, i+1)
	}
	t.release(false)
}

// release writes the lines held, in order, up to the first chunk that
// must wait for what follows it or a line still being written; all of them
// when all is set (the end: a line whose write had not ended is kept).
// When more than maxHeld bytes of lines are held behind a chunk that
// waits, the chunks that wait are written as if their text were cut
// there. The caller holds t.mu.
func (t *transcript) release(all bool) {
	t.redactChunks(all, false)
	t.writeHeld(all)
	size := 0
	for _, l := range t.held {
		size += len(l.line)
	}
	if size > maxHeld && t.held[0].wait[ownStream] {
		t.redactChunks(false, true)
		t.writeHeld(false)
	}
}

// redactChunks redacts the chunks that wait, stream by stream, as the
// text they make after the stream's tail (t.tails): those that need wait
// no longer get their final text. A chunk of a session's message or
// thoughts is redacted first in the two as one text, then in its own
// stream as what that left (jointStream, ownStream). With ended (the
// transcript's end), all of them get it; with cut, all of them do, the
// end of the text that may begin a secret redacted
// (redact.Redactor.PiecesCutEnd), and that end is the stream's tail. The
// caller holds t.mu.
func (t *transcript) redactChunks(ended, cut bool) {
	for stage := range 2 {
		t.redactStreams(stage, ended, cut)
	}
	if ended {
		clear(t.tails)
	}
}

// redactStreams is redactChunks in the streams of stage: jointStream, or
// ownStream. A chunk waits in its own stream as long as it, or one before
// it there, waits in the joint one: its text in its own is not known.
func (t *transcript) redactStreams(stage int, ended, cut bool) {
	streams := map[string][]int{} // the waiting chunks of each stream
	for i, l := range t.held {
		if l.stream[stage] != "" && l.wait[stage] {
			streams[l.stream[stage]] = append(streams[l.stream[stage]], i)
		}
	}
	for stream, idx := range streams {
		pieces := []string{t.tails[stream]} // written already
		for _, i := range idx {
			if l := t.held[i]; stage == jointStream {
				pieces = append(pieces, l.text)
			} else {
				pieces = append(pieces, l.out[jointStream])
			}
		}
		var final []string
		wait := 0
		if cut {
			final = t.red.PiecesCutEnd(pieces)
			text := strings.Join(pieces, "")
			if t.tails == nil {
				t.tails = map[string]string{}
			}
			t.tails[stream] = text[len(text)-t.red.Unfinished(text):]
		} else if final, wait = t.red.Pieces(pieces); ended {
			wait = 0
		}
		if k := slices.IndexFunc(idx, func(i int) bool { return t.held[i].wait[jointStream] }); stage == ownStream && k >= 0 {
			wait = max(wait, len(idx)-k)
		}
		if !cut && wait < len(pieces) {
			delete(t.tails, stream) // no secret goes on from it
		}
		for k, i := range idx {
			t.held[i].out[stage], t.held[i].wait[stage] = final[k+1], k+1 >= len(pieces)-wait
		}
	}
}

// writeHeld writes the lines held, in order, up to the first chunk that
// waits or a line still being written; all of them when all is set. The
// caller holds t.mu.
func (t *transcript) writeHeld(all bool) {
	n := 0
	for n < len(t.held) && (all || !t.held[n].wait[ownStream] && !t.held[n].writing) {
		t.write(t.held[n])
		n++
	}
	t.held = slices.Delete(t.held, 0, n)
}

// write queues line l, redacted, to be written in one Write call: a
// killed run keeps its transcript, and a reader can follow it.
func (t *transcript) write(l transcriptLine) {
	// Redacted inside its decoded strings and keys: valid JSON stays valid.
	msg := t.red.JSON(l.line)
	key := "msg"
	if trimmed := bytes.TrimLeft(msg, " \t\r"); len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(msg) {
		key = "raw"
		msg, _ = json.Marshal(t.red.String(string(l.line)))
	} else if final := l.out[ownStream]; l.chunk && final != t.red.String(l.text) {
		// A secret goes on from this chunk into another.
		msg = setString(msg, final, "params", "update", "content", "text")
	} else if out, ok := answeredOutput(l, t.red); ok {
		msg = setString(msg, out, "result", "output")
	}
	t.q.Add(fmt.Sprintf(`{"t":%d,"dir":%q,%q:%s}`+"\n", l.at.Sub(t.start).Milliseconds(), l.dir, key, msg), true)
}

// parse sets what l's line tells the transcript: for a text chunk of a
// streamed message (agent_message_chunk, agent_thought_chunk,
// user_message_chunk) or of a compaction's summary
// (compaction_summary_chunk) of the agent's, its stream (session and kind,
// and the compaction's id) and text.
func (l *transcriptLine) parse() {
	if l.dir != "a2c" {
		return // acprun streams no chunks
	}
	var n struct {
		Method string `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				SessionUpdate string `json:"sessionUpdate"`
				CompactionID  string `json:"compactionId"`
				Content       struct {
					Type string  `json:"type"`
					Text *string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	if json.Unmarshal(l.line, &n) != nil || n.Method != acp.MethodSessionUpdate {
		return
	}
	u := n.Params.Update
	stream := n.Params.SessionID + "\x00" + u.SessionUpdate
	switch u.SessionUpdate {
	case acp.UpdateAgentMessageChunk, acp.UpdateAgentThoughtChunk, acp.UpdateUserMessageChunk:
	case acp.UpdateCompactionSummaryChunk:
		stream += "\x00" + u.CompactionID // each summary is a text of its own
	default:
		return
	}
	if u.Content.Type != acp.ContentText || u.Content.Text == nil {
		return
	}
	l.chunk, l.text = true, *u.Content.Text
	l.stream[ownStream], l.wait[ownStream] = stream, true
	if u.SessionUpdate == acp.UpdateUserMessageChunk || u.SessionUpdate == acp.UpdateCompactionSummaryChunk {
		l.out[jointStream] = l.text // in no joint stream
	} else {
		l.stream[jointStream], l.wait[jointStream] = n.Params.SessionID+"\x00agent", true
	}
}

// answeredOutput returns the output of line l, redacted (see
// redactOutput), when it is acprun's answer to terminal/output and that
// differs from the output redacted as any text: the output may be cut off
// at its beginning (truncated), or at its end, where the output of a
// command still running (no exitStatus) goes on.
func answeredOutput(l transcriptLine, red *redact.Redactor) (string, bool) {
	if l.dir != "c2a" {
		return "", false
	}
	var r struct {
		Result struct {
			Output     *string         `json:"output"`
			Truncated  bool            `json:"truncated"`
			ExitStatus json.RawMessage `json:"exitStatus"`
		} `json:"result"`
	}
	if json.Unmarshal(l.line, &r) != nil || r.Result.Output == nil {
		return "", false
	}
	out := *r.Result.Output
	shown := redactOutput(red, out, r.Result.Truncated, r.Result.ExitStatus == nil)
	return shown, shown != red.String(out)
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

// close waits until every line is written, closes the file, and returns
// the first error its writes met, naming the file: nil when every line
// was written.
func (t *transcript) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.release(true)
	err := t.q.Close()
	if err == nil {
		// Its directory, or the file, removed while it was written (by
		// an agent, a setup command): the lines went nowhere.
		err = outfile.Removed(t.f, t.path)
	}
	if cerr := t.f.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err == nil {
		return nil
	}
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return &fs.PathError{Op: pe.Op, Path: t.path, Err: pe.Err}
	}
	return fmt.Errorf("write %s: %w", t.path, err)
}
