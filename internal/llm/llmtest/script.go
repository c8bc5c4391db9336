package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Reply scripts the answer to one chat-completions request. With Status
// set (and not 200) it is an error response; otherwise it is a stream of
// Reasoning, then Content, then ToolCalls, then the finish chunk, the usage
// chunk (when the request asked for include_usage) and "data: [DONE]".
type Reply struct {
	// Status, when not 0 or 200, makes this an error response.
	Status int `json:"status,omitempty"`
	// Error is the error object, sent as {"error":{…}} (OpenAI's shape), or
	// unwrapped at the top level when Unwrapped is set (Cerebras' shape).
	Error     *APIError `json:"error,omitempty"`
	Unwrapped bool      `json:"unwrapped,omitempty"`
	// RawBody, if set, is sent as the error body verbatim instead.
	RawBody string `json:"rawBody,omitempty"`
	// RetryAfter, if set, is sent as the Retry-After header.
	RetryAfter string `json:"retryAfter,omitempty"`

	// Preamble lines are sent before the first chunk, each followed by a
	// blank line: SSE comments such as ": OPENROUTER PROCESSING" (the
	// keep-alives OpenRouter sends while a model warms up).
	Preamble []string `json:"preamble,omitempty"`
	// Model names the model in the chunks; empty echoes the request's.
	Model string `json:"model,omitempty"`
	// Reasoning deltas, one chunk each.
	Reasoning []string `json:"reasoning,omitempty"`
	// ReasoningField is the delta field for reasoning: "reasoning"
	// (Cerebras, Groq; the default) or "reasoning_content" (DeepSeek).
	ReasoningField string `json:"reasoningField,omitempty"`
	// Content deltas, one chunk each.
	Content []string `json:"content,omitempty"`
	// ToolCalls in index order.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Interleave sends the calls' deltas round-robin (first deltas of all
	// calls, then their argument pieces in turn) instead of one call after
	// the other.
	Interleave bool `json:"interleave,omitempty"`
	// FinishReason defaults to "tool_calls" with calls, else "stop".
	FinishReason string `json:"finishReason,omitempty"`
	// Usage overrides the counted usage (prompt: request bytes/4,
	// completion: one token per delta chunk).
	Usage *Usage `json:"usage,omitempty"`
	// OmitUsage sends no usage chunk even when include_usage was asked for.
	OmitUsage bool `json:"omitUsage,omitempty"`
	// TokensPerSecond paces the deltas (a pause of 1/rate before each);
	// zero uses Options.TokensPerSecond, and that zero sends at once.
	TokensPerSecond float64 `json:"tokensPerSecond,omitempty"`
	// Fault, if set, breaks the stream after Fault.After delta chunks.
	Fault *Fault `json:"fault,omitempty"`
}

// An APIError is the error object of the OpenAI wire format.
type APIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// A ToolCall scripts one tool call of a reply.
type ToolCall struct {
	// ID defaults to "call_<n>".
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments are the pieces of the JSON arguments, one delta each.
	Arguments []string `json:"arguments,omitempty"`
}

// Usage is the usage object of the wire format.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
}

// A FaultKind names a way a stream breaks.
type FaultKind string

// The faults.
const (
	// FaultCut sends the first half of the next chunk, then closes the TCP
	// connection (hijacked): the client sees an unexpected EOF mid-token.
	FaultCut FaultKind = "cut"
	// FaultMalformed sends a data line whose JSON is cut short, then ends
	// the response.
	FaultMalformed FaultKind = "malformed"
	// FaultUnwrappedError sends `data: {"message":…,"type":…,"code":…}`, an
	// error without the {"error":…} wrapper, then ends the response.
	FaultUnwrappedError FaultKind = "unwrapped_error"
	// FaultRawError sends the unwrapped error body as a bare line (no
	// "data:"), then ends the response.
	FaultRawError FaultKind = "raw_error"
	// FaultStreamError sends `data: {"error":{…}}`, then ends the response.
	FaultStreamError FaultKind = "stream_error"
	// FaultEnd ends the response cleanly but early: no finish chunk, no
	// "data: [DONE]".
	FaultEnd FaultKind = "end"
	// FaultStall stops sending and holds the connection open until the
	// client goes away or the server closes.
	FaultStall FaultKind = "stall"
)

// A Fault breaks a stream after After delta chunks.
type Fault struct {
	Kind  FaultKind `json:"kind"`
	After int       `json:"after"`
	// Error is the error sent by the error faults; nil means a server_error.
	Error *APIError `json:"error,omitempty"`
}

func strPtr(s string) *string { return &s }

// Text is a reply streaming the given content pieces.
func Text(pieces ...string) Reply { return Reply{Content: pieces} }

