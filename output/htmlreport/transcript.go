package htmlreport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/redact"
)

// transcriptView is the part of one transcript the page embeds.
type transcriptView struct {
	Path string
	Err  string
	// Head and Tail are the first and last messages embedded; the ones
	// between them were cut.
	Head, Tail []message
	Methods    []string
	// Total and TotalBytes count every line of the file; Shown and
	// ShownBytes those embedded.
	Total, Shown           int
	TotalBytes, ShownBytes int64
	// Skipped is set when nothing was embedded because the page's budget
	// for transcripts was spent, Off when because Options.TranscriptBytes
	// is 0.
	Skipped, Off bool
	// NotTranscript is set when the file is not embedded because it is
	// not a transcript: a line of it is not a transcript record, or it is
	// a symbolic link or not a regular file. Err says why.
	NotTranscript bool
}

// Cut reports whether part of the transcript was left out.
func (t *transcriptView) Cut() bool { return t.Shown < t.Total }

// CutMessages and CutBytes say how much was left out.
func (t *transcriptView) CutMessages() int { return t.Total - t.Shown }

// CutBytes is the size of the lines left out.
func (t *transcriptView) CutBytes() int64 { return t.TotalBytes - t.ShownBytes }

// message is one line of a transcript.
type message struct {
	T      int64
	Dir    string // c2a (acprun to the agent) or a2c; "" for dropped
	Kind   string // request | notification | response | error | raw | dropped | exit
	Method string // for a response, the method of its request
	Detail string // the update kind of a session/update, the error message
	ID     string
	Body   string
}

// Arrow says who sent the message.
func (m message) Arrow() string {
	switch m.Dir {
	case "c2a":
		return "acprun → agent"
	case "a2c":
		return "agent → acprun"
	}
	return ""
}

// maxLine caps each transcript line read; maxBody caps each message shown.
const (
	maxLine = 256 << 10
	maxBody = 16 << 10
)

