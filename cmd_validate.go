package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/internal/yamlnode"
	"github.com/acprun/acprun/mockagent"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/replay"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// validateCmd is `acprun validate PATHS…`.
type validateCmd struct {
	Paths []string `arg:"" name:"path" help:"Scenario files, directories (searched for *.yaml and *.yml) or globs."`
	configFlag
	Strict       bool `help:"Also check what a run would need: that every agent command (judges' too) resolves to an executable, that every workspace's git ref names a commit and that every cassette a replaying gateway reads is one replay plays."`
	gatewayFlags `set:"gatewayDoes=Check the scenarios as run --gateway MODE loads them, with acprun's model gateway between each agent and its model provider"`
}

// Help is the long help of validate.
func (c *validateCmd) Help() string {
	return `Parses and checks every scenario, reports every error at once as
file:line:col: message (with the source line and a caret under the column), and
runs nothing. Exit 0 when all are valid, 2 otherwise, and 5 when the paths hold
no scenario files.

Every agent cwd must exist. An agent command of acprun's own (acprun mock-agent
SCRIPT, acprun replay TRANSCRIPT; judges' too) is parsed as acprun parses its
command line: a missing or extra argument, or an unknown flag, is an error at
the word it is about. Every replay transcript a scenario plays
(agent: {replay: PATH}, or acprun replay PATH in a command; judges' too) is
read as acprun replay reads it, and every mock agent script (acprun
mock-agent SCRIPT, agent: {name: mock, args: [SCRIPT]}) is opened and parsed
as the mock agent does, as a run does before anything runs: one missing, not
a file, that does not parse or that replay would refuse is an error at the
word that names it. Each
directory a workspace copies (from) is walked, once however many scenarios
copy it, and a .git file in it that names a git directory by its absolute
path, or a symbolic link that leads outside it, is a warning at the
workspace's source: what the agent does through them is not in its copy
(a run warns in each attempt's results). An interrupt stops the walk
(exit 130). A ${VAR}
that is unset here is a warning: a run stops on it only when it selects a
scenario that uses it. The config's prices are a warning at prices: when no
scenario has a gateway to apply them, as in a run.

With --strict, validate also checks what a run needs: every ${VAR} is set, and
what a run would otherwise find only when it starts the agent (exit 3): each agent's
command resolves to an executable ("acprun" is acprun itself, a bare name is
looked up in PATH, a path is relative to the agent's cwd), each client root
is a directory, each workspace's git
directory is the top of a repository in which its ref (HEAD when none)
names a commit (git reads it where it is; nothing is fetched or
changed), and the cassette that each gateway in replay (the scenario's,
or --gateway replay's) reads for a scenario's first try is there and one
replay plays. A command or mock agent script given by a path relative to
the agent's cwd and missing there is left to the agent's start when the
scenario's setup, or the checkout of its git workspace, may make it. Each
problem is reported at the word of the agent's command it is about (its
command or args item, in the config file for a config agent's; the agent
value for a built-in agent's), at client.roots, at the workspace's git or
ref, or at the gateway (at the scenario for --gateway's).`
}

// Run validates the files.
func (c *validateCmd) Run(ctx context.Context, g *globals) error {
	if err := c.gatewayFlags.check(); err != nil {
		return err
	}
	cfg, err := c.config(g)
	if err != nil {
		return usageError(g, nil, err)
	}
	opts := scenario.LoadOptions{Config: cfg, DeferUnset: true}
	c.gatewayFlags.setIn(&opts)
	scs, warnings, err := loadScenarios(g, c.Paths, opts)
	// Every scenario may run: those without permissions are warned about,
	// and so are the config's prices when none of them has a gateway to
	// apply them, as run warns, and the variables that are unset here (a
	// run that selects their scenarios stops on them), unless --strict
	// makes them errors.
	warnings = append(warnings, scenario.NoPermissionsWarnings(scs)...)
	warnings = append(warnings, scenario.UnusedPricesWarnings(cfg, scs, "in the files validated")...)
	if !c.Strict {
		warnings = append(warnings, scenario.UnsetWarnings(scs)...)
	}
	copied, werr := copyWarnings(ctx, scs)
	if werr != nil {
		return exitError{code: exitInterrupted, err: errors.New("interrupted while the directories that workspaces copy were walked")}
	}
	warnings = append(warnings, copied...)
	printWarnings(g, scs, scenario.SortWarnings(warnings))
	if err != nil {
		return usageError(g, nil, withStartErrors(err))
	}
	if len(scs) == 0 {
		return exitError{code: exitEmpty, err: errors.New("no scenarios: " + scenario.NoScenarioFiles(c.Paths))}
	}
	errs := startErrors(scs)
	if c.Strict {
		errs = sortErrors(append(errs, strictErrors(ctx, scs)...))
	}
	if len(errs) > 0 {
		return usageError(g, scs, errs)
	}
	files := map[string]bool{}
	turns := 0
	for _, sc := range scs {
		files[sc.File] = true
		turns += len(sc.Turns)
	}
	return output.Validated(g.Stdout, len(scs), turns, len(files))
}

