package llm

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Defaults used when the matching ProviderConfig field is zero.
const (
	DefaultRequestTimeout = 15 * time.Second // ListModels, TestConnection
	DefaultIdleTimeout    = 3 * time.Minute  // longest silence inside a stream
)

// ProviderConfig says how to reach one provider.
type ProviderConfig struct {
	// BaseURL is the OpenAI-compatible base URL, e.g. https://api.cerebras.ai/v1.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization header.
	APIKey string
	// HTTPClient is used for every request; nil means a client with dial and
	// TLS timeouts and no overall timeout (streams are bounded by ctx and
	// IdleTimeout instead).
	HTTPClient *http.Client
	// RequestTimeout bounds ListModels and TestConnection when ctx has no
	// deadline; zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// IdleTimeout is the longest a stream may send nothing (including before
	// the first chunk, while a local model loads) before it fails with
	// ErrConnection; zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Logger receives debug lines; nil discards them.
	Logger *slog.Logger
}

// A Client talks to one OpenAI-compatible provider. It is safe for
// concurrent use and holds no goroutines.
type Client struct {
	api            *openai.Client
	baseURL        string
	requestTimeout time.Duration
	idleTimeout    time.Duration
	log            *slog.Logger
}

// A Model is one entry of the provider's model list.
type Model struct {
	ID      string `json:"id"`
	OwnedBy string `json:"ownedBy,omitempty"`
}

// NewClient validates cfg and returns a Client.
func NewClient(cfg ProviderConfig) (*Client, error) {
	base, err := ValidateBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = base
	oc.HTTPClient = doer{hc: hc}
	c := &Client{
		api:            openai.NewClientWithConfig(oc),
		baseURL:        base,
		requestTimeout: cmp.Or(cfg.RequestTimeout, DefaultRequestTimeout),
		idleTimeout:    cmp.Or(cfg.IdleTimeout, DefaultIdleTimeout),
		log:            cfg.Logger,
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	return &http.Client{Transport: t}
}

// BaseURL returns the validated base URL.
func (c *Client) BaseURL() string { return c.baseURL }

// ListModels returns the provider's models sorted by ID.
func (c *Client) ListModels(ctx context.Context) ([]Model, error) {
	_, hasDeadline := ctx.Deadline()
	if !hasDeadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.requestTimeout)
		defer cancel()
	}
	ex := &exchange{}
	list, err := c.api.ListModels(withExchange(ctx, ex))
	if err != nil {
		if !hasDeadline && ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%w at %s: no answer within %s; check the base URL and your network",
				ErrUnreachable, c.baseURL, c.requestTimeout)
		}
		return nil, c.classify(ctx, err, ex, phaseModels)
	}
	models := make([]Model, 0, len(list.Models))
	for _, m := range list.Models {
		if m.ID != "" {
			models = append(models, Model{ID: m.ID, OwnedBy: m.OwnedBy})
		}
	}
	slices.SortFunc(models, func(a, b Model) int { return cmp.Compare(a.ID, b.ID) })
	return models, nil
}

// TestConnection checks that the base URL serves an OpenAI-compatible API,
// that the key is accepted and that at least one model is listed. The error
// says exactly what is wrong (ErrAuth, ErrUnreachable, ErrNotCompatible,
// ErrNoModels, …). On success it returns the models.
func (c *Client) TestConnection(ctx context.Context) ([]Model, error) {
	models, err := c.ListModels(ctx)
	if err != nil {
		return nil, err
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("%w (%s)", ErrNoModels, c.baseURL)
	}
	return models, nil
}
