package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// selfAgents are acprun's commands that are agents: they speak ACP on
// stdin and stdout.
var selfAgents = []string{"mock-agent", "replay"}

// selfAgentChecks memoizes selfAgentProblem by command, within one
// check of the scenarios of a run or of validate: a parser of acprun's
// command line takes a millisecond to build.
type selfAgentChecks map[string]selfAgentCheck

// selfAgentCheck is what selfAgentProblem said of one command.
type selfAgentCheck struct {
	word int
	msg  string
}

// problem is selfAgentProblem(argv), parsed once per command.
func (m selfAgentChecks) problem(argv []string) (int, string) {
	if len(argv) < 1 || argv[0] != "acprun" {
		return 0, ""
	}
	c := once(m, strings.Join(argv, "\x00"), func() selfAgentCheck {
		word, msg := selfAgentProblem(argv)
		return selfAgentCheck{word, msg}
	})
	return c.word, c.msg
}

// selfAgentProblem is what acprun's own command line says of argv, an
// agent's command that runs acprun itself (argv[0] is "acprun", which
// runner.ResolveCommand starts as the running binary): "" when argv is
// acprun mock-agent SCRIPT or acprun replay TRANSCRIPT as those commands
// parse their arguments (the grammar of run's own parser, so the two
// cannot differ); otherwise why the agent would exit before answering
// initialize, and the index in argv of the word it is about. Any other
// command is not looked at.
func selfAgentProblem(argv []string) (int, string) {
	if len(argv) < 1 || argv[0] != "acprun" {
		return 0, ""
	}
	const agents = "acprun's agents are acprun mock-agent SCRIPT and acprun replay TRANSCRIPT"
	exited := false
	g := &globals{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	parser, err := newParser(context.Background(), &cli{}, g, io.Discard, func(int) { exited = true })
	if err != nil {
		return 0, "" // the grammar itself is wrong: run says so
	}
	kctx, err := parser.Parse(argv[1:])
	var pe *kong.ParseError
	if errors.As(err, &pe) {
		kctx = pe.Context
	}
	if kctx == nil {
		return 0, ""
	}
	shown := "acprun"
	var cmd *kong.Node
	if n := kctx.Selected(); n != nil {
		cmd = n
		shown = "acprun " + n.Path()
	}
	switch {
	case exited:
		return len(argv) - 1, shown + " prints its help or version and exits: it is not an agent; " + agents
	case cmd != nil && !slices.Contains(selfAgents, cmd.Name):
		return 1, fmt.Sprintf("acprun %s is not an agent: %s", cmd.Name, agents)
	case err == nil:
		return emptyWord(argv, shown, kctx)
	}
	// The word the parse stopped at: the first it could not take, or,
	// when it took them all and wants more, the last.
	i := len(argv) - 1
	if last := kctx.Path[len(kctx.Path)-1]; len(last.Remainder()) > 0 {
		i = min(max(len(argv)-len(last.Remainder()), 1), i)
	}
	msg := fmt.Sprintf("%s: %v", shown, err)
	if cmd == nil {
		return i, msg + " (" + agents + ")"
	}
	if w := argv[i]; i == len(argv)-1 && len(cmd.Positional) > 0 && strings.HasPrefix(w, "-") && w != "--" &&
		!slices.Contains(argv[:i], "--") && !knownFlag(kctx, w) {
		// Most likely the script or transcript, whose name starts with
		// a minus: kong would suggest a flag (-h).
		return i, fmt.Sprintf("%s: %s is not a flag of %s: the agent would exit before answering initialize; a %s whose name starts with - follows --: write %s -- %s",
			shown, w, shown, cmd.Positional[0].Summary(), strings.Join(argv[:i], " "), w)
	}
	return i, fmt.Sprintf("%s: the agent would exit before answering initialize; write %s", msg, usage(cmd))
}

// emptyWord is the problem of argv, a command that parsed, that the
// command line refuses before the command runs (checkFlags: an empty
// script or transcript, as "${SCRIPT:-}" gives it with SCRIPT unset),
// at its first empty word (else its last), or "" when there is none.
func emptyWord(argv []string, shown string, kctx *kong.Context) (int, string) {
	err := checkFlags(kctx)
	if err == nil {
		return 0, ""
	}
	i := slices.Index(argv[1:], "") + 1
	if i == 0 {
		i = len(argv) - 1
	}
	return i, fmt.Sprintf("%s: %v; the agent would exit before answering initialize", shown, err)
}

// knownFlag says whether word, up to an "=", names a flag of the
// commands kctx selected: --name, -s or an alias.
func knownFlag(kctx *kong.Context, word string) bool {
	name, _, _ := strings.Cut(word, "=")
	for _, f := range kctx.Flags() {
		if name == "--"+f.Name || (f.Short != 0 && name == "-"+string(f.Short)) || slices.ContainsFunc(f.Aliases, func(a string) bool { return name == aliasName(a) }) {
			return true
		}
	}
	return false
}

// usage is how cmd, a command of acprun's, is written: acprun replay
// [flags] <transcript>.
func usage(cmd *kong.Node) string {
	words := []string{"acprun", cmd.Path()}
	if len(cmd.Flags) > 0 {
		words = append(words, "[flags]")
	}
	for _, p := range cmd.Positional {
		words = append(words, p.Summary())
	}
	return strings.Join(words, " ")
}
