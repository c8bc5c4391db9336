package core

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
)

// TestAuthorizeEndsWhileTheBrowserWaits: Authorize waits for the sign-in
// the browser shows, and returns as soon as the caller gives up or the
// user cancels, without waiting out the callback's timeout.
func TestAuthorizeEndsWhileTheBrowserWaits(t *testing.T) {
	for _, tt := range []struct {
		name string
		end  func(svc *Services, id string, cancel context.CancelFunc)
		// check judges Authorize's error.
		check func(err error) bool
		want  mcpconn.State // the server's state afterwards; "" means any
	}{
		{name: "the caller gives up",
			end:   func(_ *Services, _ string, cancel context.CancelFunc) { cancel() },
			check: func(err error) bool { return errors.Is(err, context.Canceled) }},
		{name: "the user cancels",
			end: func(svc *Services, id string, _ context.CancelFunc) { svc.CancelAuthorize(id) },
			check: func(err error) bool {
				// The cancelled sign-in, as the Interaction remembers it.
				return err != nil && strings.HasPrefix(err.Error(), "authorizing ") && strings.Contains(err.Error(), "sign-in cancelled")
			},
			want: mcpconn.StateDisconnected},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app := newRemoteApp(t, nil)
			opened := make(chan struct{})
			// A user who leaves the window open and does nothing.
			app.browser = &oauthtest.Browser{Follow: func(context.Context, string) error { close(opened); return nil }}
			_, svc := app.start(t)
			id := app.addServer(t, svc)
			waitState(t, svc, id, mcpconn.StateNeedsAuth)

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- svc.Authorize(ctx, id) }()
			<-opened
			tt.end(svc, id, cancel)
			if err := <-done; !tt.check(err) {
				t.Errorf("Authorize: %v", err)
			}
			if tt.want != "" {
				if st, _ := svc.Manager.Status(id); st.State != tt.want {
					t.Errorf("server is %s (%s); want %s", st.State, st.Reason, tt.want)
				}
			}
			if n := app.opened(); n != 1 {
				t.Errorf("the browser opened %d times; want 1", n)
			}
		})
	}
}
