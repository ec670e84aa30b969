package scenario

import (
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// DefaultStateFile is the state file of a scenario whose session key names
// none, relative to the scenario file's directory.
const DefaultStateFile = ".acprun/state.json"

// sessionKeys are the keys of the session mapping.
var sessionKeys = []string{"resume", "stateFile"}

// Session says whether the scenario continues its agent's session from one
// run to the next (cron-driven maintenance) instead of opening a new one.
type Session struct {
	// Pos is the session key's value; zero when the scenario has none.
	Pos Pos
	// Resume continues the session the state file recorded for this
	// scenario and agent, with session/load or session/resume, when the
	// agent offers one of them; `run --resume` sets it for every scenario.
	Resume bool
	// StateFile is the absolute path of the state file given by
	// stateFile; "" for the default (see Scenario.StateFile).
	StateFile string
}

// StateFile is the absolute path of the scenario's state file:
// session.stateFile, or DefaultStateFile in the scenario file's directory
// (for `run --resume` too, when the scenario has no session key).
func (sc *Scenario) StateFile() string {
	if sc.Session.StateFile != "" {
		return sc.Session.StateFile
	}
	return filepath.Join(absOr(filepath.Dir(sc.File)), filepath.FromSlash(DefaultStateFile))
}

// session reads the session key: {resume: BOOL, stateFile: PATH}; null is
// the default (no resume). The state file is interpolated and resolved
// against the file's directory; it is created when missing, so only a
// directory in its place is an error.
func (p *fileParser) session(n *yaml.Node, s *Session) {
	if yamlnode.IsNull(n) {
		return
	}
	m, ok := p.mapping(n, sessionKeys, nil)
	if !ok {
		return
	}
	s.Pos = p.pos(yamlnode.Deref(n))
	for _, kv := range m.pairs {
		switch kv.Key {
		case "resume":
			s.Resume, _ = p.boolean(kv.V)
		case "stateFile":
			path, ok := p.interpArg(kv.V)
			if !ok {
				continue
			}
			v := yamlnode.Deref(kv.V)
			if path == "" {
				p.Errorf(v, "stateFile is empty: name the JSON file that records the session between runs (default %s, relative to the scenario file)", DefaultStateFile)
				continue
			}
			abs := p.abs(path)
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				p.Errorf(v, "stateFile %s is a directory: name a file in it, such as %s/state.json", abs, path)
				continue
			}
			s.StateFile = abs
		}
	}
}

// checkSession warns about a resumed session that can never be continued:
// a workspace gives each attempt a fresh copy, so the session's cwd
// changes from run to run, and acprun continues a session only in the cwd
// it was recorded with.
func (p *fileParser) checkSession(s *Scenario) {
	if s.Session.Resume && s.Workspace != nil && s.Agent.CwdPos == (Pos{}) {
		p.warnf(s.Session.Pos, "session.resume with a workspace: each attempt works in a fresh copy, so its session cwd differs from the recorded one and every run starts a new session (give agent.cwd a fixed directory to continue sessions)")
	}
}
