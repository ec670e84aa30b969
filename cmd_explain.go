package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// explainCmd is `acprun explain SCENARIO`.
type explainCmd struct {
	File     string   `arg:"" name:"scenario-file" help:"Scenario file whose permission rules to apply."`
	Scenario string   `placeholder:"NAME" help:"Which scenario of the file (default: the only one)."`
	Request  string   `placeholder:"REQ.json" help:"A recorded session/request_permission params object (or the whole JSON-RPC message); - reads stdin."`
	Kind     string   `help:"Tool kind of a made-up request (read, edit, execute, ...)."`
	Title    string   `help:"Title of a made-up request."`
	Command  string   `help:"Shell command of a made-up request (sent as rawInput.command)."`
	Path     []string `help:"Path the made-up request touches (repeatable)."`
	Config   string   `placeholder:"FILE" help:"Config file with defaults and named agents (default: acprun.yaml in the working directory, if any)."`
}

// Help is the long help of explain.
func (c *explainCmd) Help() string {
	return `Shows how a scenario's permission rules answer one request: the decision, the
option acprun would select, and every rule with why it matched or missed.

Give a recorded request (from a transcript: the params of a
session/request_permission) with --request, or make one up with --kind,
--title, --command and --path. A made-up request is offered the four standard
options (allow_once, allow_always, reject_once, reject_always).

The scenario is loaded as run loads it, with the config file's defaults
(permissions, named agents): acprun.yaml in the working directory, or
--config.

Exit 0 when the request is allowed, 1 when it is denied, 2 on bad input.`
}

// Run explains the decision.
func (c *explainCmd) Run(g *globals) error {
	// Load as run does, so the policy explained is the one run applies.
	scs, _, err := (&selection{Config: c.Config}).load(g, []string{c.File})
	if err != nil {
		return err
	}
	sc, err := pickScenario(scs, c.Scenario)
	if err != nil {
		return exitError{code: exitUsage, err: err}
	}
	req, err := c.request(g, sc.Agent.Cwd)
	if err != nil {
		return exitError{code: exitUsage, err: err}
	}
	d, traces := sc.Policy.Explain(req)
	w := g.Stdout
	fmt.Fprintf(w, "scenario: %s (%s)\n", sc.Name, sc.Pos)
	fmt.Fprintf(w, "request:  kind=%s title=%q\n", orDash(req.Kind), req.Title)
	if len(d.Commands) > 0 {
		fmt.Fprintf(w, "commands: %s\n", quoteAll(d.Commands))
	}
	if len(d.Paths) > 0 {
		fmt.Fprintf(w, "paths:    %s\n", strings.Join(d.Paths, ", "))
	}
	fmt.Fprintf(w, "\ndecision: %s", strings.ToUpper(string(d.Verdict)))
	if d.Rule != "" {
		fmt.Fprintf(w, " by %s rule %s", d.RuleList, d.Rule)
	} else if d.RuleList == approve.ListDefault {
		fmt.Fprintf(w, " by the default")
	}
	fmt.Fprintln(w)
	switch {
	case d.Cancelled:
		fmt.Fprintf(w, "answer:   cancelled (no option of the needed kind)\n")
	case d.OptionID != "":
		fmt.Fprintf(w, "answer:   select option %q (%s)\n", d.OptionID, d.OptionKind)
	}
	if d.Reason != "" {
		fmt.Fprintf(w, "why:      %s\n", d.Reason)
	}
	if len(traces) > 0 {
		fmt.Fprintf(w, "\nrules:\n")
	}
	for _, tr := range traces {
		mark := "miss "
		if tr.Matched {
			mark = "MATCH"
		}
		fmt.Fprintf(w, "  %s %s %s\n", mark, tr.List, tr.Rule)
		for _, why := range tr.Why {
			fmt.Fprintf(w, "        %s\n", why)
		}
	}
	if d.Verdict != approve.Allow {
		return exitError{code: exitFailed}
	}
	return nil
}

// request builds the approve.Request to explain.
func (c *explainCmd) request(g *globals, cwd string) (approve.Request, error) {
	if c.Request != "" {
		if c.Kind != "" || c.Title != "" || c.Command != "" || len(c.Path) > 0 {
			return approve.Request{}, errors.New("give either --request or --kind/--title/--command/--path, not both")
		}
		var data []byte
		var err error
		if c.Request == "-" {
			data, err = readAll(g.Stdin)
		} else {
			data, err = os.ReadFile(c.Request)
		}
		if err != nil {
			return approve.Request{}, fmt.Errorf("read request: %w", err)
		}
		var msg struct {
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(data, &msg) == nil && len(msg.Params) > 0 {
			data = msg.Params
		}
		var p acp.RequestPermissionRequest
		if err := json.Unmarshal(data, &p); err != nil {
			return approve.Request{}, fmt.Errorf("%s: not a session/request_permission params object: %w", c.Request, err)
		}
		if p.ToolCall.ToolCallID == "" && p.ToolCall.Title == nil && len(p.ToolCall.RawInput) == 0 {
			return approve.Request{}, fmt.Errorf("%s: no toolCall in the request", c.Request)
		}
		return runner.PermissionRequest(p.ToolCall.ToolCall(), p.Options, cwd), nil
	}
	if c.Kind == "" && c.Title == "" && c.Command == "" && len(c.Path) == 0 {
		return approve.Request{}, errors.New("give --request FILE, or describe a request with --kind, --title, --command and --path")
	}
	call := acp.ToolCall{ToolCallID: "explain", Title: c.Title, Kind: acp.ToolKind(c.Kind)}
	if c.Command != "" {
		raw, _ := json.Marshal(map[string]string{"command": c.Command})
		call.RawInput = raw
		if call.Title == "" {
			call.Title = c.Command
		}
	}
	for _, p := range c.Path {
		call.Locations = append(call.Locations, acp.ToolCallLocation{Path: p})
	}
	options := []acp.PermissionOption{
		{OptionID: "allow_once", Name: "Allow", Kind: acp.AllowOnce},
		{OptionID: "allow_always", Name: "Always Allow", Kind: acp.AllowAlways},
		{OptionID: "reject_once", Name: "Reject", Kind: acp.RejectOnce},
		{OptionID: "reject_always", Name: "Always Reject", Kind: acp.RejectAlways},
	}
	return runner.PermissionRequest(call, options, cwd), nil
}

// pickScenario returns the scenario named name, or the only one.
func pickScenario(scs []*scenario.Scenario, name string) (*scenario.Scenario, error) {
	var names []string
	for _, sc := range scs {
		if name != "" && sc.Name == name {
			return sc, nil
		}
		names = append(names, sc.Name)
	}
	if name == "" && len(scs) == 1 {
		return scs[0], nil
	}
	if name == "" {
		return nil, fmt.Errorf("the file holds %d scenarios; choose one with --scenario (%s)", len(scs), strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("no scenario %q (the file has: %s)", name, strings.Join(names, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
