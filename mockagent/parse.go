package mockagent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/yamlnode"
)

// Load reads and parses the script at path.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load mock script: %w", err)
	}
	return Parse(path, data)
}

// Parse parses a script. file names it in errors. The error, if any, joins
// one *srcerr.Error per problem found, each with its position and source line.
func Parse(file string, data []byte) (*Script, error) {
	s := &Script{File: file, protocolVersion: 1, onCancel: cancelCancelled}
	s.agentInfo = acp.Implementation{Name: "acprun-mock-agent", Version: "1.0.0"}
	s.permissionOptions = defaultPermissionOptions()
	p := &parser{Reader: yamlnode.Reader{Name: file, Src: data}, budget: maxRawNodes}
	if root := p.document(); root != nil {
		p.script(root, s)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// document returns the root of the script's one document; nil when there
// is none (an empty script: every prompt ends with end_turn) or the text
// is not one YAML document.
func (p *parser) document() *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(p.Src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if !errors.Is(err, io.EOF) {
			p.SyntaxError(dec, err)
		}
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.Errorf(&extra, "a script holds one YAML document, found another")
		return nil
	} else if !errors.Is(err, io.EOF) {
		p.SyntaxError(dec, err)
		return nil
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if yamlnode.IsNull(root) {
		return nil
	}
	return root
}

func (p *parser) script(n *yaml.Node, s *Script) {
	p.object(n, "script", fields{
		"protocolVersion": func(v *yaml.Node) {
			if i, ok := p.int(v, "protocolVersion", 0, math.MaxUint16); ok {
				s.protocolVersion = i
			}
		},
		"agentInfo":         func(v *yaml.Node) { p.implementation(v, &s.agentInfo) },
		"agentCapabilities": func(v *yaml.Node) { p.capabilities(v, &s.capabilities) },
		"authMethods":       func(v *yaml.Node) { p.authMethods(v, s) },
		"authRequired": func(v *yaml.Node) {
			s.authRequired, _ = p.bool(v, "authRequired")
		},
		"sessionId": func(v *yaml.Node) {
			s.sessionID, _ = p.nonEmpty(v, "sessionId")
		},
		"modes":         func(v *yaml.Node) { s.modes = p.modes(v) },
		"configOptions": func(v *yaml.Node) { s.configOptions = p.configOptions(v) },
		"models":        func(v *yaml.Node) { s.models = p.models(v) },
		"permissionOptions": func(v *yaml.Node) {
			if o := p.permissionOptions(v, "permissionOptions"); o != nil {
				s.permissionOptions = o
			}
		},
		"onCancel": func(v *yaml.Node) {
			if m, ok := p.cancelMode(v); ok {
				s.onCancel = m
			}
		},
		"ignoreSigterm": func(v *yaml.Node) {
			s.IgnoreSigterm, _ = p.bool(v, "ignoreSigterm")
		},
		"ignoreEOF": func(v *yaml.Node) {
			s.ignoreEOF, _ = p.bool(v, "ignoreEOF")
		},
		"startDelay": func(v *yaml.Node) {
			if str, ok := p.str(v, "startDelay"); ok {
				d, err := time.ParseDuration(str)
				if err != nil || d < 0 {
					p.Errorf(yamlnode.Deref(v), "startDelay: want a duration such as 500ms or 1s, got %q", str)
				}
				s.startDelay = d
			}
		},
		"updatesBeforeSessionNew": func(v *yaml.Node) {
			s.beforeSessionNew = p.steps(v, "updatesBeforeSessionNew", false)
		},
		"load": func(v *yaml.Node) { s.load = p.steps(v, "load", false) },
		"sessions": func(v *yaml.Node) {
			if dir, ok := p.nonEmpty(v, "sessions"); ok {
				s.sessionsDir = scriptRelative(p.Name, dir)
			}
		},
		"loadError": func(v *yaml.Node) {
			e := p.rpcError(v)
			s.loadError = &e
		},
		"turns": func(v *yaml.Node) {
			items, _ := p.list(v, "turns")
			for _, it := range items {
				if t := p.turn(it, "turn", true); t != nil {
					s.turns = append(s.turns, t)
				}
			}
		},
		"default": func(v *yaml.Node) { s.fallback = p.turn(v, "default", false) },
	})
	if s.authRequired && !slices.ContainsFunc(s.authMethods, func(m acp.AuthMethod) bool { return m.Type != acp.AuthTypeTerminal }) {
		p.Errorf(n, "script: authRequired needs at least one authMethods entry that authenticate accepts")
	}
}

func (p *parser) implementation(n *yaml.Node, im *acp.Implementation) {
	p.object(n, "agentInfo", fields{
		"name":    func(v *yaml.Node) { im.Name, _ = p.str(v, "agentInfo.name") },
		"version": func(v *yaml.Node) { im.Version, _ = p.str(v, "agentInfo.version") },
		"title":   func(v *yaml.Node) { im.Title, _ = p.str(v, "agentInfo.title") },
	})
}

// capability parses a capability given as true/false or as an object ({}).
func (p *parser) capability(dst **acp.Capability, what string) func(*yaml.Node) {
	return func(v *yaml.Node) {
		r := yamlnode.Deref(v)
		if r.Kind == yaml.MappingNode {
			meta, _ := p.rawJSON(v, what)
			*dst = &acp.Capability{}
			if string(meta) != "{}" {
				*dst = &acp.Capability{Meta: meta}
			}
			return
		}
		if on, ok := p.bool(v, what); ok && on {
			*dst = &acp.Capability{}
		}
	}
}

func (p *parser) capabilities(n *yaml.Node, c *acp.AgentCapabilities) {
	boolTo := func(dst *bool, what string) func(*yaml.Node) {
		return func(v *yaml.Node) { *dst, _ = p.bool(v, what) }
	}
	sc := &c.SessionCapabilities
	p.object(n, "agentCapabilities", fields{
		"loadSession": boolTo(&c.LoadSession, "loadSession"),
		"promptCapabilities": func(v *yaml.Node) {
			p.object(v, "promptCapabilities", fields{
				"image":           boolTo(&c.PromptCapabilities.Image, "image"),
				"audio":           boolTo(&c.PromptCapabilities.Audio, "audio"),
				"embeddedContext": boolTo(&c.PromptCapabilities.EmbeddedContext, "embeddedContext"),
			})
		},
		"mcpCapabilities": func(v *yaml.Node) {
			p.object(v, "mcpCapabilities", fields{
				"http": boolTo(&c.McpCapabilities.HTTP, "http"),
				"sse":  boolTo(&c.McpCapabilities.SSE, "sse"),
			})
		},
		"sessionCapabilities": func(v *yaml.Node) {
			p.object(v, "sessionCapabilities", fields{
				"list":                  p.capability(&sc.List, "list"),
				"delete":                p.capability(&sc.Delete, "delete"),
				"additionalDirectories": p.capability(&sc.AdditionalDirectories, "additionalDirectories"),
				"resume":                p.capability(&sc.Resume, "resume"),
				"close":                 p.capability(&sc.Close, "close"),
			})
		},
		"auth": func(v *yaml.Node) {
			p.object(v, "auth", fields{"logout": p.capability(&c.Auth.Logout, "logout")})
		},
		"_meta": func(v *yaml.Node) { c.Meta, _ = p.rawObject(v, "_meta") },
	})
}

func (p *parser) authMethods(n *yaml.Node, s *Script) {
	items, _ := p.list(n, "authMethods")
	for _, it := range items {
		var m acp.AuthMethod
		p.object(it, "authMethods item", fields{
			"id":          func(v *yaml.Node) { m.ID, _ = p.nonEmpty(v, "authMethods.id") },
			"name":        func(v *yaml.Node) { m.Name, _ = p.str(v, "authMethods.name") },
			"description": func(v *yaml.Node) { m.Description, _ = p.str(v, "authMethods.description") },
			"type": func(v *yaml.Node) {
				m.Type, _ = p.oneOf(v, "authMethods.type", acp.AuthTypeAgent, acp.AuthTypeTerminal)
			},
			"args": func(v *yaml.Node) { m.Args, _ = p.strings(v, "authMethods.args") },
			"env": func(v *yaml.Node) {
				m.Env = map[string]string{}
				kvs, _ := p.entries(v, "authMethods.env")
				for _, kv := range kvs {
					m.Env[kv.Key], _ = p.str(kv.V, "authMethods.env value")
				}
			},
		})
		if m.ID == "" {
			p.Errorf(yamlnode.Deref(it), "authMethods item: id is required")
			continue
		}
		if m.Type != acp.AuthTypeTerminal && (m.Args != nil || m.Env != nil) {
			p.Errorf(yamlnode.Deref(it), "authMethods item: args and env need type: terminal")
		}
		s.authMethods = append(s.authMethods, m)
	}
}

func (p *parser) modes(n *yaml.Node) *acp.SessionModeState {
	ms := &acp.SessionModeState{}
	p.object(n, "modes", fields{
		"currentModeId": func(v *yaml.Node) { ms.CurrentModeID, _ = p.str(v, "modes.currentModeId") },
		"availableModes": func(v *yaml.Node) {
			items, _ := p.list(v, "modes.availableModes")
			for _, it := range items {
				var m acp.SessionMode
				p.object(it, "mode", fields{
					"id":          func(v *yaml.Node) { m.ID, _ = p.nonEmpty(v, "mode.id") },
					"name":        func(v *yaml.Node) { m.Name, _ = p.str(v, "mode.name") },
					"description": func(v *yaml.Node) { m.Description, _ = p.str(v, "mode.description") },
				})
				if m.ID == "" {
					p.Errorf(yamlnode.Deref(it), "mode: id is required")
					continue
				}
				ms.AvailableModes = append(ms.AvailableModes, m)
			}
		},
	})
	if ms.CurrentModeID == "" && len(ms.AvailableModes) > 0 {
		ms.CurrentModeID = ms.AvailableModes[0].ID
	}
	found := slices.ContainsFunc(ms.AvailableModes, func(m acp.SessionMode) bool { return m.ID == ms.CurrentModeID })
	switch {
	case len(ms.AvailableModes) == 0:
		p.Errorf(yamlnode.Deref(n), "modes: availableModes needs at least one mode")
	case !found:
		p.Errorf(yamlnode.Deref(n), "modes: currentModeId %q is not among availableModes", ms.CurrentModeID)
	}
	return ms
}

func (p *parser) permissionOptions(n *yaml.Node, what string) []acp.PermissionOption {
	items, ok := p.list(n, what)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.Errorf(yamlnode.Deref(n), "%s: need at least one option", what)
		return nil
	}
	opts := []acp.PermissionOption{}
	for _, it := range items {
		var o acp.PermissionOption
		p.object(it, "permission option", fields{
			"optionId": func(v *yaml.Node) { o.OptionID, _ = p.nonEmpty(v, "optionId") },
			"name":     func(v *yaml.Node) { o.Name, _ = p.str(v, "name") },
			"kind": func(v *yaml.Node) {
				k, _ := p.oneOf(v, "kind", "allow_once", "allow_always", "reject_once", "reject_always")
				o.Kind = acp.PermissionOptionKind(k)
			},
		})
		if o.OptionID == "" || o.Kind == "" {
			p.Errorf(yamlnode.Deref(it), "permission option: optionId and kind are required")
			continue
		}
		if o.Name == "" {
			o.Name = o.OptionID
		}
		opts = append(opts, o)
	}
	return opts
}

func (p *parser) cancelMode(n *yaml.Node) (cancelMode, bool) {
	s, ok := p.oneOf(n, "onCancel", string(cancelCancelled), string(cancelEndTurn), string(cancelIgnore))
	return cancelMode(s), ok
}

// turn parses an entry of turns: (withMatch) or the default: turn.
func (p *parser) turn(n *yaml.Node, what string, withMatch bool) *turn {
	t := &turn{pos: pos{yamlnode.Deref(n).Line, yamlnode.Deref(n).Column}}
	fs := fields{
		"steps": func(v *yaml.Node) { t.steps = p.steps(v, "steps", true) },
		"after": func(v *yaml.Node) { t.after = p.steps(v, "after", false) },
		"stopReason": func(v *yaml.Node) {
			t.stopReason, _ = p.nonEmpty(v, "stopReason")
		},
		"error": func(v *yaml.Node) {
			e := p.rpcError(v)
			t.err = &e
		},
		"usage": func(v *yaml.Node) { t.usage = p.usage(v) },
		"onCancel": func(v *yaml.Node) {
			t.onCancel, _ = p.cancelMode(v)
		},
	}
	if withMatch {
		fs["match"] = func(v *yaml.Node) {
			src, ok := p.str(v, "match")
			if !ok {
				return
			}
			re, err := regexp.Compile(src)
			if err != nil {
				p.Errorf(yamlnode.Deref(v), "match: bad regular expression: %v", err)
				return
			}
			t.match = re
		}
	}
	if !p.object(n, what, fs) {
		return nil
	}
	if t.err != nil && t.stopReason != "" {
		p.Errorf(yamlnode.Deref(n), "%s: stopReason and error exclude each other", what)
	}
	return t
}

func (p *parser) rpcError(n *yaml.Node) rpcError {
	e := rpcError{Code: -32603, Message: "Internal error"}
	p.object(n, "error", fields{
		"code": func(v *yaml.Node) {
			e.Code, _ = p.int(v, "error.code", math.MinInt32, math.MaxInt32)
		},
		"message": func(v *yaml.Node) { e.Message, _ = p.str(v, "error.message") },
		"data":    func(v *yaml.Node) { e.Data, _ = p.rawJSON(v, "error.data") },
	})
	return e
}

func (p *parser) usage(n *yaml.Node) *acp.Usage {
	u := &acp.Usage{}
	total := false
	count := func(dst *int64, what string) func(*yaml.Node) {
		return func(v *yaml.Node) {
			if i, ok := p.int64(v, what); ok && i >= 0 {
				*dst = i
			} else if ok {
				p.Errorf(yamlnode.Deref(v), "%s: must not be negative", what)
			}
		}
	}
	opt := func(dst **int64, what string) func(*yaml.Node) {
		return func(v *yaml.Node) {
			var i int64
			count(&i, what)(v)
			*dst = &i
		}
	}
	p.object(n, "usage", fields{
		"totalTokens": func(v *yaml.Node) {
			total = true
			count(&u.TotalTokens, "totalTokens")(v)
		},
		"inputTokens":       count(&u.InputTokens, "inputTokens"),
		"outputTokens":      count(&u.OutputTokens, "outputTokens"),
		"thoughtTokens":     opt(&u.ThoughtTokens, "thoughtTokens"),
		"cachedReadTokens":  opt(&u.CachedReadTokens, "cachedReadTokens"),
		"cachedWriteTokens": opt(&u.CachedWriteTokens, "cachedWriteTokens"),
	})
	if !total {
		u.TotalTokens = u.InputTokens + u.OutputTokens
		if u.ThoughtTokens != nil {
			u.TotalTokens += *u.ThoughtTokens
		}
	}
	return u
}

// actionNames are the keys that make a step what it is; a step has exactly
// one of them.
var actionNames = []string{
	"text", "thought", "user", "plan", "tool_call", "tool_call_update", "permission",
	"read", "write", "terminal", "sleep", "waitForCancel", "update", "usage_update",
	"stop", "error", "exit", "hang", "garbage", "flood", "stderr", "spawnGrandchild", "showConfig",
	"history", "waitFor",
}

// turnOnlyActions need a running prompt turn.
var turnOnlyActions = []string{"permission", "read", "write", "terminal", "waitForCancel", "stop", "error"}

func isAction(name string) bool { return slices.Contains(actionNames, name) }

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

func (p *parser) step(n *yaml.Node, what string, inTurn bool) step {
	kvs, ok := p.entries(n, what+" step")
	if !ok {
		return nil
	}
	var action *yamlnode.Pair
	var mods []yamlnode.Pair
	for i, kv := range kvs {
		if !isAction(kv.Key) {
			mods = append(mods, kv)
			continue
		}
		if action != nil {
			p.Errorf(kv.K, "step has two actions, %q and %q: write two steps", action.Key, kv.Key)
			return nil
		}
		action = &kvs[i]
	}
	r := yamlnode.Deref(n)
	if action == nil {
		if len(mods) > 0 {
			p.Errorf(mods[0].K, "unknown step %q (want one of: %s)", mods[0].Key, strings.Join(actionNames, ", "))
		} else {
			p.Errorf(r, "empty step (want one of: %s)", strings.Join(actionNames, ", "))
		}
		return nil
	}
	if !inTurn {
		if slices.Contains(turnOnlyActions, action.Key) {
			p.Errorf(action.K, "%s step: only allowed in a turn's steps, not in %s", action.Key, what)
			return nil
		}
	}
	here := at{pos{action.K.Line, action.K.Column}}
	what = action.Key + " step"
	v := action.V
	// noMods is for actions that take no modifiers.
	noMods := func() { p.apply(mods, what, fields{}) }

	switch action.Key {
	case "text", "thought", "user":
		kind := map[string]string{"text": "agent_message_chunk", "thought": "agent_thought_chunk", "user": "user_message_chunk"}[action.Key]
		st := &chunkStep{at: here, kind: kind}
		split := 0
		p.apply(mods, what, fields{
			"chunks":    func(v *yaml.Node) { split, _ = p.int(v, "chunks", 1, math.MaxInt32) },
			"messageId": func(v *yaml.Node) { st.messageID, _ = p.nonEmpty(v, "messageId") },
		})
		if r := yamlnode.Deref(v); r.Kind == yaml.SequenceNode {
			st.chunks, _ = p.strings(v, action.Key)
			if split > 0 {
				p.Errorf(r, "%s: chunks needs a single string, not a list", action.Key)
			}
		} else if s, ok := p.str(v, action.Key); ok {
			st.chunks = splitChunks(s, split)
		}
		return st
	case "plan":
		noMods()
		st := &planStep{at: here, entries: []acp.PlanEntry{}}
		items, _ := p.list(v, "plan")
		for _, it := range items {
			e := acp.PlanEntry{Priority: acp.PriorityMedium, Status: acp.PlanPending}
			p.object(it, "plan entry", fields{
				"content": func(v *yaml.Node) { e.Content, _ = p.str(v, "plan entry content") },
				"priority": func(v *yaml.Node) {
					if s, ok := p.oneOf(v, "priority", "high", "medium", "low"); ok {
						e.Priority = acp.PlanEntryPriority(s)
					}
				},
				"status": func(v *yaml.Node) {
					if s, ok := p.oneOf(v, "status", "pending", "in_progress", "completed"); ok {
						e.Status = acp.PlanEntryStatus(s)
					}
				},
			})
			st.entries = append(st.entries, e)
		}
		return st
	case "tool_call", "tool_call_update":
		noMods()
		st := &toolCallStep{at: here, update: action.Key == "tool_call_update"}
		st.call = p.toolCall(v, action.Key, !st.update)
		return st
	case "permission":
		st := &permissionStep{at: here}
		st.call = p.toolCall(v, "permission", false)
		p.apply(mods, what, fields{
			"options":  func(v *yaml.Node) { st.options = p.permissionOptions(v, "options") },
			"allowed":  func(v *yaml.Node) { st.allowed = p.steps(v, "allowed", true) },
			"rejected": func(v *yaml.Node) { st.rejected = p.steps(v, "rejected", true) },
			"cancelled": func(v *yaml.Node) {
				st.hasCancelled = true
				st.cancelled = p.steps(v, "cancelled", true)
			},
		})
		return st
	case "read":
		noMods()
		st := &readStep{at: here}
		p.object(v, "read", fields{
			"path": func(v *yaml.Node) { st.path, _ = p.nonEmpty(v, "read.path") },
			"line": func(v *yaml.Node) {
				if i, ok := p.int(v, "read.line", 1, math.MaxUint32); ok {
					st.line = &i
				}
			},
			"limit": func(v *yaml.Node) {
				if i, ok := p.int(v, "read.limit", 0, math.MaxUint32); ok {
					st.limit = &i
				}
			},
		})
		if st.path == "" {
			p.Errorf(yamlnode.Deref(v), "read: path is required")
		}
		return st
	case "write":
		noMods()
		st := &writeStep{at: here}
		hasContent := false
		p.object(v, "write", fields{
			"path": func(v *yaml.Node) { st.path, _ = p.nonEmpty(v, "write.path") },
			"content": func(v *yaml.Node) {
				hasContent = true
				st.content, _ = p.str(v, "write.content")
			},
		})
		if st.path == "" || !hasContent {
			p.Errorf(yamlnode.Deref(v), "write: path and content are required")
		}
		return st
	case "terminal":
		noMods()
		return p.terminal(v, here)
	case "sleep":
		noMods()
		st := &sleepStep{at: here}
		if s, ok := p.str(v, "sleep"); ok {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				p.Errorf(yamlnode.Deref(v), "sleep: want a duration such as 50ms or 2s, got %q", s)
			}
			st.d = d
		}
		return st
	case "waitForCancel", "hang", "spawnGrandchild", "showConfig":
		noMods()
		if b, ok := p.bool(v, action.Key); ok && !b {
			p.Errorf(yamlnode.Deref(v), "%s: the only useful value is true (remove the step instead)", action.Key)
		}
		switch action.Key {
		case "waitForCancel":
			return &waitForCancelStep{here}
		case "hang":
			return &hangStep{here}
		case "showConfig":
			return &showConfigStep{here}
		}
		return &grandchildStep{here}
	case "update":
		noMods()
		st := &rawUpdateStep{at: here}
		kvs, ok := p.entries(v, "update")
		if !ok {
			return st
		}
		kind := false
		for _, kv := range kvs {
			if kv.Key == "sessionUpdate" {
				_, kind = p.nonEmpty(kv.V, "update.sessionUpdate")
			}
		}
		if !kind {
			p.Errorf(yamlnode.Deref(v), "update: sessionUpdate is required")
		}
		st.raw, _ = p.rawJSON(v, "update")
		return st
	case "usage_update":
		noMods()
		st := &usageUpdateStep{at: here}
		u := &st.update
		var hasUsed, hasSize bool
		p.object(v, "usage_update", fields{
			"used": func(v *yaml.Node) { u.Used, hasUsed = p.int64(v, "used") },
			"size": func(v *yaml.Node) { u.Size, hasSize = p.int64(v, "size") },
			"cost": func(v *yaml.Node) {
				c := &acp.Cost{}
				p.object(v, "cost", fields{
					"amount":   func(v *yaml.Node) { c.Amount, _ = p.float(v, "cost.amount") },
					"currency": func(v *yaml.Node) { c.Currency, _ = p.nonEmpty(v, "cost.currency") },
				})
				u.Cost = c
			},
		})
		if !hasUsed || !hasSize {
			p.Errorf(yamlnode.Deref(v), "usage_update: used and size are required")
		}
		return st
	case "history":
		noMods()
		if b, ok := p.bool(v, "history"); ok && !b {
			p.Errorf(yamlnode.Deref(v), "history: the only useful value is true (remove the step instead)")
		}
		return &historyStep{here}
	case "waitFor":
		noMods()
		st := &waitForStep{at: here}
		st.path, _ = p.nonEmpty(v, "waitFor")
		return st
	case "stop":
		noMods()
		st := &stopStep{at: here}
		st.reason, _ = p.nonEmpty(v, "stop")
		return st
	case "error":
		noMods()
		return &errorStep{at: here, err: p.rpcError(v)}
	case "exit":
		noMods()
		st := &exitStep{at: here}
		st.code, _ = p.int(v, "exit", 0, 255)
		return st
	case "garbage":
		noMods()
		st := &garbageStep{at: here}
		st.text, _ = p.str(v, "garbage")
		return st
	case "flood":
		noMods()
		st := &floodStep{at: here, text: "x"}
		p.object(v, "flood", fields{
			"count": func(v *yaml.Node) { st.count, _ = p.int(v, "flood.count", 1, 10_000_000) },
			"text":  func(v *yaml.Node) { st.text, _ = p.str(v, "flood.text") },
		})
		if st.count == 0 {
			p.Errorf(yamlnode.Deref(v), "flood: count is required")
		}
		return st
	case "stderr":
		noMods()
		st := &stderrStep{at: here}
		st.text, _ = p.str(v, "stderr")
		return st
	}
	p.Errorf(action.K, "unhandled step %q", action.Key) // unreachable: actionNames and the switch agree
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

var (
	toolKinds    = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}
	toolStatuses = []string{"pending", "in_progress", "completed", "failed"}
)

