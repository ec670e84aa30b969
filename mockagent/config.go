package mockagent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/yamlnode"
)

// This file holds the session settings the mock agent offers besides
// modes: config options (session/set_config_option) and the legacy models
// (session/set_model), and the showConfig step that tells what is set.

// showConfigStep says the session's current settings in an
// agent_message_chunk (see sessionSettings).
type showConfigStep struct{ onlyTrue }

func (st *showConfigStep) play(pl *player) *ending {
	return check(pl.say("%s", pl.a.sessionSettings(pl.sess)))
}

// configOptions parses the script's configOptions: select options with
// their values, and boolean options.
func (p *parser) configOptions(n *yaml.Node) []acp.SessionConfigOption {
	items, _ := p.list(n, "configOptions")
	out := []acp.SessionConfigOption{}
	seen := map[string]bool{}
	for _, it := range items {
		o := acp.SessionConfigOption{Type: acp.ConfigSelect}
		var current *yaml.Node
		var values []acp.SessionConfigSelectOption
		given, _ := p.object(it, "config option", fields{
			"id":           set(&o.ID, p.nonEmpty, "configOptions.id"),
			"name":         set(&o.Name, p.str, "configOptions.name"),
			"description":  set(&o.Description, p.str, "configOptions.description"),
			"category":     set(&o.Category, p.nonEmpty, "configOptions.category"),
			"type":         set(&o.Type, oneOfAs[string](p, acp.ConfigSelect, acp.ConfigBoolean), "configOptions.type"),
			"currentValue": func(v *yaml.Node) { current = v },
			"options": func(v *yaml.Node) {
				for _, c := range p.choiceList(v, "configOptions.options", "config option value", "options", "value") {
					values = append(values, acp.SessionConfigSelectOption{Value: c.id, Name: cmp.Or(c.name, c.id), Description: c.description})
				}
			},
		})
		r := yamlnode.Deref(it)
		if !given["id"] {
			p.Errorf(r, "config option: id is required")
		}
		if o.ID == "" {
			continue
		}
		if seen[o.ID] {
			p.Errorf(r, "config option: id %q given twice", o.ID)
			continue
		}
		seen[o.ID] = true
		o.Name = cmp.Or(o.Name, o.ID)
		switch o.Type {
		case acp.ConfigBoolean:
			if given["options"] {
				p.Errorf(r, "config option %q: a boolean option has no options", o.ID)
			}
			o.CurrentValue = false
			if current != nil {
				o.CurrentValue, _ = p.bool(current, "currentValue")
			}
		default:
			if len(values) == 0 {
				p.Errorf(r, "config option %q: a select option needs options: [{value, name}]", o.ID)
				continue
			}
			o.Options = &acp.SessionConfigSelectOptions{Options: values}
			o.CurrentValue = values[0].Value
			if current != nil {
				if s, ok := p.str(current, "currentValue"); ok {
					if !slices.ContainsFunc(values, func(v acp.SessionConfigSelectOption) bool { return v.Value == s }) {
						p.Errorf(yamlnode.Deref(current), "config option %q: currentValue %q is not among its options", o.ID, s)
					}
					o.CurrentValue = s
				}
			}
		}
		out = append(out, o)
	}
	return out
}

// models parses the script's legacy models; a model's name defaults to
// its id.
func (p *parser) models(n *yaml.Node) *acp.SessionModelState {
	cur, items := p.choices(n, "models", "model", "modelId")
	ms := &acp.SessionModelState{CurrentModelID: cur}
	for _, c := range items {
		ms.AvailableModels = append(ms.AvailableModels, acp.ModelInfo{ModelID: c.id, Name: cmp.Or(c.name, c.id), Description: c.description})
	}
	return ms
}

// initSettings gives a new or loaded session the script's mode, config
// options and model, as they start.
func (a *agent) initSettings(sess *session) {
	if a.s.modes != nil {
		sess.mode = a.s.modes.CurrentModeID
	}
	sess.config = slices.Clone(a.s.configOptions) // CurrentValue is replaced, never changed in place
	if a.s.models != nil {
		sess.model = a.s.models.CurrentModelID
	}
}

