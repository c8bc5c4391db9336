package core

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth"
	"github.com/switchboard-app/switchboard/internal/sampling"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Limits on what servers ask of the user.
const (
	// sampleTimeout bounds the completion a sampling request runs once
	// approved.
	sampleTimeout = 3 * time.Minute
	// Sampling: one request of a server waits at a time, and a server may
	// ask three times at once, then once every 20 s.
	samplingBurst, samplingEvery = 3, 20 * time.Second
	// Elicitation: three requests of a server wait at a time, five at
	// once, then one every 6 s.
	elicitBurst, elicitEvery = 5, 6 * time.Second
)

// Input request methods of a task in input_required (tasks.Options.Answer).
const (
	methodElicit = "elicitation/create"
	methodSample = "sampling/createMessage"
)

// errNotAnswered is the Answer error of a task's input request that
// Switchboard does not answer (roots/list).
var errNotAnswered = errors.New("Switchboard does not answer this kind of request")

// errUserRejected is what a server gets when the user denies its sampling
// request, as the MCP specification suggests.
var errUserRejected = &jsonrpc.Error{Code: -1, Message: "User rejected sampling request"}

// serverAsks puts what servers ask of the user (elicitation, sampling)
// through the two brokers, answers the servers, and says in each server's
// log what it asked and how it ended: never silent.
type serverAsks struct {
	elicit  *asks.Broker[*elicit.Request, elicit.Answer]
	sample  *asks.Broker[*sampling.Request, sampling.Decision]
	em      Emitter
	steps   steps // URL-mode steps whose completion is listened for
	calls   callOrigins
	manager func() *mcpconn.Manager
	// provider is the chat engine's: a client and default model for a
	// provider ID ("" = the default).
	provider chat.ProviderFunc
	// model names the model a completion would use now: the provider
	// (ID resolved) and model for a conversation's choice.
	model func(ctx context.Context, providerID, model string) (id, name, resolved string, err error)
	// conversation reads a conversation (for a task's origin), server a
	// server's stored record (for its name).
	conversation func(ctx context.Context, id string) (store.Conversation, error)
	server       func(ctx context.Context, id string) (store.Server, error)
	open         oauth.Opener
	log          *slog.Logger
}

func newServerAsks(em Emitter, visible func() bool) *serverAsks {
	return &serverAsks{
		em: em,
		elicit: asks.New[*elicit.Request, elicit.Answer](&asks.Options{
			EventRequested: elicit.EventRequested, EventEnded: elicit.EventEnded, Emitter: em, Visible: visible,
			Burst: elicitBurst, Every: elicitEvery,
		}),
		sample: asks.New[*sampling.Request, sampling.Decision](&asks.Options{
			EventRequested: sampling.EventRequested, EventEnded: sampling.EventEnded, Emitter: em, Visible: visible,
			MaxPendingPerServer: 1, Burst: samplingBurst, Every: samplingEvery,
		}),
	}
}

// wire connects a to the services it asks through: the manager for the
// servers' logs, the chat engine's providers for completions, the store
// for names, and open for the pages servers ask the user to open.
func (a *serverAsks) wire(s *Services, provider chat.ProviderFunc, open oauth.Opener, log *slog.Logger) {
	a.manager = func() *mcpconn.Manager { return s.Manager }
	a.provider, a.log = provider, log
	a.open = open
	if a.open == nil {
		a.open = oauth.OpenBrowser
	}
	a.conversation, a.server = s.store.Conversation, s.store.Server
	a.model = func(ctx context.Context, providerID, model string) (string, string, string, error) {
		if providerID == "" {
			if cur, err := LoadSettings(ctx, s.store); err == nil {
				providerID = cur.DefaultProviderID
			}
		}
		rec, err := s.Providers.Record(ctx, providerID)
		if err != nil {
			return "", "", "", err
		}
		return rec.ID, rec.Name, cmp.Or(model, rec.DefaultModel), nil
	}
}

// note says in server id's log what happened to its request.
func (a *serverAsks) note(id, text string) {
	if m := a.manager(); m != nil {
		m.Note(id, text)
	}
}

// serverName is server id's name as the user set it.
func (a *serverAsks) serverName(ctx context.Context, id string) string {
	if a.server != nil {
		if rec, err := a.server(ctx, id); err == nil && rec.Name != "" {
			return rec.Name
		}
	}
	return id
}

// ---- elicitation ----------------------------------------------------------

// elicitHandler is mcpconn.Options.Elicit: an elicitation/create sent on
// its own or as an input_required of a call (the SDK answers those
// through the same handler).
func (a *serverAsks) elicitHandler(ctx context.Context, serverID string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	var schema json.RawMessage
	if p.RequestedSchema != nil {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("reading the requested schema: %w", err)
		}
		schema = raw
	}
	// The SDK decoded the schema into a map: the server's order of
	// fields is lost.
	ans, err := a.askInput(ctx, serverID, p.Mode, p.Message, schema, p.URL, p.ElicitationID, false)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitResult{Action: string(ans.Action), Content: ans.Content}, nil
}

