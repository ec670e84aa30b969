package main

import (
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
)

// TestRun: valid messages pass, an invalid one is printed with why and
// makes the exit code 1, and a bad use is 2.
func TestRun(t *testing.T) {
	const good = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
	const bad = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":7,"mcpServers":[]}}`
	for _, tt := range []struct {
		args  []string
		in    string
		code  int
		wants []string
	}{
		{[]string{"client"}, good + "\n", 0, nil},
		{[]string{"client"}, good + "\n" + bad + "\n", 1, []string{bad + ": "}},
		{[]string{"def", "InitializeRequest"}, `{"protocolVersion":1}`, 0, nil},
		{[]string{"def", "InitializeRequest"}, `{"protocolVersion":"one"}`, 1, []string{`{"protocolVersion":"one"}: `}},
		{[]string{"nothing"}, "", 2, nil},
	} {
		var stdout, stderr strings.Builder
		code := run(tt.args, strings.NewReader(tt.in), &stdout, &stderr)
		if code != tt.code {
			t.Errorf("%q on %q: exit %d, want %d\nstdout: %s\nstderr: %s", tt.args, tt.in, code, tt.code, stdout.String(), stderr.String())
		}
		if strings.Count(stdout.String(), "\n") != len(tt.wants) {
			t.Errorf("%q on %q: stdout %q, want one line for each message that is not valid", tt.args, tt.in, stdout.String())
		}
		for _, w := range tt.wants {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("%q on %q: stdout lacks %q:\n%s", tt.args, tt.in, w, stdout.String())
			}
		}
		if tt.wants == nil && stdout.Len() > 0 {
			t.Errorf("%q on %q: stdout %q, want nothing", tt.args, tt.in, stdout.String())
		}
	}
}
