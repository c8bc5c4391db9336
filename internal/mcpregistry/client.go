package mcpregistry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Bounds on what a registry sends.
const (
	// MaxReply is the most bytes of one reply read.
	MaxReply = 4 << 20
	// MaxLimit is the most entries asked for in one page (the official
	// registry's own maximum); a reply with more is cut to it.
	MaxLimit = 100
	// DefaultLimit is the page size when Search is given none.
	DefaultLimit = 30
	// DefaultTimeout bounds one request when Client.HTTP is nil.
	DefaultTimeout = 30 * time.Second
)

// ErrNotFound means the registry has no such server or version.
var ErrNotFound = errors.New("not in the registry")

// A Client reads one registry. Its zero value reads the official one.
type Client struct {
	// BaseURL is the registry's http(s) URL, without /v0.1 ("" means
	// DefaultURL). It may have a path, for a subregistry served under one.
	BaseURL string
	// HTTP sends the requests; nil means a client with DefaultTimeout.
	HTTP *http.Client
}

// API path prefixes: the stable version first, then the one older
// registries serve.
var apiPrefixes = []string{"/v0.1", "/v0"}

// Search returns one page of the latest version of each server whose
// name (or, on registries that match it, description) contains query;
// an empty query lists every server. cursor is "" for the first page,
// then the last page's NextCursor. limit is clamped to 1..MaxLimit, 0
// meaning DefaultLimit. Entries that are not valid are left out and
// counted in Page.Skipped.
func (c *Client) Search(ctx context.Context, query, cursor string, limit int) (Page, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	q := url.Values{"version": {"latest"}, "limit": {strconv.Itoa(limit)}}
	if query = strings.TrimSpace(query); query != "" {
		if len(query) > 200 {
			return Page{}, errors.New("the search is longer than 200 characters; a server name is at most 200")
		}
		q.Set("search", query)
	}
	if cursor != "" {
		if len(cursor) > maxCursor {
			return Page{}, errors.New("the page cursor is too long; start the search again")
		}
		q.Set("cursor", cursor)
	}
	var reply struct {
		Servers  []json.RawMessage `json:"servers"`
		Metadata struct {
			NextCursor string `json:"nextCursor"`
		} `json:"metadata"`
	}
	base, err := c.do(ctx, "/servers", q, &reply)
	if err != nil {
		return Page{}, err
	}
	if reply.Servers == nil {
		return Page{}, c.notAPI(base, `it has no "servers" list`)
	}
	var page Page
	for i, raw := range reply.Servers {
		if i == limit {
			break
		}
		var e Entry
		if json.Unmarshal(raw, &e) != nil || checkEntry(&e) != nil {
			page.Skipped++
			continue
		}
		page.Entries = append(page.Entries, e)
	}
	page.Skipped += max(0, len(reply.Servers)-limit)
	if n := reply.Metadata.NextCursor; n != "" && len(n) <= maxCursor && !hasControl(n) && len(reply.Servers) > 0 {
		page.NextCursor = n
	}
	return page, nil
}

// maxCursor bounds a page cursor.
const maxCursor = 1024

// Get returns one version of the server called name; version "" means
// the latest. An error wrapping ErrNotFound means there is no such server
// or version.
func (c *Client) Get(ctx context.Context, name, version string) (Entry, error) {
	if err := CheckName(name); err != nil {
		return Entry{}, err
	}
	if version == "" {
		version = "latest"
	} else if len(version) > 255 || hasControl(version) {
		return Entry{}, fmt.Errorf("%q is not a version", version)
	}
	var e Entry
	path := "/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
	base, err := c.do(ctx, path, nil, &e)
	if errors.Is(err, ErrNotFound) {
		if version == "latest" {
			return Entry{}, fmt.Errorf("no server %s in the registry at %s (%w); search for it with its exact name", name, base, ErrNotFound)
		}
		return Entry{}, fmt.Errorf("no version %s of %s in the registry at %s (%w)", version, name, base, ErrNotFound)
	}
	if err != nil {
		return Entry{}, err
	}
	if err := checkEntry(&e); err != nil {
		return Entry{}, fmt.Errorf("the registry's entry for %s is not valid: %w", name, err)
	}
	if e.Server.Name != name {
		return Entry{}, fmt.Errorf("the registry at %s answered for %s with %s; check the registry URL setting", base, name, e.Server.Name)
	}
	return e, nil
}

