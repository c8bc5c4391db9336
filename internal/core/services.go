package core

import (
	"context"
	"errors"
	"log/slog"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/buildinfo"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/installer"
	"github.com/switchboard-app/switchboard/internal/instance"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth"
	"github.com/switchboard-app/switchboard/internal/providers"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/servers"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/tasks"
)

// An Emitter sends events to the UI; nil-safe through emitter().
type Emitter interface {
	Emit(name string, payload any)
}

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}

// Services are the product's long-lived parts, built over a Core's store and
// secrets. They exist only when the database opened.
type Services struct {
	Manager   *mcpconn.Manager
	Broker    *approval.Broker
	Providers *providers.Service
	Servers   *servers.Service
	Chat      *chat.Engine
	// Tasks follows the calls servers run as tasks, across restarts.
	Tasks *tasks.Tracker

	store *store.Store
	auth  *authorizer
	// asks holds what servers ask of the user (elicitation, sampling).
	asks *serverAsks
	// views are the servers' views open in the window (appviews.go).
	views *appViews
	// clients are the connected apps (external MCP clients), and endpoint
	// their HTTP endpoint when it runs (clients.go).
	clients        *clients.Registry
	endpoint       endpoint
	clientEndpoint bool
	emitter        Emitter
	log            *slog.Logger
	// ownsInstance and lockPath: see ServiceOptions.OwnsInstance.
	ownsInstance bool
	lockPath     string
	// dataDir holds installed servers and a fetched Node (install.go);
	// node is the Node they run on, once found.
	dataDir string
	node    nodeCache
	secrets secrets.Store
	// files are the installed servers' folders: found, prepared to run,
	// swept, removed (installs take the settings: s.installer).
	files *installer.Installer
}

// ServiceOptions tune the services; nil means defaults.
type ServiceOptions struct {
	// Emitter receives every event for the UI; nil drops them.
	Emitter Emitter
	// Manager overrides the connection manager's options (Logger, Emitter,
	// LogDir and Secrets are filled in when empty).
	Manager *mcpconn.Options
	// Provider overrides how the chat engine finds a provider's client
	// (the CLI's --base-url); nil means the configured providers.
	Provider chat.ProviderFunc
	// OpenBrowser shows an authorization URL, or the page a server asks
	// the user to open (once the user agrees); nil means the system
	// browser. Tests follow the redirects themselves.
	OpenBrowser oauth.Opener
	// OwnsInstance says this process holds the data directory's instance
	// lock (the window). Start marks replies left streaming as interrupted
	// only in such a process, or when no process holds it: while the window
	// is open, a command's Start leaves the window's running replies alone.
	OwnsInstance bool
	// Visible reports whether the user can see the window now. Servers
	// may ask for input or a completion only then; nil (the CLI) means no
	// window, and such requests are refused with a note in the server's
	// log.
	Visible func() bool
	// ClientEndpoint lets Start start the connected apps' HTTP endpoint
	// when the user turned it on (the window sets it); false leaves it
	// off, as the CLI's commands must not take the window's port.
	ClientEndpoint bool
}

// ErrNoDatabase is returned when a service is asked for while the
// database could not be opened (Problems says why).
var ErrNoDatabase = errors.New("the database is not open; see the first screen or `switchboard doctor` for why")

