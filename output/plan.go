package output

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// Plan writes what a run would do (runner.DryRun) for people: per
// scenario its agent, cwd, workspace, commands, limits, budget, client,
// sandbox, gateway, rules and turns (with their budgets), with a blank
// line between scenarios. Env values are never shown; argvs are shown
// shell-quoted, and the control characters of commands and rule patterns
// escaped.
func Plan(w io.Writer, plans []runner.ScenarioPlan) error {
	ew := &errWriter{w: w}
	for i, p := range plans {
		if i > 0 {
			ew.printf("\n")
		}
		writePlan(ew, &p)
	}
	return ew.err
}

// errWriter keeps the first write error, so that a plan is written with
// plain printf calls.
type errWriter struct {
	w   io.Writer
	err error
}

// printf writes as fmt.Fprintf does, unless a write has failed before.
func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// writePlan writes the plan of one scenario.
func writePlan(w *errWriter, p *runner.ScenarioPlan) {
	w.printf("%s  (%s)\n", p.Ref.Name, place(p.Ref.File, p.Ref.Line))
	name := ""
	if p.Ref.Agent != "" {
		name = " [" + termtext.Printable(p.Ref.Agent) + "]"
	}
	w.printf("  agent:    %s%s\n", argvLine(p.Command), name)
	w.printf("  cwd:      %s\n", termtext.Printable(p.Cwd))
	if p.Reuse {
		w.printf("  reuse:    the agent process may serve other scenarios started the same way (if it offers session/close)\n")
	} else if p.NoReuse != "" {
		w.printf("  reuse:    no: %s\n", p.NoReuse)
	}
	if ws := p.Workspace; ws != nil {
		if ws.Git != "" {
			w.printf("  workspace: git %s at %s (a fresh checkout per attempt; cwd and roots are mapped into it)\n", termtext.Printable(ws.Git), termtext.Printable(ws.Ref))
		} else {
			w.printf("  workspace: copy of %s per attempt (cwd and roots are mapped into it)\n", termtext.Printable(ws.From))
		}
		if len(ws.Protect) > 0 {
			w.printf("  protect:  %s (an agent that changes them makes the attempt invalid)\n", printableJoin(ws.Protect, ", "))
		}
	}
	for _, c := range p.Commands {
		where := ""
		if c.Sandboxed {
			where = ", in the sandbox"
		}
		w.printf("  %-9s %s (timeout %s%s)\n", c.Stage+":", termtext.Printable(c.Run), c.Timeout, where)
	}
	if p.Retries > 0 {
		w.printf("  retries:  %d (an attempt that errors or is invalid runs again, in a fresh workspace)\n", p.Retries)
	}
	if p.Auth != "" || p.Mode != "" {
		w.printf("  auth:     %s  mode: %s\n", termtext.Printable(cmp.Or(p.Auth, "-")), termtext.Printable(cmp.Or(p.Mode, "-")))
	}
	if p.Model != "" || len(p.Config) > 0 {
		var parts []string
		if p.Model != "" {
			parts = append(parts, "model "+p.Model)
		}
		for _, c := range p.Config {
			parts = append(parts, c.ID+"="+c.Value)
		}
		w.printf("  session:  %s (checked against what the agent offers when the session opens)\n", printableJoin(parts, ", "))
	}
	if len(p.McpServers) > 0 {
		var names []string
		for _, m := range p.McpServers {
			names = append(names, fmt.Sprintf("%s (%s)", m.Name, m.Type))
		}
		w.printf("  mcp:      %s\n", printableJoin(names, ", "))
	}
	if len(p.EnvNames) > 0 {
		w.printf("  env:      %s (values hidden)\n", printableJoin(p.EnvNames, ", "))
	}
	lim := p.Limits
	w.printf("  timeouts: scenario %s, turn %s, idle %s, cancelGrace %s, killGrace %s\n",
		orNone(lim.Scenario), lim.Turn, orNone(lim.Idle), lim.CancelGrace, lim.KillGrace)
	if b := budget(p.Budget, p.Currency); b != "" {
		w.printf("  budget:   %s (for the whole scenario; the turn that passes it is cancelled)\n", b)
	}
	w.printf("  client:   fs=%t terminal=%t readOnly=%t roots=%s\n", p.FS, p.Terminal, p.ReadOnly, printableJoin(p.Roots, ","))
	if sb := p.Sandbox; sb != nil {
		network := "network off"
		if sb.Network {
			network = "network on"
			if len(sb.Ports) > 0 {
				network += ", ports " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(sb.Ports)), ","), "[]")
			}
		}
		w.printf("  sandbox:  level %s, %s (whether this host can enforce it is checked when the scenario starts)\n", sb.Level, network)
		w.printf("    write %s\n", printableJoin(sb.Write, ", "))
		hide := slices.Clone(sb.Hide)
		for _, h := range sb.HideMissing {
			hide = append(hide, h+" (does not exist: nothing is hidden there)")
		}
		w.printf("    hide  %s\n", cmp.Or(printableJoin(hide, ", "), "none"))
	}
	writeGateway(w, p.Gateway)
	writeRules(w, p.Policy)
	if s := p.Session; s != nil {
		w.printf("  session:  continues the session recorded in %s under %q (session/load or session/resume, else a new one)\n", termtext.Printable(s.StateFile), s.Key)
	}
	for j, t := range p.Turns {
		b := budget(t.Budget, p.Currency)
		if b != "" {
			b = ", budget " + b
		}
		w.printf("  turn %d:   %q (timeout %s, expect %s%s)\n", j+1, termtext.Cut(t.Prompt, 60), t.Timeout, strings.Join(t.StopReasons, "|"), b)
	}
	for _, j := range p.Judges {
		when := "after the last turn"
		if j.Turn > 0 {
			when = fmt.Sprintf("after turn %d", j.Turn)
		}
		where := ""
		if j.Sandboxed {
			where = "; in the sandbox, the workspace read-only"
		}
		w.printf("  judge:    %s (%s, timeout %s%s)\n", argvLine(j.Command), when, j.Timeout, where)
	}
}

