package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"sync"
	"testing"
)

// fakeNet is DNS and a dialer that never leave the process: Lookup answers
// from names, Dial records the address and returns one end of a pipe.
type fakeNet struct {
	mu     sync.Mutex
	names  map[string][][]netip.Addr // successive answers; the last repeats
	dialed []string
}

func (f *fakeNet) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	answers := f.names[host]
	if len(answers) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	a := answers[0]
	if len(answers) > 1 {
		f.names[host] = answers[1:]
	}
	return slices.Clone(a), nil
}

func (f *fakeNet) dial(_ context.Context, _, address string) (net.Conn, error) {
	f.mu.Lock()
	f.dialed = append(f.dialed, address)
	f.mu.Unlock()
	c1, c2 := net.Pipe()
	c2.Close()
	return c1, nil
}

func (f *fakeNet) guard(serverURL string) *Guard {
	return New(serverURL, &Options{Lookup: f.lookup, Dial: f.dial})
}

func addrs(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

func TestGuard(t *testing.T) {
	names := func() map[string][][]netip.Addr {
		return map[string][][]netip.Addr{
			"mcp.example.com":   {addrs("203.0.113.7")},
			"as.example.com":    {addrs("203.0.113.9")},
			"metadata.evil":     {addrs("169.254.169.254")},
			"intranet.evil":     {addrs("10.0.0.5", "192.168.1.1")},
			"v6.evil":           {addrs("fe80::1", "fd00::1", "::ffff:127.0.0.1")},
			"mixed.example.com": {addrs("127.0.0.1", "203.0.113.10")},
			"mcp.corp":          {addrs("10.1.2.3")},
			"sso.corp":          {addrs("10.1.2.4")},
		}
	}
	tests := []struct {
		server string
		dial   string
		want   string // the address dialed; "" means refused
	}{
		// A server on the internet reaches the internet only.
		{"https://mcp.example.com/mcp", "mcp.example.com:443", "203.0.113.7:443"},
		{"https://mcp.example.com/mcp", "as.example.com:443", "203.0.113.9:443"},
		{"https://mcp.example.com/mcp", "169.254.169.254:80", ""},
		{"https://mcp.example.com/mcp", "metadata.evil:80", ""},
		{"https://mcp.example.com/mcp", "intranet.evil:443", ""},
		{"https://mcp.example.com/mcp", "v6.evil:443", ""},
		{"https://mcp.example.com/mcp", "127.0.0.1:8080", ""},
		{"https://mcp.example.com/mcp", "localhost:8080", ""},
		{"https://mcp.example.com/mcp", "[::1]:8080", ""},
		{"https://mcp.example.com/mcp", "0.0.0.0:8080", ""},
		{"https://mcp.example.com/mcp", "mixed.example.com:443", "203.0.113.10:443"},
		// A server on this machine or the intranet reaches its neighbours.
		{"http://127.0.0.1:9000/mcp", "127.0.0.1:9001", "127.0.0.1:9001"},
		{"http://127.0.0.1:9000/mcp", "as.example.com:443", "203.0.113.9:443"},
		{"http://localhost:9000/mcp", "127.0.0.1:9001", "127.0.0.1:9001"},
		{"https://mcp.corp/mcp", "sso.corp:443", "10.1.2.4:443"},
		// Not known yet: nothing local.
		{"", "127.0.0.1:9001", ""},
	}
	for _, tt := range tests {
		t.Run(tt.server+" "+tt.dial, func(t *testing.T) {
			f := &fakeNet{names: names()}
			c, err := f.guard(tt.server).DialContext(t.Context(), "tcp", tt.dial)
			if tt.want == "" {
				if !errors.Is(err, ErrLocalAddress) {
					t.Fatalf("err = %v, want ErrLocalAddress", err)
				}
				if len(f.dialed) != 0 {
					t.Fatalf("dialed %v", f.dialed)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			if len(f.dialed) != 1 || f.dialed[0] != tt.want {
				t.Fatalf("dialed %v, want [%s]", f.dialed, tt.want)
			}
		})
	}
}

// TestGuardRebinding: names are resolved where they are dialed, and the
// configured server's name once, so a second answer cannot differ from
// the one checked.
func TestGuardRebinding(t *testing.T) {
	f := &fakeNet{names: map[string][][]netip.Addr{
		"mcp.example.com": {addrs("203.0.113.7"), addrs("127.0.0.1")},
		"as.example.com":  {addrs("203.0.113.9"), addrs("169.254.169.254")},
	}}
	g := f.guard("https://mcp.example.com/mcp")
	for range 2 {
		c, err := g.DialContext(t.Context(), "tcp", "mcp.example.com:443")
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if c, err := g.DialContext(t.Context(), "tcp", "as.example.com:443"); err != nil {
		t.Fatal(err)
	} else {
		c.Close()
	}
	if _, err := g.DialContext(t.Context(), "tcp", "as.example.com:443"); !errors.Is(err, ErrLocalAddress) {
		t.Fatalf("rebound name: err = %v, want ErrLocalAddress", err)
	}
	want := []string{"203.0.113.7:443", "203.0.113.7:443", "203.0.113.9:443"}
	if !slices.Equal(f.dialed, want) {
		t.Fatalf("dialed %v, want %v", f.dialed, want)
	}
}

func TestLocalAddressErrorMessage(t *testing.T) {
	f := &fakeNet{names: map[string][][]netip.Addr{"mcp.example.com": {addrs("203.0.113.7")}}}
	_, err := f.guard("https://mcp.example.com").DialContext(t.Context(), "tcp", "169.254.169.254:80")
	want := "refusing to connect to 169.254.169.254: a link-local address; only a server configured at such an address may reach one"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestOrigin(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{"http://127.0.0.1/mcp", "HTTP://127.0.0.1:80/other"},
		{"https://Example.com/mcp", "https://example.com:443"},
		{"http://[::1]:8080/x", "http://[::1]:8080/y"},
	} {
		if a, b := Origin(mustParse(t, tt.a)), Origin(mustParse(t, tt.b)); a != b {
			t.Errorf("%s: %s != %s: %s", tt.a, a, tt.b, b)
		}
	}
	for _, tt := range []struct{ a, b string }{
		{"http://127.0.0.1/mcp", "http://127.0.0.2/mcp"},
		{"http://127.0.0.1/mcp", "https://127.0.0.1/mcp"},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp"},
	} {
		if a, b := Origin(mustParse(t, tt.a)), Origin(mustParse(t, tt.b)); a == b {
			t.Errorf("%s and %s are both %s", tt.a, tt.b, a)
		}
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
