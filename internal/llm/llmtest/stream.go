package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// streamer writes one SSE reply.
type streamer struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	done    <-chan struct{} // the client went away
	closing <-chan struct{} // the server is closing
	id      string
	created int64
	model   string
	usage   bool // the request asked for include_usage
}

// step is one delta chunk of a scripted reply.
type step struct{ delta delta }

// steps turns a reply into its delta chunks, in send order.
func steps(r Reply) []step {
	var out []step
	for _, p := range r.Reasoning {
		d := delta{Reasoning: &p}
		if r.ReasoningField == "reasoning_content" {
			d = delta{ReasoningContent: &p}
		}
		out = append(out, step{d})
	}
	for _, p := range r.Content {
		out = append(out, step{delta{Content: &p}})
	}
	perCall := make([][]step, len(r.ToolCalls))
	for i, tc := range r.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		empty := ""
		perCall[i] = append(perCall[i], step{delta{ToolCalls: []toolCallDelta{{
			Index: i, ID: id, Type: "function",
			Function: functionDelta{Name: tc.Name, Arguments: &empty},
		}}}})
		for _, a := range tc.Arguments {
			perCall[i] = append(perCall[i], step{delta{ToolCalls: []toolCallDelta{{
				Index: i, Function: functionDelta{Arguments: &a},
			}}}})
		}
	}
	if r.Interleave {
		for k := 0; ; k++ {
			sent := false
			for _, seq := range perCall {
				if k < len(seq) {
					out = append(out, seq[k])
					sent = true
				}
			}
			if !sent {
				break
			}
		}
	} else {
		for _, seq := range perCall {
			out = append(out, seq...)
		}
	}
	return out
}

func (s *streamer) run(r Reply, prompt int) {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	s.w.WriteHeader(http.StatusOK)

	for _, l := range r.Preamble {
		if !s.line(l + "\n\n") {
			return
		}
	}
	// OpenAI opens with the role and an empty content.
	empty := ""
	if !s.send(s.chunk(delta{Role: "assistant", Content: &empty}, nil)) {
		return
	}
	var pause time.Duration
	if r.TokensPerSecond > 0 {
		pause = time.Duration(float64(time.Second) / r.TokensPerSecond)
	}
	all := steps(r)
	for i, st := range all {
		if r.Fault != nil && r.Fault.After == i {
			s.fault(r.Fault, s.chunk(st.delta, nil))
			return
		}
		if !s.wait(pause) || !s.send(s.chunk(st.delta, nil)) {
			return
		}
	}
	finish := r.FinishReason
	if finish == "" {
		finish = "stop"
		if len(r.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	last := s.chunk(delta{}, &finish)
	if r.Fault != nil && r.Fault.After >= len(all) {
		s.fault(r.Fault, last)
		return
	}
	if !s.send(last) {
		return
	}
	if s.usage && !r.OmitUsage {
		u := wireUsage{PromptTokens: prompt, CompletionTokens: len(all)}
		if r.Usage != nil {
			u = wireUsage{PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens}
			if r.Usage.ReasoningTokens > 0 {
				u.CompletionTokensDetails = &struct {
					ReasoningTokens int `json:"reasoning_tokens"`
				}{r.Usage.ReasoningTokens}
			}
		}
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
		if r.Usage != nil && r.Usage.TotalTokens > 0 {
			u.TotalTokens = r.Usage.TotalTokens
		}
		raw, _ := json.Marshal(u)
		c := chunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
			SystemFingerprint: "fp_llmtest", Choices: []choice{}, Usage: raw}
		if !s.send(c) {
			return
		}
	}
	s.line("data: [DONE]\n\n")
}

// chunk builds a chunk of one choice.
func (s *streamer) chunk(d delta, finish *string) chunk {
	c := chunk{
		ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		SystemFingerprint: "fp_llmtest",
		Choices:           []choice{{Index: 0, Delta: d, Logprobs: jsonNull, FinishReason: finish}},
	}
	if s.usage {
		c.Usage = jsonNull // OpenAI sends "usage": null on every other chunk
	}
	return c
}

func (s *streamer) send(c chunk) bool {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // the structs always marshal
	}
	return s.line("data: " + string(b) + "\n\n")
}

func (s *streamer) line(text string) bool {
	if _, err := s.w.Write([]byte(text)); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}

// wait pauses for d, or returns false when the client or the server goes.
func (s *streamer) wait(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.done:
	case <-s.closing:
	}
	return false
}

// fault breaks the stream; next is the chunk that would have come next.
func (s *streamer) fault(f *Fault, next chunk) {
	e := f.Error
	if e == nil {
		e = &APIError{Message: "The server had an error while processing your request.", Type: "server_error"}
	}
	switch f.Kind {
	case FaultCut:
		b, _ := json.Marshal(next)
		line := "data: " + string(b)
		s.line(line[:len(line)/2])
		if conn, _, err := s.rc.Hijack(); err == nil {
			conn.Close()
		}
	case FaultMalformed:
		b, _ := json.Marshal(next)
		s.line("data: " + string(b[:len(b)*2/3]) + "\n\n")
	case FaultUnwrappedError:
		b, _ := json.Marshal(e)
		s.line("data: " + string(b) + "\n\n")
	case FaultRawError:
		b, _ := json.Marshal(e)
		s.line(string(b) + "\n\n")
	case FaultStreamError:
		b, _ := json.Marshal(map[string]*APIError{"error": e})
		s.line("data: " + string(b) + "\n\n")
	case FaultEnd:
	case FaultStall:
		select {
		case <-s.done:
		case <-s.closing:
		}
	}
}
