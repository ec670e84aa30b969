package runner

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
)

// UpdateObserver is an Observer that is also told what the agent says and
// does as it arrives (acprun run -v): its text and thoughts, one line at a
// time, and its tool calls as they start and change status. The runner
// asks WantsUpdates once per job and, when it says no (or the Observer is
// not an UpdateObserver), does no work at all per update.
type UpdateObserver interface {
	Observer
	WantsUpdates() bool
	Update(j Ref, u Update)
}

// Kinds of Update.
const (
	UpdateText     = "text"      // a line of the agent's message
	UpdateThought  = "thought"   // a line of the agent's thoughts
	UpdateToolCall = "tool_call" // a tool call started or changed status
)

// Update is one thing the agent said or did, passed on in arrival order,
// redacted, attributed to a turn as the results are (an update after the
// prompt's answer is the turn's late one). Text and thoughts are joined
// into lines: an Update is sent for each line the agent ends, and for what
// is left when it moves on to something else (from text to thoughts or
// back, a tool call), when its turn is answered, and at the end of the
// scenario. Where a line is cut thus depends only on the order of what the
// agent sent, never on timing. Blank lines
// are left out, and a line longer than MaxUpdateLine bytes is passed on in
// parts of about that size. The end of a part that may begin a secret is
// held back until the rest of it is known, so that no secret split between
// chunks or parts escapes redaction, nor one split between the text and
// the thoughts (see chunkCarry).
type Update struct {
	Turn int    // the turn it came in, from 1; 0 before the first
	Late bool   // it came after the turn's answer
	Kind string // UpdateText, UpdateThought or UpdateToolCall
	// Text is the line (or part of a line) of text or thought, without its
	// line break.
	Text string
	// ToolCallID, Title, ToolName, ToolKind and Status describe a tool
	// call: Title, ToolName (ToolCall.name, "" when not given) and ToolKind
	// as last announced, Status the new one ("pending" when the agent gave
	// none).
	ToolCallID, Title, ToolName, ToolKind, Status string
}

// MaxUpdateLine is the size in bytes past which a line of streamed text is
// passed on in parts.
const MaxUpdateLine = 16 << 10

// streamer turns one job's session/update notifications into Updates. It
// is called from the connection's goroutine (update) and from the job's
// (answered, flush), so it locks; Updates are sent with its lock held, in
// arrival order.
type streamer struct {
	mu      sync.Mutex
	o       *observer
	u       UpdateObserver
	job     Ref
	red     *redact.Redactor
	at      position   // of the last update
	carry   chunkCarry // the text and thoughts redacted as one
	text    pendingLine
	thought pendingLine
	tools   map[string]*toolSeen // the session's tool calls, by id (a later turn may update an earlier one's)
}

// position is where in the session an update came: its turn and whether
// it came after the turn's answer.
type position struct {
	turn int
	late bool
}

// toolSeen is what was last said of a tool call.
type toolSeen struct {
	title, name, kind, status string
}

// pendingLine is the part of a line received and not yet passed on.
type pendingLine struct {
	kind string
	b    strings.Builder
}

// position is where in sess an update handled now comes: the turn current
// returns, and whether it comes after the turn's answer.
func (s *session) position() position {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.current()
	if t == nil {
		return position{}
	}
	return position{turn: t.rec.Index, late: t.late()}
}

// update passes on one session/update of the job, which came at pos.
func (s *streamer) update(u *acp.SessionUpdate, pos position) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pos != s.at {
		s.flushLocked() // the lines of another turn, or of before its answer
		s.at = pos
	}
	switch {
	case u.AgentMessageChunk != nil:
		if u.AgentMessageChunk.Content.Type == acp.ContentText {
			s.chunks(s.carry.add(s.red, agentChunk{text: u.AgentMessageChunk.Content.Text}))
		}
	case u.AgentThoughtChunk != nil:
		if u.AgentThoughtChunk.Content.Type == acp.ContentText {
			s.chunks(s.carry.add(s.red, agentChunk{thought: true, text: u.AgentThoughtChunk.Content.Text}))
		}
	case u.ToolCall != nil:
		s.part(&s.text)
		s.part(&s.thought)
		c := s.tool(u.ToolCall.ToolCallID)
		c.title, c.name, c.kind, c.status = u.ToolCall.Title, u.ToolCall.Name, string(u.ToolCall.Kind), shownStatus(u.ToolCall.Status, false)
		s.sendTool(u.ToolCall.ToolCallID, c)
	case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallID == "":
		// Of no call that can be told: ignored, as the record ignores it.
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		c := s.tool(tu.ToolCallID)
		if tu.Title != nil {
			c.title = *tu.Title
		}
		if tu.Name != nil {
			c.name = *tu.Name
		}
		if tu.Kind != nil {
			c.kind = string(*tu.Kind)
		}
		if tu.Status == nil || shownStatus(*tu.Status, false) == c.status {
			return // no change of status: nothing to say
		}
		s.part(&s.text)
		s.part(&s.thought)
		c.status = shownStatus(*tu.Status, false)
		s.sendTool(tu.ToolCallID, c)
	}
}