// Versions lists every version of the server called name that the
// registry has, newest first as the registry orders them.
func (c *Client) Versions(ctx context.Context, name string) ([]Entry, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	var reply struct {
		Servers []json.RawMessage `json:"servers"`
	}
	base, err := c.do(ctx, "/servers/"+url.PathEscape(name)+"/versions", nil, &reply)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("no server %s in the registry at %s (%w)", name, base, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, raw := range reply.Servers {
		var e Entry
		if json.Unmarshal(raw, &e) != nil || checkEntry(&e) != nil || e.Server.Name != name {
			continue
		}
		out = append(out, e)
		if len(out) == maxVersions {
			break
		}
	}
	return out, nil
}

// maxVersions bounds the versions Versions returns.
const maxVersions = 500

// base returns the registry URL without a trailing slash, checked.
func (c *Client) base() (string, error) {
	raw := strings.TrimSpace(c.BaseURL)
	if raw == "" {
		raw = DefaultURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("the registry URL %q is not an http:// or https:// URL without a query; set it to %s or your registry's address", raw, DefaultURL)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: DefaultTimeout}
}

// do GETs path (after the API version prefix) with query and decodes the
// JSON reply into out. It tries /v0.1, then /v0 if /v0.1 answers 404, and
// returns the registry's base URL for messages.
func (c *Client) do(ctx context.Context, path string, query url.Values, out any) (string, error) {
	base, err := c.base()
	if err != nil {
		return "", err
	}
	var first error
	for _, prefix := range apiPrefixes {
		err := c.get(ctx, base, prefix+path, query, out)
		if !errors.Is(err, ErrNotFound) {
			return base, err
		}
		if first == nil {
			first = err
		}
	}
	return base, first
}

// get does one request.
func (c *Client) get(ctx context.Context, base, path string, query url.Values, out any) error {
	u, err := url.Parse(base + path)
	if err != nil {
		return fmt.Errorf("building the registry URL: %w", err)
	}
	if query != nil {
		u.RawQuery = query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("building the registry request: %w", err)
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	resp, err := c.httpClient().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("reaching the registry at %s: %w; check your network and the registry URL setting", base, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxReply+1))
	if err != nil {
		return fmt.Errorf("reading the reply of the registry at %s: %w", base, err)
	}
	if len(body) > MaxReply {
		return c.notAPI(base, fmt.Sprintf("its reply is larger than %d MB", MaxReply>>20))
	}
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s: %w", errorText(body, resp.Status), ErrNotFound)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := errorText(body, resp.Status)
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return fmt.Errorf("the registry at %s failed: %s; try again later", base, msg)
		}
		return fmt.Errorf("the registry at %s refused the request: %s; check the registry URL setting", base, msg)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
			return c.notAPI(base, "it answered with "+clean(mt, 60)+", not JSON")
		}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return c.notAPI(base, "its reply is not the registry's JSON ("+clean(err.Error(), 120)+")")
	}
	return nil
}

// notAPI is the error for a reply that is not the registry API's.
func (c *Client) notAPI(base, why string) error {
	return fmt.Errorf("%s does not look like an MCP registry: %s; check the registry URL setting (the official registry is %s)", base, why, DefaultURL)
}

// errorText is the message of an error reply: the registry's own (RFC
// 9457 problem details as the official registry sends them, or the
// generic API's {"error": ...}), cleaned and cut, else the status.
func errorText(body []byte, status string) string {
	var p struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Error  string `json:"error"`
		Errors []struct {
			Message  string `json:"message"`
			Location string `json:"location"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &p) != nil {
		return clean(status, 80)
	}
	msg := p.Detail
	if msg == "" {
		msg = p.Error
	}
	if msg == "" {
		msg = p.Title
	}
	if len(p.Errors) > 0 {
		e := p.Errors[0]
		detail := e.Message
		if e.Location != "" {
			detail = e.Location + ": " + detail
		}
		if msg != "" {
			msg += " (" + detail + ")"
		} else {
			msg = detail
		}
	}
	if msg = clean(msg, 300); msg == "" {
		return clean(status, 80)
	}
	return msg + " (" + clean(status, 80) + ")"
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
