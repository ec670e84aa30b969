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
)

// Command is an agent's command as runner starts it (ResolveCommand).
type Command struct {
	// Argv is what is started, in the agent's cwd.
	Argv []string
	// Script is the file the mock agent of `acprun mock-agent SCRIPT`
	// plays; "" for every other command.
	Script string
}

// ResolveCommand resolves the command of an agent of the scenario file
// file ("" when there is none, as for probe) that starts in dir, its cwd,
// as runner starts it, for a run and validate --strict alike:
//   - a command starting with "acprun" runs self, the running acprun, so
//     that examples use the mock agent of the same build (when self is
//     "", "acprun" is looked up in PATH);
//   - the script of `acprun mock-agent SCRIPT` is the file SCRIPT names
//     next to the scenario file when there is one, else SCRIPT relative to
//     dir; Argv names it by its absolute path when the agent would not find
//     it from dir by SCRIPT (it starts in a workspace's copy, or its cwd is
//     elsewhere).
//
// The program itself is found when the agent starts (see LookPath).
func ResolveCommand(command []string, file, dir, self string) Command {
	argv := slices.Clone(command)
	var script string
	if len(argv) >= 3 && argv[0] == "acprun" && argv[1] == "mock-agent" {
		script = argv[2]
		if !filepath.IsAbs(script) {
			script = filepath.Join(dir, argv[2])
			if next := filepath.Join(filepath.Dir(file), argv[2]); file != "" && fileExists(next) {
				abs, err := filepath.Abs(next)
				if fromDir, _ := filepath.Abs(script); err == nil && abs != fromDir {
					argv[2] = abs
				}
				script = next
			}
		}
	}
	if len(argv) > 0 && argv[0] == "acprun" && self != "" {
		argv[0] = self
	}
	return Command{Argv: argv, Script: script}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// LookPath finds the executable name as an agent's start in dir finds it:
// a bare name in PATH, a path relative to dir. Its error says why there is
// none, in a few words.
func LookPath(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		path, err := exec.LookPath(name)
		if err != nil {
			return "", errors.New("not found in PATH")
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
			return "", fmt.Errorf("no such file (relative to the agent's cwd %s)", dir)
		}
		return "", errors.New("no such file")
	case err != nil:
		return "", err
	case fi.IsDir():
		return "", errors.New("is a directory")
	case fi.Mode()&0o111 == 0:
		return "", errors.New("not executable (chmod +x it)")
	}
	return path, nil
}
