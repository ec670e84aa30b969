package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/scenario"
)

// Command is an agent's command as runner starts it (ResolveCommand).
type Command struct {
	// Argv is what is started, in the agent's cwd.
	Argv []string
	// Script is the file the mock agent of `acprun mock-agent SCRIPT`
	// plays; "" for every other command.
	Script string
	// ScriptWord is the index of the word that names Script in Argv, and
	// in the command given (scenario.FileWord); 0 without Script.
	ScriptWord int
}

// ResolveCommand resolves the command of an agent of the scenario file
// file ("" when there is none, as for probe) that starts in dir, its cwd,
// as runner starts it, for a run and validate --strict alike:
//   - a command starting with "acprun" runs self, the running acprun, so
//     that examples use the mock agent of the same build (when self is
//     "", "acprun" is looked up in PATH);
//   - the script of `acprun mock-agent SCRIPT` (scenario.FileWord: after
//     a "--" too) is the file SCRIPT names
//     next to the scenario file when there is one, else SCRIPT relative to
//     dir; Argv names it by its absolute path when the agent would not find
//     it from dir by SCRIPT (it starts in a workspace's copy, or its cwd is
//     elsewhere).
//
// The program itself is found when the agent starts (see LookPath).
func ResolveCommand(command []string, file, dir, self string) Command {
	argv := slices.Clone(command)
	var script string
	i := max(scenario.FileWord(argv, "mock-agent"), 0)
	if i > 0 {
		script = argv[i]
		if !filepath.IsAbs(script) {
			script = filepath.Join(dir, argv[i])
			if next := filepath.Join(filepath.Dir(file), argv[i]); file != "" && fileExists(next) {
				abs, err := filepath.Abs(next)
				if fromDir, _ := filepath.Abs(script); err == nil && abs != fromDir {
					argv[i] = abs
				}
				script = next
			}
		}
	}
	if len(argv) > 0 && argv[0] == "acprun" && self != "" {
		argv[0] = self
	}
	return Command{Argv: argv, Script: script, ScriptWord: i}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// errNotInPath is LookPath's error for a bare name that is not in PATH.
var errNotInPath = errors.New("not found in PATH")

// LookPath finds the executable name as an agent's start in dir finds it:
// a bare name in PATH, a path relative to dir. Its error says why there is
// none, in a few words.
func LookPath(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		path, err := exec.LookPath(name)
		if err != nil {
			return "", errNotInPath
		}
		return path, nil
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, name)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !filepath.IsAbs(name) {
			return "", missingPath(fmt.Sprintf("no such file (relative to the agent's cwd %s)", dir))
		}
		return "", missingPath("no such file")
	case err != nil:
		return "", err
	case fi.IsDir():
		return "", errors.New("is a directory")
	case fi.Mode()&0o111 == 0:
		return "", errors.New("not executable (chmod +x it)")
	}
	return path, nil
}

// missingPath is LookPath's error for a path that does not exist: it says
// so in its own words, and is fs.ErrNotExist.
type missingPath string

func (e missingPath) Error() string { return string(e) }

// Is reports whether target is fs.ErrNotExist.
func (e missingPath) Is(target error) bool { return target == fs.ErrNotExist }

// ProgramError is an agent whose program a start would not find: Pos is
// the word of its command that names the program (the agent's own
// position when a built-in agent's command gives it), Msg what is wrong and,
// where it is not plain, what to do.
type ProgramError struct {
	Pos scenario.Pos
	Msg string
	// Err is LookPath's error: fs.ErrNotExist for a path that does not
	// exist.
	Err error
}

func (e *ProgramError) Error() string { return posMsg(e.Pos, e.Msg) }

// Unwrap returns Err.
func (e *ProgramError) Unwrap() error { return e.Err }

// CheckProgram looks for prog, the program of agent a's command as
// ResolveCommand gives it, as the agent's start in dir finds it
// (LookPath): for a run, before it starts the agent, and validate
// --strict alike. It returns nil when the program is there.
func CheckProgram(a *scenario.Agent, prog, dir string) *ProgramError {
	if len(a.Command) == 0 {
		return nil // an error of the file already
	}
	_, err := LookPath(prog, dir)
	if err == nil {
		return nil
	}
	what := "agent command"
	if a.Name != "" {
		what = fmt.Sprintf("agent %s: command", a.Name)
	}
	msg := fmt.Sprintf("%s %s: %v", what, shellquote.Word(a.Command[0]), err)
	if errors.Is(err, errNotInPath) {
		msg += ": install it, or give its path"
	}
	return &ProgramError{Pos: a.WordPos(0), Msg: msg, Err: err}
}
