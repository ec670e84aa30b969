package scenario

import (
	"bytes"
	"net/url"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// The keys of an entry of agent.mcpServers, ACP's McpServer: a stdio
// server (no type) has mcpStdioKeys, an http or sse one mcpRemoteKeys;
// nameValueKeys are those of an env variable or a header.
var (
	mcpServerKeys = []string{"name", "type", "command", "args", "env", "url", "headers", "_meta"}
	mcpStdioKeys  = []string{"name", "command", "args", "env", "_meta"}
	mcpRemoteKeys = []string{"name", "type", "url", "headers", "_meta"}
	mcpTypes      = []string{"http", "sse"}
	nameValueKeys = []string{"name", "value", "_meta"}
)

// mcpServers reads agent.mcpServers, a list of MCP servers, each checked
// and converted to JSON by mcpServer, and says where each server's entry
// was written.
func (p *fileParser) mcpServers(n *yaml.Node) (json.RawMessage, []Pos) {
	n, ok := p.Want(n, yaml.SequenceNode, "a list of MCP servers")
	if !ok {
		return json.RawMessage("[]"), nil
	}
	errs := len(p.Errs)
	var buf bytes.Buffer
	var pos []Pos
	budget := 100_000
	named := map[string]*yaml.Node{} // each server's name, where written
	buf.WriteByte('[')
	for i, item := range n.Content {
		if i > 0 {
			buf.WriteByte(',')
		}
		if name, at := p.mcpServer(&buf, item, &budget); at != nil {
			if first, ok := named[name]; ok {
				p.Errorf(at, "MCP server name %q is also the name of the server at line %d: the agent would keep one of them; give each server its own name", name, p.pos(first).Line)
			} else {
				named[name] = at
			}
		}
		pos = append(pos, p.pos(item))
	}
	buf.WriteByte(']')
	if len(p.Errs) > errs {
		return json.RawMessage("[]"), nil
	}
	return json.RawMessage(buf.Bytes()), pos
}

// mcpServer checks one entry of mcpServers against ACP's McpServer shapes
// and writes it to buf as JSON, its keys in the order written and
// variables expanded in its strings. A stdio server (no type) needs a name
// and a command: an absolute path, a bare name the agent looks up in its
// PATH, or a path with a / relative to the file's directory, which is made
// absolute (ACP wants the absolute path of the executable); args is a list
// of strings. An http or sse server needs a name and a url, an http or
// https URL. env and headers are lists of {name, value}. Every problem is
// reported. It returns the server's name and the node that gives it (nil
// when it has none).
func (p *fileParser) mcpServer(buf *bytes.Buffer, n *yaml.Node, budget *int) (name string, at *yaml.Node) {
	if yamlnode.Deref(n).Kind != yaml.MappingNode {
		p.Expected(n, "an MCP server (a mapping: {name, command, args, env}, or {name, type: http or sse, url, headers})")
		return "", nil
	}
	m, _ := p.mapping(n, mcpServerKeys, nil)
	keys, kind, typ := mcpStdioKeys, "a stdio server (without type)", ""
	if v := m.value("type"); v != nil {
		if t, ok := p.interp(v); ok {
			keys, kind, typ = mcpRemoteKeys, "an "+t+" server", t
			if !slices.Contains(mcpTypes, t) {
				p.Errorf(v, "%s; a stdio server (command, args, env) has no type", unknownMsg("MCP server type", t, mcpTypes, "types"))
			}
		}
	}
	required := []string{"name", "command"}
	if typ != "" {
		required[1] = "url"
	}
	for _, k := range required {
		if _, ok := m.has[k]; !ok && !m.suggested[k] {
			p.Errorf(m.n, "MCP server: missing required key %q (a stdio server is {name, command, args, env}; an http or sse one {name, type, url, headers})", k)
		}
	}
	buf.WriteByte('{')
	first := true
	for _, kv := range m.pairs {
		if !slices.Contains(keys, kv.Key) {
			p.Errorf(kv.K, "%s has no %s (its keys: %s)", kind, kv.Key, strings.Join(keys, ", "))
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeJSON(buf, kv.Key)
		buf.WriteByte(':')
		v := yamlnode.Deref(kv.V)
		switch kv.Key {
		case "type":
			writeJSON(buf, typ)
		case "_meta":
			p.toJSON(buf, v, 0, budget)
		case "args":
			args := []string{}
			if !yamlnode.IsNull(v) {
				nodes, _ := p.strNodes(v, false, false)
				for _, a := range nodes {
					if s, ok := p.interpArg(a); ok {
						args = append(args, s)
					}
				}
			}
			writeJSON(buf, args)
		case "env", "headers":
			writeJSON(buf, p.nameValues(v, kv.Key, budget))
		default: // name, command, url
			s, ok := p.interpArg(v)
			switch {
			case !ok:
			case strings.TrimSpace(s) == "":
				p.Errorf(v, "MCP server %s is empty", kv.Key)
			case kv.Key == "name":
				name, at = s, v
			case kv.Key == "command" && strings.Contains(s, "/"):
				s = p.abs(s)
			case kv.Key == "url" && slices.Contains(mcpTypes, typ) && !httpURL(s):
				p.Errorf(v, "MCP server url %q is not an http or https URL (such as https://mcp.example.com/mcp)", s)
			}
			writeJSON(buf, s)
		}
	}
	buf.WriteByte('}')
	return name, at
}

// httpURL reports whether s is an http or https URL with a host, as the
// url of an http or sse MCP server must be.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// nameValue is an env variable or a header of an MCP server.
type nameValue struct {
	Name  string          `json:"name"`
	Value string          `json:"value"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// nameValues reads the env or headers (key) of an MCP server: a list of
// {name, value}, or null for none.
func (p *fileParser) nameValues(n *yaml.Node, key string, budget *int) []nameValue {
	out := []nameValue{}
	if yamlnode.IsNull(n) {
		return out
	}
	if n.Kind != yaml.SequenceNode {
		p.Errorf(n, "MCP server %s is a list of {name, value}: write %s: [{name: NAME, value: VALUE}], got %s", key, key, yamlnode.Describe(n))
		return out
	}
	for _, item := range n.Content {
		m, ok := p.mapping(item, nameValueKeys, nil)
		if !ok {
			continue
		}
		p.require(m, "name", "value")
		var nv nameValue
		for _, kv := range m.pairs {
			v := yamlnode.Deref(kv.V)
			if kv.Key == "_meta" {
				var meta bytes.Buffer
				if p.toJSON(&meta, v, 0, budget) {
					nv.Meta = meta.Bytes()
				}
				continue
			}
			if kv.Key == "value" {
				nv.Value, _ = p.secretValue(v)
				continue
			}
			s, _ := p.interpArg(v)
			nv.Name = s
			if s == "" {
				p.Errorf(v, "MCP server %s: a name is empty", key)
			}
		}
		out = append(out, nv)
	}
	return out
}

// writeJSON writes v, a string or a value of strings, as JSON.
func writeJSON(buf *bytes.Buffer, v any) {
	b, _ := json.Marshal(v)
	buf.Write(b)
}