// Split cuts s into pieces of n bytes without splitting a UTF-8 sequence.
func Split(s string, n int) []string {
	if n < 1 {
		n = 1
	}
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// Calls is a reply that makes the given tool calls.
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// AuthError is OpenAI's 401 for a wrong key.
func AuthError() Reply {
	return Reply{Status: 401, Error: &APIError{
		Message: "Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.",
		Type:    "invalid_request_error",
		Code:    strPtr("invalid_api_key"),
	}}
}

// RateLimited is a 429 with the given Retry-After header ("" for none).
func RateLimited(retryAfter string) Reply {
	return Reply{Status: 429, RetryAfter: retryAfter, Error: &APIError{
		Message: "Rate limit reached for requests per min (RPM): Limit 30, Used 30, Requested 1. Please try again later.",
		Type:    "requests",
		Code:    strPtr("rate_limit_exceeded"),
	}}
}

// ServerError is a 500.
func ServerError() Reply {
	return Reply{Status: 500, Error: &APIError{
		Message: "The server had an error while processing your request. Sorry about that!",
		Type:    "server_error",
	}}
}

// ContextLengthExceeded is the 400 for a conversation too long for the model.
func ContextLengthExceeded() Reply {
	return Reply{Status: 400, Error: &APIError{
		Message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.",
		Type:    "invalid_request_error",
		Param:   strPtr("messages"),
		Code:    strPtr("context_length_exceeded"),
	}}
}

var useToolRe = regexp.MustCompile(`(?s)use tool ([A-Za-z0-9_.\-]+)\s*(\{.*\})?`)

// The names of Switchboard's tool-search pair (package toolsearch), which
// Echo goes through when a request carries them instead of the tool asked
// for. This package shares no code with the app, so they are spelled here.
const (
	SearchToolName = "search_tools"
	CallToolName   = "call_tool"
)

// Echo is the reply used when the queue is empty: "You said: <last user
// message>", each of its image parts described after it ("[image
// image/png, 1234 bytes]"), or, when the conversation ends with a user
// message containing "use tool NAME {json}", a call to NAME with those
// arguments (the echo follows once the tool result comes back).
//
// When the request does not offer NAME but offers the tool-search pair,
// it goes through it: first search_tools with NAME's words as the query
// ("everything__echo" searches "everything echo"); then, once the result
// names NAME, call_tool with NAME and the arguments; if it does not, it
// says so in text.
func Echo(req ChatRequest, n int) Reply {
	var lastUser string
	var images []string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			lastUser = req.Messages[i].Content
			images = req.Messages[i].Images()
			break
		}
	}
	if len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Role == "user" {
		if m := useToolRe.FindStringSubmatch(lastUser); m != nil {
			args := m[2]
			if args == "" {
				args = "{}"
			}
			if !offers(req, m[1]) && offers(req, SearchToolName) && offers(req, CallToolName) {
				q, _ := json.Marshal(map[string]string{"query": strings.Join(nameWords(m[1]), " ")})
				return Calls(ToolCall{ID: fmt.Sprintf("call_echo_search_%d", n), Name: SearchToolName, Arguments: Split(string(q), 6)})
			}
			return Calls(ToolCall{ID: fmt.Sprintf("call_echo_%d", n), Name: m[1], Arguments: Split(args, 6)})
		}
	}
	if r, ok := echoAfterSearch(req, lastUser, n); ok {
		return r
	}
	said := "You said: " + lastUser
	for _, u := range images {
		said += " " + DescribeImage(u)
	}
	var pieces []string
	for _, p := range strings.SplitAfter(said, " ") {
		if p != "" {
			pieces = append(pieces, p)
		}
	}
	return Text(pieces...)
}

// echoAfterSearch is Echo's second step through tool search: when the
// last message answers the echo's search_tools call, call_tool with the
// tool asked for, or a text saying the search did not find it.
func echoAfterSearch(req ChatRequest, lastUser string, n int) (Reply, bool) {
	k := len(req.Messages)
	if k < 2 || req.Messages[k-1].Role != "tool" {
		return Reply{}, false
	}
	result := req.Messages[k-1]
	searched := false
	for i := k - 2; i >= 0 && !searched; i-- {
		for _, c := range req.Messages[i].ToolCalls {
			if c.ID == result.ToolCallID && c.Function.Name == SearchToolName && strings.HasPrefix(c.ID, "call_echo_search_") {
				searched = true
			}
		}
		if req.Messages[i].Role != "tool" {
			break
		}
	}
	m := useToolRe.FindStringSubmatch(lastUser)
	if !searched || m == nil {
		return Reply{}, false
	}
	if !strings.Contains(result.Content, `"`+m[1]+`"`) {
		return Text("Tool search did not find ", m[1], "."), true
	}
	args := m[2]
	if args == "" {
		args = "{}"
	}
	call := `{"name":` + strconv.Quote(m[1]) + `,"arguments":` + args + `}`
	return Calls(ToolCall{ID: fmt.Sprintf("call_echo_%d", n), Name: CallToolName, Arguments: Split(call, 6)}), true
}

// offers reports whether the request offers a tool of that name.
func offers(req ChatRequest, name string) bool {
	for _, t := range req.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// nameWords splits a tool name into words: "everything__get-env" is
// everything, get, env.
func nameWords(name string) []string {
	return strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
}

// DescribeImage describes an image part's URL as Echo does: "[image
// image/png, 1234 bytes]" for a base64 data: URL, "[image URL]" for
// another URL, "[image: bad data URL]" for a data: URL that does not
// decode.
func DescribeImage(url string) string {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return "[image " + url + "]"
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok {
		return "[image: bad data URL]"
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "[image: bad data URL]"
	}
	return fmt.Sprintf("[image %s, %d bytes]", mime, len(b))
}
