package approve

import (
	"bytes"
	"path"
	"path/filepath"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// Request is what the engine sees of one session/request_permission.
type Request struct {
	ToolCallID string
	Title      string
	Kind       string          // ToolKind; "" is taken as "other", the schema's default
	Tool       string          // the tool's name (ToolCall.name: "Bash", "mcp__github__create_issue"); "" for none
	RawInput   json.RawMessage // the tool call's rawInput; may be nil or invalid JSON
	Locations  []string        // toolCall.locations[].path
	DiffPaths  []string        // toolCall.content[] of type "diff": path
	Options    []Option        // what the agent offers
	Cwd        string          // session cwd (absolute), for relative path patterns
	// Dir is where the call runs when that is not Cwd (a terminal's own
	// cwd): the call's relative paths, such as redirection targets, are
	// relative to it. Empty means Cwd.
	Dir string
	// Resolve, when set, returns an absolute path as the OS resolves it:
	// its symbolic links followed, what does not exist yet kept as
	// written. Path rules then see each path the call touches both as
	// given and resolved, and relative patterns match under Cwd both as
	// given and resolved (see PathSource). A path whose resolution fails
	// is unresolvable. The package itself reads no files: the runner sets
	// Resolve.
	Resolve func(path string) (string, error)
	// Excerpt, when set, returns text[:end] as a reason or a trace shows
	// it where it quotes a value cut at end (a command, a path, a title or
	// an input value of the call, or a rule's pattern, longer than 200
	// bytes): text is the whole value, so that the runner can redact the
	// cut knowing what goes on past it, and show no part of a secret the
	// cut goes through. The package itself redacts nothing; unset, the
	// cut is shown as it is. It never changes a decision.
	Excerpt func(text string, end int) string
	// UnaskedModes are the agent's session modes in which it does not
	// ask permission (claude's bypassPermissions). An option whose id is
	// one of them would switch the agent into that mode, as claude's
	// ExitPlanMode options are named after the mode each switches to, and
	// is never selected: the rules would not be consulted after it.
	UnaskedModes []string
	// ModeOptions are the ids of the options that switch the agent to a
	// mode other than the one of the same name, by that mode (the
	// ExitPlanMode options of @agentclientprotocol/claude-agent-acp:
	// exit-plan-auto switches to auto). Such an option whose mode is one
	// of UnaskedModes is never selected either.
	ModeOptions map[string]string
}

// Texts returns the texts of r that the policy splits into the commands
// and paths of its Decision, and quotes in its reason: the title, the
// tool's name, the rawInput (as JSON), the locations, the diffs' paths,
// Cwd and Dir.
func (r Request) Texts() []string {
	texts := []string{r.Title, r.Tool, string(r.RawInput), r.Cwd, r.Dir}
	texts = append(texts, r.Locations...)
	return append(texts, r.DiffPaths...)
}

// Option is one permission option the agent offers.
type Option struct {
	ID   string // optionId, echoed back when selected
	Name string
	Kind string // allow_once | allow_always | reject_once | reject_always
}

// The permission option kinds of the ACP schema.
const (
	AllowOnce    = "allow_once"
	AllowAlways  = "allow_always"
	RejectOnce   = "reject_once"
	RejectAlways = "reject_always"
)

// The lists a Decision can come from (Decision.RuleList, RuleTrace.List).
const (
	ListAllow   = "allow"
	ListDeny    = "deny"
	ListDefault = "default"
)

// Decision is the engine's answer to one Request.
type Decision struct {
	Verdict Verdict // Allow or Deny
	// Rule names the rule that decided: its Pos ("file:line"; see Rule.Pos), or "allow #N"
	// / "deny #N" for a rule without Pos. When the default decided it is
	// the policy's Source (e.g. "--allow-all"), usually "".
	Rule       string
	RuleList   string // ListAllow, ListDeny or ListDefault
	OptionID   string // the option to select; "" when Cancelled or not selected (Evaluate)
	OptionKind string
	// Cancelled reports that the agent offered no option of the kind the
	// verdict needs: the answer is the "cancelled" outcome.
	Cancelled bool
	Reason    string   // human explanation
	Commands  []string // the simple commands the engine saw (see Policy.Decide)
	Paths     []string // the paths the engine saw (see Policy.Decide)
}

// RuleTrace tells, for one rule, whether it matched a Request and why, one
// line per matcher (see Policy.Explain).
type RuleTrace struct {
	List    string // ListAllow or ListDeny
	Rule    string // as Decision.Rule
	Matched bool
	Why     []string
}

// decodeRaw decodes a rawInput, keeping numbers as their JSON text. Invalid
// JSON gives nil.
func decodeRaw(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return v
}

// commandsOf returns the simple commands a tool call would run (see
// SplitCommands); raw is its decoded rawInput. The command line comes from
// rawInput.command:
//   - a string is a shell line; but with a non-empty rawInput.args array
//     (the terminal/create shape) command and args form an argv;
//   - an array is an argv: a shell wrapper such as ["/bin/bash", "-lc",
//     SCRIPT] gives SCRIPT, any other argv is joined with shell quoting.
//
// When rawInput has no usable command and the call's kind is execute, the
// title is the command line (gemini sends shell calls so). Otherwise the
// call runs no commands.
//
// pieces holds those that are no simple command of the line (see
// splitLine).
func commandsOf(req Request, raw any) (cmds []string, pieces map[string]bool) {
	if line, ok := commandLine(raw); ok {
		return splitLine(line)
	}
	if kindOf(req) == "execute" {
		return splitLine(req.Title)
	}
	return nil, nil
}

func commandLine(raw any) (string, bool) {
	m, _ := raw.(map[string]any)
	switch v := m["command"].(type) {
	case string:
		if strings.TrimSpace(v) == "" {
			return "", false
		}
		if args, ok := m["args"].([]any); ok && len(args) > 0 {
			return argvLine(append([]string{v}, argTexts(args)...)), true
		}
		return v, true
	case []any:
		argv := argTexts(v)
		if len(argv) == 0 || strings.TrimSpace(strings.Join(argv, "")) == "" {
			return "", false
		}
		return argvLine(argv), true
	}
	return "", false
}

// argTexts turns JSON argv elements into strings: strings as they are,
// anything else as its JSON text.
func argTexts(vs []any) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if s, ok := v.(string); ok {
			out = append(out, s)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		out = append(out, string(b))
	}
	return out
}

