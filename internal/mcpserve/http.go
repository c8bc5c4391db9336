package mcpserve

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/clients"
)

// Path is where Handler serves streamable HTTP.
const Path = "/mcp"

// HTTP bounds.
const (
	// maxRequestBody bounds one POST: a send_message of MaxMessageBytes
	// fits many times over.
	maxRequestBody = 1 << 20
	// sessionIdle closes an HTTP session nobody used for this long.
	sessionIdle = 30 * time.Minute
)

// scope is the one scope a client's token carries, so that a refusal's
// WWW-Authenticate header names what to send.
const scope = "switchboard"

type newSessionKey struct{}

// Handler serves streamable HTTP at Path: each request must carry a
// client's token as a bearer token (401 with WWW-Authenticate otherwise),
// checked against the registry on every request, so a revoked token is
// refused at once. The SDK's DNS-rebinding protection stays on, and no
// CORS header is ever sent, so a web page cannot call it. Listen on
// 127.0.0.1 only.
func (s *Server) Handler() http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if sess, ok := r.Context().Value(newSessionKey{}).(*session); ok {
			return sess.srv
		}
		return s.proto // only its protocol versions are read
	}, &mcp.StreamableHTTPOptions{Logger: discard, SessionTimeout: sessionIdle, MaxRequestBodyBytes: maxRequestBody})
	sessions := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			sdk.ServeHTTP(w, r)
			return
		}
		// A POST without a session opens one, for the token's client.
		info := auth.TokenInfoFromContext(r.Context())
		cl, _ := info.Extra["client"].(clients.Client)
		sess, err := s.open(cl, TransportHTTP)
		if err != nil {
			s.audit(r.Context(), clients.AuditEntry{ClientID: cl.ID, ClientName: cl.Name, Transport: TransportHTTP,
				Operation: "initialize", Reason: err.Error()})
			http.Error(w, err.Error(), http.StatusTooManyRequests)
			return
		}
		sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), newSessionKey{}, sess)))
		if sess.serverSession() == nil { // it never started (not an initialize)
			s.drop(sess)
		}
	})
	protected := auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{Scopes: []string{scope}, AllowMissingExpiration: true})(sessions)
	mux := http.NewServeMux()
	mux.Handle(Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := strings.Fields(r.Header.Get("Authorization")); len(f) != 2 || !strings.EqualFold(f[0], "bearer") {
			s.auditAuthFailure(r.Context(), TransportHTTP, "no valid token: none was given")
		}
		protected.ServeHTTP(w, r)
	}))
	// A web page's cross-origin request is refused before anything else
	// (no CORS header is ever sent either).
	return http.NewCrossOriginProtection().Handler(mux)
}

// verify is the bearer-token check: the registry's, on every request.
func (s *Server) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	cl, err := s.authenticate(ctx, token, TransportHTTP)
	if err != nil {
		if errors.Is(err, clients.ErrBadToken) {
			return nil, auth.ErrInvalidToken
		}
		return nil, errors.New("Switchboard could not check the token just now; try again")
	}
	if !cl.RevokedAt.IsZero() {
		s.auditAuthFailure(ctx, TransportHTTP, "no valid token: unknown, malformed or revoked")
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: cl.ID, Scopes: []string{scope}, Extra: map[string]any{"client": cl}}, nil
}
