package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// errIdle is the cancel cause when a stream stays silent past IdleTimeout.
var errIdle = errors.New("stream idle")

// Stream sends req and reads the streamed reply, calling onEvent (which may
// be nil) in this goroutine for each event, in order. It returns the Reply
// when the stream ends.
//
// On error the Reply holds what arrived before it: cancelling ctx (Stop)
// closes the connection at once and returns the partial Reply with
// ctx.Err(); a dropped connection returns it with ErrConnection.
func (c *Client) Stream(ctx context.Context, req Request, onEvent func(Event)) (reply Reply, err error) {
	if hasImages(req) {
		defer func() { err = withImageAdvice(err) }()
	}
	start := time.Now()
	b := newReplyBuilder(req.Model, start)
	oreq, zeroTemp, err := chatRequest(req)
	if err != nil {
		return b.result(), err
	}
	if onEvent == nil {
		onEvent = func(Event) {}
	}

	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(c.idleTimeout, func() { cancel(errIdle) })
	defer idle.Stop()

	ex := &exchange{temperatureZero: zeroTemp, keepTail: true}
	stream, err := c.api.CreateChatCompletionStream(withExchange(sctx, ex), oreq)
	if err != nil {
		return b.result(), c.streamError(ctx, sctx, err, ex, phaseChat)
	}
	defer stream.Close()
	c.log.Debug("stream opened", "baseUrl", c.baseURL, "model", req.Model, "status", ex.status)

	for {
		raw, err := stream.RecvRaw()
		idle.Reset(c.idleTimeout)
		if errors.Is(err, io.EOF) && ctx.Err() == nil && context.Cause(sctx) != errIdle {
			return b.result(), endOfStream(b, ex.tail)
		}
		if err != nil {
			return b.result(), c.streamError(ctx, sctx, err, ex, phaseStream)
		}
		if err := b.chunk(raw, onEvent); err != nil {
			c.log.Debug("bad chunk", "baseUrl", c.baseURL, "err", err)
			return b.result(), err
		}
	}
}

// streamError classifies an error from opening or reading the stream.
func (c *Client) streamError(ctx, sctx context.Context, err error, ex *exchange, ph phase) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if context.Cause(sctx) == errIdle {
		return fmt.Errorf("%w (no data from the provider for %s)", ErrConnection, c.idleTimeout)
	}
	for _, v := range []error{
		openai.ErrReasoningModelMaxTokensDeprecated, openai.ErrReasoningModelLimitationsOther,
		openai.ErrReasoningModelLimitationsLogprobs, openai.ErrReasoningSamplingUnsupported,
		openai.ErrReasoningToolsRequireResponses, openai.ErrReasoningEffortUnsupported,
		openai.ErrChatCompletionInvalidModel,
	} {
		if errors.Is(err, v) {
			return fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
	}
	return c.classify(ctx, err, ex, ph)
}

// endOfStream decides whether a stream that ended was complete. It was if
// it ended with "data: [DONE]" or sent a finish reason. Otherwise the body
// stopped early: either after an error body that go-openai swallowed (a
// line without "data:"), or because the connection closed.
func endOfStream(b *replyBuilder, tail *tailReader) error {
	last := tail.lastLine()
	if b.sawFinish || bytes.Equal(bytes.ReplaceAll(last, []byte(" "), nil), []byte("data:[DONE]")) {
		return nil
	}
	if len(last) > 0 && last[0] == '{' {
		d := parseErrorBody(last)
		return fmt.Errorf("%w (the provider sent an error in the stream: %s)", ErrMalformed, d.Message)
	}
	return fmt.Errorf("%w (the stream ended without a finish reason)", ErrConnection)
}
