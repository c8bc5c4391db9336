//go:build !dev

package app

import "io"

// startDev does nothing outside development builds (see devserver.go).
func startDev(io.Writer) (stop func(), err error) { return func() {}, nil }