// askInput puts one elicitation to the user and returns the answer for the
// server. A request that is not shown (no window, too many) is declined
// and one nobody answered is cancelled; an error means the request was
// malformed or the server stopped waiting. A URL-mode request's dialog
// closes when the server says its step is done (the server is told the
// request was cancelled: the user never chose), and once the user opened
// its page, such word still shows "done" for a while (urlsteps.go).
func (a *serverAsks) askInput(ctx context.Context, serverID, mode, message string, schema json.RawMessage, link, elicitationID string, orderKnown bool) (elicit.Answer, error) {
	req, err := elicit.NewRequest(mode, message, schema, link, elicitationID, orderKnown)
	if err != nil {
		a.note(serverID, fmt.Sprintf("refused the server's request for input: %v", err))
		return elicit.Answer{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	name := a.serverName(ctx, serverID)
	var st *step
	opened := false
	if req.Mode == elicit.ModeURL && req.ElicitationID != "" {
		var release func(bool)
		st, release = a.steps.watch(elicit.Completed{ServerID: serverID, ServerName: name, ElicitationID: req.ElicitationID, Message: req.Message, Host: req.Host})
		defer func() { release(opened) }()
	}
	sctx, stop := untilDone(ctx, st)
	defer stop()
	ans, err := a.ask(sctx, serverID, name, req, false)
	switch {
	case err == nil:
		opened = req.Mode == elicit.ModeURL && ans.Action == elicit.Accept
		return ans, nil
	case errors.Is(err, errStepDone):
		return elicit.Answer{Action: elicit.Cancel}, nil
	case errors.Is(err, asks.ErrNoWindow), errors.Is(err, asks.ErrBusy), errors.Is(err, asks.ErrRateLimited):
		return elicit.Answer{Action: elicit.Decline}, nil
	case errors.Is(err, asks.ErrExpired), errors.Is(err, asks.ErrClosed):
		return elicit.Answer{Action: elicit.Cancel}, nil
	}
	return elicit.Answer{}, err
}

// AnswerElicitation gives the user's answer to the waiting elicitation
// id, once it matches what the server asked for. Accepting a URL-mode
// request opens its URL in the system browser first; if the browser
// cannot be opened the request keeps waiting and the error says why.
func (s *Services) AnswerElicitation(ctx context.Context, id string, ans elicit.Answer) error {
	req, ok := s.asks.elicit.Get(id)
	if !ok {
		return asks.ErrUnknown
	}
	if err := req.Check(ans); err != nil {
		return err
	}
	if req.Mode == elicit.ModeURL && ans.Action == elicit.Accept && !req.Waiting {
		if err := s.asks.open(ctx, req.URL); err != nil {
			return fmt.Errorf("opening %s: %w", req.URL, err)
		}
	}
	return s.asks.elicit.Answer(id, ans)
}

// PendingElicitations returns the elicitations waiting for the user,
// oldest first.
func (s *Services) PendingElicitations() []*elicit.Request { return s.asks.elicit.Pending() }

// ---- sampling ---------------------------------------------------------------

// sampleHandler is mcpconn.Options.Sample: the model is the one of the
// conversation whose tool call of the server is running, if any.
func (a *serverAsks) sampleHandler(ctx context.Context, serverID string, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	origin, _ := a.calls.latest(serverID)
	return a.askCompletion(ctx, serverID, p, origin)
}

// askCompletion puts a sampling request to the user and, once approved,
// runs the completion and returns it for the server.
func (a *serverAsks) askCompletion(ctx context.Context, serverID string, p *mcp.CreateMessageWithToolsParams, origin chat.CallOrigin) (*mcp.CreateMessageWithToolsResult, error) {
	req, err := sampling.NewRequest(p)
	if err != nil {
		a.note(serverID, fmt.Sprintf("refused the server's sampling request: %v", err))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	req.ConversationID = origin.ConversationID
	if id, name, model, err := a.model(ctx, origin.ProviderID, origin.Model); err == nil {
		req.ProviderID, req.ProviderName, req.Model = id, name, model
	} // else the user picks one in the dialog
	what := req.Summary()
	d, err := a.sample.Ask(ctx, serverID, a.serverName(ctx, serverID), req, what)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			a.note(serverID, fmt.Sprintf("the server stopped waiting for its sampling request, %s", what))
			return nil, err
		}
		a.note(serverID, fmt.Sprintf("refused the server's sampling request, %s: %v", what, err))
		return nil, fmt.Errorf("Switchboard refused the sampling request: %w", err)
	}
	if !d.Approve {
		a.note(serverID, fmt.Sprintf("the user denied the server's sampling request, %s", what))
		return nil, errUserRejected
	}
	providerID, model := cmp.Or(d.ProviderID, req.ProviderID), cmp.Or(d.Model, req.Model)
	if d.ProviderID != "" && d.ProviderID != req.ProviderID && d.Model == "" {
		model = "" // the other provider's default
	}
	client, def, err := a.provider(ctx, providerID)
	if err == nil && client == nil {
		err = errors.New("no provider is configured")
	}
	if err != nil {
		a.note(serverID, fmt.Sprintf("the approved sampling request could not run: %v", err))
		return nil, errors.New("the approved completion could not run; the user can see why in this server's log in Switchboard")
	}
	model = cmp.Or(model, def)
	if model == "" {
		a.note(serverID, "the approved sampling request could not run: no model is chosen")
		return nil, errors.New("the approved completion could not run: no model is chosen")
	}
	cctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	reply, err := client.Stream(cctx, req.LLMRequest(d, model), nil)
	if err != nil {
		// The provider's words (its address, an echo of the API key) are
		// the user's, not the server's.
		a.note(serverID, fmt.Sprintf("the completion for the server's sampling request failed: %v", err))
		return nil, errors.New("the model failed; the user can see why in this server's log in Switchboard")
	}
	res, err := sampling.Result(reply, model)
	if err != nil {
		a.note(serverID, fmt.Sprintf("the completion for the server's sampling request could not be sent: %v", err))
		return nil, fmt.Errorf("the model's reply cannot be sent: %v", err)
	}
	calls := ""
	if n := len(reply.ToolCalls); n > 0 {
		names := make([]string, n)
		for i, tc := range reply.ToolCalls {
			names[i] = tc.Name
		}
		calls = fmt.Sprintf(" and %d tool use(s) for the server to run (%s)", n, strings.Join(names, ", "))
	}
	a.note(serverID, fmt.Sprintf("sent the server a completion of %d characters%s from %s (%s), as the user approved", utf8.RuneCountInString(reply.Content), calls, res.Model, res.StopReason))
	return res, nil
}

// AnswerSampling gives the user's decision on the waiting sampling
// request id.
func (s *Services) AnswerSampling(id string, d sampling.Decision) error {
	req, ok := s.asks.sample.Get(id)
	if !ok {
		return asks.ErrUnknown
	}
	if err := req.Check(d); err != nil {
		return err
	}
	return s.asks.sample.Answer(id, d)
}

// PendingSamplings returns the sampling requests waiting for the user,
// oldest first.
func (s *Services) PendingSamplings() []*sampling.Request { return s.asks.sample.Pending() }

// ---- a task's input requests ----------------------------------------------

// answerTaskInput is tasks.Options.Answer: a task in input_required asks
// for input (elicitation) or a completion (sampling) through the same
// dialogs. The task's conversation gives the completion's model.
func (a *serverAsks) answerTaskInput(ctx context.Context, t store.Task, _ string, req mcpconn.TaskInputRequest) (json.RawMessage, error) {
	switch req.Method {
	case methodElicit:
		var p struct {
			Mode            string          `json:"mode"`
			Message         string          `json:"message"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
			URL             string          `json:"url"`
			ElicitationID   string          `json:"elicitationId"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			a.note(t.ServerID, fmt.Sprintf("declined the task's malformed request for input: %v", err))
			return json.RawMessage(`{"action":"decline"}`), nil
		}
		ans, err := a.askInput(ctx, t.ServerID, p.Mode, p.Message, p.RequestedSchema, p.URL, p.ElicitationID, true)
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) { // malformed: the task is told no
			return json.RawMessage(`{"action":"decline"}`), nil
		}
		if err != nil {
			return nil, err
		}
		return json.Marshal(&mcp.ElicitResult{Action: string(ans.Action), Content: ans.Content})
	case methodSample:
		var p mcp.CreateMessageWithToolsParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			a.note(t.ServerID, fmt.Sprintf("refused the task's malformed sampling request: %v", err))
			return nil, err
		}
		var origin chat.CallOrigin
		if t.ConversationID != "" && a.conversation != nil {
			if conv, err := a.conversation(ctx, t.ConversationID); err == nil {
				origin = chat.CallOrigin{ConversationID: conv.ID, ProviderID: conv.ProviderID, Model: conv.Model}
			}
		}
		res, err := a.askCompletion(ctx, t.ServerID, &p, origin)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	return nil, errNotAnswered
}

func (a *serverAsks) Close() error {
	return errors.Join(a.elicit.Close(), a.sample.Close())
}

// ---- which conversation a server's call runs for ---------------------------

// callOrigins keeps, per server, the conversations whose tool calls of it
// are running, so that a sampling request during a call uses that
// conversation's model.
type callOrigins struct {
	mu  sync.Mutex
	seq uint64
	by  map[string]map[uint64]chat.CallOrigin // server ID -> call -> origin
}

// add records a call of server id for origin; call the returned func when
// the call ends.
func (c *callOrigins) add(id string, o chat.CallOrigin) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]map[uint64]chat.CallOrigin{}
	}
	if c.by[id] == nil {
		c.by[id] = map[uint64]chat.CallOrigin{}
	}
	c.seq++
	n := c.seq
	c.by[id][n] = o
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.by[id], n)
		if len(c.by[id]) == 0 {
			delete(c.by, id)
		}
	}
}

// latest returns the origin of server id's most recent running call.
func (c *callOrigins) latest(id string) (chat.CallOrigin, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best uint64
	var o chat.CallOrigin
	for n, x := range c.by[id] {
		if n > best {
			best, o = n, x
		}
	}
	return o, best > 0
}
