package chat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
)

// Defaults of Options.
const (
	DefaultMaxToolRounds = 10
	DefaultResultLimit   = 32_000
	DefaultContextTokens = 32_768
	DefaultFlushInterval = 250 * time.Millisecond
	DefaultDeltaInterval = 8 * time.Millisecond
)

// Errors returned by the Engine's methods.
var (
	ErrBusy           = errors.New("a reply is still being written in this conversation; stop it or wait for it to finish")
	ErrEmptyMessage   = errors.New("the message is empty")
	ErrNothingToRetry = errors.New("there is no message of yours to answer in this conversation")
	ErrNotUserMessage = errors.New("only your own messages can be edited and resent")
	ErrClosed         = errors.New("the chat engine is shut down")
	ErrNoProvider     = errors.New("no provider is set up; add one in Settings → Providers")
)

// ProviderFunc returns the client for a provider ("" means the default
// provider) and that provider's default model.
type ProviderFunc func(ctx context.Context, providerID string) (client *llm.Client, defaultModel string, err error)

// Options configure an Engine. Store and Provider are required; a zero
// field means its default.
type Options struct {
	Store *store.Store
	// Provider resolves a conversation's provider to a client.
	Provider ProviderFunc
	// ToolLimits returns the tool limits of a provider ("" means the
	// default) without building a client, which reads its key from the
	// keyring; the tool picker asks often. Nil means Provider's client's.
	ToolLimits func(ctx context.Context, providerID string) llm.ToolLimits
	// Tools is where tools come from; nil offers none.
	Tools ToolSource
	// Approver decides tool calls; nil refuses every call.
	Approver Approver
	// Tasks follows the calls a server runs as tasks; nil ends such a
	// call with an error the model and the user read.
	Tasks Tasks
	// Emitter receives events; nil drops them.
	Emitter Emitter
	// Logger receives the engine's log; nil discards it.
	Logger *slog.Logger
	// MaxToolRounds is how many rounds of tool calls one run makes before
	// it stops and tells the user; zero means DefaultMaxToolRounds.
	MaxToolRounds int
	// ResultLimit is the most characters of a tool result a model sees;
	// zero means DefaultResultLimit.
	ResultLimit int
	// DefaultSystemPrompt is used when a conversation has no override;
	// empty sends no system message.
	DefaultSystemPrompt string
	// ContextTokens is the context size assumed when warning that tool
	// schemas take too much of it; zero means DefaultContextTokens.
	ContextTokens int
	// Retry is the policy for rate-limited requests; its OnRetry is
	// replaced by the engine's, which tells the user. Zero means llm's
	// defaults.
	Retry llm.RetryPolicy
	// FlushInterval is the longest a streaming reply's text waits before it
	// is saved; zero means DefaultFlushInterval.
	FlushInterval time.Duration
	// DeltaInterval is the shortest time between two chat:delta events of
	// a conversation; zero means DefaultDeltaInterval.
	DeltaInterval time.Duration
	// Now is the clock for audit times and durations; nil means time.Now.
	Now func() time.Time
	// TrifectaGuard reports whether the lethal-trifecta guard is on (the
	// user's setting, read as each outbound call is decided, so a change
	// applies at once); nil means off. See guardFor.
	TrifectaGuard func(ctx context.Context) bool
	// ToolSearch says when a request carries the tool-search pair instead
	// of the tools (toolsearch.go); the zero value is toolsearch's default
	// (auto, with its thresholds).
	ToolSearch toolsearch.Settings
}

// An Engine runs conversation turns. It is safe for concurrent use; it
// starts goroutines only for runs.
type Engine struct {
	opts Options
	// limits holds the settings the user can change while the app runs.
	limits atomic.Pointer[Limits]
	log    *slog.Logger
	emit   Emitter
	// progress paces the tool calls' progress events.
	progress *progressPacer

	root       context.Context // parent of async runs; cancelled by Close
	cancelRoot context.CancelFunc

	mu     sync.Mutex
	runs   map[string]*run // by conversation ID
	last   map[string]RunResult
	closed bool
	wg     sync.WaitGroup
}