// copyWarnings are the warnings about what the directories that the
// workspaces of scs copy hold that leads out of each attempt's copy
// (Workspace.PointerWarnings), at each scenario that copies one, as a run
// gives them in each attempt's results. Each directory is walked once,
// however many scenarios copy it (a scenario's load walks none); a
// directory that cannot be read is left to the copy, whose error it is.
// The error is ctx's, when it ended the walk.
func copyWarnings(ctx context.Context, scs []*scenario.Scenario) ([]scenario.Warning, error) {
	walked := map[string][]workspace.Pointer{}
	var out []scenario.Warning
	for _, sc := range scs {
		w := sc.Workspace
		if w == nil || w.From == "" {
			continue
		}
		found, ok := walked[w.From]
		if !ok {
			found, _ = workspace.Pointers(ctx, w.From)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			walked[w.From] = found
		}
		out = append(out, w.PointerWarnings(found)...)
	}
	return out, nil
}

// strictErrors are the problems validate --strict finds beyond the
// files' own: an agent command that does not resolve to an executable
// (a mock agent script's problems are startErrors'), resolved as a run
// resolves it (runner.ResolveCommand), each at the word of the
// command, in the scenario (or its judge), that it is about; a client
// root that is not a directory; a workspace that a run could not make
// (runner.CheckWorkspace); and a cassette that a gateway in replay could
// not play (checkCassette). A variable that is unset is one too, at its
// use; the agents and workspace of its scenario are not checked, their
// values being incomplete.
func strictErrors(ctx context.Context, scs []*scenario.Scenario) scenario.Errors {
	errs := slices.Clone(scenario.UnsetErrors(scs))
	self, _ := os.Executable()   // as runner.Run takes it
	opened := map[string]error{} // opened once, by path (checkScript)
	checks := selfAgentChecks{}
	workspaces := map[workspaceKey]*runner.WorkspaceError{}
	var found []*srcerr.Error
	for _, sc := range scs {
		if len(sc.Unset) > 0 {
			continue
		}
		for _, a := range agentsOf(sc) {
			if _, msg := checks.problem(a.Command); msg != "" {
				continue // an error of startErrors already
			}
			if e := checkScript(sc, a, opened); e != nil {
				found = append(found, e) // startErrors' too
				continue
			}
			found = append(found, checkAgent(sc, a, self)...)
		}
		found = append(found, checkRoots(sc)...)
		if e := checkWorkspace(ctx, sc, workspaces); e != nil {
			found = append(found, e)
		}
		if e := checkCassette(sc); e != nil {
			found = append(found, e)
		}
	}
	return sortErrors(append(errs, withSources(found)...))
}

// checkCassette is the problem of the cassette that sc's gateway replays
// (runner.CheckCassette; nil when it replays none, or one replay plays),
// in the run's words: at the gateway value, or, for a gateway that
// --gateway replay gives, which has no place in the file, at the
// scenario, saying so.
func checkCassette(sc *scenario.Scenario) *srcerr.Error {
	e := runner.CheckCassette(sc)
	if e == nil {
		return nil
	}
	msg := "gateway: " + e.Err.Error()
	if e.Pos.Line == 0 {
		return problem(sc.Pos, fmt.Sprintf("%s (%s gives every scenario a gateway)", msg, e.Pos.File))
	}
	return problem(e.Pos, msg)
}

// checkRoots are the problems of sc's client roots that a run meets when
// the session opens, before setup: a root that is not a directory, at
// roots. The client serves the agent's file and terminal requests within
// its roots, so every one of them would fail.
func checkRoots(sc *scenario.Scenario) []*srcerr.Error {
	if sc.Client.RootsPos == (scenario.Pos{}) {
		return nil // the session cwd, which the file's load checks
	}
	var out []*srcerr.Error
	for i, root := range sc.Client.Roots {
		why := scenario.DirProblem(root)
		if why == "" {
			continue
		}
		out = append(out, problem(sc.Client.RootAt(i), fmt.Sprintf("root %s %s: the agent's file and terminal requests would all fail; create it, or change client.roots", root, why)))
	}
	return out
}

