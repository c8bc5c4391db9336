package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/net/html"
)

// FuzzCallback sends the loopback callback server whatever an attacker or
// a broken authorization server might: any state, code, error and
// description. The sign-in succeeds only with the right state and a code;
// nothing echoed reaches the page unescaped; the server never panics.
func FuzzCallback(f *testing.F) {
	f.Add("good-state", "the-code", "", "", true)
	f.Add("wrong", "the-code", "", "", false)
	f.Add("good-state", "", "access_denied", "<script>alert(1)</script>", true)
	f.Add("good-state", "", "", "", true)
	f.Add("good-state", "c", "server_error", `"><img src=x onerror=alert(1)>`, true)
	f.Fuzz(func(t *testing.T, state, code, errCode, desc string, useRightState bool) {
		const expected = "good-state"
		if useRightState {
			state = expected
		}
		// The page comes back to the opener, which may still be reading
		// it when Fetch returns with the callback's result.
		bodyc := make(chan string, 1)
		cs, err := NewCallbackServer(&CallbackOptions{
			Timeout: 5 * time.Second,
			Open: func(ctx context.Context, _ string) error {
				q := url.Values{}
				q.Set("state", state)
				if code != "" {
					q.Set("code", code)
				}
				if errCode != "" {
					q.Set("error", errCode)
				}
				if desc != "" {
					q.Set("error_description", desc)
				}
				resp, err := http.Get(strings.Split(cbURL(ctx), "?")[0] + "?" + q.Encode())
				if err != nil {
					bodyc <- ""
					return err
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				bodyc <- string(b)
				if state != expected {
					// Not counted: the sign-in would wait for the real
					// answer; the user closes the browser instead.
					return errWrongStateIgnored
				}
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.WithValue(context.Background(), cbKey{}, cs.RedirectURI())
		res, err := cs.Fetch(ctx, &auth.AuthorizationArgs{URL: "https://as.example/authorize?state=" + expected})

		switch {
		case state != expected:
			if !errors.Is(err, errWrongStateIgnored) {
				t.Fatalf("state %q: err = %v; want the callback to ignore it", state, err)
			}
		case errCode != "":
			var ae *AuthorizationError
			if !errors.As(err, &ae) || ae.Code != errCode {
				t.Fatalf("error %q: err = %v", errCode, err)
			}
		case code == "":
			if err == nil {
				t.Fatal("a callback without a code succeeded")
			}
		default:
			if err != nil || res == nil || res.Code != code {
				t.Fatalf("good callback: res %+v, err %v", res, err)
			}
		}
		// Whatever was echoed, the page has only the template's elements.
		body := <-bodyc
		if err := onlyTemplateTags(body); err != nil {
			t.Fatalf("%v (error %q, description %q):\n%s", err, errCode, desc, body)
		}
	})
}

type cbKey struct{}

var errWrongStateIgnored = errors.New("the callback ignored a wrong state")

func cbURL(ctx context.Context) string { s, _ := ctx.Value(cbKey{}).(string); return s }

// templateTags is how many of each element the callback page may have.
var templateTags = map[string]int{"html": 1, "head": 1, "meta": 1, "title": 1, "style": 1, "body": 1, "h1": 1, "p": 2, "code": 1}

// onlyTemplateTags fails when the page has an element the template does
// not make, or more of one than it makes: an echoed value became markup.
func onlyTemplateTags(page string) error {
	counts := map[string]int{}
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			counts[string(name)]++
			if counts[string(name)] > templateTags[string(name)] {
				return fmt.Errorf("the page has an unexpected <%s>", name)
			}
		}
	}
}
