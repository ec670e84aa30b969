// Command limitclient is the bare ACP client acprun's benchmarks compare
// acprun with: the least a client can do. It starts the agent, does the
// handshake, sends one prompt, decodes every line with encoding/json,
// counts the updates, answers each permission request with its first
// option, and writes the counts as JSON when the prompt is answered.
//
// With -sessions N it runs N such sessions, -j at a time, and prints the
// CPU time it used itself and the CPU time of the agents it waited for
// (getrusage RUSAGE_SELF and RUSAGE_CHILDREN, in nanoseconds), so that a
// harness can tell an agent's own cost from its client's.
//
// By default it closes the agent's stdin once the prompt is answered and
// waits for the agent to exit; with -kill it kills the agent (SIGKILL)
// instead, the least a client can do with an agent that ignores the end
// of its stdin.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// counts is what one session recorded.
type counts struct {
	Chunks      int    `json:"chunks"`
	TextBytes   int    `json:"textBytes"`
	Permissions int    `json:"permissions"`
	StopReason  string `json:"stopReason"`
}

// incoming is every message the client reads, decoded in one pass.
type incoming struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
		Options []struct {
			OptionID string `json:"optionId"`
		} `json:"options"`
	} `json:"params"`
	Result struct {
		SessionID  string `json:"sessionId"`
		StopReason string `json:"stopReason"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

func main() {
	out := flag.String("out", "", "write the counts of the session as JSON to this file")
	sessions := flag.Int("sessions", 1, "sessions to run, each with its own agent")
	jobs := flag.Int("j", 1, "sessions at a time")
	kill := flag.Bool("kill", false, "kill the agent once the prompt is answered, instead of closing its stdin and waiting for its exit")
	flag.Parse()
	argv := flag.Args()
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "usage: limitclient [-out FILE] [-sessions N -j J] AGENT [ARGS...]")
		os.Exit(2)
	}
	all := make([]counts, *sessions)
	errs := make([]error, *sessions)
	sem := make(chan struct{}, max(1, *jobs))
	var wg sync.WaitGroup
	for i := range *sessions {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			all[i], errs[i] = session(argv, *kill)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "limitclient:", err)
		os.Exit(1)
	}
	if *out != "" {
		data, _ := json.Marshal(all[0])
		if err := os.WriteFile(*out, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "limitclient:", err)
			os.Exit(1)
		}
	}
	if *sessions > 1 {
		var self, kids syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
		fmt.Printf(`{"selfCPUNs":%d,"childrenCPUNs":%d}`+"\n", cpu(&self), cpu(&kids))
	}
}

// cpu is the user and system CPU time of ru, in nanoseconds.
func cpu(ru *syscall.Rusage) int64 { return ru.Utime.Nano() + ru.Stime.Nano() }

// session runs one session against a new agent; kill kills it at the end
// instead of waiting for its exit.
func session(argv []string, kill bool) (counts, error) {
	var c counts
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return c, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return c, err
	}
	if err := cmd.Start(); err != nil {
		return c, err
	}
	w := bufio.NewWriter(stdin)
	r := bufio.NewReaderSize(stdout, 64<<10)
	send := func(format string, args ...any) error {
		fmt.Fprintf(w, format+"\n", args...)
		return w.Flush()
	}
	cwd, _ := os.Getwd()
	cwdJSON, _ := json.Marshal(cwd)
	serr := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	sessionID := ""
	for serr == nil {
		line, rerr := r.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			rest, err := r.ReadBytes('\n')
			line, rerr = append(append([]byte(nil), line...), rest...), err
		}
		if len(line) > 1 {
			var m incoming
			if err := json.Unmarshal(line, &m); err != nil {
				serr = fmt.Errorf("bad line %q: %w", line, err)
				break
			}
			switch {
			case m.Method == "session/update":
				if m.Params.Update.SessionUpdate == "agent_message_chunk" {
					c.Chunks++
					c.TextBytes += len(m.Params.Update.Content.Text)
				}
			case m.Method == "session/request_permission" && len(m.Params.Options) == 0:
				serr = fmt.Errorf("a permission request with no options: %s", line)
			case m.Method == "session/request_permission":
				c.Permissions++
				opt, _ := json.Marshal(m.Params.Options[0].OptionID)
				serr = send(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%s}}}`, m.ID, opt)
			case m.Method != "" && m.ID != nil:
				serr = send(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, m.ID)
			case m.Error != nil:
				serr = fmt.Errorf("error answer: %s", m.Error)
			case string(m.ID) == "1":
				serr = send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%s,"mcpServers":[]}}`, cwdJSON)
			case string(m.ID) == "2":
				sessionID = m.Result.SessionID
				sid, _ := json.Marshal(sessionID)
				serr = send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%s,"prompt":[{"type":"text","text":"go"}]}}`, sid)
			case string(m.ID) == "3":
				c.StopReason = m.Result.StopReason
			}
		}
		if c.StopReason != "" {
			break
		}
		if rerr == io.EOF {
			serr = errors.New("the agent closed its output before answering the prompt")
		} else if rerr != nil && serr == nil {
			serr = rerr
		}
	}
	if kill {
		_ = cmd.Process.Kill()
		_ = cmd.Wait() // killed: its exit status is no failure
		return c, serr
	}
	stdin.Close()
	_, _ = io.Copy(io.Discard, r)
	werr := cmd.Wait()
	if serr != nil {
		return c, serr
	}
	return c, werr
}
