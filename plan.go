package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// printPlan prints what a run would do, with every default resolved.
func printPlan(w io.Writer, scs []*scenario.Scenario, c *runCmd) error {
	for i, sc := range scs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  (%s:%d)\n", sc.Name, sc.File, sc.Pos.Line)
		name := ""
		if sc.Agent.Name != "" {
			name = " [" + sc.Agent.Name + "]"
		}
		fmt.Fprintf(w, "  agent:    %s%s\n", strings.Join(sc.Agent.Command, " "), name)
		fmt.Fprintf(w, "  cwd:      %s\n", sc.Agent.Cwd)
		if ws := sc.Workspace; ws != nil {
			if ws.Git != "" {
				fmt.Fprintf(w, "  workspace: git %s at %s (a fresh checkout per attempt; cwd and roots are mapped into it)\n", ws.Git, orHead(ws.Ref))
			} else {
				fmt.Fprintf(w, "  workspace: copy of %s per attempt (cwd and roots are mapped into it)\n", ws.From)
			}
		}
		for _, l := range []struct {
			what string
			cmds []scenario.Command
		}{{"setup", sc.Setup}, {"verify", sc.Verify}, {"teardown", sc.Teardown}} {
			for _, cmd := range l.cmds {
				fmt.Fprintf(w, "  %-9s %s (timeout %s)\n", l.what+":", cmd.Run, cmd.Limit())
			}
		}
		if sc.Agent.Auth != "" || sc.Agent.Mode != "" {
			fmt.Fprintf(w, "  auth:     %s  mode: %s\n", orDash(sc.Agent.Auth), orDash(sc.Agent.Mode))
		}
		if len(sc.Agent.Env) > 0 {
			keys := make([]string, 0, len(sc.Agent.Env))
			for k := range sc.Agent.Env {
				keys = append(keys, k)
			}
			fmt.Fprintf(w, "  env:      %s (values hidden)\n", strings.Join(sortedStrings(keys), ", "))
		}
		lim := runner.Resolve(sc, c.overrides())
		fmt.Fprintf(w, "  timeouts: scenario %s, turn %s, idle %s, cancelGrace %s, killGrace %s\n",
			orNone(lim.Scenario), lim.Turn, orNone(lim.Idle), lim.CancelGrace, lim.KillGrace)
		fmt.Fprintf(w, "  client:   fs=%t terminal=%t readOnly=%t roots=%s\n", sc.Client.FS, sc.Client.Terminal, sc.Client.ReadOnly, strings.Join(sc.Client.Roots, ","))
		switch {
		case c.AllowAll:
			fmt.Fprintf(w, "  rules:    --allow-all (every request allowed)\n")
		case c.DenyAll:
			fmt.Fprintf(w, "  rules:    --deny-all (every request denied)\n")
		case sc.Policy == nil:
			fmt.Fprintf(w, "  rules:    none (every request denied)\n")
		default:
			def := sc.Policy.Default
			if def == "" {
				def = "deny"
			}
			fmt.Fprintf(w, "  rules:    default %s, %d allow, %d deny\n", def, len(sc.Policy.Allow), len(sc.Policy.Deny))
			for _, r := range sc.Policy.Deny {
				fmt.Fprintf(w, "    deny  %s %s\n", r.Pos, describeRule(r))
			}
			for _, r := range sc.Policy.Allow {
				fmt.Fprintf(w, "    allow %s %s\n", r.Pos, describeRule(r))
			}
		}
		for j, t := range sc.Turns {
			fmt.Fprintf(w, "  turn %d:   %q (timeout %s, expect %s)\n", j+1, truncate(t.PromptText(), 60), lim.Turns[j], strings.Join(t.Expect.StopReasons, "|"))
		}
	}
	return nil
}

func orHead(ref string) string {
	if ref == "" {
		return "HEAD"
	}
	return ref
}

// overrides are the limits the flags impose on every scenario: the same
// for the run and for --dry-run's plan.
func (c *runCmd) overrides() runner.Overrides {
	return runner.Overrides{TurnTimeout: c.TurnTimeout.d, IdleTimeout: c.IdleTimeout.d}
}

func orNone(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}

func describeRule(r approve.Rule) string {
	var parts []string
	add := func(k string, v []string) {
		if len(v) > 0 {
			parts = append(parts, k+"="+strings.Join(v, "|"))
		}
	}
	add("kind", r.Kind)
	add("title", r.Title)
	add("command", r.Command)
	add("path", r.Path)
	for _, k := range slices.Sorted(maps.Keys(r.Input)) {
		parts = append(parts, "input."+k+"=~"+r.Input[k])
	}
	if r.Always {
		parts = append(parts, "always")
	}
	return strings.Join(parts, " ")
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func sortedStrings(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}
