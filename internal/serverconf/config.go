// Package serverconf describes an MCP server as the user configured it:
// how to reach it (stdio command, SSE or streamable-HTTP URL), its
// environment and headers, and its per-server settings. It validates a
// config field by field and reads and writes the formats users already have
// (Claude Desktop, VS Code, Cursor).
//
// Secret values (env values and header values marked secret, passwords in
// URLs in args) never live in a stored Config: the config holds a SecretRef
// naming a keyring entry instead, or for an argument an ${secret:NAME}
// placeholder (ArgSecretRef). ExtractSecrets moves them there on save; an
// imported file may also name secrets it does not contain (VS Code's
// ${input:...}), which Import reports in NeedsInput rather than inventing a
// value. A reference may only name the server's own entries
// ("server/<id>/..."): Validate refuses others, and so does the connection
// manager when it reads them.
//
// Import reads JSON with comments and trailing commas (VS Code's mcp.json is
// JSONC; github.com/tailscale/hujson turns it into JSON) and never writes:
// the caller saves all of ImportReport.Added or nothing. An entry is a
// duplicate when its ID (slugged from its name) or its Fingerprint matches
// a saved server or an earlier entry.
package serverconf

import "time"

// Transport names how Switchboard talks to a server.
type Transport string

const (
	TransportStdio Transport = "stdio"
	TransportSSE   Transport = "sse"
	TransportHTTP  Transport = "http" // streamable HTTP
	// TransportCommand is a set of plain commands offered as tools
	// (Config.Tools), which Switchboard serves itself, in process.
	TransportCommand Transport = "command"
)

// Transports lists every Transport (the frontend's contract is generated
// from it).
var Transports = []Transport{TransportStdio, TransportSSE, TransportHTTP, TransportCommand}

// DefaultCallTimeout is the per-call timeout used when Config.CallTimeout is zero.
const DefaultCallTimeout = 60 * time.Second

// A Value is an env or header value: either plain text kept in the config,
// or a reference to a secret kept in the OS keyring.
type Value struct {
	// Plain is the value itself when the value is not secret.
	Plain string `json:"plain,omitempty"`
	// SecretRef names the keyring entry that holds a secret value; empty
	// means the value is plain.
	SecretRef string `json:"secretRef,omitempty"`
}

// Config is one configured MCP server.
type Config struct {
	// ID is stable, unique, and safe in tool names: [a-z0-9_-]{1,32}.
	ID string `json:"id"`
	// Name is the display name; empty means ID.
	Name      string    `json:"name"`
	Transport Transport `json:"transport" ts_type:"Transport"`

	// stdio
	Command string           `json:"command,omitempty"`
	Args    []string         `json:"args,omitempty"`
	Env     map[string]Value `json:"env,omitempty"`
	Cwd     string           `json:"cwd,omitempty"`
	// InheritEnv gives the server the app's whole environment (with Env on
	// top). False, the default, gives it only a short allowlist (PATH, HOME,
	// USER, LANG, TMPDIR, ... and what the OS needs to run programs) plus
	// Env, so that API keys, cloud credentials and the session bus address
	// in the app's environment do not reach it.
	InheritEnv bool `json:"inheritEnv,omitempty"`

	// command: the tools, each a program run with Env, InheritEnv and Cwd
	// above (see CommandTool).
	Tools []CommandTool `json:"tools,omitempty"`

	// sse and http
	URL     string           `json:"url,omitempty"`
	Headers map[string]Value `json:"headers,omitempty"`

	// Enabled servers are connected at start.
	Enabled bool `json:"enabled"`
	// CallTimeout bounds one tool call; zero means DefaultCallTimeout.
	CallTimeout time.Duration `json:"callTimeout,omitempty"`

	// DisabledTools lists original tool names the user switched off.
	DisabledTools []string `json:"disabledTools,omitempty"`

	// Auth holds OAuth / client-credential settings for remote servers; nil
	// means none (the server may still ask for authorization at connect).
	Auth *Auth `json:"auth,omitempty"`

	// LogLevel is the least severe MCP log message (notifications/message)
	// the server is asked to send, by logging/setLevel at connect and on
	// every change, if it declares logging. Empty, the default, asks
	// nothing: the server sends what it likes (most Node and Python
	// servers everything, Go SDK servers nothing).
	LogLevel LogLevel `json:"logLevel,omitempty" ts_type:"LogLevel"`

	// Install, set on a stdio server Switchboard installed into its data
	// directory (an npm package or a .mcpb bundle), says what is installed.
	// Its Command and Args may then name files of the install as
	// ${install}/..., which the connection puts back (InstallDirVar).
	Install *Install `json:"install,omitempty"`

	// Roots are the folders (absolute paths) the server is told it may
	// work in, as MCP roots. Empty, the default, offers none and does not
	// even declare the roots capability: a server such as
	// server-filesystem replaces the directories it was started with by
	// the client's roots. A change while it is connected is sent as
	// notifications/roots/list_changed; offering roots where there were
	// none, or none where there were some, reconnects it.
	Roots []string `json:"roots,omitempty"`
}