// pathFields are the top-level rawInput fields read as paths (see pathsOf).
var pathFields = []string{
	"path", "paths", "file_path", "filePath", "file_paths", "filePaths",
	"filepath", "filename", "notebook_path", "absolute_path", "dir_path",
	"directory", "source", "destination", "source_path", "destination_path",
	"old_path", "new_path", "target_file",
}

// PathSource is a path a tool call touches, as Decision.Paths lists it,
// and where in the call it was found.
type PathSource struct {
	Path string
	// From names the fields that hold the path: "locations", "content"
	// (the path of a diff), "rawInput.FIELD" (FIELD one of pathsOf's),
	// and, for a file that a command redirects to or from,
	// "rawInput.command" or "title" (the command line of an execute call
	// whose rawInput has no command).
	From []string
	// Via is, for a path found by resolving the symbolic links of another
	// (Request.Resolve), that other path: the path as the call gives it.
	Via string
	// Unresolvable reports that the engine cannot know where the path
	// leads: a path that starts with ~ (~/x, ~user/x), a redirection
	// target that needs another expansion ($HOME/x, `…`, a glob) or a
	// path whose links cannot be resolved. Path is then
	// the text as written. Such a path matches every deny path pattern
	// and no allow one.
	Unresolvable bool
}

// Note says, for a path found by resolving another's links or an
// unresolvable one, what it is and how rules see it; "" for other paths.
// A path it quotes longer than 200 bytes is cut, and the cut shown as
// excerpt shows it, given the whole path (pass the call's
// Request.Excerpt, so that a secret the cut goes through is redacted as
// in the reasons); a nil excerpt shows the cut as it is.
func (ps PathSource) Note(excerpt func(text string, end int) string) string {
	return ps.note(excerpt)
}

// note is Note, quoting with q.
func (ps PathSource) note(q quoter) string {
	switch {
	case ps.Unresolvable:
		return "unresolvable: it matches every deny path pattern and no allow one"
	case ps.Via != "":
		return q.quote(ps.Via) + " with its links resolved"
	}
	return ""
}

// PathSources is Decision.Paths, in the same order, with where in the
// call each path was found.
func PathSources(req Request) []PathSource { return pathsOf(req, decodeRaw(req.RawInput)) }

