package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// Config option categories acprun acts on.
const (
	categoryMode  = "mode"
	categoryModel = "model"
)

// withSessionCaps adds to caps what acprun supports of session config:
// boolean config options, which agent.config can set.
func withSessionCaps(caps acp.ClientCapabilities) acp.ClientCapabilities {
	s := acp.ClientSessionCapabilities{}
	if caps.Session != nil {
		s = *caps.Session
	}
	s.ConfigOptions = &acp.SessionConfigOptionsCapabilities{Boolean: &acp.Capability{}}
	caps.Session = &s
	return caps
}

// configure sets up the session the agent opened (its session/new
// answer, or one made of session/load's or session/resume's) as h asks,
// before the first prompt:
//
//   - the mode through the config option of category mode when there is
//     one (the spec: a client that knows config options SHOULD use them
//     instead of modes), else session/set_mode; a mode the agent does not
//     offer is a warning, and is not set;
//   - the model through the config option of category model, else the
//     legacy session/set_model when the agent returned models;
//   - each config setting, in order, with session/set_config_option;
//     one that sets the mode (an option of category mode) to a mode in
//     which the agent does not ask (h.unasked) is an error.
//
// Each value is checked, just before it is set, against the options as
// the agent last answered them (setting one option may change others). A
// model or config option the agent does not offer is an error that says
// where the value was written and what the agent offers; nothing after it
// is set. It returns the settings made, in order.
func (h *handshake) configure(ctx context.Context, conn *acp.Conn, ns acp.NewSessionResponse) ([]report.SessionSetting, []string, error) {
	s := &sessionSetter{ctx: ctx, conn: conn, wait: h.wait, id: ns.SessionID, options: ns.ConfigOptions, unasked: h.unasked}
	err := s.setMode(h.mode, h.modePos, ns.Modes)
	if err == nil {
		err = s.setModel(h.model, h.modelPos, ns.Models)
	}
	for _, c := range h.config {
		if err == nil {
			err = s.setConfig(c)
		}
	}
	return s.set, s.warnings, err
}

// sessionSetter sets what a scenario asks in its session (configure).
type sessionSetter struct {
	ctx      context.Context
	conn     *acp.Conn
	wait     setupWait
	id       string                    // the session's
	options  []acp.SessionConfigOption // as the agent last answered them
	set      []report.SessionSetting   // what was set, in order
	warnings []string
	unasked  func(key, mode string) string // see handshake; nil checks nothing
}

// call sends method and records the setting made when it is answered.
func (s *sessionSetter) call(method string, params, result any, setting report.SessionSetting) error {
	if err := s.wait.call(s.ctx, s.conn, method, params, result); err != nil {
		return err
	}
	setting.Method = method
	s.set = append(s.set, setting)
	return nil
}

// setOption sets config option o to value; key names it in the record
// ("mode", "config.effort") and pos says where the value was written.
func (s *sessionSetter) setOption(key string, pos scenario.Pos, o acp.SessionConfigOption, value any) error {
	req := acp.SetSessionConfigOptionRequest{SessionID: s.id, ConfigID: o.ID, Value: value}
	if o.Type == acp.ConfigBoolean {
		req.Type = acp.ConfigBoolean
	}
	var resp acp.SetSessionConfigOptionResponse
	if err := s.call(acp.MethodSessionSetConfigOption, req, &resp, report.SessionSetting{Key: key, ConfigID: o.ID, Value: value}); err != nil {
		return atPos(pos, fmt.Errorf("agent.%s: session/set_config_option %s=%v: %w", key, termtext.OneLine(o.ID), value, err))
	}
	if len(resp.ConfigOptions) > 0 {
		s.options = resp.ConfigOptions // the complete state
	} else if i := optionIndex(s.options, o.ID); i >= 0 { // an agent that answered {}
		s.options = slices.Clone(s.options)
		s.options[i].CurrentValue = value
	}
	return nil
}

// setMode sets the session's mode, written at pos; modes are the legacy
// ones the agent offered. A mode the agent does not offer is a warning
// that says what it offers, as setModel's error does, and is not set.
func (s *sessionSetter) setMode(mode string, pos scenario.Pos, modes *acp.SessionModeState) error {
	if mode == "" {
		return nil
	}
	if o, ok := optionOfCategory(s.options, categoryMode); ok {
		if offered := selectValues(o); !slices.Contains(offered, mode) {
			s.warn(pos, fmt.Sprintf("agent.mode: the agent does not offer mode %q (its mode option %q offers: %s); not set", mode, o.ID, listOrNone(offered)))
			return nil
		}
		return s.setOption("mode", pos, o, mode)
	}
	if modes == nil {
		s.warn(pos, fmt.Sprintf("agent.mode: the agent offers no mode choice (no config option of category mode, no modes): remove mode, or set the agent's own option in agent.config (it has: %s); not set", optionIDs(s.options)))
		return nil
	}
	offered := mapped(modes.AvailableModes, func(m acp.SessionMode) string { return m.ID })
	if !slices.Contains(offered, mode) {
		s.warn(pos, fmt.Sprintf("agent.mode: the agent does not offer mode %q (it offers: %s); not set", mode, listOrNone(offered)))
		return nil
	}
	if err := s.call(acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: s.id, ModeID: mode}, nil, report.SessionSetting{Key: "mode", Value: mode}); err != nil {
		return atPos(pos, fmt.Errorf("agent.mode: session/set_mode %q: %w", mode, err))
	}
	return nil
}

