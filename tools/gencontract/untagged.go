//go:build !bindings

// Command gencontract must be built with -tags bindings: see main.go.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "gencontract: build it with -tags bindings (make generate)")
	os.Exit(2)
}
