// Package registry serves the MCP registry API from a fixed list of
// entries, for tests (in process, with httptest) and for the browser
// end-to-end tests (through the registryserver command).
//
// It speaks what registry.modelcontextprotocol.io serves, under both
// /v0.1 (the stable version) and /v0:
//
//	GET /v0.1/servers?search=&limit=&cursor=&version=&updated_since=&include_deleted=
//	GET /v0.1/servers/{name}/versions
//	GET /v0.1/servers/{name}/versions/{version|latest}
//
// with the names path-escaped ("io.github.user%2Fweather"), replies of
// the form {"servers": [{"server": {...}, "_meta": {...}}], "metadata":
// {"nextCursor", "count"}}, cursors "name:version" of the last entry of a
// page, and errors as RFC 9457 problem details ({"title", "status",
// "detail"}), as the official registry's huma framework sends them.
package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// An Entry is one version of one server.
type Entry struct {
	// Name, Version and Description are read from Server.
	Name, Version, Description string
	// Server is the server.json, served as it is.
	Server json.RawMessage
	// Status is active, deprecated or deleted.
	Status string
	// StatusMessage, PublishedAt and UpdatedAt (RFC 3339) are served in
	// the registry's metadata.
	StatusMessage, PublishedAt, UpdatedAt string
	// IsLatest marks the latest version of its server.
	IsLatest bool
}

// officialKey is the registry's own metadata key.
const officialKey = "io.modelcontextprotocol.registry/official"

type official struct {
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	PublishedAt   string `json:"publishedAt,omitempty"`
	UpdatedAt     string `json:"updatedAt,omitempty"`
	IsLatest      bool   `json:"isLatest"`
}

// Load reads a fixture file (see Parse).
func Load(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading registry data: %w", err)
	}
	entries, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return entries, nil
}

