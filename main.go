// Command acprun runs coding agents that speak the Agent Client Protocol
// (ACP) headlessly: it reads YAML scenarios, drives each agent through its
// turns, answers permission requests by rules, and writes results keyed by
// stop reason.
//
// This package is the command line only: main.go holds the root of the
// kong CLI, the globals, exit codes, interrupts and colour; each cmd_*.go
// file is one command (flags, help, calls into the packages, errors mapped
// to exit codes); flags.go holds flag types, and select.go the loading and
// selecting of scenarios that several commands share.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/fatih/color"
	"golang.org/x/term"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// Exit codes, documented in the help of run and merge and in docs/results.md.
// When several apply, the first of exitOutput, exitInterrupted, exitAgent,
// exitInvalid and exitFailed wins.
const (
	exitOK     = 0
	exitFailed = 1 // some scenario failed, errored or was cut short (interrupted) by --timeout or --fail-fast
	exitUsage  = 2 // usage, scenario-file or output-path errors: nothing ran
	exitAgent  = 3 // an agent could not be started, initialized or authenticated
	// exitOutput: acprun could not write its output (results, JUnit,
	// events, transcripts) or failed internally.
	exitOutput = 4
	exitEmpty  = 5 // no scenario selected (pytest's "no tests collected")
	// exitLocked: another run holds the lock of a state file and --lock
	// fail was given (session.resume); nothing ran.
	exitLocked = 6
	// exitInvalid: some scenario measured nothing (status invalid: the agent
	// changed a protected file, it is not the agent expected, or its
	// provider refused the work): not a passing run, nor the agent's
	// failure.
	exitInvalid     = 7
	exitInterrupted = 130
)

// globals holds what every subcommand may need: the process's streams,
// the channel closed by a second interrupt, and what the command loaded,
// whose secrets nothing acprun prints shows (redactor).
type globals struct {
	Stdin  io.Reader `kong:"-"`
	Stdout io.Writer `kong:"-"`
	Stderr io.Writer `kong:"-"`
	// Abort is closed when a second of stopSignals arrives: stop waiting
	// and kill at once.
	Abort <-chan struct{} `kong:"-"`

	noteMu sync.Mutex
	note   func(n int)   // said when the nth interrupt arrives (onInterrupt)
	halt   func() string // called when acprun exits at once (onExitAtOnce)
	next   chan struct{} // closed by the next of stopSignals, then made anew

	// cfg is the config file the command loaded (configFlag.config), as
	// far as it could be read when it has problems, and loaded the
	// scenarios it loaded before the flags selected some (loadScenarios,
	// choose), as far as they could be read when they have problems; nil
	// before and without. What acprun prints is redacted of their secrets
	// (redactor), as a run's outputs are.
	cfg    *scenario.Config
	loaded []*scenario.Scenario
}

// onInterrupt has f(n) called when the first (n 1) and the second (n 2)
// of stopSignals arrive, before the command's context ends or Abort is
// closed; nil: nothing is. When it returns, a call of the f it replaces
// has returned: what that f prints comes before what the caller prints
// next.
func (g *globals) onInterrupt(f func(n int)) {
	g.noteMu.Lock()
	defer g.noteMu.Unlock()
	g.note = f
}

// onExitAtOnce has halt called when acprun exits at once, at the third
// of stopSignals (exitAtOnce), before it says so: what halt returns is
// written on stderr before that line. Run's is progress.Printer.Halt,
// which stops the progress and returns what erases the live area, or in
// a log a line break after a line of dots. halt must not wait: acprun is
// to exit at once.
func (g *globals) onExitAtOnce(halt func() string) {
	g.noteMu.Lock()
	defer g.noteMu.Unlock()
	g.halt = halt
}

// signalled is what notifyInterrupts calls at each of stopSignals, the
// nth: the first and the second say the note of onInterrupt; each ends
// the contexts of untilNextInterrupt made before it.
func (g *globals) signalled(n int) {
	g.noteMu.Lock()
	defer g.noteMu.Unlock()
	if n <= 2 && g.note != nil {
		g.note(n)
	}
	if g.next != nil {
		close(g.next)
		g.next = make(chan struct{})
	}
}

