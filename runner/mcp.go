package runner

import (
	"fmt"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/scenario"
)

// filterMcpServers returns the servers the agent can take, by its
// mcpCapabilities: stdio servers always (every agent must support them),
// http and sse servers only when advertised, and servers of other types
// as written. There is one warning for each server left out, at its entry
// in agent.mcpServers (pos[i] is server i's, when known).
func filterMcpServers(servers []acp.McpServer, pos []scenario.Pos, caps acp.McpCapabilities) (kept []acp.McpServer, warnings []string) {
	kept = make([]acp.McpServer, 0, len(servers))
	for i, s := range servers {
		var ok bool
		switch s.Type {
		case acp.McpHTTP:
			ok = caps.HTTP
		case acp.McpSSE:
			ok = caps.SSE
		default:
			ok = true
		}
		if !ok {
			var at scenario.Pos
			if i < len(pos) {
				at = pos[i]
			}
			warnings = append(warnings, posMsg(at, fmt.Sprintf("agent.mcpServers: MCP server %q left out: the agent does not support %s MCP servers (its mcpCapabilities.%s is not true); give it as a stdio server (command, args, env), which every agent takes, or remove it", s.Name, s.Type, s.Type)))
			continue
		}
		kept = append(kept, s)
	}
	return kept, warnings
}
