package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

// ReplyMeta is the meta JSON of an assistant message.
type ReplyMeta struct {
	Model      string `json:"model"`
	ProviderID string `json:"providerId,omitempty"`
	// TimeToFirstTokenMs runs from the request to the first delta.
	TimeToFirstTokenMs int64   `json:"timeToFirstTokenMs,omitempty"`
	TokensPerSecond    float64 `json:"tokensPerSecond,omitempty"`
	// TokensPerSecondEstimated is set when the provider reported no usage.
	TokensPerSecondEstimated bool       `json:"tokensPerSecondEstimated,omitempty"`
	Usage                    *llm.Usage `json:"usage,omitempty"`
	FinishReason             string     `json:"finishReason,omitempty"`
	DurationMs               int64      `json:"durationMs,omitempty"`
	// Round counts the model calls of the run, from 1.
	Round int `json:"round,omitempty"`
	// Note marks an engine's note rather than a reply: "toolRoundsLimit".
	Note string `json:"note,omitempty"`
}

func (m ReplyMeta) raw() json.RawMessage {
	raw, _ := json.Marshal(m)
	return raw
}

// NoteToolRoundsLimit is ReplyMeta.Note on the message telling the user
// that MaxToolRounds was reached.
const NoteToolRoundsLimit = "toolRoundsLimit"

// turn runs the model and the tools it asks for until the model answers
// without tool calls, the run is stopped, an error happens, or
// MaxToolRounds rounds of tools ran. It owns the run and releases it.
func (e *Engine) turn(ctx context.Context, r *run, conv store.Conversation) {
	res := RunResult{RunID: r.id, Status: store.StatusDone}
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("chat run panicked", "conversationId", conv.ID, "panic", p)
			res.Status, res.Error = store.StatusError, fmt.Sprintf("Internal error: %v", p)
		}
		r.cancel()
		r.result = res
		state := StateIdle
		if res.Status == store.StatusError {
			state = StateError
		}
		e.status(conv.ID, state, res.Error)
		e.emit.Emit(EventDone, DoneEvent{ConversationID: conv.ID, RunID: r.id, Status: res.Status, Error: res.Error})
		e.log.Info("chat run ended", "conversationId", conv.ID, "runId", r.id, "status", res.Status)
		e.release(r)
	}()
	// Writes use save, which Stop does not cancel, so a stopped run still
	// records how it ended.
	save := context.WithoutCancel(ctx)

	client, model, err := e.resolve(ctx, conv)
	if err != nil {
		res = e.note(save, conv, res, ReplyMeta{Model: conv.Model, ProviderID: conv.ProviderID}, describe(err))
		return
	}
	warned := ""
	for round := 1; ; round++ {
		// The tools and the selection are read each round, so switching a
		// tool off applies to the next request of this run; the calls of a
		// reply run on the tools as they were offered.
		tools := e.allTools()
		offered, warning, searched := e.roundTools(tools, e.currentSelection(save, conv, tools), client.ToolLimits())
		if warning != "" && warning != warned {
			e.emit.Emit(EventWarning, WarningEvent{ConversationID: conv.ID, Message: warning})
		}
		warned = warning
		history, err := e.history(save, conv)
		if err != nil {
			res = e.note(save, conv, res, ReplyMeta{Model: model}, describe(err))
			return
		}
		req := llm.Request{Model: model, Messages: history, Tools: offered}
		msg, reply, err := e.stream(ctx, save, conv, client, req, round)
		res.MessageID = msg.ID
		switch {
		case msg.ID == 0: // the message could not even be stored
			res.Status, res.Error = store.StatusError, describe(err)
			return
		case msg.Status == store.StatusStopped:
			res.Status = store.StatusStopped
			return
		case msg.Status == store.StatusError:
			res.Status, res.Error = store.StatusError, msg.Error
			return
		case len(reply.ToolCalls) == 0:
			return
		}

		e.status(conv.ID, StateTools, "")
		e.runTools(ctx, save, conv, msg, reply.ToolCalls, tools, searched > 0)
		if ctx.Err() != nil {
			msg.Status = store.StatusStopped
			e.saveMessage(save, msg)
			res.Status = store.StatusStopped
			return
		}
		if round >= e.currentLimits().MaxToolRounds {
			text := fmt.Sprintf("Stopped after %d rounds of tool calls without a final answer. Press Retry to let the model go on, or send a message.", round)
			res = e.note(save, conv, res, ReplyMeta{Model: model, Note: NoteToolRoundsLimit}, text)
			return
		}
	}
}

// note appends an assistant message with status error telling the user
// why the run ended, and returns the run's result accordingly. Retry
// replaces it.
func (e *Engine) note(ctx context.Context, conv store.Conversation, res RunResult, meta ReplyMeta, text string) RunResult {
	res.Status, res.Error = store.StatusError, text
	m, err := e.opts.Store.AppendMessage(ctx, store.Message{ConversationID: conv.ID, Role: store.RoleAssistant,
		Status: store.StatusError, Error: text, Meta: meta.raw()})
	if err != nil {
		e.log.Error("saving a note", "conversationId", conv.ID, "err", err)
		return res
	}
	res.MessageID = m.ID
	e.emit.Emit(EventMessage, m)
	return res
}

// resolve finds the client and model for the conversation.
func (e *Engine) resolve(ctx context.Context, conv store.Conversation) (*llm.Client, string, error) {
	if e.opts.Provider == nil {
		return nil, "", ErrNoProvider
	}
	client, def, err := e.opts.Provider(ctx, conv.ProviderID)
	if err != nil {
		return nil, "", err
	}
	if client == nil {
		return nil, "", ErrNoProvider
	}
	model := cmp.Or(conv.Model, def)
	if model == "" {
		return nil, "", errors.New("no model is chosen for this conversation; pick one, or set the provider's default model in Settings → Providers")
	}
	return client, model, nil
}

