// Command client is the client under test of the official MCP conformance
// suite (@modelcontextprotocol/conformance, "conformance client"). It runs
// the app's own client stack: an mcpconn.Manager with one remote server
// (the suite's test server) whose OAuth handler is oauth.NewHandler, with
// the browser replaced by oauth.FollowRedirects, since the suite's
// authorization server approves at once and redirects to the callback.
//
// As in the app, the server is first connected without a browser; one
// that needs a sign-in shows "needs authorization", and is then authorized
// as the app's Authorize does it (internal/core/auth.go): its handler is
// built interactive and the server reconnected.
//
// The suite runs it once per scenario with the server URL as the last
// argument, the scenario's name in MCP_CONFORMANCE_SCENARIO and, for some
// scenarios, JSON in MCP_CONFORMANCE_CONTEXT (client credentials, keys).
// The scenario only decides what the user would have configured (grant,
// client ID, secrets) and which tool to call; everything else is the app's
// code. It exits 1, with the reason on stderr, when the scenario fails.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/buildinfo"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// serverID is the ID of the one configured server.
const serverID = "conformance"

// clientMetadataURL is the client ID metadata document URL (SEP-991) the
// suite's authorization server expects in auth/basic-cimd; the app would
// configure its own.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// scenarioTimeout bounds one scenario; the suite kills the client at 30 s.
const scenarioTimeout = 25 * time.Second

