// Command acpvalidate validates ACP messages against the vendored schema
// (package acpschema) in a process of its own, for tests whose test binary
// must not link the JSON Schema library: runner's, which starts again as
// the mock agent hundreds of times, and would compile the library's
// metaschemas (its package init) at every start.
//
//	acpvalidate client    every line of stdin is a message the client sent
//	acpvalidate agent     every line of stdin is a message the agent sent
//	acpvalidate def NAME  stdin is one instance of the schema's $defs NAME
//
// It prints one line for each message that is not valid, the message and
// why, and exits 1 when it printed any; 2 for a bad use.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acprun/acprun/internal/acpschema"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	v, err := acpschema.New(acpschema.SchemaJSON())
	if err != nil {
		fmt.Fprintln(stderr, "acpvalidate:", err)
		return 2
	}
	switch {
	case len(args) == 2 && args[0] == "def":
		data, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintln(stderr, "acpvalidate:", err)
			return 2
		}
		if err := v.Validate(args[1], data); err != nil {
			fmt.Fprintf(stdout, "%s: %s\n", bytes.TrimSpace(data), oneLine(err))
			return 1
		}
		return 0
	case len(args) == 1 && (args[0] == "client" || args[0] == "agent"):
		validate := v.ValidateClientMessage
		if args[0] == "agent" {
			validate = v.ValidateAgentMessage
		}
		lines := bufio.NewScanner(stdin)
		lines.Buffer(nil, 64<<20)
		code := 0
		for lines.Scan() {
			if err := validate(lines.Bytes()); err != nil {
				fmt.Fprintf(stdout, "%s: %s\n", lines.Bytes(), oneLine(err))
				code = 1
			}
		}
		if err := lines.Err(); err != nil {
			fmt.Fprintln(stderr, "acpvalidate:", err)
			return 2
		}
		return code
	}
	fmt.Fprintln(stderr, "usage: acpvalidate client|agent < LINES, or acpvalidate def NAME < JSON")
	return 2
}

// oneLine is err's text on one line: the schema library's errors take
// several.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
