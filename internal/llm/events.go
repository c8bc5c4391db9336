package llm

import "time"

// An Event is one step of a streamed reply. Its dynamic type is one of
// ContentDelta, ReasoningDelta, ToolCallStarted, ToolCallArgsDelta,
// UsageReport or Finished.
type Event interface{ event() }

// A ContentDelta is the next piece of the reply text.
type ContentDelta struct{ Text string }

// A ReasoningDelta is the next piece of the model's reasoning, from
// "reasoning_content" (DeepSeek) or "reasoning" (Cerebras, Groq, OpenRouter).
type ReasoningDelta struct{ Text string }

// A ToolCallStarted is the first delta of a tool call. Name and ID are as
// far as they arrived with it (normally whole).
type ToolCallStarted struct {
	Index int
	ID    string
	Name  string
}

// A ToolCallArgsDelta is the next piece of a call's JSON arguments.
type ToolCallArgsDelta struct {
	Index int
	Delta string
}

// A UsageReport carries the token counts the provider reported at the end.
type UsageReport struct{ Usage Usage }

// A Finished carries the finish reason: "stop", "tool_calls", "length",
// "content_filter", or whatever else the provider sent.
type Finished struct{ Reason string }

func (ContentDelta) event()      {}
func (ReasoningDelta) event()    {}
func (ToolCallStarted) event()   {}
func (ToolCallArgsDelta) event() {}
func (UsageReport) event()       {}
func (Finished) event()          {}

// Usage is the provider's token count for one request.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	TotalTokens      int `json:"totalTokens"`
	// ReasoningTokens is the part of CompletionTokens spent reasoning, when
	// the provider says; zero otherwise.
	ReasoningTokens int `json:"reasoningTokens"`
}

// A Reply is everything a stream produced. After an error it holds what
// arrived before the error.
type Reply struct {
	// Model is the model that answered as the provider named it, or the
	// requested model if it named none.
	Model     string     `json:"model"`
	Content   string     `json:"content"`
	Reasoning string     `json:"reasoning"`
	ToolCalls []ToolCall `json:"toolCalls"` // in index order
	// Usage is nil when the provider reported none.
	Usage *Usage `json:"usage"`
	// FinishReason is empty when the stream did not finish.
	FinishReason string `json:"finishReason"`
	// TimeToFirstToken runs from the request start to the first content,
	// reasoning or tool-call delta; zero when none arrived.
	TimeToFirstToken time.Duration `json:"timeToFirstToken"`
	// TokensPerSecond is the generation rate between the first and the last
	// delta; zero when it cannot be measured (fewer than two deltas).
	TokensPerSecond float64 `json:"tokensPerSecond"`
	// TokensPerSecondEstimated is true when the provider reported no usage,
	// so the token count was estimated from the text (about 4 bytes a token).
	TokensPerSecondEstimated bool `json:"tokensPerSecondEstimated"`
}
