package core

// AppViewFrameAllowed reports whether a frame inside the window may
// navigate to uri, off the app's origin: only to an origin a live view
// declared for its frames (appview.Registry.FrameAllowed). A window that
// vets its frames' navigations asks this.
func (s *Services) AppViewFrameAllowed(uri string) bool {
	return s.views.reg.FrameAllowed(uri)
}

// EndAppViews ends every open view, saying why (each card hears
// appview:closed), and returns how many: the window does it when a frame
// tries what no view may, as it cannot tell which view did.
func (s *Services) EndAppViews(reason string) int {
	return s.views.reg.EndAll(reason)
}

// AppViewsOpen reports how many views are open in the window.
func (s *Services) AppViewsOpen() int {
	return len(s.views.reg.List())
}