// settings is what a session answer carries, each nil when the script
// offers none: the script's modes, the session's config options with
// their current values, and its model state.
func (a *agent) settings(sess *session) (modes *acp.SessionModeState, opts []acp.SessionConfigOption, models *acp.SessionModelState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.s.modes != nil {
		m := *a.s.modes
		modes = &m
	}
	if a.s.configOptions != nil {
		opts = slices.Clone(sess.config)
	}
	if a.s.models != nil {
		m := *a.s.models
		m.AvailableModels = slices.Clone(m.AvailableModels)
		m.CurrentModelID = sess.model
		models = &m
	}
	return modes, opts, models
}

// configOptionParams is the params of session/set_config_option with its
// value as sent. (An alias: decoding errors name no struct type.)
type configOptionParams = struct {
	SessionID string          `json:"sessionId"`
	ConfigID  string          `json:"configId"`
	Type      string          `json:"type"`
	Value     json.RawMessage `json:"value"`
}

// setConfigOption answers session/set_config_option: the option must be
// one of the script's, and the value one it offers (a bool, with type
// boolean, for a boolean option). The answer is every option's state.
func (a *agent) setConfigOption(_ context.Context, _ *acp.Request, p configOptionParams) (any, error) {
	sess, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(sess.config, func(o acp.SessionConfigOption) bool { return o.ID == p.ConfigID })
	if i < 0 {
		return nil, acp.NewError(acp.CodeInvalidParams, "unknown config option %q", p.ConfigID)
	}
	o := sess.config[i]
	switch o.Type {
	case acp.ConfigBoolean:
		var b bool
		if p.Type != acp.ConfigBoolean || json.Unmarshal(p.Value, &b) != nil {
			return nil, acp.NewError(acp.CodeInvalidParams, "config option %q is boolean: send type \"boolean\" and a true or false value", p.ConfigID)
		}
		o.CurrentValue = b
	default:
		var s string
		if p.Type != "" || json.Unmarshal(p.Value, &s) != nil {
			return nil, acp.NewError(acp.CodeInvalidParams, "config option %q takes a value id (a string)", p.ConfigID)
		}
		if !slices.ContainsFunc(o.Options.All(), func(v acp.SessionConfigSelectOption) bool { return v.Value == s }) {
			return nil, acp.NewError(acp.CodeInvalidParams, "config option %q has no value %q", p.ConfigID, s)
		}
		o.CurrentValue = s
	}
	sess.config = slices.Clone(sess.config)
	sess.config[i] = o
	return acp.SetSessionConfigOptionResponse{ConfigOptions: slices.Clone(sess.config)}, nil
}

// setModel answers the legacy session/set_model, when the script has
// models: the model must be one of them.
func (a *agent) setModel(_ context.Context, _ *acp.Request, p acp.SetSessionModelRequest) (any, error) {
	sess, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(a.s.models.AvailableModels, func(m acp.ModelInfo) bool { return m.ModelID == p.ModelID }) {
		return nil, acp.NewError(acp.CodeInvalidParams, "unknown model %q", p.ModelID)
	}
	a.mu.Lock()
	sess.model = p.ModelID
	a.mu.Unlock()
	return struct{}{}, nil
}

// sessionSettings says what is set in the session, for showConfig:
// "config: effort=high, thinking=true; model: big; mode: code", each part
// only when the script offers it, "config: none" when it offers nothing.
func (a *agent) sessionSettings(sess *session) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var parts []string
	if a.s.configOptions != nil {
		kv := make([]string, len(sess.config))
		for i, o := range sess.config {
			kv[i] = fmt.Sprintf("%s=%v", o.ID, o.CurrentValue)
		}
		parts = append(parts, "config: "+strings.Join(kv, ", "))
	}
	if a.s.models != nil {
		parts = append(parts, "model: "+sess.model)
	}
	if a.s.modes != nil {
		parts = append(parts, "mode: "+sess.mode)
	}
	if len(parts) == 0 {
		return "config: none"
	}
	return strings.Join(parts, "; ")
}
