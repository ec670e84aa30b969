package mockagent

import (
	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/acp"
)

// permissionStep asks the client for permission and plays the branch of
// its answer.
type permissionStep struct {
	call      acp.ToolCallUpdate
	options   []acp.PermissionOption // nil: the script's
	allowed   []step
	rejected  []step
	cancelled []step
}

func (st *permissionStep) parse(p *parser, a action) {
	st.call = p.toolCall(a.V, "permission", false)
	p.apply(a.mods, a.what, fields{
		"options":   func(v *yaml.Node) { st.options = p.permissionOptions(v, "options") },
		"allowed":   func(v *yaml.Node) { st.allowed = p.steps(v, "allowed", true) },
		"rejected":  func(v *yaml.Node) { st.rejected = p.steps(v, "rejected", true) },
		"cancelled": func(v *yaml.Node) { st.cancelled = p.steps(v, "cancelled", true) },
	})
}

// play asks the client and plays the branch for its answer.
func (st *permissionStep) play(pl *player) *ending {
	opts := st.options
	if opts == nil {
		opts = pl.a.s.permissionOptions
	}
	u := pl.resolve(st.call)
	pl.track(u.ToolCallID, u.Status, false)
	var res acp.RequestPermissionResponse
	err := pl.call(pl.a.ctx, acp.MethodSessionRequestPermission, acp.RequestPermissionRequest{
		SessionID: pl.sess.id, ToolCall: u, Options: opts,
	}, &res)
	if pl.gone() {
		return died()
	}
	branch := st.rejected
	var said error // a report of what went wrong
	switch {
	case err != nil:
		said = pl.sayErr(acp.MethodSessionRequestPermission, err)
	case res.Outcome.Outcome == acp.OutcomeCancelled:
		return pl.cancelledBranch(st)
	case res.Outcome.Outcome == acp.OutcomeSelected:
		kind, ok := acp.PermissionOptionKind(""), false
		for _, o := range opts {
			if o.OptionID == res.Outcome.OptionID {
				kind, ok = o.Kind, true
			}
		}
		if !ok {
			said = pl.say("error: %s: unknown optionId %q", acp.MethodSessionRequestPermission, res.Outcome.OptionID)
		} else if kind == acp.AllowOnce || kind == acp.AllowAlways {
			branch = st.allowed
		}
	default:
		said = pl.say("error: %s: unknown outcome %q", acp.MethodSessionRequestPermission, res.Outcome.Outcome)
	}
	if said != nil {
		return died()
	}
	return pl.play(branch)
}

// cancelledBranch plays the cancelled: steps of a permission answered
// "cancelled", then ends the turn per the cancel mode (ignore: go on).
func (pl *player) cancelledBranch(st *permissionStep) *ending {
	was := pl.inCancelBranch
	pl.inCancelBranch = true
	end := pl.play(st.cancelled)
	pl.inCancelBranch = was
	if end != nil || pl.mode == cancelIgnore {
		return end
	}
	if pl.run != nil {
		pl.run.cancel() // a cancelled answer means the turn is cancelled, even without session/cancel
	}
	return pl.cancelEnding()
}
