// --allow and --deny, shared by run and explain, and run's --model, --mode and --auth.

package main

import (
	"fmt"
	"slices"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/scenario"
)

// ruleFlags are --allow and --deny: rules in their short form (see
// approve.ParseFlagRule) that run adds to every scenario's rules, and
// explain to those of the scenario it explains.
type ruleFlags struct {
	Allow []string `placeholder:"RULE" sep:"none" help:"Also allow what RULE matches (repeatable), after the scenario's own rules: KIND (read, search, ...: every call of that kind), execute:COMMAND, read|edit|delete|move|search:PATH, or command:, path:, title: or tool: and a pattern alone; e.g. --allow read --allow 'execute:go test *' --allow 'edit:src/**'."`
	Deny  []string `placeholder:"RULE" sep:"none" help:"Also deny what RULE matches (repeatable; a deny beats every allow); RULE as for --allow, e.g. --deny 'path:**/.env' --deny 'command:git push *'."`
}

// settings parses the rules of the flags into the FlagSettings that add
// them to a scenario. A value that is not a rule is a usage error (exit 2)
// that names it and says what to write.
func (f ruleFlags) settings() (scenario.FlagSettings, error) {
	var fs scenario.FlagSettings
	for _, list := range []struct {
		flag   string
		values []string
		rules  *[]approve.Rule
	}{{"--allow", f.Allow, &fs.Allow}, {"--deny", f.Deny, &fs.Deny}} {
		for _, v := range list.values {
			r, err := approve.ParseFlagRule(list.flag, v)
			if err != nil {
				return fs, exitError{code: exitUsage, err: fmt.Errorf("%s: %w", shellquote.Join([]string{list.flag, v}), err)}
			}
			*list.rules = append(*list.rules, r)
		}
	}
	return fs, nil
}

// flagSettings are what run's flags set in every selected scenario: the
// rules of --allow and --deny, --model, --mode and --auth.
func (c *runCmd) flagSettings() (scenario.FlagSettings, error) {
	fs, err := c.ruleFlags.settings()
	if err != nil {
		return fs, err
	}
	fs.Model, fs.ModelPos = c.Model, flagPos("--model", c.Model)
	fs.Mode, fs.ModePos = c.Mode, flagPos("--mode", c.Mode)
	fs.Auth, fs.AuthPos = c.Auth, flagPos("--auth", c.Auth)
	return fs, nil
}

// flagPos is where value, given to flag, is said to come from: the flag
// and the value as typed (--model 'x'); none for no value.
func flagPos(flag, value string) scenario.Pos {
	if value == "" {
		return scenario.Pos{}
	}
	return scenario.Pos{File: shellquote.Join([]string{flag, value})}
}

// overrideWithRules returns p, the policy of --allow-all or --deny-all
// that replaces every scenario's, with the rules of fs added after its
// own and its source naming them as typed (--allow-all --deny
// 'path:**/.env'); nil stays nil.
func overrideWithRules(p *approve.Policy, fs scenario.FlagSettings) *approve.Policy {
	if p == nil {
		return nil
	}
	p = p.WithRules(fs.Allow, fs.Deny)
	for _, r := range slices.Concat(fs.Allow, fs.Deny) {
		p.Source += " " + r.Pos
	}
	return p
}