// Parse reads entries in the shape of a list reply: {"servers":
// [{"server": {...}, "_meta": {"io.modelcontextprotocol.registry/official":
// {...}}}]}. Without metadata an entry is active and published at a fixed
// time; the latest version of a server is the one marked isLatest, else
// the last one listed.
func Parse(data []byte) ([]Entry, error) {
	var file struct {
		Servers []struct {
			Server json.RawMessage `json:"server"`
			Meta   struct {
				Official *official `json:"io.modelcontextprotocol.registry/official"`
			} `json:"_meta"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("parsing registry data: %w", err)
	}
	var entries []Entry
	marked := map[string]bool{}
	for i, s := range file.Servers {
		var head struct{ Name, Version, Description string }
		if err := json.Unmarshal(s.Server, &head); err != nil || head.Name == "" || head.Version == "" {
			return nil, fmt.Errorf("servers[%d]: a server needs a name and a version", i)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, s.Server); err != nil {
			return nil, fmt.Errorf("servers[%d]: %w", i, err)
		}
		e := Entry{Name: head.Name, Version: head.Version, Description: head.Description, Server: compact.Bytes(),
			Status: "active", PublishedAt: "2025-09-01T12:00:00Z", UpdatedAt: "2025-09-01T12:00:00Z"}
		if o := s.Meta.Official; o != nil {
			if o.Status != "" {
				e.Status = o.Status
			}
			e.StatusMessage = o.StatusMessage
			if o.PublishedAt != "" {
				e.PublishedAt, e.UpdatedAt = o.PublishedAt, o.PublishedAt
			}
			if o.UpdatedAt != "" {
				e.UpdatedAt = o.UpdatedAt
			}
			e.IsLatest = o.IsLatest
			marked[e.Name] = marked[e.Name] || o.IsLatest
		}
		for _, prev := range entries {
			if prev.Name == e.Name && prev.Version == e.Version {
				return nil, fmt.Errorf("servers[%d]: %s %s is listed twice", i, e.Name, e.Version)
			}
		}
		entries = append(entries, e)
	}
	for i := range entries {
		if marked[entries[i].Name] {
			continue
		}
		last := true
		for _, later := range entries[i+1:] {
			last = last && later.Name != entries[i].Name
		}
		entries[i].IsLatest = last
	}
	return entries, nil
}

// Options changes how a Handler serves; nil means the defaults.
type Options struct {
	// Prefixes are the API versions served; nil means /v0.1 and /v0.
	Prefixes []string
}

// A Handler serves the registry API from its entries.
type Handler struct {
	entries []Entry // sorted by name, each name's versions in file order
	mux     *http.ServeMux
}

// NewHandler serves entries.
func NewHandler(entries []Entry, opts *Options) *Handler {
	h := &Handler{entries: slices.Clone(entries), mux: http.NewServeMux()}
	slices.SortStableFunc(h.entries, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	prefixes := []string{"/v0.1", "/v0"}
	if opts != nil && opts.Prefixes != nil {
		prefixes = opts.Prefixes
	}
	for _, p := range prefixes {
		h.mux.HandleFunc("GET "+p+"/servers", h.list)
		h.mux.HandleFunc("GET "+p+"/servers/{name}/versions", h.versions)
		h.mux.HandleFunc("GET "+p+"/servers/{name}/versions/{version}", h.version)
	}
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		problem(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Limits of the list endpoint, as the official registry's.
const (
	defaultLimit = 30
	maxLimit     = 100
)

func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := defaultLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			invalid(w, "query.limit", s, fmt.Sprintf("expected number between 1 and %d", maxLimit))
			return
		}
		limit = n
	}
	includeDeleted := q.Get("include_deleted") == "true"
	var since time.Time
	if s := q.Get("updated_since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			problem(w, http.StatusBadRequest, "Invalid updated_since format: expected RFC3339 timestamp (e.g., 2025-08-07T13:15:04.280Z)")
			return
		}
		since, includeDeleted = t, true
	}
	search := strings.ToLower(q.Get("search"))
	version := q.Get("version")

	start := 0
	if c := q.Get("cursor"); c != "" {
		i := slices.IndexFunc(h.entries, func(e Entry) bool { return e.Name+":"+e.Version == c })
		if i < 0 {
			problem(w, http.StatusBadRequest, "Invalid cursor parameter")
			return
		}
		start = i + 1
	}
	match := func(e Entry) bool {
		switch {
		case e.Status == "deleted" && !includeDeleted:
		case version == "latest" && !e.IsLatest:
		case version != "" && version != "latest" && e.Version != version:
		case search != "" && !strings.Contains(strings.ToLower(e.Name), search) && !strings.Contains(strings.ToLower(e.Description), search):
		case !since.IsZero() && !updatedSince(e, since):
		default:
			return true
		}
		return false
	}
	var page []Entry
	next := ""
	for _, e := range h.entries[start:] {
		if !match(e) {
			continue
		}
		if len(page) == limit {
			last := page[len(page)-1]
			next = last.Name + ":" + last.Version
			break
		}
		page = append(page, e)
	}
	writeList(w, page, next)
}

func updatedSince(e Entry, since time.Time) bool {
	t, err := time.Parse(time.RFC3339, e.UpdatedAt)
	return err == nil && !t.Before(since)
}

func (h *Handler) versions(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	includeDeleted := r.URL.Query().Get("include_deleted") == "true"
	var out []Entry
	for _, e := range h.entries {
		if e.Name == name && (e.Status != "deleted" || includeDeleted) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		problem(w, http.StatusNotFound, "Server not found")
		return
	}
	slices.Reverse(out) // newest first
	writeList(w, out, "")
}

func (h *Handler) version(w http.ResponseWriter, r *http.Request) {
	name, version := r.PathValue("name"), r.PathValue("version")
	includeDeleted := r.URL.Query().Get("include_deleted") == "true"
	for _, e := range h.entries {
		if e.Name == name && (e.Version == version || version == "latest" && e.IsLatest) && (e.Status != "deleted" || includeDeleted) {
			writeJSON(w, http.StatusOK, response(e))
			return
		}
	}
	problem(w, http.StatusNotFound, "Server not found")
}

// serverResponse is one entry as the API sends it.
type serverResponse struct {
	Server json.RawMessage `json:"server"`
	Meta   map[string]any  `json:"_meta"`
}

func response(e Entry) serverResponse {
	return serverResponse{Server: e.Server, Meta: map[string]any{officialKey: official{
		Status: e.Status, StatusMessage: e.StatusMessage, PublishedAt: e.PublishedAt, UpdatedAt: e.UpdatedAt, IsLatest: e.IsLatest,
	}}}
}

func writeList(w http.ResponseWriter, entries []Entry, next string) {
	type metadata struct {
		NextCursor string `json:"nextCursor,omitempty"`
		Count      int    `json:"count"`
	}
	servers := make([]serverResponse, len(entries))
	for i, e := range entries {
		servers[i] = response(e)
	}
	writeJSON(w, http.StatusOK, struct {
		Servers  []serverResponse `json:"servers"`
		Metadata metadata         `json:"metadata"`
	}{servers, metadata{next, len(entries)}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// problem writes an RFC 9457 error, as huma does.
func problem(w http.ResponseWriter, status int, detail string) {
	writeProblem(w, status, detail, nil)
}

// invalid writes huma's validation error for one parameter.
func invalid(w http.ResponseWriter, location, value, message string) {
	writeProblem(w, http.StatusUnprocessableEntity, "validation failed",
		[]map[string]string{{"message": message, "location": location, "value": value}})
}

func writeProblem(w http.ResponseWriter, status int, detail string, errs []map[string]string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	body := map[string]any{"title": http.StatusText(status), "status": status, "detail": detail}
	if errs != nil {
		body["errors"] = errs
	}
	_ = json.NewEncoder(w).Encode(body)
}
