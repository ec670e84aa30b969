package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// miscListEntry is one element of acprun list --json, as a user's script
// reads it.
type miscListEntry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Column      int      `json:"column"`
	Agent       string   `json:"agent"`
	Tags        []string `json:"tags"`
	Turns       int      `json:"turns"`
}

// TestListJSONSelection: list --json prints the selection (after --tag
// and per --agent) as one JSON array with every key, and [] for an empty
// selection accepted by --allow-empty.
func TestListJSONSelection(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "agents:\n  other: {command: [acprun, mock-agent, agent.mock.yaml]}\n  another: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
		"s.yaml": `name: first
description: The first one.
tags: [fast, net]
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
---
name: second
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
`,
	})
	res := acprun(t, dir, "list", "--json", "s.yaml")
	if res.code != 0 {
		t.Fatalf("list --json: exit %d\n%s", res.code, res.stderr)
	}
	var got []miscListEntry
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatalf("list --json stdout is not a JSON array: %v\n%s", err, res.stdout)
	}
	want := []miscListEntry{
		{Name: "first", Description: "The first one.", File: "s.yaml", Line: 1, Column: 1, Tags: []string{"fast", "net"}, Turns: 2},
		{Name: "second", File: "s.yaml", Line: 10, Column: 1, Agent: "mock", Tags: []string{}, Turns: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list --json (-want +got):\n%s", diff)
	}
	for _, key := range []string{`"agent": ""`, `"tags": []`, `"description": ""`} {
		if !strings.Contains(res.stdout, key) {
			t.Errorf("list --json: no %s in\n%s", key, res.stdout)
		}
	}

	res = acprun(t, dir, "list", "--json", "--tag", "fast", "--agent", "other", "--agent", "another", "s.yaml")
	got = nil
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil || res.code != 0 {
		t.Fatalf("list --json --agent: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	var agents []string
	for _, e := range got {
		agents = append(agents, e.Name+"@"+e.Agent)
	}
	if diff := cmp.Diff([]string{"first@other", "first@another"}, agents); diff != "" {
		t.Errorf("list --json --tag fast --agent other --agent another (-want +got):\n%s", diff)
	}

	res = acprun(t, dir, "list", "--json", "--run", "^none$", "--allow-empty", "s.yaml")
	if res.code != 0 || res.stdout != "[]\n" {
		t.Errorf("list --json of an empty selection: exit %d, stdout %q; want 0 and []", res.code, res.stdout)
	}
}
