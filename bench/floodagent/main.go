// Command floodagent is the tiny ACP agent acprun's benchmarks drive. It
// answers initialize and session/new, and on each session/prompt does what
// its flags say: asks -perms permission requests one after the other, sends
// -chunks agent_message_chunk updates of -size bytes of text, and answers
// end_turn. With -stamps it does not answer a prompt until session/cancel
// comes, and appends to the file when it got the prompt and the cancel
// (Unix nanoseconds), so that the latency from a turn's deadline to the
// cancel on the wire can be measured. With -hang it ignores SIGTERM, starts
// a grandchild in its process group and never answers a cancelled prompt:
// both hold the FIFO -hang names open for writing, so that whoever reads it
// sees its end when the whole group is gone.
//
// It uses the standard library only and writes through one buffered writer,
// so that its own cost stays small next to the client's.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	json "github.com/go-json-experiment/json/v1"
)

// message is any incoming JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// agent is the state of one run of the agent.
type agent struct {
	chunks, perms int
	stamps, hang  string
	chunk         []byte // one whole session/update line
	w             *bufio.Writer

	prompt    json.RawMessage // id of the prompt being played; nil when none
	promptAt  time.Time
	permsLeft int
	nextID    int
}

func main() {
	a := &agent{}
	size := 0
	grandchild := ""
	flag.IntVar(&a.chunks, "chunks", 1, "agent_message_chunk updates per prompt")
	flag.IntVar(&size, "size", 64, "bytes of text per chunk")
	flag.IntVar(&a.perms, "perms", 0, "permission requests per prompt, each awaited")
	flag.StringVar(&a.stamps, "stamps", "", "answer prompts only on session/cancel and append the prompt's and the cancel's arrival to this file")
	flag.StringVar(&a.hang, "hang", "", "ignore SIGTERM, keep a grandchild, never answer a cancelled prompt; both hold this FIFO open")
	flag.StringVar(&grandchild, "grandchild", "", "internal: be the grandchild holding this FIFO")
	flag.Parse()
	if grandchild != "" {
		holdFIFO(grandchild)
		select {}
	}
	if a.hang != "" {
		signal.Ignore(syscall.SIGTERM)
		holdFIFO(a.hang)
		cmd := exec.Command(os.Args[0], "-grandchild", a.hang)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			fatal(err)
		}
	}
	text := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", size/36+1)[:size]
	a.chunk = []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"flood-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}` + "\n")
	a.w = bufio.NewWriterSize(os.Stdout, 64<<10)
	if err := a.serve(bufio.NewReaderSize(os.Stdin, 64<<10)); err != nil {
		fatal(err)
	}
}

// holdFIFO opens path for writing and keeps it open until the process ends.
func holdFIFO(path string) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		fatal(err)
	}
	_, _ = f.WriteString("x")
	keep = append(keep, f)
}

var keep []*os.File

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "floodagent:", err)
	os.Exit(1)
}

// serve reads messages until the end of stdin.
func (a *agent) serve(r *bufio.Reader) error {
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 1 {
			var m message
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				return fmt.Errorf("bad line %q: %w", line, jerr)
			}
			if herr := a.handle(&m); herr != nil {
				return herr
			}
			if ferr := a.w.Flush(); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
	}
}

func (a *agent) handle(m *message) error {
	switch m.Method {
	case "initialize":
		a.answer(m.ID, `{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"floodagent","version":"1"}}`)
	case "session/new":
		a.answer(m.ID, `{"sessionId":"flood-1"}`)
	case "session/prompt":
		a.prompt, a.promptAt = m.ID, time.Now()
		if a.stamps != "" || a.hang != "" {
			return nil // answered on cancel, or never
		}
		a.permsLeft = a.perms
		a.next()
	case "session/cancel":
		at := time.Now()
		if a.stamps != "" {
			f, err := os.OpenFile(a.stamps, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				return err
			}
			fmt.Fprintf(f, "%d %d\n", a.promptAt.UnixNano(), at.UnixNano())
			if err := f.Close(); err != nil {
				return err
			}
		}
		if a.hang == "" && a.prompt != nil {
			a.answer(a.prompt, `{"stopReason":"cancelled"}`)
			a.prompt = nil
		}
	case "":
		if m.ID != nil && a.prompt != nil { // the answer to our permission request
			a.next()
		}
	default:
		if m.ID != nil {
			fmt.Fprintf(a.w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", m.ID)
		}
	}
	return nil
}

// next asks the next permission request of the prompt, or when none is
// left sends the chunks and answers the prompt.
func (a *agent) next() {
	if a.permsLeft > 0 {
		a.permsLeft--
		a.nextID++
		fmt.Fprintf(a.w, `{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"flood-1","toolCall":{"toolCallId":"t%d","title":"read file","kind":"read","status":"pending"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`+"\n", a.nextID, a.nextID)
		return
	}
	for range a.chunks {
		_, _ = a.w.Write(a.chunk)
	}
	a.answer(a.prompt, `{"stopReason":"end_turn"}`)
	a.prompt = nil
}

func (a *agent) answer(id json.RawMessage, result string) {
	fmt.Fprintf(a.w, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
}
