package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/internal/yamlnode"
)

// workspace reads the workspace key: a directory to copy (a string, or
// {from: DIR}) or a git repository to check out ({git: REPO, ref: REF}),
// with the files the agent must leave alone (protect: globs).
// null means none, even when the config's defaults give one. Paths are
// interpolated and resolved against the file's directory; the directory
// must exist. On a problem it still returns a Workspace, so that what
// needs one is not reported too.
func (p *fileParser) workspace(n *yaml.Node) *Workspace {
	n = yamlnode.Deref(n)
	w := &Workspace{Pos: p.pos(n)}
	switch {
	case yamlnode.IsNull(n):
		return nil
	case n.Kind == yaml.ScalarNode:
		w.From, _ = p.workspaceDir(n, "workspace", false)
		w.SourcePos = w.Pos
		return w
	case n.Kind != yaml.MappingNode:
		p.Expected(n, "a workspace: a directory to copy (a string, or {from: DIR}) or {git: REPO, ref: REF}")
		return w
	}
	m, _ := p.mapping(n, workspaceKeys, nil)
	for _, kv := range m.pairs {
		switch kv.Key {
		case "from":
			w.From, _ = p.workspaceDir(kv.V, "from", false)
			w.SourcePos = p.pos(yamlnode.Deref(kv.V))
		case "git":
			w.Git, _ = p.workspaceDir(kv.V, "git", true)
			w.SourcePos = p.pos(yamlnode.Deref(kv.V))
		case "ref":
			w.Ref, _ = p.gitRef(kv.V)
			w.RefPos = p.pos(yamlnode.Deref(kv.V))
		case "protect":
			w.Protect, w.ProtectPos = p.relPaths(kv.V, true), p.pos(yamlnode.Deref(kv.V))
		}
	}
	from, git := m.has["from"], m.has["git"]
	switch {
	case from != nil && git != nil:
		second := git
		if git.Line < from.Line || git.Line == from.Line && git.Column < from.Column {
			second = from
		}
		p.Errorf(second, "use either from (a directory to copy) or git (a repository to check out), not both")
	case from == nil && git == nil && !m.suggested["from"] && !m.suggested["git"]:
		p.Errorf(n, "workspace needs from (a directory to copy) or git (a repository to check out)")
	}
	if ref := m.has["ref"]; ref != nil && git == nil && from != nil {
		p.Errorf(ref, "ref goes with git: a directory copied with from has no ref (use git: to check out a commit)")
	}
	return w
}

// checkWorkspaceCwd warns about an agent.cwd outside the workspace's
// source: only paths inside it are moved into each attempt's copy, so the
// agent would work in that directory itself, where its edits are real,
// while setup, verify and expect.files look at the copy. A resumed session
// is left alone: a fixed cwd is how it continues (see checkSession).
func (p *fileParser) checkWorkspaceCwd(s *Scenario) {
	w := s.Workspace
	if w == nil || w.Source() == "" || s.Agent.CwdPos == (Pos{}) || s.Session.Resume {
		return
	}
	if from := w.Source(); !workspace.Within(s.Agent.Cwd, from) {
		p.warnf(s.Agent.CwdPos, "agent.cwd %s is outside the workspace (%s): the agent works there, not in its copy, so its edits are real "+
			"and setup, verify and expect.files see the copy instead; put agent.cwd inside %s, or leave it out", s.Agent.Cwd, from, from)
	}
}

