package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/output"
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
	sc, err := scenario.Pick(scs, c.Scenario)
	if err != nil {
		return exitError{code: exitUsage, err: err}
	}
	req, err := c.request(g, sc.Agent.Cwd)
	if err != nil {
		return exitError{code: exitUsage, err: err}
	}
	d, traces := sc.Policy.Explain(req)
	e := output.Explanation{Scenario: sc.Name, Pos: sc.Pos.String(), Request: req, Decision: d, Rules: traces}
	if err := output.Explain(g.Stdout, e); err != nil {
		return err // as probe and agents do
	}
	if d.Verdict != approve.Allow {
		return exitError{code: exitFailed}
	}
	return nil
}

// request builds the approve.Request to explain: the recorded one of
// --request, or the one --kind, --title, --command and --path describe.
func (c *explainCmd) request(g *globals, cwd string) (approve.Request, error) {
	sketch := runner.ToolCallSketch{Kind: c.Kind, Title: c.Title, Command: c.Command, Paths: c.Path}
	if c.Request == "" {
		if sketch.Empty() {
			return approve.Request{}, errors.New("give --request FILE, or describe a request with --kind, --title, --command and --path")
		}
		return runner.SketchedPermissionRequest(sketch, cwd), nil
	}
	if !sketch.Empty() {
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
	req, err := runner.RecordedPermissionRequest(data, cwd)
	if err != nil {
		return approve.Request{}, fmt.Errorf("%s: %w", c.Request, err)
	}
	return req, nil
}
