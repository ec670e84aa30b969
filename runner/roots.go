package runner

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// servedRoots are where acprun serves a session's file and terminal
// requests: its cwd, always, and then roots.
func servedRoots(cwd string, roots []string) []string {
	if cwd == "" || slices.Contains(roots, cwd) {
		return roots
	}
	return append([]string{cwd}, roots...)
}

// extraRoots are the roots of a session beyond its cwd: those that are
// neither cwd nor inside it, in order, each once.
func extraRoots(roots []string, cwd string) []string {
	var out []string
	for _, r := range roots {
		rel, err := filepath.Rel(cwd, r)
		inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		if !inside && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// additionalDirectories is what the handshake sends as
// additionalDirectories in session/new, load and resume: the extra roots,
// when the agent offers them (sessionCapabilities.additionalDirectories).
// Otherwise it sends none and warns: the agent then knows only its cwd.
func (h *handshake) additionalDirectories(res *handshakeResult) []string {
	if len(h.roots) == 0 {
		return nil
	}
	if res.init.AgentCapabilities.SessionCapabilities.AdditionalDirectories != nil {
		return h.roots
	}
	where := ""
	if h.rootsPos.Line > 0 {
		where = h.rootsPos.String() + ": "
	}
	res.warnings = append(res.warnings, fmt.Sprintf("%sclient.roots: the agent does not offer additionalDirectories (sessionCapabilities.additionalDirectories): the roots beyond its cwd (%s) were not sent to it, so it knows only its cwd (acprun still serves its file and terminal requests in every root)",
		where, listed(h.roots)))
	return nil
}
