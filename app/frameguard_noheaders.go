//go:build linux && (production || dev) && !bindings && !(webkit2_36 || webkit2_40 || webkit2_41)

package app

// webkitKeepsHeaders is false for a build without a webkit2_* tag: Wails
// then drops every header of a custom-scheme response, a view's policy
// with them, so views stay off (make builds with webkit2_41).
const webkitKeepsHeaders = false
