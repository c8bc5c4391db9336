package app

import (
	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/sampling"
)

// What servers ask of the user: forms and pages to open (elicitation) and
// completions to allow (sampling). Each waits until answered here, or
// until it expires; the events elicit:* and sampling:* announce them.

// PendingElicitations returns the servers' requests for input that wait
// for the user, oldest first (a reloaded window shows them again).
func (a *App) PendingElicitations() ([]*elicit.Request, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return orEmpty(svc.PendingElicitations()), nil
}

// AnswerElicitation answers a request for input: accept (with the form's
// content; for a URL, opening it in the system browser), decline or
// cancel. An answer that does not match the form is refused and the
// request keeps waiting.
func (a *App) AnswerElicitation(id string, answer elicit.Answer) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.AnswerElicitation(a.life, id, answer)
}

// PendingSamplings returns the servers' requests for a completion that
// wait for the user, oldest first.
func (a *App) PendingSamplings() ([]*sampling.Request, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return orEmpty(svc.PendingSamplings()), nil
}

// AnswerSampling approves (optionally edited, on another model) or denies
// a request for a completion.
func (a *App) AnswerSampling(id string, decision sampling.Decision) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.AnswerSampling(id, decision)
}

// WindowVisible is called by the frontend when the page is shown or
// hidden (minimised, on another workspace: the page's visibilityState).
// Servers may ask the user for anything only while it is visible.
func (a *App) WindowVisible(visible bool) error {
	a.hidden.Store(!visible)
	return nil
}

// visible reports whether the user can see the window: the page has
// started and has not said it is hidden.
func (a *App) visible() bool {
	select {
	case <-a.ready:
		return !a.hidden.Load()
	default:
		return false
	}
}
