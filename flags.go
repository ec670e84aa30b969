package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/acprun/acprun/internal/gateway"
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
	t := ctx.Scan.Peek()
	if v, ok := t.Value.(string); ok && t.Type == kong.UntypedToken && len(v) > 1 && v[0] == '-' && strings.ContainsRune("0123456789.", rune(v[1])) {
		ctx.Scan.Pop()
		return v, nil
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
// --max-failures. 0 is the flag left out: given 0 (or less), which would
// read as left out and so do what the user did not ask for (a whole suite
// in every pod of a sharded Job, no stop at all), it is refused.
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

// failFast is --fail-fast: off, finish (the flag alone) or cancel
// (--fail-fast=cancel). It is a boolean flag that takes an optional value
// after "=", as --fail-fast=finish|cancel.
type failFast struct{ mode string }

// The values --fail-fast takes.
const (
	failFastFinish = "finish" // running scenarios finish
	failFastCancel = "cancel" // running scenarios are cancelled
)

// Decode implements kong.MapperValue.
func (f *failFast) Decode(ctx *kong.DecodeContext) error {
	f.mode = failFastFinish
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		return nil
	}
	var s string
	if err := ctx.Scan.PopValueInto("mode", &s); err != nil {
		return err
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
	var s string
	if err := ctx.Scan.PopValueInto("mode", &s); err != nil {
		return err
	}
	if !slices.Contains(scenario.GatewayModes, s) {
		return fmt.Errorf("%q: want record (call the providers and keep their answers in cassettes), replay (answer from the cassettes, no network, no key) or meter (call the providers and count what the agents spend)", s)
	}
	m.mode = s
	return nil
}

// IsBool makes --fail-fast a flag without a value (kong.BoolMapper).
func (f *failFast) IsBool() bool { return true }
