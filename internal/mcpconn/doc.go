// Package mcpconn is the MCP connection manager: one supervised session
// per configured server, and the registry of tools exposed to models.
//
// Each server has one supervisor goroutine (a run) that owns its session
// and emits its status changes, so events stay ordered; locks only guard
// snapshots and are never held during I/O. A session's end is noticed at
// once (process exit, stream closed); a hung server by a ping with a
// timeout. A lost session is reconnected with exponential backoff and
// jitter, MaxReconnects times in a row, then marked failed with its last
// stderr lines. A first connection that fails is not retried: the
// configuration is most likely wrong, and Connect tries again.
//
// Stdio servers run in a process group of their own, found on the login
// shell's PATH (a GUI app's PATH lacks nvm, Homebrew, ...). The SDK's
// IOTransport speaks MCP over pipes the manager owns, so it can wait for
// the process itself, capture stderr (bounded ring plus rotated file) from
// the first byte, and stop the whole tree quickly: close stdin, SIGTERM the
// group after StopGrace, SIGKILL after another (Node ignores a closed stdin;
// the SDK's CommandTransport would wait 5 s).
//
// The SDK probes every server with the 2026-07-28 server/discover first;
// an older server costs a wasted round trip. The manager remembers which
// version each server spoke, for as long as its command line or URL stays
// the same (Options.ProtocolHints / OnProtocol), and sends an old server
// initialize directly; an HTTP+SSE server is old by definition (2026-07-28
// has no SSE binding) and is never probed. Ping is gone from 2026-07-28
// and the SDK's KeepAlive does not run there, so the manager pings itself
// and counts any JSON-RPC answer as alive.
//
// A server is hostile until proven otherwise, so all it sends is bounded
// where it is read: one message (MaxMessageBytes, and the response body
// limit of remote.go), the tools it lists (Options.MaxTools, description
// and schema sizes; see toolListing and cleanSchema), how often it makes
// us re-list (relistInterval), its progress reports, and how long a call
// may run (Options.MaxCallDuration, whatever progress it reports).
//
// A stdio server's stdout lines that are not JSON-RPC (a "PRAGMA …" banner)
// are skipped into its log with a warning in its Status, as the TypeScript
// SDK skips them; a stream that stays noise past a budget still fails. A
// call that finds its server's session lost waits for the reconnect under
// way, within the call's deadline, and every error names the true state.
//
// A tool keeps two input schemas: the server's as sent (Tool.Schema, JSON
// Schema 2020-12 whole, its $refs never dereferenced nor fetched), for the
// user to read, and a copy cleaned into what every provider accepts
// (Tool.InputSchema, see cleanSchema), which is all models ever get.
//
// A server's MCP log messages go into its log beside its stderr, bounded
// (serverlog.go), at the level its config asks for; roots are offered only
// to a server configured with some (roots.go). A result's structured
// content is checked against the tool's output schema (structured.go).
//
// Tool names are "<server>__<tool>", sanitized and suffixed with a hash of
// the exact pair when needed, so they are valid for every provider, unique
// and stable across restarts.
//
// Resources, prompts and completion (resources.go, prompts.go) are asked of
// the live session on demand, never kept here: each request is checked
// against what the server declared (Status.Offers, ErrNotOffered), bounded
// like a call, and listings and reads the server says may be kept come from
// the SDK's own cache. Subscriptions are the Manager's, not the session's,
// so they are renewed when a server reconnects; a server's updates and
// list changes become events at most every notifyInterval.
//
// A server of command tools (serverconf.TransportCommand, cmdtool.go) is
// served in this process over the SDK's in-memory transports, so it has
// a session like any other; each call runs one program, argv never
// through a shell, in a process group killed at its timeout.
//
// A tool may declare a view (MCP Apps, appui.go): a ui:// resource of one
// HTML document, read bounded and checked (ReadUIResource) and kept for
// the server's session. Servers are told views are shown only when
// Options.AppViews says so; what a view may then do is decided by the
// packages above (internal/appview, internal/core).
package mcpconn
