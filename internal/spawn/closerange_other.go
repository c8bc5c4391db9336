//go:build unix && !linux

package spawn

import "errors"

func closeRangeCloexec() error { return errors.ErrUnsupported }
