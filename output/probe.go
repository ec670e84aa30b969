package output

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/runner"
)

// ProbeJSON writes what runner.Probe found out as indented JSON.
func ProbeJSON(w io.Writer, rep runner.ProbeReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// ProbeStderr writes the last 20 lines of the agent's stderr kept in rep,
// if any, under a heading: what explains a failed probe. Each line is
// quoted and escaped as run's excerpts of it are.
func ProbeStderr(w io.Writer, rep runner.ProbeReport) error {
	if rep.StderrTail == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "agent stderr (last lines):\n%s\n", strings.Join(quote(lastLines(rep.StderrTail, 20)), "\n"))
	return err
}

// Probe writes what runner.Probe found out for people: one aligned line
// per thing the agent offers, as far as the probe got.
func Probe(w io.Writer, rep runner.ProbeReport) error {
	return writeTable(w, probeRows(&rep))
}

// probeRows lays the report out in rows of two columns, split at the
// formats' tabs. Every string the agent sent (or a file gave) is printed
// with its control characters escaped (termtext.Printable: tabs as spaces,
// for the columns).
func probeRows(rep *runner.ProbeReport) [][]string {
	var rows [][]string
	line := func(format string, args ...any) {
		for i, a := range args {
			if s, ok := a.(string); ok {
				args[i] = termtext.Printable(s)
			}
		}
		rows = append(rows, strings.Split(fmt.Sprintf(format, args...), "\t"))
	}
	if rep.Agent != "" {
		line("named agent:\t%s", rep.Agent)
	}
	line("command:\t%s", shellquote.Join(rep.Command))
	line("cwd:\t%s", rep.Cwd)
	writeOffers(line, rep)
	for _, warn := range rep.Warnings {
		line("warning:\t%s", warn)
	}
	return rows
}

// writeOffers writes with line what the agent offered, as far as the
// probe got.
func writeOffers(line func(format string, args ...any), rep *runner.ProbeReport) {
	if rep.Capabilities == nil { // initialize never answered
		return
	}
	line("protocol version:\t%d", rep.ProtocolVersion)
	if i := rep.AgentInfo; i != nil {
		info := i.Name + " " + i.Version
		if i.Title != "" {
			info += fmt.Sprintf(" (%s)", i.Title)
		}
		line("agent info:\t%s", info)
	} else {
		line("agent info:\tnone")
	}
	caps := rep.Capabilities
	line("capabilities:\t")
	line("  loadSession\t%s", yesNo(caps.LoadSession))
	pc := caps.PromptCapabilities
	line("  prompt\t%s", capList("text, resource_link", capFlag{pc.Image, "image"}, capFlag{pc.Audio, "audio"},
		capFlag{pc.EmbeddedContext, "embeddedContext"}))
	line("  mcp\t%s", capList("stdio", capFlag{caps.McpCapabilities.HTTP, "http"}, capFlag{caps.McpCapabilities.SSE, "sse"}))
	s := caps.SessionCapabilities
	line("  session\t%s", capList("", capFlag{s.List != nil, "list"}, capFlag{s.Delete != nil, "delete"},
		capFlag{s.AdditionalDirectories != nil, "additionalDirectories"}, capFlag{s.Resume != nil, "resume"},
		capFlag{s.Close != nil, "close"}))
	line("  auth\t%s", capList("", capFlag{caps.Auth.Logout != nil, "logout"}))
	if len(rep.AuthMethods) == 0 {
		line("auth methods:\tnone")
	} else {
		line("auth methods:\t")
		for _, m := range rep.AuthMethods {
			kind := cmp.Or(m.Type, acp.AuthTypeAgent)
			line("  %s\t%s [%s]%s", m.ID, m.Name, kind, descSuffix(m.Description))
		}
	}
	if rep.Authenticated != "" {
		line("authenticated:\t%s", rep.Authenticated)
	}
	if rep.SessionID == "" {
		return
	}
	line("session:\t%s", rep.SessionID)
	if m := rep.Modes; m == nil || len(m.AvailableModes) == 0 {
		line("modes:\tnone")
	} else {
		line("modes:\tcurrent %s", m.CurrentModeID)
		for _, md := range m.AvailableModes {
			line("  %s\t%s%s", md.ID, md.Name, descSuffix(md.Description))
		}
	}
	if len(rep.ConfigOptions) == 0 {
		line("config options:\tnone")
	} else {
		line("config options:\tset with agent.config: {ID: VALUE} (agent.model: the option of category model)")
		for _, o := range rep.ConfigOptions {
			var values []string
			for _, v := range o.Options.All() {
				values = append(values, v.Value)
			}
			choices := ""
			if len(values) > 0 {
				choices = " of " + strings.Join(values, ", ")
			}
			kind := o.Type
			if o.Category != "" {
				kind += ", category " + o.Category
			}
			line("  %s\t%s (%s) = %v%s%s", o.ID, o.Name, kind, o.CurrentValue, choices, descSuffix(o.Description))
		}
	}
	if m := rep.Models; m != nil && len(m.AvailableModels) > 0 {
		line("models (legacy):\tcurrent %s; set with agent.model", m.CurrentModelID)
		for _, md := range m.AvailableModels {
			line("  %s\t%s%s", md.ModelID, md.Name, descSuffix(md.Description))
		}
	}
	if len(rep.Commands) == 0 {
		line("commands:\tnone")
	} else {
		line("commands:\t")
		for _, cmd := range rep.Commands {
			hint := ""
			if cmd.Input != nil && cmd.Input.Hint != "" {
				hint = " <" + cmd.Input.Hint + ">"
			}
			line("  /%s%s\t%s", cmd.Name, hint, collapseSpace(cmd.Description))
		}
	}
	if len(rep.Updates) > 0 {
		var kinds []string
		for _, k := range slices.Sorted(maps.Keys(rep.Updates)) {
			kinds = append(kinds, fmt.Sprintf("%s ×%d", k, rep.Updates[k]))
		}
		line("other updates:\t%s", strings.Join(kinds, ", "))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// capFlag is one optional capability: its name and whether it is offered.
type capFlag struct {
	on   bool
	name string
}

// capList lists base and the names of the capabilities offered; "none"
// when that is nothing.
func capList(base string, caps ...capFlag) string {
	var out []string
	if base != "" {
		out = append(out, base)
	}
	for _, c := range caps {
		if c.on {
			out = append(out, c.name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// descSuffix returns " — s" for a non-empty s, on one line.
func descSuffix(s string) string {
	if s = collapseSpace(s); s == "" {
		return ""
	}
	return " — " + s
}

// collapseSpace puts s on one line: every run of white space, line breaks
// included, becomes one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