// checkWorkspace is the problem of sc's workspace that a run meets as it
// makes one, before setup (nil when it has none, or none there): a git
// source that is not the top of a repository, or a ref that names no
// commit in it, at the value it is about. The repository is read where it
// is, never fetched. checked holds what each workspace gave, so that the
// scenarios of an --agent matrix, or those a document expands into
// (vars), read one repository once.
func checkWorkspace(ctx context.Context, sc *scenario.Scenario, checked map[workspaceKey]*runner.WorkspaceError) *srcerr.Error {
	w := sc.Workspace
	if w == nil {
		return nil
	}
	key := workspaceKey{w.From, w.Git, w.Ref, w.Pos, w.SourcePos, w.RefPos}
	e := once(checked, key, func() *runner.WorkspaceError { return runner.CheckWorkspace(ctx, w) })
	if e == nil {
		return nil
	}
	return problem(e.Pos, e.Err.Error())
}

// workspaceKey is what checkWorkspace's result depends on: a workspace's
// source and ref, and where they are given.
type workspaceKey struct {
	from, git, ref     string
	pos, source, refAt scenario.Pos
}

// startErrors are the problems that the agents of scs (judges' too)
// would have as they start, and that run and validate find before any
// agent starts: a command of acprun's own (acprun mock-agent SCRIPT,
// acprun replay TRANSCRIPT) that its command line refuses, at the word it
// is about (see selfAgentProblem); a replay transcript that acprun
// replay would refuse: each is read once, with replay.Load, and what it
// refuses is an error at the word of the agent's command that names the
// transcript, saying what replay says; and a mock agent script that the
// mock agent could not read (checkScript), at the word that names it;
// and a session mode that keeps an agent made to ask from asking
// (Agent.UnaskedMode), at the mode: agent.mode, or agent.config's option
// "mode" (claude's option of category mode; the runner checks the others,
// whose category only the agent's session/new answer says).
// The agents of a scenario with unset variables are not checked, their
// values being incomplete.
func startErrors(scs []*scenario.Scenario) scenario.Errors {
	loaded := map[string]error{}  // transcripts, by path
	opened := map[string]error{}  // mock agent scripts, by path
	scripts := map[string]error{} // mock agent scripts parsed, by path
	checks := selfAgentChecks{}
	var found []*srcerr.Error
	for _, sc := range scs {
		if len(sc.Unset) > 0 {
			continue
		}
		for _, a := range agentsOf(sc) {
			if e := checkSelfAgent(sc, a, checks); e != nil {
				found = append(found, e)
			} else if e := checkTranscript(sc, a, loaded); e != nil {
				found = append(found, e)
			} else if e := checkScript(sc, a, opened); e != nil {
				found = append(found, e)
			} else {
				found = append(found, scriptParses(sc, a, scripts)...)
			}
			if msg := a.UnaskedModeProblem(); msg != "" {
				found = append(found, problem(a.ModePos, msg))
			}
			for _, c := range a.Config {
				if msg := a.UnaskedMode("agent.config."+c.ID, c.Value); c.ID == "mode" && msg != "" {
					found = append(found, problem(c.Pos, msg))
				}
			}
		}
	}
	return sortErrors(withSources(found))
}

// withStartErrors adds to err, the problems of loading the scenarios,
// those startErrors finds in the scenarios as far as they could be read
// (scenario.ReadScenarios), so that validate reports every mistake at
// once: a missing mock script beside a bad duration. One on a line that
// has a problem of loading is left out: what it checks may have been read
// wrong. Any other error is returned as it is.
func withStartErrors(err error) error {
	var errs scenario.Errors
	if !errors.As(err, &errs) {
		return err
	}
	type line struct {
		file string
		n    int
	}
	wrong := map[line]bool{}
	for _, e := range errs {
		wrong[line{e.File, e.Line}] = true
	}
	all := slices.Clone(errs)
	for _, e := range startErrors(scenario.ReadScenarios(err)) {
		if !wrong[line{e.File, e.Line}] {
			all = append(all, e)
		}
	}
	return sortErrors(all)
}

// starting is what a, an agent of sc, is called in messages ("agent",
// or "judge agent" for a judge's), and a as it starts, for the files it
// opens: a judge's agent without a cwd of its own opens them from the
// scenario's.
func starting(sc *scenario.Scenario, a *scenario.Agent) (string, *scenario.Agent) {
	what := "agent"
	if a != &sc.Agent {
		what = "judge agent"
	}
	if a.Cwd == "" {
		own := *a
		own.Cwd = sc.Agent.Cwd
		a = &own
	}
	return what, a
}

