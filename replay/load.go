package replay

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/jsonpos"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/report"
)

// Recording is a parsed transcript: what the client asked, in order, and
// what the agent sent around each request. Run plays it.
type Recording struct {
	// File is the transcript's name as given to Load, for messages.
	File string
	// Notes are remarks about the transcript that do not stop it from
	// being played (a last line cut short), each "file:line: text".
	Notes []string

	prelude []*item                // what the agent sent before the first request
	calls   map[string][]*exchange // the client's requests other than prompts, by method
	prompts []*exchange            // the session/prompt requests, in order
	cwd     string                 // the recorded session cwd, "" when unknown
	last    int                    // the number of the last line
	final   *exchange              // the last request of the client; nil when none
	cut     bool                   // the last line was cut short: the recorder was killed
	exit    *recordedExit          // the agent's exit, the last line; nil when it has none
	// pacedAll says that a deadline of the whole scenario (its timeout)
	// cancelled a turn: every request is played at the recorded pace
	// (see paceDeadlines).
	pacedAll bool
}

// Exit returns the agent's exit that the transcript records as its last
// line ({"exit": {"code": 5}}, or {"signal": "SIGSEGV"}), and that line's
// number; nil and 0 when it records none.
func (r *Recording) Exit() (*AgentExit, int) {
	if r.exit == nil {
		return nil, 0
	}
	return &AgentExit{Code: r.exit.Code, Signal: r.exit.Signal}, r.exit.line
}

// exchange is one request of the client and what the agent sent for it.
type exchange struct {
	line   int
	t      int64
	method string
	params json.RawMessage
	during []*item // sent before the answer
	answer *answer // nil when the recording has none
	after  []*item // sent after the answer, before the client's next request
	// paced says that a deadline of the turn cancelled it: its messages
	// go out at the recorded pace (see paceDeadlines).
	paced bool
}

// itemKind says what a recorded item of the agent's side is.
type itemKind int

const (
	itemMessage itemKind = iota // a notification (or any other message), sent verbatim
	itemRaw                     // a line that was not a JSON object, sent verbatim
	itemRequest                 // a request of the agent, sent with a fresh id
	itemAwait                   // the client's answer to an itemRequest: wait for it and compare
	itemCancel                  // the client's session/cancel: wait for the client's
)

// item is one thing the agent sent (or, for itemCancel, the point where the
// client cancelled).
type item struct {
	line   int
	t      int64
	kind   itemKind
	method string          // itemRequest, itemMessage with a method
	params json.RawMessage // itemRequest
	// rawMethod is an itemRequest's method as recorded, which need not be
	// a method's name ("", 5): it is sent as it was.
	rawMethod json.RawMessage
	msg       json.RawMessage // itemMessage
	raw       string          // itemRaw
	answer    *answer         // itemRequest: the client's recorded answer, nil when none
	req       *item           // itemAwait: the request answered
	cause     string          // itemCancel: why acprun cancelled (its _meta); "" when it does not say
	// atGateway, for an itemCancel: acprun's model gateway found its
	// cause (report.MetaCancelAt), which a replay does not meet again.
	atGateway bool
}

// recordedExit is the transcript's record of the agent's exit: acprun
// writes {"t": ms, "dir": "a2c", "exit": {"code": 3}} (or {"signal":
// "SIGSEGV"}) as the last line when the agent exited on its own while it
// used it.
type recordedExit struct {
	line   int
	Code   *int   `json:"code"`
	Signal string `json:"signal"`
}

// answer is a recorded response: a result or an error object.
type answer struct {
	line   int
	result json.RawMessage
	err    json.RawMessage // the error object as recorded; nil for a result
}

