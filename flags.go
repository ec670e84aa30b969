package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/kong"

	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/scenario"
)

// duration is a flag value in Go duration syntax (90s, 5m, 1h30m).
type duration struct{ d time.Duration }

// Decode implements kong.MapperValue.
func (d *duration) Decode(ctx *kong.DecodeContext) error {
	s, err := popValue(ctx, "duration")
	if err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if scenario.DurationTooLarge(s, err) {
		return scenario.DurationTooLargeError(s)
	}
	if err != nil || v <= 0 {
		return fmt.Errorf("%q is not a positive duration; use Go syntax like 90s, 5m or 1h30m", s)
	}
	d.d = v
	return nil
}

// popValue pops the value of a flag, a negative one too: kong takes -1
// for a short flag and would suggest --flag="-1", which the flag refuses
// anyway; its Decode then says what values it wants. -j=-1 is -1 too.
func popValue(ctx *kong.DecodeContext, what string) (string, error) {
	if t := ctx.Scan.Peek(); negativeNumber(t) {
		ctx.Scan.Pop()
		return t.Value.(string), nil
	}
	t, err := ctx.Scan.PopValue(what)
	if err != nil {
		return "", err
	}
	s := fmt.Sprint(t.Value)
	if t.Type == kong.ShortFlagTailToken {
		s = strings.TrimPrefix(s, "=")
	}
	return s, nil
}

// negativeNumber reports whether t is a word, not yet read as a flag,
// that starts with a minus and a digit or a dot (-1, -1s, -.5): a flag's
// value, which popValue takes, rather than a flag.
func negativeNumber(t kong.Token) bool {
	v, ok := t.Value.(string)
	return ok && t.Type == kong.UntypedToken && len(v) > 1 && v[0] == '-' && strings.ContainsRune("0123456789.", rune(v[1]))
}

// popCount pops the value of a count flag: a whole number, least at
// least; any other value is an error that says what the flag wants.
func popCount(ctx *kong.DecodeContext, least int64, wants string) (int64, error) {
	s, err := popValue(ctx, "N")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil || n < least {
		return 0, fmt.Errorf("%q: want %s", s, wants)
	}
	return n, nil
}

// repeat is --repeat: how many attempts of each scenario a run makes (see
// checkRepeat for the values taken).
type repeat struct{ n int }

// Decode implements kong.MapperValue.
func (r *repeat) Decode(ctx *kong.DecodeContext) error {
	n, err := popCount(ctx, math.MinInt, fmt.Sprintf("how many times each scenario runs, 1 to %d", maxRepeat))
	r.n = int(n)
	return err
}

// jobs is -j/--jobs: how many scenarios run at once, 1 or more; 0 when
// the flag is not given (the runner then takes the number of CPUs).
type jobs struct{ n int }

// Decode implements kong.MapperValue.
func (j *jobs) Decode(ctx *kong.DecodeContext) error {
	n, err := popCount(ctx, 1, "how many scenarios run at once, 1 or more (leave -j out for the number of CPUs)")
	j.n = int(n)
	return err
}

// atLeastOne is a count flag that takes 1 or more: --shards,
// --max-failures, explain's --index. 0 is the flag left out: given 0 (or
// less), which would read as left out and so do what the user did not ask
// for (a whole suite in every pod of a sharded Job, no stop at all, the
// first request explained), it is refused.
type atLeastOne struct{ n int }

// Decode implements kong.MapperValue.
func (a *atLeastOne) Decode(ctx *kong.DecodeContext) error {
	w := atLeastOneWants[ctx.Value.Name]
	n, err := popCount(ctx, 1, fmt.Sprintf("%s, 1 or more (%s)", w.what, w.without))
	a.n = int(n)
	return err
}

// atLeastOneWants says, for its errors, what each atLeastOne flag counts
// and what leaving it out does.
var atLeastOneWants = map[string]struct{ what, without string }{
	"shards":       {"the number of shards", "leave --shards out not to shard by JOB_COMPLETION_INDEX"},
	"max-failures": {"how many failures stop the run", "leave --max-failures out to run every scenario"},
	"index":        {"which of the tool call's permission requests to explain", "leave --index out for the first"},
}

// byteCount is a size in bytes that may be 0: report's
// --transcript-bytes. Less than 0 is refused.
type byteCount struct{ n int64 }

