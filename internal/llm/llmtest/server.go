// Package llmtest is a fake OpenAI-compatible provider for tests: an
// httptest server that speaks the chat-completions streaming wire format
// (SSE "data: {chunk}" lines, a usage chunk with "choices": [] when the
// request sets stream_options.include_usage, "data: [DONE]") and serves
// /v1/models. Replies are scripted (see Reply), including error responses
// and broken streams, and every request is recorded.
//
// It shares no code with package llm on purpose: it is written from the
// wire format, so that it can catch the client's misreadings of it.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options configures a Server. The zero value serves one model,
// "fake-model", to any key, and echoes.
type Options struct {
	// Listener, if set, is where the server listens (the fakeprovider
	// command passes one for -addr); nil means a loopback port.
	Listener net.Listener `json:"-"`
	// Models are listed at /v1/models; empty means ["fake-model"].
	Models []string `json:"models,omitempty"`
	// APIKey, if set, is the only bearer token accepted; others get
	// OpenAI's 401.
	APIKey string `json:"apiKey,omitempty"`
	// Replies are answered in order, one per chat request; once they run
	// out the server echoes (see Echo).
	Replies []Reply `json:"replies,omitempty"`
	// TokensPerSecond paces every reply that sets no rate of its own.
	TokensPerSecond float64 `json:"tokensPerSecond,omitempty"`
	// Respond, if set, answers the requests that come once Replies ran
	// out, instead of Echo: a scripted model that reads the request (n
	// counts the requests served, from 1). It is called one request at a
	// time, holding the server's lock: it must not call the Server.
	Respond func(req ChatRequest, n int) Reply `json:"-"`
}

// A Server is a running fake provider.
type Server struct {
	// URL is the base URL to configure a client with: "http://host:port/v1".
	URL string

	ts      *httptest.Server
	opts    Options
	closing chan struct{}
	once    sync.Once

	mu       sync.Mutex
	queue    []Reply
	requests []Request
	served   int
}

// A Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// Chat is the decoded body of a chat-completions request; nil for
	// other requests or a body that did not decode.
	Chat *ChatRequest
}

// NewServer starts a fake provider. With tb set it is closed at the end of
// the test; with tb nil the caller must Close it. opts nil means defaults.
func NewServer(tb testing.TB, opts *Options) *Server {
	if tb != nil {
		tb.Helper()
	}
	s := &Server{closing: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	s.queue = append(s.queue, s.opts.Replies...)
	if len(s.opts.Models) == 0 {
		s.opts.Models = []string{"fake-model"}
	}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	if s.opts.Listener != nil {
		s.ts.Listener.Close()
		s.ts.Listener = s.opts.Listener
	}
	s.ts.Start()
	s.URL = s.ts.URL + "/v1"
	if tb != nil {
		tb.Cleanup(s.Close)
	}
	return s
}

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Enqueue adds replies to the end of the queue.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// ChatRequests returns the decoded chat-completions requests so far.
func (s *Server) ChatRequests() []ChatRequest {
	var out []ChatRequest
	for _, r := range s.Requests() {
		if r.Chat != nil {
			out = append(out, *r.Chat)
		}
	}
	return out
}

// Close stops the server, ending stalled and paced streams. It is safe to
// call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	_, _ = body.ReadFrom(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body.Bytes()}
	isChat := r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions"
	var chatErr error
	if isChat {
		var req ChatRequest
		if chatErr = json.Unmarshal(rec.Body, &req); chatErr == nil {
			rec.Chat = &req
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()

	if s.opts.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey {
		writeError(w, AuthError())
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.serveModels(w)
	case isChat && chatErr != nil:
		writeError(w, Reply{Status: 400, Error: &APIError{
			Message: fmt.Sprintf("We could not parse the JSON body of your request. (%v)", chatErr),
			Type:    "invalid_request_error",
		}})
	case isChat:
		s.serveChat(w, r, *rec.Chat)
	default:
		writeError(w, Reply{Status: 404, Error: &APIError{
			Message: fmt.Sprintf("Unknown request URL: %s %s. Please check the URL for typos.", r.Method, r.URL.Path),
			Type:    "invalid_request_error",
			Code:    strPtr("unknown_url"),
		}})
	}
}

func (s *Server) serveModels(w http.ResponseWriter) {
	list := modelList{Object: "list", Data: []modelInfo{}}
	for _, id := range s.opts.Models {
		list.Data = append(list.Data, modelInfo{ID: id, Object: "model", Created: 1700000000, OwnedBy: "llmtest"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// next pops the next scripted reply, or makes the echo one.
func (s *Server) next(req ChatRequest) (Reply, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served++
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		return r, s.served
	}
	if s.opts.Respond != nil {
		return s.opts.Respond(req, s.served), s.served
	}
	return Echo(req, s.served), s.served
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request, req ChatRequest) {
	reply, n := s.next(req)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply)
		return
	}
	if reply.TokensPerSecond == 0 {
		reply.TokensPerSecond = s.opts.TokensPerSecond
	}
	st := &streamer{
		w:       w,
		rc:      http.NewResponseController(w),
		done:    r.Context().Done(),
		closing: s.closing,
		id:      fmt.Sprintf("chatcmpl-llmtest%d", n),
		created: time.Now().Unix(),
		model:   reply.Model,
		usage:   req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
	}
	if st.model == "" {
		st.model = req.Model
	}
	st.run(reply, promptTokens(req))
}

// writeError sends an error reply.
func writeError(w http.ResponseWriter, reply Reply) {
	body := []byte(reply.RawBody)
	if reply.RawBody == "" {
		e := reply.Error
		if e == nil {
			e = &APIError{Message: http.StatusText(reply.Status), Type: "server_error"}
		}
		if reply.Unwrapped {
			body, _ = json.Marshal(e)
		} else {
			body, _ = json.Marshal(map[string]*APIError{"error": e})
		}
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	if strings.HasPrefix(strings.TrimSpace(string(body)), "<") {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(reply.Status)
	_, _ = w.Write(body)
}

// promptTokens estimates prompt tokens as bytes of message text over 4.
func promptTokens(req ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
		for _, tc := range m.ToolCalls {
			n += len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	return max(1, n/4)
}
