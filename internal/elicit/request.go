package elicit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/idna"

	"github.com/switchboard-app/switchboard/internal/asks"
)

// Bounds on a request's text.
const (
	// MaxMessageLength bounds the message shown, in characters; a longer
	// one is clipped.
	MaxMessageLength = 4000
	// MaxURLLength bounds a URL-mode request's URL, in bytes.
	MaxURLLength = 4096
)

// Events of elicitation: a request starts waiting (payload *Request) and
// stops (asks.Ended); a server says the step of a URL-mode request is done
// (Completed).
const (
	EventRequested = "elicit:requested"
	EventEnded     = "elicit:ended"
	EventCompleted = "elicit:completed"
)

// Completed is the payload of EventCompleted: the server said the step
// the user was sent to a page for is done (notifications/elicitation/
// complete). The window closes the request's dialog, if it is still
// open, and says it is done.
type Completed struct {
	ServerID      string `json:"serverId"`
	ServerName    string `json:"serverName"`
	ElicitationID string `json:"elicitationId"`
	Message       string `json:"message"`
	Host          string `json:"host"`
}

// A Mode is what a server asks for: a form or a page to open.
type Mode string

// The modes of elicitation/create.
const (
	ModeForm Mode = "form"
	ModeURL  Mode = "url"
)

// Modes lists every Mode, for the generated contract.
var Modes = []Mode{ModeForm, ModeURL}

// An Action is the user's answer: accept (with content, for a form),
// decline, or cancel (dismissed without choosing).
type Action string

// The actions of an answer.
const (
	Accept  Action = "accept"
	Decline Action = "decline"
	Cancel  Action = "cancel"
)

// Actions lists every Action, for the generated contract.
var Actions = []Action{Accept, Decline, Cancel}

// A Request is one elicitation as the window shows it.
type Request struct {
	asks.Meta
	Mode    Mode   `json:"mode" ts_type:"elicit.Mode"`
	Message string `json:"message"`
	// Form is the schema as fields; nil when it cannot be a form, and then
	// FormProblem says why and the window offers a JSON editor over
	// Schema.
	Form        *Form  `json:"form,omitempty"`
	FormProblem string `json:"formProblem,omitempty"`
	// Schema is the requested schema as sent, indented.
	Schema string `json:"schema,omitempty"`
	// URL is the page a URL-mode request asks the user to open, and Host
	// its host, which the window emphasises.
	URL  string `json:"url,omitempty"`
	Host string `json:"host,omitempty"`
	// ElicitationID is the server's ID of a URL-mode request.
	ElicitationID string `json:"elicitationId,omitempty"`
	// Waiting marks the second dialog of a step a tool call needs (a
	// URL-elicitation-required error): the user opened the page, and the
	// call waits until the server says the step is done or the user does
	// (accept: done; cancel or decline: given up).
	Waiting bool `json:"waiting,omitempty"`

	schema json.RawMessage // as sent, for CheckSchema
}

// An Answer is the user's answer to a Request.
type Answer struct {
	Action Action `json:"action" ts_type:"elicit.Action"`
	// Content is the form's values when Action is accept in form mode.
	Content map[string]any `json:"content,omitempty" ts_type:"Record<string, unknown>"`
}

// NewRequest reads an elicitation/create's parameters. orderKnown says
// whether schema keeps the server's order of properties; when not, the
// form puts required fields first. An error means the request cannot be
// shown at all (a URL that is not http or https, an unknown mode); a
// schema that is not a form is not an error.
func NewRequest(mode, message string, schema json.RawMessage, link, elicitationID string, orderKnown bool) (*Request, error) {
	r := &Request{Mode: Mode(mode), Message: clip(message, MaxMessageLength), ElicitationID: clip(elicitationID, 200)}
	if r.Mode == "" {
		r.Mode = ModeForm
	}
	switch r.Mode {
	case ModeForm:
		r.schema = schema
		if len(schema) > 0 && len(schema) <= MaxSchemaBytes {
			var b bytes.Buffer
			if json.Indent(&b, schema, "", "  ") == nil {
				r.Schema = b.String()
			}
		}
		form, err := ParseForm(schema)
		if err != nil {
			r.FormProblem = err.Error()
			break
		}
		if !orderKnown {
			form.RequiredFirst()
		}
		r.Form = form
	case ModeURL:
		u, err := checkURL(link)
		if err != nil {
			return nil, err
		}
		r.URL, r.Host = u.String(), u.Host
	default:
		return nil, fmt.Errorf("the server asked in mode %q, which Switchboard does not know (it knows form and url)", clip(mode, 50))
	}
	return r, nil
}

func checkURL(link string) (*url.URL, error) {
	if len(link) > MaxURLLength {
		return nil, fmt.Errorf("the server asked to open a URL longer than %d bytes", MaxURLLength)
	}
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the server asked to open %q, which is not an http or https URL", clip(link, 200))
	}
	if u.User != nil {
		return nil, fmt.Errorf("the server asked to open %q, a URL with a user name in it, which can hide where it goes", clip(link, 200))
	}
	// The host is shown and opened as the browser reads it (punycode), so
	// a look-alike host (Cyrillic "а" for "a") shows as what it is, and one
	// with characters no host may have (a right-to-left override) is refused.
	if net.ParseIP(u.Hostname()) != nil {
		return u, nil
	}
	host, err := idna.Lookup.ToASCII(u.Hostname())
	if err != nil {
		return nil, fmt.Errorf("the server asked to open %q, whose host is not a valid name", clip(link, 200))
	}
	if p := u.Port(); p != "" {
		host = net.JoinHostPort(host, p)
	}
	u.Host = host
	return u, nil
}

// WaitFor returns the request that waits for the user to finish the step
// r sent them to a page for (see Request.Waiting).
func (r *Request) WaitFor() *Request {
	return &Request{Mode: ModeURL, Message: r.Message, URL: r.URL, Host: r.Host, ElicitationID: r.ElicitationID, Waiting: true}
}

// Summary is the request in a line, for logs and the CLI.
func (r *Request) Summary() string {
	if r.Waiting {
		return fmt.Sprintf("%q (waiting for the user to finish at %s)", clip(r.Message, 300), r.Host)
	}
	if r.Mode == ModeURL {
		return fmt.Sprintf("%q (to open %s)", clip(r.Message, 300), clip(logURL(r.URL), 300))
	}
	return fmt.Sprintf("%q", clip(r.Message, 300))
}

// logURL is link without its query and fragment, which often carry a
// one-time token, for logs; "?…" marks what was left out.
func logURL(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return "an unreadable address"
	}
	cut := u.RawQuery != "" || u.Fragment != "" || u.ForceQuery
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = "", "", "", false
	if cut {
		return u.String() + "?…"
	}
	return u.String()
}

// ErrBadAction is Check's error for an action other than accept, decline
// and cancel.
var ErrBadAction = errors.New("the answer must be accept, decline or cancel")

// Check returns an error unless a is a valid answer to r: an accept of a
// form carries content the form (or, for a JSON editor, the schema)
// accepts; every other answer carries no content.
func (r *Request) Check(a Answer) error {
	switch a.Action {
	case Accept:
	case Decline, Cancel:
		if len(a.Content) > 0 {
			return fmt.Errorf("a %s carries no content", a.Action)
		}
		return nil
	default:
		return ErrBadAction
	}
	if r.Mode == ModeURL {
		if len(a.Content) > 0 {
			return errors.New("opening a URL carries no content")
		}
		return nil
	}
	if r.Form != nil {
		return r.Form.Check(a.Content)
	}
	return CheckSchema(r.schema, a.Content)
}