// recordLine is one line of a transcript.
type recordLine struct {
	T   int64           `json:"t"`
	Dir *string         `json:"dir"`
	Msg json.RawMessage `json:"msg"`
	Raw *string         `json:"raw"`
	// Dropped is set on the record of lines dropped for a reader that
	// did not keep up: {"t": ms, "dropped": n}.
	Dropped *int `json:"dropped"`
	// Exit is set on the last line when the agent exited on its own:
	// {"t": ms, "dir": "a2c", "exit": {"code": 3}}.
	Exit *recordedExit `json:"exit"`
}

// wire is the members of a JSON-RPC message that replay looks at, and
// those it writes (see player.send).
type wire struct {
	JSONRPC string          `json:"jsonrpc,omitempty"` // written only
	ID      json.RawMessage `json:"id,omitempty"`
	Method  json.RawMessage `json:"method,omitempty"` // nil when it has none: an answer
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// name is the message's method: "" when it has none, or one that is not
// a string. A message with a method is a request or a notification,
// whatever the method is: one that is not a method's name is answered
// -32600, as acp.Conn answers it.
func (w wire) name() string {
	var s string
	_ = json.Unmarshal(w.Method, &s)
	return s
}

// Load reads the transcript at path. A file that is not a transcript (not
// JSONL of acprun's shape, no initialize, several sessions) is an *srcerr.Error
// saying where and what to do (Problem says it without the file's name), as
// is one whose session was resumed (session/load, session/resume), which a
// replaying client, starting a new session, cannot play.
func Load(path string) (*Recording, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(path, f, nil)
}

// recordAgain is what to do about a transcript that cannot be played.
const recordAgain = "record it again with acprun run --transcripts DIR"

// Problem is what an error of Load says of the transcript, without its
// name: "line 3, column 14: …" for a line of it, the message alone for the
// whole file. It is for a caller that names the transcript its own way (a
// scenario whose agent plays it), so that it says what acprun replay says.
func Problem(err error) string {
	var e *srcerr.Error
	switch {
	case !errors.As(err, &e):
		return err.Error()
	case e.Line == 0:
		return e.Msg
	case e.Col == 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// open opens the transcript at path; what cannot be read as one is an
// *srcerr.Error.
func open(path string) (*os.File, error) {
	f, err := inputfile.Open(path, -1) // read a line at a time, each bounded (readLine)
	if err != nil {
		return nil, &srcerr.Error{File: path, Msg: fmt.Sprintf("%v (a transcript is written per scenario by acprun run --transcripts DIR)", inputfile.Bare(err))}
	}
	return f, nil
}

// Message is one message of a transcript.
type Message struct {
	Line      int             // its line in the transcript, from 1
	FromAgent bool            // "dir": "a2c"; false for the client's ("c2a")
	Msg       json.RawMessage // the JSON-RPC message object
}

// Walk reads the transcript at path as Load does, with the same errors
// but for a resumed session, which it reads (its messages are those of a
// session like any other; only a replay cannot play them), and calls each
// (when not nil) with every message of it (not the raw lines), in the
// order recorded, as it reads them: a message before an error of a later
// line has been passed.
func Walk(path string, each func(Message)) (*Recording, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(path, f, each, true)
}

// parse reads a transcript from r as Load does, telling each (when not
// nil) of every message; file names it in errors.
func parse(file string, r io.Reader, each func(Message)) (*Recording, error) {
	return read(file, r, each, false)
}

// read is parse; resumable reads a resumed session instead of refusing
// it, as Walk does.
func read(file string, r io.Reader, each func(Message), resumable bool) (*Recording, error) {
	p := &parser{
		rec:        &Recording{File: file, calls: map[string][]*exchange{}},
		openClient: map[string]*exchange{},
		openAgent:  map[string]*item{},
		openText:   map[string][]byte{},
		each:       each,
		resumable:  resumable,
	}
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	for {
		line, rerr := readLine(br, maxLineBytes)
		if errors.Is(rerr, errLineTooLong) {
			return nil, &srcerr.Error{File: file, Line: n + 1, Msg: fmt.Sprintf("the line is longer than %d MiB, more than acprun records of one message: this is not a transcript acprun wrote; %s", maxLineBytes>>20, recordAgain)}
		}
		if n == 0 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // an editor's byte order mark: no part of line 1
		}
		if len(line) > 0 {
			n++
			complete := bytes.HasSuffix(line, []byte("\n"))
			line = bytes.TrimRight(line, "\r\n")
			if err := p.line(n, line); err != nil {
				if !complete && rerr == io.EOF && !json.Valid(line) {
					// A recorder killed mid-write leaves its last line
					// short (never valid JSON): what came before it still
					// plays.
					p.rec.Notes = append(p.rec.Notes,
						fmt.Sprintf("%s:%d: the last line is cut short (the recording was interrupted); it is ignored", file, n))
					p.rec.cut = true
					break
				}
				return nil, err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, &srcerr.Error{File: file, Msg: fmt.Sprintf("cannot be read: %v", rerr)}
		}
	}
	p.rec.last = n
	p.rec.final = p.cur
	p.rec.paceDeadlines()
	switch {
	case n == 0:
		return nil, &srcerr.Error{File: file, Msg: "the transcript is empty; " + recordAgain}
	case !p.initialized:
		return nil, &srcerr.Error{File: file, Msg: "no initialize request from the client: this is not the transcript of an ACP session; record one with acprun run --transcripts DIR"}
	}
	if err := p.checkAnswered(); err != nil {
		return nil, err
	}
	return p.rec, nil
}

// checkAnswered refuses a request of the agent that the transcript holds
// no answer of the client to, though the client went on to send a request
// after it (other than session/close, which acprun sends to a session
// whose agent may be gone): acprun answers every request of the agent,
// so a line was removed. Played, the replay would wait for an answer the
// client has no reason to give again, or compare nothing, and play the
// branch the recorded agent took whatever the client answers. One left
// at the end of the transcript (the agent gone, the recording cut short)
// is played: nothing after it depends on its answer.
func (p *parser) checkAnswered() error {
	if len(p.reqs) == 0 {
		return nil
	}
	last := p.reqs[len(p.reqs)-1].line
	var first *item
	var key string
	for id, it := range p.openAgent {
		if it.line < last && (first == nil || it.line < first.line) {
			first, key = it, id
		}
	}
	if first == nil {
		return nil
	}
	next := p.reqs[sort.Search(len(p.reqs), func(i int) bool { return p.reqs[i].line > first.line })]
	text := p.openText[key]
	var w wire
	_ = json.Unmarshal(text, &struct {
		Msg *wire `json:"msg"`
	}{&w})
	return p.errorAt(first.line, text, msgMemberOffset(text, "id"),
		"the agent's request id %s (%s) has no answer of the client, which went on to send %s at line %d (was a line removed?)",
		bytes.TrimSpace(w.ID), first.method, cmp.Or(next.method, "a request"), next.line)
}

// paceDeadlines marks what plays at the recorded pace, without
// Options.Timing: a turn that a deadline of the scenario cancelled, whose
// cancel came because the time passed. Sent at once, its messages would
// leave the turn silent until the deadline, and a shorter idleTimeout
// would cancel it first, for another cause; at their pace, the deadline
// passes again where it did. A turn's own deadline (turnTimeout, or a
// cancel that gives no cause, which may be one) paces that turn; the
// scenario's timeout paces every request, for it counts the turns before
// too. A cancel for idleTimeout or a budget is met again at once: a
// silence is one at any pace, and the usage is replayed.
func (r *Recording) paceDeadlines() {
	for _, ex := range r.prompts {
		for _, it := range ex.during {
			if it.kind != itemCancel || it.atGateway {
				continue
			}
			switch it.cause {
			case report.CauseScenarioTimeout:
				r.pacedAll = true
				ex.paced = true
			case report.CauseTurnTimeout, "":
				ex.paced = true
			}
		}
	}
}

// maxLineBytes bounds a transcript's line: one message, which acprun
// takes up to acp.DefaultMaxLineBytes long, in its record.
const maxLineBytes = acp.DefaultMaxLineBytes + 64<<10

// errLineTooLong is readLine's error for a line longer than its limit.
var errLineTooLong = errors.New("line too long")

// readLine is br.ReadBytes('\n') that gives up with errLineTooLong once
// the line is longer than limit bytes, having read at most limit plus a
// buffer: a transcript of one endless line does not fill the memory.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > limit {
			return nil, errLineTooLong
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// parser holds the state of Parse.
type parser struct {
	rec        *Recording
	cur        *exchange            // the latest request of the client
	openClient map[string]*exchange // the client's requests not yet answered, by id
	openAgent  map[string]*item     // the agent's requests not yet answered, by id
	openText   map[string][]byte    // the lines of openAgent's requests, by id
	// reqs are the client's requests other than session/close, in
	// order (see checkAnswered).
	reqs        []*exchange
	initialized bool
	sessions    int
	loaded      bool          // the first session was a session/load
	each        func(Message) // nil: Load's
	resumable   bool          // a resumed session is read, not refused (Walk)
}

// errorAt returns the *srcerr.Error of line n at byte offset off of text,
// which says to record the transcript again.
func (p *parser) errorAt(n int, text []byte, off int, format string, args ...any) *srcerr.Error {
	return p.faultAt(n, text, off, fmt.Sprintf(format, args...)+"; "+recordAgain)
}

// faultAt is the error msg at line n, text, at byte off of it, without
// advice: for a fault of the agent's own, which recording again records
// again.
func (p *parser) faultAt(n int, text []byte, off int, msg string) *srcerr.Error {
	e := srcerr.AtOffset(p.rec.File, text, off, msg)
	e.Line = n // text is that line, without its line break
	return e
}

// maxT is the largest "t" a transcript line may have: the milliseconds a
// time.Duration holds, which --timing waits.
const maxT = int64(math.MaxInt64 / time.Millisecond)

// line reads line n of the transcript.
func (p *parser) line(n int, text []byte) error {
	if len(bytes.TrimSpace(text)) == 0 {
		return nil
	}
	if e := p.rec.exit; e != nil {
		return p.errorAt(n, text, 0, "a line after the recorded agent's exit at line %d: acprun records nothing after it", e.line)
	}
	if t := bytes.TrimLeft(text, " \t"); t[0] != '{' {
		return p.errorAt(n, text, len(text)-len(t), "not a JSON object (a transcript has one JSON object per line)")
	}
	var rl recordLine
	if err := json.Unmarshal(text, &rl); err != nil {
		return p.jsonError(n, text, err)
	}
	if rl.Dropped != nil {
		return p.errorAt(n, text, 0, "%d lines were dropped here, the transcript's reader not keeping up: it cannot be played", *rl.Dropped)
	}
	if rl.Dir == nil {
		return p.errorAt(n, text, 0, `no "dir": a transcript line is {"t": ms, "dir": "c2a"|"a2c", "msg": {...}} or {..., "raw": "..."}`)
	}
	if *rl.Dir != "c2a" && *rl.Dir != "a2c" {
		return p.errorAt(n, text, valueOffset(text, "dir"), `"dir" is %q: want "c2a" (client to agent) or "a2c" (agent to client)`, *rl.Dir)
	}
	if rl.T < 0 || rl.T > maxT {
		return p.errorAt(n, text, valueOffset(text, "t"), `"t" is %d: want the milliseconds since the recording began, from 0 to %d`, rl.T, maxT)
	}
	hasMsg := len(rl.Msg) > 0 && string(rl.Msg) != "null"
	if rl.Exit != nil {
		switch {
		case *rl.Dir != "a2c":
			return p.errorAt(n, text, valueOffset(text, "dir"), `"exit" in a line of the client's ("dir": %q): the agent's exit is the agent's`, *rl.Dir)
		case hasMsg:
			return p.errorAt(n, text, 0, `both "exit" and "msg": a line holds one of them`)
		case rl.Raw != nil:
			return p.errorAt(n, text, 0, `both "exit" and "raw": a line holds one of them`)
		}
		rl.Exit.line = n
		p.rec.exit = rl.Exit
		return nil
	}
	switch {
	case hasMsg && rl.Raw != nil:
		return p.errorAt(n, text, 0, `both "msg" and "raw": a line holds one of them`)
	case !hasMsg && rl.Raw == nil:
		return p.errorAt(n, text, 0, `neither "msg" nor "raw": a transcript line holds a message or a raw line`)
	case hasMsg && bytes.TrimSpace(rl.Msg)[0] != '{':
		return p.errorAt(n, text, valueOffset(text, "msg"), `"msg" is not a JSON object`)
	}
	if hasMsg && p.each != nil {
		p.each(Message{Line: n, FromAgent: *rl.Dir == "a2c", Msg: rl.Msg})
	}
	if *rl.Dir == "c2a" {
		if hasMsg {
			return p.client(n, text, rl)
		}
		return nil // acprun never sends raw lines; nothing to play
	}
	return p.agent(n, text, rl, hasMsg)
}

// valueOffset is the offset in text, a transcript line, of the value at
// path (see jsonpos.Offset: names match as Unmarshal matches them, case
// aside), or 0 when it has none.
func valueOffset(text []byte, path string) int {
	off, _ := jsonpos.Offset(text, path)
	return int(off)
}

// jsonError turns a decoding error of line n into an *srcerr.Error at its place.
func (p *parser) jsonError(n int, text []byte, err error) *srcerr.Error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return p.errorAt(n, text, int(se.Offset)-1, "not a JSON object: %v (a transcript has one JSON object per line)", se)
	case errors.As(err, &te):
		return p.errorAt(n, text, cmp.Or(valueOffset(text, te.Field), int(te.Offset)-1), "%q is a JSON %s", te.Field, te.Value)
	}
	return p.errorAt(n, text, 0, "%v", err)
}

// client reads a message of the client.
func (p *parser) client(n int, text []byte, rl recordLine) error {
	var w wire
	if json.Unmarshal(rl.Msg, &w) != nil {
		return nil // not JSON-RPC: nothing the replay waits for
	}
	id, err := p.checkID(n, text, w)
	if err != nil {
		return err
	}
	switch {
	case w.Method != nil && id != "":
		if open := p.openClient[id]; open != nil {
			return p.errorAt(n, text, msgMemberOffset(text, "id"),
				"the client's request reuses id %s, that of its request at line %d, not answered yet", w.ID, open.line)
		}
		ex := &exchange{line: n, t: rl.T, method: w.name(), params: w.Params}
		if (ex.method == acp.MethodSessionLoad || ex.method == acp.MethodSessionResume) && !p.resumable {
			// The replaying client starts a new session (its state is
			// its own); recorded again as it was, it would be resumed
			// again.
			return p.faultAt(n, text, msgMemberOffset(text, "method"), fmt.Sprintf(
				"a resumed session (%s): replay plays a new session, which the replaying client starts with session/new, and cannot play a resumed one (session: {resume: true}, acprun run --resume); record the scenario again without resuming its session", ex.method))
		}
		switch ex.method {
		case "initialize":
			p.initialized = true
		case "session/new", "session/load":
			p.sessions++
			if p.sessions > 1 && (ex.method == "session/load" || p.loaded) {
				// Recorded again as it was, it would hold two again.
				e := srcerr.AtOffset(p.rec.File, text, msgMemberOffset(text, "method"), fmt.Sprintf(
					"a second session (%s): replay plays one session per transcript, and cannot play a resumed one (session: {resume: true}, acprun run --resume); record the scenario again without resuming its session", ex.method))
				e.Line = n
				return e
			}
			if p.sessions > 1 {
				return p.errorAt(n, text, msgMemberOffset(text, "method"),
					"a second session (%s): replay plays one session per transcript", ex.method)
			}
			p.loaded = ex.method == "session/load"
			p.rec.cwd = sessionCwd(w.Params)
		}
		if ex.method == "session/prompt" {
			p.rec.prompts = append(p.rec.prompts, ex)
		} else {
			p.rec.calls[ex.method] = append(p.rec.calls[ex.method], ex)
		}
		p.cur = ex
		p.openClient[id] = ex
		if ex.method != acp.MethodSessionClose {
			p.reqs = append(p.reqs, ex)
		}
	case w.name() == "session/cancel":
		if p.cur != nil && p.cur.method == "session/prompt" && p.cur.answer == nil {
			cause, atGateway := cancelMeta(w.Params)
			p.cur.during = append(p.cur.during, &item{line: n, t: rl.T, kind: itemCancel, cause: cause, atGateway: atGateway})
		}
	case w.name() == acp.MethodCancelRequest:
		// acprun cancels a setup request it gave up on (its deadline
		// passed): the replay waits for the client's at that point too,
		// so that the setup times out again.
		if ex := p.openClient[requestKey(w.Params)]; ex != nil {
			ex.during = append(ex.during, &item{line: n, t: rl.T, kind: itemCancel})
		}
	case w.Method == nil && id != "":
		it := p.openAgent[id]
		if it == nil {
			// Played, it would be compared with nothing, or with the
			// answer to another request.
			return p.errorAt(n, text, msgMemberOffset(text, "id"),
				"the client answers id %s, but the transcript holds no unanswered request of the agent with that id", w.ID)
		}
		it.answer = &answer{line: n, result: w.Result, err: w.Error}
		delete(p.openAgent, id)
		delete(p.openText, id)
		// The replay waits for the client's answer where the recording
		// has it, so that requests the agent made at once go out at once.
		p.add(&item{line: n, t: rl.T, kind: itemAwait, req: it})
	}
	return nil
}

// requestKey is the key (see checkID) of the request that the params of a
// $/cancel_request name; "" when they name none.
func requestKey(params json.RawMessage) string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return idKey(p.RequestID)
}

