package mockagent

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/yamlnode"
)

// step is one thing a turn does. Each kind of step reads itself from the
// script and plays itself; stepKinds lists them.
type step interface {
	// parse reads the step from its action (its errors go to p).
	parse(p *parser, a action)
	// play plays the step; a non-nil ending stops the list it is in.
	play(pl *player) *ending
}

// action is the key that makes a step what it is, with its value, and the
// step's other keys: its modifiers.
type action struct {
	yamlnode.Pair
	mods []yamlnode.Pair
	what string // the step in messages: "text step"
}

// stepKind is a kind of step: the key that makes it, and how to make one.
type stepKind struct {
	name     string
	new      func() step
	turnOnly bool // needs a running prompt turn
	after    bool // with turnOnly: allowed in a turn's after: steps too
	mods     bool // takes modifiers (the step's parse reads them)
}

// stepKinds are the kinds of step, in the order the reference gives them.
var stepKinds = []stepKind{
	{name: "text", new: func() step { return &chunkStep{kind: acp.UpdateAgentMessageChunk} }, mods: true},
	{name: "thought", new: func() step { return &chunkStep{kind: acp.UpdateAgentThoughtChunk} }, mods: true},
	{name: "user", new: func() step { return &chunkStep{kind: acp.UpdateUserMessageChunk} }, mods: true},
	{name: "plan", new: func() step { return &planStep{} }},
	{name: "tool_call", new: func() step { return &toolCallStep{} }},
	{name: "tool_call_update", new: func() step { return &toolCallStep{update: true} }},
	{name: "permission", new: func() step { return &permissionStep{} }, turnOnly: true, mods: true},
	{name: "elicit", new: func() step { return &elicitStep{} }, turnOnly: true},
	{name: "notice", new: func() step { return &noticeStep{} }},
	{name: "compaction", new: func() step { return &compactionStep{} }},
	{name: "read", new: func() step { return &readStep{} }, turnOnly: true},
	{name: "write", new: func() step { return &writeStep{} }, turnOnly: true},
	{name: "terminal", new: func() step { return &terminalStep{} }, turnOnly: true},
	{name: "sleep", new: func() step { return &sleepStep{} }},
	{name: "waitForCancel", new: func() step { return &waitForCancelStep{} }, turnOnly: true},
	{name: "update", new: func() step { return &rawUpdateStep{} }},
	{name: "usage_update", new: func() step { return &usageUpdateStep{} }},
	{name: "stop", new: func() step { return &stopStep{} }, turnOnly: true},
	{name: "error", new: func() step { return &errorStep{} }, turnOnly: true},
	{name: "exit", new: func() step { return &exitStep{} }},
	{name: "hang", new: func() step { return &hangStep{} }},
	{name: "garbage", new: func() step { return &garbageStep{} }},
	{name: "flood", new: func() step { return &floodStep{} }},
	{name: "stderr", new: func() step { return &stderrStep{} }},
	{name: "spawnGrandchild", new: func() step { return &grandchildStep{} }},
	{name: "showConfig", new: func() step { return &showConfigStep{} }},
	{name: "showRoots", new: func() step { return &showRootsStep{} }},
	{name: "history", new: func() step { return &historyStep{} }},
	{name: "waitFor", new: func() step { return &waitForStep{} }},
	{name: "writeFile", new: func() step { return &writeFileStep{} }},
	{name: "readFile", new: func() step { return &readFileStep{} }},
	{name: "spawn", new: func() step { return &spawnStep{} }},
	{name: "connect", new: func() step { return &connectStep{} }},
	{name: "listen", new: func() step { return &listenStep{} }},
	{name: "model", new: func() step { return &modelStep{} }, turnOnly: true, after: true}, // after: a background request
}

// stepNames lists the keys of stepKinds, for messages.
func stepNames() []string {
	names := make([]string, len(stepKinds))
	for i, k := range stepKinds {
		names[i] = k.name
	}
	return names
}

// afterSteps names a turn's after: steps, played once its prompt is
// answered.
const afterSteps = "after"

