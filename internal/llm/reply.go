package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// wireChunk is one chat.completion.chunk as providers send it. It is decoded
// here rather than with go-openai's type so that "reasoning" (not only
// "reasoning_content") is read and so that a body that is not a chunk at
// all can be recognised.
type wireChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string            `json:"content"`
			ReasoningContent json.RawMessage   `json:"reasoning_content"`
			Reasoning        json.RawMessage   `json:"reasoning"`
			ToolCalls        []openai.ToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *openai.Usage `json:"usage"`

	// Error shapes some providers put in the stream.
	Error   json.RawMessage `json:"error"`
	Message json.RawMessage `json:"message"`
	Detail  json.RawMessage `json:"detail"`
}

// replyBuilder folds chunks into a Reply and events.
type replyBuilder struct {
	start        time.Time
	firstToken   time.Time
	lastToken    time.Time
	deltas       int
	reply        Reply
	content      bytes.Buffer
	reasoning    bytes.Buffer
	tools        toolCallAccumulator
	argBytes     int
	sawFinish    bool
	requestModel string
}

func newReplyBuilder(model string, start time.Time) *replyBuilder {
	return &replyBuilder{start: start, requestModel: model}
}

// chunk decodes one data payload and emits its events.
func (b *replyBuilder) chunk(raw []byte, emit func(Event)) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		// go-openai returns an empty payload for an {"error":…} line it
		// could not decode.
		return fmt.Errorf("%w (an error the app could not read)", ErrMalformed)
	}
	var c wireChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("%w (bad chunk: %s)", ErrMalformed, snippet(raw))
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return classifyStreamError(parseErrorBody(raw))
	}
	if c.ID == "" && c.Model == "" && c.Object == "" && len(c.Choices) == 0 && c.Usage == nil {
		// Not a chunk: typically an error body without the {"error":…}
		// wrapper, which go-openai would hand over as an empty chunk.
		if d := parseErrorBody(raw); len(c.Message) > 0 || len(c.Detail) > 0 {
			return fmt.Errorf("%w (the provider sent an error in the stream: %s)", ErrMalformed, d.Message)
		}
		return fmt.Errorf("%w (not a chunk: %s)", ErrMalformed, snippet(raw))
	}
	if b.reply.Model == "" && c.Model != "" {
		b.reply.Model = c.Model
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // n is always 1; ignore anything else
		}
		d := ch.Delta
		if r := jsonString(d.ReasoningContent) + jsonString(d.Reasoning); r != "" {
			b.token()
			b.reasoning.WriteString(r)
			emit(ReasoningDelta{Text: r})
		}
		if d.Content != "" {
			b.token()
			b.content.WriteString(d.Content)
			emit(ContentDelta{Text: d.Content})
		}
		for _, tc := range d.ToolCalls {
			b.token()
			idx, started := b.tools.add(tc)
			if started {
				cur := b.tools.call(idx)
				emit(ToolCallStarted{Index: idx, ID: tc.ID, Name: cur.Name})
			}
			if tc.Function.Arguments != "" {
				b.argBytes += len(tc.Function.Arguments)
				emit(ToolCallArgsDelta{Index: idx, Delta: tc.Function.Arguments})
			}
		}
		if ch.FinishReason != "" {
			b.sawFinish = true
			b.reply.FinishReason = ch.FinishReason
			emit(Finished{Reason: ch.FinishReason})
		}
	}
	if c.Usage != nil {
		u := Usage{
			PromptTokens:     c.Usage.PromptTokens,
			CompletionTokens: c.Usage.CompletionTokens,
			TotalTokens:      c.Usage.TotalTokens,
		}
		if c.Usage.CompletionTokensDetails != nil {
			u.ReasoningTokens = c.Usage.CompletionTokensDetails.ReasoningTokens
		}
		b.reply.Usage = &u
		emit(UsageReport{Usage: u})
	}
	return nil
}

// token records the arrival time of a delta.
func (b *replyBuilder) token() {
	now := time.Now()
	if b.deltas == 0 {
		b.firstToken = now
	}
	b.lastToken = now
	b.deltas++
}

// result returns the Reply as it stands.
func (b *replyBuilder) result() Reply {
	r := b.reply
	if r.Model == "" {
		r.Model = b.requestModel
	}
	r.Content = b.content.String()
	r.Reasoning = b.reasoning.String()
	r.ToolCalls = b.tools.result()
	if b.deltas > 0 {
		r.TimeToFirstToken = b.firstToken.Sub(b.start)
	}
	tokens := 0
	if r.Usage != nil && r.Usage.CompletionTokens > 0 {
		tokens = r.Usage.CompletionTokens
	} else if b.deltas > 0 {
		tokens = max(1, (len(r.Content)+len(r.Reasoning)+b.argBytes+3)/4)
		r.TokensPerSecondEstimated = true
	}
	// The rate over [first delta, last delta]: the tokens of the first
	// delta were generated before the window opened, so count one fewer.
	if gen := b.lastToken.Sub(b.firstToken); tokens > 1 && gen > 0 {
		r.TokensPerSecond = float64(tokens-1) / gen.Seconds()
	}
	return r
}

// jsonString returns the value of a JSON string, or "" for anything else
// (absent, null, or an object some providers put under "reasoning").
func jsonString(m json.RawMessage) string {
	if len(m) == 0 || m[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(m, &s) != nil {
		return ""
	}
	return s
}