// Decode implements kong.MapperValue.
func (b *byteCount) Decode(ctx *kong.DecodeContext) error {
	n, err := popCount(ctx, 0, "a number of bytes, 0 or more")
	b.n = n
	return err
}

// passRate is --min-pass-rate: a share of the attempts; r is nil when the
// flag is not given. Its range is checked with the other flags (runCmd);
// a value that is no number says what the flag wants.
type passRate struct{ r *float64 }

// passRateWants is what --min-pass-rate wants, for its errors.
const passRateWants = "want a share of the attempts above 0 and at most 1, e.g. 0.8"

// Decode implements kong.MapperValue.
func (p *passRate) Decode(ctx *kong.DecodeContext) error {
	s, err := popValue(ctx, "RATE")
	if err != nil {
		return err
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q: %s", s, passRateWants)
	}
	p.r = &r
	return nil
}

// failFast is --fail-fast: off, finish (the flag alone) or cancel
// (--fail-fast=cancel). It is a boolean flag that takes an optional value
// after "=", as --fail-fast=finish|cancel. alone is set when the flag was
// given without a value.
type failFast struct {
	mode  string
	alone bool
}

// The values --fail-fast takes.
const (
	failFastFinish = "finish" // running scenarios finish
	failFastCancel = "cancel" // running scenarios are cancelled
)

// Decode implements kong.MapperValue.
func (f *failFast) Decode(ctx *kong.DecodeContext) error {
	f.mode, f.alone = failFastFinish, true
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		return nil
	}
	f.alone = false
	var s string
	if err := ctx.Scan.PopValueInto("mode", &s); err != nil {
		return err
	}
	if s == "" { // --fail-fast="$MODE"
		return &emptyChoiceError{flag: ctx.Value.Flag, typed: "--fail-fast=", give: "finish or cancel (--fail-fast=cancel), or --fail-fast alone for finish"}
	}
	switch s {
	case failFastFinish, failFastCancel:
		f.mode = s
		return nil
	}
	return fmt.Errorf("%q: want --fail-fast (running scenarios finish), --fail-fast=finish or --fail-fast=cancel", s)
}

// gatewayFlags are --gateway and --gateway-timing, which the scenarios
// are loaded with (scenario.LoadOptions): run runs them so, and validate,
// list and explain take them as that run would. The help of --gateway starts
// with what it does for the command (gatewayDoes, set by the command).
type gatewayFlags struct {
	Gateway       gatewayMode `placeholder:"MODE" help:"${gatewayDoes=Put acprun's model gateway between every scenario's agent and its model provider}: record (call the provider and keep its answers in cassettes), replay (answer from the cassettes: no network, no key) or meter (call the provider and count what the agent spends). Scenarios without gateway: get one with the defaults (cassettes/ beside the scenario file); those with one take this mode."`
	GatewayTiming bool        `help:"Replay model answers at the pace they were recorded at, instead of at once (with --gateway replay, or scenarios whose gateway replays)."`
}

// check refuses --gateway-timing with a --gateway that does not replay,
// with exit 2.
func (f gatewayFlags) check() error {
	if f.GatewayTiming && f.Gateway.mode != "" && f.Gateway.mode != string(gateway.Replay) {
		return exitError{code: exitUsage, err: fmt.Errorf("--gateway-timing paces replays, and --gateway %s does not replay: leave one of them out", f.Gateway.mode)}
	}
	return nil
}

// setIn sets the gateway options of opts as the flags say.
func (f gatewayFlags) setIn(opts *scenario.LoadOptions) {
	opts.Gateway, opts.GatewayTiming = f.Gateway.mode, f.GatewayTiming
}

// gatewayMode is --gateway: record, replay or meter; "" when the flag is
// not given.
type gatewayMode struct{ mode string }

// Decode implements kong.MapperValue.
func (m *gatewayMode) Decode(ctx *kong.DecodeContext) error {
	s, err := popValue(ctx, "mode")
	if err != nil {
		return err
	}
	if s == "" {
		return &emptyChoiceError{flag: ctx.Value.Flag, give: valueKind(ctx.Value.Flag) + ", or leave the flag out"}
	}
	if !slices.Contains(scenario.GatewayModes, s) {
		return fmt.Errorf("%q: want record (call the providers and keep their answers in cassettes), replay (answer from the cassettes, no network, no key) or meter (call the providers and count what the agents spend)", s)
	}
	m.mode = s
	return nil
}

