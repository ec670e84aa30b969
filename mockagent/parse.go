package mockagent

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/yamlnode"
)

// MaxScriptBytes bounds a script file, as a scenario file is bounded.
const MaxScriptBytes = 4 << 20

// Load reads and parses the script at path: a regular file of at most
// MaxScriptBytes.
func Load(path string) (*Script, error) {
	data, err := inputfile.Read(path, MaxScriptBytes)
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
	dec := yaml.NewDecoder(bytes.NewReader(p.Text()))
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
	p.ExpandAliases(&doc)
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
		"protocolVersion": set(&s.protocolVersion, p.between(0, math.MaxUint16), "protocolVersion"),
		"agentInfo": func(v *yaml.Node) {
			p.object(v, "agentInfo", fields{
				"name":    set(&s.agentInfo.Name, p.str, "agentInfo.name"),
				"version": set(&s.agentInfo.Version, p.str, "agentInfo.version"),
				"title":   set(&s.agentInfo.Title, p.str, "agentInfo.title"),
			})
		},
		"agentCapabilities": func(v *yaml.Node) { p.capabilities(v, &s.capabilities) },
		"authMethods":       func(v *yaml.Node) { p.authMethods(v, s) },
		"authRequired":      func(v *yaml.Node) { p.authRequired(v, s) },
		"sessionId":         set(&s.sessionID, p.nonEmpty, "sessionId"),
		"modes":             func(v *yaml.Node) { s.modes = p.modes(v) },
		"configOptions":     func(v *yaml.Node) { s.configOptions = p.configOptions(v) },
		"models":            func(v *yaml.Node) { s.models = p.models(v) },
		"permissionOptions": func(v *yaml.Node) { s.permissionOptions = p.permissionOptions(v, "permissionOptions") },
		"onCancel":          func(v *yaml.Node) { s.onCancel, _ = p.cancelMode(v) },
		"ignoreSigterm":     set(&s.IgnoreSigterm, p.bool, "ignoreSigterm"),
		"ignoreEOF":         set(&s.ignoreEOF, p.bool, "ignoreEOF"),
		"startDelay":        func(v *yaml.Node) { s.startDelay, _ = p.duration(v, "startDelay", "500ms or 1s") },
		"updatesBeforeSessionNew": func(v *yaml.Node) {
			s.beforeSessionNew = p.steps(v, "updatesBeforeSessionNew", false)
		},
		"load": func(v *yaml.Node) { s.load = p.steps(v, "load", false) },
		"sessions": func(v *yaml.Node) {
			if dir, ok := p.nonEmpty(v, "sessions"); ok {
				s.sessionsDir = scriptRelative(p.Name, dir)
				s.sessionsAt = p.At(v.Line, v.Column, "")
				s.sessionsAt.Origin = p.Origin(v)
			}
		},
		"loadError": func(v *yaml.Node) { s.loadError = p.rpcError(v) },
		"authError": func(v *yaml.Node) { s.authError = p.rpcError(v) },
		"delay":     func(v *yaml.Node) { s.delays = p.delays(v) },
		"onCancelRequest": func(v *yaml.Node) {
			m, _ := p.oneOf(v, "onCancelRequest", string(cancelCancelled), string(cancelIgnore))
			s.ignoreCancelRequest = m == string(cancelIgnore)
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
	sc := &c.SessionCapabilities
	p.object(n, "agentCapabilities", fields{
		"loadSession": set(&c.LoadSession, p.bool, "loadSession"),
		"promptCapabilities": func(v *yaml.Node) {
			p.object(v, "promptCapabilities", fields{
				"image":           set(&c.PromptCapabilities.Image, p.bool, "image"),
				"audio":           set(&c.PromptCapabilities.Audio, p.bool, "audio"),
				"embeddedContext": set(&c.PromptCapabilities.EmbeddedContext, p.bool, "embeddedContext"),
			})
		},
		"mcpCapabilities": func(v *yaml.Node) {
			p.object(v, "mcpCapabilities", fields{
				"http": set(&c.McpCapabilities.HTTP, p.bool, "http"),
				"sse":  set(&c.McpCapabilities.SSE, p.bool, "sse"),
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
		"_meta": set(&c.Meta, p.rawObject, "_meta"),
	})
}

func (p *parser) authMethods(n *yaml.Node, s *Script) {
	items, _ := p.list(n, "authMethods")
	for _, it := range items {
		var m acp.AuthMethod
		given, _ := p.object(it, "authMethods item", fields{
			"id":          set(&m.ID, p.nonEmpty, "authMethods.id"),
			"name":        set(&m.Name, p.str, "authMethods.name"),
			"description": set(&m.Description, p.str, "authMethods.description"),
			"type":        set(&m.Type, oneOfAs[string](p, acp.AuthTypeAgent, acp.AuthTypeTerminal), "authMethods.type"),
			"args":        set(&m.Args, p.strings, "authMethods.args"),
			"_meta":       set(&m.Meta, p.rawObject, "authMethods._meta"),
			"env": func(v *yaml.Node) {
				m.Env = map[string]string{}
				kvs, _ := p.entries(v, "authMethods.env")
				for _, kv := range kvs {
					m.Env[kv.Key], _ = p.str(kv.V, "authMethods.env value")
				}
			},
		})
		if !given["id"] {
			p.Errorf(yamlnode.Deref(it), "authMethods item: id is required")
		}
		if m.ID == "" {
			continue
		}
		if m.Type != acp.AuthTypeTerminal && (m.Args != nil || m.Env != nil) {
			p.Errorf(yamlnode.Deref(it), "authMethods item: args and env need type: terminal")
		}
		s.authMethods = append(s.authMethods, m)
	}
}

func (p *parser) modes(n *yaml.Node) *acp.SessionModeState {
	cur, items := p.choices(n, "modes", "mode", "id")
	ms := &acp.SessionModeState{CurrentModeID: cur}
	for _, c := range items {
		ms.AvailableModes = append(ms.AvailableModes, acp.SessionMode{ID: c.id, Name: c.name, Description: c.description})
	}
	return ms
}

// choice is one of the modes or models a script offers.
type choice struct{ id, name, description string }

// choices parses the script's modes or models (what): a mapping of the
// current id (currentModeId) and the list of what is available
// (availableModes), each a mapping of idKey, name and description; the
// current id defaults to the first one's.
func (p *parser) choices(n *yaml.Node, what, item, idKey string) (string, []choice) {
	title := strings.ToUpper(item[:1]) + item[1:]
	currentKey, availableKey := "current"+title+"Id", "available"+title+"s"
	var current string
	var items []choice
	p.object(n, what, fields{
		currentKey:   set(&current, p.str, what+"."+currentKey),
		availableKey: func(v *yaml.Node) { items = p.choiceList(v, what+"."+availableKey, item, item, idKey) },
	})
	if current == "" && len(items) > 0 {
		current = items[0].id
	}
	switch {
	case len(items) == 0:
		p.Errorf(yamlnode.Deref(n), "%s: %s needs at least one %s", what, availableKey, item)
	case !slices.ContainsFunc(items, func(c choice) bool { return c.id == current }):
		p.Errorf(yamlnode.Deref(n), "%s: %s %q is not among %s", what, currentKey, current, availableKey)
	}
	return current, items
}

// choiceList parses a list (what) of mappings of idKey, name and
// description, each an item whose keys messages name prefix.KEY; an item
// without an id is reported and left out.
func (p *parser) choiceList(n *yaml.Node, what, item, prefix, idKey string) []choice {
	list, _ := p.list(n, what)
	var items []choice
	for _, it := range list {
		var c choice
		given, _ := p.object(it, item, fields{
			idKey:         set(&c.id, p.nonEmpty, prefix+"."+idKey),
			"name":        set(&c.name, p.str, prefix+".name"),
			"description": set(&c.description, p.str, prefix+".description"),
		})
		if !given[idKey] {
			p.Errorf(yamlnode.Deref(it), "%s: %s is required", item, idKey)
		}
		if c.id == "" {
			continue
		}
		items = append(items, c)
	}
	return items
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
		given, _ := p.object(it, "permission option", fields{
			"optionId": set(&o.OptionID, p.nonEmpty, "optionId"),
			"name":     set(&o.Name, p.str, "name"),
			"kind":     set(&o.Kind, oneOfAs[acp.PermissionOptionKind](p, "allow_once", "allow_always", "reject_once", "reject_always"), "kind"),
		})
		if !given["optionId"] || !given["kind"] {
			p.Errorf(yamlnode.Deref(it), "permission option: optionId and kind are required")
		}
		if o.OptionID == "" || o.Kind == "" {
			continue
		}
		o.Name = cmp.Or(o.Name, o.OptionID)
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
	t := &turn{}
	fs := fields{
		"steps":      func(v *yaml.Node) { t.steps = p.steps(v, "steps", true) },
		"after":      func(v *yaml.Node) { t.after = p.steps(v, afterSteps, false) },
		"stopReason": set(&t.stopReason, p.nonEmpty, "stopReason"),
		"error":      func(v *yaml.Node) { t.err = p.rpcError(v) },
		"usage":      func(v *yaml.Node) { t.usage = p.usage(v) },
		"onCancel":   func(v *yaml.Node) { t.onCancel, _ = p.cancelMode(v) },
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
	if _, ok := p.object(n, what, fs); !ok {
		return nil
	}
	if t.err != nil && t.stopReason != "" {
		p.Errorf(yamlnode.Deref(n), "%s: stopReason and error exclude each other", what)
	}
	return t
}

func (p *parser) rpcError(n *yaml.Node) *rpcError {
	e := &rpcError{Code: -32603, Message: "Internal error"}
	p.object(n, "error", fields{
		"code":    set(&e.Code, p.between(math.MinInt32, math.MaxInt32), "error.code"),
		"message": set(&e.Message, p.str, "error.message"),
		"data":    set(&e.Data, p.rawJSON, "error.data"),
	})
	return e
}

func (p *parser) usage(n *yaml.Node) *acp.Usage {
	u := &acp.Usage{}
	given, _ := p.object(n, "usage", fields{
		"totalTokens":       set(&u.TotalTokens, p.count, "totalTokens"),
		"inputTokens":       set(&u.InputTokens, p.count, "inputTokens"),
		"outputTokens":      set(&u.OutputTokens, p.count, "outputTokens"),
		"thoughtTokens":     setPtr(&u.ThoughtTokens, p.count, "thoughtTokens"),
		"cachedReadTokens":  setPtr(&u.CachedReadTokens, p.count, "cachedReadTokens"),
		"cachedWriteTokens": setPtr(&u.CachedWriteTokens, p.count, "cachedWriteTokens"),
	})
	if !given["totalTokens"] {
		u.TotalTokens = u.InputTokens + u.OutputTokens
		if u.ThoughtTokens != nil {
			u.TotalTokens += *u.ThoughtTokens
		}
	}
	return u
}