// steps parses a list of steps. inTurn is false for steps played outside a
// prompt turn (before session/new, on session/load, after a response).
func (p *parser) steps(n *yaml.Node, what string, inTurn bool) []step {
	items, ok := p.list(n, what)
	if !ok {
		return nil
	}
	out := []step{}
	for _, it := range items {
		if s := p.step(it, what, inTurn); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// step parses one step: a mapping with exactly one key of stepKinds.
func (p *parser) step(n *yaml.Node, what string, inTurn bool) step {
	errs := len(p.Errs)
	kvs, ok := p.entries(n, what+" step")
	if !ok {
		return nil
	}
	// A step whose only key was reported (a list as a key) is not also
	// "empty".
	keyReported := len(p.Errs) > errs
	var a action
	var kind *stepKind
	for _, kv := range kvs {
		i := slices.IndexFunc(stepKinds, func(k stepKind) bool { return k.name == kv.Key })
		switch {
		case i < 0:
			a.mods = append(a.mods, kv)
		case kind != nil:
			p.Errorf(kv.K, "step has two actions, %q and %q: write two steps", a.Key, kv.Key)
			return nil
		default:
			kind, a.Pair = &stepKinds[i], kv
		}
	}
	switch {
	case kind == nil && len(a.mods) > 0:
		p.Errorf(a.mods[0].K, "unknown step %q (%s)", a.mods[0].Key, wanted(a.mods[0].Key, stepNames()))
		return nil
	case kind == nil && keyReported:
		return nil
	case kind == nil:
		p.Errorf(yamlnode.Deref(n), "empty step (want one of: %s)", strings.Join(stepNames(), ", "))
		return nil
	case kind.turnOnly && !inTurn && !(kind.after && what == afterSteps):
		where := "a turn's steps"
		if kind.after {
			where += " and " + afterSteps
		}
		p.Errorf(a.K, "%s step: only allowed in %s, not in %s", a.Key, where, what)
		return nil
	}
	a.what = a.Key + " step"
	if !kind.mods {
		p.apply(a.mods, a.what, fields{})
	}
	s := kind.new()
	s.parse(p, a)
	return s
}

// died is how steps end when the connection is gone, or the agent exits
// or hangs: the turn answers nothing.
func died() *ending { return &ending{dead: true} }

// check turns a failed notification into the end of the turn.
func check(err error) *ending {
	if err != nil {
		return died()
	}
	return nil
}

// onlyTrue is the base of the steps whose value can only be true.
type onlyTrue struct{}

func (onlyTrue) parse(p *parser, a action) {
	if b, ok := p.bool(a.V, a.Key); ok && !b {
		p.Errorf(yamlnode.Deref(a.V), "%s: the only useful value is true (remove the step instead)", a.Key)
	}
}

// textArg is the base of the steps whose value is a string, arg.
type textArg struct{ arg string }

func (st *textArg) parse(p *parser, a action) { st.arg, _ = p.str(a.V, a.Key) }

// nonEmptyArg is textArg for a string that must not be empty.
type nonEmptyArg struct{ textArg }

func (st *nonEmptyArg) parse(p *parser, a action) { st.arg, _ = p.nonEmpty(a.V, a.Key) }

// chunkStep sends message, thought or user chunks.
type chunkStep struct {
	kind      string // agent_message_chunk, agent_thought_chunk, user_message_chunk
	chunks    []string
	messageID string
}

func (st *chunkStep) parse(p *parser, a action) {
	split := 0
	p.apply(a.mods, a.what, fields{
		"chunks":    set(&split, p.between(1, math.MaxInt32), "chunks"),
		"messageId": set(&st.messageID, p.nonEmpty, "messageId"),
	})
	if r := yamlnode.Deref(a.V); r.Kind == yaml.SequenceNode {
		st.chunks, _ = p.strings(a.V, a.Key)
		if split > 0 {
			p.Errorf(r, "%s: chunks needs a single string, not a list", a.Key)
		}
	} else if s, ok := p.str(a.V, a.Key); ok {
		st.chunks = splitChunks(s, split)
	}
}

func (st *chunkStep) play(pl *player) *ending {
	for i, c := range st.chunks {
		if i > 0 && pl.cancelRequested() {
			return pl.cancelEnding()
		}
		if err := pl.notify(textChunk(st.kind, c, st.messageID)); err != nil {
			return died()
		}
	}
	return nil
}

// splitChunks splits s into n pieces of about the same number of runes
// (n <= 1: one piece).
func splitChunks(s string, n int) []string {
	runes := []rune(s)
	if n <= 1 || len(runes) <= 1 {
		return []string{s}
	}
	n = min(n, len(runes))
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(runes[i*len(runes)/n:(i+1)*len(runes)/n]))
	}
	return out
}

