// Package llm talks to any OpenAI-compatible chat-completions provider
// (Cerebras, OpenAI, Groq, OpenRouter, Ollama, LM Studio, or a custom base
// URL) through github.com/sashabaranov/go-openai, and turns its stream into
// typed events and one final Reply.
//
// Design notes:
//   - Client.Stream runs in the caller's goroutine and calls onEvent for each
//     delta, so events stay ordered and Stop is just cancelling ctx: the HTTP
//     body is closed and the partial Reply comes back with ctx.Err().
//   - Chunks are read with go-openai's RecvRaw and decoded here, so that both
//     reasoning spellings ("reasoning_content" and "reasoning") are surfaced and
//     a chunk that is not a chunk (an error body without the {"error":…}
//     wrapper, which go-openai would decode as an empty chunk) is an error.
//   - Tool-call deltas are accumulated per index (see accumulate.go); the
//     final list is in index order with the full arguments string.
//   - go-openai drops Temperature 0 (omitempty) and discards response headers
//     on errors, so the HTTP client is wrapped (exchange.go): it writes an
//     explicit "temperature":0 into the body and keeps the status and headers
//     (Retry-After) of the response for error classification (errors.go).
//   - Every error a caller sees wraps one of the sentinels in errors.go, or is
//     a *RateLimitError, or is ctx.Err().
package llm