// untilNextInterrupt returns a copy of ctx, its values kept, that ends at
// the next of stopSignals to arrive, with errInterrupted for cause, rather
// than when ctx ends: after an interrupt that cut a run short, the next
// one gives up the run's final outputs. The caller calls stop.
func (g *globals) untilNextInterrupt(ctx context.Context) (_ context.Context, stop func()) {
	g.noteMu.Lock()
	next := g.next // nil for a g that run did not make (tests'): never closed
	g.noteMu.Unlock()
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-next:
			cancel(errInterrupted)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// writeFile writes what format writes to the output t: stdout for "-",
// else as outfile.WriteFrom does (a regular file replaced atomically once
// format has succeeded, a device or FIFO written in place), or as pin does
// when t was pinned before the agents ran (pin nil: it was not). With
// whole, a format that fails writes nothing, as outfile.WriteWhole writes:
// a regular file still streams to the temporary file that replaces it,
// and only what is written in place (stdout, a FIFO, a device) is made in
// memory first. Without it, what goes in place streams too (the results
// may hold megabytes of agent text).
//
// On stdout, esc is how the format escapes what would be a workflow command (see toStdout).
//
// A FIFO that has no reader yet is waited for, saying so on notes (stderr,
// or what run prints on it through), until
// the interrupt (ctx, the command's, or that of outfile.WithOpenWait)
// ends the wait; after the interrupt it is not waited for. Either way that
// output is lost, with an error that names the FIFO and whose exit code is
// exitInterrupted (see writeExit). A reader, a FIFO's or a stdout pipe's,
// that does not read is waited for until ctx ends: what it has not read
// then is given up (outfile.UnreadError), with that exit code too.
func (g *globals) writeFile(ctx context.Context, notes io.Writer, t outfile.Target, pin *outfile.Pinned, whole bool, esc termtext.Escapes, format func(io.Writer) error) error {
	if t.Path == outfile.Stdout {
		if whole { // stdout is written in place
			made, err := outfile.Whole(format)
			if err != nil {
				return err
			}
			format = made
		}
		return g.toStdout(ctx, esc, format)
	}
	ctx = outfile.WithWaitNotice(ctx, func(string) {
		fmt.Fprintf(notes, "acprun: %s %s: waiting for a reader of the FIFO (Ctrl-C gives up %s)\n", t.Flag, t.Path, cmp.Or(t.What, "the output"))
	})
	switch {
	case pin != nil && whole:
		return pin.WriteWhole(ctx, format)
	case pin != nil:
		return pin.WriteFrom(ctx, format)
	case whole:
		return outfile.WriteWhole(ctx, t.Path, format)
	}
	return outfile.WriteFrom(ctx, t.Path, format)
}

// pinOutput pins the -o file path of merge, report, schema or probe (nil
// for stdout), which locks it as run locks its outputs, before any work;
// its error, an exit 2, starts with prefix. The temporary file it tries
// is told to ctx's outfile.WithTemps hooks (probe's guard).
func pinOutput(ctx context.Context, path, prefix string) (*outfile.Pinned, error) {
	if path == outfile.Stdout {
		return nil, nil
	}
	pin, err := outfile.Pin(ctx, path)
	if err != nil {
		return nil, exitError{code: exitUsage, err: fmt.Errorf("%s-o %s: %w", prefix, path, err)}
	}
	return pin, nil
}

// toStdout writes what format writes to stdout with what would be a
// workflow command written with esc, the format's escapes
// (termtext.CommandWriter): a step's log in GitHub Actions, which stdout
// often is, would run an agent's "##[error]" anywhere in a line, or a line
// of its text that begins with "::add-mask::", as a workflow command. A pipe's
// reader is waited for until ctx ends (outfile.PipeUntilDone).
func (g *globals) toStdout(ctx context.Context, esc termtext.Escapes, format func(io.Writer) error) error {
	stdout, c := outfile.PipeUntilDone(ctx, g.Stdout)
	defer c.Close()
	w := termtext.NewCommandWriter(stdout, esc)
	if err := format(w); err != nil {
		return err
	}
	return w.Flush()
}

// writeExit is the exit code of an output that could not be written:
// exitInterrupted when an interrupt gave up its FIFO, which had no
// reader, or its reader, who did not read it, exitOutput otherwise.
func writeExit(err error) int {
	if errors.Is(err, errInterrupted) {
		return exitInterrupted
	}
	return exitOutput
}

// cli is the root of the command line.
type cli struct {
	Version kong.VersionFlag `help:"Print the version and exit."`
	Color   string           `help:"When to colour the progress and summary of run and merge (on stderr): auto (only a terminal, unless NO_COLOR is set to a non-empty value or TERM=dumb), always or never." enum:"auto,always,never" default:"auto"`

	Run       runCmd       `cmd:"" help:"Run scenarios against their agents and write results."`
	List      listCmd      `cmd:"" help:"List the scenarios a run would run."`
	Validate  validateCmd  `cmd:"" help:"Check scenario files without running anything."`
	Schema    schemaCmd    `cmd:"" help:"Print the JSON Schema of the scenario format."`
	Explain   explainCmd   `cmd:"" help:"Show how a scenario's permission rules answer one request."`
	MockAgent mockAgentCmd `cmd:"" name:"mock-agent" help:"Run the scripted mock ACP agent on stdin/stdout."`
	Replay    replayCmd    `cmd:"" help:"Play back a recorded transcript's agent side as an ACP agent on stdin/stdout."`
	Merge     mergeCmd     `cmd:"" help:"Merge the JSON results of shards into one results file."`
	Report    reportCmd    `cmd:"" help:"Render results as one self-contained HTML page."`
	Agents    agentsCmd    `cmd:"" help:"List the named agents: built-in ones and those of the config file."`
	Probe     probeCmd     `cmd:"" help:"Start an agent, open a session and print what it offers."`
}

// newParser returns the parser of the command line whose root is root:
// its commands get ctx and g; help and the version go to stdout, then
// call exit; a flag given without its value says what it needs
// (needValues).
func newParser(ctx context.Context, root *cli, g *globals, stdout io.Writer, exit func(int)) (*kong.Kong, error) {
	k, err := kong.New(root,
		kong.Name("acprun"),
		kong.Description("Run ACP coding agents headlessly from YAML scenarios."),
		kong.Vars{"version": "acprun " + acprunVersion(), "maxRepeat": strconv.Itoa(maxRepeat), "maxAttempts": strconv.Itoa(maxAttempts)},
		kong.Writers(stdout, g.Stderr),
		kong.Exit(exit),
		kong.BindTo(ctx, (*context.Context)(nil)),
		kong.Bind(g),
		kong.UsageOnError(),
	)
	if err != nil {
		return nil, err
	}
	needValues(k.Model)
	return k, nil
}

// exitError carries an exit code through kong's FatalIfErrorf.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// ExitCode is read by kong and by main.
func (e exitError) ExitCode() int { return e.code }

func (e exitError) Unwrap() error { return e.err }

// exitCode maps a report to the process's exit code. An attempt that
// failed or errored does not fail the run when its scenario met its pass
// rate (report.Forgiven). An interrupt that stopped nothing (it came once
// every scenario had run to its end) left the report whole, not
// Interrupted: the exit code is the run's.
func exitCode(rep report.Report) int {
	if rep.Interrupted {
		return exitInterrupted
	}
	code := exitOK
	forgiven := report.Forgiven(rep)
	for _, r := range rep.Scenarios {
		if !r.Verdict() || forgiven(r) {
			continue // retried: the later try's verdict counts; forgiven: the scenario's rate does
		}
		switch {
		case r.StartFailed:
			return exitAgent
		case r.Status == report.StatusInvalid:
			code = exitInvalid
		case r.Status != report.StatusPassed && code == exitOK:
			code = exitFailed
		}
	}
	return code
}

func main() {
	// The sandbox's Landlock helper (internal: never typed by people) is
	// handled before anything else, kong included: it restricts this
	// process and execs the agent or terminal command it wraps.
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		code, err := sandbox.Exec(os.Args[2:])
		fmt.Fprintf(os.Stderr, "acprun: %v\n", err)
		os.Exit(code)
	}
	// Before anything is started: no descriptor acprun inherited besides
	// stdin, stdout and stderr reaches its agents, their terminals, its
	// commands, or through them the sandbox (the helper above is given
	// only those acprun means it to have).
	if err := proc.CloseInheritedOnExec(); err != nil {
		fmt.Fprintf(os.Stderr, "acprun: warning: %v: the processes acprun starts inherit them\n", err)
	}
	catchSIGPIPE()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// catchSIGPIPE makes a write to a pipe whose reader has gone fail with
// EPIPE, as it does on any other file, instead of killing acprun: Go's
// default for stdout and stderr (see os/signal). A reader of --events -
// or -o - that quits early (| head) then costs that output only: the run
// goes on, the other outputs are written, the temporary files are removed
// and the exit code says what was lost. The signal is caught, not
// ignored: an ignored signal would be inherited by the agents and commands
// acprun starts, a caught one is reset to its default when they are exec'd.
func catchSIGPIPE() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// run parses args, runs the chosen command and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{Stdin: stdin, Stdout: stdout, Stderr: stderr, next: make(chan struct{})}
	ctx, abort, stop := notifyInterrupts(g.signalled, g.exitAtOnce)
	defer stop()
	g.Abort = abort
	if err := notUTF8Arg(args, g.redactor(nil)); err != nil { // before kong reads it otherwise
		fmt.Fprintf(stderr, "acprun: %v\n", err)
		return exitUsage
	}
	root := &cli{}
	help := &stickyWriter{w: stdout}
	exitCode := -1
	parser, err := newParser(ctx, root, g, help, func(code int) { exitCode = code })
	if err != nil { // the grammar itself is wrong
		fmt.Fprintf(stderr, "acprun: %v\n", err)
		return exitOutput
	}
	kctx, err := parser.Parse(args)
	if help.err != nil {
		if stdoutGone(help.err) {
			return exitOK // --help | head
		}
		fmt.Fprintf(stderr, "acprun: %v\n", help.err)
		return exitOutput
	}
	if exitCode >= 0 {
		return exitCode // --help, --version
	}
	if err != nil { // an argument may be a secret of the environment
		fmt.Fprintf(stderr, "acprun: %v\n%s\n", g.redactor(nil).Error(asGiven(err)), usageHint(err))
		return exitUsage
	}
	if err := checkFlags(kctx); err != nil {
		fmt.Fprintf(stderr, "acprun: %v\n", g.redactor(nil).Error(err))
		return exitUsage
	}
	setColor(root.Color, stderr)
	err = kctx.Run()
	var ee exitError
	if !errors.As(err, &ee) && stdoutGone(err) {
		return exitOK // agents | head: the reader had what it wanted
	}
	return commandExit(g, err, stderr)
}

