package main

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestRunCLIParsesAsCLI checks that `acprun run …` parses with runCLI, the
// grammar main uses for it, exactly as with the whole cli: the same
// command, the same flags, the same errors and the same help, good lines
// and bad alike.
func TestRunCLIParsesAsCLI(t *testing.T) {
	t.Setenv("COLUMNS", "80") // kong wraps help to the terminal's width
	lines := [][]string{
		{"run", "a.yaml"},
		{"run", "a.yaml", "b/", "-q", "-o", "x.json", "--junit", "j.xml", "-j", "3", "--repeat", "2",
			"--fail-fast", "--color", "never", "--tag", "t1", "--tag", "t2", "--agent", "a", "--run", "^x",
			"--turn-timeout", "2m", "--idle-timeout", "5s", "--no-text", "--allow-all", "--format", "dots"},
		{"run", "a.yaml", "--json", "old.json", "--fail-fast=cancel", "--shard", "1/2", "-v"},
		{"run", "a.yaml", "--color=always", "--lock", "fail", "--resume", "--dry-run"},
		{"run"},
		{"run", "--nope", "a.yaml"},
		{"run", "a.yaml", "--outpt", "x.json"},
		{"run", "a.yaml", "--allow-all", "--deny-all"},
		{"run", "a.yaml", "--format", "bogus"},
		{"run", "a.yaml", "--color", "sometimes"},
		{"run", "a.yaml", "--turn-timeout", "soon"},
		{"run", "a.yaml", "--repeat"},
		{"run", "--help"},
		{"run", "-h"},
		{"run", "a.yaml", "--help"},
		{"run", "a.yaml", "--version"},
		{"run", "--", "--odd-name.yaml"},
	}
	for _, args := range lines {
		fast, _ := grammar(args)
		if _, ok := fast.(*runCLI); !ok {
			t.Fatalf("grammar(%q) = %T, want *runCLI", args, fast)
		}
		want := parseWith(t, &cli{}, args)
		got := parseWith(t, fast, args)
		if got != want {
			t.Errorf("%q parses differently with runCLI:\n got: %+v\nwant: %+v", args, got, want)
		}
	}
	if root, _ := grammar([]string{"list", "run"}); reflect.TypeOf(root) != reflect.TypeFor[*cli]() {
		t.Errorf("grammar of list = %T, want *cli", root)
	}
}

// TestRunCLIIsCLIs checks that runCLI declares what cli does for run and
// for the root.
func TestRunCLIIsCLIs(t *testing.T) {
	full, ok := reflect.TypeFor[cli]().FieldByName("Run")
	if !ok {
		t.Fatal("cli has no Run")
	}
	fast, _ := reflect.TypeFor[runCLI]().FieldByName("Run")
	if full.Type != fast.Type || full.Tag != fast.Tag {
		t.Errorf("runCLI.Run is %v `%s`, cli.Run is %v `%s`", fast.Type, fast.Tag, full.Type, full.Tag)
	}
}

// parsed is what parsing one command line gives, as comparable text.
type parsed struct {
	code           int
	command, err   string
	stdout, stderr string
	run            string // the runCmd the line sets
}

// parseWith parses args with the grammar root, as run does, running
// nothing.
func parseWith(t *testing.T, root any, args []string) parsed {
	t.Helper()
	var stdout, stderr bytes.Buffer
	g := &globals{Stdout: &stdout, Stderr: &stderr}
	p := parsed{code: -1}
	parser, err := newParser(context.Background(), root, g, func(code int) { p.code = code })
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		p.err = err.Error()
	} else if p.code < 0 {
		p.command = kctx.Command()
	}
	var cmd runCmd
	var color string
	switch r := root.(type) {
	case *cli:
		cmd, color = r.Run, r.Color
	case *runCLI:
		cmd, color = r.Run, r.Color
	}
	p.stdout, p.stderr = stdout.String(), stderr.String()
	p.run = fmt.Sprintf("%s %#v", color, cmd) // unexported fields too
	return p
}