// readTranscript reads the transcript at path and keeps, within limit
// bytes of its lines, its first lines and its last ones (where a run that
// went wrong usually shows why), half the limit each; it counts the rest.
// An unreadable file is an error on the page, not of the report.
func readTranscript(path string, limit int64, red *redact.Redactor) *transcriptView {
	tv := &transcriptView{Path: path}
	// Never through a link: acprun writes a transcript as a file, and an
	// agent that could write beside it may have put a link to a file of
	// the user's (~/.ssh/id_rsa) in its place for the page to embed.
	f, err := inputfile.OpenNoLink(path, -1) // read within limit
	switch {
	case errors.Is(err, inputfile.ErrLink):
		tv.Err = path + ": a symbolic link, not a transcript acprun wrote (it writes each as a file; an agent may have put the link there): not embedded"
		tv.NotTranscript = true
		return tv
	case errors.Is(err, inputfile.ErrNotRegular):
		tv.NotTranscript = true
		tv.Err = err.Error() + ": not embedded"
		return tv
	case err != nil:
		tv.Err = err.Error()
		return tv
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	pending := map[string]string{} // direction of the request + id → method
	headLimit := limit / 2
	var head [][]byte
	var headBytes int64
	headFull := false
	var tail [][]byte // a queue: tail[0] is the oldest
	var tailBytes int64
	var line []byte
	cut := false // line is longer than maxLine, and holds its start
	lineNo := 0
	for {
		chunk, err := r.ReadSlice('\n')
		tv.TotalBytes += int64(len(chunk))
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		} else {
			line = append(line, chunk[:max(0, maxLine-len(line))]...)
			cut = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		lineNo++
		if len(bytes.TrimSpace(line)) > 0 {
			tv.Total++
			if why := checkRecord(line, cut); why != "" {
				// Not a transcript: results name the file, and results
				// may come from anywhere (a CI artifact), so it may be
				// any file of the user's (/etc/passwd, ~/.ssh/id_rsa).
				return &transcriptView{Path: path, NotTranscript: true,
					Err: fmt.Sprintf("%s: line %d: %s: not a transcript (every line is a record {\"t\": ms, \"dir\": \"c2a\"|\"a2c\", \"msg\": {…}} or \"raw\": \"…\" in place of msg), not embedded", path, lineNo, why)}
			}
			n := int64(len(line))
			switch {
			case !headFull && headBytes+n <= headLimit:
				head = append(head, slices.Clone(line))
				headBytes += n
			default:
				headFull = true
				tail = append(tail, slices.Clone(line))
				tailBytes += n
				for len(tail) > 0 && tailBytes > limit-headBytes {
					tailBytes -= int64(len(tail[0]))
					tail[0] = nil
					tail = tail[1:]
				}
			}
		}
		line, cut = line[:0], false
		if err != nil {
			if err != io.EOF {
				tv.Err = err.Error()
			}
			break
		}
	}
	methods := map[string]bool{}
	parse := func(lines [][]byte) []message {
		out := make([]message, 0, len(lines))
		for _, l := range lines {
			m := parseLine(l, red, pending)
			methods[m.Method] = true
			out = append(out, m)
		}
		return out
	}
	tv.Head, tv.Tail = parse(head), parse(tail)
	tv.Shown = len(head) + len(tail)
	tv.ShownBytes = headBytes + tailBytes
	delete(methods, "")
	tv.Methods = slices.Sorted(maps.Keys(methods))
	return tv
}

// parseLine decodes one transcript line: {"t", "dir", "msg"|"raw"},
// {"t", "dropped"} where lines were dropped, or {"t", "dir", "exit"} where
// the agent exited on its own.
func parseLine(line []byte, red *redact.Redactor, pending map[string]string) message {
	var l struct {
		T       int64           `json:"t"`
		Dir     string          `json:"dir"`
		Msg     json.RawMessage `json:"msg"`
		Raw     *string         `json:"raw"`
		Dropped int             `json:"dropped"`
		Exit    *struct {
			Code   *int   `json:"code"`
			Signal string `json:"signal"`
		} `json:"exit"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return message{Kind: "raw", Body: cut(red.String(string(line)), maxBody)}
	}
	if l.Dropped > 0 {
		return message{T: l.T, Kind: "dropped", Body: fmt.Sprintf("%d %s dropped here: the transcript's reader did not keep up", l.Dropped, plural(l.Dropped, "line", "lines"))}
	}
	if e := l.Exit; e != nil {
		how := "the agent exited"
		switch {
		case e.Code != nil:
			how = fmt.Sprintf("the agent exited with code %d", *e.Code)
		case e.Signal != "":
			how = "the agent was killed by " + red.String(e.Signal)
		}
		return message{T: l.T, Dir: l.Dir, Kind: "exit", Body: how}
	}
	m := message{T: l.T, Dir: l.Dir}
	if l.Raw != nil || len(l.Msg) == 0 {
		m.Kind = "raw"
		if l.Raw != nil {
			m.Body = cut(red.String(*l.Raw), maxBody)
		}
		return m
	}
	var rpc struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Update struct {
				Kind string `json:"sessionUpdate"`
			} `json:"update"`
		} `json:"params"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(l.Msg, &rpc) // a message of another shape is shown as it is
	m.ID = string(rpc.ID)
	if m.ID == "null" {
		m.ID = ""
	}
	switch {
	case rpc.Method != "" && m.ID != "":
		m.Kind, m.Method = "request", rpc.Method
		pending[l.Dir+" "+m.ID] = rpc.Method
	case rpc.Method != "":
		m.Kind, m.Method = "notification", rpc.Method
		m.Detail = rpc.Params.Update.Kind
	default:
		m.Kind = "response"
		other := "c2a"
		if l.Dir == "c2a" {
			other = "a2c"
		}
		m.Method = pending[other+" "+m.ID]
		delete(pending, other+" "+m.ID)
		if rpc.Error != nil {
			m.Kind = "error"
			m.Detail = fmt.Sprintf("%d %s", rpc.Error.Code, rpc.Error.Message)
		}
	}
	m.Method = red.String(m.Method)
	m.Detail = red.String(m.Detail)
	m.Body = cut(indentJSON(red.JSON(l.Msg)), maxBody)
	return m
}

// recordStart is how acprun starts every transcript line it writes, up to
// the first byte of msg's object or of raw's string: what is checked of a
// line too long to be read whole.
var recordStart = regexp.MustCompile(`^[ \t]*\{"t":[0-9]+,"dir":"(c2a|a2c)","(msg":[ \t\r]*\{|raw":")`)

// checkRecord says what is wrong with line as a transcript record, ""
// when nothing is: it must be one JSON object of "t", a whole number of
// milliseconds, "dir", "c2a" or "a2c", and either "msg", a JSON object
// (the message), or "raw", a string (a line that was not one), as
// runner's transcript writes it. Of a line cut at maxLine (cut), only its
// start is checked: that it starts as acprun starts every line.
func checkRecord(line []byte, cut bool) string {
	if cut {
		if !recordStart.Match(line) {
			return fmt.Sprintf("does not start as a transcript record, {\"t\":N,\"dir\":…, (a line of more than %d KiB)", maxLine>>10)
		}
		return ""
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil || rec == nil {
		return "not a JSON object"
	}
	if n, ok := rec["dropped"]; ok {
		return checkDropped(rec, n)
	}
	if e, ok := rec["exit"]; ok {
		return checkExit(rec, e)
	}
	for _, k := range slices.Sorted(maps.Keys(rec)) {
		switch k {
		case "t", "dir", "msg", "raw":
		default:
			return fmt.Sprintf("%q is not a member of a transcript record", k)
		}
	}
	var t int64
	if raw, ok := rec["t"]; !ok || null(raw) || json.Unmarshal(raw, &t) != nil || t < 0 {
		return `no "t" (a whole number of milliseconds)`
	}
	var dir string
	if raw, ok := rec["dir"]; !ok || json.Unmarshal(raw, &dir) != nil || dir != "c2a" && dir != "a2c" {
		return `no "dir" ("c2a" or "a2c")`
	}
	msg, hasMsg := rec["msg"]
	raw, hasRaw := rec["raw"]
	switch {
	case hasMsg && hasRaw:
		return `both "msg" and "raw"`
	case hasMsg:
		if m := bytes.TrimSpace(msg); len(m) == 0 || m[0] != '{' {
			return `"msg" is not a JSON object`
		}
	case hasRaw:
		var s string
		if null(raw) || json.Unmarshal(raw, &s) != nil {
			return `"raw" is not a string`
		}
	default:
		return `neither "msg" nor "raw"`
	}
	return ""
}

// checkDropped says what is wrong with rec as the record of lines dropped,
// {"t": ms, "dropped": n}, n of them: "" when nothing is.
func checkDropped(rec map[string]json.RawMessage, n json.RawMessage) string {
	var t, dropped int64
	switch {
	case len(rec) != 2 || json.Unmarshal(rec["t"], &t) != nil || null(rec["t"]) || t < 0:
		return `a record of lines dropped is {"t": ms, "dropped": n}`
	case null(n) || json.Unmarshal(n, &dropped) != nil || dropped < 1:
		return `"dropped" is not a count of lines`
	}
	return ""
}

// checkExit says what is wrong with rec as the record of the agent's exit,
// {"t": ms, "dir": "a2c", "exit": {"code": n}} (or {"signal": "SIG…"}):
// "" when nothing is.
func checkExit(rec map[string]json.RawMessage, e json.RawMessage) string {
	var t int64
	var dir string
	var how struct {
		Code   *int   `json:"code"`
		Signal string `json:"signal"`
	}
	if len(rec) != 3 || null(rec["t"]) || json.Unmarshal(rec["t"], &t) != nil || t < 0 ||
		json.Unmarshal(rec["dir"], &dir) != nil || dir != "a2c" ||
		null(e) || json.Unmarshal(e, &how) != nil {
		return `an exit record is {"t": ms, "dir": "a2c", "exit": {"code": n} or {"signal": "SIG…"}}`
	}
	return ""
}

// null reports whether the JSON value v is null, which Unmarshal takes
// for any type.
func null(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }
