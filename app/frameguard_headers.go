//go:build linux && (production || dev) && !bindings && (webkit2_36 || webkit2_40 || webkit2_41)

package app

// webkitKeepsHeaders is set for the WebKitGTK builds whose custom-scheme
// responses carry their headers: a view's Content-Security-Policy header
// (and its sandbox directive) reaches WebKit.
const webkitKeepsHeaders = true
