//go:build !linux || !(production || dev) || bindings

package app

// onFrameNavigation has nothing to set here: only the Linux window vets
// its frames' navigations (frameguard_linux.go).
func onFrameNavigation(allowed func(uri string) bool, refused func(uri string)) {}
