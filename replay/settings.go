package replay

import (
	"fmt"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
)

// settingMethods are the client's requests that set up the session its
// prompts run in (the scenario's mode, model and config): the recorded
// agent answered the prompts in the session they made, so each is checked
// against the recorded one, and a prompt before which one was recorded
// and not made diverges.
var settingMethods = []string{acp.MethodSessionSetMode, acp.MethodSessionSetModel, acp.MethodSessionSetConfigOption}

// checkCall compares in, a request of the client other than a prompt, with
// ex, the recorded call it is answered for: a setting (settingMethods) by
// its params, but for the session id; a session/new or session/load by
// the MCP servers it offers, named (see mcpServers). Other requests
// (initialize, authenticate, session/close) are not checked.
func (p *player) checkCall(in *incoming, ex *exchange) *Divergence {
	switch {
	case slices.Contains(settingMethods, in.method):
		rec, got := settingParams(ex.params), settingParams(p.rw.in(in.params))
		if sameJSON(p.opts.Redact, rec, got) {
			return nil
		}
		return &Divergence{Request: in.method, Line: ex.line,
			Recorded: excerpt(p.opts.Redact, string(rec), 200), Got: excerpt(p.opts.Redact, string(got), 200)}
	case in.method == acp.MethodSessionNew || in.method == acp.MethodSessionLoad:
		rec, got := p.mcpServers(ex.params), p.mcpServers(in.params)
		if rec == got {
			return nil
		}
		return &Divergence{Request: in.method, Line: ex.line, Recorded: rec, Got: got}
	}
	return nil
}

// checkSettingsMade finds a setting recorded before the prompt ex (of
// turn) that the client has not made: the first one recorded, for the
// recorded agent ran in the session it set up.
func (p *player) checkSettingsMade(turn int, ex *exchange) *Divergence {
	var missing *exchange
	for _, m := range settingMethods {
		list := p.rec.calls[m]
		if k := p.calls[m]; k < len(list) && list[k].line < ex.line && (missing == nil || list[k].line < missing.line) {
			missing = list[k]
		}
	}
	if missing == nil {
		return nil
	}
	return &Divergence{Turn: turn, Request: "session/prompt", Line: missing.line,
		Recorded: missing.method + " " + excerpt(p.opts.Redact, string(settingParams(missing.params)), 200) + " before it",
		Got:      "the prompt without it"}
}

// settingParams is a setting's params as compared and shown: without the
// session id, which names the session (the recorded agent's, or one a
// replaying client was given otherwise) and nothing the agent does, nor
// _meta, acprun's own and none of the scenario's.
func settingParams(params json.RawMessage) json.RawMessage {
	return edit(params, func(x any) any {
		if m, ok := x.(map[string]any); ok {
			delete(m, "sessionId")
			delete(m, "_meta")
		}
		return x
	})
}

// mcpServers shows the MCP servers the params of a session/new or
// session/load offer, by name and transport, in order of name:
// `mcpServers "files" (stdio), "web" (http)`, or "no mcpServers". Only
// which servers there are is compared: their commands, arguments and
// urls hold paths of the checkout and the workspace, and their env and
// headers secrets, which change from run to run.
func (p *player) mcpServers(params json.RawMessage) string {
	var v struct {
		McpServers []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"mcpServers"`
	}
	_ = json.Unmarshal(params, &v)
	if len(v.McpServers) == 0 {
		return "no mcpServers"
	}
	names := make([]string, len(v.McpServers))
	for i, s := range v.McpServers {
		if s.Type == "" {
			s.Type = "stdio"
		}
		names[i] = fmt.Sprintf("%q (%s)", excerpt(p.opts.Redact, s.Name, 80), s.Type)
	}
	slices.Sort(names)
	return "mcpServers " + strings.Join(names, ", ")
}