// IsBool makes --fail-fast a flag without a value (kong.BoolMapper).
func (f *failFast) IsBool() bool { return true }

// needValues has each flag of app that takes a value, in every command,
// say what value it needs when it is given without one (a
// missingValueError): at the end of the command line, or before a word
// that reads as a flag, as -o $OUT --junit j.xml leaves it when OUT is
// empty. kong's own error would name the flag by its long name whatever
// the user typed, and offer the next flag as the value
// (--output="--junit", a file named --junit). A word that starts with a
// minus and a digit is left to a flag of acprun's own types (a struct),
// whose Decode takes it through popValue and says what values it wants.
func needValues(app *kong.Application) {
	names := map[string]bool{} // every name of a flag of app: --output, --json, -o
	var values []*kong.Flag
	seen := map[*kong.Flag]bool{}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if seen[f] {
				continue
			}
			seen[f] = true
			names["--"+f.Name] = true
			if f.Short != 0 {
				names["-"+string(f.Short)] = true
			}
			for _, a := range f.Aliases {
				names[aliasName(a)] = true
			}
			if !f.IsBool() && !f.IsCounter() {
				values = append(values, f)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(app.Node)
	for _, f := range values {
		f.Mapper = valueNeeded{next: f.Mapper, names: names}
	}
}

// aliasName is how an alias of a flag is typed: -x for one letter, as
// kong takes it, --name otherwise.
func aliasName(a string) string {
	if utf8.RuneCountInString(a) == 1 {
		return "-" + a
	}
	return "--" + a
}

// valueNeeded is the mapper of a flag that takes a value (see
// needValues): next decodes the value, once there is one.
type valueNeeded struct {
	next  kong.Mapper
	names map[string]bool // the names of every flag of the command line
}

// Decode implements kong.Mapper.
func (m valueNeeded) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	t := afterEquals(ctx.Scan)
	if f := ctx.Value.Flag; f.Enum != "" && t.IsValue() && t.Value == "" { // kong's check would not say why
		return &emptyChoiceError{flag: f, give: valueKind(f) + ", or leave the flag out"}
	}
	if t.IsValue() || negativeNumber(t) && ctx.Value.Target.Kind() == reflect.Struct {
		return m.next.Decode(ctx, target)
	}
	e := &missingValueError{flag: ctx.Value.Flag, rest: len(ctx.Scan.PeekAll())}
	if !t.IsEOL() {
		e.next = t.String()
		name, _, _ := strings.Cut(e.next, "=")
		if !strings.HasPrefix(name, "--") { // -qj4: -q
			r, _ := utf8.DecodeRuneInString(name[1:])
			name = "-" + string(r)
		}
		e.nextIsFlag = m.names[name]
	}
	return e
}

// afterEquals peeks at the value of a short flag, which kong gives "=x"
// when written -o=x: the value is x, as --output=x's is (and -o= the
// empty value, refused as --output= is), not a file named "=x".
func afterEquals(scan *kong.Scanner) kong.Token {
	t := scan.Peek()
	if v, ok := t.Value.(string); ok && t.Type == kong.ShortFlagTailToken && strings.HasPrefix(v, "=") {
		scan.Pop()
		scan.PushTyped(v[1:], kong.FlagValueToken)
		t = scan.Peek()
	}
	return t
}

// missingValueError is the error of a flag given without its value (see
// needValues).
type missingValueError struct {
	flag *kong.Flag
	// typed is the flag as the user gave it (-o, --json or --output; the
	// last letter of -qo), set by asGiven; "" names it by its long name.
	typed string
	// rest is how many words of the command line follow the flag's.
	rest       int
	next       string // the word after the flag; "" at the end of the command line
	nextIsFlag bool   // next is the name of a flag of acprun, its value after = or not
}