// usageHint points a command-line error at the help of the command it
// was given to, as git and docker do: "see 'acprun report --help'".
func usageHint(err error) string {
	path := "acprun"
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if n := pe.Context.Selected(); n != nil {
			path += " " + n.Path()
		}
	}
	return "see '" + path + " --help'"
}

// checkFlags refuses, before anything runs (exit 2), the flags given
// values that could not do what the user meant: an empty value
// (emptyFlag), a list with an empty or a blank word (wordListFlag), a
// flag that takes one value given twice (repeatedFlag).
func checkFlags(kctx *kong.Context) error {
	return errors.Join(emptyArgument(kctx), emptyFlag(kctx), wordListFlag(kctx), repeatedFlag(kctx))
}

// emptyArgument refuses an empty path argument, as acprun run "$SUITE"
// gives it with SUITE unset: said as a file named "", it would not say
// what is wrong, and explain's optional scenario file would read as left
// out (the rules of a run without one). An agent's command after probe's
// -- may hold empty words, and is left alone.
func emptyArgument(kctx *kong.Context) error {
	for _, p := range kctx.Path {
		arg := p.Positional
		if arg == nil || arg.Name == "agent" {
			continue
		}
		if slices.Contains(stringValues(arg.Target), "") {
			return fmt.Errorf(`<%s> "": the argument is empty (is the variable that gives it unset?): give a path`, arg.Name)
		}
	}
	return nil
}

