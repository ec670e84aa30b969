package approve

import (
	"path"
	"strings"
)

// gitConfig reads the options git takes before its subcommand, in the
// unquoted words argv of a git command (git itself first): the shell lines
// that the settings of -c NAME=VALUE run (see gitCommandKey: git runs
// core.pager, an alias.NAME of "!LINE", a diff driver's command…), and
// hidden, the first such setting whose value is in no command's text
// (--config-env NAME=VARIABLE takes it from the environment). It returns
// nothing for any other command. hidden is the setting as given
// (core.pager=VARIABLE).
func gitConfig(argv []string) (lines []string, hidden string) {
	if len(argv) == 0 || path.Base(argv[0]) != "git" {
		return nil, ""
	}
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		var setting string
		fromEnv := false
		switch {
		case a == "-c" || a == "--config-env":
			if i+1 >= len(args) {
				return lines, hidden
			}
			i++
			setting, fromEnv = args[i], a == "--config-env"
		case strings.HasPrefix(a, "--config-env="):
			setting, fromEnv = strings.TrimPrefix(a, "--config-env="), true
		case gitOptionArg[a]:
			i++ // -C DIR, --git-dir DIR…
			continue
		case strings.HasPrefix(a, "-"):
			continue // a flag, or --git-dir=DIR
		default:
			return lines, hidden // the subcommand
		}
		key, value, _ := strings.Cut(setting, "=")
		if fromEnv {
			if _, run := gitCommandKey(key); run != gitRunsNothing && hidden == "" {
				hidden = setting
			}
		} else if line, ok := gitCommand(key, value); ok {
			lines = append(lines, line)
		}
	}
	return lines, hidden
}

// gitOptionArg are git's options before its subcommand that take the next
// word as their argument.
var gitOptionArg = map[string]bool{
	"-C": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--attr-source": true, "--list-cmds": true,
}

// gitCommand returns the shell line that git runs for the setting key
// (section.name or section.subsection.name) of value, and whether it runs
// one (see gitCommandKey): the value itself, or, for an alias, a
// credential helper and a submodule's update, what follows its "!" (an
// alias without one is a git command, a submodule's update method a
// name). A pager or fsmonitor set to a boolean runs nothing.
func gitCommand(key, value string) (string, bool) {
	pattern, run := gitCommandKey(key)
	switch run {
	case gitRuns:
		return value, true
	case gitRunsBang:
		if line, ok := strings.CutPrefix(value, "!"); ok {
			return line, true
		}
		if strings.HasPrefix(pattern, "credential.") {
			return value, true // a helper's name or path, with its arguments
		}
	case gitRunsUnlessBool:
		if !gitBool(value) {
			return value, true
		}
	}
	return "", false
}

// gitCommandKey returns the pattern of gitCommandKeys the setting key
// (section.name or section.subsection.name; sections and names in any
// case) is of, and how git runs its value: gitRunsNothing for a setting
// that is no command.
func gitCommandKey(key string) (string, gitRun) {
	section, rest, ok := strings.Cut(strings.ToLower(key), ".")
	if !ok {
		return "", gitRunsNothing
	}
	pattern := section + "." + rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		pattern = section + ".*." + rest[i+1:]
	}
	if section == "alias" || section == "pager" {
		pattern = section + ".*" // the name is the command's
	}
	return pattern, gitCommandKeys[pattern]
}

// gitRun says how git runs a setting's value (see gitCommandKeys).
type gitRun int

const (
	gitRunsNothing    gitRun = iota
	gitRuns                  // the value is a command
	gitRunsBang              // a command after a leading "!"
	gitRunsUnlessBool        // a command, unless it is a boolean
)

// gitCommandKeys are git's settings whose value is a command git runs, by
// section.name, or section.*.name for those with a subsection (pager.* and
// alias.*: any name).
var gitCommandKeys = map[string]gitRun{
	"alias.*":                    gitRunsBang,
	"pager.*":                    gitRunsUnlessBool,
	"core.pager":                 gitRuns,
	"core.editor":                gitRuns,
	"sequence.editor":            gitRuns,
	"core.sshcommand":            gitRuns,
	"core.fsmonitor":             gitRunsUnlessBool,
	"core.askpass":               gitRuns,
	"core.gitproxy":              gitRuns,
	"credential.helper":          gitRunsBang,
	"credential.*.helper":        gitRunsBang,
	"gpg.program":                gitRuns,
	"gpg.*.program":              gitRuns,
	"diff.external":              gitRuns,
	"diff.*.command":             gitRuns,
	"diff.*.textconv":            gitRuns,
	"filter.*.clean":             gitRuns,
	"filter.*.smudge":            gitRuns,
	"filter.*.process":           gitRuns,
	"merge.*.driver":             gitRuns,
	"difftool.*.cmd":             gitRuns,
	"mergetool.*.cmd":            gitRuns,
	"interactive.difffilter":     gitRuns,
	"uploadpack.packobjectshook": gitRuns,
	"remote.*.uploadpack":        gitRuns,
	"remote.*.receivepack":       gitRuns,
	"submodule.*.update":         gitRunsBang,
	"browser.*.cmd":              gitRuns,
	"sendemail.sendmailcmd":      gitRuns,
	"sendemail.tocmd":            gitRuns,
	"sendemail.cccmd":            gitRuns,
}

// gitBool reports whether value is one of git's booleans.
func gitBool(value string) bool {
	switch strings.ToLower(value) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}
