package mockagent

import (
	"regexp"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/srcerr"
)

// Script is a parsed mock-agent script. Its contents are only read by Run;
// the exported fields are the ones a caller must act on itself.
type Script struct {
	// File is the name the script was parsed from, for messages.
	File string
	// IgnoreSigterm is the script's ignoreSigterm switch. Run never
	// changes process-wide signal handling: the process that runs the
	// script (the mock-agent command) ignores SIGTERM when it is set.
	IgnoreSigterm bool

	protocolVersion   int
	agentInfo         acp.Implementation
	capabilities      acp.AgentCapabilities
	authMethods       []acp.AuthMethod
	authRequired      bool
	authAlways        bool // authRequired: always, even after authenticate
	sessionID         string
	modes             *acp.SessionModeState
	configOptions     []acp.SessionConfigOption // nil: none offered
	models            *acp.SessionModelState    // nil: none offered
	permissionOptions []acp.PermissionOption
	onCancel          cancelMode
	// startDelay is how long the agent waits before it reads stdin (a
	// real agent's start-up); ignoreEOF keeps it running after stdin
	// ends, until it is signalled.
	startDelay       time.Duration
	ignoreEOF        bool
	beforeSessionNew []step
	load             []step
	// sessionsDir is the absolute sessions: directory; "" keeps sessions
	// in memory only. sessionsAt is where the script names it, for
	// checkSessions' error (its Msg empty).
	sessionsDir string
	sessionsAt  *srcerr.Error
	// loadError, when set, answers every session/load and session/resume.
	loadError *rpcError
	// authError, when set, answers an authenticate with a method it
	// would accept.
	authError *rpcError
	turns     []*turn
	fallback  *turn

	// delays holds back the answers of setup requests by method (never:
	// no answer); ignoreCancelRequest keeps $/cancel_request from ending
	// a delay.
	delays              map[string]time.Duration
	ignoreCancelRequest bool
}

// cancelMode says what a turn does when session/cancel arrives.
type cancelMode string

const (
	cancelCancelled cancelMode = "cancelled" // stop, answer stopReason cancelled (the spec)
	cancelEndTurn   cancelMode = "end_turn"  // stop, answer stopReason end_turn
	cancelIgnore    cancelMode = "ignore"    // keep playing as if nothing happened
)

// defaultPermissionOptions are Claude's options, in Claude's order.
func defaultPermissionOptions() []acp.PermissionOption {
	return []acp.PermissionOption{
		{OptionID: "allow_always", Name: "Always Allow", Kind: acp.AllowAlways},
		{OptionID: "allow", Name: "Allow", Kind: acp.AllowOnce},
		{OptionID: "reject", Name: "Reject", Kind: acp.RejectOnce},
	}
}

// turn is one entry of turns: (or default:).
type turn struct {
	match      *regexp.Regexp
	steps      []step
	after      []step
	stopReason string
	err        *rpcError
	usage      *acp.Usage
	onCancel   cancelMode // "": the script's
}

type rpcError struct {
	Code    int
	Message string
	Data    json.RawMessage
}
