package main

import (
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/alecthomas/kong"
)

// TestQuickRunParsesAsKong checks that every line quickRun takes gives
// what kong gives for it, defaults included.
func TestQuickRunParsesAsKong(t *testing.T) {
	lines := [][]string{
		{"run", "a.yaml"},
		{"run", "a.yaml", "b/", "c/*.yaml"},
		{"run", "one.yaml", "-q", "-o", "o.json"},
		{"run", "-q", "one.yaml", "--output", "o.json"},
		{"run", "one.yaml", "--output=o.json", "--quiet"},
		{"run", "one.yaml", "--json", "old.json"},
		{"run", "one.yaml", "--json=old.json", "-v", "--no-text"},
		{"run", "s/", "--junit", "j.xml", "--html", "r.html", "--events", "e.jsonl", "--transcripts", "tr", "--config", "c.yaml"},
		{"run", "s/", "--junit=j.xml", "--html=r.html", "--events=e.jsonl", "--transcripts=tr", "--config=c.yaml", "--verbose"},
		{"run", "s/", "-o", "o=1.json"},
		{"run", "s/", "--output=a=b.json"},
		{"run", "run", "list", "help"}, // paths named like commands
	}
	for _, args := range lines {
		quick, ok := quickRun(args)
		if !ok {
			t.Errorf("quickRun does not take %q", args)
			continue
		}
		want := parseWith(t, &runCLI{}, args)
		if want.err != "" || want.code >= 0 || want.command != "run <path>" {
			t.Fatalf("kong does not parse %q as a run: %+v", args, want)
		}
		if got := fmt.Sprintf("%s %#v", quick.Color, quick.Run); got != want.run {
			t.Errorf("quickRun(%q):\n got %s\nwant %s", args, got, want.run)
		}
	}
}

// TestQuickRunLeavesTheRestToKong checks that quickRun declines the lines
// it cannot parse as kong does for certain: help, the version, flags it
// does not know, repeated flags, values that may be flags, and errors.
func TestQuickRunLeavesTheRestToKong(t *testing.T) {
	lines := [][]string{
		{},
		{"run"},
		{"list", "a.yaml"},
		{"validate", "run"},
		{"run", "--help"},
		{"run", "a.yaml", "-h"},
		{"run", "a.yaml", "--version"},
		{"run", "-q"},                               // no path
		{"run", "a.yaml", "-o"},                     // no value
		{"run", "a.yaml", "-o", "-"},                // stdout
		{"run", "a.yaml", "-o", "-q"},               // a flag for a value
		{"run", "a.yaml", "--output="},              // an empty value
		{"run", "a.yaml", "--output=-"},             // stdout
		{"run", "a.yaml", "-o=x.json"},              // "=" after a short flag
		{"run", "a.yaml", "-q", "--quiet"},          // twice
		{"run", "a.yaml", "-o", "a", "--json", "b"}, // twice, by two names
		{"run", "a.yaml", "--quiet=true"},           // a value for a flag without one
		{"run", "a.yaml", "-qv"},                    // short flags together
		{"run", "a.yaml", "--"},                     // the end of the flags
		{"run", "a.yaml", "-"},                      // stdin?
		{"run", "a.yaml", ""},                       // an empty path
		{"run", "a.yaml", "--nope"},
		{"run", "a.yaml", "--format", "dots"}, // an enum
		{"run", "a.yaml", "--color", "never"},
		{"run", "a.yaml", "-j", "2"},
		{"run", "a.yaml", "--fail-fast"},
		{"run", "a.yaml", "--allow-all"},
		{"run", "a.yaml", "--tag", "x"},
		{"run", "a.yaml", "--turn-timeout", "1m"},
		{"run", "a.yaml", "--run", "x"},
	}
	for _, args := range lines {
		if _, ok := quickRun(args); ok {
			t.Errorf("quickRun takes %q, which is kong's", args)
		}
	}
}

// TestQuickRunKnowsEveryNameOfItsFlags checks quickFlags against kong's
// model of run: each name is a name of the flag of the field it sets, and
// every name of such a flag is in quickFlags.
func TestQuickRunKnowsEveryNameOfItsFlags(t *testing.T) {
	root := &runCLI{}
	parser, err := newParser(t.Context(), root, &globals{Stdout: io.Discard, Stderr: io.Discard}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	var run *kong.Node
	for _, node := range parser.Model.Children {
		if node.Name == "run" {
			run = node
		}
	}
	if run == nil {
		t.Fatal("no run command in the model")
	}
	kongNames := map[string]any{} // name → the field its flag sets
	for _, f := range run.Flags {
		names := []string{"--" + f.Name}
		if f.Short != 0 {
			names = append(names, "-"+string(f.Short))
		}
		for _, a := range f.Aliases {
			names = append(names, "--"+a)
		}
		target := f.Target.Addr().Interface()
		known := 0
		for _, name := range names {
			kongNames[name] = target
			if quickFlag(&root.Run, name) != nil {
				known++
			}
		}
		if known != 0 && known != len(names) {
			t.Errorf("quickFlags holds %d of the names %q of --%s", known, names, f.Name)
		}
		// What kong would do with a value beyond setting it, quickRun does not.
		if tag := f.Tag; known > 0 && (tag.Type != "" || len(tag.Envs) > 0 || tag.Enum != "" || len(tag.Xor) > 0 ||
			len(tag.And) > 0 || tag.Negatable != "" || tag.Required || tag.HasDefault && f.Target.Kind() != reflect.String) {
			t.Errorf("--%s has a type, env, enum, xor, and, negatable, required or non-string default tag: quickRun cannot parse it as kong does", f.Name)
		}
	}
	for name := range quickFlags {
		target, ok := kongNames[name]
		switch {
		case !ok:
			t.Errorf("quickFlags holds %s, which is no flag of run", name)
		case quickFlag(&root.Run, name) != target:
			t.Errorf("quickFlags sets another field for %s than kong", name)
		}
	}
}