// stringValues are the values of a flag or an argument whose target is a
// string or a list of strings; none for another target.
func stringValues(target reflect.Value) []string {
	switch target.Kind() {
	case reflect.String:
		return []string{target.String()}
	case reflect.Slice:
		values, _ := target.Interface().([]string)
		return values
	}
	return nil
}

// emptyPlaceholders are the placeholders of the flags whose value may not
// be empty, with what the value is and what to give instead: those that
// name a file or a directory, those that select scenarios, which empty
// would select them all, a model, a mode or an auth method, which empty
// would not be set as the user meant, and what explain explains, which
// empty would explain another request than the user's. A placeholder that
// ends in listTail is a list of words (see wordListFlag).
var emptyPlaceholders = map[string]struct{ what, give string }{
	"FILE":            {"path", "a file"},
	"DIR":             {"path", "a directory"},
	"I/N":             {"shard", "one such as 2/4"},
	"REGEX":           {"pattern", "a regular expression (RE2) such as ^smoke"},
	"TAG" + listTail:  {"tag", "a tag"},
	"NAME":            {"name", "a name"},
	"NAME" + listTail: {"name", "a name"},
	"MODEL":           {"model", "the id of a model the agent offers"},
	"MODE":            {"mode", "the id of a session mode the agent offers"},
	"METHOD":          {"auth method", "the id of an auth method the agent offers"},
	// explain's: the request it explains, and what a made-up one is.
	"REQ.json": {"path", "a file (or - for stdin)"},
	"T.jsonl":  {"path", "a transcript file"},
	"ID":       {"tool call id", "the toolCallId of a permission request the transcript holds"},
	"KIND":     {"kind", "a tool kind (read, edit, execute, ...)"},
	"TITLE":    {"title", "the request's title"},
	"COMMAND":  {"command", "the request's shell command"},
}

