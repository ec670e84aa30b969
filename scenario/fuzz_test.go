package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/scenario"
)

// FuzzLoadBytes checks that LoadBytes never panics, returns either
// scenarios or errors, and places every error and warning inside the file.
// Seeds are the testdata files and the sources of TestLoadBytesErrors' kind.
func FuzzLoadBytes(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"name: x\nagent: {command: [a]}\nturns:\n- promt: hi\n",
		"name: x\nagent: {command: \"a 'b ${X}\"}\nturns: [{prompt: hi}]\n---\nname: x\n",
		"a: &a [*a]\nname: *a\n",
		"name: x\nagent: {command: [a], mcpServers: [&m {a: [*m]}]}\n",
		"<<: {name: x}\nagent: claude\nturns: [{prompt: [{file: testdata/NOTES.md}]}]\n",
		"name: a: b\n",
		"name: x\nvars: [{a: [1, 2], b: &v y}, {a: 3, b: *v}]\nagent: {command: [a]}\nturns: [{prompt: \"{{.a}} {{ .b }} {{\\\"{{\\\"}}\"}]\n",
		"\t",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lookup := func(k string) (string, bool) { return "v" + k, len(k)%2 == 0 }
		scens, warns, err := scenario.LoadBytes("fuzz.yaml", data, scenario.LoadOptions{LookupEnv: lookup})
		// YAML line breaks: \r\n, \n, \r, NEL, LS, PS.
		text := strings.ReplaceAll(string(data), "\r\n", "\n")
		lines := 1 + strings.Count(text, "\n") + strings.Count(text, "\r") +
			strings.Count(text, "\u0085") + strings.Count(text, "\u2028") + strings.Count(text, "\u2029")
		check := func(kind string, p scenario.Pos, msg string) {
			if p.File != "fuzz.yaml" || p.Line < 0 || p.Line > lines+1 || p.Col < 0 || p.Line == 0 && p.Col != 0 {
				t.Errorf("%s %q at %+v, outside the file of %d lines", kind, msg, p, lines)
			}
			if msg == "" {
				t.Errorf("%s at %v with no message", kind, p)
			}
		}
		if err != nil {
			var errs scenario.Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %T is not a non-empty scenario.Errors: %v", err, err)
			}
			if scens != nil {
				t.Errorf("%d scenarios returned with errors", len(scens))
			}
			for _, e := range errs {
				check("error", scenario.Pos{File: e.File, Line: e.Line, Col: e.Col}, e.Msg)
			}
		} else if len(scens) == 0 {
			t.Errorf("no scenarios and no error")
		}
		for _, w := range warns {
			check("warning", w.Pos, w.Msg)
		}
	})
}

// FuzzLoadConfigBytes checks that LoadConfigBytes never panics, returns a
// config or errors, and places every error inside the file; and that a
// scenario using the config's default agent loads or fails cleanly.
func FuzzLoadConfigBytes(f *testing.F) {
	for _, s := range []string{
		"defaults:\n  agent: {name: mock, args: [x]}\n  timeout: 1m\nagents:\n  mine: {command: [a, \"${X}\"]}\n",
		"agents:\n  claude: {env: {A: b}}\ndefaults: {agent: claude, client: {roots: [a]}}\n",
		"agents: {x: &x {command: [a], mcpServers: [*x]}}\n",
		"defaults: {agent: mine}\nagents: {mine: {command: \"./a 'b\"}}\n",
		"timeout: 1m\n---\nx\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lookup := func(k string) (string, bool) { return "v" + k, len(k)%2 == 0 }
		o := scenario.LoadOptions{LookupEnv: lookup}
		cfg, err := scenario.LoadConfigBytes("fuzz.yaml", data, o)
		if err != nil {
			var errs scenario.Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %T is not a non-empty scenario.Errors: %v", err, err)
			}
			for _, e := range errs {
				if e.File != "fuzz.yaml" || e.Msg == "" {
					t.Errorf("error %q at %+v", e.Msg, e)
				}
			}
			return
		}
		o.Config = cfg
		_, _, _ = scenario.LoadBytes("s.yaml", []byte("name: s\nturns: [{prompt: hi}]\n"), o)
		for _, na := range cfg.NamedAgents() {
			_, _ = scenario.ResolveAgent(na.Name, o)
		}
	})
}
