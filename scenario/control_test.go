package scenario_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/acprun/acprun/scenario"
)

// rawControl returns the first control character of s (ESC, CR, BEL, the
// C1 controls…) and whether it has one: what a terminal would act on.
func rawControl(s string) (rune, bool) {
	i := strings.IndexFunc(s, unicode.IsControl)
	if i < 0 {
		return 0, false
	}
	return []rune(s[i:])[0], true
}

// TestMessagesEscapeControls: a value of the file with control characters
// (an escape sequence, a carriage return, a bell, a C1 CSI) that a message
// quotes (a path, a number as written, a template, a warning's paths, or
// with %q a value of vars) reaches the message escaped, as \x1b, so that
// acprun's errors and warnings cannot drive the terminal they are printed
// on.
func TestMessagesEscapeControls(t *testing.T) {
	base := dirsUnder(t, "cfg", "s")
	cfgFile, scFile := base+"/cfg/acprun.yaml", base+"/s/x.yaml"
	tests := []struct {
		name   string
		config string // "" for none
		src    string
		want   string // a part of a message, the value as escaped
	}{
		{
			name: "agent cwd",
			src:  "name: x\nagent: {command: [a], cwd: \"./\\e[31mnope\"}\nturns: [{prompt: hi}]\n",
			want: `agent cwd ` + base + `/s/\x1b[31mnope does not exist`,
		},
		{
			name: "number as written",
			src:  "name: x\nagent: {command: [a]}\nretries: !!int \"1\\e[2J\"\nturns: [{prompt: hi}]\n",
			want: `got 1\x1b[2J`,
		},
		{
			name: "value of vars",
			src:  "name: x\nagent: {command: [a]}\nvars: [{v: \"x\\r\"}, {v: \"x\\r\"}]\nturns: [{prompt: hi}]\n",
			want: `the value v="x\r" holds the control character \x0d`,
		},
		{
			name: "workspace",
			src:  "name: x\nagent: {command: [a]}\nworkspace: \"./\\u009b31mws\"\nturns: [{prompt: hi}]\n",
			want: `workspace ` + base + `/s/\x9b31mws does not exist`,
		},
		{
			name: "sandbox path",
			src:  "name: x\nagent: {command: [a]}\nsandbox: {write: [\"~\\a\"]}\nturns: [{prompt: hi}]\n",
			want: `sandbox write path ~\x07: only ~ and ~/`,
		},
		{
			name: "template",
			src:  "name: x\nagent: {command: [a]}\nvars: {v: 1}\nturns: [{prompt: \"{{\\e]0;t\\a}}\"}]\n",
			want: `bad template {{\x1b]0;t\x07}}`,
		},
		{
			name:   "named agent's cwd in the config",
			config: "agents:\n  ok: {command: [a], cwd: \"\\e[31m\"}\n",
			src:    "name: x\nagent: ok\nturns: [{prompt: hi}]\n",
			want:   `agent cwd ` + base + `/cfg/\x1b[31m does not exist`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := loadErrorLines(t, cfgFile, tt.config, scFile, tt.src)
			for _, l := range lines {
				if c, ok := rawControl(l); ok {
					t.Errorf("error %q holds the raw control character %U", l, c)
				}
			}
			if !strings.Contains(strings.Join(lines, "\n"), tt.want) {
				t.Errorf("errors = %q, want one holding %q", lines, tt.want)
			}
		})
	}
}

// TestWarningsEscapeControls: a warning quotes the file's values escaped
// as an error does.
func TestWarningsEscapeControls(t *testing.T) {
	base := dirsUnder(t, "s/ws", "s/\x1b[31mcwd")
	src := "name: x\nagent: {command: [a], cwd: \"./\\e[31mcwd\"}\nworkspace: ws\nturns: [{prompt: hi}]\n"
	_, warns, err := scenario.LoadBytes(base+"/s/x.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	if len(warns) == 0 {
		t.Fatal("no warning, want one that agent.cwd is outside the workspace")
	}
	for _, w := range warns {
		if c, ok := rawControl(w.String()); ok {
			t.Errorf("warning %q holds the raw control character %U", w, c)
		}
		if !strings.Contains(w.Msg, `/s/\x1b[31mcwd is outside the workspace`) {
			t.Errorf("warning %q, want it to name the cwd escaped", w)
		}
	}
}

// TestPickEscapesNames: the names a --scenario error lists are escaped.
func TestPickEscapesNames(t *testing.T) {
	scs := []*scenario.Scenario{{Name: "a\x1b[31m"}, {Name: "b\u009b"}}
	for _, name := range []string{"", "c"} {
		_, err := scenario.Pick(scs, name)
		if err == nil {
			t.Fatalf("Pick(%q): no error", name)
		}
		if c, ok := rawControl(err.Error()); ok {
			t.Errorf("Pick(%q) error %q holds the raw control character %U", name, err, c)
		}
		if !strings.Contains(err.Error(), `a\x1b[31m, b\x9b`) {
			t.Errorf("Pick(%q) error %q, want the names escaped", name, err)
		}
	}
}
