//go:build !linux || !(production || dev) || bindings

package app

import "runtime"

// guardFrames has nothing to do here: on macOS Wails takes a binding call
// only from the main frame (WKScriptMessage.frameInfo.isMainFrame); on
// Windows WebView2 raises an iframe's messages on the frame's own event,
// which Wails does not listen to, and Wails checks the sender's source too.
func guardFrames() error { return nil }

// framesGuarded reports whether a frame inside the window is kept from the
// app's bindings: by the platform's webview on macOS and Windows; builds
// without a window (tests) have no frames to guard.
func framesGuarded() bool { return canGuardFrames() }

// canGuardFrames reports whether this build keeps frames from the
// bindings: the platform does on macOS and Windows.
func canGuardFrames() bool { return runtime.GOOS == "darwin" || runtime.GOOS == "windows" }

func onFrameRefused(func(n int64, size int)) {}
