package scenario_test

import (
	"path/filepath"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestMcpServersChecked: each entry of agent.mcpServers is checked against
// ACP's McpServer shapes when the file is loaded, every problem at its
// place, saying what to write.
func TestMcpServersChecked(t *testing.T) {
	src := `name: x
agent:
  command: [a]
  mcpServers:
    - {name: b, command: /bin/true, args: [x], env: {K: v}}
    - {name: a}
    - {command: /bin/true}
    - {name: c, type: websocket, url: "ws://x"}
    - {name: "", command: /bin/t, args: x}
    - {name: h, type: http, command: /bin/t, url: "http://x", headers: [{name: A}]}
turns: [{prompt: hi}]
`
	want := []string{
		`bad.yaml:5:53: MCP server env is a list of {name, value}: write env: [{name: NAME, value: VALUE}], got a mapping`,
		`bad.yaml:6:7: MCP server: missing required key "command" (a stdio server is {name, command, args, env}; an http or sse one {name, type, url, headers})`,
		`bad.yaml:7:7: MCP server: missing required key "name" (a stdio server is {name, command, args, env}; an http or sse one {name, type, url, headers})`,
		`bad.yaml:8:23: unknown MCP server type "websocket" (valid types: http, sse); a stdio server (command, args, env) has no type`,
		`bad.yaml:9:14: MCP server name is empty`,
		`bad.yaml:9:41: expected a list of strings, got a string`,
		`bad.yaml:10:29: an http server has no command (its keys: name, type, url, headers, _meta)`,
		`bad.yaml:10:73: missing required key "value"`,
	}
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestMcpServersNamesAndURLs: two servers of one name, which an agent
// keeps by name (one replaces the other), and the url of an http or sse
// server that is not an http or https URL, which the agent could never
// connect to, are errors at load, at the value.
func TestMcpServersNamesAndURLs(t *testing.T) {
	src := `name: x
agent:
  command: [a]
  mcpServers:
    - {name: fs, command: /bin/true}
    - {name: web, type: http, url: "https://mcp.example.com/mcp"}
    - {name: fs, command: /bin/false}
    - {name: s, type: sse, url: "not a url"}
    - {name: t, type: http, url: "ftp://mcp.example.com"}
    - {name: u, type: http, url: "http://"}
turns: [{prompt: hi}]
`
	want := []string{
		`bad.yaml:7:14: MCP server name "fs" is also the name of the server at line 5: the agent would keep one of them; give each server its own name`,
		`bad.yaml:8:33: MCP server url "not a url" is not an http or https URL (such as https://mcp.example.com/mcp)`,
		`bad.yaml:9:34: MCP server url "ftp://mcp.example.com" is not an http or https URL (such as https://mcp.example.com/mcp)`,
		`bad.yaml:10:34: MCP server url "http://" is not an http or https URL (such as https://mcp.example.com/mcp)`,
	}
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestMcpServersJSON: the servers go to session/new as written, their
// strings interpolated (a number is a string where ACP wants one), and a
// relative command path resolved against the file's directory; a bare
// name stays, for the agent to find in its PATH.
func TestMcpServersJSON(t *testing.T) {
	dir := t.TempDir()
	src := `name: x
agent:
  command: [a]
  mcpServers:
    - {name: t, command: ./bin/tool.sh, args: [a, 1], env: [{name: K, value: 2}]}
    - {name: n, command: npx, args: null}
    - {type: sse, name: s, url: "https://mcp.example.com${HOME}", headers: [{name: A, value: b, _meta: {x: 1}}]}
turns: [{prompt: hi}]
`
	scens, _, err := scenario.LoadBytes(filepath.Join(dir, "s.yaml"), []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(scens[0].Agent.McpServers, &got); err != nil {
		t.Fatalf("%v: %s", err, scens[0].Agent.McpServers)
	}
	wantJSON := `[{"name":"t","command":"` + filepath.Join(dir, "bin/tool.sh") + `","args":["a","1"],"env":[{"name":"K","value":"2"}]},
		{"name":"n","command":"npx","args":[]},
		{"type":"sse","name":"s","url":"https://mcp.example.com/home/user","headers":[{"name":"A","value":"b","_meta":{"x":1}}]}]`
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mcpServers (-want +got):\n%s", diff)
	}
}
