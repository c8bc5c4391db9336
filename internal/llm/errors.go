package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Sentinel errors. Every error from this package wraps one of them, or is a
// *RateLimitError (which matches ErrRateLimited), or is ctx.Err(). Each
// message says what to do; the wrapping error adds the provider's own words.
var (
	ErrAuth          = errors.New("the provider refused the API key; check it in Settings → Providers")
	ErrRateLimited   = errors.New("the provider is rate limiting requests; wait a moment and try again")
	ErrServer        = errors.New("the provider had an internal error; try again in a moment or pick another model")
	ErrContextLength = errors.New("the conversation is longer than the model's context window; start a new chat, shorten it, or pick a model with a longer context")
	ErrMalformed     = errors.New("the provider sent data that is not a valid OpenAI-compatible stream; try again, or pick another provider or model")
	ErrConnection    = errors.New("the connection to the provider dropped before the reply finished; check your network and try again")
	ErrUnreachable   = errors.New("cannot reach the provider")
	ErrNotCompatible = errors.New("the base URL does not serve an OpenAI-compatible API")
	ErrNoModels      = errors.New("the provider lists no models; load or pull a model there first, or check your account")
	ErrBadRequest    = errors.New("the provider rejected the request")
)

// A RateLimitError is a 429 (or a rate-limit error sent mid-stream).
// errors.Is(err, ErrRateLimited) holds for it.
type RateLimitError struct {
	// RetryAfter is how long the provider asked to wait (Retry-After,
	// retry-after-ms); zero means it did not say.
	RetryAfter time.Duration
	// Message is the provider's own explanation, possibly empty.
	Message string
}

func (e *RateLimitError) Error() string {
	var b strings.Builder
	b.WriteString("the provider is rate limiting requests; ")
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, "try again in %s", e.RetryAfter.Round(time.Second/10))
	} else {
		b.WriteString("wait a moment and try again")
	}
	if e.Message != "" {
		fmt.Fprintf(&b, " (%s)", e.Message)
	}
	return b.String()
}

// Is reports whether target is ErrRateLimited.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// checkBaseURL ends ErrNotCompatible messages with what to do.
const checkBaseURL = "check the base URL in Settings → Providers (it usually ends in /v1)"

// phase says which call an error came from, because the same symptom means
// different things: a 404 on /models is a wrong base URL, on a chat it is
// usually an unknown model.
type phase int

const (
	phaseModels phase = iota // GET /models
	phaseChat                // POST /chat/completions, before the first chunk
	phaseStream              // reading the stream
)

// providerDetail is what a provider said about an error.
type providerDetail struct {
	Message string
	Code    string
	Type    string
	// Param names the request field the provider objects to ("tools").
	Param string
	HTML  bool // the body was an HTML page, not JSON
}

func (d providerDetail) String() string {
	if d.HTML {
		return "the server answered with an HTML page"
	}
	return d.Message
}

// classify turns an error from go-openai or net/http into one of this
// package's errors. ex holds the status and headers of the response, if any.
func (c *Client) classify(ctx context.Context, err error, ex *exchange, ph phase) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode > 0:
		d := detailFromAPIError(apiErr)
		if len(ex.errBody) > 0 {
			d = parseErrorBody(ex.errBody)
		}
		return classifyStatus(apiErr.HTTPStatusCode, ex.header, d, ph, c.baseURL)
	case errors.As(err, &reqErr) && reqErr.HTTPStatusCode > 0:
		return classifyStatus(reqErr.HTTPStatusCode, ex.header, parseErrorBody(reqErr.Body), ph, c.baseURL)
	case errors.As(err, &apiErr):
		// An {"error":{...}} event in the middle of a stream.
		return classifyStreamError(detailFromAPIError(apiErr))
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return fmt.Errorf("%w (too many lines that are not data)", ErrMalformed)
	}
	if ph == phaseModels && ex.status >= 200 && ex.status < 300 {
		// A 2xx body that is not the JSON of a model list.
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			if strings.Contains(ex.header.Get("Content-Type"), "html") {
				return fmt.Errorf("%w: %s/models answered with an HTML page; %s", ErrNotCompatible, c.baseURL, checkBaseURL)
			}
			return fmt.Errorf("%w: %s/models answered, but not with a model list; %s", ErrNotCompatible, c.baseURL, checkBaseURL)
		}
	}
	return c.classifyTransport(err, ph)
}

