package e2e_test

import (
	"strings"
	"testing"
)

// TestValidateNUL: a NUL byte in a value that reaches a program or the file
// system is refused by validate (exit 2) at the value, in a scenario and in
// a config's named agent, instead of failing at run time without a place.
func TestValidateNUL(t *testing.T) {
	t.Parallel()
	const msg = ` contains a NUL byte, which no program can take: remove it`
	tests := []struct {
		name string
		args []string
		file string
		src  string
		want string
	}{
		{
			name: "env value",
			file: "s.yaml",
			src:  "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml], env: {X: \"a\\0b\"}}\nturns: [{prompt: hi}]\n",
			want: `s.yaml:2:62: "a\x00b"` + msg,
		},
		{
			name: "command word",
			file: "s.yaml",
			src:  "name: s\nagent: {command: [acprun, mock-agent, \"m.mock.yaml\\0\"]}\nturns: [{prompt: hi}]\n",
			want: `s.yaml:2:39: "m.mock.yaml\x00"` + msg,
		},
		{
			name: "cwd",
			file: "s.yaml",
			src:  "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml], cwd: \"\\0x\"}\nturns: [{prompt: hi}]\n",
			want: `s.yaml:2:58: "\x00x"` + msg,
		},
		{
			name: "named agent in the config",
			args: []string{"--config", "c.yaml"},
			file: "c.yaml",
			src:  "agents:\n  m: {command: [acprun, mock-agent, m.mock.yaml], env: {X: \"\\0\"}}\n",
			want: `c.yaml:2:60: "\x00"` + msg,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			files := map[string]string{
				"m.mock.yaml": "turns:\n  - steps:\n      - text: hi\n",
				"s.yaml":      "name: s\nagent: m\nturns: [{prompt: hi}]\n",
			}
			files[tt.file] = tt.src
			writeFiles(t, dir, files)
			args := append([]string{"validate", "--strict"}, tt.args...)
			r := acprun(t, dir, append(args, "s.yaml")...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("validate: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
}
