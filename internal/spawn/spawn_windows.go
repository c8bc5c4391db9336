package spawn

import "errors"

// Windows children inherit only handles marked inheritable, and Wails'
// Windows asset server uses none: there is nothing to do.
const supported = false

func closeStray() error { return nil }

func execve(path string, argv, env []string) error { return errors.ErrUnsupported }