// classifyTransport handles errors below HTTP: dialing, DNS, timeouts, and
// connections dropped while reading.
func (c *Client) classifyTransport(err error, ph phase) error {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case errors.As(err, &dnsErr):
		return fmt.Errorf("%w at %s: the host name %q does not resolve; check the base URL and your internet connection",
			ErrUnreachable, c.baseURL, dnsErr.Name)
	case errors.As(err, &opErr) && opErr.Op == "dial":
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w at %s: connection refused; is the server running, and is the base URL right?", ErrUnreachable, c.baseURL)
		}
		return fmt.Errorf("%w at %s: %v; check the base URL and your network", ErrUnreachable, c.baseURL, opErr.Err)
	case ph != phaseStream && errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("%w at %s: no answer in time; check the base URL and your network", ErrUnreachable, c.baseURL)
	case ph == phaseStream && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed) || errors.As(err, &netErr)):
		return fmt.Errorf("%w (%v)", ErrConnection, err)
	case errors.As(err, &urlErr):
		// The request never got a response: TLS, a reset while sending, …
		return fmt.Errorf("%w at %s: %v", ErrUnreachable, c.baseURL, urlErr.Err)
	}
	if ph == phaseStream {
		return fmt.Errorf("%w (%v)", ErrConnection, err)
	}
	return fmt.Errorf("talking to %s: %w", c.baseURL, err)
}

// classifyStatus maps an HTTP error status to an error.
func classifyStatus(status int, header http.Header, d providerDetail, ph phase, baseURL string) error {
	detail := func() string {
		if s := d.String(); s != "" {
			return fmt.Sprintf(" (HTTP %d: %s)", status, s)
		}
		return fmt.Sprintf(" (HTTP %d)", status)
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("%w%s", ErrAuth, detail())
	case status == http.StatusTooManyRequests:
		return &RateLimitError{RetryAfter: parseRetryAfter(header, time.Now()), Message: d.Message}
	case ph == phaseModels && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed || d.HTML):
		return fmt.Errorf("%w: %s/models answered HTTP %d (%s); %s", ErrNotCompatible, baseURL, status, d, checkBaseURL)
	case status >= 400 && status < 500 && isContextLength(d):
		return fmt.Errorf("%w%s", ErrContextLength, detail())
	case status >= 500:
		return fmt.Errorf("%w%s", ErrServer, detail())
	case status == http.StatusNotFound:
		return fmt.Errorf("%w: the model or endpoint does not exist there; pick a model from the list%s", ErrBadRequest, detail())
	}
	return &rejectedError{provider: ProviderName(baseURL), status: status, d: d}
}

// A rejectedError is a request the provider refused as invalid (a 4xx not
// handled otherwise), said as a sentence: who refused, their reason, and
// what to do. It matches ErrBadRequest.
type rejectedError struct {
	provider string
	status   int
	d        providerDetail
	// images is set when the request sent images (withImageAdvice).
	images bool
}

func (e *rejectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rejected the request (HTTP %d)", e.provider, e.status)
	if s := e.d.String(); s != "" {
		b.WriteString(": ")
		b.WriteString(strings.TrimRight(s, ". "))
	}
	b.WriteString(". ")
	switch {
	case e.images && (mentionsImages(e.d.Message) || mentionsImages(e.d.Param)):
		b.WriteString("This model does not take images: " + imageAdvice + ".")
	case e.aboutTools():
		b.WriteString("Switch off the tools this conversation does not need (the tools button by the message box), or pick a model that accepts them.")
	case e.images:
		b.WriteString("If this model does not take images, " + imageAdvice + "; otherwise check the model and the provider's settings in Settings → Providers.")
	default:
		b.WriteString("Check the model and the provider's settings in Settings → Providers, or pick another model.")
	}
	return b.String()
}

// aboutTools reports whether the provider objects to the request's tools.
func (e *rejectedError) aboutTools() bool {
	if e.d.Param == "tools" || strings.HasPrefix(e.d.Param, "tools[") || strings.HasPrefix(e.d.Param, "tools.") {
		return true
	}
	m := strings.ToLower(e.d.Message)
	return strings.Contains(m, "'tools'") || strings.Contains(m, "tools[") || strings.Contains(m, "too many tools") ||
		strings.Contains(m, "tools.") || strings.Contains(m, "function name") || strings.Contains(m, "tool_choice")
}

// Is reports whether target is ErrBadRequest.
func (e *rejectedError) Is(target error) bool { return target == ErrBadRequest }