// PointerWarnings are the warnings about found, what the directory that
// w copies holds that leads out of each attempt's copy
// (workspace.Pointers, or a copy's Workspace.Pointers): a .git file that
// names a git directory by its absolute path (a linked worktree's),
// through which git in the copy works on that repository, and symbolic
// links that lead outside the directory, whose copies lead there too.
// What the agent does through them is real, and not among the attempt's
// changes. Links into the directory lead into the copy, and are not
// warned about. They are at the workspace's source: validate says them,
// and a run in each attempt's results. Loading a scenario does not look
// for them: it would walk the whole directory.
func (w *Workspace) PointerWarnings(found []workspace.Pointer) []Warning {
	if w == nil || w.From == "" {
		return nil
	}
	pos := cmp.Or(w.SourcePos, w.Pos)
	var out []Warning
	var links []string
	for _, f := range found {
		if f.Git {
			out = append(out, warning(pos, "workspace %s: its %s file names the git directory %s: git in each attempt's copy works on that repository "+
				"(its index, branches and refs, and the work tree it names), not on a copy, and what the agent commits there is not among the attempt's changes; "+
				"give workspace: {git: %s} for a checkout of its own", w.From, f.Path, f.Target, filepath.Join(w.From, filepath.FromSlash(path.Dir(f.Path)))))
			continue
		}
		links = append(links, fmt.Sprintf("%s (to %s)", f.Path, f.Target))
	}
	const named = 3
	switch n := len(links); {
	case n == 1:
		out = append(out, warning(pos, "workspace %s: the symbolic link %s leads outside it, and so does its copy: what the agent writes through it lands there, "+
			"not in the attempt's copy, and is not among its changes (links into the directory lead into the copy)", w.From, links[0]))
	case n > 1:
		list := links
		if n > named {
			list = append(slices.Clone(links[:named]), fmt.Sprintf("%d more", n-named))
		}
		out = append(out, warning(pos, "workspace %s: the symbolic links %s lead outside it, and so do their copies: what the agent writes through them lands there, "+
			"not in the attempt's copy, and is not among its changes (links into the directory lead into the copy)", w.From, joinWords(list, "and")))
	}
	return out
}

// workspaceDir reads the directory of a workspace, given by key (for the
// messages), and checks that it is a directory.
func (p *fileParser) workspaceDir(n *yaml.Node, key string, repo bool) (string, bool) {
	s, ok := p.interpArg(n)
	if !ok {
		return "", false
	}
	n = yamlnode.Deref(n)
	what := "the directory to copy for each attempt"
	if repo {
		what = "the directory of a git repository to check out for each attempt"
	}
	if s == "" {
		p.Errorf(n, "workspace path is empty: %s names %s", key, what)
		return "", false
	}
	abs := p.abs(s)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.Errorf(n, "workspace %s does not exist: create it, or change %s (a relative path is relative to %s)", abs, key, p.dir)
	case err != nil:
		p.Errorf(n, "workspace %s: %v", abs, bareError(err))
	case !fi.IsDir():
		p.Errorf(n, "workspace %s is not a directory: %s names %s", abs, key, what)
	default:
		return abs, true
	}
	return abs, false
}