// InstallDirVar stands for an installed server's folder
// (<data>/servers/<id>) in its Command, Args and Cwd, so that the config
// stays right when the data directory moves.
const InstallDirVar = "${install}"

// An InstallKind is what an installed server was installed from.
type InstallKind string

const (
	// InstallNPM is a package from an npm registry, or an npm package
	// tarball (.tgz) from a file.
	InstallNPM InstallKind = "npm"
	// InstallMCPB is an MCP Bundle (.mcpb, Claude Desktop's format).
	InstallMCPB InstallKind = "mcpb"
)

// InstallKinds lists every InstallKind (the frontend's contract is
// generated from it).
var InstallKinds = []InstallKind{InstallNPM, InstallMCPB}

// Install describes a server installed into the data directory.
type Install struct {
	Kind InstallKind `json:"kind" ts_type:"InstallKind"`
	// Package is the npm package name, or the bundle's name.
	Package string `json:"package"`
	// Version is the exact version installed.
	Version string `json:"version"`
	// File is the name of the .tgz or .mcpb it was installed from; empty
	// for a package from the registry.
	File string `json:"file,omitempty"`
	// Pinned servers are left alone by an update that names no version.
	Pinned bool `json:"pinned,omitempty"`
	// Bin is the package's command the server runs, when it has several.
	Bin string `json:"bin,omitempty"`
	// Values are a bundle's settings (user_config) as the user gave them,
	// but for the sensitive ones, which are only in the keyring: an update
	// fills the new version in with them.
	Values map[string]string `json:"values,omitempty"`
	// Runtime is what runs it: "node" (Switchboard picks the Node, see
	// noderuntime), "python", "uv" or "binary".
	Runtime string `json:"runtime"`
}

// MaxRoots is how many roots one server may be offered.
const MaxRoots = 32

// A LogLevel is an MCP logging level, the syslog severities of RFC 5424.
type LogLevel string

// LogLevels lists every LogLevel, least severe first (the frontend's
// contract is generated from it).
var LogLevels = []LogLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Auth configures how a remote server is authorized.
type Auth struct {
	// ClientID and ClientSecretRef configure a pre-registered client; empty
	// ClientID means dynamic registration or a client ID metadata document.
	ClientID        string `json:"clientId,omitempty"`
	ClientSecretRef string `json:"clientSecretRef,omitempty"`
	// Grant is "authorization_code" (default), "client_credentials" or
	// GrantJWTBearer.
	Grant string `json:"grant,omitempty"`
	// ClientAuth is "client_secret_basic", "client_secret_post" or "private_key_jwt".
	ClientAuth string `json:"clientAuth,omitempty"`
	// PrivateKeyRef names the keyring entry holding a PEM key for private_key_jwt.
	PrivateKeyRef string   `json:"privateKeyRef,omitempty"`
	Scopes        []string `json:"scopes,omitempty"`
	// AssertionFile, with GrantJWTBearer, is workload identity federation
	// (SEP-1933): the absolute path of a file holding the workload's
	// identity token, a JWT that the platform Switchboard runs on (a
	// Kubernetes projected token, a CI job's OIDC token, a cloud agent)
	// keeps fresh. It is read for every token request and sent as the
	// assertion. Empty with GrantJWTBearer means enterprise-managed
	// authorization through the user's identity provider.
	AssertionFile string `json:"assertionFile,omitempty"`

	// ClientSecret and PrivateKey carry a new secret or key from the form
	// to the save, which moves them into the keyring (ExtractSecrets) and
	// leaves only the references: a stored Config never has them.
	ClientSecret string `json:"clientSecret,omitempty"`
	PrivateKey   string `json:"privateKey,omitempty"`
}

// DisplayName is Name, or ID when Name is empty.
func (c *Config) DisplayName() string {
	if c.Name != "" {
		return c.Name
	}
	return c.ID
}

// Timeout is CallTimeout, or DefaultCallTimeout when zero; for command
// tools, at least their longest timeout and a few seconds more, so that a
// tool's own timeout, which says why, comes first.
func (c *Config) Timeout() time.Duration {
	if c.CallTimeout > 0 {
		return c.CallTimeout
	}
	d := DefaultCallTimeout
	for i := range c.Tools {
		d = max(d, c.Tools[i].RunTimeout()+5*time.Second)
	}
	return d
}