// A RunResult says how a run ended.
type RunResult struct {
	RunID string `json:"runId"`
	// Status is store.StatusDone, StatusStopped or StatusError.
	Status string `json:"status"`
	// Error is the error shown on the conversation when Status is error.
	Error string `json:"error,omitempty"`
	// MessageID is the run's last assistant message; zero if none.
	MessageID int64 `json:"messageId,omitempty"`
}

type run struct {
	id     string
	convID string
	cancel context.CancelFunc
	done   chan struct{}
	result RunResult
}

// NewEngine returns an Engine; opts nil means defaults (and no store, which
// only suits tests of the helpers).
func NewEngine(opts *Options) *Engine {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.MaxToolRounds = cmp.Or(o.MaxToolRounds, DefaultMaxToolRounds)
	o.ResultLimit = cmp.Or(o.ResultLimit, DefaultResultLimit)
	o.ContextTokens = cmp.Or(o.ContextTokens, DefaultContextTokens)
	o.FlushInterval = cmp.Or(o.FlushInterval, DefaultFlushInterval)
	o.DeltaInterval = cmp.Or(o.DeltaInterval, DefaultDeltaInterval)
	if o.Now == nil {
		o.Now = time.Now
	}
	e := &Engine{opts: o, log: o.Logger, emit: o.Emitter, runs: map[string]*run{}, last: map[string]RunResult{}}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.emit == nil {
		e.emit = nopEmitter{}
	}
	e.progress = newProgressPacer(e.emit)
	e.limits.Store(&Limits{MaxToolRounds: o.MaxToolRounds, ResultLimit: o.ResultLimit, DefaultSystemPrompt: o.DefaultSystemPrompt,
		ToolSearch: o.ToolSearch})
	e.root, e.cancelRoot = context.WithCancel(context.Background())
	return e
}

// Limits are the engine's settings that the user may change at any time;
// a run reads them as it goes, so a change applies from the next round.
type Limits struct {
	MaxToolRounds       int
	ResultLimit         int
	DefaultSystemPrompt string
	// ToolSearch says when the tool-search pair replaces the tools.
	ToolSearch toolsearch.Settings
}

// SetLimits changes the limits; a zero number means its default.
func (e *Engine) SetLimits(l Limits) {
	l.MaxToolRounds = cmp.Or(l.MaxToolRounds, DefaultMaxToolRounds)
	l.ResultLimit = cmp.Or(l.ResultLimit, DefaultResultLimit)
	e.limits.Store(&l)
}

func (e *Engine) currentLimits() Limits { return *e.limits.Load() }

// SetToolSearch changes only when tool search is used (ask's
// --tool-search, for one run), keeping the other limits.
func (e *Engine) SetToolSearch(s toolsearch.Settings) {
	for {
		old := e.limits.Load()
		l := *old
		l.ToolSearch = s
		if e.limits.CompareAndSwap(old, &l) {
			return
		}
	}
}

// Close stops every run and waits for them to save their state. It is safe
// to call twice.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancelRoot()
	e.wg.Wait()
	return nil
}

// Send stores text as the user's next message in the conversation and
// starts the reply in the background. It returns the run's ID once the
// message is stored; the run reports through events (chat:done at the end).
// The attachments, if any, were stored by core.Services.Attach; at most
// MaxAttachments.
func (e *Engine) Send(ctx context.Context, convID, text string, attachments ...store.Attachment) (string, error) {
	r, err := e.start(ctx, convID, true, e.prepareSend(text, attachments))
	if err != nil {
		return "", err
	}
	return r.id, nil
}

// Run is Send that waits for the reply. The error is about starting (busy,
// unknown conversation, empty text, database); how the turn went is in the
// RunResult. Cancelling ctx stops the run, like Stop.
func (e *Engine) Run(ctx context.Context, convID, text string, attachments ...store.Attachment) (RunResult, error) {
	r, err := e.start(ctx, convID, false, e.prepareSend(text, attachments))
	if err != nil {
		return RunResult{}, err
	}
	return r.result, nil
}

// Regenerate deletes everything after the conversation's last user message
// and answers it again, in the background.
func (e *Engine) Regenerate(ctx context.Context, convID string) (string, error) {
	r, err := e.start(ctx, convID, true, e.prepareRegenerate)
	if err != nil {
		return "", err
	}
	return r.id, nil
}

