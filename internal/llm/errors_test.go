package llm

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"absent", nil, 0},
		{"seconds", map[string]string{"Retry-After": "5"}, 5 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.25"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"retry-after-ms wins", map[string]string{"Retry-After": "5", "Retry-After-Ms": "1500"}, 1500 * time.Millisecond},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := parseRetryAfter(h, now); got != tt.want {
			t.Errorf("%s: parseRetryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		name string
		body string
		want providerDetail
	}{
		{"openai", `{"error":{"message":"bad key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			providerDetail{Message: "bad key", Type: "invalid_request_error", Code: "invalid_api_key"}},
		{"unwrapped (cerebras)", `{"message":"too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}`,
			providerDetail{Message: "too long", Type: "invalid_request_error", Code: "context_length_exceeded"}},
		{"error string (ollama)", `{"error":"model \"x\" not found"}`, providerDetail{Message: `model "x" not found`}},
		{"detail", `{"detail":"Not Found"}`, providerDetail{Message: "Not Found"}},
		{"numeric code", `{"error":{"message":"m","code":429}}`, providerDetail{Message: "m", Code: "429"}},
		{"html", "<!DOCTYPE html><html>", providerDetail{HTML: true}},
		{"text", "upstream connect error", providerDetail{Message: "upstream connect error"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parseErrorBody([]byte(tt.body))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestRateLimitErrorIs(t *testing.T) {
	var err error = &RateLimitError{RetryAfter: 5 * time.Second, Message: "slow down"}
	if !errors.Is(err, ErrRateLimited) {
		t.Error("RateLimitError does not match ErrRateLimited")
	}
	if got, want := err.Error(), "the provider is rate limiting requests; try again in 5s (slow down)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