// listTail ends the placeholder of a flag whose every value lists one or
// more words separated by commas, and which may be repeated: --tag and
// --agent (--tag smoke,nightly --tag slow). Such a flag is a []string
// with sep:"none", so that it holds each value as given, an empty one
// too (kong would drop it, and the empty words at a value's end), and
// words splits them.
const listTail = ",..."

// emptyFlag refuses a flag of emptyPlaceholders given an empty value, as
// -o "$RESULTS" or --shard "$SHARD" gives it when the variable is unset:
// nothing has run yet (exit 2), and nothing would be written where the
// user looks for it, or every shard would run the whole suite. kong marks
// as set the flags given on the command line and those with a default;
// no default is empty, so an empty value was given. A value of a list
// flag whose every word is empty (--tag "$A,$B" with both unset: ",") is
// empty too. kong drops the empty values of a repeatable flag split at
// commas, so one is refused only when it gives the flag no value at all.
func emptyFlag(kctx *kong.Context) error {
	for _, f := range kctx.Flags() {
		want, ok := emptyPlaceholders[f.PlaceHolder]
		if !ok || !f.Set || f.Enum != "" { // kong checks an enum's value
			continue
		}
		values := stringValues(f.Target)
		if f.Target.Kind() == reflect.Slice && f.Target.Len() == 0 {
			values = []string{""}
		}
		for _, v := range values {
			if v == "" || strings.HasSuffix(f.PlaceHolder, listTail) && strings.Trim(v, ",") == "" {
				return fmt.Errorf("%s %q: the %s is empty (is the variable that gives it unset?): give %s, or leave the flag out", flagName(f), v, want.what, want.give)
			}
		}
	}
	return nil
}

