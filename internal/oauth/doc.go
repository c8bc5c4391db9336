// Package oauth signs Switchboard in to remote MCP servers. It plugs into
// the MCP SDK's auth package, which does discovery, PKCE, state, resource
// indicators, dynamic client registration and the code exchange; this
// package adds what a desktop app needs around it:
//
//   - a loopback CallbackServer (RFC 8252) that receives the redirect,
//   - an Opener (the browser, or FollowRedirects for tests),
//   - a Store that keeps tokens and registered clients in the keyring, so a
//     restart reuses them and a refreshed token is saved,
//   - the client credentials grant, with client_secret_basic,
//     client_secret_post and private_key_jwt, which the SDK lacks or cannot
//     configure,
//   - enterprise-managed authorization (SEP-990, GrantJWTBearer): the
//     user's sign-in at the enterprise identity provider exchanged for an
//     ID-JAG, and that for a token, with no browser per server,
//   - 2025-03-26 servers whose metadata at the root names an issuer at a
//     path of their origin (legacy.go),
//   - DPoP (RFC 9449, SEP-1932, dpop.go): tokens bound to a per-server key
//     kept in the Store, a proof on every token and MCP request, nonces
//     answered. MCP requests get it only through Transport, which the
//     MCP transport's HTTP client must use: the SDK sends every token as
//     Bearer.
//
// Where tokens and secrets may go: a stored token and a registered client
// are bound to the canonical URL of the server (Options.ServerURL) and the
// issuer they came from, so a server whose URL changed, or another server
// added later with the same ID, never gets them. A configured client
// secret or key is pinned to the authorization server it is first used
// with (the config has no issuer field, so trust on first use); when the
// server's metadata later names another, the sign-in stops before the
// secret is sent, until the user signs out. The default HTTP client
// connects through netguard: no private, loopback or link-local address
// unless the server itself is at one.
//
// A handler opens a browser only when told to (Options.Interactive, or a
// request under an Interaction: WithInteractive); otherwise it returns
// ErrNeedsAuth, so starting the app never pops up a window. The
// Interaction is the one place that remembers a failed sign-in, so the
// browser does not reopen in a loop and the caller can say why. The SDK handler is built per sign-in because its
// redirect URI carries the port of that sign-in's callback listener, which
// must exist before the client is registered.
//
// SDK limits worked around here (go-sdk v1.8.0), each found by the MCP
// conformance suite (test/conformance): its strict RFC 8414 issuer check
// refuses auth/2025-03-26-oauth-metadata-backcompat (legacy.go signs in
// itself there); it has no private_key_jwt (jwt.go); its EnterpriseHandler
// fails auth/cross-app-access-complete-flow (enterprise.go says why). A
// client registered dynamically is reused as a pre-registered one, whose
// token endpoint auth method the SDK picks from the server's metadata
// rather than from the registration.
package oauth