// checkSelfAgent is the problem of a, an agent of sc whose command is
// one of acprun's own, that acprun's command line refuses (nil when there
// is none), at the word of the command it is about; about a word that
// permissions.enforce added, it says so.
func checkSelfAgent(sc *scenario.Scenario, a *scenario.Agent, checks selfAgentChecks) *srcerr.Error {
	i, msg := checks.problem(a.Command)
	if msg == "" {
		return nil
	}
	what, _ := starting(sc, a)
	if a.Enforced(i) {
		msg += fmt.Sprintf(" (permissions.enforce adds %s to an agent named %s, to make it ask before it acts: set permissions.enforce: false to run its command as written)",
			shellquote.Join(a.Enforcement.Args), a.Name)
	}
	return problem(a.WordPos(i), what+": "+msg)
}

// checkScript is the problem of the script that a, an agent of sc,
// plays as acprun mock-agent SCRIPT (nil when it plays none, or one that
// the mock agent can open), at the word of the command that names it:
// one that is missing, not a regular file, too large or unreadable
// (openScript), which would make the agent exit before it answers
// initialize. Whether it parses is for validate --strict (checkAgent).
// opened holds what each path gave, so that each is opened once.
//
// A script that is not beside the scenario file is looked for in the
// agent's cwd, where sc's setup commands, or the checkout of its git
// workspace, may still make it before the agent starts (madeLater): one
// missing there is then no problem yet, for validate --strict too (the
// run finds it, or not, as the agent starts).
func checkScript(sc *scenario.Scenario, a *scenario.Agent, opened map[string]error) *srcerr.Error {
	what, a := starting(sc, a)
	cmd := runner.ResolveCommand(a.Command, sc.File, a.Cwd, "")
	path := cmd.Script
	if path == "" {
		return nil
	}
	err := once(opened, path, func() error { return openScript(path) })
	i := cmd.ScriptWord
	word := a.Command[i]
	if err == nil || madeLater(sc, word, err) {
		return nil
	}
	return problem(a.WordPos(i), what+": "+scriptProblem(word, sc.File, a.Cwd, err))
}

// madeLater reports whether the file that word, a relative path of an
// agent's command (its program, or its mock agent script), names in the
// agent's cwd, and that err says does not exist there, may still be made
// before the agent starts: by sc's setup commands, or by the checkout of
// its git workspace. A run finds it, or not, as the agent starts. An
// absolute path is not made by them, and a bare program name is looked up
// in PATH, which they do not change.
func madeLater(sc *scenario.Scenario, word string, err error) bool {
	made := len(sc.Setup) > 0 || sc.Workspace != nil && sc.Workspace.Git != ""
	return made && !filepath.IsAbs(word) && errors.Is(err, fs.ErrNotExist)
}

// openScript opens the mock agent script at path as mockagent.Load does,
// without reading it: the error says why the mock agent could not.
func openScript(path string) error {
	f, err := inputfile.Open(path, mockagent.MaxScriptBytes)
	if err != nil {
		return err
	}
	return f.Close()
}

// scriptProblem says what is wrong with the mock agent script that word,
// the command's, names, from err (openScript's): file is the scenario
// file it was looked for beside ("" for none, as for probe) and cwd the
// agent's cwd it was looked for in otherwise.
func scriptProblem(word, file, cwd string, err error) string {
	var e *inputfile.Error
	if !errors.Is(err, fs.ErrNotExist) || errors.As(err, &e) && e.Link != "" {
		return fmt.Sprintf("mock script %s: %v", word, inputfile.Bare(err))
	}
	where := ""
	switch {
	case filepath.IsAbs(word):
	case file != "":
		where = fmt.Sprintf(" (looked for it next to %s and in the agent's cwd %s)", file, cwd)
	default:
		where = fmt.Sprintf(" (looked for it in the agent's cwd %s)", cwd)
	}
	return fmt.Sprintf("mock script %s does not exist%s: write the script there, or give its path", word, where)
}

// checkTranscript is the problem of the transcript that a, an agent of
// sc, plays (nil when it plays none, or one that replay.Load takes).
func checkTranscript(sc *scenario.Scenario, a *scenario.Agent, loaded map[string]error) *srcerr.Error {
	what, a := starting(sc, a)
	path, pos := a.ReplayTranscript()
	if path == "" {
		return nil
	}
	err := once(loaded, path, func() error {
		_, err := replay.Load(path)
		return err
	})
	if err == nil {
		return nil
	}
	return problem(pos, fmt.Sprintf("%s: replay transcript %s: %s", what, shownPath(path, sc.File), replay.Problem(err)))
}