func (e *missingValueError) Error() string {
	name := cmp.Or(e.typed, "--"+e.flag.Name)
	needs := name + " needs " + valueKind(e.flag)
	empty := fmt.Sprintf(` (an empty variable? quote it: %s "$VAR")`, name)
	switch {
	case e.next == "":
		return needs + ", but the command line ends after it" + empty
	case e.nextIsFlag:
		return needs + ", but the next word is the flag " + shellquote.Word(e.next) + empty
	case e.next == "--":
		return needs + ", but the next word is --, which ends the flags" + empty
	}
	long := name
	if !strings.HasPrefix(long, "--") {
		long = "--" + e.flag.Name
	}
	return fmt.Sprintf(`%s, but the next word, %s, starts with "-": if it is the value, write %s`,
		needs, shellquote.Word(e.next), shellquote.Word(long+"="+e.next))
}

// emptyChoiceError is the error of a flag that takes one of a few
// values (an enum: --format, --gateway, --fail-fast=) given an empty one,
// as --format "$FMT" gives it when the variable is unset: said as the
// other empty flags are (see emptyFlag), with the values to give.
type emptyChoiceError struct {
	flag  *kong.Flag
	typed string // the flag and its value as given; "" for --flag ""
	give  string // what to give instead
}

func (e *emptyChoiceError) Error() string {
	return fmt.Sprintf("%s: the value is empty (is the variable that gives it unset?): give %s", cmp.Or(e.typed, flagName(e.flag)+` ""`), e.give)
}

// asGiven returns err, an error of parsing a command line, with a
// missingValueError in it named as the user gave the flag, taken from the
// words of the command line (kong's Context.Args): the flag's word is the
// one before the rest that followed it. An emptyChoiceError is returned
// alone; any other error is returned as it is.
func asGiven(err error) error {
	if e, ok := errors.AsType[*emptyChoiceError](err); ok {
		return e // without kong's "--format: " before it
	}
	e, ok := errors.AsType[*missingValueError](err)
	pe, okp := errors.AsType[*kong.ParseError](err)
	if !ok || !okp || pe.Context == nil {
		return err
	}
	args := pe.Context.Args
	i := len(args) - e.rest - 1
	if i < 0 || i >= len(args) {
		return e
	}
	given := *e
	switch w := args[i]; {
	case w == "--"+e.flag.Name || slices.ContainsFunc(e.flag.Aliases, func(a string) bool { return w == aliasName(a) }):
		given.typed = w
	case e.flag.Short != 0 && strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.HasSuffix(w, string(e.flag.Short)):
		given.typed = "-" + string(e.flag.Short)
	}
	return &given
}

// valueKind says what value the flag f takes, for the error of f given
// without one: by its name (valueKinds), the values of an enum, or its
// placeholder (placeholderKinds); "a value" for none of them, which
// TestEveryValueFlagSaysWhatItNeeds refuses.
func valueKind(f *kong.Flag) string {
	if k, ok := valueKinds[f.Name]; ok {
		return k
	}
	if f.Enum != "" {
		e := f.EnumSlice()
		return "one of " + strings.Join(e[:len(e)-1], ", ") + " or " + e[len(e)-1]
	}
	return cmp.Or(placeholderKinds[f.PlaceHolder], "a value")
}

// valueKinds says what value a flag takes, by name, for flags whose
// placeholder does not say it, or says it of another flag too (MODE).
var valueKinds = map[string]string{
	"gateway": "a mode (record, replay or meter)",
	"mode":    "the id of a session mode",
	"kind":    "a tool kind (e.g. read)",
	"title":   "a title",
	"command": "a shell command",
	"path":    "a path",
}

// placeholderKinds says what value a flag takes, by placeholder.
var placeholderKinds = map[string]string{
	"FILE":        "a file name",
	"DIR":         "a directory",
	"DUR":         "a duration (e.g. 5m)",
	"N":           "a number",
	"RATE":        "a share of attempts (e.g. 0.8)",
	"I/N":         "a shard (e.g. 2/4)",
	"REGEX":       "a regular expression",
	"TAG,...":     "a tag",
	"NAME,...":    "an agent's name",
	"NAME":        "a name",
	"MODEL":       "the id of a model",
	"METHOD":      "the id of an auth method",
	"RULE":        "a rule (e.g. read or 'execute:go test *')",
	"TEXT|FILE|-": "a prompt (its text, a file, or - for stdin)",
	"REQ.json":    "a request file (or - for stdin)",
	"T.jsonl":     "a transcript file",
	"ID":          "a tool call's id",
}
