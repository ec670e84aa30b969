package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// Config option categories acprun acts on.
const (
	categoryMode  = "mode"
	categoryModel = "model"
)

// sessionOffer is what the agent offers to set in a session, from its
// answer to session/new (or session/load, session/resume).
type sessionOffer struct {
	modes   *acp.SessionModeState
	options []acp.SessionConfigOption
	models  *acp.SessionModelState // legacy
}

// offerOfNew is what a session/new answer offers.
func offerOfNew(ns acp.NewSessionResponse) sessionOffer {
	return sessionOffer{modes: ns.Modes, options: ns.ConfigOptions, models: ns.Models}
}

// sessionWant is what a scenario asks to set in its session.
type sessionWant struct {
	mode     string
	model    string
	modelPos scenario.Pos
	config   []scenario.ConfigSetting
}

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

// applySessionConfig sets up session sessionID as want asks, with what
// offer says the agent has, before the first prompt. It is called after
// session/new, and serves as well after session/load or session/resume
// (build offer from that answer: sessionOffer{modes, options, models}):
//
//   - the mode through the config option of category mode when there is
//     one (the spec: a client that knows config options SHOULD use them
//     instead of modes), else session/set_mode; a mode the agent does not
//     offer is a warning, and is not set;
//   - the model through the config option of category model, else the
//     legacy session/set_model when the agent returned models;
//   - each config setting, in order, with session/set_config_option.
//
// Each value is checked, just before it is set, against the options as
// the agent last answered them (setting one option may change others). A
// model or config option the agent does not offer is an error that says
// where the value was written and what the agent offers; nothing after it
// is set. It returns the settings made, in order.
func applySessionConfig(ctx context.Context, conn *acp.Conn, sessionID string, offer sessionOffer, want sessionWant) (set []report.SessionSetting, warnings []string, err error) {
	options := offer.options
	setOption := func(key string, pos scenario.Pos, o acp.SessionConfigOption, value any) error {
		req := acp.SetSessionConfigOptionRequest{SessionID: sessionID, ConfigID: o.ID, Value: value}
		if o.Type == acp.ConfigBoolean {
			req.Type = acp.ConfigBoolean
		}
		var resp acp.SetSessionConfigOptionResponse
		if err := conn.Call(ctx, acp.MethodSessionSetConfigOption, req).Await(ctx, &resp); err != nil {
			return atPos(pos, fmt.Errorf("agent.%s: session/set_config_option %s=%v: %w", key, o.ID, value, err))
		}
		set = append(set, report.SessionSetting{Key: key, ConfigID: o.ID, Value: value, Method: acp.MethodSessionSetConfigOption})
		if len(resp.ConfigOptions) > 0 {
			options = resp.ConfigOptions // the complete state
		} else if i := optionIndex(options, o.ID); i >= 0 { // an agent that answered {}
			options = slices.Clone(options)
			options[i].CurrentValue = value
		}
		return nil
	}

	if want.mode != "" {
		if o, ok := optionOfCategory(options, categoryMode); ok {
			if !slices.Contains(selectValues(o), want.mode) {
				warnings = append(warnings, fmt.Sprintf("mode %q not offered by the agent (its mode option %q offers: %s); not set", want.mode, o.ID, listOrNone(selectValues(o))))
			} else if err := setOption("mode", scenario.Pos{}, o, want.mode); err != nil {
				return set, warnings, err
			}
		} else if offer.modes == nil || !hasMode(offer.modes, want.mode) {
			warnings = append(warnings, fmt.Sprintf("mode %q not offered by the agent; not set", want.mode))
		} else {
			if err := conn.Call(ctx, acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sessionID, ModeID: want.mode}).Await(ctx, nil); err != nil {
				return set, warnings, fmt.Errorf("session/set_mode %q: %w", want.mode, err)
			}
			set = append(set, report.SessionSetting{Key: "mode", Value: want.mode, Method: acp.MethodSessionSetMode})
		}
	}

	if want.model != "" {
		if o, ok := optionOfCategory(options, categoryModel); ok {
			if offered := selectValues(o); !slices.Contains(offered, want.model) {
				return set, warnings, atPos(want.modelPos, fmt.Errorf("agent.model: the agent does not offer model %q (its model option %q offers: %s)", want.model, o.ID, listOrNone(offered)))
			}
			if err := setOption("model", want.modelPos, o, want.model); err != nil {
				return set, warnings, err
			}
		} else if m := offer.models; m != nil {
			offered := modelIDs(m)
			if !slices.Contains(offered, want.model) {
				return set, warnings, atPos(want.modelPos, fmt.Errorf("agent.model: the agent does not offer model %q (it offers: %s)", want.model, listOrNone(offered)))
			}
			req := acp.SetSessionModelRequest{SessionID: sessionID, ModelID: want.model}
			if err := conn.Call(ctx, acp.MethodSessionSetModel, req).Await(ctx, nil); err != nil {
				return set, warnings, atPos(want.modelPos, fmt.Errorf("agent.model: session/set_model %q: %w", want.model, err))
			}
			set = append(set, report.SessionSetting{Key: "model", Value: want.model, Method: acp.MethodSessionSetModel})
		} else {
			return set, warnings, atPos(want.modelPos, fmt.Errorf("agent.model: the agent offers no model choice (no config option of category model, no models): remove model, or set the agent's own option in agent.config (it has: %s)", optionIDs(options)))
		}
	}

	for _, c := range want.config {
		key := "config." + c.ID
		i := optionIndex(options, c.ID)
		switch {
		case len(options) == 0:
			return set, warnings, atPos(c.Pos, fmt.Errorf("agent.%s: the agent offers no config options (see acprun probe)", key))
		case i < 0:
			return set, warnings, atPos(c.Pos, fmt.Errorf("agent.%s: the agent has no config option %q (it has: %s)", key, c.ID, optionIDs(options)))
		}
		o := options[i]
		var value any
		switch o.Type {
		case acp.ConfigSelect:
			if offered := selectValues(o); !slices.Contains(offered, c.Value) {
				return set, warnings, atPos(c.Pos, fmt.Errorf("agent.%s: the agent does not offer %q for config option %q (it offers: %s)", key, c.Value, c.ID, listOrNone(offered)))
			}
			value = c.Value
		case acp.ConfigBoolean:
			switch c.Value {
			case "true":
				value = true
			case "false":
				value = false
			default:
				return set, warnings, atPos(c.Pos, fmt.Errorf("agent.%s: config option %q is boolean: give true or false, not %q", key, c.ID, c.Value))
			}
		default:
			return set, warnings, atPos(c.Pos, fmt.Errorf("agent.%s: config option %q has type %q, which acprun cannot set", key, c.ID, o.Type))
		}
		if err := setOption(key, c.Pos, o, value); err != nil {
			return set, warnings, err
		}
	}
	return set, warnings, nil
}

// atPos puts pos (file:line:col) before err's message, when pos is known.
func atPos(pos scenario.Pos, err error) error {
	if pos == (scenario.Pos{}) {
		return err
	}
	return fmt.Errorf("%s: %w", pos, err)
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
	var out []string
	for _, v := range o.Options.All() {
		out = append(out, v.Value)
	}
	return out
}

// optionIDs lists the ids of options with their kind of value: "effort
// (select), thinking (boolean)"; "none" when there are none.
func optionIDs(options []acp.SessionConfigOption) string {
	var out []string
	for _, o := range options {
		out = append(out, fmt.Sprintf("%s (%s)", o.ID, o.Type))
	}
	return listOrNone(out)
}

// modelIDs lists the legacy models' ids.
func modelIDs(m *acp.SessionModelState) []string {
	var out []string
	for _, md := range m.AvailableModels {
		out = append(out, md.ModelID)
	}
	return out
}

// listOrNone joins ss with commas; "none" when empty.
func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}
