//go:build dev

package paths

func init() { devBuild = true }