// Retry re-runs the last turn after an error or a stop: a failed or
// stopped reply without tool calls is replaced, and the model is asked
// again from there, so tool calls that already ran are not repeated. When
// the last reply finished normally it is Regenerate.
func (e *Engine) Retry(ctx context.Context, convID string) (string, error) {
	r, err := e.start(ctx, convID, true, e.prepareRetry)
	if err != nil {
		return "", err
	}
	return r.id, nil
}

// EditAndResend replaces the text of the user message at seq, deletes every
// later message and answers it, in the background. The message keeps its
// attachments.
func (e *Engine) EditAndResend(ctx context.Context, convID string, seq int64, text string) (string, error) {
	r, err := e.start(ctx, convID, true, e.prepareEdit(seq, text, false, nil))
	if err != nil {
		return "", err
	}
	return r.id, nil
}

// EditAndResendWith is EditAndResend that also replaces the message's
// attachments (nil or empty for none): to remove an image a model does
// not take, say.
func (e *Engine) EditAndResendWith(ctx context.Context, convID string, seq int64, text string, attachments []store.Attachment) (string, error) {
	r, err := e.start(ctx, convID, true, e.prepareEdit(seq, text, true, attachments))
	if err != nil {
		return "", err
	}
	return r.id, nil
}

// Stop cancels the conversation's run at once: the stream is closed,
// running tool calls are cancelled, and the partial reply is kept as
// stopped. It reports whether a run was going.
func (e *Engine) Stop(convID string) bool {
	e.mu.Lock()
	r := e.runs[convID]
	e.mu.Unlock()
	if r == nil {
		return false
	}
	r.cancel()
	return true
}

// Running reports whether the conversation has a run going.
func (e *Engine) Running(convID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runs[convID] != nil
}

// Wait waits until the conversation's run (if any) ends and returns the
// result of its last run; zero if it never ran.
func (e *Engine) Wait(ctx context.Context, convID string) (RunResult, error) {
	e.mu.Lock()
	r := e.runs[convID]
	last := e.last[convID]
	e.mu.Unlock()
	if r == nil {
		return last, nil
	}
	select {
	case <-r.done:
		return r.result, nil
	case <-ctx.Done():
		return RunResult{}, ctx.Err()
	}
}

// A prepareFunc makes the changes a run starts from (storing the user's
// message, deleting a reply to regenerate), while the run is reserved.
type prepareFunc func(ctx context.Context, conv store.Conversation) error

// start reserves the conversation, prepares, and runs the turn: in a new
// goroutine when async, else in this one.
func (e *Engine) start(ctx context.Context, convID string, async bool, prepare prepareFunc) (*run, error) {
	if e.opts.Store == nil {
		return nil, errors.New("chat engine has no store")
	}
	parent := ctx
	if async {
		parent = e.root
	}
	r, runCtx, err := e.reserve(parent, convID)
	if err != nil {
		return nil, err
	}
	conv, err := e.opts.Store.Conversation(ctx, convID)
	if err == nil {
		err = prepare(ctx, conv)
	}
	if err == nil {
		// prepare may have set the title.
		conv, err = e.opts.Store.Conversation(ctx, convID)
	}
	if err != nil {
		r.cancel()
		e.release(r)
		return nil, err
	}
	if !async {
		e.turn(runCtx, r, conv)
		return r, nil
	}
	go e.turn(runCtx, r, conv)
	return r, nil
}

func (e *Engine) reserve(parent context.Context, convID string) (*run, context.Context, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil, ErrClosed
	}
	if e.runs[convID] != nil {
		return nil, nil, ErrBusy
	}
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(e.root, cancel) // Close stops synchronous runs too
	r := &run{id: store.NewID(), convID: convID, done: make(chan struct{}),
		cancel: func() { stop(); cancel() }}
	e.runs[convID] = r
	e.wg.Add(1) // under mu, so that Close, once it set closed, waits for every run
	return r, ctx, nil
}

// release ends the run's reservation and wakes its waiters.
func (e *Engine) release(r *run) {
	e.mu.Lock()
	delete(e.runs, r.convID)
	if r.result.RunID != "" {
		e.last[r.convID] = r.result
	}
	e.mu.Unlock()
	close(r.done)
	e.wg.Done()
}