func (e *Engine) history(ctx context.Context, conv store.Conversation) ([]llm.Message, error) {
	stored, err := e.opts.Store.Messages(ctx, conv.ID, store.MessagePage{})
	if err != nil {
		return nil, fmt.Errorf("reading the conversation: %w", err)
	}
	system := e.currentLimits().DefaultSystemPrompt
	if conv.SystemPrompt != nil {
		system = *conv.SystemPrompt
	}
	return buildHistory(system, stored, e.blobs(ctx, stored)), nil
}

// stream asks the model and streams its reply into a new assistant
// message. The returned message has status done, stopped or error (ID zero
// if it could not be stored); reply.ToolCalls is empty unless the reply
// finished.
func (e *Engine) stream(ctx, save context.Context, conv store.Conversation, client *llm.Client, req llm.Request, round int) (store.Message, llm.Reply, error) {
	meta := ReplyMeta{Model: req.Model, ProviderID: conv.ProviderID, Round: round}
	msg, err := e.opts.Store.AppendMessage(save, store.Message{ConversationID: conv.ID, Role: store.RoleAssistant,
		Status: store.StatusStreaming, Meta: meta.raw()})
	if err != nil {
		return store.Message{}, llm.Reply{}, fmt.Errorf("saving the reply: %w", err)
	}
	e.emit.Emit(EventMessage, msg)
	e.status(conv.ID, StateStreaming, "")

	s := newSink(e.opts.DeltaInterval, e.opts.FlushInterval,
		func(content, reasoning string) {
			e.emit.Emit(EventDelta, DeltaEvent{ConversationID: conv.ID, MessageID: msg.ID, Content: content, Reasoning: reasoning})
		},
		func(content, reasoning string) {
			if err := e.opts.Store.UpdateStreaming(save, msg.ID, content, reasoning); err != nil {
				e.log.Warn("saving a streaming reply", "messageId", msg.ID, "err", err)
			}
		})
	retrying := false
	policy := e.opts.Retry
	policy.OnRetry = func(attempt int, wait time.Duration, err error) {
		retrying = true
		e.log.Info("rate limited", "conversationId", conv.ID, "attempt", attempt, "wait", wait)
		e.emit.Emit(EventStatus, StatusEvent{ConversationID: conv.ID, State: StateRetrying, RetryInMs: wait.Milliseconds(),
			Message: fmt.Sprintf("rate limited, retrying in %d s", int(math.Ceil(wait.Seconds())))})
	}
	start := e.opts.Now()
	reply, err := client.StreamWithRetry(ctx, req, policy, func(ev llm.Event) {
		if retrying {
			retrying = false
			e.status(conv.ID, StateStreaming, "")
		}
		switch ev := ev.(type) {
		case llm.ContentDelta:
			s.add(ev.Text, "")
		case llm.ReasoningDelta:
			s.add("", ev.Text)
		}
	})
	s.close()

	meta.Model = cmp.Or(reply.Model, req.Model)
	meta.TimeToFirstTokenMs = reply.TimeToFirstToken.Milliseconds()
	meta.TokensPerSecond = math.Round(reply.TokensPerSecond*10) / 10
	meta.TokensPerSecondEstimated = reply.TokensPerSecondEstimated
	meta.Usage = reply.Usage
	meta.FinishReason = reply.FinishReason
	meta.DurationMs = e.opts.Now().Sub(start).Milliseconds()
	msg.Meta = meta.raw()
	msg.Content, msg.Reasoning = reply.Content, reply.Reasoning
	switch {
	case err == nil:
		msg.Status = store.StatusDone
		reply.ToolCalls = uniqueCallIDs(reply.ToolCalls)
		if len(reply.ToolCalls) > 0 {
			msg.ToolCalls, _ = json.Marshal(reply.ToolCalls)
		}
	case ctx.Err() != nil:
		msg.Status = store.StatusStopped
		reply.ToolCalls = nil
	default:
		msg.Status, msg.Error = store.StatusError, describe(err)
		reply.ToolCalls = nil
		e.log.Info("reply failed", "conversationId", conv.ID, "model", req.Model, "err", err)
	}
	return e.saveMessage(save, msg), reply, err
}

// saveMessage stores m as a whole and tells the UI; on a database error it
// logs and returns m as it was.
func (e *Engine) saveMessage(ctx context.Context, m store.Message) store.Message {
	saved, err := e.opts.Store.UpdateMessage(ctx, m)
	if err != nil {
		e.log.Error("saving a message", "messageId", m.ID, "err", err)
		saved = m
	}
	e.emit.Emit(EventMessage, saved)
	return saved
}

func (e *Engine) status(convID, state, message string) {
	e.emit.Emit(EventStatus, StatusEvent{ConversationID: convID, State: state, Message: message})
}

// uniqueCallIDs makes the calls' IDs distinct within the reply, since the
// tool results are matched to calls by ID.
func uniqueCallIDs(calls []llm.ToolCall) []llm.ToolCall {
	seen := map[string]bool{}
	for i := range calls {
		id := calls[i].ID
		for n := 2; seen[id]; n++ {
			id = fmt.Sprintf("%s_%d", calls[i].ID, n)
		}
		calls[i].ID = id
		seen[id] = true
	}
	return calls
}

// describe turns an error into the text shown on the message: llm's
// errors already say what to do; this only starts the sentence with a
// capital.
func describe(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
