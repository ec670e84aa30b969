package mockagent

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/acprun/acprun/acp"
)

// The Conn's Tap lets the agent see lines as they are read, before they
// are dispatched, and as they are written. That closes two gaps of the
// handler API:
//
//   - The Conn starts each request's handler in a goroutine and handles
//     notifications at once, so a session/cancel can be handled before the
//     handler of the session/prompt sent just before it has started. The
//     tap numbers prompts per session as they are read, and a cancel line
//     covers every prompt read before it: the running turn is cancelled
//     and a prompt whose handler has not started yet starts cancelled.
//   - Handlers start in arrival order but run concurrently, and at the end
//     of stdin every request read must still get its answer although its
//     handler may not have started yet. The tap numbers request lines as
//     they are read (for Handle's turnstile) and counts them in inflight (a
//     line the Conn then rejects is reported to violation, which takes it
//     back); wrote counts the answers once output has written them.
//
// wrote also lets after: steps start once the prompt's response is out.

var (
	promptMethod = []byte(`"` + acp.MethodSessionPrompt + `"`)
	cancelMethod = []byte(`"` + acp.MethodSessionCancel + `"`)
	methodKey    = []byte(`"method"`)
)

// tap is the Conn's Options.Tap; it looks at the lines read only.
func (a *agent) tap(dir acp.Direction, line []byte, _ time.Time) {
	switch dir {
	case acp.Received:
		a.requestArrived(line)
		switch {
		case bytes.Contains(line, promptMethod):
			a.promptArrived(line)
		case bytes.Contains(line, cancelMethod):
			a.cancelArrived(line)
		}
	}
}

// requestArrived counts a request line in inflight. It follows the Conn's
// rules for a request: a JSON object with "jsonrpc":"2.0", a method, and an
// id that is a string, a number or null.
func (a *agent) requestArrived(line []byte) {
	a.lastReq = a.lastReq[:0]
	if !bytes.Contains(line, methodKey) {
		return // a response, possibly large: no need to decode it
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.JSONRPC != "2.0" || m.Method == "" || len(m.ID) == 0 {
		return
	}
	id := bytes.TrimSpace(m.ID)
	if c := id[0]; c != '"' && c != 'n' && c != '-' && (c < '0' || c > '9') {
		return
	}
	a.lastReq = append(a.lastReq, line[:min(len(line), 256)]...)
	a.lastReqID = string(id)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inflight[a.lastReqID]++
	a.lastSeq++
	a.reqSeqs[a.lastReqID] = append(a.reqSeqs[a.lastReqID], a.lastSeq)
}

// violation is the Conn's Options.OnViolation: a request line counted by
// requestArrived and then rejected by the Conn will never be answered.
func (a *agent) violation(v acp.Violation) {
	if len(a.lastReq) > 0 && len(v.Line) > 0 && bytes.HasPrefix(a.lastReq, v.Line) {
		a.lastReq = a.lastReq[:0]
		a.answered(a.lastReqID)
		a.mu.Lock()
		defer a.mu.Unlock()
		if q := a.reqSeqs[a.lastReqID]; len(q) > 0 && q[len(q)-1] == a.lastSeq {
			a.reqSeqs[a.lastReqID] = q[:len(q)-1]
			a.passLocked(a.lastSeq) // no handler will take it
		}
	}
}

// cancelArrived records that a session/cancel was read: it covers the
// prompts of its session read so far.
func (a *agent) cancelArrived(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != acp.MethodSessionCancel || len(m.ID) != 0 {
		return
	}
	sid := m.Params.SessionID
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cancelUpTo[sid] = a.promptSeq[sid]
	if sess, ok := a.sessions[sid]; ok && sess.active != nil && sess.activeOrd <= a.cancelUpTo[sid] {
		sess.active.cancel()
	}
}

// promptArrived numbers a session/prompt request in arrival order.
func (a *agent) promptArrived(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != acp.MethodSessionPrompt || len(m.ID) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.promptSeq[m.Params.SessionID]++
	a.promptOrd[string(bytes.TrimSpace(m.ID))] = a.promptSeq[m.Params.SessionID]
}

// promptOrdinalLocked returns the arrival number the tap gave request id, and
// forgets it. a.mu must be held.
func (a *agent) promptOrdinalLocked(id *acp.ID) int {
	key := id.String()
	n := a.promptOrd[key]
	delete(a.promptOrd, key)
	return n
}

// wrote is called by output after each message written: a response means
// its request is answered, and its after: steps may start.
func (a *agent) wrote(line []byte) {
	a.mu.Lock()
	watching := len(a.responseWatch) > 0 || len(a.inflight) > 0
	a.mu.Unlock()
	if !watching {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != nil || len(m.ID) == 0 {
		return
	}
	key := string(bytes.TrimSpace(m.ID))
	a.answered(key)
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch, ok := a.responseWatch[key]; ok {
		close(ch)
		delete(a.responseWatch, key)
	}
}

// watchResponse returns a channel closed when the response to id is
// written.
func (a *agent) watchResponse(id *acp.ID) <-chan struct{} {
	ch := make(chan struct{})
	a.mu.Lock()
	defer a.mu.Unlock()
	a.responseWatch[id.String()] = ch
	return ch
}
