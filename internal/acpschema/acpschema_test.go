package acpschema_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/acpschema"
)

func TestValidate(t *testing.T) {
	acpschema.Load(t)
	if err := acpschema.Validate("CancelNotification", []byte(`{"sessionId":"s"}`)); err != nil {
		t.Errorf("Validate(valid) = %v; want nil", err)
	}
	if err := acpschema.Validate("CancelNotification", []byte(`{}`)); err == nil {
		t.Errorf("Validate(missing sessionId) = nil; want an error")
	}
	if err := acpschema.Validate("CancelNotification", []byte(`{`)); err == nil {
		t.Errorf("Validate(invalid JSON) = nil; want an error")
	}
	if err := acpschema.Validate("NoSuchDefinition", []byte(`{}`)); err == nil {
		t.Errorf("Validate(unknown def) = nil; want an error")
	}
}

func TestDefsFromAnnotations(t *testing.T) {
	v := acpschema.Load(t)
	tests := []struct {
		method, params, result string
	}{
		{"initialize", "InitializeRequest", "InitializeResponse"},
		{"session/new", "NewSessionRequest", "NewSessionResponse"},
		{"session/prompt", "PromptRequest", "PromptResponse"},
		{"session/cancel", "CancelNotification", ""},
		{"session/update", "SessionNotification", ""},
		{"session/request_permission", "RequestPermissionRequest", "RequestPermissionResponse"},
		{"fs/read_text_file", "ReadTextFileRequest", "ReadTextFileResponse"},
		{"terminal/wait_for_exit", "WaitForTerminalExitRequest", "WaitForTerminalExitResponse"},
		{"no/such", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			if got := v.ParamsDef(tt.method); got != tt.params {
				t.Errorf("ParamsDef(%q) = %q; want %q", tt.method, got, tt.params)
			}
			if got := v.ResultDef(tt.method); got != tt.result {
				t.Errorf("ResultDef(%q) = %q; want %q", tt.method, got, tt.result)
			}
		})
	}
}

func TestValidateClientMessage(t *testing.T) {
	v := acpschema.Load(t)
	tests := []struct {
		name    string
		msg     string
		wantErr string // "" = valid; otherwise a substring of the error
	}{
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"acprun","version":"0.1.0"}}}`, ""},
		{"string id", `{"jsonrpc":"2.0","id":"a-1","method":"authenticate","params":{"methodId":"k"}}`, ""},
		{"session/new", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, ""},
		{"session/cancel", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, ""},
		{"$/cancel_request", `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}`, ""},
		{"extension request", `{"jsonrpc":"2.0","id":9,"method":"_acprun/ping","params":[1]}`, ""},
		{"generic response", `{"jsonrpc":"2.0","id":4,"result":{"outcome":{"outcome":"cancelled"}}}`, ""},
		{"error response", `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}`, ""},

		{"not JSON", `{"jsonrpc":`, "json-rpc message"},
		{"missing jsonrpc", `{"id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, `"2.0"`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, `"2.0"`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, "id"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, "id"},
		{"request without id", `{"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, "must have an id"},
		{"notification with id", `{"jsonrpc":"2.0","id":3,"method":"session/cancel","params":{"sessionId":"s"}}`, "must not have an id"},
		{"null mcpServers", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":null}}`, "NewSessionRequest"},
		{"missing params", `{"jsonrpc":"2.0","id":1,"method":"session/prompt"}`, "PromptRequest"},
		{"bad content block", `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text"}]}}`, "PromptRequest"},
		{"agent method sent by the client", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}`, "handled by the client"},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"session/explode","params":{}}`, "unknown method"},
		{"request with result", `{"jsonrpc":"2.0","id":1,"method":"session/cancel","result":{}}`, "no result or error"},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, "missing id"},
		{"response with both", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, "exactly one"},
		{"response with bad error", `{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`, "ClientResponse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.ValidateClientMessage([]byte(tt.msg))
			checkErr(t, err, tt.wantErr)
		})
	}
}