// tool returns what was said of tool call id, "" status for a new one.
func (s *streamer) tool(id string) *toolSeen {
	if s.tools == nil {
		s.tools = map[string]*toolSeen{}
	}
	c, ok := s.tools[id]
	if !ok {
		c = &toolSeen{}
		s.tools[id] = c
	}
	return c
}

func (s *streamer) sendTool(id string, c *toolSeen) {
	u := Update{Turn: s.at.turn, Late: s.at.late, Kind: UpdateToolCall, ToolCallID: s.red.String(id), Title: s.red.String(c.title),
		ToolName: s.red.String(c.name), ToolKind: s.red.String(c.kind), Status: s.red.String(c.status)}
	s.send(u)
}

// chunks adds each of chunks, final (see chunkCarry), to the line of its
// kind, sending first what the other kind's line holds.
func (s *streamer) chunks(chunks []agentChunk) {
	for _, c := range chunks {
		l, other := &s.text, &s.thought
		if c.thought {
			l, other = other, l
		}
		s.part(other)
		s.add(l, c.text)
	}
}

// add appends a chunk to line l, sending every line it ends, and a part of
// a line that grew past MaxUpdateLine.
func (s *streamer) add(l *pendingLine, chunk string) {
	for {
		i := strings.IndexByte(chunk, '\n')
		if i < 0 {
			break
		}
		l.b.WriteString(chunk[:i])
		s.end(l)
		chunk = chunk[i+1:]
	}
	l.b.WriteString(chunk)
	if l.b.Len() > MaxUpdateLine {
		s.part(l)
	}
}

// end sends line l, whole and redacted, and empties it; a blank line is
// dropped.
func (s *streamer) end(l *pendingLine) {
	text := s.red.String(strings.TrimRight(l.b.String(), "\r"))
	l.b.Reset()
	if strings.TrimSpace(text) != "" {
		s.send(Update{Turn: s.at.turn, Late: s.at.late, Kind: l.kind, Text: text})
	}
}

// part sends what line l holds so far, redacted, but for an end that may
// begin a secret: that stays in l, to be redacted with what follows it.
func (s *streamer) part(l *pendingLine) {
	if l.b.Len() == 0 {
		return
	}
	text := s.red.String(l.b.String())
	k := len(text) - s.red.Unfinished(text)
	for k > 0 && k < len(text) && !utf8.RuneStart(text[k]) {
		k-- // a rune split between the part and what is held back
	}
	l.b.Reset()
	l.b.WriteString(text[k:])
	if strings.TrimSpace(text[:k]) != "" {
		s.send(Update{Turn: s.at.turn, Late: s.at.late, Kind: l.kind, Text: text[:k]})
	}
}

// flushLocked sends what is left of the text and thoughts, whole; the
// caller holds s.mu.
func (s *streamer) flushLocked() {
	s.chunks(s.carry.rest(s.red))
	s.carry = chunkCarry{}
	if s.text.b.Len() > 0 {
		s.end(&s.text)
	}
	if s.thought.b.Len() > 0 {
		s.end(&s.thought)
	}
}

// flush sends what is left of the text and thoughts.
func (s *streamer) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked()
}

// answered sends what is left of the text and thoughts of turn index that
// came before its answer: the answer has been handled, so all of it has
// come. What came after the answer waits for what follows it.
func (s *streamer) answered(index int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == (position{turn: index}) {
		s.flushLocked()
	}
}

func (s *streamer) send(u Update) {
	s.o.call(func(Observer) { s.u.Update(s.job, u) })
}
