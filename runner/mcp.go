package runner

import (
	"fmt"

	"github.com/acprun/acprun/acp"
)

// filterMcpServers returns the servers the agent can take, by its
// mcpCapabilities: stdio servers always (every agent must support them),
// http and sse servers only when advertised, and servers of other types
// as written. There is one warning for each server left out.
func filterMcpServers(servers []acp.McpServer, caps acp.McpCapabilities) (kept []acp.McpServer, warnings []string) {
	kept = make([]acp.McpServer, 0, len(servers))
	for _, s := range servers {
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
			warnings = append(warnings, fmt.Sprintf("MCP server %q left out: the agent does not support %s MCP servers (its mcpCapabilities.%s is not true)", s.Name, s.Type, s.Type))
			continue
		}
		kept = append(kept, s)
	}
	return kept, warnings
}