// writeRules writes the rules line of a plan, and one line per rule: deny
// rules first, as they are checked first.
func writeRules(w *errWriter, pol *approve.Policy) {
	switch {
	case pol == nil:
		w.printf("  rules:    none (every request denied)\n")
	case pol.Source != "": // --allow-all, --deny-all
		every := "denied"
		if pol.Default == approve.Allow {
			every = "allowed"
		}
		w.printf("  rules:    %s (every request %s)\n", pol.Source, every)
	default:
		def := cmp.Or(pol.Default, approve.Deny)
		w.printf("  rules:    default %s, %d allow, %d deny\n", def, len(pol.Allow), len(pol.Deny))
		for _, r := range pol.Deny {
			w.printf("    deny  %s %s\n", r.Pos, describeRule(r))
		}
		for _, r := range pol.Allow {
			w.printf("    allow %s %s\n", r.Pos, describeRule(r))
		}
	}
}

// describeRule writes a rule's matchers on one line: kind=…, tool=…,
// title=…, command=…, path=… (values joined by |), input.FIELD=~REGEX in
// field order, and "always"; a value with a control character is quoted
// (literal).
func describeRule(r approve.Rule) string {
	var parts []string
	add := func(k string, v []string) {
		if len(v) > 0 {
			q := make([]string, len(v))
			for i, s := range v {
				q[i] = literal(s)
			}
			parts = append(parts, k+"="+strings.Join(q, "|"))
		}
	}
	add("kind", r.Kind)
	add("tool", r.Tool)
	add("title", r.Title)
	add("command", r.Command)
	add("path", r.Path)
	for _, k := range slices.Sorted(maps.Keys(r.Input)) {
		parts = append(parts, "input."+literal(k)+"=~"+literal(r.Input[k]))
	}
	if r.Always {
		parts = append(parts, "always")
	}
	return strings.Join(parts, " ")
}

// writeGateway writes the gateway line of a plan, and one line per
// target: the variable pointed at the gateway, the upstream it forwards
// to and the API-key variable; nothing for no gateway.
func writeGateway(w *errWriter, g *scenario.Gateway) {
	if g == nil {
		return
	}
	if len(g.Targets) == 0 {
		w.printf("  gateway:  %s, not needed: the agent has no base-URL variable (give gateway.env)\n", g.Mode)
		return
	}
	var what string
	switch g.Mode {
	case "record":
		what = "forwards each model request to its upstream and keeps the exchange, redacted, in a cassette under " + g.Dir
	case "replay":
		pace := "at once"
		if g.Timing {
			pace = "at the recorded pace"
		}
		what = "answers from the cassettes under " + g.Dir + " with no network and a dummy key, " + pace
	default:
		what = "forwards each model request to its upstream and counts what the agent spends"
	}
	if n := len(g.Prices); n == 1 {
		what += "; prices for 1 model, in " + g.Currency
	} else if n > 1 {
		what += fmt.Sprintf("; prices for %d models, in %s", n, g.Currency)
	}
	w.printf("  gateway:  %s: %s\n", g.Mode, what)
	for _, t := range g.Targets {
		key := ""
		if t.KeyEnv != "" {
			key = " (key " + t.KeyEnv + ")"
		}
		if t.Upstream == "" { // replay
			w.printf("    %s%s\n", t.Name(), key)
			continue
		}
		w.printf("    %s → %s%s\n", t.Name(), redact.URL(t.Upstream), key)
	}
}

// budget writes a budget as "maxCost 2.5 USD, maxTotalTokens 200000,
// maxRequests 3", its maxCost in currency; "" for none.
func budget(b *scenario.UsageExpect, currency string) string {
	if b == nil {
		return ""
	}
	var parts []string
	if b.MaxCost != nil {
		maxCost := "maxCost " + strconv.FormatFloat(*b.MaxCost, 'f', -1, 64)
		if currency != "" {
			maxCost += " " + currency
		}
		parts = append(parts, maxCost)
	}
	if b.MaxTotalTokens != nil {
		parts = append(parts, "maxTotalTokens "+strconv.FormatInt(*b.MaxTotalTokens, 10))
	}
	if b.MaxRequests != nil {
		parts = append(parts, "maxRequests "+strconv.FormatInt(*b.MaxRequests, 10))
	}
	return strings.Join(parts, ", ")
}

// argvLine writes an argv as a shell line (each word quoted as it needs),
// its control characters escaped (termtext.Printable).
func argvLine(argv []string) string { return termtext.Printable(shellquote.Join(argv)) }

// printableJoin joins values from a file with sep, each with its control
// characters escaped (termtext.Printable), so that none starts a line of
// its own or moves the terminal's cursor.
func printableJoin(values []string, sep string) string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = termtext.Printable(v)
	}
	return strings.Join(out, sep)
}

// literal writes s as it is, or as a Go string literal when it holds a
// character termtext escapes (a tab, a line break, an escape, a bidi
// control) or bytes that are not UTF-8, so that it shows as one value on
// one line, as it is.
func literal(s string) string {
	if strings.ContainsFunc(s, termtext.Unprintable) || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return s
}

// orNone writes a zero duration as "none".
func orNone(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}
