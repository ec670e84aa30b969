package main

import (
	"testing"
)

// TestSelfAgentProblem: an agent's command of acprun's own is parsed by
// acprun's command line; one it refuses, or one that is not an agent, is
// a problem at the word it is about, and any other command is none.
func TestSelfAgentProblem(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		word int
		msg  string
	}{
		{"mock agent", []string{"acprun", "mock-agent", "s.mock.yaml"}, 0, ""},
		{"replay", []string{"acprun", "replay", "--timing", "t.jsonl"}, 0, ""},
		{"another program", []string{"node", "agent.js", "a", "b"}, 0, ""},
		{"acprun by its path", []string{"/opt/acprun", "mock-agent"}, 0, ""},
		{"mock agent without its script", []string{"acprun", "mock-agent"}, 1,
			`acprun mock-agent: expected "<script>": the agent would exit before answering initialize; write acprun mock-agent <script>`},
		{"mock agent with two scripts", []string{"acprun", "mock-agent", "s.mock.yaml", "s.mock.yaml"}, 3,
			`acprun mock-agent: unexpected argument s.mock.yaml: the agent would exit before answering initialize; write acprun mock-agent <script>`},
		{"replay without its transcript", []string{"acprun", "replay"}, 1,
			`acprun replay: expected "<transcript>": the agent would exit before answering initialize; write acprun replay [flags] <transcript>`},
		{"replay with a flag alone", []string{"acprun", "replay", "--timing"}, 2,
			`acprun replay: expected "<transcript>": the agent would exit before answering initialize; write acprun replay [flags] <transcript>`},
		{"unknown flag", []string{"acprun", "replay", "--fast", "t.jsonl"}, 2,
			`acprun replay: unknown flag --fast: the agent would exit before answering initialize; write acprun replay [flags] <transcript>`},
		{"script named like a flag", []string{"acprun", "mock-agent", "-x.mock.yaml"}, 2,
			`acprun mock-agent: -x.mock.yaml is not a flag of acprun mock-agent: the agent would exit before answering initialize; a <script> whose name starts with - follows --: write acprun mock-agent -- -x.mock.yaml`},
		{"transcript named like a flag", []string{"acprun", "replay", "--timing", "--t.jsonl"}, 3,
			`acprun replay: --t.jsonl is not a flag of acprun replay: the agent would exit before answering initialize; a <transcript> whose name starts with - follows --: write acprun replay --timing -- --t.jsonl`},
		{"misspelt command", []string{"acprun", "mock-agnt", "s.mock.yaml"}, 1,
			`acprun: unexpected argument mock-agnt, did you mean "mock-agent"? (acprun's agents are acprun mock-agent SCRIPT and acprun replay TRANSCRIPT)`},
		{"no command", []string{"acprun"}, 0,
			`acprun: expected one of "run", "list", "validate", "schema", "explain", ... (acprun's agents are acprun mock-agent SCRIPT and acprun replay TRANSCRIPT)`},
		{"not an agent", []string{"acprun", "list", "s.yaml"}, 1,
			`acprun list is not an agent: acprun's agents are acprun mock-agent SCRIPT and acprun replay TRANSCRIPT`},
		{"empty script", []string{"acprun", "mock-agent", ""}, 2,
			`acprun mock-agent: <script> "": the argument is empty (is the variable that gives it unset?): give a path; the agent would exit before answering initialize`},
		{"empty transcript after --", []string{"acprun", "replay", "--timing", "--", ""}, 4,
			`acprun replay: <transcript> "": the argument is empty (is the variable that gives it unset?): give a path; the agent would exit before answering initialize`},
		{"help", []string{"acprun", "mock-agent", "--help"}, 2,
			`acprun mock-agent prints its help or version and exits: it is not an agent; acprun's agents are acprun mock-agent SCRIPT and acprun replay TRANSCRIPT`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			word, msg := selfAgentProblem(tt.argv)
			if word != tt.word || msg != tt.msg {
				t.Errorf("selfAgentProblem(%q) = %d, %q; want %d, %q", tt.argv, word, msg, tt.word, tt.msg)
			}
		})
	}
}