// Services builds the services once; later calls return the same ones.
func (c *Core) Services(opts *ServiceOptions) (*Services, error) {
	c.servicesMu.Lock()
	defer c.servicesMu.Unlock()
	if c.services != nil {
		return c.services, nil
	}
	if c.Store == nil {
		return nil, ErrNoDatabase
	}
	if opts == nil {
		opts = &ServiceOptions{}
	}
	em := opts.Emitter
	if em == nil {
		em = nopEmitter{}
	}
	var mo mcpconn.Options
	if opts.Manager != nil {
		mo = *opts.Manager
	}
	if mo.Logger == nil {
		mo.Logger = c.Log.With("component", "mcp")
	}
	if mo.Emitter == nil {
		mo.Emitter = em
	}
	if mo.LogDir == "" {
		mo.LogDir = c.Paths.Logs
	}
	if mo.Secrets == nil {
		mo.Secrets = c.Secrets
	}
	if mo.ClientVersion == "" {
		mo.ClientVersion = buildinfo.Version
	}
	authz := newAuthorizer(c.Secrets, opts.OpenBrowser, c.Log.With("component", "oauth"))
	if mo.AuthHandler == nil {
		mo.AuthHandler = authz.handler
	}
	s := &Services{store: c.Store, auth: authz, asks: newServerAsks(em, opts.Visible),
		views:   newAppViews(em, opts.OpenBrowser, c.Log.With("component", "appviews")),
		clients: clients.New(c.Store), clientEndpoint: opts.ClientEndpoint, emitter: em, log: c.Log,
		ownsInstance: opts.OwnsInstance, lockPath: c.Paths.Lock, dataDir: c.Paths.Dir, secrets: c.Secrets}
	mo.Emitter = s.views.watch(mo.Emitter) // a view ends when its tool does
	if mo.Elicit == nil {
		mo.Elicit = s.asks.elicitHandler
	}
	if mo.Sample == nil {
		mo.Sample = s.asks.sampleHandler
	}
	if mo.ElicitComplete == nil {
		mo.ElicitComplete = s.asks.elicitComplete
	}
	if mo.URLSteps == nil {
		mo.URLSteps = s.asks.urlSteps
	}
	s.files = installer.New(&installer.Options{DataDir: c.Paths.Dir, Runtime: s.installRuntime})
	if mo.Installed == nil {
		mo.Installed = s.files.Prepare
	}
	s.Manager = mcpconn.NewManager(&mo)
	s.Broker = approval.NewBroker(&approval.Options{Store: grantStore{c.Store}, Emitter: em})
	s.Providers = &providers.Service{Store: c.Store, Secrets: c.Secrets, Log: c.Log.With("component", "providers")}
	s.Servers = &servers.Service{Store: c.Store, Secrets: c.Secrets, Manager: s.Manager, Trust: s.Broker, Log: c.Log.With("component", "servers"),
		Installed: s.files.Prepare}
	settings, err := LoadSettings(context.Background(), c.Store)
	if err != nil {
		c.Log.Warn("reading settings; using defaults", "err", err)
	}
	provider := opts.Provider
	if provider == nil {
		provider = func(ctx context.Context, id string) (*llm.Client, string, error) {
			if id == "" { // the default provider, as set now
				if cur, err := LoadSettings(ctx, c.Store); err == nil {
					id = cur.DefaultProviderID
				}
			}
			cl, rec, err := s.Providers.Client(ctx, id)
			return cl, rec.DefaultModel, err
		}
	}
	s.asks.wire(s, provider, opts.OpenBrowser, c.Log.With("component", "asks"))
	s.Tasks = tasks.New(&tasks.Options{
		Store:  c.Store,
		Source: s.Manager,
		Emit:   em,
		Log:    c.Log.With("component", "tasks"),
		OnEnd:  landTask(func() *chat.Engine { return s.Chat }, c.Log.With("component", "tasks")),
		Answer: s.asks.answerTaskInput,
	})
	s.Chat = chat.NewEngine(&chat.Options{
		Store:    c.Store,
		Provider: provider,
		// From the stored base URL: the picker asks often, and a client
		// would read the key from the keyring each time.
		ToolLimits: func(ctx context.Context, id string) llm.ToolLimits {
			if id == "" {
				if cur, err := LoadSettings(ctx, c.Store); err == nil {
					id = cur.DefaultProviderID
				}
			}
			rec, err := s.Providers.Record(ctx, id)
			if err != nil {
				return llm.ToolLimitsFor("")
			}
			return llm.ToolLimitsFor(rec.BaseURL)
		},
		Tools:               toolSource{m: s.Manager, calls: &s.asks.calls, marks: s.Broker},
		Approver:            clientApprover{broker: s.Broker, clients: s.clients, visible: opts.Visible, log: c.Log.With("component", "clients")},
		Tasks:               taskFollower{s.Tasks},
		Emitter:             em,
		Logger:              c.Log.With("component", "chat"),
		MaxToolRounds:       settings.MaxToolRounds,
		ResultLimit:         settings.ToolResultLimit,
		DefaultSystemPrompt: settings.DefaultSystemPrompt,
		TrifectaGuard:       s.trifectaGuardOn,
		ToolSearch:          settings.ToolSearchSettings(),
	})
	c.services = s
	return s, nil
}