type planStep struct {
	entries []acp.PlanEntry
}

func (st *planStep) parse(p *parser, a action) {
	st.entries = []acp.PlanEntry{}
	items, _ := p.list(a.V, "plan")
	for _, it := range items {
		e := acp.PlanEntry{Priority: acp.PriorityMedium, Status: acp.PlanPending}
		p.object(it, "plan entry", fields{
			"content":  set(&e.Content, p.str, "plan entry content"),
			"priority": set(&e.Priority, oneOfAs[acp.PlanEntryPriority](p, "high", "medium", "low"), "priority"),
			"status":   set(&e.Status, oneOfAs[acp.PlanEntryStatus](p, "pending", "in_progress", "completed"), "status"),
		})
		st.entries = append(st.entries, e)
	}
}

func (st *planStep) play(pl *player) *ending {
	return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdatePlan, Plan: &acp.Plan{Entries: st.entries}}))
}

type toolCallStep struct {
	update bool               // tool_call_update instead of tool_call
	call   acp.ToolCallUpdate // relative paths are resolved against the session cwd when sent
}

func (st *toolCallStep) parse(p *parser, a action) {
	st.call = p.toolCall(a.V, a.Key, !st.update)
}

func (st *toolCallStep) play(pl *player) *ending {
	u := pl.resolve(st.call)
	pl.track(u.ToolCallID, u.Status, !st.update)
	if st.update {
		return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &u}))
	}
	tc := u.ToolCall()
	return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &tc}))
}

var (
	toolKinds    = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}
	toolStatuses = []string{"pending", "in_progress", "completed", "failed"}
)

// toolCall parses a tool call (needTitle) or a tool call update.
func (p *parser) toolCall(n *yaml.Node, what string, needTitle bool) acp.ToolCallUpdate {
	var tc acp.ToolCallUpdate
	given, _ := p.object(n, what, fields{
		"toolCallId": set(&tc.ToolCallID, p.nonEmpty, what+".toolCallId"),
		"title":      setPtr(&tc.Title, p.str, what+".title"),
		"name":       setPtr(&tc.Name, p.str, what+".name"),
		"kind":       setPtr(&tc.Kind, oneOfAs[acp.ToolKind](p, toolKinds...), what+".kind"),
		"status":     setPtr(&tc.Status, oneOfAs[acp.ToolCallStatus](p, toolStatuses...), what+".status"),
		"rawInput":   set(&tc.RawInput, p.rawJSON, what+".rawInput"),
		"rawOutput":  set(&tc.RawOutput, p.rawJSON, what+".rawOutput"),
		"_meta":      set(&tc.Meta, p.rawObject, what+"._meta"),
		"locations": func(v *yaml.Node) {
			tc.Locations = []acp.ToolCallLocation{}
			items, _ := p.list(v, what+".locations")
			for _, it := range items {
				var l acp.ToolCallLocation
				given, _ := p.object(it, "location", fields{
					"path": set(&l.Path, p.nonEmpty, "location.path"),
					"line": setPtr(&l.Line, p.between(1, math.MaxUint32), "location.line"),
				})
				if !given["path"] {
					p.Errorf(yamlnode.Deref(it), "location: path is required")
				}
				tc.Locations = append(tc.Locations, l)
			}
		},
		"content": func(v *yaml.Node) {
			tc.Content = []acp.ToolCallContent{}
			items, _ := p.list(v, what+".content")
			for _, it := range items {
				tc.Content = append(tc.Content, p.toolContent(it))
			}
		},
	})
	if !given["toolCallId"] {
		p.Errorf(yamlnode.Deref(n), "%s: toolCallId is required", what)
	}
	if needTitle && !given["title"] {
		p.Errorf(yamlnode.Deref(n), "%s: title is required", what)
	}
	return tc
}