// conformanceContext is MCP_CONFORMANCE_CONTEXT: what the user would have
// entered in the server's settings.
type conformanceContext struct {
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
	PrivateKeyPEM string `json:"private_key_pem"`
	// The enterprise identity provider (cross-app access): its issuer,
	// Switchboard's client there, and the ID token of the user's single
	// sign-on.
	IdPIssuer   string `json:"idp_issuer"`
	IdPClientID string `json:"idp_client_id"`
	IdPIDToken  string `json:"idp_id_token"`
	// ValidJWT is the workload's identity token, which the platform would
	// write to a file (workload identity federation).
	ValidJWT string `json:"valid_jwt"`
	// ToolCalls are the calls the model would make, with its arguments.
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

// A scenario is what the user does in one conformance scenario.
type scenario struct {
	// tool is called with args once connected; empty means none (listing
	// tools at connect is all the scenario checks); firstTool calls the
	// first tool listed. The calls in MCP_CONFORMANCE_CONTEXT's toolCalls,
	// when there are any, are made instead: they are what the model asks.
	tool string
	args string
	// every calls each listed tool in turn, with no arguments, as a model
	// trying them all would.
	every bool
	// echoSchemaOf names a tool whose schema as sent (what the tools panel
	// and "servers tools -schema" show) is passed to tool as {"schema": ...}.
	echoSchemaOf string
	// refuse: the suite expects the client to give up (on a resource
	// that does not match the server, on endless step-up demands), so the
	// connection must fail; that is success.
	refuse bool
	// auth builds the server's auth settings and the secrets they name;
	// nil means none configured (the server may still ask for a sign-in).
	auth func(cc conformanceContext, sec *secrets.Memory) (*serverconf.Auth, error)
}

var scenarios = map[string]scenario{
	"initialize":                          {},
	"tools_call":                          {tool: "add_numbers", args: `{"a":5,"b":3}`},
	"elicitation-sep1034-client-defaults": {tool: "test_client_elicitation_defaults"},
	"sse-retry":                           {tool: "test_reconnection"},
	"request-metadata":                    {tool: firstTool},
	"sep-2322-client-request-state":       {every: true},
	"http-standard-headers":               {tool: firstTool},
	"http-custom-headers":                 {},
	"http-invalid-tool-headers":           {tool: "valid_tool"},
	"json-schema-ref-no-deref":            {},
	"json-schema-2020-12-preservation":    {tool: "json_schema_echo", echoSchemaOf: "json_schema_2020_12_tool"},

	"auth/iss-supported":                    authCode,
	"auth/iss-not-advertised":               authCode,
	"auth/iss-supported-missing":            {tool: "test-tool", refuse: true},
	"auth/iss-wrong-issuer":                 {tool: "test-tool", refuse: true},
	"auth/iss-unexpected":                   {tool: "test-tool", refuse: true},
	"auth/iss-normalized":                   {tool: "test-tool", refuse: true},
	"auth/metadata-issuer-mismatch":         {tool: "test-tool", refuse: true},
	"auth/authorization-server-migration":   authCode,
	"auth/enterprise-managed-authorization": {tool: "test-tool", auth: enterpriseManaged},
	"auth/wif-jwt-bearer":                   {tool: firstTool, auth: workload},

	"auth/metadata-default":                     authCode,
	"auth/metadata-var1":                        authCode,
	"auth/metadata-var2":                        authCode,
	"auth/metadata-var3":                        authCode,
	"auth/basic-cimd":                           authCode,
	"auth/scope-from-www-authenticate":          authCode,
	"auth/scope-from-scopes-supported":          authCode,
	"auth/scope-omitted-when-undefined":         authCode,
	"auth/scope-step-up":                        authCode,
	"auth/scope-retry-limit":                    {tool: "test-tool", refuse: true},
	"auth/token-endpoint-auth-basic":            authCode,
	"auth/token-endpoint-auth-post":             authCode,
	"auth/token-endpoint-auth-none":             authCode,
	"auth/2025-03-26-oauth-metadata-backcompat": authCode,
	"auth/2025-03-26-oauth-endpoint-fallback":   authCode,
	"auth/resource-mismatch":                    {tool: "test-tool", refuse: true},
	"auth/offline-access-scope":                 authCode,
	"auth/offline-access-not-supported":         authCode,
	"auth/pre-registration":                     {tool: "test-tool", auth: preRegistered},
	"auth/client-credentials-basic":             {tool: "test-tool", auth: clientSecret},
	"auth/client-credentials-jwt":               {tool: "test-tool", auth: privateKeyJWT},
	"auth/cross-app-access-complete-flow":       {tool: "test-tool", auth: enterpriseManaged}, // 0.1.16's name
}

// firstTool, as a scenario's tool, calls whichever tool the server lists
// first, with no arguments.
const firstTool = "*"

// authCode is the authorization code flow with nothing configured: the
// app discovers, registers (or uses its client ID metadata document) and
// signs in.
var authCode = scenario{tool: "test-tool"}

// preRegistered is the authorization code flow with a client the user
// registered by hand.
func preRegistered(cc conformanceContext, sec *secrets.Memory) (*serverconf.Auth, error) {
	if cc.ClientID == "" || cc.ClientSecret == "" {
		return nil, errors.New("MCP_CONFORMANCE_CONTEXT has no client_id and client_secret")
	}
	ref := serverconf.ClientSecretRef(serverID)
	if err := sec.Set(ref, cc.ClientSecret); err != nil {
		return nil, err
	}
	return &serverconf.Auth{ClientID: cc.ClientID, ClientSecretRef: ref}, nil
}

// clientSecret is the client credentials grant with a client secret.
func clientSecret(cc conformanceContext, sec *secrets.Memory) (*serverconf.Auth, error) {
	a, err := preRegistered(cc, sec)
	if err != nil {
		return nil, err
	}
	a.Grant = serverconf.GrantClientCredentials
	return a, nil
}

// privateKeyJWT is the client credentials grant with private_key_jwt.
func privateKeyJWT(cc conformanceContext, sec *secrets.Memory) (*serverconf.Auth, error) {
	if cc.ClientID == "" || cc.PrivateKeyPEM == "" {
		return nil, errors.New("MCP_CONFORMANCE_CONTEXT has no client_id and private_key_pem")
	}
	ref := "server/" + serverID + "/oauth/private-key"
	if err := sec.Set(ref, cc.PrivateKeyPEM); err != nil {
		return nil, err
	}
	return &serverconf.Auth{Grant: serverconf.GrantClientCredentials, ClientID: cc.ClientID,
		ClientAuth: serverconf.PrivateKeyJWT, PrivateKeyRef: ref}, nil
}

// enterpriseManaged is enterprise-managed authorization (SEP-990): the
// client registered at the server's authorization server, with its
// secret; the identity provider is in enterprise.
func enterpriseManaged(cc conformanceContext, sec *secrets.Memory) (*serverconf.Auth, error) {
	a, err := preRegistered(cc, sec)
	if err != nil {
		return nil, err
	}
	a.Grant = oauth.GrantJWTBearer
	return a, nil
}

// workload is workload identity federation: the platform keeps the
// workload's identity token in a file, which the server's settings name.
func workload(cc conformanceContext, _ *secrets.Memory) (*serverconf.Auth, error) {
	if cc.ClientID == "" || cc.ValidJWT == "" {
		return nil, errors.New("MCP_CONFORMANCE_CONTEXT has no client_id and valid_jwt")
	}
	dir, err := os.MkdirTemp("", "conformance-wif-")
	if err != nil {
		return nil, err
	}
	atExit = append(atExit, func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "token")
	if err := os.WriteFile(path, []byte(cc.ValidJWT+"\n"), 0o600); err != nil {
		return nil, err
	}
	return &serverconf.Auth{Grant: serverconf.GrantJWTBearer, ClientID: cc.ClientID, AssertionFile: path}, nil
}

// enterprise is the identity provider the user signed in to, when the
// scenario has one.
func enterprise(cc conformanceContext) *oauth.Enterprise {
	if cc.IdPIssuer == "" {
		return nil
	}
	return &oauth.Enterprise{
		Issuer:   cc.IdPIssuer,
		ClientID: cc.IdPClientID,
		IDToken: func(context.Context) (string, error) {
			if cc.IdPIDToken == "" {
				return "", errors.New("MCP_CONFORMANCE_CONTEXT has no idp_id_token")
			}
			return cc.IdPIDToken, nil
		},
	}
}

// atExit runs when the scenario ends.
var atExit []func()

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: client <server-url>   (MCP_CONFORMANCE_SCENARIO names the scenario)")
		os.Exit(2)
	}
	serverURL := os.Args[len(os.Args)-1]
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	err := run(ctx, log, name, serverURL, os.Getenv("MCP_CONFORMANCE_CONTEXT"))
	cancel()
	for _, f := range atExit {
		f()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance client: scenario %s: %v\n", name, err)
		os.Exit(1)
	}
	fmt.Printf("scenario %s: ok\n", name)
}