// warn adds the warning msg about the value written at pos.
func (s *sessionSetter) warn(pos scenario.Pos, msg string) {
	s.warnings = append(s.warnings, posMsg(pos, msg))
}

// setModel selects the session's model, written at pos; models are the
// legacy ones the agent offered.
func (s *sessionSetter) setModel(model string, pos scenario.Pos, models *acp.SessionModelState) error {
	if model == "" {
		return nil
	}
	if o, ok := optionOfCategory(s.options, categoryModel); ok {
		if offered := selectValues(o); !slices.Contains(offered, model) {
			return atPos(pos, fmt.Errorf("agent.model: the agent does not offer model %q (its model option %q offers: %s)", model, o.ID, listOrNone(offered)))
		}
		return s.setOption("model", pos, o, model)
	}
	if models == nil {
		return atPos(pos, fmt.Errorf("agent.model: the agent offers no model choice (no config option of category model, no models): remove model, or set the agent's own option in agent.config (it has: %s)", optionIDs(s.options)))
	}
	offered := mapped(models.AvailableModels, func(m acp.ModelInfo) string { return m.ModelID })
	if !slices.Contains(offered, model) {
		return atPos(pos, fmt.Errorf("agent.model: the agent does not offer model %q (it offers: %s)", model, listOrNone(offered)))
	}
	req := acp.SetSessionModelRequest{SessionID: s.id, ModelID: model}
	if err := s.call(acp.MethodSessionSetModel, req, nil, report.SessionSetting{Key: "model", Value: model}); err != nil {
		return atPos(pos, fmt.Errorf("agent.model: session/set_model %q: %w", model, err))
	}
	return nil
}

// setConfig sets one config option of agent.config.
func (s *sessionSetter) setConfig(c scenario.ConfigSetting) error {
	key := "config." + c.ID
	i := optionIndex(s.options, c.ID)
	switch {
	case len(s.options) == 0:
		return atPos(c.Pos, fmt.Errorf("agent.%s: the agent offers no config options (see acprun probe)", key))
	case i < 0:
		return atPos(c.Pos, fmt.Errorf("agent.%s: the agent has no config option %q (it has: %s)", key, c.ID, optionIDs(s.options)))
	}
	o := s.options[i]
	var value any
	switch o.Type {
	case acp.ConfigSelect:
		if offered := selectValues(o); !slices.Contains(offered, c.Value) {
			return atPos(c.Pos, fmt.Errorf("agent.%s: the agent does not offer %q for config option %q (it offers: %s)", key, c.Value, c.ID, listOrNone(offered)))
		}
		if o.Category == categoryMode && s.unasked != nil {
			if msg := s.unasked("agent."+key, c.Value); msg != "" {
				return atPos(c.Pos, errors.New(msg))
			}
		}
		value = c.Value
	case acp.ConfigBoolean:
		if c.Value != "true" && c.Value != "false" {
			return atPos(c.Pos, fmt.Errorf("agent.%s: config option %q is boolean: give true or false, not %q", key, c.ID, c.Value))
		}
		value = c.Value == "true"
	default:
		return atPos(c.Pos, fmt.Errorf("agent.%s: config option %q has type %q, which acprun cannot set", key, c.ID, o.Type))
	}
	return s.setOption(key, c.Pos, o, value)
}

// atPos puts pos (file:line:col) before err's message, when pos is known.
func atPos(pos scenario.Pos, err error) error {
	if pos == (scenario.Pos{}) {
		return err
	}
	return fmt.Errorf("%s: %w", pos, err)
}

// posMsg puts pos (file:line:col) before msg, when pos is known, as
// atPos does for an error.
func posMsg(pos scenario.Pos, msg string) string {
	if pos == (scenario.Pos{}) {
		return msg
	}
	return pos.String() + ": " + msg
}

// optionIndex is the index of the option id in options, or -1.
func optionIndex(options []acp.SessionConfigOption, id string) int {
	return slices.IndexFunc(options, func(o acp.SessionConfigOption) bool { return o.ID == id })
}

// optionOfCategory returns the first select option of category cat.
func optionOfCategory(options []acp.SessionConfigOption, cat string) (acp.SessionConfigOption, bool) {
	for _, o := range options {
		if o.Category == cat && o.Type == acp.ConfigSelect {
			return o, true
		}
	}
	return acp.SessionConfigOption{}, false
}

// selectValues lists the value ids of a select option, groups flattened.
func selectValues(o acp.SessionConfigOption) []string {
	return mapped(o.Options.All(), func(v acp.SessionConfigSelectOption) string { return v.Value })
}

// optionIDs lists the ids of options with their kind of value: "effort
// (select), thinking (boolean)"; "none" when there are none.
func optionIDs(options []acp.SessionConfigOption) string {
	return listOrNone(mapped(options, func(o acp.SessionConfigOption) string { return fmt.Sprintf("%s (%s)", o.ID, o.Type) }))
}

// listOrNone joins ss with commas, each kept to one line (the agent
// chose them: ids, names); "none" when empty.
func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(mapped(ss, termtext.OneLine), ", ")
}
