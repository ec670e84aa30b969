package e2e_test

import (
	"bufio"
	"io"
	"os"

	json "github.com/go-json-experiment/json/v1"
)

// testAgents are the ACP agents the mock agent cannot play, by the
// argument that makes the test binary play one (see init).
var testAgents = map[string]func(in io.Reader, out io.Writer) int{
	lateWriterArg:       lateWriter,
	lateReaderArg:       lateReader,
	backgroundWaiterArg: backgroundWaiter,
	backgroundRacerArg:  backgroundRacer,
	longLinerArg:        longLiner,
}

// init makes the test binary, given one of testAgents' arguments as its
// only argument, that agent instead of running tests.
func init() {
	if len(os.Args) != 2 {
		return
	}
	if agent, ok := testAgents[os.Args[1]]; ok {
		os.Exit(agent(os.Stdin, os.Stdout))
	}
}

// agentLines is a test agent's side of the wire on in and out: send
// writes m as one JSON-RPC 2.0 line (exiting 3 when it cannot), and lines
// scans acprun's lines, up to 64 MiB each.
func agentLines(in io.Reader, out io.Writer) (send func(m map[string]any), lines *bufio.Scanner) {
	enc := json.NewEncoder(out) // one line per message
	send = func(m map[string]any) {
		m["jsonrpc"] = "2.0"
		if err := enc.Encode(m); err != nil {
			os.Exit(3)
		}
	}
	lines = bufio.NewScanner(in)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	return send, lines
}