func TestValidateClientResponse(t *testing.T) {
	v := acpschema.Load(t)
	tests := []struct {
		name, method, msg string
		wantErr           string
	}{
		{"permission selected", "session/request_permission", `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`, ""},
		{"permission cancelled", "session/request_permission", `{"jsonrpc":"2.0","id":"u-1","result":{"outcome":{"outcome":"cancelled"}}}`, ""},
		{"read", "fs/read_text_file", `{"jsonrpc":"2.0","id":3,"result":{"content":"x"}}`, ""},
		{"write", "fs/write_text_file", `{"jsonrpc":"2.0","id":3,"result":{}}`, ""},
		{"terminal create", "terminal/create", `{"jsonrpc":"2.0","id":7,"result":{"terminalId":"term_1"}}`, ""},
		{"terminal output", "terminal/output", `{"jsonrpc":"2.0","id":9,"result":{"output":"ok\n","truncated":false,"exitStatus":{"exitCode":0,"signal":null}}}`, ""},
		{"terminal wait", "terminal/wait_for_exit", `{"jsonrpc":"2.0","id":8,"result":{"exitCode":0}}`, ""},
		{"terminal kill", "terminal/kill", `{"jsonrpc":"2.0","id":8,"result":{}}`, ""},
		{"terminal release", "terminal/release", `{"jsonrpc":"2.0","id":10,"result":{}}`, ""},
		{"error", "fs/read_text_file", `{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found","data":{"path":"/p/x"}}}`, ""},
		{"error with null id", "fs/read_text_file", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, ""},
		{"extension", "_zed.dev/buffers", `{"jsonrpc":"2.0","id":1,"result":[1,2]}`, ""},

		{"selected without option", "session/request_permission", `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected"}}}`, "RequestPermissionResponse"},
		{"read without content", "fs/read_text_file", `{"jsonrpc":"2.0","id":3,"result":{}}`, "ReadTextFileResponse"},
		{"write null result", "fs/write_text_file", `{"jsonrpc":"2.0","id":3,"result":null}`, "WriteTextFileResponse"},
		{"output without truncated", "terminal/output", `{"jsonrpc":"2.0","id":9,"result":{"output":""}}`, "TerminalOutputResponse"},
		{"negative exit code", "terminal/wait_for_exit", `{"jsonrpc":"2.0","id":8,"result":{"exitCode":-1}}`, "WaitForTerminalExitResponse"},
		{"error without message", "terminal/kill", `{"jsonrpc":"2.0","id":8,"error":{"code":-32603}}`, "Error"},
		{"missing id", "terminal/kill", `{"jsonrpc":"2.0","result":{}}`, "missing id"},
		{"missing jsonrpc", "terminal/kill", `{"id":1,"result":{}}`, `"2.0"`},
		{"client answers its own method", "session/prompt", `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, "handled by the agent"},
		{"notification method", "session/update", `{"jsonrpc":"2.0","id":1,"result":{}}`, "no response"},
		{"a request is no response", "fs/read_text_file", `{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{}}`, "has a method"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.ValidateClientResponse(tt.method, []byte(tt.msg))
			checkErr(t, err, tt.wantErr)
		})
	}
}

func TestValidateAgentSide(t *testing.T) {
	v := acpschema.Load(t)
	if err := v.ValidateAgentMessage([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`)); err != nil {
		t.Errorf("ValidateAgentMessage(session/update) = %v; want nil", err)
	}
	err := v.ValidateAgentMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`))
	checkErr(t, err, "handled by the agent")
	if err := v.ValidateAgentResponse("session/prompt", []byte(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`)); err != nil {
		t.Errorf("ValidateAgentResponse(session/prompt) = %v; want nil", err)
	}
	err = v.ValidateAgentResponse("session/prompt", []byte(`{"jsonrpc":"2.0","id":2,"result":{}}`))
	checkErr(t, err, "PromptResponse")
}

func checkErr(t *testing.T, err error, wantSub string) {
	t.Helper()
	switch {
	case wantSub == "" && err != nil:
		t.Errorf("error = %v; want nil", err)
	case wantSub != "" && err == nil:
		t.Errorf("error = nil; want one mentioning %q", wantSub)
	case wantSub != "" && !strings.Contains(err.Error(), wantSub):
		t.Errorf("error = %v; want it to mention %q", err, wantSub)
	}
}

// TestTranscriptMessages validates every message of the recorded transcripts (all of
// them conform), checking responses against the method of the request they answer.
func TestTranscriptMessages(t *testing.T) {
	v := acpschema.Load(t)
	transcripts := acpschema.Transcripts()
	files, err := fs.Glob(transcripts, "*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata/transcripts")
	}
	var requests, responses, agentMessages int
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := fs.ReadFile(transcripts, f)
			if err != nil {
				t.Fatal(err)
			}
			agentRequests := map[string]string{}  // id → method of requests the agent sent
			clientRequests := map[string]string{} // id → method of requests the client sent
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 64<<20)
			for n := 1; sc.Scan(); n++ {
				var line struct {
					Dir string          `json:"dir"`
					Msg json.RawMessage `json:"msg"`
				}
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("line %d: %v", n, err)
				}
				if line.Msg == nil {
					continue
				}
				var head struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if err := json.Unmarshal(line.Msg, &head); err != nil {
					t.Fatalf("line %d: %v", n, err)
				}
				if head.Method != "" && head.ID != nil {
					if line.Dir == "a2c" {
						agentRequests[string(head.ID)] = head.Method
					} else {
						clientRequests[string(head.ID)] = head.Method
					}
				}
				switch {
				case line.Dir == "a2c" && head.Method != "":
					agentMessages++
					if err := v.ValidateAgentMessage(line.Msg); err != nil {
						t.Errorf("line %d: %v", n, err)
					}
				case line.Dir == "a2c":
					agentMessages++
					if err := v.ValidateAgentResponse(clientRequests[string(head.ID)], line.Msg); err != nil {
						t.Errorf("line %d: %v", n, err)
					}
				case line.Dir == "c2a" && head.Method != "":
					requests++
					if err := v.ValidateClientMessage(line.Msg); err != nil {
						t.Errorf("line %d: %v", n, err)
					}
				case line.Dir == "c2a":
					method, ok := agentRequests[string(head.ID)]
					if !ok {
						t.Errorf("line %d: response to unknown agent request %s", n, head.ID)
						continue
					}
					responses++
					if err := v.ValidateClientResponse(method, line.Msg); err != nil {
						t.Errorf("line %d: %v", n, err)
					}
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
	if requests == 0 || responses == 0 || agentMessages == 0 {
		t.Errorf("validated %d client requests, %d client responses, %d agent messages; want some of each", requests, responses, agentMessages)
	}
}