// wordListFlag refuses a value of a list flag (see listTail) with a
// word that no tag or agent name could equal, which would select less
// than the user asked for and say nothing: an empty one ("smoke," as
// --tag "$A,$B" gives it with B unset) or one with white space (--tag
// "smoke, nightly"). A value whose every word is empty is emptyFlag's.
func wordListFlag(kctx *kong.Context) error {
	for _, f := range kctx.Flags() {
		want, ok := emptyPlaceholders[f.PlaceHolder]
		if !ok || !f.Set || !strings.HasSuffix(f.PlaceHolder, listTail) {
			continue
		}
		values, _ := f.Target.Interface().([]string)
		for _, v := range values {
			if strings.Trim(v, ",") == "" {
				continue // emptyFlag's
			}
			for w := range strings.SplitSeq(v, ",") {
				if w == "" {
					return fmt.Errorf("%s %q: a %s in it is empty (is a variable that gives it unset?): give %s between every two commas, with none before the first or after the last",
						flagName(f), v, want.what, want.give)
				}
				if not := scenario.NotAWord(w); not != "" {
					return fmt.Errorf("%s %q: %s %q %s: a %[3]s is one word; separate %[3]ss with commas and no spaces, or repeat %[6]s",
						flagName(f), v, want.what, w, not, flagName(f))
				}
			}
		}
	}
	return nil
}

// repeatedFlag refuses a flag that takes one value, and that the user
// would not mean to give twice, given more than once: kong keeps the
// last. Those are the flags that name a file or a directory (their
// placeholder is FILE or DIR, or explain's T.jsonl and REQ.json: the
// output the user named first would silently not be written, -o a.json
// --json b.json: two names of one flag; the input named first, not
// read), and --run and --shard (repeatedOnce): --run a --run b reads as
// selecting both, as --tag a --tag b does, and would run b alone; so do
// explain's --scenario and --tool-call, and the flags that give its
// made-up request's one kind, tool, title and command. Such a
// flag is a usage error (exit 2) that names it and its other names. A
// flag that sets a number or a duration (--timeout, --repeat,
// --min-pass-rate) stays last-wins: a later one overrides one set
// before it, as in a base command line a job adds to.
func repeatedFlag(kctx *kong.Context) error {
	given := map[*kong.Flag]int{}
	var order []*kong.Flag
	for _, p := range kctx.Path {
		f := p.Flag
		if f == nil || p.Resolved || f.Target.Kind() != reflect.String {
			continue
		}
		if _, ok := onceOf(f); !ok {
			continue
		}
		if given[f]++; given[f] == 2 {
			order = append(order, f)
		}
	}
	if len(order) == 0 {
		return nil
	}
	f := order[0]
	name := flagName(f)
	if len(f.Aliases) > 0 {
		name += " (or --" + strings.Join(f.Aliases, ", --") + ")"
	}
	once, _ := onceOf(f)
	return fmt.Errorf("%s given %d times: it takes %s, and only the last would count; give it once%s",
		name, given[f], once.takes, once.instead)
}

// repeatedOnce are the placeholders of the flags repeatedFlag refuses
// given twice, with the value such a flag takes and, for its error, what
// to do instead besides giving it once.
var repeatedOnce = map[string]struct{ takes, instead string }{
	"FILE":     {"a file", ""},
	"T.jsonl":  {"a file", ""}, // explain --transcript
	"REQ.json": {"a file", ""}, // explain --request
	"DIR":      {"a directory", ""},
	"REGEX":    {"one regular expression (RE2)", ", with | between the patterns to select several: --run 'smoke|nightly'"},
	"I/N":      {"one shard such as 2/4", ""},
	// explain's: the scenario and the tool call it explains, and what
	// its made-up request is.
	"--scenario":  {"one scenario's name", ""},
	"--tool-call": {"one tool call's id", ""},
	"--kind":      {"the one kind of the made-up request", ""},
	"--tool":      {"the one tool name of the made-up request", ""},
	"--title":     {"the one title of the made-up request", ""},
	"--command":   {"the one shell command of the made-up request", ""},
}

// onceOf says what the flag f takes when repeatedFlag refuses it given
// twice: by its placeholder, or else by its name (repeatedOnce has
// explain's selection and made-up request flags as --NAME).
func onceOf(f *kong.Flag) (struct{ takes, instead string }, bool) {
	if once, ok := repeatedOnce[f.PlaceHolder]; ok {
		return once, true
	}
	once, ok := repeatedOnce["--"+f.Name]
	return once, ok
}

