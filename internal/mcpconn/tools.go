package mcpconn

import (
	"encoding/json"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Tool is a server's tool as exposed to models.
type Tool struct {
	// Name is what models call it: unique across servers, stable across
	// restarts, matching ^[a-zA-Z0-9_-]{1,64}$.
	Name         string `json:"name"`
	ServerID     string `json:"serverId"`
	ServerName   string `json:"serverName"`
	OriginalName string `json:"originalName"`
	Title        string `json:"title,omitempty"`
	Description  string `json:"description"`
	// InputSchema is the tool's input schema cleaned for providers (see
	// cleanSchema): always an object schema.
	InputSchema json.RawMessage `json:"inputSchema"`
	// Annotations are the server's hints (readOnlyHint, destructiveHint, ...).
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Enabled is false when the user switched the tool off
	// (serverconf.Config.DisabledTools); such a tool cannot be called.
	Enabled bool `json:"enabled"`
	// Fingerprint is serverconf.Fingerprint of the server's config: what
	// approval grants are tied to.
	Fingerprint string `json:"fingerprint"`
}

// toolInfo is a listed tool, prepared once per listing.
type toolInfo struct {
	name, title, description string
	schema, annotations      json.RawMessage
}

func prepareTools(list []*mcp.Tool) []toolInfo {
	out := make([]toolInfo, 0, len(list))
	for _, t := range list {
		ti := toolInfo{name: t.Name, title: t.Title, description: t.Description, schema: cleanSchema(t.InputSchema)}
		if t.Annotations != nil {
			ti.annotations, _ = json.Marshal(t.Annotations)
			if ti.title == "" {
				ti.title = t.Annotations.Title
			}
		}
		out = append(out, ti)
	}
	return out
}

// rebuildRegistry recomputes the exposed tools of all live sessions. Names
// depend on the whole set (collisions), so it is rebuilt as a whole.
func (m *Manager) rebuildRegistry() {
	m.regMu.Lock()
	defer m.regMu.Unlock()
	m.mu.Lock()
	servers := m.serversLocked()
	m.mu.Unlock()

	type part struct {
		id, name    string
		fingerprint string
		disabled    []string
		tools       []toolInfo
	}
	var parts []part
	var keys []toolKey
	for _, s := range servers {
		s.mu.Lock()
		p := part{id: s.id, name: s.cfg.DisplayName(), fingerprint: serverconf.Fingerprint(&s.cfg), disabled: s.cfg.DisabledTools, tools: s.tools}
		s.mu.Unlock()
		parts = append(parts, p)
		for _, t := range p.tools {
			keys = append(keys, toolKey{s.id, t.name})
		}
	}
	names := exposedNames(keys)
	registry := make([]Tool, 0, len(keys))
	byName := make(map[string]toolKey, len(keys))
	perServer := make(map[string][]Tool, len(parts))
	for _, p := range parts {
		list := make([]Tool, 0, len(p.tools))
		for _, t := range p.tools {
			k := toolKey{p.id, t.name}
			tool := Tool{
				Name: names[k], ServerID: p.id, ServerName: p.name, OriginalName: t.name,
				Title: t.title, Description: t.description, InputSchema: t.schema, Annotations: t.annotations,
				Enabled: !slices.Contains(p.disabled, t.name), Fingerprint: p.fingerprint,
			}
			list = append(list, tool)
			byName[tool.Name] = k
		}
		registry = append(registry, list...)
		perServer[p.id] = list
	}
	m.mu.Lock()
	m.registry, m.byName, m.regTools = registry, byName, perServer
	m.mu.Unlock()
}

// emitTools sends the server's current tools as EventServerTools.
func (s *server) emitTools() {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.m.mu.Lock()
	tools := slices.Clone(s.m.regTools[s.id])
	s.m.mu.Unlock()
	if tools == nil {
		tools = []Tool{}
	}
	s.m.emit(EventServerTools, ToolsEvent{ServerID: s.id, Tools: tools})
}

// Tools returns the tools of every connected server, disabled ones
// included (Enabled false), in configuration order.
func (m *Manager) Tools() []Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.registry)
}

// Lookup finds a tool by its exposed name.
func (m *Manager) Lookup(name string) (Tool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.byName[name]
	if !ok {
		return Tool{}, false
	}
	for _, t := range m.regTools[k.server] {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}