// gitRef reads a workspace's ref: a commit, branch or tag, "" for HEAD.
func (p *fileParser) gitRef(n *yaml.Node) (string, bool) {
	ref, ok := p.interp(n)
	if !ok {
		return "", false
	}
	n = yamlnode.Deref(n)
	switch {
	case strings.HasPrefix(ref, "-"):
		p.Errorf(n, "bad ref %q: a ref cannot start with -", ref)
	case strings.ContainsFunc(ref, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		p.Errorf(n, "bad ref %q: a ref has no spaces or control characters", ref)
	default:
		return ref, true
	}
	return "", false
}

// commands reads the list of setup, verify or teardown commands (which
// says which). An empty list is none, which replaces the config's.
func (p *fileParser) commands(n *yaml.Node, which string) []Command {
	n, ok := p.Want(n, yaml.SequenceNode, fmt.Sprintf("a list of %s commands (each a shell line, or a mapping with run)", which))
	if !ok {
		return nil
	}
	out := []Command{}
	for _, item := range n.Content {
		if c, ok := p.shellCommand(item, which); ok {
			out = append(out, c)
		}
	}
	return out
}

// shellCommand reads one command: a shell line, or a mapping with run,
// timeout and, for verify commands, expect. The line is not interpolated:
// the shell expands variables itself.
func (p *fileParser) shellCommand(n *yaml.Node, which string) (Command, bool) {
	n = yamlnode.Deref(n)
	c := Command{Pos: p.pos(n), Expect: CommandExpect{Pos: p.pos(n)}}
	switch {
	case n.Kind == yaml.ScalarNode && !yamlnode.IsNull(n):
		c.Run = n.Value
		if strings.TrimSpace(c.Run) == "" {
			p.Errorf(n, "%s command is empty", which)
			return c, false
		}
		if !p.noNUL(n, c.Run) {
			return c, false
		}
		return c, true
	case n.Kind != yaml.MappingNode:
		p.Expected(n, fmt.Sprintf("a %s command (a shell line, or a mapping with run)", which))
		return c, false
	}
	keys, hint := verifyKeys, func(string) string { return "" }
	if which != "verify" {
		keys = commandKeys
		hint = func(k string) string {
			if k == "expect" {
				return "only verify commands have an expect (a setup command must exit 0; a teardown command's outcome is only recorded)"
			}
			return ""
		}
	}
	m, _ := p.mapping(n, keys, hint)
	ok := true
	for _, kv := range m.pairs {
		switch kv.Key {
		case "run":
			var good bool
			c.Run, good = p.str(kv.V)
			if good && strings.TrimSpace(c.Run) == "" {
				p.Errorf(yamlnode.Deref(kv.V), "run is empty: give the shell line to run")
				good = false
			}
			good = good && p.noNUL(kv.V, c.Run)
			ok = ok && good
		case "timeout":
			var good bool
			c.Timeout, good = p.duration(kv.V)
			ok = ok && good
		case "expect":
			c.Expect = p.commandExpect(kv.V)
		}
	}
	if _, has := m.has["run"]; !has {
		p.require(m, "run")
		ok = false
	}
	return c, ok
}

// commandExpect reads what a verify command must do.
func (p *fileParser) commandExpect(n *yaml.Node) CommandExpect {
	n = yamlnode.Deref(n)
	e := CommandExpect{Pos: p.pos(n)}
	m, ok := p.mapping(n, commandExpectKeys, nil)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "exitCode":
			e.ExitCode, _ = p.exitCode(kv.V)
			e.ExitCodePos = p.pos(yamlnode.Deref(kv.V))
		case "stdout":
			sm, ok := p.mapping(kv.V, textKeys, nil)
			if !ok {
				continue
			}
			e.StdoutContains, e.StdoutMatches = p.wanted(sm, "output")
			e.StdoutNotContains, e.StdoutNotMatches = p.forbidden(sm, "output")
			p.needsOne(sm, "stdout", textKeys)
		}
	}
	p.needsOne(m, "expect", commandExpectKeys)
	return e
}

// exitCode reads a process exit status: 0 to 255.
func (p *fileParser) exitCode(n *yaml.Node) (int, bool) {
	n = yamlnode.Deref(n)
	i, isInt, err := wholeValue(n)
	if !isInt {
		p.Expected(n, "an exit code (a whole number from 0 to 255)")
		return 0, false
	}
	if err != nil || i < 0 || i > 255 {
		p.Errorf(n, "expected an exit code from 0 to 255, got %s", n.Value)
		return 0, false
	}
	return int(i), true
}

// needsOne reports a mapping m, named what, that gives none of keys. A
// mapping whose keys were all reported as unknown is not reported again.
func (p *fileParser) needsOne(m mapping, what string, keys []string) {
	if m.empty() {
		p.Errorf(m.n, "%s needs %s", what, joinWords(keys, "or"))
	}
}

// joinWords joins words as "a, b or c" (conj "or").
func joinWords(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// nonNegativeNumber reads a number from 0 up, whole or not.
func (p *fileParser) nonNegativeNumber(n *yaml.Node) (float64, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" && n.ShortTag() != "!!float" {
		p.Expected(n, "a number")
		return 0, false
	}
	var f float64
	if err := n.Decode(&f); err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		p.Errorf(n, "expected a number from 0 up, got %s", n.Value)
		return 0, false
	}
	return f, true
}