// idKey is the key a JSON-RPC id is matched by (see acp.ID.Key); "" for
// null and for anything that is not an id (checkID says what).
func idKey(raw json.RawMessage) string {
	var id acp.ID
	if id.UnmarshalJSON(raw) != nil {
		return ""
	}
	key, _ := id.Key()
	return key
}

// sessionCwd is the cwd of the params of a session/new or session/load.
func sessionCwd(params json.RawMessage) string {
	var p struct {
		Cwd string `json:"cwd"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Cwd
}

// cancelMeta is what acprun said in the _meta of the session/cancel whose
// params are params: its cause ("" in a transcript recorded before acprun
// gave it, or of another client), and whether its model gateway found it.
func cancelMeta(params json.RawMessage) (cause string, atGateway bool) {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	cause, _ = p.Meta[report.MetaCancelCause].(string)
	return cause, p.Meta[report.MetaCancelAt] == report.CancelAtGateway
}

// agent reads a line of the agent.
func (p *parser) agent(n int, text []byte, rl recordLine, hasMsg bool) error {
	it := &item{line: n, t: rl.T}
	switch {
	case !hasMsg:
		if err := p.checkRaw(n, text, *rl.Raw); err != nil {
			return err
		}
		it.kind, it.raw = itemRaw, *rl.Raw
	default:
		var w wire
		if json.Unmarshal(rl.Msg, &w) != nil {
			// An object that is not JSON-RPC is sent verbatim.
			it.kind, it.msg = itemMessage, rl.Msg
			break
		}
		id, err := p.checkID(n, text, w)
		if err != nil {
			return err
		}
		switch {
		case w.Method != nil && id != "":
			if open := p.openAgent[id]; open != nil {
				// acprun records such a request as the agent sent it
				// (and reports the violation): recording again gives it
				// again.
				return p.faultAt(n, text, msgMemberOffset(text, "id"), fmt.Sprintf(
					"the agent's request reuses id %s, that of its request at line %d, not answered yet: the agent reuses the ids of its pending requests, and a replay cannot tell which request each answer of acprun's is for",
					w.ID, open.line))
			}
			// A method that is no method's name is named as recorded ("", 5).
			it.kind, it.method, it.rawMethod, it.params = itemRequest, cmp.Or(w.name(), string(w.Method)), w.Method, w.Params
			p.openAgent[id] = it
			p.openText[id] = bytes.Clone(text)
		case w.Method == nil && id != "":
			ex := p.openClient[id]
			if ex == nil {
				// Sent as recorded, it would answer whichever request of
				// the client has that id when it arrives, or none.
				return p.errorAt(n, text, msgMemberOffset(text, "id"),
					"the agent answers id %s, but the transcript holds no unanswered request of the client with that id", w.ID)
			}
			delete(p.openClient, id)
			ex.answer = &answer{line: n, result: w.Result, err: w.Error}
			return nil
		default:
			it.kind, it.method, it.msg = itemMessage, w.name(), rl.Msg
		}
	}
	p.add(it)
	return nil
}

// checkID checks the id of message w on line n and returns the key it is
// matched by ("" when it has none, or it is null): a JSON-RPC id is a
// string or a number, or null in an error response whose request could
// not be read (played as recorded: it answers nothing).
func (p *parser) checkID(n int, text []byte, w wire) (string, error) {
	if len(w.ID) == 0 {
		return "", nil
	}
	if key := idKey(w.ID); key != "" {
		return key, nil
	}
	id := bytes.TrimSpace(w.ID)
	if id[0] == 'n' {
		if w.Method == nil && len(w.Error) > 0 && string(bytes.TrimSpace(w.Error)) != "null" {
			return "", nil
		}
		return "", p.errorAt(n, text, msgMemberOffset(text, "id"),
			`"id" is null: a JSON-RPC id is a string or a number (null only in an error response)`)
	}
	return "", p.errorAt(n, text, msgMemberOffset(text, "id"),
		`"id" is a JSON %s: a JSON-RPC id is a string or a number`, jsonKind(id))
}

// checkRaw checks a recorded raw line of the agent: acprun records as raw
// only a line that is not a JSON object, and one line. Sent as recorded,
// a raw line that is a JSON object (or holds a line break) would reach the
// client as a message, even an answer to whichever request has its id.
func (p *parser) checkRaw(n int, text []byte, raw string) error {
	if strings.Contains(raw, "\n") {
		return p.errorAt(n, text, valueOffset(text, "raw"), `"raw" holds a line break: a raw line is one line the agent printed`)
	}
	if t := strings.TrimLeft(raw, " \t\r"); strings.HasPrefix(t, "{") && json.Valid([]byte(raw)) {
		return p.errorAt(n, text, valueOffset(text, "raw"), `"raw" is a JSON object: acprun records a message under "msg"`)
	}
	return nil
}

// jsonKind names the kind of the JSON value v for a message.
func jsonKind(v []byte) string {
	switch v[0] {
	case 't', 'f':
		return "boolean"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

// msgMemberOffset is the offset in text, a transcript line, of the value of
// member name of its "msg", or that of "msg" when it has none.
func msgMemberOffset(text []byte, name string) int {
	return cmp.Or(valueOffset(text, "msg."+name), valueOffset(text, "msg"))
}

// add puts an item where it was recorded: before the first request of the
// client, or during or after the latest one.
func (p *parser) add(it *item) {
	switch {
	case p.cur == nil:
		p.rec.prelude = append(p.rec.prelude, it)
	case p.cur.answer == nil:
		p.cur.during = append(p.cur.during, it)
	default:
		p.cur.after = append(p.cur.after, it)
	}
}