// shownPath is path, a file a scenario file names, as a message shows it:
// relative to the scenario file's directory when it is inside it.
func shownPath(path, file string) string {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}

// agentsOf is the agents sc starts: its own and its judges'.
func agentsOf(sc *scenario.Scenario) []*scenario.Agent {
	agents := []*scenario.Agent{&sc.Agent}
	judges := []*scenario.Judge{sc.Expect.Judge}
	for i := range sc.Turns {
		judges = append(judges, sc.Turns[i].Expect.Judge)
	}
	for _, j := range judges {
		if j != nil {
			agents = append(agents, &j.Agent)
		}
	}
	return agents
}

// withSources gives each of errs, errors in scenario files, the line of
// the file it is at, for its snippet; each file is read once.
func withSources(errs []*srcerr.Error) []*srcerr.Error {
	sources := map[string]*yamlnode.Reader{}
	for _, e := range errs {
		if sources[e.File] == nil {
			data, _ := inputfile.Read(e.File, scenario.MaxFileBytes)
			sources[e.File] = &yamlnode.Reader{Src: data}
		}
		e.Source = sources[e.File].Line(e.Line)
	}
	return errs
}

// sortErrors sorts errs by place, without those said twice.
func sortErrors(errs scenario.Errors) scenario.Errors {
	slices.SortStableFunc(errs, srcerr.Compare)
	return slices.CompactFunc(errs, func(a, b *srcerr.Error) bool { return *a == *b })
}

// checkAgent returns the problems of one agent's command, started by
// self, each at the word of the command it is about (at the agent when
// that word comes from a named agent); a judge's agent without a cwd of
// its own starts in the scenario's (see starting). A program, or a mock
// agent script, given by a path relative to the agent's cwd that is
// missing there is none when setup or a git workspace may make it
// (madeLater).
func checkAgent(sc *scenario.Scenario, a *scenario.Agent, self string) []*srcerr.Error {
	_, a = starting(sc, a)
	argv := a.Command
	if len(argv) == 0 {
		return nil // an error of the file already
	}
	cmd := runner.ResolveCommand(argv, sc.File, a.Cwd, self)
	if cmd.Script != "" {
		return nil // its script's problems are startErrors' (checkScript, scriptParses)
	}
	if e := runner.CheckProgram(a, cmd.Argv[0], a.Cwd); e != nil && !madeLater(sc, cmd.Argv[0], e) {
		return []*srcerr.Error{problem(e.Pos, e.Msg)}
	}
	return nil
}

// scriptParses returns the problems of the mock agent script that a, an
// agent of sc, plays (none when it plays none, or one that parses), each
// at the word of the command that names it: the mock agent would exit
// with them before it answers initialize. A script setup may still make
// is left to the run (madeLater). scripts holds what each path gave, so
// that each is parsed once.
func scriptParses(sc *scenario.Scenario, a *scenario.Agent, scripts map[string]error) []*srcerr.Error {
	_, a = starting(sc, a)
	argv := a.Command
	if len(argv) == 0 {
		return nil // an error of the file already
	}
	cmd := runner.ResolveCommand(argv, sc.File, a.Cwd, "")
	if cmd.Script == "" {
		return nil
	}
	err := once(scripts, cmd.Script, func() error {
		_, err := mockagent.Load(cmd.Script)
		return err
	})
	word := argv[cmd.ScriptWord]
	if err == nil || madeLater(sc, word, err) {
		return nil
	}
	var out []*srcerr.Error
	for _, msg := range parseProblems(word, err) {
		out = append(out, problem(a.WordPos(cmd.ScriptWord), msg))
	}
	return out
}

// parseProblems says each problem of err, the error of a mock agent script
// that word names and that does not parse (mockagent.Load's, which joins
// them), as a message of its own.
func parseProblems(word string, err error) []string {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = fmt.Sprintf("mock script %s does not parse: %v", word, e)
	}
	return msgs
}

// once returns what f gives for key, calling it once per key of done.
func once[K comparable, V any](done map[K]V, key K, f func() V) V {
	v, seen := done[key]
	if !seen {
		v = f()
		done[key] = v
	}
	return v
}

// problem is the error msg at pos, its control characters escaped (it
// quotes the scenario's command).
func problem(pos scenario.Pos, msg string) *srcerr.Error {
	return &srcerr.Error{File: pos.File, Line: pos.Line, Col: pos.Col, Msg: termtext.Printable(msg), Origin: pos.Origin}
}
