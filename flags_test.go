package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestEveryPathFlagRefusesAnEmptyValue parses, for every command, each
// flag whose placeholder says it names a file or a directory with an empty
// value, and checks that emptyPathFlag refuses it: a flag added later is
// covered as soon as it has such a placeholder.
func TestEveryPathFlagRefusesAnEmptyValue(t *testing.T) {
	var out bytes.Buffer
	g := &globals{Stdout: &out, Stderr: &out}
	parser, err := newParser(context.Background(), &cli{}, g, g.Stdout, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, cmd := range parser.Model.Leaves(false) {
		words := strings.Fields(cmd.Path())
		for _, p := range cmd.Positional {
			if p.Required {
				words = append(words, "x")
			}
		}
		for _, flags := range cmd.AllFlags(false) {
			for _, f := range flags {
				if _, ok := pathPlaceholders[f.PlaceHolder]; !ok {
					continue
				}
				checked++
				args := append(words[:len(words):len(words)], "--"+f.Name+"=")
				root := &cli{}
				p, err := newParser(context.Background(), root, g, g.Stdout, func(int) {})
				if err != nil {
					t.Fatal(err)
				}
				kctx, err := p.Parse(args)
				if err != nil {
					t.Errorf("%q: %v", args, err)
					continue
				}
				if err := emptyPathFlag(kctx); err == nil || !strings.Contains(err.Error(), "--"+f.Name+` ""`) {
					t.Errorf("%q: emptyPathFlag = %v; want the flag refused", args, err)
				}
				args[len(args)-1] = "--" + f.Name + "=x"
				if kctx, err := p.Parse(args); err == nil {
					if err := emptyPathFlag(kctx); err != nil {
						t.Errorf("%q: emptyPathFlag = %v; want nil", args, err)
					}
				}
			}
		}
	}
	if checked < 18 { // run --prompt takes a text too: see TestRunUsageErrors
		t.Errorf("checked %d path flags; want every one (at least 18)", checked)
	}
}
