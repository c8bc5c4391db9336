// Package mcpregistry reads an MCP registry (the official one at
// registry.modelcontextprotocol.io, or a subregistry that speaks its API)
// and turns one of its entries into what Switchboard adds: an npm package
// to install, an .mcpb bundle, a remote server's config, or a plain stdio
// command (uvx, docker, dnx) that Switchboard runs but does not install.
//
// The client speaks the stable API version, /v0.1 ("GET /v0.1/servers",
// "GET /v0.1/servers/{name}/versions/{version|latest}"), and falls back
// to /v0, which older subregistries serve, when /v0.1 answers 404. The
// types mirror the registry's server.json (schema 2025-12-11, camelCase)
// with only the fields Switchboard uses; unknown fields are ignored.
//
// A registry is a server on the internet that anyone can publish to, so
// every reply is bounded (size, entries, strings) and its text is cleaned
// of control characters before anything shows it; an entry's identifiers
// and arguments are checked, never run through a shell, and shown to the
// user (Plan) before anything is added.
package mcpregistry

// DefaultURL is the official MCP registry.
const DefaultURL = "https://registry.modelcontextprotocol.io"

// An Entry is one version of one server, as the registry lists it: the
// publisher's server.json and the registry's own metadata.
type Entry struct {
	Server Server    `json:"server"`
	Meta   EntryMeta `json:"_meta"`
}

// EntryMeta is the registry-managed metadata of an Entry.
type EntryMeta struct {
	// Official is the official registry's metadata; nil when the registry
	// sends none (a subregistry need not).
	Official *Official `json:"io.modelcontextprotocol.registry/official,omitempty"`
}

// Official is what the official registry says about an entry.
type Official struct {
	// Status is "active", "deprecated" or "deleted"; empty means active.
	Status string `json:"status,omitempty"`
	// StatusMessage says why a server is deprecated, say.
	StatusMessage string `json:"statusMessage,omitempty"`
	// PublishedAt and UpdatedAt are RFC 3339 timestamps, kept as text.
	PublishedAt string `json:"publishedAt,omitempty"`
	UpdatedAt   string `json:"updatedAt,omitempty"`
	IsLatest    bool   `json:"isLatest,omitempty"`
}

// Status is the entry's lifecycle status: "active", "deprecated" or
// "deleted" ("active" when the registry says nothing).
func (e *Entry) Status() string {
	if e.Meta.Official == nil || e.Meta.Official.Status == "" {
		return "active"
	}
	return e.Meta.Official.Status
}

// A Server is a server.json: what a server is and the ways to run it.
type Server struct {
	// Name is reverse-DNS, with one slash: "io.github.user/weather".
	Name string `json:"name"`
	// Title is an optional display name.
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Icons       []Icon      `json:"icons,omitempty"`
	// Packages are the ways to run the server locally.
	Packages []ServerPackage `json:"packages,omitempty"`
	// Remotes are the URLs where the server already runs.
	Remotes []Transport `json:"remotes,omitempty"`
}

// DisplayName is Title, or the part of Name after the slash.
func (s *Server) DisplayName() string {
	if s.Title != "" {
		return s.Title
	}
	return shortName(s.Name)
}

// Repository is where a server's source code is.
type Repository struct {
	URL       string `json:"url,omitempty"`
	Source    string `json:"source,omitempty"`
	Subfolder string `json:"subfolder,omitempty"`
}

// An Icon is an image a user interface may show for a server.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Registry types of a Package.
const (
	RegistryNPM   = "npm"
	RegistryPyPI  = "pypi"
	RegistryOCI   = "oci"
	RegistryNuGet = "nuget"
	RegistryMCPB  = "mcpb"
)

// Transport types.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"
)

// A ServerPackage is a way to run a server from a package registry.
type ServerPackage struct {
	// RegistryType is npm, pypi, oci, nuget or mcpb.
	RegistryType string `json:"registryType"`
	// RegistryBaseURL is the package registry; empty means the usual
	// one (https://registry.npmjs.org for npm).
	RegistryBaseURL string `json:"registryBaseUrl,omitempty"`
	// Identifier is the package name, the image, or for mcpb the
	// bundle's URL.
	Identifier string `json:"identifier"`
	// Version is exact; an OCI image may carry its tag in Identifier
	// instead.
	Version string `json:"version,omitempty"`
	// FileSHA256 is the hex SHA-256 of an mcpb bundle.
	FileSHA256 string `json:"fileSha256,omitempty"`
	// RuntimeHint is the command the publisher expects: npx, uvx,
	// docker, dnx.
	RuntimeHint          string          `json:"runtimeHint,omitempty"`
	Transport            Transport       `json:"transport"`
	RuntimeArguments     []Argument      `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument      `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValueInput `json:"environmentVariables,omitempty"`
}

// A Transport says how to talk to a server: stdio for a package, or
// streamable-http or sse with a URL. The URL may hold {NAME} templates,
// which for a remote name its Variables.
type Transport struct {
	Type    string          `json:"type"`
	URL     string          `json:"url,omitempty"`
	Headers []KeyValueInput `json:"headers,omitempty"`
	// Variables, of a remote, are the values its URL's {NAME}s stand for.
	Variables map[string]Input `json:"variables,omitempty"`
}

// An Input is a value the user may be asked for.
type Input struct {
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	// Format is string (the default), number, boolean or filepath.
	Format string `json:"format,omitempty"`
	// Value, when set, is fixed: the user is not asked. Each {NAME} in it
	// with NAME in Variables stands for that variable's value; other
	// braces are text.
	Value       string   `json:"value,omitempty"`
	IsSecret    bool     `json:"isSecret,omitempty"`
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	// Variables are the inputs Value's {NAME}s stand for.
	Variables map[string]Input `json:"variables,omitempty"`
}

// A KeyValueInput is an environment variable or a header.
type KeyValueInput struct {
	Input
	Name string `json:"name"`
}

// Argument types.
const (
	ArgPositional = "positional"
	ArgNamed      = "named"
)

// An Argument is one command-line argument: positional (its Value, or
// the user's value for ValueHint) or named (Name, then its value).
type Argument struct {
	Input
	Type       string `json:"type"`
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
}

// A Page is one page of search results.
type Page struct {
	Entries []Entry `json:"entries"`
	// NextCursor fetches the next page; empty on the last one.
	NextCursor string `json:"nextCursor,omitempty"`
	// Skipped counts entries of the reply left out because they were
	// not valid (no name, a name not of the registry's form).
	Skipped int `json:"skipped,omitempty"`
}
