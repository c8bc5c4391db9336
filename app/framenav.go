package app

import "net/url"

// navigationAllowed decides a navigation of the window's page or one of
// its frames to target, the page being at page (empty before the first
// load): the app's own origin, a frame's about:blank or srcdoc, and an
// https origin a live view declared for its frames (declared) pass;
// everything else (another site, data:, blob:, file:) is refused. A view
// runs under its policy only while it stays in its document: navigating
// its frame elsewhere, or to a URL that answers 204 with data in its
// query, would leave the policy behind. The app's own page never leaves
// its origin (links open in the browser).
func navigationAllowed(target, page string, declared func(uri string) bool) bool {
	if target == "about:blank" || target == "about:srcdoc" {
		return true
	}
	t, err := url.Parse(target)
	if err != nil || t.Scheme == "" {
		return false
	}
	if page == "" || page == "about:blank" {
		return true // the first load, before the app's page is there
	}
	p, err := url.Parse(page)
	if err == nil && p.Scheme != "" && t.Scheme == p.Scheme && t.Host == p.Host && t.User == nil {
		return true
	}
	return t.Scheme == "https" && declared(target)
}