// classifyStreamError maps an error the provider reported inside the stream.
func classifyStreamError(d providerDetail) error {
	switch {
	case isContextLength(d):
		return fmt.Errorf("%w (%s)", ErrContextLength, d.Message)
	case strings.Contains(d.Code, "rate_limit") || strings.Contains(d.Type, "rate_limit"):
		return &RateLimitError{Message: d.Message}
	case d.Code == "invalid_api_key":
		return fmt.Errorf("%w (%s)", ErrAuth, d.Message)
	}
	return fmt.Errorf("%w (the provider reported mid-reply: %s)", ErrServer, d.Message)
}

func isContextLength(d providerDetail) bool {
	if d.Code == "context_length_exceeded" || d.Type == "context_length_exceeded" {
		return true
	}
	m := strings.ToLower(d.Message)
	for _, s := range []string{"maximum context length", "context length", "context_length", "context window"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

func detailFromAPIError(e *openai.APIError) providerDetail { return detailFromAPIErrorDepth(e, 0) }

// maxErrorNesting bounds how many JSON bodies inside messages are opened.
const maxErrorNesting = 3

// readable makes the message a sentence: a message that is itself an
// error body (OpenRouter passes on the upstream provider's body as the
// message, as escaped JSON) is opened, an HTML page is named as such, and
// the rest is clipped.
func (d providerDetail) readable(depth int) providerDetail {
	m := strings.TrimSpace(d.Message)
	switch {
	case m == "":
	case (m[0] == '{' || m[0] == '<') && depth < maxErrorNesting:
		inner := parseErrorBodyDepth([]byte(m), depth+1)
		if inner.HTML {
			d.Message, d.HTML = "", true
			break
		}
		if inner.Message != "" && inner.Message != m {
			d.Message = inner.Message
			d.Code, d.Type, d.Param = cmp.Or(d.Code, inner.Code), cmp.Or(d.Type, inner.Type), cmp.Or(d.Param, inner.Param)
		}
	default:
		d.Message = snippet([]byte(m))
	}
	return d
}

func codeString(code any) string {
	switch v := code.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// parseErrorBody reads an error body in any of the shapes providers use:
// {"error":{"message":…}}, {"error":"…"}, an unwrapped {"message":…,"code":…}
// (Cerebras), {"detail":…}, or not JSON at all.
func parseErrorBody(body []byte) providerDetail { return parseErrorBodyDepth(body, 0) }

func parseErrorBodyDepth(body []byte, depth int) providerDetail {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '<' {
		return providerDetail{HTML: true}
	}
	var raw struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Code    any             `json:"code"`
		Type    string          `json:"type"`
	}
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return providerDetail{Message: snippet(trimmed)}
	}
	d := providerDetail{Code: codeString(raw.Code), Type: raw.Type}
	if len(raw.Error) > 0 && raw.Error[0] == '{' {
		var inner openai.APIError
		// metadata.raw is the upstream provider's own body (OpenRouter);
		// read apart, as APIError has its own UnmarshalJSON.
		var meta struct {
			Metadata struct {
				Raw any `json:"raw"`
			} `json:"metadata"`
		}
		if json.Unmarshal(raw.Error, &inner) == nil {
			_ = json.Unmarshal(raw.Error, &meta)
			d := detailFromAPIErrorDepth(&inner, depth)
			var upstream string
			switch r := meta.Metadata.Raw.(type) {
			case string:
				upstream = r
			case map[string]any:
				b, _ := json.Marshal(r)
				upstream = string(b)
			}
			if upstream != "" && depth < maxErrorNesting {
				if u := (providerDetail{Message: upstream}).readable(depth + 1); u.Message != "" {
					d.Message = u.Message
					d.Param = cmp.Or(d.Param, u.Param)
				}
			}
			return d
		}
	}
	for _, m := range []json.RawMessage{raw.Error, raw.Message, raw.Detail} {
		if s := jsonText(m); s != "" {
			d.Message = s
			break
		}
	}
	if d.Message == "" {
		d.Message = snippet(trimmed)
	}
	return d.readable(depth)
}

func detailFromAPIErrorDepth(e *openai.APIError, depth int) providerDetail {
	d := providerDetail{Message: e.Message, Code: codeString(e.Code), Type: e.Type}
	if e.Param != nil {
		d.Param = *e.Param
	}
	return d.readable(depth)
}

// jsonText returns a JSON string's value, or the JSON itself for anything
// else that is not null.
func jsonText(m json.RawMessage) string {
	if len(m) == 0 || string(m) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(m, &s) == nil {
		return s
	}
	return snippet(m)
}

func snippet(b []byte) string {
	const limit = 300
	s := strings.TrimSpace(string(b))
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

// parseRetryAfter reads retry-after-ms (OpenAI) or Retry-After, in seconds
// or as an HTTP date. Zero means absent or unreadable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