func (p *parser) toolContent(n *yaml.Node) acp.ToolCallContent {
	var c acp.ToolCallContent
	given, _ := p.object(n, "tool call content", fields{
		"text": func(v *yaml.Node) {
			s, _ := p.str(v, "content text")
			c = acp.BlockToolContent(acp.TextBlock(s))
		},
		"terminal": func(v *yaml.Node) {
			s, _ := p.nonEmpty(v, "content terminal")
			c = acp.TerminalToolContent(s)
		},
		"diff": func(v *yaml.Node) {
			var path, newText string
			var oldText *string
			diff, _ := p.object(v, "diff", fields{
				"path": set(&path, p.nonEmpty, "diff.path"),
				"oldText": func(v *yaml.Node) {
					if !yamlnode.IsNull(v) {
						setPtr(&oldText, p.str, "diff.oldText")(v)
					}
				},
				"newText": set(&newText, p.str, "diff.newText"),
			})
			if !diff["path"] || !diff["newText"] {
				p.Errorf(yamlnode.Deref(v), "diff: path and newText are required")
			}
			c = acp.DiffToolContent(path, oldText, newText)
		},
	})
	if len(given) != 1 {
		p.Errorf(yamlnode.Deref(n), "tool call content: want exactly one of text, diff, terminal")
	}
	return c
}

type readStep struct {
	path  string
	line  *int
	limit *int
}

func (st *readStep) parse(p *parser, a action) {
	given, _ := p.object(a.V, "read", fields{
		"path":  set(&st.path, p.nonEmpty, "read.path"),
		"line":  setPtr(&st.line, p.between(1, math.MaxUint32), "read.line"),
		"limit": setPtr(&st.limit, p.between(0, math.MaxUint32), "read.limit"),
	})
	if !given["path"] {
		p.Errorf(yamlnode.Deref(a.V), "read: path is required")
	}
}

func (st *readStep) play(pl *player) *ending {
	var res acp.ReadTextFileResponse
	err := pl.call(pl.a.ctx, acp.MethodFSReadTextFile, acp.ReadTextFileRequest{
		SessionID: pl.sess.id, Path: abs(pl.sess.cwd, st.path), Line: st.line, Limit: st.limit,
	}, &res)
	return pl.outcome(acp.MethodFSReadTextFile, err, func() error { return pl.say("read: %s", res.Content) })
}

type writeStep struct{ fileContent }

// fileContent is the path and the content of a write or writeFile step.
type fileContent struct {
	path    string
	content string
}

func (st *fileContent) parse(p *parser, a action) {
	given, _ := p.object(a.V, a.Key, fields{
		"path":    set(&st.path, p.nonEmpty, a.Key+".path"),
		"content": set(&st.content, p.str, a.Key+".content"),
	})
	if !given["path"] || !given["content"] {
		p.Errorf(yamlnode.Deref(a.V), "%s: path and content are required", a.Key)
	}
}

func (st *writeStep) play(pl *player) *ending {
	err := pl.call(pl.a.ctx, acp.MethodFSWriteTextFile, acp.WriteTextFileRequest{
		SessionID: pl.sess.id, Path: abs(pl.sess.cwd, st.path), Content: st.content,
	}, nil)
	return pl.outcome(acp.MethodFSWriteTextFile, err, func() error { return pl.say("write: ok") })
}

type sleepStep struct {
	d time.Duration
}

func (st *sleepStep) parse(p *parser, a action) {
	st.d, _ = p.duration(a.V, "sleep", "50ms or 2s")
}

func (st *sleepStep) play(pl *player) *ending {
	t := time.NewTimer(st.d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-pl.cancelled():
		return pl.cancelEnding()
	case <-pl.a.ctx.Done():
		return died()
	}
}

type waitForCancelStep struct{ onlyTrue }

func (st *waitForCancelStep) play(pl *player) *ending {
	if pl.run == nil {
		return nil
	}
	select {
	case <-pl.run.cancelled:
		return nil // play notices the cancel, unless the mode ignores it
	case <-pl.a.eof:
		pl.run.cancel() // no cancel can come any more: take the end of stdin as one
		return nil
	case <-pl.a.ctx.Done():
		return died()
	}
}

