package scenario_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/scenario"
)

// TestSyntaxErrorPositions: a YAML syntax error is reported at the
// offending token (line and column), counted from the start of the whole
// file in a multi-document file, not at the start of the enclosing mapping
// or document.
func TestSyntaxErrorPositions(t *testing.T) {
	const head = "name: x\nagent: {command: [a]}\n"
	tests := []struct {
		name string
		src  string
		want string // the syntax error, without "bad.yaml:"
	}{
		{
			name: "bad indent deep in a turn",
			src: head + `turns:
  - prompt: hi
    expect:
      stopReason: end_turn
      text:
        contains: [a]
     maxDenied: 1
`,
			want: "9:6: YAML syntax: did not find expected key (while parsing a block mapping that starts at line 4, column 5); " +
				"check this line's indentation (it must line up with the keys or list items of its level)",
		},
		{
			name: "over-indented key",
			src:  head + "turns:\n  - prompt: hi\n      timeout: 5s\n",
			want: "5:14: YAML syntax: mapping values are not allowed in this context; " +
				`quote a value that contains ": ", or check this line's indentation`,
		},
		{
			name: "unclosed double quote",
			src:  head + "turns:\n  - prompt: \"hi\n  - prompt: there\n",
			want: "4:13: YAML syntax: found unexpected end of stream while scanning a quoted scalar; the quoted string that starts here is never closed",
		},
		{
			name: "unclosed single quote after a non-ASCII character",
			src:  "name: é 'x\n" + "agent: {command: ['a]}\n",
			want: "2:19: YAML syntax: found unexpected end of stream while scanning a quoted scalar; the quoted string that starts here is never closed",
		},
		{
			name: "tab indentation",
			src:  head + "turns:\n\t- prompt: hi\n",
			want: "4:1: YAML syntax: found character that cannot start any token; YAML cannot indent with tabs, use spaces",
		},
		{
			name: "tab after spaces",
			src:  head + "turns:\n  - prompt: hi\n  \ttimeout: 5s\n",
			want: "5:3: YAML syntax: found a tab character that violates indentation; YAML cannot indent with tabs, use spaces",
		},
		{
			name: "bad mapping in the second document",
			src: head + "turns: [{prompt: one}]\n---\n" + `name: y
agent: {command: [a]}
turns:
  - prompt: two
   timeout: 5s
`,
			want: "9:4: YAML syntax: did not find expected '-' indicator (while parsing a block collection that starts at line 8, column 3); " +
				"check this line's indentation (it must line up with the keys or list items of its level)",
		},
		{
			name: "second document with CRLF line ends",
			src:  strings.ReplaceAll(head+"turns: [{prompt: one}]\n---\nname: y\nagent: a: b\n", "\n", "\r\n"),
			want: "6:9: YAML syntax: mapping values are not allowed in this context; " +
				`quote a value that contains ": ", or check this line's indentation`,
		},
		{
			name: "key without a colon",
			src:  head + "turns\n  - prompt: hi\n",
			want: "3:1: YAML syntax: could not find expected ':' while scanning a simple key; " +
				"add a colon after the key, or indent this line more if it continues the one above",
		},
		{
			name: "unclosed flow list",
			src:  head + "turns: [{prompt: hi},\n",
			want: "3:8: YAML syntax: did not find expected node content; the [ here is never closed with ]",
		},
		{
			name: "unclosed flow mapping in a list",
			src:  head + "turns:\n  - {prompt: hi\n  - prompt: there\n",
			want: "5:11: YAML syntax: did not find expected ',' or '}' (while parsing a flow mapping that starts at line 4, column 5)",
		},
		{
			name: "invalid UTF-8",
			src:  head + "turns: [{prompt: \"a\xffb\"}]\n",
			want: `3:20: YAML syntax: the file is not UTF-8 (byte \xff here): save it as UTF-8`,
		},
		{
			// YAML stops at the line break after the Latin-1 é, which
			// cannot continue it: the error is at the é.
			name: "Latin-1",
			src:  head + "turns: [{prompt: caf\xe9}]\n",
			want: `3:21: YAML syntax: the file is not UTF-8 (byte \xe9 here): save it as UTF-8`,
		},
		{
			name: "problem on the first line",
			src:  "name: a: b\n",
			want: "1:8: YAML syntax: mapping values are not allowed in this context; " +
				`quote a value that contains ": ", or check this line's indentation`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := scenario.LoadBytes("bad.yaml", []byte(tt.src), opts)
			var syntax []string
			for _, line := range errorLines(t, err) {
				if strings.Contains(line, "YAML syntax") {
					syntax = append(syntax, line)
				}
			}
			want := "bad.yaml:" + tt.want
			if len(syntax) != 1 || syntax[0] != want {
				t.Errorf("syntax errors:\n%s\nwant:\n%s\n(all errors: %v)", strings.Join(syntax, "\n"), want, err)
			}
		})
	}
}

// TestConfigSyntaxErrorPosition: a config file's syntax error is at the
// offending token too.
func TestConfigSyntaxErrorPosition(t *testing.T) {
	src := "defaults:\n  timeout: 5s\n  client:\n    fs: true\n   terminal: false\n"
	_, err := scenario.LoadConfigBytes("acprun.yaml", []byte(src), scenario.LoadOptions{})
	want := "acprun.yaml:5:4: YAML syntax: did not find expected key (while parsing a block mapping that starts at line 2, column 3); " +
		"check this line's indentation (it must line up with the keys or list items of its level)"
	if err == nil || err.Error() != want {
		t.Errorf("LoadConfigBytes error:\n%v\nwant:\n%s", err, want)
	}
}