// Start loads the approval policy and connects the enabled servers in the
// background; it never waits for a server.
func (s *Services) Start(ctx context.Context, log *slog.Logger) error {
	// Replies cut off by a crash or a kill are marked as such (their text
	// up to the last save is kept) before anything new runs; not from a
	// command while the window runs them.
	if s.ownsInstance || !instance.Held(s.lockPath) {
		if _, err := s.store.MarkInterrupted(ctx); err != nil {
			log.Error("marking interrupted replies", "err", err)
		}
	}
	s.pruneAttachments(ctx, log)
	s.files.Sweep()
	if err := s.Broker.Load(ctx); err != nil {
		log.Error("loading approval policy", "err", err)
	}
	if err := s.Servers.Start(ctx); err != nil {
		return err
	}
	if err := s.Manager.Start(ctx); err != nil {
		return err
	}
	// Tasks left running when the app last closed are followed again;
	// each waits for its server to connect. One that ended just before the
	// app stopped, its result saved but not yet in its conversation, lands
	// now.
	if err := s.Tasks.Start(ctx); err != nil {
		return err
	}
	s.landEnded(ctx, log)
	if s.clientEndpoint {
		s.startClientEndpoint(ctx, log)
	}
	return nil
}

// landEnded puts into their conversations the tasks that ended while
// their tool call still shows running.
func (s *Services) landEnded(ctx context.Context, log *slog.Logger) {
	list, err := s.store.UnlandedTasks(ctx)
	if err != nil {
		log.Warn("reading ended tasks", "err", err)
		return
	}
	land := landTask(func() *chat.Engine { return s.Chat }, log)
	for _, t := range list {
		land(ctx, t)
	}
}

// Close stops the services: pending approvals are cancelled and every server
// is stopped. It is safe to call twice.
func (s *Services) Close() error {
	if s == nil {
		return nil
	}
	// Runs stop first (their tool calls are cancelled, partial replies
	// saved), then pending approvals, then the servers.
	s.views.close()
	s.stopEndpoint() // connected apps' turns stop with their sessions
	return errors.Join(s.Chat.Close(), s.Tasks.Close(), s.Broker.Close(), s.asks.Close(), s.Manager.Close())
}

// grantStore adapts the store to approval.PolicyStore.
type grantStore struct{ s *store.Store }

func (g grantStore) Grants(ctx context.Context) ([]approval.Grant, error) {
	recs, err := g.s.Grants(ctx)
	out := make([]approval.Grant, len(recs))
	for i, r := range recs {
		out[i] = approval.Grant{ServerID: r.ServerID, Tool: r.Tool, Fingerprint: r.Fingerprint, DefinitionHash: r.DefinitionHash,
			Description: r.Description, InputSchema: r.InputSchema, CreatedAt: r.CreatedAt}
	}
	return out, err
}

func (g grantStore) PutGrant(ctx context.Context, gr approval.Grant) error {
	return g.s.PutGrant(ctx, store.Grant{ServerID: gr.ServerID, Tool: gr.Tool, Fingerprint: gr.Fingerprint, DefinitionHash: gr.DefinitionHash,
		Description: gr.Description, InputSchema: gr.InputSchema, CreatedAt: gr.CreatedAt})
}

func (g grantStore) DeleteGrant(ctx context.Context, serverID, tool string) error {
	return g.s.DeleteGrant(ctx, serverID, tool)
}

func (g grantStore) Yolo(ctx context.Context) (bool, error)     { return g.s.Yolo(ctx) }
func (g grantStore) SetYolo(ctx context.Context, on bool) error { return g.s.SetYolo(ctx, on) }