// rawUpdateStep sends a session/update with the update as written.
type rawUpdateStep struct {
	raw json.RawMessage
}

func (st *rawUpdateStep) parse(p *parser, a action) {
	kvs, ok := p.entries(a.V, "update")
	if !ok {
		return
	}
	kind := false
	for _, kv := range kvs {
		if kv.Key == "sessionUpdate" {
			kind = true
			p.nonEmpty(kv.V, "update.sessionUpdate")
		}
	}
	if !kind {
		p.Errorf(yamlnode.Deref(a.V), "update: sessionUpdate is required")
	}
	st.raw, _ = p.rawJSON(a.V, "update")
}

func (st *rawUpdateStep) play(pl *player) *ending {
	return check(pl.notify(acp.SessionUpdate{Raw: st.raw})) // of no kind: sent as it is
}

type usageUpdateStep struct {
	update acp.UsageUpdate
}

func (st *usageUpdateStep) parse(p *parser, a action) {
	u := &st.update
	given, _ := p.object(a.V, "usage_update", fields{
		"used": func(v *yaml.Node) { u.Used, _ = p.int64(v, "used") },
		"size": func(v *yaml.Node) { u.Size, _ = p.int64(v, "size") },
		"cost": func(v *yaml.Node) {
			c := &acp.Cost{}
			p.object(v, "cost", fields{
				"amount":   set(&c.Amount, p.float, "cost.amount"),
				"currency": set(&c.Currency, p.nonEmpty, "cost.currency"),
			})
			u.Cost = c
		},
	})
	if !given["used"] || !given["size"] {
		p.Errorf(yamlnode.Deref(a.V), "usage_update: used and size are required")
	}
}

func (st *usageUpdateStep) play(pl *player) *ending {
	u := st.update
	return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateUsageUpdate, UsageUpdate: &u}))
}

// stopStep ends the turn with the stop reason arg.
type stopStep struct{ nonEmptyArg }

func (st *stopStep) play(*player) *ending { return &ending{stop: acp.StopReason(st.arg)} }

type errorStep struct {
	err *rpcError
}

func (st *errorStep) parse(p *parser, a action) { st.err = p.rpcError(a.V) }

func (st *errorStep) play(*player) *ending { return &ending{err: st.err} }

// exitStep ends the process: nothing more is written.
type exitStep struct {
	code int
}

func (st *exitStep) parse(p *parser, a action) { st.code, _ = p.int(a.V, "exit", 0, 255) }

func (st *exitStep) play(pl *player) *ending {
	pl.a.out.kill()
	os.Exit(st.code)
	return died()
}

// hangStep makes the agent hang: from now on nothing is written or
// answered.
type hangStep struct{ onlyTrue }

func (st *hangStep) play(pl *player) *ending {
	pl.a.hung.Store(true)
	pl.a.out.discard()
	_, _ = fmt.Fprintln(pl.a.stderr, "mock-agent: hanging (hang step)") // a log line; its failure changes nothing
	return died()
}

// garbageStep writes the line arg to stdout, in one write.
type garbageStep struct{ textArg }

func (st *garbageStep) play(pl *player) *ending {
	_, err := pl.a.out.Write([]byte(st.arg + "\n"))
	return check(err)
}

type floodStep struct {
	count int
	text  string
}

func (st *floodStep) parse(p *parser, a action) {
	st.text = "x"
	given, _ := p.object(a.V, "flood", fields{
		"count": set(&st.count, p.between(1, 10_000_000), "flood.count"),
		"text":  set(&st.text, p.str, "flood.text"),
	})
	if !given["count"] {
		p.Errorf(yamlnode.Deref(a.V), "flood: count is required")
	}
}

func (st *floodStep) play(pl *player) *ending {
	for range st.count {
		if err := pl.notify(textChunk(acp.UpdateAgentMessageChunk, st.text, "")); err != nil {
			return died()
		}
	}
	return nil
}

// stderrStep writes arg to stderr, a line.
type stderrStep struct{ textArg }

func (st *stderrStep) play(pl *player) *ending {
	text := st.arg
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, _ = pl.a.stderr.Write([]byte(text)) // stderr is a log; a failed write changes nothing
	return nil
}