// pathsOf returns the paths a tool call touches, raw being its decoded
// rawInput, each once, with the fields it was found in:
// toolCall.locations, the paths of diff content, and these top-level
// rawInput fields, each a string or an array of strings: path, paths,
// file_path, filePath, file_paths, filePaths, filepath, filename,
// notebook_path, absolute_path, dir_path, directory, source, destination,
// source_path, destination_path, old_path, new_path, target_file. They
// cover the file tools of Claude Code, gemini-cli, codex and the ACP SDK
// examples; rawInput.cwd, where a command runs, is not a touched path.
// Then the files that the call's commands (commandsOf, and the scripts of
// shell wrappers in them) redirect to or from: the targets of >, >>, >|,
// <, <>, &>, &>> and >& (2>err.log too), but not 2>&1, here-documents or
// /dev/null; they are relative to rawInput.workdir or rawInput.cwd when
// the call gives one (see commandDir), and a relative one is unresolvable
// when a command of the line changes the directory (see changesDir). Each
// path is cleaned and made absolute against req.Dir, else
// req.Cwd (when set), and followed by its resolution (req.Resolve) when
// that differs; a path that starts with ~ (~, ~/x, ~user/x), wherever it
// was found, and a redirection target that needs another expansion
// ($HOME/x, `…`, *.txt) are kept as written, unresolvable: the shell, or
// the tool, may take ~ for a home directory.
func pathsOf(req Request, raw any) []PathSource {
	var out []PathSource
	at := map[string]int{}
	base := req.Cwd
	if req.Dir != "" {
		base = req.Dir
	}
	keep := func(p, from, via string) int {
		i, ok := at[p]
		if !ok {
			i = len(out)
			at[p] = i
			out = append(out, PathSource{Path: p, Via: via})
		}
		if !slices.Contains(out[i].From, from) {
			out[i].From = append(out[i].From, from)
		}
		return i
	}
	// addIn adds the path p, found in from, relative to dir.
	addIn := func(p, from, dir string) {
		if strings.TrimSpace(p) == "" {
			return
		}
		if tildePath(p) {
			out[keep(p, from, "")].Unresolvable = true
			return
		}
		given := cleanPath(p, dir)
		i := keep(given, from, "")
		if req.Resolve == nil || out[i].Unresolvable || !path.IsAbs(given) {
			return
		}
		if !filepath.IsAbs(p) {
			// Uncleaned: the OS resolves lnk/.. from where lnk leads.
			p = dir + string(filepath.Separator) + p
		}
		resolved, err := req.Resolve(p)
		if err != nil {
			out[i].Unresolvable = true
			return
		}
		if resolved = cleanPath(resolved, ""); resolved != given {
			keep(resolved, from, given)
		}
	}
	add := func(p, from string) { addIn(p, from, base) }
	for _, p := range req.Locations {
		add(p, "locations")
	}
	for _, p := range req.DiffPaths {
		add(p, "content")
	}
	m, _ := raw.(map[string]any)
	for _, f := range pathFields {
		switch v := m[f].(type) {
		case string:
			add(v, "rawInput."+f)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					add(s, "rawInput."+f)
				}
			}
		}
	}
	commandFrom := "title" // where commandsOf read the commands
	if _, ok := commandLine(raw); ok {
		commandFrom = "rawInput.command"
	}
	cmds, pieces := commandsOf(req, raw)
	// The commands run in rawInput.workdir or rawInput.cwd when the call
	// gives one; after a change of directory, in one the rules cannot know.
	dir, known := commandDir(m, base)
	known = known && !changesDir(cmds, pieces)
	for _, cmd := range cmds {
		units, _ := allowUnits(cmd, pieces[cmd])
		for _, text := range append([]string{cmd}, units...) {
			for _, target := range redirectTargets(text) {
				if unresolvable(target) || !known && !filepath.IsAbs(target) {
					out[keep(target, commandFrom, "")].Unresolvable = true
					continue
				}
				addIn(target, commandFrom, dir)
			}
		}
	}
	return out
}

// commandDir returns the directory a call's commands run in, given its
// decoded rawInput m and the directory of the call, base: the rawInput
// field workdir (codex) or cwd, made absolute against base, when it has
// one, else base. known is false when they name different directories,
// or one that needs the shell's expansion (~, $HOME).
func commandDir(m map[string]any, base string) (dir string, known bool) {
	dir, known = base, true
	given := ""
	for _, f := range []string{"workdir", "cwd"} {
		v, ok := m[f].(string)
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		if unresolvable(v) || given != "" && cleanPath(v, base) != given {
			return base, false
		}
		given = cleanPath(v, base)
	}
	if given != "" {
		dir = given
	}
	return dir, true
}

// dirChangers are the commands after which a shell line goes on in
// another directory: cd, pushd and popd, and source and ., whose script
// may run cd.
var dirChangers = map[string]bool{"cd": true, "pushd": true, "popd": true, "source": true, ".": true}

// changesDir reports whether one of the simple commands cmds, or a
// command they run (see denyForms: a wrapper's, a shell line's), changes
// the directory, or may: one with too many forms to see them all, or an
// unresolvable one. Where in the line it does is not looked at: a loop
// runs what stands before it again after it.
func changesDir(cmds []string, pieces map[string]bool) bool {
	for _, cmd := range cmds {
		forms, complete, unresolved := denyForms(cmd, pieces[cmd])
		if !complete || unresolved != "" {
			return true
		}
		for _, f := range forms {
			ws := words(f)
			if i := skipAssignments(ws); i < len(ws) && dirChangers[path.Base(dequote(ws[i]))] {
				return true
			}
		}
	}
	return false
}

// kindOf returns the request's tool kind, "other" when missing.
func kindOf(req Request) string {
	if req.Kind == "" {
		return "other"
	}
	return req.Kind
}