// flagName is how an error names the flag f: --name, or -s/--name.
func flagName(f *kong.Flag) string {
	if f.Short != 0 {
		return fmt.Sprintf("-%c/--%s", f.Short, f.Name)
	}
	return "--" + f.Name
}

// stickyWriter is the stdout kong writes help and the version to: it
// keeps the first write error, which kong's version flag drops.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if s.err == nil {
		s.err = err
	}
	return n, err
}

// stdoutGone reports whether err is a write to stdout whose reader has
// gone (EPIPE: acprun list | head -1). A command whose only output is
// stdout then ends quietly with exit 0, as ripgrep and gh do, whether or
// not the reader quit before the last write; a command that still had
// results to give (run's --print, -o - or --events -, merge and report)
// returns an exitError that says what was lost, and exits 4. Stdout stays
// the *os.File it is (the mock agent's grandchildren inherit it, and
// outputs are compared with it), so the error is known by its file.
func stdoutGone(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Path == os.Stdout.Name() && errors.Is(pe.Err, syscall.EPIPE)
}

// commandExit is the exit code of a command that returned err, which it
// prints: an error without an exit code of its own (an exitError) is
// unexpected, acprun failed internally (a write to stdout, say), and
// never means that a scenario failed. What it prints is redacted as all
// acprun prints is (globals.redactor): of the secrets of the environment
// and of what the command loaded.
func commandExit(g *globals, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	// A path or value in it may hold a secret of the environment or of a
	// file the command loaded.
	red := g.redactor(nil)
	var ee exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "acprun: %v\n", red.Error(ee.err))
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "acprun: %v\n", red.Error(err))
	return exitOutput
}

// stopSignals are the signals that interrupt every command: Ctrl-C,
// SIGTERM, and SIGHUP (its terminal closed, its ssh connection dropped).
// Each is an interrupt: the agents are stopped, the partial results
// written and the temporary files removed. One that acprun was started
// with ignored stays ignored (see caught).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// caught returns those of sigs that acprun catches, those that ignored
// does not report: one that acprun's parent set to be ignored (nohup's
// SIGHUP, the SIGINT of a non-interactive shell's background job) was
// meant to be, and stays so, for the agents and commands acprun starts
// too, which inherit it. (Go keeps an inherited SIG_IGN of SIGHUP and
// SIGINT until signal.Notify asks for the signal; SIGTERM it does not.)
func caught(sigs []os.Signal, ignored func(os.Signal) bool) []os.Signal {
	return slices.DeleteFunc(slices.Clone(sigs), ignored)
}

// notifyInterrupts returns a context cancelled by the first of
// stopSignals and a channel closed by the second; the third calls exit,
// which is not to return (exitAtOnce): whatever still holds acprun up
// then (a write to a stderr nobody reads, a process that does not die)
// does not keep it. Each signal, the nth, calls each(n) first.
func notifyInterrupts(each func(n int), exit func()) (context.Context, <-chan struct{}, func()) {
	sigs := make(chan os.Signal, 3) // three distinct signals at once are three
	if c := caught(stopSignals, signal.Ignored); len(c) > 0 {
		signal.Notify(sigs, c...) // none: Notify would catch every signal
	}
	ctx, abort, stop := onInterrupts(sigs, each, exit)
	return ctx, abort, func() {
		signal.Stop(sigs)
		stop()
	}
}