// toolCall parses a tool call (needTitle) or a tool call update.
func (p *parser) toolCall(n *yaml.Node, what string, needTitle bool) acp.ToolCallUpdate {
	var tc acp.ToolCallUpdate
	optStr := func(key string, allowed []string, set func(string)) func(*yaml.Node) {
		return func(v *yaml.Node) {
			var s string
			var ok bool
			if allowed != nil {
				s, ok = p.oneOf(v, what+"."+key, allowed...)
			} else {
				s, ok = p.str(v, what+"."+key)
			}
			if ok {
				set(s)
			}
		}
	}
	p.object(n, what, fields{
		"toolCallId": func(v *yaml.Node) { tc.ToolCallID, _ = p.nonEmpty(v, what+".toolCallId") },
		"title":      optStr("title", nil, func(s string) { tc.Title = &s }),
		"name":       optStr("name", nil, func(s string) { tc.Name = &s }),
		"kind": optStr("kind", toolKinds, func(s string) {
			k := acp.ToolKind(s)
			tc.Kind = &k
		}),
		"status": optStr("status", toolStatuses, func(s string) {
			st := acp.ToolCallStatus(s)
			tc.Status = &st
		}),
		"rawInput":  func(v *yaml.Node) { tc.RawInput, _ = p.rawJSON(v, what+".rawInput") },
		"rawOutput": func(v *yaml.Node) { tc.RawOutput, _ = p.rawJSON(v, what+".rawOutput") },
		"_meta":     func(v *yaml.Node) { tc.Meta, _ = p.rawObject(v, what+"._meta") },
		"locations": func(v *yaml.Node) {
			tc.Locations = []acp.ToolCallLocation{}
			items, _ := p.list(v, what+".locations")
			for _, it := range items {
				var l acp.ToolCallLocation
				p.object(it, "location", fields{
					"path": func(v *yaml.Node) { l.Path, _ = p.nonEmpty(v, "location.path") },
					"line": func(v *yaml.Node) {
						if i, ok := p.int(v, "location.line", 1, math.MaxUint32); ok {
							l.Line = &i
						}
					},
				})
				if l.Path == "" {
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
	if tc.ToolCallID == "" {
		p.Errorf(yamlnode.Deref(n), "%s: toolCallId is required", what)
	}
	if needTitle && tc.Title == nil {
		p.Errorf(yamlnode.Deref(n), "%s: title is required", what)
	}
	return tc
}

func (p *parser) toolContent(n *yaml.Node) acp.ToolCallContent {
	var c acp.ToolCallContent
	set := 0
	p.object(n, "tool call content", fields{
		"text": func(v *yaml.Node) {
			set++
			s, _ := p.str(v, "content text")
			c = acp.BlockToolContent(acp.TextBlock(s))
		},
		"terminal": func(v *yaml.Node) {
			set++
			s, _ := p.nonEmpty(v, "content terminal")
			c = acp.TerminalToolContent(s)
		},
		"diff": func(v *yaml.Node) {
			set++
			var path, newText string
			var oldText *string
			hasNew := false
			p.object(v, "diff", fields{
				"path": func(v *yaml.Node) { path, _ = p.nonEmpty(v, "diff.path") },
				"oldText": func(v *yaml.Node) {
					if yamlnode.IsNull(v) {
						return
					}
					if s, ok := p.str(v, "diff.oldText"); ok {
						oldText = &s
					}
				},
				"newText": func(v *yaml.Node) {
					hasNew = true
					newText, _ = p.str(v, "diff.newText")
				},
			})
			if path == "" || !hasNew {
				p.Errorf(yamlnode.Deref(v), "diff: path and newText are required")
			}
			c = acp.DiffToolContent(path, oldText, newText)
		},
	})
	if set != 1 {
		p.Errorf(yamlnode.Deref(n), "tool call content: want exactly one of text, diff, terminal")
	}
	return c
}

func (p *parser) terminal(n *yaml.Node, here at) *terminalStep {
	st := &terminalStep{at: here}
	flag := func(dst *bool, key string) func(*yaml.Node) {
		return func(v *yaml.Node) { *dst, _ = p.bool(v, "terminal."+key) }
	}
	p.object(n, "terminal", fields{
		"command": func(v *yaml.Node) { st.command, _ = p.nonEmpty(v, "terminal.command") },
		"args":    func(v *yaml.Node) { st.args, _ = p.strings(v, "terminal.args") },
		"env": func(v *yaml.Node) {
			st.env = []acp.EnvVariable{}
			kvs, _ := p.entries(v, "terminal.env")
			for _, kv := range kvs {
				val, _ := p.str(kv.V, "terminal.env value")
				st.env = append(st.env, acp.EnvVariable{Name: kv.Key, Value: val})
			}
		},
		"cwd": func(v *yaml.Node) { st.cwd, _ = p.nonEmpty(v, "terminal.cwd") },
		"outputByteLimit": func(v *yaml.Node) {
			if i, ok := p.int64(v, "terminal.outputByteLimit"); ok {
				if i < 0 {
					p.Errorf(yamlnode.Deref(v), "terminal.outputByteLimit: must not be negative")
				}
				st.outputByteLimit = &i
			}
		},
		"toolCallId":  func(v *yaml.Node) { st.toolCallID, _ = p.nonEmpty(v, "terminal.toolCallId") },
		"waitForExit": flag(&st.waitForExit, "waitForExit"),
		"output":      flag(&st.output, "output"),
		"kill":        flag(&st.kill, "kill"),
		"release":     flag(&st.release, "release"),
	})
	if st.command == "" {
		p.Errorf(yamlnode.Deref(n), "terminal: command is required")
	}
	return st
}
