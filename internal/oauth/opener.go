package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pkg/browser"
)

// An Opener shows an authorization URL to the user.
type Opener func(ctx context.Context, url string) error

// OpenBrowser opens an http(s) URL in the user's default browser. Any other
// scheme is refused: the URL comes from a server's metadata.
func OpenBrowser(_ context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("refusing to open %q: not an http(s) URL", rawURL)
	}
	return browser.OpenURL(u.String())
}

// FollowRedirects returns an Opener that plays the browser without one: it
// GETs the authorization URL with client and follows the redirects, which an
// authorization server that approves at once ends at the loopback callback.
// It is for tests and conformance runs. A nil client means one with a
// 30-second timeout.
func FollowRedirects(client *http.Client) Opener {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	return func(ctx context.Context, rawURL string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		if resp.StatusCode >= 400 {
			where := *resp.Request.URL
			where.RawQuery, where.User = "", nil // the query may hold a code
			return fmt.Errorf("%s answered %s: %s", where.String(), resp.Status, strings.TrimSpace(string(body)))
		}
		return nil
	}
}
