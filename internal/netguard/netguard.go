// Package netguard decides which addresses the HTTP clients of one remote
// MCP server may connect to: the MCP client itself and its OAuth discovery,
// registration and token requests. A server's metadata or redirects must not
// turn Switchboard into a way into the user's network, so private, loopback,
// link-local and other local addresses (169.254.169.254, 10/8, 172.16/12,
// 192.168/16, fc00::/7, fe80::/10, 127/8, ::1) are refused unless the
// configured server itself is at such an address: a server at 127.0.0.1
// may use an authorization server at 127.0.0.1, one at mcp.example.com may
// not.
//
// The check is made where the connection is dialed, on the addresses the
// name resolved to, and the checked address is the one dialed, so a name
// that resolves to a public address when checked and to a private one when
// used (DNS rebinding) cannot slip through. The configured server's own
// name is resolved once per Guard and always dialed at those addresses.
// Through an HTTP proxy from the environment the proxy connects, so only
// the proxy's address is dialed here.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ErrLocalAddress is matched (errors.Is) by the error of a refused
// connection.
var ErrLocalAddress = errors.New("local address refused")

// A LocalAddressError is a connection refused because host resolved only
// to private or local addresses, and the configured server is not at one.
type LocalAddressError struct {
	Host string
	Addr netip.Addr
}

func (e *LocalAddressError) Error() string {
	what := e.Host
	if e.Addr.String() != e.Host {
		what = fmt.Sprintf("%s (%s)", e.Host, e.Addr)
	}
	return fmt.Sprintf("refusing to connect to %s: a %s address; only a server configured at such an address may reach one", what, kind(e.Addr))
}

func (e *LocalAddressError) Is(target error) bool { return target == ErrLocalAddress }

// Options configure a Guard; nil, and every zero field, mean the default.
type Options struct {
	// Lookup resolves a host name to its addresses; nil means
	// net.DefaultResolver. Tests pass a fake to stand in for DNS.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to an address the Guard allowed, always an IP address
	// and port; nil means a net.Dialer with a 30-second timeout.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// A Guard is the connection policy of one configured server.
type Guard struct {
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dial   func(ctx context.Context, network, address string) (net.Conn, error)

	mu       sync.Mutex
	server   string       // the configured server's host name or IP; "" until known
	resolved []netip.Addr // its addresses, once resolved
	proxies  map[string]bool
}

// New returns the Guard of the server at serverURL. An empty serverURL
// means the server is not known yet (see SetServer); until it is, every
// local address is refused.
func New(serverURL string, opts *Options) *Guard {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Lookup == nil {
		o.Lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if o.Dial == nil {
		o.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	g := &Guard{lookup: o.Lookup, dial: o.Dial, proxies: map[string]bool{}}
	g.SetServer(serverURL)
	return g
}

// SetServer names the configured server, if none was named yet. It is for
// callers that learn the server from its first request.
func (g *Guard) SetServer(serverURL string) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Hostname() == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.server == "" {
		g.server = strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	}
}

// Transport returns an http.Transport, like http.DefaultTransport, that
// connects only where g allows.
func (g *Guard) Transport() *http.Transport {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else {
		t = &http.Transport{ForceAttemptHTTP2: true, MaxIdleConns: 100, IdleConnTimeout: 90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second}
	}
	t.DialContext = g.DialContext
	t.DialTLSContext = nil
	t.Proxy = func(req *http.Request) (*url.URL, error) {
		u, err := http.ProxyFromEnvironment(req)
		if u != nil {
			g.mu.Lock()
			g.proxies[canonicalHostPort(u)] = true
			g.mu.Unlock()
		}
		return u, err
	}
	return t
}

// Client returns an http.Client over Transport with the given timeout
// (zero: none).
func (g *Guard) Client(timeout time.Duration) *http.Client {
	return &http.Client{Transport: g.Transport(), Timeout: timeout}
}

// DialContext resolves address, drops the addresses g refuses and dials
// the others in turn. Its error wraps ErrLocalAddress when every address
// was refused.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	g.mu.Lock()
	proxy := g.proxies[net.JoinHostPort(host, port)]
	g.mu.Unlock()
	if proxy { // the user's own proxy from the environment
		return g.dial(ctx, network, address)
	}
	serverAddrs, err := g.serverAddrs(ctx)
	if err != nil {
		return nil, err
	}
	allowLocal := false
	for _, a := range serverAddrs {
		allowLocal = allowLocal || IsLocal(a)
	}
	var addrs []netip.Addr
	if host == g.serverHost() {
		addrs = serverAddrs
	} else if addrs, err = g.resolve(ctx, host); err != nil {
		return nil, err
	}
	var refused *LocalAddressError
	var errs []error
	for _, a := range addrs {
		if IsLocal(a) && !allowLocal {
			if refused == nil {
				refused = &LocalAddressError{Host: host, Addr: a}
			}
			continue
		}
		c, err := g.dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	if refused != nil {
		return nil, refused
	}
	return nil, fmt.Errorf("%s has no address", host)
}

func (g *Guard) serverHost() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.server
}

// serverAddrs resolves the configured server's name once; a failed lookup
// is tried again at the next dial.
func (g *Guard) serverAddrs(ctx context.Context) ([]netip.Addr, error) {
	g.mu.Lock()
	host, addrs := g.server, g.resolved
	g.mu.Unlock()
	if host == "" || addrs != nil {
		return addrs, nil
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	if g.resolved == nil {
		g.resolved = addrs
	}
	addrs = g.resolved
	g.mu.Unlock()
	return addrs, nil
}

func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		// RFC 6761: always this machine, whatever a resolver says.
		return []netip.Addr{netip.IPv6Loopback(), netip.AddrFrom4([4]byte{127, 0, 0, 1})}, nil
	}
	addrs, err := g.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	for i := range addrs {
		addrs[i] = addrs[i].Unmap()
	}
	return addrs, nil
}

// cgnat is RFC 6598 shared address space, private in all but name.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// IsLocal reports whether a is an address a remote server's metadata must
// not send Switchboard to: loopback, private (RFC 1918, RFC 4193),
// link-local (including 169.254.169.254, the cloud metadata service),
// carrier-grade NAT, unspecified or multicast.
func IsLocal(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || cgnat.Contains(a) ||
		(a.Is4() && a.As4()[0] == 0)
}

func kind(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsPrivate() || cgnat.Contains(a):
		return "private"
	default:
		return "local"
	}
}

func canonicalHostPort(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(host, port)
}

// Origin is u's scheme://host:port, lower case, with the scheme's default
// port written out, so equal origins compare equal.
func Origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