// onInterrupts is notifyInterrupts for the signals that sigs delivers.
func onInterrupts(sigs <-chan os.Signal, each func(n int), exit func()) (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	abort := make(chan struct{})
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-sigs:
				n++
				each(n) // before anything stops: what it says comes first
				switch n {
				case 1:
					cancel(errInterrupted)
				case 2:
					close(abort)
				case 3:
					exit()
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, abort, func() {
		close(done)
		cancel(nil)
	}
}

// exitAtOnce is what the third of stopSignals does: acprun exits at once
// with exitInterrupted, saying so on stderr only as far as a pipe there
// takes it without waiting (outfile.PipeUntilDone, given up at once). Its
// deferred work is not done: the guard (runner.StartGuard) does what
// matters of it, as it does when acprun is killed: it kills the agents
// and what they started, and removes the temporary files (outfile.WithTemps)
// and directories of the run. The outputs not written yet are lost.
func (g *globals) exitAtOnce() {
	now, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	stderr, c := outfile.PipeUntilDone(now, g.Stderr)
	_, _ = io.WriteString(stderr, g.lastWords())
	c.Close()
	os.Exit(exitInterrupted)
}

// lastWords is what exitAtOnce writes on stderr, in one write: what
// erases run's live area from the terminal, if it is drawn there, or
// ends its line of dots in a log (see onExitAtOnce), then the line that
// says acprun exits at once, on a line of its own rather than glued to
// the live area's bar or to the dots.
func (g *globals) lastWords() string {
	g.noteMu.Lock()
	halt := g.halt
	g.noteMu.Unlock()
	erase := ""
	if halt != nil {
		erase = halt()
	}
	return erase + "acprun: interrupted a third time: exiting at once; the outputs not written yet are lost\n"
}

// errInterrupted is the cause of the run context after one of stopSignals.
var errInterrupted = errors.New("interrupted")

// stdin returns the command's stdin as every command reads it (run
// --prompt -, explain --request -, mock-agent, replay): a pending Read
// ends when ctx does, with its cause (errInterrupted after SIGINT or
// SIGTERM), or when the reader is closed. A read(2) of a terminal or a
// pipe cannot be interrupted, and a stdin made non-blocking for the Go
// runtime to poll would stay so for every process that shares it (the
// shell of a terminal), so a goroutine reads stdin and hands each chunk
// over. Once the reader has ended early, that goroutine stays blocked in
// read(2) until more input comes or acprun exits, which it then does.
func (g *globals) stdin(ctx context.Context) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, g.Stdin)
		pw.CloseWithError(err) // nil: EOF
	}()
	// The writer's end is closed, for the reads to end with the cause.
	stop := context.AfterFunc(ctx, func() { pw.CloseWithError(context.Cause(ctx)) })
	return &stdinReader{PipeReader: pr, stop: stop}
}

// stdinReader is the reader globals.stdin returns.
type stdinReader struct {
	*io.PipeReader
	stop func() bool // stops ending the reads with ctx
}

// Close ends the reads, a pending one too.
func (r *stdinReader) Close() error {
	r.stop()
	return r.PipeReader.Close()
}

// noteStdin says on stderr that acprun waits for what to be typed, when
// stdin is a terminal: a person may not know it waits for them.
func (g *globals) noteStdin(prefix, what string) {
	if isTerminal(g.Stdin) {
		fmt.Fprintf(g.Stderr, "%s: reading %s from stdin (end it with Ctrl-D)\n", prefix, what)
	}
}

// setColor decides once whether human output is coloured: fatih/color looks
// at stdout, but acprun's human output goes to stderr. --color=always and
// never win over the environment; under auto, stderr must be a capable
// terminal, and NO_COLOR turns colour off only when it is set and not
// empty (no-color.org).
func setColor(mode string, stderr io.Writer) {
	switch mode {
	case "always":
		color.NoColor = false
	case "never":
		color.NoColor = true
	default:
		color.NoColor = os.Getenv("NO_COLOR") != "" || !capableTerminal(stderr)
	}
}

// capableTerminal reports whether w is a terminal that takes escape
// sequences: colour, and the cursor movements of run's live progress
// area. TERM=dumb (Emacs's shell, some CI consoles) says it takes plain
// lines only, as a pipe does.
func capableTerminal(w io.Writer) bool {
	return isTerminal(w) && os.Getenv("TERM") != "dumb"
}

// sameFile reports whether the streams a and b are the same file, or
// terminal.
func sameFile(a, b any) bool {
	fa, ok := a.(*os.File)
	fb, okb := b.(*os.File)
	if !ok || !okb {
		return false
	}
	sa, err := fa.Stat()
	if err != nil {
		return false
	}
	sb, err := fb.Stat()
	return err == nil && os.SameFile(sa, sb)
}

// isTerminal reports whether the stream s (stdin, stdout or stderr) is a
// terminal.
func isTerminal(s any) bool {
	f, ok := s.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
