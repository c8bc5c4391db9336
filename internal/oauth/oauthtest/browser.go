package oauthtest

import (
	"context"
	"slices"
	"sync"
)

// A Browser stands in for the user's browser: it records every URL it is
// asked to open and hands it to Follow. Its Open method is an oauth.Opener.
type Browser struct {
	// Follow plays the user at the authorization server, typically
	// oauth.FollowRedirects(nil) (a user who approves at once); nil means
	// the URL is only recorded, as by a user who ignores the window.
	Follow func(ctx context.Context, url string) error

	mu     sync.Mutex
	opened []string
}

// Open records url and passes it to Follow.
func (b *Browser) Open(ctx context.Context, url string) error {
	b.mu.Lock()
	b.opened = append(b.opened, url)
	b.mu.Unlock()
	if b.Follow == nil {
		return nil
	}
	return b.Follow(ctx, url)
}

// Opened returns the URLs opened so far, oldest first.
func (b *Browser) Opened() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.opened)
}