func run(ctx context.Context, log *slog.Logger, name, serverURL, rawContext string) error {
	sc, ok := scenarios[name]
	if !ok {
		// A scenario added to the suite after this client: do what a user
		// would, connect (signing in if asked) and call the first tool.
		log.Info("a scenario this client does not know; connecting and calling the first tool", "scenario", name)
		sc = scenario{tool: firstTool}
	}
	var cc conformanceContext
	if rawContext != "" {
		if err := json.Unmarshal([]byte(rawContext), &cc); err != nil {
			return fmt.Errorf("reading MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}

	sec := &secrets.Memory{}
	cfg := serverconf.Config{
		ID: serverID, Name: "Conformance test server", Transport: serverconf.TransportHTTP,
		URL: serverURL, Enabled: true, CallTimeout: 15 * time.Second,
	}
	if sc.auth != nil {
		a, err := sc.auth(cc, sec)
		if err != nil {
			return err
		}
		cfg.Auth = a
	}
	if err := serverconf.Validate(&cfg); err != nil { // a config the app's settings accept
		return err
	}

	// The handlers are built as the app's (internal/core/auth.go) are:
	// one per connection attempt, interactive only while the user's
	// Authorize is in progress.
	store := oauth.NewStore(sec, func(err error) bool { return errors.Is(err, secrets.ErrNotFound) })
	var interactive atomic.Bool
	authErrs := make(chan error, 1)
	watch := newStatusWatch()
	m := mcpconn.NewManager(&mcpconn.Options{
		Logger:  log,
		Emitter: watch,
		Secrets: sec,
		// Within the suite's 30 s per scenario.
		ConnectTimeout: 20 * time.Second,
		ClientVersion:  buildinfo.Version,
		// The user, shown the server's form, accepts it as pre-filled: the
		// SDK fills in the schema's defaults (SEP-1034).
		Elicit: func(ctx context.Context, serverID string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
		AuthHandler: func(cfg serverconf.Config) auth.OAuthHandler {
			h, err := oauth.NewHandler(cfg.ID, cfg.Auth, oauth.Options{
				Store:       store,
				ServerURL:   cfg.URL,
				Interactive: interactive.Load(),
				// The browser, played by following the redirects: the
				// suite's authorization server approves at once.
				Open:              oauth.FollowRedirects(nil),
				ClientMetadataURL: clientMetadataURL,
				Enterprise:        enterprise(cc),
				Logger:            log,
			})
			if err != nil {
				select {
				case authErrs <- err:
				default:
				}
				return nil
			}
			return loggedHandler{h, log}
		},
	})
	defer m.Close()
	if err := m.Add(cfg); err != nil {
		return err
	}
	if err := m.Start(ctx); err != nil {
		return err
	}
	st, err := watch.settled(ctx)
	if err == nil && st.State == mcpconn.StateNeedsAuth {
		// The server shows "needs authorization"; the user clicks
		// Authorize, which reconnects it with an interactive handler.
		log.Info("the server needs a sign-in; authorizing", "reason", st.Reason)
		interactive.Store(true)
		if err := m.Restart(serverID); err != nil {
			return err
		}
		st, err = watch.settled(ctx)
		interactive.Store(false)
	}
	select {
	case aerr := <-authErrs:
		return fmt.Errorf("configuring OAuth: %w", aerr)
	default:
	}
	if err != nil {
		return err
	}
	if st.State != mcpconn.StateConnected {
		if sc.refuse {
			log.Info("gave up connecting, as the scenario expects", "state", st.State, "reason", st.Reason)
			return nil
		}
		return fmt.Errorf("server is %s: %s", st.State, st.Reason)
	}
	if sc.refuse {
		return errors.New("connected, but the scenario expects the client to give up")
	}
	for _, c := range calls(sc, cc, m.Tools()) {
		tool, ok := findTool(m.Tools(), c.name)
		if !ok {
			return fmt.Errorf("the server lists no tool %q", c.name)
		}
		res, err := m.CallTool(ctx, tool.Name, c.args, nil)
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("tool %s failed: %s", c.name, resultText(res))
		}
		log.Info("tool result", "tool", c.name, "text", resultText(res))
	}
	return nil
}

// A call is one tool call the model makes.
type call struct {
	name string
	args json.RawMessage
}

// calls returns the tool calls of scenario sc, given the server's tools.
func calls(sc scenario, cc conformanceContext, tools []mcpconn.Tool) []call {
	var out []call
	switch {
	case len(cc.ToolCalls) > 0:
		for _, c := range cc.ToolCalls {
			out = append(out, call{c.Name, c.Arguments})
		}
	case sc.every:
		for _, t := range tools {
			if t.ServerID == serverID {
				out = append(out, call{t.OriginalName, nil})
			}
		}
	case sc.tool == firstTool:
		for _, t := range tools {
			if t.ServerID == serverID {
				out = append(out, call{t.OriginalName, nil})
				break
			}
		}
	case sc.echoSchemaOf != "":
		if t, ok := findTool(tools, sc.echoSchemaOf); ok && t.Schema != nil {
			args, _ := json.Marshal(map[string]json.RawMessage{"schema": t.Schema})
			out = append(out, call{sc.tool, args})
		}
	case sc.tool != "":
		out = append(out, call{sc.tool, json.RawMessage(sc.args)})
	}
	for i := range out {
		if len(out[i].args) == 0 {
			out[i].args = json.RawMessage(`{}`)
		}
	}
	return out
}

// A loggedHandler writes why an authorization failed to the log: the
// Manager reports any failure after a 401 as "needs sign-in", without the
// handler's reason.
type loggedHandler struct {
	auth.OAuthHandler
	log *slog.Logger
}

// Transport passes on the handler's DPoP transport, as core's handler
// does (internal/core/auth.go).
func (h loggedHandler) Transport(base http.RoundTripper) http.RoundTripper {
	if w, ok := h.OAuthHandler.(interface {
		Transport(http.RoundTripper) http.RoundTripper
	}); ok {
		return w.Transport(base)
	}
	return base
}

func (h loggedHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	err := h.OAuthHandler.Authorize(ctx, req, resp)
	if err != nil && !errors.Is(err, oauth.ErrNeedsAuth) {
		h.log.Warn("authorization failed", "status", resp.StatusCode, "err", err)
	}
	return err
}

func findTool(tools []mcpconn.Tool, name string) (mcpconn.Tool, bool) {
	for _, t := range tools {
		if t.ServerID == serverID && t.OriginalName == name {
			return t, true
		}
	}
	return mcpconn.Tool{}, false
}

func resultText(r *mcpconn.Result) string {
	var parts []string
	for _, c := range r.Content {
		if c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, " ")
}

// A statusWatch is the Manager's Emitter: it keeps the server's latest
// status and wakes settled when it changes.
type statusWatch struct {
	mu      sync.Mutex
	last    mcpconn.Status
	changed chan struct{} // buffer 1
}

func newStatusWatch() *statusWatch {
	return &statusWatch{changed: make(chan struct{}, 1)}
}

func (w *statusWatch) Emit(name string, payload any) {
	st, ok := payload.(mcpconn.Status)
	if name != mcpconn.EventServerStatus || !ok {
		return
	}
	w.mu.Lock()
	w.last = st
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// settled waits until the server is connected, needs a sign-in, or failed.
func (w *statusWatch) settled(ctx context.Context) (mcpconn.Status, error) {
	for {
		w.mu.Lock()
		st := w.last
		w.mu.Unlock()
		switch st.State {
		case mcpconn.StateConnected, mcpconn.StateNeedsAuth, mcpconn.StateFailed:
			return st, nil
		}
		select {
		case <-w.changed:
		case <-ctx.Done():
			return st, fmt.Errorf("waiting for the connection (last state %q): %w", st.State, context.Cause(ctx))
		}
	}
}
