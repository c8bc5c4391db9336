package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// An exchange carries per-request facts between Client and the HTTP client
// that go-openai calls: what to patch into the request body, and the status
// and headers of the response (go-openai drops them on errors, and
// Retry-After lives there).
type exchange struct {
	temperatureZero bool // write "temperature":0, which omitempty drops
	keepTail        bool // remember the end of a successful body in tail

	status int
	header http.Header
	tail   *tailReader
	// errBody is the start of an error response's body (maxErrorBody):
	// go-openai keeps only the fields of OpenAI's shape, and the sentence
	// a user needs may be elsewhere (OpenRouter's metadata.raw).
	errBody []byte
}

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

type exchangeKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

// doer is the openai.HTTPDoer given to go-openai.
type doer struct{ hc *http.Client }

func (d doer) Do(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex != nil && ex.temperatureZero && req.Body != nil {
		if err := setTemperatureZero(req); err != nil {
			return nil, err
		}
	}
	resp, err := d.hc.Do(req)
	if ex != nil && resp != nil {
		ex.status = resp.StatusCode
		ex.header = resp.Header
		if resp.StatusCode >= 400 && resp.Body != nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
			ex.errBody = body
			resp.Body = io.NopCloser(bytes.NewReader(body))
		}
		if ex.keepTail && resp.StatusCode < 300 {
			ex.tail = &tailReader{ReadCloser: resp.Body}
			resp.Body = ex.tail
		}
	}
	return resp, err
}

// setTemperatureZero rewrites the JSON body with "temperature":0.
func setTemperatureZero(req *http.Request) error {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return fmt.Errorf("reading request body: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return fmt.Errorf("patching temperature into request body: %w", err)
	}
	fields["temperature"] = json.RawMessage("0")
	body, err = json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("patching temperature into request body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}

// tailReader keeps the last bytes read from a response body. go-openai ends
// a stream with io.EOF both after "data: [DONE]" and when the body just
// stops (after lines it treats as a possible error, which it then drops), so
// the tail is how Stream tells a finished stream from a cut or an error.
type tailReader struct {
	io.ReadCloser
	buf []byte
}

const tailSize = 2048

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.buf = append(t.buf, p[:n]...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return n, err
}

// lastLine returns the last non-empty line of what was read, trimmed.
func (t *tailReader) lastLine() []byte {
	if t == nil {
		return nil
	}
	lines := bytes.Split(t.buf, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := bytes.TrimSpace(lines[i]); len(l) > 0 {
			return l
		}
	}
	return nil
}
