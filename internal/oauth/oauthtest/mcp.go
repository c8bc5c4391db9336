package oauthtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// NewProtectedMCP starts a streamable-HTTP MCP server with one tool,
// "echo", behind the SDK's bearer-token middleware verifying as's tokens,
// and its protected resource metadata (RFC 9728) naming as. It returns the
// MCP endpoint, which becomes as's resource. The server closes when the
// test ends.
func NewProtectedMCP(t testing.TB, as *AuthServer) string {
	mux := http.NewServeMux()
	rs := httptest.NewServer(mux)
	t.Cleanup(rs.Close)
	endpoint := rs.URL + "/mcp"
	as.SetResource(endpoint)
	prmURL := rs.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: endpoint, AuthorizationServers: []string{as.URL}, ScopesSupported: []string{"mcp"},
	}))
	mux.Handle("/mcp", auth.RequireBearerToken(as.Verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(EchoHandler()))
	return endpoint
}

// NewLegacyMCP starts a 2025-03-26 server: no protected resource metadata,
// and at its root the authorization server metadata of the issuer that
// issuer(origin) returns, with as's endpoints served under /oauth/ on the
// same origin. It returns the MCP endpoint, which becomes as's resource.
func NewLegacyMCP(t testing.TB, as *AuthServer, issuer func(origin string) string) string {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                issuer(srv.URL),
			"authorization_endpoint":                srv.URL + "/oauth/authorize",
			"token_endpoint":                        srv.URL + "/oauth/token",
			"registration_endpoint":                 srv.URL + "/oauth/register",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"},
		})
	})
	mux.Handle("/oauth/", http.StripPrefix("/oauth", as.Handler()))
	mux.Handle("/mcp", auth.RequireBearerToken(as.Verify, nil)(EchoHandler()))
	endpoint := srv.URL + "/mcp"
	as.SetResource(endpoint)
	return endpoint
}

// EchoHandler is an unprotected streamable-HTTP MCP server with one tool,
// "echo", which returns its "text" argument.
func EchoHandler() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1.0.0"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "echoes"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
}
