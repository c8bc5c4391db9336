//go:build !linux || !(production || dev) || bindings

package app

import "runtime"

// guardFrames has nothing to do here: on macOS Wails takes a binding call
// only from the main frame (WKScriptMessage.frameInfo.isMainFrame); on
// Windows WebView2 raises an iframe's messages on the frame's own event,
// which Wails does not listen to, and Wails checks the sender's source too.
func guardFrames() error { return nil }

// framesGuarded reports whether a frame inside the window is kept from the
// app's bindings (canGuardFrames); builds without a window (tests) have no
// frames to guard.
func framesGuarded() bool { return canGuardFrames() }

// canGuardFrames reports whether this build may show views: viewsSafeOn
// of the platform it runs on.
func canGuardFrames() bool { return viewsSafeOn(runtime.GOOS) }

// viewsSafeOn reports whether a window on goos, without the Linux frame
// guard, may show servers' views: only where views were tested
// (viewsTestedOn).
func viewsSafeOn(goos string) bool { return viewsTestedOn[goos] }

// viewsTestedOn are the platforms where a window without the Linux frame
// guard was tested with views. None was yet, and each has known gaps:
//   - macOS: Wails (v2.16, WailsContext.m) reads a frame's message body as
//     a string before it checks the message comes from the main frame, so
//     a view that posts an object crashes the app; WKWebView runs WebRTC,
//     which connect-src does not hold, so a view could send data anywhere;
//     and a view that hangs hangs the whole window (one web process).
//   - Windows: WebView2 runs WebRTC too, and views were never tried there.
//
// Builds without a window (tests, bindings) show none either.
var viewsTestedOn = map[string]bool{"darwin": false, "windows": false}

func onFrameRefused(func(n int64, size int)) {}

// onPageHang has nothing to set here: no other build shows views.
func onPageHang(hung func() bool, gone func(ended bool) bool) {}