func (e *Engine) prepareSend(text string, attachments []store.Attachment) prepareFunc {
	return func(ctx context.Context, conv store.Conversation) error {
		if strings.TrimSpace(text) == "" && len(attachments) == 0 {
			return ErrEmptyMessage
		}
		atts, err := e.checkAttachments(ctx, attachments)
		if err != nil {
			return err
		}
		m, err := e.opts.Store.AppendMessage(ctx, store.Message{ConversationID: conv.ID, Role: store.RoleUser, Content: text, Attachments: atts})
		if err != nil {
			return fmt.Errorf("saving your message: %w", err)
		}
		e.emit.Emit(EventMessage, m)
		if conv.Title == "" {
			if t := cmp.Or(Title(text), attachmentTitle(atts)); t != "" {
				if err := e.opts.Store.RenameConversation(ctx, conv.ID, t); err != nil {
					e.log.Warn("setting title", "conversationId", conv.ID, "err", err)
				} else if c, err := e.opts.Store.Conversation(ctx, conv.ID); err == nil {
					e.emit.Emit(EventConversation, c)
				}
			}
		}
		return nil
	}
}

func (e *Engine) prepareRegenerate(ctx context.Context, conv store.Conversation) error {
	user, err := e.lastUserMessage(ctx, conv.ID)
	if err != nil {
		return err
	}
	return e.truncate(ctx, conv.ID, user.Seq)
}

func (e *Engine) prepareRetry(ctx context.Context, conv store.Conversation) error {
	last, err := e.opts.Store.Messages(ctx, conv.ID, store.MessagePage{Limit: 1})
	if err != nil {
		return err
	}
	if len(last) == 0 {
		return ErrNothingToRetry
	}
	m := last[0]
	switch {
	case m.Role == store.RoleUser, m.Role == store.RoleTool:
		return nil // answer from here
	case m.Role == store.RoleAssistant && len(m.ToolCalls) > 0:
		return nil // its calls have results (or get "no result"); ask again
	case m.Role == store.RoleAssistant && (m.Status == store.StatusError || m.Status == store.StatusStopped || m.Status == store.StatusStreaming):
		return e.truncate(ctx, conv.ID, m.Seq-1)
	}
	return e.prepareRegenerate(ctx, conv)
}

func (e *Engine) prepareEdit(seq int64, text string, replace bool, attachments []store.Attachment) prepareFunc {
	return func(ctx context.Context, conv store.Conversation) error {
		m, err := e.opts.Store.MessageAt(ctx, conv.ID, seq)
		if err != nil {
			return err
		}
		if m.Role != store.RoleUser {
			return ErrNotUserMessage
		}
		if !replace {
			attachments = m.Attachments
		}
		if strings.TrimSpace(text) == "" && len(attachments) == 0 {
			return ErrEmptyMessage
		}
		if replace {
			atts, cerr := e.checkAttachments(ctx, attachments)
			if cerr != nil {
				return cerr
			}
			m, err = e.opts.Store.ReplaceMessage(ctx, conv.ID, seq, text, atts)
		} else {
			m, err = e.opts.Store.EditMessage(ctx, conv.ID, seq, text)
		}
		if err != nil {
			return err
		}
		e.emit.Emit(EventTruncated, TruncatedEvent{ConversationID: conv.ID, AfterSeq: seq})
		e.emit.Emit(EventMessage, m)
		return nil
	}
}

func (e *Engine) truncate(ctx context.Context, convID string, afterSeq int64) error {
	if _, err := e.opts.Store.DeleteMessagesAfter(ctx, convID, afterSeq); err != nil {
		return err
	}
	e.emit.Emit(EventTruncated, TruncatedEvent{ConversationID: convID, AfterSeq: afterSeq})
	return nil
}

// lastUserMessage finds the last user message, a page at a time from the
// end.
func (e *Engine) lastUserMessage(ctx context.Context, convID string) (store.Message, error) {
	var before int64
	for {
		page, err := e.opts.Store.Messages(ctx, convID, store.MessagePage{BeforeSeq: before, Limit: 100})
		if err != nil {
			return store.Message{}, err
		}
		if len(page) == 0 {
			return store.Message{}, ErrNothingToRetry
		}
		for i := len(page) - 1; i >= 0; i-- {
			if page[i].Role == store.RoleUser {
				return page[i], nil
			}
		}
		before = page[0].Seq
	}
}
